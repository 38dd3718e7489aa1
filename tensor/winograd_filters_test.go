package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// winogradFilterShapes are O × C: single filters and channels, counts
// around the AVX-512 kernel's 12-row panels and the assembly's 16 lanes,
// and more channels than a GEMM k-block (kc = 256).
var winogradFilterShapes = [][2]int{{1, 1}, {1, 5}, {7, 1}, {12, 12}, {13, 3}, {25, 17}, {17, 300}}

// TestWinogradFilters checks the packed filter transform, at each GEMM
// level this CPU has (the assembly's at AVX-512 for F(4×4) float32), for
// both tiles and types, of filters as given and flipped (the input
// gradient's), against the transform it replaced: flipKernel where
// flipped, sandwich per filter, then packWhole per position. The two agree to the type's
// rounding (1e-6 of the largest value in float32, 1e-14 in float64);
// where neither fuses a multiply-add (Go before GOAMD64=v3 on amd64, and
// the assembly) they agree as floats, bit for bit but for the sign of a
// zero, and the test logs any value where they do not.
func TestWinogradFilters(t *testing.T) {
	for l := isaGo; l <= cpuISA; l++ {
		atISA(l, func() {
			for _, m := range []int{2, 4} {
				filtersMatchSandwich[float32](t, l, m, 1e-6)
				filtersMatchSandwich[float64](t, l, m, 1e-14)
			}
		})
	}
}

// filtersMatchSandwich runs filtersMatch on each shape, as given and
// flipped, at GEMM level l (set) for F(m×m) in T.
func filtersMatchSandwich[T Float](t *testing.T, l isa, m int, tol float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(6, uint64(m)))
	for _, shape := range winogradFilterShapes {
		for _, flip := range []bool{false, true} {
			p := stride3x3(Conv2DParams{N: 1, C: shape[1], H: 4, W: 4, O: shape[0]})
			name := fmt.Sprintf("level %d, F(%d×%d) %T, %d×%d filters, flipped %v", l, m, m, T(0), p.O, p.C, flip)
			filtersMatch[T](t, name, r, p, m, flip, tol)
		}
	}
}

// filtersMatch checks filters on random weights for p against flipKernel
// (if flip), sandwich and packWhole, to tol of the largest value.
func filtersMatch[T Float](t *testing.T, name string, r *rand.Rand, p Conv2DParams, m int, flip bool, tol float64) {
	t.Helper()
	mk := kernelFor[T]()
	wg := newWinograd[T](m, p)
	pos := wg.a * wg.a
	size, stride := wg.filterLayout(p, mk)
	w, _ := randOf[T](r, p.O*p.C*9)
	g := w // the filters [O, C, 3, 3] of p
	if flip {
		g = make([]T, len(w))
		flipKernel(g, w, stride3x3(Conv2DParams{O: p.C, C: p.O}))
	}
	u := make([]T, pos*p.O*p.C)
	var out, tmp [36]T
	for o := range p.O {
		for c := range p.C {
			sandwich(out[:pos], wg.g, g[(o*p.C+c)*9:][:9], tmp[:wg.a*3], wg.a, 3)
			for xi, v := range out[:pos] {
				u[(xi*p.O+o)*p.C+c] = v
			}
		}
	}
	want, got := nans[T](pos*size), nans[T](pos*stride)
	for xi := range pos {
		packWhole(mk, operand[T]{data: u[xi*p.O*p.C:], ld: p.C}, p.O, p.C, 1, want[xi*size:][:size])
	}
	wg.filters(got, w, mk, p, flip)
	got = slices.Concat(slices.Collect(func(yield func([]T) bool) { // U[ξ] without the padding
		for xi := range pos {
			if !yield(got[xi*stride:][:size]) {
				return
			}
		}
	})...)
	scale, worst, differ := 0.0, 0.0, 0
	for _, v := range want {
		scale = max(scale, math.Abs(float64(v)))
	}
	for i, v := range got {
		d := math.Abs(float64(v) - float64(want[i]))
		if math.IsNaN(d) {
			d = math.Inf(1)
		}
		worst = max(worst, d)
		if v != want[i] {
			differ++
		}
	}
	if worst > tol*scale {
		t.Errorf("%s: differ from sandwich and packWhole by %g (largest value %g)", name, worst, scale)
	} else if differ > 0 {
		t.Logf("%s: %d values within %g of sandwich and packWhole, not equal", name, differ, worst)
	}
}
