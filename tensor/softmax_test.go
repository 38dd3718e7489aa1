package tensor

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// sameBits reports whether a and b hold the same values bit for bit (any
// NaN matching any NaN).
func sameBits[T Float](a, b *Tensor[T]) bool {
	if !slices.Equal(a.shape, b.shape) {
		return false
	}
	x, y := Contiguous(a).Data(), Contiguous(b).Data()
	for i := range x {
		if x[i] != x[i] && y[i] != y[i] {
			continue
		}
		if math.Float64bits(float64(x[i])) != math.Float64bits(float64(y[i])) {
			return false
		}
	}
	return true
}

// softmaxInputs are the cases of the fused (log-)softmax tests: empty and
// single-element axes, odd sizes, rows of 1,000, every axis of a rank-3
// tensor, a transposed view, and rows with large, infinite and NaN logits.
func softmaxInputs[T Float](seed uint64) []struct {
	name string
	x    *Tensor[T]
	axis int
} {
	r := newRNG(seed)
	special := RandNormal[T](r, 0, 3, 6, 4)
	d := special.Data()
	inf := T(math.Inf(1))
	copy(d[0:4], []T{1e30, -1e30, 3, 1e30})
	copy(d[4:8], []T{-inf, -inf, -inf, -inf})
	copy(d[8:12], []T{inf, 1, -inf, 2})
	copy(d[12:16], []T{T(math.NaN()), 1, 2, 3})
	copy(d[16:20], []T{-inf, 0.5, -inf, -2})
	special = FromSlice(d, 6, 4)
	cube := RandNormal[T](r, 0, 5, 3, 5, 7)
	return []struct {
		name string
		x    *Tensor[T]
		axis int
	}{
		{"rows 0", RandNormal[T](r, 0, 1, 0, 3), 1},
		{"axis 0", RandNormal[T](r, 0, 1, 3, 0), 1},
		{"1×1", RandNormal[T](r, 0, 1, 1, 1), 1},
		{"7×3", RandNormal[T](r, 0, 4, 7, 3), 1},
		{"101×10", RandNormal[T](r, 0, 4, 101, 10), -1},
		{"3×1000", RandNormal[T](r, 0, 4, 3, 1000), 1},
		{"4×1", RandNormal[T](r, 0, 1, 4, 1), 1},
		{"columns 9×5", RandNormal[T](r, 0, 4, 9, 5), 0},
		{"cube axis 0", cube, 0},
		{"cube axis 1", cube, 1},
		{"cube axis 2", cube, 2},
		{"transposed", Transpose(RandNormal[T](r, 0, 4, 5, 8), 0, 1), 1},
		{"special", special, 1},
		{"special columns", special, 0},
	}
}

// TestLogSoftmaxMatchesComposed: the fused forward and backward kernels
// equal the composed tensor ops bit for bit (float32 and float64, one and
// two cores), and the backward equals what autograd's rules give for the
// composed form (checked in autograd).
func TestLogSoftmaxMatchesComposed(t *testing.T) {
	for _, procs := range []int{1, 2} {
		withProcs(t, procs)
		testLogSoftmaxMatches[float32](t, procs)
		testLogSoftmaxMatches[float64](t, procs)
	}
}

func testLogSoftmaxMatches[T Float](t *testing.T, procs int) {
	t.Helper()
	for i, c := range softmaxInputs[T](uint64(procs)) {
		y, want := LogSoftmax(c.x, c.axis), logSoftmaxComposed(c.x, c.axis)
		if !sameBits(y, want) {
			t.Errorf("%s %s, %d cores: LogSoftmax %v, composed %v", DType[T](), c.name, procs, y.Data(), want.Data())
		}
		g := RandNormal[T](newRNG(uint64(i)), 0, 1, c.x.Shape()...)
		dx, wantDx := LogSoftmaxBackward(g, c.x, c.axis), logSoftmaxBackwardComposed(g, c.x, c.axis)
		if !sameBits(dx, wantDx) {
			t.Errorf("%s %s, %d cores: LogSoftmaxBackward %v, composed %v", DType[T](), c.name, procs, dx.Data(), wantDx.Data())
		}
	}
}

// TestLogSoftmaxValues checks the fused kernels against values computed
// here by hand (to 1e-15): log-softmax of (1, 2, 3) and its gradient for
// g = (1, 0, 0).
func TestLogSoftmaxValues(t *testing.T) {
	x := FromSlice([]float64{1, 2, 3}, 1, 3)
	s := math.Exp(-2) + math.Exp(-1) + 1
	p := []float64{math.Exp(-2) / s, math.Exp(-1) / s, 1 / s}
	g := FromSlice([]float64{1, 0, 0}, 1, 3)
	for _, c := range []struct {
		name      string
		got, want []float64
	}{
		{"LogSoftmax", LogSoftmax(x, 1).Data(), []float64{-2 - math.Log(s), -1 - math.Log(s), -math.Log(s)}},
		{"LogSoftmaxBackward", LogSoftmaxBackward(g, x, 1).Data(), []float64{1 - p[0], -p[1], -p[2]}},
	} {
		for i := range c.want {
			if !near(c.got[i], c.want[i], 1e-15) {
				t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
				break
			}
		}
	}
}

// TestSoftmaxNearComposed: the fused forward and backward kernels agree
// with the composed tensor ops (float32 and float64, one and two cores,
// with and without the AVX-512 exponentials): the softmax to within a few
// ulp of each value (its exponentials and sums are rounded differently),
// the gradient to 1e-14 (float64) and 1e-6 (float32) of max(1, |value|).
func TestSoftmaxNearComposed(t *testing.T) {
	for _, asm := range []bool{softAsm, false} {
		old := softAsm
		softAsm = asm
		for _, procs := range []int{1, 2} {
			withProcs(t, procs)
			testSoftmaxNear[float32](t, procs, 2e-6, 1e-6)
			testSoftmaxNear[float64](t, procs, 2e-15, 1e-14)
		}
		softAsm = old
	}
}

func testSoftmaxNear[T Float](t *testing.T, procs int, rel, relGrad float64) {
	t.Helper()
	tiny := 0x1p-1022
	if DType[T]() == "float32" {
		tiny = 0x1p-126
	}
	for i, c := range softmaxInputs[T](uint64(procs)) {
		y, want := Softmax(c.x, c.axis), softmaxComposed(c.x, c.axis)
		yd, wd := y.Data(), want.Data()
		for j := range wd {
			a, b := float64(yd[j]), float64(wd[j])
			if a != b && !(a != a && b != b) && !(math.Abs(a-b) <= rel*math.Abs(b)+tiny) {
				t.Errorf("%s %s, %d cores, asm %v: Softmax[%d] %v, composed %v", DType[T](), c.name, procs, softAsm, j, a, b)
				break
			}
		}
		g := RandNormal[T](newRNG(uint64(i)), 0, 1, c.x.Shape()...)
		dx, wantDx := SoftmaxBackward(g, want, c.axis), softmaxBackwardComposed(g, want, c.axis)
		dd, wdd := dx.Data(), wantDx.Data()
		for j := range wdd {
			if !near(float64(dd[j]), float64(wdd[j]), relGrad) {
				t.Errorf("%s %s, %d cores: SoftmaxBackward[%d] %v, composed %v", DType[T](), c.name, procs, j, dd[j], wdd[j])
				break
			}
		}
	}
}

// TestSoftmaxValues checks the fused kernels against values computed here
// by hand (to 1e-15): the softmax of (1, 2, 3), a row of −∞ (NaN, as 0/0)
// and the gradient y·(g − Σ g·y) for g = (1, 0, 0).
func TestSoftmaxValues(t *testing.T) {
	s := math.Exp(-2) + math.Exp(-1) + 1
	p := []float64{math.Exp(-2) / s, math.Exp(-1) / s, 1 / s}
	y := Softmax(FromSlice([]float64{1, 2, 3, math.Inf(-1), math.Inf(-1), math.Inf(-1)}, 2, 3), 1).Data()
	dx := SoftmaxBackward(FromSlice([]float64{1, 0, 0}, 1, 3), FromSlice(p, 1, 3), 1).Data()
	want := append(slices.Clone(p), math.NaN(), math.NaN(), math.NaN())
	wantDx := []float64{p[0] * (1 - p[0]), -p[1] * p[0], -p[2] * p[0]}
	for i := range want {
		if !near(y[i], want[i], 1e-15) {
			t.Errorf("Softmax: %v, want %v", y, want)
			break
		}
	}
	for i := range wantDx {
		if !near(dx[i], wantDx[i], 1e-15) {
			t.Errorf("SoftmaxBackward: %v, want %v", dx, wantDx)
			break
		}
	}
}

// TestSoftmaxBackwardShapes: a gradient of another shape is a
// *ShapeError naming the op, for SoftmaxBackward and LogSoftmaxBackward.
func TestSoftmaxBackwardShapes(t *testing.T) {
	for name, f := range map[string]func(g, v *Tensor[float64], axis int) *Tensor[float64]{
		"SoftmaxBackward": SoftmaxBackward[float64], "LogSoftmaxBackward": LogSoftmaxBackward[float64],
	} {
		func() {
			defer func() {
				err, _ := recover().(error)
				var se *ShapeError
				if !errors.As(err, &se) || !strings.Contains(err.Error(), name) {
					t.Errorf("panic %v, want a *ShapeError naming %s", err, name)
				}
			}()
			f(Zeros[float64](2, 3), Zeros[float64](3, 2), 1)
		}()
	}
}
