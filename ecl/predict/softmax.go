package predict

import (
	"math"

	"github.com/ecl-go/ecl/tensor"
)

// SoftmaxScaled sets p = softmax(z/t) (p may be z), computed stably, and
// returns ln Σ_j e^(z_j/t): the exponentials e^((z_j − max z)/t) by
// tensor.ExpScaled64 (its AVX-512 kernel where the CPU has one).
func SoftmaxScaled(p, z []float64, t float64) float64 {
	m := RowMax(z)
	s := tensor.ExpScaled64(p, z, m, t)
	inv := 1 / s
	for j := range p {
		p[j] *= inv
	}
	return m/t + math.Log(s)
}

// RowMax is the largest element of z (−∞ if empty), NaN if z holds one, in
// four independent lanes.
func RowMax(z []float64) float64 {
	m0, m1, m2, m3 := math.Inf(-1), math.Inf(-1), math.Inf(-1), math.Inf(-1)
	nan := false
	i := 0
	for ; i+4 <= len(z); i += 4 {
		r := z[i : i+4 : i+4]
		if r[0] > m0 {
			m0 = r[0]
		}
		if r[1] > m1 {
			m1 = r[1]
		}
		if r[2] > m2 {
			m2 = r[2]
		}
		if r[3] > m3 {
			m3 = r[3]
		}
		nan = nan || r[0] != r[0] || r[1] != r[1] || r[2] != r[2] || r[3] != r[3]
	}
	for ; i < len(z); i++ {
		if z[i] > m0 {
			m0 = z[i]
		}
		nan = nan || z[i] != z[i]
	}
	if nan {
		return math.NaN()
	}
	return max(m0, m1, m2, m3)
}
