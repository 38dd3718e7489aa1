//go:build !noasm

package tensor

// The micro-kernels of gemm_amd64.s (AVX2 and FMA) and gemm_avx512_amd64.s
// (AVX-512): c[i*ldc+j] += Σ_p a[p*mr+i]·b[p*ldb+j] over k ≥ 1 steps (c set
// to the sums without add).
//
//go:noescape
func sgemm6x16(k int, a, b *float32, ldb int, c *float32, ldc int, add bool)

//go:noescape
func dgemm6x8(k int, a, b *float64, ldb int, c *float64, ldc int, add bool)

//go:noescape
func sgemm12x32(k int, a, b *float32, ldb int, c *float32, ldc int, add bool)

//go:noescape
func dgemm12x16(k int, a, b *float64, ldb int, c *float64, ldc int, add bool)

// The 6-row AVX-512 kernels, for the last rows of c, read the same panels
// of a, 12 rows high.
//
//go:noescape
func sgemm6x32(k int, a, b *float32, ldb int, c *float32, ldc int, add bool)

//go:noescape
func dgemm6x16(k int, a, b *float64, ldb int, c *float64, ldc int, add bool)

// The dot-product kernels: c[i*ldc+j] += Σ_p a[i*lda+p]·b[j*ldb+p] for
// i < 3, j < 4 and p below kv ≥ 1 vectors (AVX2: 8 floats, 4 doubles;
// AVX-512, the …z kernels: 16 floats, 8 doubles).
//
//go:noescape
func sdot3x4(kv int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)

//go:noescape
func ddot3x4(kv int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int)

//go:noescape
func sdot3x4z(kv int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)

//go:noescape
func ddot3x4z(kv int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int)

// interleave4x8F32 sets dst[p*w+i] to alpha·src[i*ld+p] for i < 4 and
// p < 8·n8, n8 ≥ 1 (AVX2); interleave4x4F64 likewise for p < 4·n4.
//
//go:noescape
func interleave4x8F32(dst *float32, w int, src *float32, ld int, n8 int, alpha float32)

//go:noescape
func interleave4x4F64(dst *float64, w int, src *float64, ld int, n4 int, alpha float64)

// interleave4Asm does interleave's work for four rows (dst[p*w+i] =
// alpha·src[i*ld+p], i < 4) over the first columns, a multiple of 8
// floats or 4 doubles, and returns how many: at level AVX2 or above, else
// none.
func interleave4Asm[T Float](dst []T, w int, src []T, ld, kb int, alpha T) int {
	if gemmISA < isaAVX2 {
		return 0
	}
	switch al := any(alpha).(type) {
	case float32:
		n := kb / 8 * 8
		if n > 0 {
			d, s := reinterpret[float32](dst), reinterpret[float32](src)
			_, _ = d[(n-1)*w+3], s[3*ld+n-1] // bounds the assembly relies on
			interleave4x8F32(&d[0], w, &s[0], ld, n/8, al)
		}
		return n
	case float64:
		n := kb / 4 * 4
		if n > 0 {
			d, s := reinterpret[float64](dst), reinterpret[float64](src)
			_, _ = d[(n-1)*w+3], s[3*ld+n-1]
			interleave4x4F64(&d[0], w, &s[0], ld, n/4, al)
		}
		return n
	}
	return 0
}

// The micro-kernels and dot-product kernels by level, built once so that
// picking one allocates nothing. The widths below are the ones the
// assembly relies on (tile rows and columns, lanes).
var (
	sgemmAVX512K = microKernel[float32]{12, 32, 256, 240, 4096, gemmFn(sgemm12x32, 12, 12, 32), gemmFn(sgemm6x32, 12, 6, 32)}
	dgemmAVX512K = microKernel[float64]{12, 16, 256, 120, 4096, gemmFn(dgemm12x16, 12, 12, 16), gemmFn(dgemm6x16, 12, 6, 16)}
	sgemmAVX2K   = microKernel[float32]{6, 16, 256, 144, 4096, gemmFn(sgemm6x16, 6, 6, 16), nil}
	dgemmAVX2K   = microKernel[float64]{6, 8, 256, 144, 4096, gemmFn(dgemm6x8, 6, 6, 8), nil}
	sdotAVX512K  = dotKernel[float32]{3, 4, 16, dotFn(sdot3x4z, 16)}
	ddotAVX512K  = dotKernel[float64]{3, 4, 8, dotFn(ddot3x4z, 8)}
	sdotAVX2K    = dotKernel[float32]{3, 4, 8, dotFn(sdot3x4, 8)}
	ddotAVX2K    = dotKernel[float64]{3, 4, 4, dotFn(ddot3x4, 4)}
)

// asmKernel returns the assembly micro-kernel for T at level l (AVX-512 or
// AVX2), or ok = false for isaGo.
func asmKernel[T Float](l isa) (microKernel[T], bool) {
	return byLevel[microKernel[T], T](l, &sgemmAVX512K, &dgemmAVX512K, &sgemmAVX2K, &dgemmAVX2K)
}

// asmDotKernel returns the assembly dot-product kernel for T at level
// gemmISA, or ok = false below AVX2.
func asmDotKernel[T Float]() (dotKernel[T], bool) {
	return byLevel[dotKernel[T], T](gemmISA, &sdotAVX512K, &ddotAVX512K, &sdotAVX2K, &ddotAVX2K)
}

// byLevel returns the kernel of type K (pointed to by one of the four
// arguments, for float32 and float64 at each level) for T at level l, or
// ok = false for isaGo.
func byLevel[K any, T Float](l isa, s512, d512, s2, d2 any) (k K, ok bool) {
	var z T
	_, f32 := any(z).(float32)
	var p any
	switch {
	case l == isaAVX512 && f32:
		p = s512
	case l == isaAVX512:
		p = d512
	case l == isaAVX2 && f32:
		p = s2
	case l == isaAVX2:
		p = d2
	default:
		return k, false
	}
	return *p.(*K), true
}

// gemmFn wraps an assembly micro-kernel whose tile is rows×cols and whose
// panels of a are mr rows high.
func gemmFn[T Float](fn func(int, *T, *T, int, *T, int, bool), mr, rows, cols int) func(int, []T, []T, int, []T, int, bool) {
	return func(n int, a, b []T, ldb int, c []T, ldc int, add bool) {
		_, _, _ = a[n*mr-1], b[(n-1)*ldb+cols-1], c[(rows-1)*ldc+cols-1] // bounds the assembly relies on
		fn(n, &a[0], &b[0], ldb, &c[0], ldc, add)
	}
}

// dotFn wraps an assembly dot-product kernel of the given lanes.
func dotFn[T Float](fn func(int, *T, int, *T, int, *T, int), lanes int) func(int, []T, int, []T, int, []T, int) {
	return func(kv int, a []T, lda int, b []T, ldb int, c []T, ldc int) {
		_, _, _ = a[2*lda+lanes*kv-1], b[3*ldb+lanes*kv-1], c[2*ldc+3] // bounds the assembly relies on
		fn(kv, &a[0], lda, &b[0], ldb, &c[0], ldc)
	}
}
