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
func bnDotsRelu32(dr, grad, y, x *float32, n int, c float64) (sg, sgx float64)

//go:noescape
func bnDotsReluAdd32(d, grad, y, x *float32, n int, c float64, a float32) (sg, sgx float64)

//go:noescape
func bnInputGrad32(dx, grad, y, x *float32, n int, a, b, c float32)

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

// bnDotsReluAsm is bnDotsRelu over the prefix of g that the assembly
// takes, and that prefix's length.
func bnDotsReluAsm[T Float](dr, g, y, x []T, c float64) (n int, sg, sgx float64) {
	y, x = y[:len(g)], x[:len(g)]
	if n = float32Prefix[T](len(g)); n > 0 {
		var d *float32
		if dr != nil {
			d = f32(dr[:len(g)])
		}
		sg, sgx = bnDotsRelu32(d, f32(g), f32(y), f32(x), n, c)
	}
	return n, sg, sgx
}

// bnDotsReluAddAsm is bnDotsReluAdd over the prefix of g that the
// assembly takes, and that prefix's length.
func bnDotsReluAddAsm[T Float](d, g, y, x []T, c float64, a T) (n int, sg, sgx float64) {
	d, y, x = d[:len(g)], y[:len(g)], x[:len(g)]
	if n = float32Prefix[T](len(g)); n > 0 {
		sg, sgx = bnDotsReluAdd32(f32(d), f32(g), f32(y), f32(x), n, c, float32(a))
	}
	return n, sg, sgx
}

// bnInputGradAsm is bnInputGrad over the prefix of dx that the assembly
// takes, and returns that prefix's length.
func bnInputGradAsm[T Float](dx, g, y, x []T, a, b, c T) int {
	g, x = g[:len(dx)], x[:len(dx)]
	n := float32Prefix[T](len(dx))
	if n > 0 {
		var ym *float32
		if y != nil {
			ym = f32(y[:len(dx)])
		}
		bnInputGrad32(f32(dx), f32(g), ym, f32(x), n, float32(a), float32(b), float32(c))
	}
	return n
}
