//go:build !noasm

package tensor

// sgemm8x32g is the AVX-512 gather micro-kernel (conv_gather_avx512_amd64.s):
// c[i*ldc+j] += Σ_p a[p*8+i]·b[offs[p]+j] for i < 8, j < 32 over k ≥ 1
// steps (c set to the sums without add).
//
//go:noescape
func sgemm8x32g(k int, a, b *float32, offs *int, c *float32, ldc int, add bool)

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

// asmGatherKernel returns the assembly gather micro-kernel for T at level
// gemmISA: float32 with AVX-512, else ok = false.
func asmGatherKernel[T Float]() (gatherKernel[T], bool) {
	var z T
	if _, f32 := any(z).(float32); f32 && gemmISA == isaAVX512 {
		return any(sgatherAVX512K).(gatherKernel[T]), true
	}
	return gatherKernel[T]{}, false
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
