package tensor

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDenseBlockBottleneckShapes: a unit with a bottleneck whose shapes do
// not chain, or that pools, panics with a *ShapeError naming the unit and
// the bottleneck's shapes; one that chains runs.
func TestDenseBlockBottleneckShapes(t *testing.T) {
	x := Zeros[float64](1, 2, 4, 4)
	unit := func(neck, gamma2, in, k, kw int, pool bool) []DenseUnit[float64] {
		return []DenseUnit[float64]{{Gamma: Ones[float64](2), Beta: Zeros[float64](2), W: Zeros[float64](3, in, kw, kw), Pool: pool,
			Bottleneck: &DenseBottleneck[float64]{W: Zeros[float64](neck, 2, k, k), Gamma: Ones[float64](gamma2), Beta: Zeros[float64](gamma2)}}}
	}
	if y, _ := DenseBlock(x, unit(5, 5, 5, 1, 3, false), 1e-5); y.Dim(1) != 5 {
		t.Errorf("output %v, want 5 channels", y.Shape())
	}
	for name, units := range map[string][]DenseUnit[float64]{
		"γ₂ of 4 for 5 channels": unit(5, 4, 5, 1, 3, false),
		"W on 4 channels":        unit(5, 5, 4, 1, 3, false),
		"even kernel":            unit(5, 5, 5, 2, 3, false),
		"pooled":                 unit(5, 5, 5, 1, 1, true),
	} {
		f := func() { DenseBlock(x, units, 1e-5) }
		mustPanic(t, f, "tensor.DenseBlock", "unit 0", "bottleneck weight")
		if err := panicError(f); !errors.Is(err, ErrShape) {
			t.Errorf("%s: panic %v, want a shape error", name, err)
		}
	}
}

// TestDenseBlockChunks: a block whose k×k stages on the features convolve a
// few images at a time (chunks of 2 and 1 of 5 images, on Conv2D's kernels,
// weight gradients added chunk by chunk) matches the same block image by
// image (im2col's columns): output, input gradient and every parameter
// gradient, in float64 and float32; a transition stays image by image.
func TestDenseBlockChunks(t *testing.T) {
	defer func(f func() int) { denseChunk = f }(denseChunk)
	denseChunkCase[float64](t, 1e-12)
	denseChunkCase[float32](t, 2e-5)
}

func denseChunkCase[T Float](t *testing.T, tol float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 7))
	n, c, g, h, w := 5, 4, 3, 6, 7
	var units []DenseUnit[T]
	for i := range 3 {
		units = append(units, DenseUnit[T]{Gamma: RandNormal[T](r, 1, 0.5, c+i*g), Beta: RandNormal[T](r, 0, 0.5, c+i*g), W: RandNormal[T](r, 0, 0.3, g, c+i*g, 3, 3)})
	}
	ct := c + 3*g
	units = append(units, DenseUnit[T]{Gamma: RandNormal[T](r, 1, 0.5, ct), Beta: RandNormal[T](r, 0, 0.5, ct), W: RandNormal[T](r, 0, 0.3, 5, ct, 1, 1), Pool: true})
	x := RandNormal[T](r, 0, 1, n, c, h, w)
	dy := RandNormal[T](r, 0, 1, n, 5, h/2, w/2)
	run := func(chunk int) []*Tensor[T] {
		denseChunk = func() int { return chunk }
		y, st := DenseBlock(x, units, 1e-5)
		dx, grads := DenseBlockBackward(dy, st)
		out := []*Tensor[T]{y, dx}
		for _, u := range grads {
			out = append(out, u.Gamma, u.Beta, u.W)
		}
		return out
	}
	want, got := run(0), run(2)
	for i := range want {
		if d := maxRelDiff(HostData(got[i]), HostData(want[i])); d > tol {
			t.Errorf("%s: tensor %d (output, dx, then γ, β, W of each unit) differs by %.3g of its largest value", DType[T](), i, d)
		}
	}
}

// maxRelDiff is the largest |a − b| over the largest |b|, +Inf where a
// difference is NaN.
func maxRelDiff[T Float](a, b []T) float64 {
	var d, m float64
	for i, v := range b {
		e := math.Abs(float64(a[i] - v))
		if e != e {
			return math.Inf(1)
		}
		d = max(d, e)
		m = max(m, math.Abs(float64(v)))
	}
	return d / m
}

// TestDenseBlockStatisticsAllOrNone: running statistics on some units of a
// block and not on others, or of the wrong length, panic with a
// *ShapeError naming the unit.
func TestDenseBlockStatisticsAllOrNone(t *testing.T) {
	x := Zeros[float64](1, 2, 4, 4)
	unit := func(c int, stats int) DenseUnit[float64] {
		u := DenseUnit[float64]{Gamma: Ones[float64](c), Beta: Zeros[float64](c), W: Zeros[float64](2, c, 3, 3)}
		if stats > 0 {
			u.Mean, u.Var = Zeros[float64](stats), Ones[float64](stats)
		}
		return u
	}
	if y, _ := DenseBlock(x, []DenseUnit[float64]{unit(2, 2), unit(4, 4)}, 1e-5); y.Dim(1) != 6 {
		t.Errorf("output %v, want 6 channels", y.Shape())
	}
	for name, units := range map[string][]DenseUnit[float64]{
		"second without": {unit(2, 2), unit(4, 0)},
		"second with":    {unit(2, 0), unit(4, 4)},
		"wrong length":   {unit(2, 2), unit(4, 3)},
	} {
		f := func() { DenseBlock(x, units, 1e-5) }
		mustPanic(t, f, "tensor.DenseBlock", "unit 1", "running statistics")
		if err := panicError(f); !errors.Is(err, ErrShape) {
			t.Errorf("%s: panic %v, want a shape error", name, err)
		}
	}
}

// TestDenseBlockForward: the forward-only block, whose bottleneck outputs
// share one buffer, gives DenseBlock's output bit for bit, in training and
// in evaluation mode, and its state refuses a backward pass.
func TestDenseBlockForward(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n, c, g, neck, h, w := 3, 4, 2, 6, 5, 4
	var units []DenseUnit[float64]
	for i := range 3 {
		ci := c + i*g
		units = append(units, DenseUnit[float64]{Gamma: RandNormal[float64](r, 1, 0.5, ci), Beta: RandNormal[float64](r, 0, 0.5, ci), W: RandNormal[float64](r, 0, 0.3, g, neck, 3, 3),
			Bottleneck: &DenseBottleneck[float64]{W: RandNormal[float64](r, 0, 0.3, neck, ci, 1, 1), Gamma: RandNormal[float64](r, 1, 0.5, neck), Beta: RandNormal[float64](r, 0, 0.5, neck)}})
	}
	x := RandNormal[float64](r, 0, 1, n, c, h, w)
	for _, eval := range []bool{false, true} {
		if eval {
			for i := range units {
				ci := c + i*g
				units[i].Mean, units[i].Var = RandNormal[float64](r, 0, 1, ci), RandUniform[float64](r, 0.5, 2, ci)
				b := units[i].Bottleneck
				b.Mean, b.Var = RandNormal[float64](r, 0, 1, neck), RandUniform[float64](r, 0.5, 2, neck)
			}
		}
		want, _ := DenseBlock(x, units, 1e-5)
		got, st := DenseBlockForward(x, units, 1e-5)
		if !slices.Equal(HostData(got), HostData(want)) {
			t.Errorf("evaluation %v: forward-only output differs from DenseBlock's", eval)
		}
		mustPanic(t, func() { DenseBlockBackward(want, st) }, "tensor.DenseBlockBackward", "DenseBlockForward")
	}
}
