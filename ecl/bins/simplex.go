package bins

import (
	"fmt"

	"github.com/ecl-go/ecl/tensor"
)

// SimplexGrid returns the integer grid behind the reference code's simplex
// anchors: with N the smallest integer ≥ 1 for which C(N+k−1, k−1) ≥ b, every
// vector g ≥ 0 of k integers summing to N, in lexicographic order (first
// coordinate outermost), row-major [rows][k]. It panics for b < 1 or k < 2.
func SimplexGrid(b, k int) (grid []int, n int) {
	checkBins("SimplexGrid", b)
	if k < 2 {
		panic(&tensor.ArgumentError{Op: "bins.SimplexGrid", Detail: fmt.Sprintf("%d classes, need at least 2", k)})
	}
	n = 1
	for !atLeast(n+k-1, n, b) {
		n++
	}
	g := make([]int, k)
	var rec func(c, left int)
	rec = func(c, left int) {
		if c == k-1 {
			g[c] = left
			grid = append(grid, g...)
			return
		}
		for v := 0; v <= left; v++ {
			g[c] = v
			rec(c+1, left-v)
		}
	}
	rec(0, n)
	return grid, n
}

// atLeast reports whether the binomial coefficient C(m, r) is at least b,
// stopping before the product can overflow.
func atLeast(m, r, b int) bool {
	c := 1
	for i := 1; i <= r; i++ {
		c = c * (m - r + i) / i // exact: c·(m−r+i) is divisible by i
		if c >= b {
			return true
		}
	}
	return c >= b
}

// Simplex returns the reference code's simplex anchors for canonical
// calibration, a = (g + 1/k)/(N+1) for every row g of SimplexGrid(b, k),
// row-major [rows][k], computed in float64; the number of rows (15 for k = 3,
// 20 for k = 4, 55 for k = 10 when b = 15) replaces b. It also returns N.
// It panics for b < 1 or k < 2.
func Simplex(b, k int) (anchors []float64, n int) {
	grid, n := SimplexGrid(b, k)
	anchors = make([]float64, len(grid))
	for i, g := range grid {
		anchors[i] = (float64(g) + 1/float64(k)) / float64(n+1)
	}
	return anchors, n
}

// SimplexFloat32 is Simplex computed in float32 as the reference code does
// (1/k added in float32, then divided by N+1 in float32), widened to float64;
// entries can differ from Simplex by one float32 ulp.
func SimplexFloat32(b, k int) (anchors []float64, n int) {
	grid, n := SimplexGrid(b, k)
	anchors = make([]float64, len(grid))
	inv := float32(1) / float32(k)
	for i, g := range grid {
		anchors[i] = float64((float32(g) + inv) / float32(n+1))
	}
	return anchors, n
}
