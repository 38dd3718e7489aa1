//go:build !noasm

package tensor

import "unsafe"

// The AVX row moves of rows_amd64.s, strides in bytes.
//
//go:noescape
func copyRowsAVX(dst, src unsafe.Pointer, rows, bytes, ldd, lds int)

//go:noescape
func addRows32(dst, src *float32, rows, cols, ldd, lds int)

//go:noescape
func addRows64(dst, src *float64, rows, cols, ldd, lds int)

// rowsAsm runs moveRows in assembly where the CPU has AVX2, on operands
// checkRows has checked, and reports whether it did.
func rowsAsm[T Float](dst, src []T, rows, cols, ldd, lds int, add bool) bool {
	if !asmKernels {
		return false
	}
	size := int(unsafe.Sizeof(dst[0]))
	switch {
	case !add:
		copyRowsAVX(unsafe.Pointer(&dst[0]), unsafe.Pointer(&src[0]), rows, cols*size, ldd*size, lds*size)
	case size == 4:
		addRows32(&view[float32](dst)[0], &view[float32](src)[0], rows, cols, ldd*4, lds*4)
	default:
		addRows64(&view[float64](dst)[0], &view[float64](src)[0], rows, cols, ldd*8, lds*8)
	}
	return true
}

//go:noescape
func affineRelu32(dst, src *float32, n int, a, b float32)

//go:noescape
func affineRelu64(dst, src *float64, n int, a, b float64)

// affineReluAsm sets dst[i] = max(src[i]·a + b, 0) over the longest prefix
// of dst that the assembly takes, where the CPU has AVX2, and returns its
// length.
func affineReluAsm[T Float](dst, src []T, a, b T) int {
	if !asmKernels {
		return 0
	}
	src = src[:len(dst)]
	if unsafe.Sizeof(dst[0]) == 4 {
		n := len(dst) &^ 7
		if n > 0 {
			affineRelu32(&view[float32](dst)[0], &view[float32](src)[0], n, float32(a), float32(b))
		}
		return n
	}
	n := len(dst) &^ 3
	if n > 0 {
		affineRelu64(&view[float64](dst)[0], &view[float64](src)[0], n, float64(a), float64(b))
	}
	return n
}

//go:noescape
func keepPositive32(d, z *float32, n int)

//go:noescape
func keepPositive64(d, z *float64, n int)

// keepPositiveAsm clears d[i] where z[i] ≤ 0 over the longest prefix of d
// that the assembly takes, where the CPU has AVX2, and returns its length.
func keepPositiveAsm[T Float](d, z []T) int {
	if !asmKernels {
		return 0
	}
	z = z[:len(d)]
	if unsafe.Sizeof(d[0]) == 4 {
		n := len(d) &^ 7
		if n > 0 {
			keepPositive32(&view[float32](d)[0], &view[float32](z)[0], n)
		}
		return n
	}
	n := len(d) &^ 3
	if n > 0 {
		keepPositive64(&view[float64](d)[0], &view[float64](z)[0], n)
	}
	return n
}

//go:noescape
func axpbyc32(d, grad, x *float32, n int, a, b, c float32)

//go:noescape
func axpbyc64(d, grad, x *float64, n int, a, b, c float64)

// axpbycAsm adds a·g[i] + b·x[i] + c to d[i] over the longest prefix of d
// that the assembly takes, where the CPU has AVX2, and returns its length.
func axpbycAsm[T Float](d, g, x []T, a, b, c T) int {
	if !asmKernels {
		return 0
	}
	g, x = g[:len(d)], x[:len(d)]
	if unsafe.Sizeof(d[0]) == 4 {
		n := len(d) &^ 7
		if n > 0 {
			axpbyc32(&view[float32](d)[0], &view[float32](g)[0], &view[float32](x)[0], n, float32(a), float32(b), float32(c))
		}
		return n
	}
	n := len(d) &^ 3
	if n > 0 {
		axpbyc64(&view[float64](d)[0], &view[float64](g)[0], &view[float64](x)[0], n, float64(a), float64(b), float64(c))
	}
	return n
}
