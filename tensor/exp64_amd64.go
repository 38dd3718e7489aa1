//go:build !noasm

package tensor

// expScaled64 sets dst[i] = e^((src[i] − shift)/t) for i < n and returns
// their sum (exp64_amd64.s); AVX-512 F.
//
//go:noescape
func expScaled64(dst, src *float64, n int, shift, t float64, c *exp64Consts) float64

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
