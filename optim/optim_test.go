package optim

import (
	"math"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// run minimises p²/2 (gradient p) from p = 1 and returns p after each step.
func run(opt func([]*autograd.Var[float64]) Optimizer, steps int) []float64 {
	p := autograd.Param(tensor.FromSlice([]float64{1}))
	o := opt([]*autograd.Var[float64]{p})
	var out []float64
	for range steps {
		p.ZeroGrad()
		autograd.Scale(autograd.SumAll(autograd.Mul(p, p)), 0.5).Backward()
		o.Step()
		out = append(out, p.Value.Item())
	}
	return out
}

func near(t *testing.T, name string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("%s: step %d: got %.15g, want %.15g", name, i+1, got[i], want[i])
		}
	}
}

func TestSGD(t *testing.T) {
	// By hand, lr 0.1: plain p ← 0.9p.
	near(t, "plain", run(func(ps []*autograd.Var[float64]) Optimizer { return NewSGD(ps, 0.1, 0, 0, false) }, 2), []float64{0.9, 0.81})
	// Momentum 0.9: buf = 1, p = 0.9; g = 0.9, buf = 1.8, p = 0.72.
	near(t, "momentum", run(func(ps []*autograd.Var[float64]) Optimizer { return NewSGD(ps, 0.1, 0.9, 0, false) }, 2), []float64{0.9, 0.72})
	// Nesterov: g = 1 + 0.9·1 → p = 0.81; g = 0.81, buf = 1.71, g = 0.81 + 0.9·1.71 = 2.349 → p = 0.5751.
	near(t, "nesterov", run(func(ps []*autograd.Var[float64]) Optimizer { return NewSGD(ps, 0.1, 0.9, 0, true) }, 2), []float64{0.81, 0.5751})
	// Weight decay 0.5: g = p + 0.5p → p ← 0.85p.
	near(t, "decay", run(func(ps []*autograd.Var[float64]) Optimizer { return NewSGD(ps, 0.1, 0, 0.5, false) }, 2), []float64{0.85, 0.7225})
}

func TestAdam(t *testing.T) {
	// Worked out with the update rule of Kingma & Ba (bias-corrected), lr 0.1,
	// in a separate float64 script: m, v from g = p each step.
	near(t, "adam", run(func(ps []*autograd.Var[float64]) Optimizer { return NewAdam(ps, 0.1, 0) }, 3),
		[]float64{0.9000000009999999, 0.8004122297123379, 0.7015862745044147})
}

func TestMultiStep(t *testing.T) {
	o := NewAdam[float64](nil, 1, 0)
	s := MultiStep{Base: 0.01, Milestones: []int{100, 150}, Gamma: 0.1}
	for _, c := range []struct {
		epoch int
		lr    float64
	}{{0, 0.01}, {99, 0.01}, {100, 0.001}, {149, 0.001}, {150, 0.0001}} {
		s.Apply(o, c.epoch)
		if math.Abs(o.LR()-c.lr) > 1e-15 {
			t.Errorf("epoch %d: lr %v, want %v", c.epoch, o.LR(), c.lr)
		}
	}
}
