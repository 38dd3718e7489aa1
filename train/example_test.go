package train_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/ecl-go/ecl/datasets/sim"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/train"
)

// The three stages of the ECL recipe on the simulated covariate shift: a
// base classifier trained by cross-entropy on the source, the auxiliary
// head on its frozen features, then the main head fine-tuned with
// λ_ce·CE + top-label ECL on paired source and unlabelled target batches.
func Example() {
	rng := rand.New(rand.NewPCG(1, 1))
	src, tgt := sim.Generate(sim.Normal, 400, rng)
	stage := train.Stage{Epochs: 30, LR: 0.01}
	var eclEpochs int
	r := train.Recipe{
		Base: stage, Aux: stage,
		ECL:      train.Stage{Epochs: 10, LR: 1e-3, OnEpoch: func(int, float64) { eclEpochs++ }},
		Batch:    100,
		LambdaCE: 1,
		Loss:     ecl.Config{Reduce: ecl.Mean},
	}
	const k = 3
	m := ecl.NewMLPClassifier[float64](rng, 2, 32, k, 2) // top-label: P(correct) from two outputs
	if err := train.Base(rng, r, m, src); err != nil {
		panic(err)
	}
	accuracy := func() float64 {
		logits, right := nn.Predict[float64](m, tgt.X).Data(), 0
		for i, y := range tgt.Y {
			if metrics.Argmax(logits[i*k:(i+1)*k]) == y {
				right++
			}
		}
		return float64(right) / float64(len(tgt.Y))
	}
	before := accuracy()
	if err := train.Aux(rng, r, ecl.TopLabel, m, src); err != nil {
		panic(err)
	}
	if err := train.ECL(rng, r, ecl.TopLabel, m, src, tgt, k, nil); err != nil {
		panic(err)
	}
	fmt.Printf("ECL stage: %d epochs\n", eclEpochs)
	fmt.Printf("target accuracy above 80%% before and after: %v\n", before > 0.8 && accuracy() > 0.8)
	// Output:
	// ECL stage: 10 epochs
	// target accuracy above 80% before and after: true
}
