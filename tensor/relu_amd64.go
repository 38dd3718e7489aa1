//go:build !noasm

package tensor

import "unsafe"

// The AVX kernels of relu_amd64.s: d[i] = grad[i] where x[i] > 0 (or x[i] is
// NaN, with nan set), else 0, for i < n, a multiple of 8 (float32) or 4
// (float64).
//
//go:noescape
func maskPositive32(d, grad, x *float32, n int, nan bool)

//go:noescape
func maskPositive64(d, grad, x *float64, n int, nan bool)

// maskPrefix runs passPositive's rule over the longest prefix of d that the
// assembly kernels take, where the CPU has AVX2, and returns its length.
func maskPrefix[T Float](d, g, x []T, nan bool) int {
	if !asmKernels {
		return 0
	}
	g, x = g[:len(d)], x[:len(d)]
	if unsafe.Sizeof(d[0]) == 4 {
		n := len(d) &^ 7
		if n > 0 {
			maskPositive32(&reinterpret[float32](d)[0], &reinterpret[float32](g)[0], &reinterpret[float32](x)[0], n, nan)
		}
		return n
	}
	n := len(d) &^ 3
	if n > 0 {
		maskPositive64(&reinterpret[float64](d)[0], &reinterpret[float64](g)[0], &reinterpret[float64](x)[0], n, nan)
	}
	return n
}
