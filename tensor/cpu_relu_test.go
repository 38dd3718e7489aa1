package tensor

import (
	"math"
	"testing"
)

// TestReluGrad checks the CPU's one-pass kernel against the composition of
// primitives that other devices run, on dense rows (float32 and float64),
// strided and broadcast views, and the signed zeros, NaN and infinities.
func TestReluGrad(t *testing.T) {
	withProcs(t, 2)
	r := newRNG(7)
	// same compares values, so that 0 matches the −0 of a product −g·0;
	// exact compares bits.
	check := func(name string, got, want *Tensor[float64], exact bool) {
		t.Helper()
		if !expectShape(t, name, got, want.Shape()...) {
			return
		}
		g, w := got.Data(), want.Data()
		for i := range g {
			bad := g[i] != w[i] && !(math.IsNaN(g[i]) && math.IsNaN(w[i]))
			if exact {
				bad = math.Float64bits(g[i]) != math.Float64bits(w[i])
			}
			if bad {
				t.Errorf("%s: element %d is %v, want %v", name, i, g[i], w[i])
				return
			}
		}
	}
	same := func(name string, got, want *Tensor[float64]) { t.Helper(); check(name, got, want, false) }
	exact := func(name string, got, want *Tensor[float64]) { t.Helper(); check(name, got, want, true) }
	// Large enough to split over cores.
	x := RandNormal[float64](r, 0, 1, 300, 257)
	g := RandNormal[float64](r, 0, 1, 300, 257)
	same("dense", ReluGrad(g, x), Mul(g, Step(x)))
	exact("dense composed", reluGradComposed(g, x), ReluGrad(g, x))
	x32, g32 := Convert[float32](x), Convert[float32](g)
	same("float32", Convert[float64](ReluGrad(g32, x32)), Convert[float64](Mul(g32, Step(x32))))
	xt, gt := Transpose(x, 0, 1), Narrow(Transpose(g, 0, 1), 1, 0, 300)
	same("strided", ReluGrad(gt, xt), Mul(gt, Step(xt)))
	row := RandNormal[float64](r, 0, 1, 257)
	same("broadcast g", ReluGrad(row, x), Mul(row, Step(x)))
	same("broadcast x", ReluGrad(g, row), Mul(g, Step(row)))

	inf, nan := math.Inf(1), math.NaN()
	xs := FromSlice([]float64{-1, 0, math.Copysign(0, -1), 1e-30, nan, inf, -inf, 2, -2})
	gs := FromSlice([]float64{5, nan, inf, -3, 7, math.Copysign(0, -1), 1, -inf, nan})
	want := FromSlice([]float64{0, 0, 0, -3, 0, math.Copysign(0, -1), 0, -inf, 0})
	for lo := range xs.Len() {
		part := func(t *Tensor[float64]) *Tensor[float64] { return Narrow(t, 0, lo, t.Len()-lo) }
		exact("special values", ReluGrad(part(gs), part(xs)), part(want))
		exact("special values composed", reluGradComposed(part(gs), part(xs)), part(want))
		exact("special values float32", Convert[float64](ReluGrad(Convert[float32](part(gs)), Convert[float32](part(xs)))), part(want))
	}
	mustPanic(t, func() { ReluGrad(Zeros[float64](2), Zeros[float64](3)) }, "tensor.ReluGrad", "[2]", "[3]")
}

// TestReluKernel checks the dense ReLU kernel against the scalar rule of
// strided views, bit for bit but for NaN payloads, in both precisions.
func TestReluKernel(t *testing.T) {
	nan := math.NaN()
	vals := []float64{-1, 0, math.Copysign(0, -1), 5e-324, -5e-324, 1e-40, -1e-40, nan, -nan,
		math.Copysign(nan, -1), math.Inf(1), math.Inf(-1), 3, -3}
	check := func(name string, dense, strided []float64) {
		t.Helper()
		for i := range dense {
			a, b := dense[i], strided[i]
			if math.Float64bits(a) != math.Float64bits(b) && !(math.IsNaN(a) && math.IsNaN(b)) {
				t.Errorf("%s: Relu(%v) is %v dense, %v strided", name, vals[i], a, b)
			}
		}
	}
	// Column 0 of a two-column matrix is a strided view.
	pair := func(v float64) []float64 { return []float64{v, 0} }
	var both []float64
	for _, v := range vals {
		both = append(both, pair(v)...)
	}
	x, x2 := FromSlice(vals), FromSlice(both, len(vals), 2)
	x32, x232 := Convert[float32](x), Convert[float32](x2)
	if Narrow(x232, 1, 0, 1).IsContiguous() {
		t.Fatal("the strided view is contiguous")
	}
	// Every value both in a vector kernel's part and in its scalar tail.
	for lo := range len(vals) {
		check("float64", Relu(Narrow(x, 0, lo, len(vals)-lo)).Data(), Relu(Narrow(Narrow(x2, 1, 0, 1), 0, lo, len(vals)-lo)).Data())
		check("float32", Convert[float64](Relu(Narrow(x32, 0, lo, len(vals)-lo))).Data(),
			Convert[float64](Relu(Narrow(Narrow(x232, 1, 0, 1), 0, lo, len(vals)-lo))).Data())
	}
}
