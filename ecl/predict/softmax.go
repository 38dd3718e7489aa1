package predict

import (
	"math"

	"github.com/ecl-go/ecl/internal/vec"
	"github.com/ecl-go/ecl/tensor"
)

// SoftmaxScaled sets p = softmax(z/t) (p may be z), computed stably, and
// returns ln Σ_j e^(z_j/t): the exponentials e^((z_j − max z)/t) by
// tensor.ExpScaled64 (its AVX-512 or AVX2 kernel where the CPU has one).
func SoftmaxScaled(p, z []float64, t float64) float64 {
	m := RowMax(z)
	s := tensor.ExpScaled64(p, z, m, t)
	inv := 1 / s
	for j := range p {
		p[j] *= inv
	}
	return m/t + math.Log(s)
}

// RowMax is the largest element of z (−∞ if empty), NaN if z holds one
// (vec.Max).
func RowMax(z []float64) float64 { return vec.Max(z) }
