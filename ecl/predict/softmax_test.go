package predict

import (
	"math"
	"math/rand/v2"
	"testing"
)

// RowMax is the maximum of the loop with the builtin max (NaN if any is
// NaN, −∞ for no elements), over every length around its four lanes, with
// ties, ±∞ and NaNs first, inside and last; SoftmaxScaled's rows sum to 1
// and its log-normaliser is ln Σ e^(z/t).
func TestRowMaxAndSoftmaxScaled(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	specials := []float64{math.Inf(1), math.Inf(-1), math.NaN(), 0}
	for n := 0; n <= 13; n++ {
		for trial := range 60 {
			z := make([]float64, n)
			for i := range z {
				z[i] = float64(r.IntN(4))
				if trial%2 == 1 && r.IntN(4) == 0 {
					z[i] = specials[r.IntN(len(specials))]
				}
			}
			want := math.Inf(-1)
			for _, v := range z {
				want = max(want, v)
			}
			if got := RowMax(z); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("RowMax(%v) = %v, want %v", z, got, want)
			}
		}
	}
	z := []float64{1, -2, 0.5, 3, 3, -7, 2}
	p := make([]float64, len(z))
	for _, temp := range []float64{1, 0.3, 4} {
		lse := SoftmaxScaled(p, z, temp)
		sum, want := 0.0, 0.0
		for j, v := range z {
			want += math.Exp(v / temp)
			sum += p[j]
			if e := math.Exp(v/temp) / math.Exp(lse); math.Abs(p[j]-e) > 1e-15 {
				t.Errorf("t=%v: p[%d] = %v, want %v", temp, j, p[j], e)
			}
		}
		if math.Abs(sum-1) > 1e-15 || math.Abs(lse-math.Log(want)) > 1e-14 {
			t.Errorf("t=%v: Σp = %v, ln-normaliser %v, want 1 and %v", temp, sum, lse, math.Log(want))
		}
	}
}
