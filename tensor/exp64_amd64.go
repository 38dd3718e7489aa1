//go:build !noasm

package tensor

import "math"

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

// expScaled64 sets dst[i] = e^((src[i] − shift)/t) for i < n and returns
// their sum (exp64_amd64.s); AVX-512 F.
//
//go:noescape
func expScaled64(dst, src *float64, n int, shift, t float64, c *exp64Consts) float64

// exp64C is expScaled64's constant table.
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

// exp64Asm reports the AVX-512 kernel.
var exp64Asm = cpuISA >= isaAVX512

// expScaledAsm is ExpScaled64 by the AVX-512 kernel where the CPU has it
// (ok false otherwise, dst untouched); len(dst) = len(src).
func expScaledAsm(dst, src []float64, shift, t float64) (sum float64, ok bool) {
	if !exp64Asm || len(src) == 0 {
		return 0, false
	}
	return expScaled64(&dst[0], &src[0], len(src), shift, t, &exp64C), true
}
