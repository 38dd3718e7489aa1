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

// exp64Consts is expScaled64's constant table: the clamps of the argument,
// log2 e, ln 2 in two parts (fdlibm's, the high part with 21 trailing zero
// bits so that n·ln2Hi is exact), 1, and the Taylor coefficients 1/j! of
// e^r, j = 13 down to 2 (on |r| ≤ ln 2/2 the first term left out,
// r¹⁴/14!, is below 2^−57).
type exp64Consts struct {
	lo, hi       float64
	log2e        float64
	ln2Hi, ln2Lo float64
	one          float64
	c            [12]float64
}

// exp64C is expScaled64's constant table (and exp64Model's in the tests).
var exp64C = func() exp64Consts {
	c := exp64Consts{lo: -746, hi: 710, log2e: math.Log2E,
		ln2Hi: 6.93147180369123816490e-01, ln2Lo: 1.90821492927058770002e-10, one: 1}
	f := 1.0
	for j := 2; j <= 13; j++ {
		f *= float64(j) // exact: 13! < 2^53
		c.c[13-j] = 1 / f
	}
	return c
}()
