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
