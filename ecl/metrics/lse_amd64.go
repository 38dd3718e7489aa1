//go:build !noasm

package metrics

import "github.com/ecl-go/ecl/tensor"

// vectorKernels reports AVX2 and FMA, which the kernels of lse_amd64.s
// need.
var vectorKernels = tensor.HasAVX2FMA()

// sumExpAsm is sumExp512 where the CPU has AVX-512, else sumExpVec.
var sumExpAsm = sumExpVec

func init() {
	if tensor.HasAVX512() {
		sumExpAsm = sumExp512
	}
}

// scaleMaxVec is scaleMaxGo in AVX2 registers; len(x) is a multiple of 4,
// lb and out as long.
//
//go:noescape
func scaleMaxVec(x, lb, out []float64, h float64) float64

// sumExpVec is sumExpGo in AVX2 registers (the same sum, bit for bit);
// len(a) is a multiple of 8.
//
//go:noescape
func sumExpVec(a []float64, m float64) float64

// sumExp512 is sumExpVec in AVX-512 registers (the same sum); it needs
// AVX-512 F.
//
//go:noescape
func sumExp512(a []float64, m float64) float64
