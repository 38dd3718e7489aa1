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

// exp64Wide is exp64Consts with each constant in 4 lanes, as AVX2's
// operands take them, and expScaled64AVX2's own: 1/2 and the exponent
// bias 2^52 + 1023 for 2^n, the lane indices 0–7 for the masked tail.
type exp64Wide struct {
	lo, hi, log2e, ln2Hi, ln2Lo, one, half, bias [4]float64
	c                                            [12][4]float64
	lanes                                        [8]int64
}

// expScaled64AVX2 is expScaled64 for AVX2 and FMA (exp64_amd64.s): its
// elements and sum equal expScaled64's bit for bit.
//
//go:noescape
func expScaled64AVX2(dst, src *float64, n int, shift, t float64, c *exp64Wide) float64

// exp64W is expScaled64AVX2's constant table.
var exp64W = func() exp64Wide {
	b := func(v float64) [4]float64 { return [4]float64{v, v, v, v} }
	c := exp64C
	w := exp64Wide{lo: b(c.lo), hi: b(c.hi), log2e: b(c.log2e), ln2Hi: b(c.ln2Hi), ln2Lo: b(c.ln2Lo),
		one: b(c.one), half: b(0.5), bias: b(0x1p52 + 1023), lanes: [8]int64{0, 1, 2, 3, 4, 5, 6, 7}}
	for j, v := range c.c {
		w.c[j] = b(v)
	}
	return w
}()

// expKernel is an assembly kernel of ExpScaled64 and the level it needs.
type expKernel struct {
	name string
	run  func(dst, src []float64, shift, t float64) float64
}

// expKernels are the assembly kernels this CPU runs, best first:
// AVX-512, AVX2.
var expKernels = func() []expKernel {
	var ks []expKernel
	if cpuISA >= isaAVX512 {
		ks = append(ks, expKernel{"avx512", func(dst, src []float64, shift, t float64) float64 {
			return expScaled64(&dst[0], &src[0], len(src), shift, t, &exp64C)
		}})
	}
	if cpuISA >= isaAVX2 {
		ks = append(ks, expKernel{"avx2", func(dst, src []float64, shift, t float64) float64 {
			return expScaled64AVX2(&dst[0], &src[0], len(src), shift, t, &exp64W)
		}})
	}
	return ks
}()

// expScaledAsm is ExpScaled64 by the best of expKernels (ok false where
// there is none, dst untouched); len(dst) = len(src).
func expScaledAsm(dst, src []float64, shift, t float64) (sum float64, ok bool) {
	if len(expKernels) == 0 || len(src) == 0 {
		return 0, false
	}
	return expKernels[0].run(dst, src, shift, t), true
}
