package experiment

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/datasets/sim"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
)

// The focal loss and its gradient on two rows worked by hand, in both
// element types. Row 1, logits (ln 3, 0), label 0: p = 3/4, loss
// (1/4)²·ln(4/3). Row 2, logits (0, 0), label 1: p = 1/2, loss
// (1/2)²·ln 2. With FL(p) = −(1 − p)²·ln p, dFL/dp = 2(1 − p)·ln p −
// (1 − p)²/p, and dp/dz = ±p(1 − p) (+ for the label's logit): row 1
// (ln(3/4)/2 − 1/12)·3/16 on z₀, row 2 −(ln 2 + 1/2)/4 on z₁; the mean
// halves each.
func TestFocalByHand(t *testing.T) {
	const (
		loss = 0.09563346233411131   // (ln(4/3)/16 + ln(2)/4) / 2
		g1   = -0.021297597146177228 // (ln(3/4)/2 − 1/12)·3/16 / 2
		g2   = -0.14914339756999317  // −(ln 2 + 1/2)/4 / 2
	)
	logits := []float64{math.Log(3), 0, 0, 0}
	want := []float64{g1, -g1, -g2, g2}
	check := func(name string, gotLoss float64, grad []float64, tol float64) {
		t.Helper()
		if math.Abs(gotLoss-loss) > tol {
			t.Errorf("%s: loss %v, want %v", name, gotLoss, loss)
		}
		for i, g := range grad {
			if math.Abs(g-want[i]) > tol {
				t.Errorf("%s: gradient %v, want %v", name, grad, want)
				break
			}
		}
	}
	z64 := autograd.Param(tensor.FromSlice(logits, 2, 2))
	l64 := focal(z64, []int{0, 1}, 2)
	l64.Backward()
	check("float64", l64.Value.Item(), z64.Grad.Data(), 1e-15)
	z32 := autograd.Param(tensor.Convert[float32](tensor.FromSlice(logits, 2, 2)))
	l32 := focal(z32, []int{0, 1}, 2)
	l32.Backward()
	check("float32", float64(l32.Value.Item()), tensor.Convert[float64](z32.Grad).Data(), 1e-7)
}

// The focal loss's gradient against float64 central differences, and the
// loss at γ = 0 is the cross-entropy.
func TestFocalGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	x := tensor.RandNormal[float64](rng, 0, 2, 6, 4)
	labels := []int{0, 3, 1, 1, 2, 0}
	for _, gamma := range []float64{2, 0.5} {
		if r, err := autograd.Check("focal", func(xs []*autograd.Var[float64]) *autograd.Var[float64] {
			return focal(xs[0], labels, gamma)
		}, []*tensor.Tensor[float64]{x}, autograd.CheckOptions{}); err != nil {
			t.Errorf("γ = %v: %v", gamma, r)
		}
	}
	z := autograd.Const(x)
	if fl, ce := focal(z, labels, 0).Value.Item(), nn.CrossEntropy(z, labels).Value.Item(); math.Abs(fl-ce) > 1e-12 {
		t.Errorf("focal loss at γ = 0: %v, cross-entropy %v", fl, ce)
	}
}

// The Focal row is a model of its own: trained on CE-finetune's schedule
// and batches, with another loss, it ends elsewhere.
func TestFocalRow(t *testing.T) {
	c := SimConfig{Recipe: "paper", Shifts: []sim.Kind{sim.Normal}, Study: Study{Paradigms: []ecl.Paradigm{ecl.TopLabel}, Runs: 1, Seed: 5, Methods: []string{"focal"}, Control: true},
		Points: 80, Hidden: 8, BaseEpochs: 5, AuxEpochs: 1, ECLEpochs: 3}
	rs, err := RunSim(c)
	if err != nil {
		t.Fatal(err)
	}
	byMethod := map[string]Result{}
	for _, r := range rs {
		byMethod[r.Method.String()] = r
	}
	f, ok := byMethod["Focal"]
	if !ok {
		t.Fatalf("no Focal row in %v", rs)
	}
	if ce := byMethod["CE-finetune"]; f.Target.NLL == ce.Target.NLL || f.Target.NLL == byMethod["Uncal"].Target.NLL {
		t.Errorf("Focal's target NLL %v, CE-finetune's %v, Uncal's %v: want it to differ from both", f.Target.NLL, ce.Target.NLL, byMethod["Uncal"].Target.NLL)
	}
}
