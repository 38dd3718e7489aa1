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
