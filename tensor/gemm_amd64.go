//go:build !noasm

package tensor

import "unsafe"

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

// asmKernel returns the assembly micro-kernel for T at level l (AVX-512 or
// AVX2), or ok = false for isaGo.
func asmKernel[T Float](l isa) (k microKernel[T], ok bool) {
	var z T
	_, f32 := any(z).(float32)
	switch {
	case l >= isaAVX512 && f32:
		return microKernel[T]{12, 32, 256, 240, 4096, sgemmAVX512[T](sgemm12x32, 12), sgemmAVX512[T](sgemm6x32, 6)}, true
	case l >= isaAVX512:
		return microKernel[T]{12, 16, 256, 120, 4096, dgemmAVX512[T](dgemm12x16, 12), dgemmAVX512[T](dgemm6x16, 6)}, true
	case l >= isaAVX2 && f32:
		return microKernel[T]{6, 16, 256, 144, 4096, func(n int, a, b []T, ldb int, c []T, ldc int, add bool) {
			_, _, _ = a[n*6-1], b[(n-1)*ldb+15], c[5*ldc+15]
			sgemm6x16(n, (*float32)(unsafe.Pointer(&a[0])), (*float32)(unsafe.Pointer(&b[0])), ldb, (*float32)(unsafe.Pointer(&c[0])), ldc, add)
		}, nil}, true
	case l >= isaAVX2:
		return microKernel[T]{6, 8, 256, 144, 4096, func(n int, a, b []T, ldb int, c []T, ldc int, add bool) {
			_, _, _ = a[n*6-1], b[(n-1)*ldb+7], c[5*ldc+7]
			dgemm6x8(n, (*float64)(unsafe.Pointer(&a[0])), (*float64)(unsafe.Pointer(&b[0])), ldb, (*float64)(unsafe.Pointer(&c[0])), ldc, add)
		}, nil}, true
	}
	return k, false
}

// sgemmAVX512 wraps an AVX-512 float32 kernel of the given rows (packed
// panels of a 12 rows high) as a micro-kernel function for T = float32.
func sgemmAVX512[T Float](fn func(int, *float32, *float32, int, *float32, int, bool), rows int) func(int, []T, []T, int, []T, int, bool) {
	return func(n int, a, b []T, ldb int, c []T, ldc int, add bool) {
		_, _, _ = a[n*12-1], b[(n-1)*ldb+31], c[(rows-1)*ldc+31] // bounds the assembly relies on
		fn(n, (*float32)(unsafe.Pointer(&a[0])), (*float32)(unsafe.Pointer(&b[0])), ldb, (*float32)(unsafe.Pointer(&c[0])), ldc, add)
	}
}

// dgemmAVX512 is sgemmAVX512 for float64.
func dgemmAVX512[T Float](fn func(int, *float64, *float64, int, *float64, int, bool), rows int) func(int, []T, []T, int, []T, int, bool) {
	return func(n int, a, b []T, ldb int, c []T, ldc int, add bool) {
		_, _, _ = a[n*12-1], b[(n-1)*ldb+15], c[(rows-1)*ldc+15]
		fn(n, (*float64)(unsafe.Pointer(&a[0])), (*float64)(unsafe.Pointer(&b[0])), ldb, (*float64)(unsafe.Pointer(&c[0])), ldc, add)
	}
}

// asmDotKernel returns the assembly dot-product kernel for T at level
// gemmISA, or ok = false below AVX2.
func asmDotKernel[T Float]() (k dotKernel[T], ok bool) {
	var z T
	_, f32 := any(z).(float32)
	switch {
	case gemmISA >= isaAVX512 && f32:
		return dotKernel[T]{3, 4, 16, sdotAsm[T](sdot3x4z, 16)}, true
	case gemmISA >= isaAVX512:
		return dotKernel[T]{3, 4, 8, ddotAsm[T](ddot3x4z, 8)}, true
	case gemmISA >= isaAVX2 && f32:
		return dotKernel[T]{3, 4, 8, sdotAsm[T](sdot3x4, 8)}, true
	case gemmISA >= isaAVX2:
		return dotKernel[T]{3, 4, 4, ddotAsm[T](ddot3x4, 4)}, true
	}
	return k, false
}

// sdotAsm wraps a float32 dot-product kernel of the given lanes as a
// dotKernel function for T = float32.
func sdotAsm[T Float](fn func(int, *float32, int, *float32, int, *float32, int), lanes int) func(int, []T, int, []T, int, []T, int) {
	return func(kv int, a []T, lda int, b []T, ldb int, c []T, ldc int) {
		_, _, _ = a[2*lda+lanes*kv-1], b[3*ldb+lanes*kv-1], c[2*ldc+3] // bounds the assembly relies on
		fn(kv, (*float32)(unsafe.Pointer(&a[0])), lda, (*float32)(unsafe.Pointer(&b[0])), ldb, (*float32)(unsafe.Pointer(&c[0])), ldc)
	}
}

// ddotAsm is sdotAsm for float64.
func ddotAsm[T Float](fn func(int, *float64, int, *float64, int, *float64, int), lanes int) func(int, []T, int, []T, int, []T, int) {
	return func(kv int, a []T, lda int, b []T, ldb int, c []T, ldc int) {
		_, _, _ = a[2*lda+lanes*kv-1], b[3*ldb+lanes*kv-1], c[2*ldc+3]
		fn(kv, (*float64)(unsafe.Pointer(&a[0])), lda, (*float64)(unsafe.Pointer(&b[0])), ldb, (*float64)(unsafe.Pointer(&c[0])), ldc)
	}
}
