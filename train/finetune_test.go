package train

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/datasets"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/nn"
)

// FineTune with the cross-entropy as its Loss trains as the control at
// λ_ce = 1, bit for bit (the same schedule, batches and steps), also with
// the whole network; another loss ends elsewhere.
func TestFineTuneLossReplacesCrossEntropy(t *testing.T) {
	for _, whole := range []bool{false, true} {
		run := func(stage func(r *rand.Rand, rec Recipe, m *ecl.Classifier[float64], src, tgt datasets.Split[float64]) error) []float64 {
			r := rand.New(rand.NewPCG(9, 9))
			m := ecl.NewMLPClassifier[float64](r, 2, 6, 3, 3)
			src, tgt := shiftedPair(r)
			rec := Recipe{ECL: Stage{Epochs: 3, LR: 0.01}, Batch: 6, LambdaCE: 1, WholeNetwork: whole}
			if err := stage(r, rec, m, src, tgt); err != nil {
				t.Fatal(err)
			}
			var w []float64
			for _, p := range m.Params() {
				w = append(w, p.Value.Data()...)
			}
			return w
		}
		withLoss := func(l Loss[float64]) func(r *rand.Rand, rec Recipe, m *ecl.Classifier[float64], src, tgt datasets.Split[float64]) error {
			return func(r *rand.Rand, rec Recipe, m *ecl.Classifier[float64], src, tgt datasets.Split[float64]) error {
				return FineTune(r, rec, m, src, tgt, Objective[float64]{Loss: l})
			}
		}
		control := run(Control[float64])
		ce := run(withLoss(func(ls, _ *autograd.Var[float64], s, _ datasets.Split[float64]) *autograd.Var[float64] {
			return nn.CrossEntropy(ls, s.Y)
		}))
		if !slices.Equal(ce, control) {
			t.Errorf("whole network %v: FineTune with the cross-entropy ended at other weights than Control", whole)
		}
		other := run(withLoss(func(ls, _ *autograd.Var[float64], s, _ datasets.Split[float64]) *autograd.Var[float64] {
			return autograd.MeanAll(autograd.Mul(ls, ls))
		}))
		if slices.Equal(other, control) {
			t.Errorf("whole network %v: FineTune with another loss trained as the control", whole)
		}
	}
}

// An objective with both a loss and a term, or neither, is an error before
// any training.
func TestFineTuneWantsOneObjective(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	m := ecl.NewMLPClassifier[float64](r, 2, 4, 3, 3)
	src, tgt := shiftedPair(r)
	loss := func(ls, _ *autograd.Var[float64], s, _ datasets.Split[float64]) *autograd.Var[float64] {
		return nn.CrossEntropy(ls, s.Y)
	}
	term := func(ps, _ *autograd.Var[float64], _, _ datasets.Split[float64]) *autograd.Var[float64] {
		return autograd.MeanAll(ps)
	}
	rec := Recipe{ECL: Stage{Epochs: 1, LR: 0.01}, Batch: 5}
	for _, obj := range []Objective[float64]{{}, {Loss: loss, Term: term}} {
		if err := FineTune(r, rec, m, src, tgt, obj); err == nil || !strings.Contains(err.Error(), "want one") {
			t.Errorf("both or neither: error %v", err)
		}
	}
}
