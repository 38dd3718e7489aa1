package bench

import (
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/datasets/sim"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/train"
)

// SmallCase is a training stage of the simulation study (ecl sim with its
// default recipe: the 2→100→3 MLP classifier, float64, batch 100, Adam)
// on 100 points, so that each epoch is one step: Run(steps) trains that
// many steps through the train package's own loop.
type SmallCase struct {
	Name string
	Run  func(steps int)
}

// SmallCases lists the stages of ecl sim: the base model (cross-entropy
// through the whole network), the top-label auxiliary head (cross-entropy
// and Soft-ECE on the frozen backbone) and the ECL fine-tuning of the main
// head in each paradigm (mean-reduced mini-batch ECL on paired batches),
// and the canonical one traced as ecl sim runs it (train.Recipe.Trace: the
// gradient norms of the ECL term and of CE at every step).
func SmallCases() []SmallCase {
	const points, hidden, classes = 100, 100, 3
	r := rand.New(rand.NewPCG(1, 2))
	src, tgt := sim.Generate(sim.Uniform, points, r)
	recipe := func(steps int) train.Recipe {
		st := train.Stage{Epochs: steps, LR: 1e-3}
		return train.Recipe{Base: st, Aux: st, ECL: st, Batch: points, LambdaCE: 1, AuxSoftECE: true, Loss: ecl.Config{Reduce: ecl.Mean}}
	}
	model := func(auxOut int) *ecl.Classifier[float64] {
		return ecl.NewMLPClassifier[float64](rand.New(rand.NewPCG(3, 4)), 2, hidden, classes, auxOut)
	}
	cases := []SmallCase{
		{"sim-mlp/base", func(steps int) {
			if err := train.Base(rand.New(rand.NewPCG(5, 6)), recipe(steps), model(classes), src); err != nil {
				panic(err)
			}
		}},
		{"sim-mlp/aux-toplabel", func(steps int) {
			if err := train.Aux(rand.New(rand.NewPCG(5, 6)), recipe(steps), ecl.TopLabel, model(2), src); err != nil {
				panic(err)
			}
		}},
	}
	eclStage := func(p ecl.Paradigm, trace bool) func(steps int) {
		auxOut := classes
		if p == ecl.TopLabel {
			auxOut = 2
		}
		return func(steps int) {
			r := recipe(steps)
			if trace {
				r.Trace = func(train.EpochTrace) {}
			}
			if err := train.ECL(rand.New(rand.NewPCG(5, 6)), r, p, model(auxOut), src, tgt, classes, nil); err != nil {
				panic(err)
			}
		}
	}
	for _, p := range []ecl.Paradigm{ecl.Canonical, ecl.ClassWise, ecl.TopLabel} {
		cases = append(cases, SmallCase{"sim-mlp/ecl-" + p.String(), eclStage(p, false)})
	}
	return append(cases, SmallCase{"sim-mlp/ecl-canonical-traced", eclStage(ecl.Canonical, true)})
}

// KDEInput is what ecl sim hands the ECE^KDE metric for one model on one
// domain: n rows of k = 3 probabilities (a softmax of random logits at the
// sharpness of a trained model) and labels drawn from them.
func KDEInput(n int) (probs []float64, labels []int) {
	r := rand.New(rand.NewPCG(7, 8))
	probs, labels = make([]float64, 3*n), make([]int, n)
	for i := range n {
		s, row := 0.0, probs[3*i:3*i+3]
		for c := range row {
			row[c] = math.Exp(4 * r.NormFloat64())
			s += row[c]
		}
		u := r.Float64() * s
		for c := range row {
			if u -= row[c]; u < 0 || c == 2 {
				labels[i] = c
				break
			}
		}
		for c := range row {
			row[c] /= s
		}
	}
	return probs, labels
}

// KDE runs the ECE^KDE metric as ecl sim does (canonical, bandwidth
// selected by the leave-one-out search).
func KDE(probs []float64, labels []int) float64 {
	r, err := metrics.ECEKDE(probs, 3, labels, metrics.KDEOptions{Mode: metrics.KDECanonical})
	if err != nil {
		panic(err)
	}
	return r.Value
}
