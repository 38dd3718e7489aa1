//go:build !noasm

package tensor

// sgemm8x32g is the AVX-512 gather micro-kernel (conv_gather_avx512_amd64.s):
// c[i*ldc+j] += Σ_p a[p*8+i]·b[offs[p]+j] for i < 8, j < 32 over k ≥ 1
// steps (c set to the sums without add).
//
//go:noescape
func sgemm8x32g(k int, a, b *float32, offs *int, c *float32, ldc int, add bool)

// sgemm12x32g is sgemm8x32g for 12 rows: a[p*12+i] for i < 12.
//
//go:noescape
func sgemm12x32g(k int, a, b *float32, offs *int, c *float32, ldc int, add bool)

// sdot2x3x4 is the AVX-512 shifted dot-product kernel of the weight
// gradient: c[s*lds+i*ldi+j] += Σ_{p<16·kv} a[i*lda+p+s]·b[j*ldb+p] for
// i < 2, s < 3, j < 4, reading 16 floats past each row of a.
//
//go:noescape
func sdot2x3x4(kv int, a *float32, lda int, b *float32, ldb int, c *float32, lds, ldi int)

// sgatherAVX512K wraps sgemm8x32g (the offsets must increase, so that the
// last bounds b's reads) and sdot2x3x4.
var sgatherAVX512K = gatherKernel[float32]{8, 32, func(k int, a, b []float32, offs []int, c []float32, ldc int, add bool) {
	_, _, _, _ = a[8*k-1], offs[k-1], b[offs[k-1]+31], c[7*ldc+31] // bounds the assembly relies on
	sgemm8x32g(k, &a[0], &b[0], &offs[0], &c[0], ldc, add)
}, func(kv int, a []float32, lda int, b []float32, ldb int, c []float32, lds, ldi int) {
	_, _, _ = a[lda+16*kv+15], b[3*ldb+16*kv-1], c[2*lds+ldi+3] // bounds the assembly relies on
	sdot2x3x4(kv, &a[0], lda, &b[0], ldb, &c[0], lds, ldi)
}}

// sgatherAVX512K12 is sgatherAVX512K with 12-row tiles (sgemm12x32g).
var sgatherAVX512K12 = gatherKernel[float32]{12, 32, func(k int, a, b []float32, offs []int, c []float32, ldc int, add bool) {
	_, _, _, _ = a[12*k-1], offs[k-1], b[offs[k-1]+31], c[11*ldc+31] // bounds the assembly relies on
	sgemm12x32g(k, &a[0], &b[0], &offs[0], &c[0], ldc, add)
}, sgatherAVX512K.dot3}

// sgemm6x16g is the AVX2 gather micro-kernel (gemm_amd64.s), sgemm6x16
// with b's rows read through the offsets: c[i*ldc+j] += Σ_p
// a[p*6+i]·b[offs[p]+j] for i < 6, j < 16 over k ≥ 1 steps (c set to the
// sums without add).
//
//go:noescape
func sgemm6x16g(k int, a, b *float32, offs *int, c *float32, ldc int, add bool)

// sgatherAVX2K wraps sgemm6x16g, and sdot3x4 as the weight gradient's dot3:
// the three taps of a row of dy are three rows of a one float apart.
var sgatherAVX2K = gatherKernel[float32]{6, 16, func(k int, a, b []float32, offs []int, c []float32, ldc int, add bool) {
	_, _, _, _ = a[6*k-1], offs[k-1], b[offs[k-1]+15], c[5*ldc+15] // bounds the assembly relies on
	sgemm6x16g(k, &a[0], &b[0], &offs[0], &c[0], ldc, add)
}, func(kv int, a []float32, lda int, b []float32, ldb int, c []float32, lds, ldi int) {
	_, _, _ = a[lda+16*kv+1], b[3*ldb+16*kv-1], c[2*lds+ldi+3] // bounds the assembly relies on
	sdot3x4(2*kv, &a[0], 1, &b[0], ldb, &c[0], lds)
	sdot3x4(2*kv, &a[lda], 1, &b[0], ldb, &c[ldi], lds)
}}

// asmGatherKernel returns the assembly gather micro-kernel for T at level
// gemmISA for o output channels (the first of gatherSets, or at AVX-512
// the 12-row tile where it pads o less than the 8-row one), or ok = false.
func asmGatherKernel[T Float](o int) (gatherKernel[T], bool) {
	sets := gatherSets()
	if _, f32 := any(*new(T)).(float32); !f32 || len(sets) == 0 {
		return gatherKernel[T]{}, false
	}
	gk := sets[0]
	if gemmISA == isaAVX512 && roundUp(o, 12) < roundUp(o, 8) {
		gk = sgatherAVX512K12
	}
	return any(gk).(gatherKernel[T]), true
}

// gatherSets are the float32 assembly gather kernels this CPU runs at
// level gemmISA, best first (the tests run each).
func gatherSets() []gatherKernel[float32] {
	switch gemmISA {
	case isaAVX512:
		return []gatherKernel[float32]{sgatherAVX512K, sgatherAVX512K12, sgatherAVX2K}
	case isaAVX2:
		return []gatherKernel[float32]{sgatherAVX2K}
	}
	return nil
}

// copyRows512 copies rows rows of cols ≥ 1 floats between strides ldd
// and lds (in floats), with AVX-512 masked moves for the rows' tails.
//
//go:noescape
func copyRows512(dst, src *float32, rows, cols, ldd, lds int)

// canvasCopy is moveRows without add for the gather path: copyRows512 for
// float32 at level AVX-512, else moveRows.
func canvasCopy[T Float](dst, src []T, rows, cols, ldd, lds int) {
	if d, ok := any(dst).([]float32); ok && gemmISA == isaAVX512 && rows > 0 && cols > 0 {
		s := any(src).([]float32)
		checkRows(d, rows, cols, ldd)
		checkRows(s, rows, cols, lds)
		copyRows512(&d[0], &s[0], rows, cols, ldd, lds)
		return
	}
	moveRows(dst, src, rows, cols, ldd, lds, false)
}
