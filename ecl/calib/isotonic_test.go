package calib

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestIsotonicMatchesPAVOnPairs compares FitIsotonic with pool-adjacent-
// violators written on (score, outcome) pairs sorted stably, the outcomes
// of tied scores pooled before any block is merged: logits with and
// without ties, 2 and 6 classes.
func TestIsotonicMatchesPAVOnPairs(t *testing.T) {
	ref := func(x, y []float64) (kx, ky []float64) {
		idx := make([]int, len(x))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
		// Ties pooled first, as scikit-learn's IsotonicRegression does.
		var lo, hi, sum, w []float64
		var gx, gy, gw []float64
		for _, i := range idx {
			if n := len(gx); n > 0 && gx[n-1] == x[i] {
				gy[n-1] += y[i]
				gw[n-1]++
			} else {
				gx, gy, gw = append(gx, x[i]), append(gy, y[i]), append(gw, 1)
			}
		}
		for g := range gx {
			lo, hi, sum, w = append(lo, gx[g]), append(hi, gx[g]), append(sum, gy[g]), append(w, gw[g])
			for n := len(hi); n > 1 && sum[n-2]/w[n-2] >= sum[n-1]/w[n-1]; n = len(hi) {
				hi[n-2], sum[n-2], w[n-2] = hi[n-1], sum[n-2]+sum[n-1], w[n-2]+w[n-1]
				lo, hi, sum, w = lo[:n-1], hi[:n-1], sum[:n-1], w[:n-1]
			}
		}
		for b := range lo {
			kx, ky = append(kx, lo[b]), append(ky, sum[b]/w[b])
			if hi[b] > lo[b] {
				kx, ky = append(kx, hi[b]), append(ky, sum[b]/w[b])
			}
		}
		return kx, ky
	}
	r := rand.New(rand.NewPCG(7, 8))
	for _, k := range []int{2, 6} {
		for _, grid := range []float64{0, 1} {
			n := 500
			z, y := make([]float64, n*k), make([]int, n)
			for i := range z {
				z[i] = 2 * r.NormFloat64()
				if grid > 0 {
					z[i] = math.Round(z[i] / grid)
				}
			}
			for i := range y {
				y[i] = r.IntN(k)
			}
			got, err := FitIsotonic(z, k, y)
			if err != nil {
				t.Fatal(err)
			}
			p := Softmax(z, k)
			for ci := range fittedClasses(k) {
				c := ci
				if k == 2 {
					c = 1
				}
				x, o := make([]float64, n), make([]float64, n)
				for i := range x {
					x[i] = p[i*k+c]
					if y[i] == c {
						o[i] = 1
					}
				}
				kx, ky := ref(x, o)
				if !slices.Equal(got.X[ci], kx) || !slices.Equal(got.Y[ci], ky) {
					t.Fatalf("k %d, grid %v, class %d: knots %v %v, reference %v %v", k, grid, c, got.X[ci], got.Y[ci], kx, ky)
				}
			}
		}
	}
}
