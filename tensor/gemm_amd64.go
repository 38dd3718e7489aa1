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

// The micro-kernels and dot-product kernels by level, built once so that
// picking one allocates nothing. The widths below are the ones the
// assembly relies on (tile rows and columns, lanes).
var (
	sgemmAVX512K = microKernel[float32]{12, 32, 256, 240, 4096, sgemmFn(sgemm12x32, 12, 12, 32), sgemmFn(sgemm6x32, 12, 6, 32)}
	dgemmAVX512K = microKernel[float64]{12, 16, 256, 120, 4096, dgemmFn(dgemm12x16, 12, 12, 16), dgemmFn(dgemm6x16, 12, 6, 16)}
	sgemmAVX2K   = microKernel[float32]{6, 16, 256, 144, 4096, sgemmFn(sgemm6x16, 6, 6, 16), nil}
	dgemmAVX2K   = microKernel[float64]{6, 8, 256, 144, 4096, dgemmFn(dgemm6x8, 6, 6, 8), nil}
	sdotAVX512K  = dotKernel[float32]{3, 4, 16, sdotFn(sdot3x4z, 16)}
	ddotAVX512K  = dotKernel[float64]{3, 4, 8, ddotFn(ddot3x4z, 8)}
	sdotAVX2K    = dotKernel[float32]{3, 4, 8, sdotFn(sdot3x4, 8)}
	ddotAVX2K    = dotKernel[float64]{3, 4, 4, ddotFn(ddot3x4, 4)}
)

// asmKernel returns the assembly micro-kernel for T at level l (AVX-512 or
// AVX2), or ok = false for isaGo.
func asmKernel[T Float](l isa) (k microKernel[T], ok bool) {
	var p any
	switch l {
	case isaAVX512:
		p = pick[T](&sgemmAVX512K, &dgemmAVX512K)
	case isaAVX2:
		p = pick[T](&sgemmAVX2K, &dgemmAVX2K)
	default:
		return k, false
	}
	return *p.(*microKernel[T]), true
}

// asmDotKernel returns the assembly dot-product kernel for T at level
// gemmISA, or ok = false below AVX2.
func asmDotKernel[T Float]() (k dotKernel[T], ok bool) {
	var p any
	switch gemmISA {
	case isaAVX512:
		p = pick[T](&sdotAVX512K, &ddotAVX512K)
	case isaAVX2:
		p = pick[T](&sdotAVX2K, &ddotAVX2K)
	default:
		return k, false
	}
	return *p.(*dotKernel[T]), true
}

// pick returns s for T = float32, else d.
func pick[T Float](s, d any) any {
	var z T
	if _, ok := any(z).(float32); ok {
		return s
	}
	return d
}

// sgemmFn wraps a float32 micro-kernel whose tile is rows×cols and whose
// panels of a are mr rows high.
func sgemmFn(fn func(int, *float32, *float32, int, *float32, int, bool), mr, rows, cols int) func(int, []float32, []float32, int, []float32, int, bool) {
	return func(n int, a, b []float32, ldb int, c []float32, ldc int, add bool) {
		_, _, _ = a[n*mr-1], b[(n-1)*ldb+cols-1], c[(rows-1)*ldc+cols-1] // bounds the assembly relies on
		fn(n, &a[0], &b[0], ldb, &c[0], ldc, add)
	}
}

// dgemmFn is sgemmFn for float64.
func dgemmFn(fn func(int, *float64, *float64, int, *float64, int, bool), mr, rows, cols int) func(int, []float64, []float64, int, []float64, int, bool) {
	return func(n int, a, b []float64, ldb int, c []float64, ldc int, add bool) {
		_, _, _ = a[n*mr-1], b[(n-1)*ldb+cols-1], c[(rows-1)*ldc+cols-1]
		fn(n, &a[0], &b[0], ldb, &c[0], ldc, add)
	}
}

// sdotFn wraps a float32 dot-product kernel of the given lanes.
func sdotFn(fn func(int, *float32, int, *float32, int, *float32, int), lanes int) func(int, []float32, int, []float32, int, []float32, int) {
	return func(kv int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
		_, _, _ = a[2*lda+lanes*kv-1], b[3*ldb+lanes*kv-1], c[2*ldc+3] // bounds the assembly relies on
		fn(kv, &a[0], lda, &b[0], ldb, &c[0], ldc)
	}
}

// ddotFn is sdotFn for float64.
func ddotFn(fn func(int, *float64, int, *float64, int, *float64, int), lanes int) func(int, []float64, int, []float64, int, []float64, int) {
	return func(kv int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
		_, _, _ = a[2*lda+lanes*kv-1], b[3*ldb+lanes*kv-1], c[2*ldc+3]
		fn(kv, &a[0], lda, &b[0], ldb, &c[0], ldc)
	}
}
