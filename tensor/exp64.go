package tensor

import (
	"fmt"
	"math"
)

// ExpScaled64 sets dst[i] = e^((src[i] − shift)/t) for i < len(src) and
// returns their sum: a softmax's exponentials, with shift the row's
// maximum and t its temperature. dst must be at least as long as src and
// may be src itself; elements past len(src) are left alone.
//
// Where the CPU has AVX-512, or else AVX2 and FMA (and the build is not
// noasm), a vector kernel computes it, the two equal bit for bit
// (TestExpScaled64Model): within 1 ulp of the correctly rounded e^x (2 ulp
// of the amd64 math.Exp, itself up to 2 ulp off) where the result is
// normal, measured on 2·10⁵ arguments in [−708, 0] against math/big on
// 2026-12-06 (TestExpScaled64Exact checks 4000 of them); below e^−708.4
// the subnormal value within 2^−1074, and 0 below −745.13 as math.Exp
// gives. It overflows to +∞ above 709.78 (math.Exp on amd64 already above
// 709.44). `go test -run TestExpScaled64 -v ./tensor` re-measures the
// bound against math.Exp. The argument (src[i] − shift)/t is rounded as in
// Go, so only the exponential differs; NaN stays NaN, −∞ gives 0 and +∞
// gives +∞. The sum is added in 8 lanes, not in index order as the scalar
// loop (math.Exp, elsewhere) adds it.
func ExpScaled64(dst, src []float64, shift, t float64) float64 {
	if len(dst) < len(src) {
		panic(fmt.Sprintf("tensor.ExpScaled64: dst has %d elements, src %d", len(dst), len(src)))
	}
	dst = dst[:len(src)]
	if sum, ok := expScaledAsm(dst, src, shift, t); ok {
		return sum
	}
	sum := 0.0
	for i, v := range src {
		dst[i] = math.Exp((v - shift) / t)
		sum += dst[i]
	}
	return sum
}
