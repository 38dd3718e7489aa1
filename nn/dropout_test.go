package nn

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

func TestDropoutMask(t *testing.T) {
	const p, n = 0.3, 100000
	d := NewDropout(NewVars[float32](), p, rand.New(rand.NewPCG(1, 2)))
	x := autograd.Const(tensor.Ones[float32](10, n/10))
	first := d.Forward(x).Value.Data()
	zeros, sum := 0, 0.0
	for _, v := range first {
		switch {
		case v == 0:
			zeros++
		case v != float32(1/(1-p)):
			t.Fatalf("kept value %v, want 1/(1−p) = %v", v, float32(1/(1-p)))
		}
		sum += float64(v)
	}
	// Binomial(n, p): standard deviation of the dropped fraction √(p(1−p)/n) ≈ 0.0014.
	if f := float64(zeros) / n; math.Abs(f-p) > 0.01 {
		t.Errorf("dropped fraction %v, want %v", f, p)
	}
	if m := sum / n; math.Abs(m-1) > 0.02 {
		t.Errorf("mean %v, want 1 (inverted dropout keeps the expectation)", m)
	}
	// The generator advances: a second call draws a different mask.
	second := d.Forward(x).Value.Data()
	same := 0
	for i := range first {
		if first[i] == second[i] {
			same++
		}
	}
	if same == n {
		t.Error("two training calls drew the same mask")
	}
	// A layer with the same seed draws the same first mask.
	again := NewDropout(NewVars[float32](), p, rand.New(rand.NewPCG(1, 2))).Forward(x).Value.Data()
	for i := range first {
		if again[i] != first[i] {
			t.Fatalf("same seed, element %d: %v then %v", i, first[i], again[i])
		}
	}
}

func TestDropoutIdentity(t *testing.T) {
	x := autograd.Const(tensor.RandNormal[float64](rand.New(rand.NewPCG(3, 3)), 0, 1, 4, 5))
	d := NewDropout(NewVars[float64](), 0.5, rand.New(rand.NewPCG(4, 4)))
	d.SetTraining(false)
	if d.Forward(x) != x {
		t.Error("evaluation mode changed the input")
	}
	if NewDropout(NewVars[float64](), 0, rand.New(rand.NewPCG(4, 4))).Forward(x) != x {
		t.Error("p = 0 changed the input in training")
	}
	for _, p := range []float64{-0.1, 1, 1.5, math.NaN()} {
		func() {
			defer func() {
				r := recover()
				var ae *tensor.ArgumentError
				if err, _ := r.(error); !errors.As(err, &ae) || ae.Op != "nn.Dropout" || !errors.Is(err, tensor.ErrArgument) {
					t.Errorf("p = %v: panic %v, want a *tensor.ArgumentError of nn.Dropout", p, r)
				}
			}()
			NewDropout(NewVars[float64](), p, nil)
		}()
	}
}

func TestDropoutGradient(t *testing.T) {
	x := tensor.RandNormal[float64](rand.New(rand.NewPCG(5, 5)), 0, 1, 3, 8)
	// Check evaluates f once with gradients and twice per element without:
	// a fresh layer with the same seed gives every evaluation the same mask.
	f := func(xs []V) V { return NewDropout(NewVars[float64](), 0.5, rand.New(rand.NewPCG(6, 6))).Forward(xs[0]) }
	dropped := 0
	for _, v := range f([]V{autograd.Const(x)}).Value.Data() {
		if v == 0 {
			dropped++
		}
	}
	if dropped == 0 || dropped == x.Len() {
		t.Fatalf("mask drops %d of %d: the check would not exercise it", dropped, x.Len())
	}
	check(t, "Dropout", 0, f, x)
}
