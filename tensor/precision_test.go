package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The project requires float32 forward results to agree with float64 within
// 1e-5 relative: |r32 − r64| ≤ 1e-5·max(1, |r64|), on inputs that both types
// represent exactly.

const f32Tol = 1e-5

// pair draws uniform float32 values in [lo, hi) and returns them in both types.
func pair(r *rand.Rand, lo, hi float64, shape ...int) (*Tensor[float32], *Tensor[float64]) {
	x32 := RandUniform[float32](r, float32(lo), float32(hi), shape...)
	return x32, Convert[float64](x32)
}

func agree(t *testing.T, name string, r32 *Tensor[float32], r64 *Tensor[float64]) {
	t.Helper()
	if fmt.Sprint(r32.Shape()) != fmt.Sprint(r64.Shape()) {
		t.Errorf("%s: shapes %v and %v", name, r32.Shape(), r64.Shape())
		return
	}
	a, b := r32.Data(), r64.Data()
	worst, at := 0.0, -1
	for i := range b {
		if math.IsNaN(b[i]) || math.IsInf(b[i], 0) {
			if !near(float64(a[i]), b[i], 0) {
				t.Errorf("%s[%d]: float32 %v, float64 %v", name, i, a[i], b[i])
				return
			}
			continue
		}
		if e := math.Abs(float64(a[i])-b[i]) / math.Max(1, math.Abs(b[i])); e > worst {
			worst, at = e, i
		}
	}
	if worst > f32Tol {
		t.Errorf("%s[%d]: float32 %v vs float64 %v, relative difference %.3g > %g", name, at, a[at], b[at], worst, f32Tol)
	}
}

func TestFloat32AgreesUnary(t *testing.T) {
	r := newRNG(61)
	for _, c := range unaryCases() {
		x32, x64 := pair(r, c.lo, c.hi, 9, 11)
		agree(t, c.name, c.f32(x32), c.f64(x64))
		agree(t, c.name+" transposed", c.f32(Transpose(x32, 0, 1)), c.f64(Transpose(x64, 0, 1)))
	}
	// Saturating ranges of Sigmoid and Tanh.
	x32, x64 := pair(r, -90, 90, 200)
	agree(t, "Sigmoid wide", Sigmoid(x32), Sigmoid(x64))
	agree(t, "Tanh wide", Tanh(x32), Tanh(x64))
}

func TestFloat32AgreesBinary(t *testing.T) {
	r := newRNG(62)
	for _, c := range binaryCases() {
		a32, a64 := pair(r, -2, 2, 4, 5, 6)
		b32, b64 := pair(r, 0.5, 2, 5, 1) // positive: Div and Pow stay tame
		if c.name == "Pow" {
			a32, a64, b32, b64 = b32, b64, a32, a64 // positive base, exponent in [-2, 2)
		}
		agree(t, c.name, c.f32(a32, b32), c.f64(a64, b64))
	}
	// Comparisons on integer values, where ties happen.
	ia := randInts(r, 2, 30)
	ib := randInts(r, 2, 30)
	for _, c := range binaryCases()[7:] {
		agree(t, c.name+" ties", c.f32(Convert[float32](ia), Convert[float32](ib)), c.f64(ia, ib))
	}
	c32, c64 := pair(r, -1, 1, 4, 1)
	x32, x64 := pair(r, -3, 3, 4, 6)
	y32, y64 := pair(r, -3, 3, 6)
	agree(t, "Where", Where(c32, x32, y32), Where(c64, x64, y64))
}

func TestFloat32AgreesReductions(t *testing.T) {
	r := newRNG(63)
	x32, x64 := pair(r, -1, 1, 5, 8, 6)
	for axis := range 3 {
		for _, keep := range []bool{false, true} {
			l := fmt.Sprintf(" axis %d keep %v", axis, keep)
			agree(t, "Sum"+l, Sum(x32, axis, keep), Sum(x64, axis, keep))
			agree(t, "Mean"+l, Mean(x32, axis, keep), Mean(x64, axis, keep))
			agree(t, "Max"+l, Max(x32, axis, keep), Max(x64, axis, keep))
			agree(t, "Min"+l, Min(x32, axis, keep), Min(x64, axis, keep))
			agree(t, "ArgMax"+l, ArgMax(x32, axis, keep), ArgMax(x64, axis, keep))
			agree(t, "ArgMin"+l, ArgMin(x32, axis, keep), ArgMin(x64, axis, keep))
			agree(t, "LogSumExp"+l, LogSumExp(x32, axis, keep), LogSumExp(x64, axis, keep))
		}
		agree(t, fmt.Sprint("Softmax axis ", axis), Softmax(x32, axis), Softmax(x64, axis))
		agree(t, fmt.Sprint("LogSoftmax axis ", axis), LogSoftmax(x32, axis), LogSoftmax(x64, axis))
	}
	s32, s64 := pair(r, -1, 1, 6, 7)
	agree(t, "SumAll", SumAll(s32), SumAll(s64))
	agree(t, "MeanAll", MeanAll(x32), MeanAll(x64))
	agree(t, "SumTo", SumTo(x32, 8, 1), SumTo(x64, 8, 1))
	// Logits of moderate size and far from zero: the shift keeps both exact.
	l32, l64 := pair(r, 995, 1005, 4, 10)
	agree(t, "Softmax large", Softmax(l32, 1), Softmax(l64, 1))
	// LogSumExp near 1000 is checked relative to its size.
	agree(t, "LogSumExp large", LogSumExp(l32, 1, false), LogSumExp(l64, 1, false))
	// Transposed inputs.
	agree(t, "Softmax transposed", Softmax(Transpose(x32, 0, 2), 1), Softmax(Transpose(x64, 0, 2), 1))
}

func TestFloat32AgreesMatMul(t *testing.T) {
	r := newRNG(64)
	for _, s := range [][3]int{{1, 1, 1}, {6, 7, 5}, {20, 30, 10}, {64, 48, 70}} {
		a32, a64 := pair(r, -1, 1, s[0], s[1])
		b32, b64 := pair(r, -1, 1, s[1], s[2])
		agree(t, fmt.Sprint("MatMul ", s), MatMul(a32, b32), MatMul(a64, b64))
		agree(t, fmt.Sprint("MatMul transposed ", s), MatMul(Transpose(b32, 0, 1), Transpose(a32, 0, 1)), MatMul(Transpose(b64, 0, 1), Transpose(a64, 0, 1)))
	}
	a32, a64 := pair(r, -1, 1, 2, 1, 3, 4)
	b32, b64 := pair(r, -1, 1, 3, 4, 5)
	agree(t, "MatMul broadcast batch", MatMul(a32, b32), MatMul(a64, b64))
}

// LogSoftmax of large logits: x − LogSumExp(x) subtracts two numbers near
// 1000, whose float32 spacing is 6e-5, so the difference loses the 1e-5
// agreement; (x − max) − log Σ exp(x − max) keeps it.
func TestFloat32AgreesLogSoftmaxLargeLogits(t *testing.T) {
	l32, l64 := pair(newRNG(65), 995, 1005, 4, 10)
	agree(t, "LogSoftmax large", LogSoftmax(l32, 1), LogSoftmax(l64, 1))
	m32, m64 := pair(newRNG(66), 195, 205, 4, 10)
	agree(t, "LogSoftmax ≈ 200", LogSoftmax(m32, 1), LogSoftmax(m64, 1))
}
