//go:build !noasm

package vec

import "github.com/ecl-go/ecl/tensor"

// asm reports the AVX2 and FMA kernels of vec_amd64.s.
var asm = tensor.HasAVX2FMA()

// dotAVX2 is Dot of x[:n] and y[:n], n ≥ 1.
//
//go:noescape
func dotAVX2(x, y *float64, n int) float64

// axpyAVX2 adds a·x[:n] to y[:n], n ≥ 1.
//
//go:noescape
func axpyAVX2(a float64, x, y *float64, n int)

// maxAVX2 is the largest of x[:n], n a multiple of 4 and at least 4, and
// whether x[:n] holds a NaN.
//
//go:noescape
func maxAVX2(x *float64, n int) (m float64, nan bool)
