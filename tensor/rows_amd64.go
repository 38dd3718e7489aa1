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
		addRows32(&reinterpret[float32](dst)[0], &reinterpret[float32](src)[0], rows, cols, ldd*4, lds*4)
	default:
		addRows64(&reinterpret[float64](dst)[0], &reinterpret[float64](src)[0], rows, cols, ldd*8, lds*8)
	}
	return true
}

// The element-wise AVX kernels of rows_amd64.s, for the dense block: n a
// multiple of 8 (float32) or 4 (float64).

//go:noescape
func affineMax32(dst, src *float32, n int, a, b, lo float32)

//go:noescape
func affineMax64(dst, src *float64, n int, a, b, lo float64)

//go:noescape
func adam32(p, grad, m, v *float32, n int, c *AdamScalars[float32], decay bool)

//go:noescape
func adam64(p, grad, m, v *float64, n int, c *AdamScalars[float64], decay bool)

// vectorPrefix runs the float32 or float64 kernel, by T, over the longest
// prefix of n elements that it takes, where the CPU has AVX2, and returns
// that prefix's length.
func vectorPrefix[T Float](n int, f32, f64 func(n int)) int {
	if !asmKernels {
		return 0
	}
	var zero T
	if unsafe.Sizeof(zero) == 4 {
		n &^= 7
		if n > 0 {
			f32(n)
		}
		return n
	}
	n &^= 3
	if n > 0 {
		f64(n)
	}
	return n
}

// f32 and f64 are the first element of s as the kernels take it.
func f32[T Float](s []T) *float32 { return &reinterpret[float32](s)[0] }
func f64[T Float](s []T) *float64 { return &reinterpret[float64](s)[0] }

// affineMaxAsm sets dst[i] = max(src[i]·a + b, lo) over the prefix of dst
// that the assembly takes and returns its length.
func affineMaxAsm[T Float](dst, src []T, a, b, lo T) int {
	src = src[:len(dst)]
	return vectorPrefix[T](len(dst),
		func(n int) { affineMax32(f32(dst), f32(src), n, float32(a), float32(b), float32(lo)) },
		func(n int) { affineMax64(f64(dst), f64(src), n, float64(a), float64(b), float64(lo)) })
}

// adamAsm applies c to the prefix of p (and g, m, v) that the assembly
// takes and returns its length.
func adamAsm[T Float](p, g, m, v []T, c *AdamScalars[T]) int {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	decay := c.Decay != 0
	return vectorPrefix[T](len(p),
		func(n int) {
			adam32(f32(p), f32(g), f32(m), f32(v), n, any(c).(*AdamScalars[float32]), decay)
		},
		func(n int) {
			adam64(f64(p), f64(g), f64(m), f64(v), n, any(c).(*AdamScalars[float64]), decay)
		})
}
