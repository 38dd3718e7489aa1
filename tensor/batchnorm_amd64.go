//go:build !noasm

package tensor

import "unsafe"

// The AVX2 kernels of batchnorm_amd64.s, float32, n a multiple of 8.
//
//go:noescape
func bnSums32(x *float32, n int, c float64) (s, ss float64)

//go:noescape
func bnDots32(grad, x *float32, n int, c float64) (sg, sgx float64)

//go:noescape
func affineAddRelu32(dst, src, r *float32, n int, a, b float32)

// float32Prefix is the length of the prefix of a float32 slice of n
// elements that the kernels above take (0 for float64 or without AVX2).
func float32Prefix[T Float](n int) int {
	var z T
	if !asmKernels || unsafe.Sizeof(z) != 4 {
		return 0
	}
	return n &^ 7
}

// bnSumsAsm is bnSums over the prefix of x that the assembly takes, and
// that prefix's length.
func bnSumsAsm[T Float](x []T, c float64) (n int, s, ss float64) {
	if n = float32Prefix[T](len(x)); n > 0 {
		s, ss = bnSums32(f32(x), n, c)
	}
	return n, s, ss
}

// bnDotsAsm is bnDots over the prefix of g that the assembly takes, and
// that prefix's length.
func bnDotsAsm[T Float](g, x []T, c float64) (n int, sg, sgx float64) {
	x = x[:len(g)]
	if n = float32Prefix[T](len(g)); n > 0 {
		sg, sgx = bnDots32(f32(g), f32(x), n, c)
	}
	return n, sg, sgx
}

// affineAddReluAsm is affineAddRelu over the prefix of dst that the
// assembly takes, and returns that prefix's length.
func affineAddReluAsm[T Float](dst, src, r []T, a, b T) int {
	src, r = src[:len(dst)], r[:len(dst)]
	n := float32Prefix[T](len(dst))
	if n > 0 {
		affineAddRelu32(f32(dst), f32(src), f32(r), n, float32(a), float32(b))
	}
	return n
}
