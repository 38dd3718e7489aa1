//go:build cuda

package cuda_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/kernels/cuda"
	"github.com/ecl-go/ecl/tensor"
)

// The cuda-tagged tests compare every kernel with the CPU backend (or the
// package's CPU references). They run only on a machine with a CUDA device:
// gorgonia.org/cu ends the process during initialisation otherwise, before
// any test can skip (see README.md).

// gpu returns the CUDA device for T, skipping the test when there is none.
func gpu[T tensor.Float](t testing.TB) tensor.Device[T] {
	t.Helper()
	d, err := cuda.New[T]()
	if err != nil {
		t.Skipf("no CUDA device: %v", err)
	}
	return d
}

// rows caps a test's largest sizes on the CPU emulator (build tag cudaemu),
// which runs the kernels thousands of times slower than a GPU.
func rows[T tensor.Float](dev tensor.Device[T], n int) int {
	if strings.Contains(dev.String(), "emulator") {
		return min(n, 5003)
	}
	return n
}

// tol is the default tolerance atol + rtol·|ref| of T.
func tol[T tensor.Float]() (atol, rtol float64) {
	if tensor.DType[T]() == "float32" {
		return 1e-5, 1e-4
	}
	return 1e-12, 1e-10
}

// same fails unless got and want (tensors on any devices) have one shape and
// agree within atol + rtol·|want|; NaNs must match NaNs and infinities equal
// infinities.
func same[T tensor.Float](t testing.TB, what string, got, want *tensor.Tensor[T], atol, rtol float64) {
	t.Helper()
	if fmt.Sprint(got.Shape()) != fmt.Sprint(want.Shape()) {
		t.Fatalf("%s: shape %v, want %v", what, got.Shape(), want.Shape())
	}
	g, w := got.Data(), want.Data()
	for i := range w {
		a, b := float64(g[i]), float64(w[i])
		switch {
		case math.IsNaN(b) || math.IsNaN(a):
			if math.IsNaN(a) != math.IsNaN(b) {
				t.Fatalf("%s [%s %v]: element %d = %v, want %v", what, tensor.DType[T](), want.Shape(), i, a, b)
			}
		case math.IsInf(b, 0) || math.IsInf(a, 0):
			if a != b {
				t.Fatalf("%s [%s %v]: element %d = %v, want %v", what, tensor.DType[T](), want.Shape(), i, a, b)
			}
		case math.Abs(a-b) > atol+rtol*math.Abs(b):
			t.Fatalf("%s [%s %v]: element %d = %v, want %v (|diff| %.3g > %.3g)", what, tensor.DType[T](), want.Shape(), i, a, b, math.Abs(a-b), atol+rtol*math.Abs(b))
		}
	}
}

// sameDefault is same with T's default tolerance.
func sameDefault[T tensor.Float](t testing.TB, what string, got, want *tensor.Tensor[T]) {
	t.Helper()
	atol, rtol := tol[T]()
	same(t, what, got, want, atol, rtol)
}

// both runs a test body for float32 and float64.
func both(t *testing.T, f32 func(*testing.T), f64 func(*testing.T)) {
	t.Run("float32", f32)
	t.Run("float64", f64)
}

// layout is a way of viewing a dense tensor. Every elementwise kernel is
// tested on dense operands, the transpose of the last two axes, a narrowed
// last axis, and a broadcast (stride-0) first axis.
type layout int

const (
	dense layout = iota
	transposed
	narrowed
	broadcast
)

var layouts = []layout{dense, transposed, narrowed, broadcast}

func (l layout) String() string {
	return [...]string{"dense", "transposed", "narrowed", "broadcast"}[l]
}

// alloc is the dense shape whose view l has shape s.
func (l layout) alloc(s []int) []int {
	d := append([]int(nil), s...)
	switch {
	case l == transposed && len(d) >= 2:
		d[len(d)-1], d[len(d)-2] = d[len(d)-2], d[len(d)-1]
	case l == narrowed:
		d[len(d)-1] += 3
	case l == broadcast:
		d[0] = 1
	}
	return d
}

// viewAs is the view l of shape s of the dense x of shape l.alloc(s).
func viewAs[T tensor.Float](l layout, x *tensor.Tensor[T], s []int) *tensor.Tensor[T] {
	switch {
	case l == transposed && len(s) >= 2:
		return tensor.Transpose(x, -1, -2)
	case l == narrowed:
		return tensor.Narrow(x, -1, 2, s[len(s)-1])
	case l == broadcast:
		return tensor.Expand(x, s...)
	}
	return x
}

// shapes are the sizes every elementwise kernel is tested on: empty, one
// element, odd, and large (a million elements: many blocks of the
// grid-stride loops).
var shapes = [][]int{{0, 3}, {1, 1}, {7, 13}, {3, 5, 9}, {1031, 1027}}

// pair makes the same view, layout l of shape s, on the CPU and on dev,
// from random values in [lo, hi).
func pair[T tensor.Float](r *rand.Rand, dev tensor.Device[T], l layout, s []int, lo, hi T) (cpu, gpu *tensor.Tensor[T]) {
	return pairOf(dev, l, s, tensor.RandUniform[T](r, lo, hi, l.alloc(s)...))
}

// pairOf makes the view l of shape s of the CPU tensor x (of shape
// l.alloc(s)) and of its copy on dev.
func pairOf[T tensor.Float](dev tensor.Device[T], l layout, s []int, x *tensor.Tensor[T]) (cpu, gpu *tensor.Tensor[T]) {
	return viewAs(l, x, s), viewAs(l, tensor.To(x, dev), s)
}
