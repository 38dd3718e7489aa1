package calib

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLinearLossMatchesRows compares the GEMM form of the affine loss with
// the row-at-a-time reference, value and gradient, for the diagonal and the
// full map, with penalties, on more rows than the blocks.
func TestLinearLossMatchesRows(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range []struct {
		n, d, k int
		diag    bool
	}{{1, 3, 3, false}, {1, 3, 3, true}, {301, 7, 5, false}, {301, 5, 5, true}, {1000, 4, 9, false}} {
		x, y := make([]float64, c.n*c.d), make([]int, c.n)
		for i := range x {
			x[i] = 2 * r.NormFloat64()
		}
		for i := range y {
			y[i] = r.IntN(c.k)
		}
		nw := c.k * c.d
		if c.diag {
			nw = c.k
		}
		theta := make([]float64, nw+c.k)
		for i := range theta {
			theta[i] = r.NormFloat64()
		}
		pen := func(i, j int) float64 { return 0.01 * float64(i+2*j) }
		g1, g2 := make([]float64, len(theta)), make([]float64, len(theta))
		f1 := linearLoss(x, c.d, c.k, y, c.diag, pen, 0.3)(theta, g1)
		f2 := linearLossRows(x, c.d, c.k, y, c.diag, pen, 0.3)(theta, g2)
		if math.Abs(f1-f2) > 1e-12*math.Abs(f2) {
			t.Errorf("%+v: loss %v, rows %v", c, f1, f2)
		}
		for i := range g1 {
			if math.Abs(g1[i]-g2[i]) > 1e-12*(1+math.Abs(g2[i])) {
				t.Fatalf("%+v: gradient %d is %v, rows %v", c, i, g1[i], g2[i])
			}
		}
	}
}
