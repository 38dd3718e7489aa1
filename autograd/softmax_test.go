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
	testLogSoftmaxPrimitive[float32](t)
	testLogSoftmaxPrimitive[float64](t)
}

func testLogSoftmaxPrimitive[T tensor.Float](t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct {
		shape []int
		axis  int
	}{{[]int{5, 1}, 1}, {[]int{100, 3}, 1}, {[]int{33, 10}, -1}, {[]int{6, 4}, 0}} {
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
		y, g := run(LogSoftmax[T])
		wy, wg := run(composedLogSoftmax[T])
		for i := range y {
			if !same(y[i], wy[i]) || !same(g[i], wg[i]) {
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
	testSoftmaxPrimitive[float32](t, 1e-6)
	testSoftmaxPrimitive[float64](t, 1e-14)
}

func testSoftmaxPrimitive[T tensor.Float](t *testing.T, tol float64) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct {
		shape []int
		axis  int
	}{{[]int{5, 1}, 1}, {[]int{100, 3}, 1}, {[]int{33, 10}, -1}, {[]int{6, 4}, 0}, {[]int{4, 1000}, 1}} {
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
		y, g := run(Softmax[T])
		wy, wg := run(func(x *Var[T], axis int) *Var[T] { return Exp(LogSoftmax(x, axis)) })
		for i := range y {
			if !nearly(y[i], wy[i], tol) || !nearly(g[i], wg[i], tol) {
				t.Errorf("%s %v axis %d: element %d value %v grad %v, composed %v %v", tensor.DType[T](), c.shape, c.axis, i, y[i], g[i], wy[i], wg[i])
				break
			}
		}
	}
}

// nearly is |a − b| ≤ tol·max(1, |b|), NaN matching NaN.
func nearly[T tensor.Float](a, b T, tol float64) bool {
	x, y := float64(a), float64(b)
	return x != x && y != y || math.Abs(x-y) <= tol*math.Max(1, math.Abs(y))
}
