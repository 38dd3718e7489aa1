package autograd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

// composedLogSoftmax is LogSoftmax before it was a primitive: the graph
// whose gradient the fused rule must reproduce.
func composedLogSoftmax[T tensor.Float](x *Var[T], axis int) *Var[T] {
	z := Sub(x, Const(tensor.ShiftMax(x.Value, axis)))
	return Sub(z, Log(Sum(Exp(z), axis, true)))
}

// TestLogSoftmaxPrimitiveMatchesComposed: the log_softmax primitive and its
// rule give the values and input gradients of the composed graph bit for
// bit, in float32 and float64, on rows of 1, 3 and 10 classes and along
// the first axis, with large and infinite logits.
func TestLogSoftmaxPrimitiveMatchesComposed(t *testing.T) {
	shapes := []axisCase{{[]int{5, 1}, 1}, {[]int{100, 3}, 1}, {[]int{33, 10}, -1}, {[]int{6, 4}, 0}}
	comparePrimitive(t, 7, shapes, LogSoftmax[float32], composedLogSoftmax[float32], same[float32])
	comparePrimitive(t, 7, shapes, LogSoftmax[float64], composedLogSoftmax[float64], same[float64])
}

// axisCase is a shape and the axis an op runs along.
type axisCase struct {
	shape []int
	axis  int
}

// comparePrimitive checks that prim gives the values and input gradients
// (of Σ w·prim(x), w random) of composed, to eq, on random x of each case's
// shape (standard deviation 4) whose first element is 1e30 and last −∞.
func comparePrimitive[T tensor.Float](t *testing.T, seed uint64, cases []axisCase, prim, composed func(*Var[T], int) *Var[T], eq func(a, b T) bool) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed+1))
	for _, c := range cases {
		x := tensor.RandNormal[T](r, 0, 4, c.shape...)
		d := x.Data()
		d[0], d[len(d)-1] = 1e30, T(math.Inf(-1))
		x = tensor.FromSlice(d, c.shape...)
		w := Const(tensor.RandNormal[T](r, 0, 1, c.shape...))
		run := func(f func(*Var[T], int) *Var[T]) (y, g []T) {
			v := Param(x)
			out := f(v, c.axis)
			SumAll(Mul(out, w)).Backward()
			return out.Value.Data(), v.Grad.Data()
		}
		y, g := run(prim)
		wy, wg := run(composed)
		for i := range y {
			if !eq(y[i], wy[i]) || !eq(g[i], wg[i]) {
				t.Errorf("%s %v axis %d: element %d value %v grad %v, composed %v %v", tensor.DType[T](), c.shape, c.axis, i, y[i], g[i], wy[i], wg[i])
				break
			}
		}
	}
}

// same is bit equality, NaN matching NaN.
func same[T tensor.Float](a, b T) bool {
	return a != a && b != b || math.Float64bits(float64(a)) == math.Float64bits(float64(b))
}

// TestSoftmaxPrimitiveNearComposed: the softmax primitive and its rule
// give the values and input gradients of exp(LogSoftmax(x)) to 1e-14
// (float64) and 1e-6 (float32) of max(1, |value|), on rows of 1, 3, 10 and
// 1,000 classes and along the first axis, with large and infinite logits.
func TestSoftmaxPrimitiveNearComposed(t *testing.T) {
	shapes := []axisCase{{[]int{5, 1}, 1}, {[]int{100, 3}, 1}, {[]int{33, 10}, -1}, {[]int{6, 4}, 0}, {[]int{4, 1000}, 1}}
	comparePrimitive(t, 9, shapes, Softmax[float32], composedSoftmax[float32], func(a, b float32) bool { return nearly(a, b, 1e-6) })
	comparePrimitive(t, 9, shapes, Softmax[float64], composedSoftmax[float64], func(a, b float64) bool { return nearly(a, b, 1e-14) })
}

// composedSoftmax is Softmax before it was a primitive.
func composedSoftmax[T tensor.Float](x *Var[T], axis int) *Var[T] { return Exp(LogSoftmax(x, axis)) }

// nearly is |a − b| ≤ tol·max(1, |b|), NaN matching NaN.
func nearly[T tensor.Float](a, b T, tol float64) bool {
	x, y := float64(a), float64(b)
	return x != x && y != y || math.Abs(x-y) <= tol*math.Max(1, math.Abs(y))
}
