package autograd

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

// A deliberately wrong backward rule must be caught by Check.
func TestCheckCatchesWrongGradient(t *testing.T) {
	wrong := def("test_wrong_square")
	defer func() { primitives = primitives[:len(primitives)-1] }()
	type t64 = *tensor.Tensor[float64]
	square := func(xs []*Var[float64]) *Var[float64] {
		return record(wrong, tensor.Mul(xs[0].Value, xs[0].Value), func(g, _ t64, x []*Var[float64]) []t64 {
			return []t64{tensor.Mul(g, x[0].Value)} // should be 2·x·g
		}, xs[0])
	}
	r := rand.New(rand.NewPCG(1, 2))
	rep, err := Check("wrong", square, []t64{tensor.RandUniform[float64](r, -1, 1, 3, 2)}, CheckOptions{})
	if err == nil {
		t.Fatalf("Check accepted a wrong gradient: %v", rep)
	}
	if !strings.Contains(err.Error(), "wrong") || rep.Err < 0.3 {
		t.Errorf("report %v, error %v", rep, err)
	}
}

func TestBackwardAccumulatesSharedInputs(t *testing.T) {
	// y = x·x + 3x summed: dy/dx = 2x + 3, with x used three times.
	x := Param(tensor.FromSlice([]float64{1, -2, 0.5}))
	y := SumAll(Add(Mul(x, x), Scale(x, 3)))
	y.Backward()
	want := []float64{5, -1, 4}
	for i, g := range x.Grad.Data() {
		if g != want[i] {
			t.Fatalf("grad %v, want %v", x.Grad.Data(), want)
		}
	}
	// A second backward adds to the leaf's gradient.
	SumAll(Scale(x, 2)).Backward()
	if g := x.Grad.Data()[0]; g != 7 {
		t.Errorf("accumulated grad %v, want 7", g)
	}
	x.ZeroGrad()
	if x.Grad != nil {
		t.Error("ZeroGrad kept the gradient")
	}
}

func TestConstantsAndDetachStopGradients(t *testing.T) {
	x := Param(tensor.FromSlice([]float64{2, 3}))
	c := Const(tensor.FromSlice([]float64{5, 7}))
	y := SumAll(Add(Mul(x, c), Mul(x.Detach(), x)))
	y.Backward()
	// d/dx [x·c + stop(x)·x] = c + x
	if g := x.Grad.Data(); g[0] != 7 || g[1] != 10 {
		t.Errorf("grad %v, want [7 10]", g)
	}
	if c.Grad != nil {
		t.Error("a constant received a gradient")
	}
}

func TestNoGradRecordsNothing(t *testing.T) {
	x := Param(tensor.FromSlice([]float64{1, 2}))
	var y *Var[float64]
	NoGrad(func() { y = Exp(x) })
	if y.RequiresGrad() || y.Op() != nil {
		t.Error("NoGrad recorded a graph")
	}
	if z := Exp(x); !z.RequiresGrad() || z.Op().String() != "exp" {
		t.Error("graph recording did not resume after NoGrad")
	}
}

func TestBackwardNeedsScalar(t *testing.T) {
	x := Param(tensor.FromSlice([]float64{1, 2}))
	defer func() {
		err, _ := recover().(error)
		if !errors.Is(err, tensor.ErrShape) || !strings.Contains(err.Error(), "shape [2]") {
			t.Errorf("panic %v, want a *tensor.ShapeError naming shape [2]", err)
		}
	}()
	Exp(x).Backward()
}

func TestDeepChainDoesNotRecurse(t *testing.T) {
	x := Param(tensor.Scalar(1.0))
	y := x
	for range 100000 {
		y = AddScalar(y, 0)
	}
	y.Backward()
	if x.Grad.Item() != 1 {
		t.Errorf("grad %v", x.Grad.Item())
	}
}
