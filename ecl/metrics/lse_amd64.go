//go:build !noasm

package metrics

import "github.com/ecl-go/ecl/tensor"

// vectorKernels reports AVX2 and FMA, which the kernels of lse_amd64.s
// need.
var vectorKernels = tensor.HasAVX2FMA()

// vectorLen is how many of n values the vector kernels take: a multiple
// of 4 (the rest are logSumExp's), 0 without AVX2 and FMA.
func vectorLen(n int) int {
	if !vectorKernels {
		return 0
	}
	return n &^ 3
}

// scaleMaxVec sets out[i] = x[i]/h − lb[i] and returns the largest (−∞
// for none); len(x) is a multiple of 4, lb and out as long.
//
//go:noescape
func scaleMaxVec(x, lb, out []float64, h float64) float64

// sumExpVec returns Σ exp(a[i] − m) as expPoly computes each term, summed
// in four lanes; len(a) is a multiple of 4.
//
//go:noescape
func sumExpVec(a []float64, m float64) float64
