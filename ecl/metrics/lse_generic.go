//go:build !amd64 || noasm

package metrics

// vectorKernels is false: this build has no assembly kernels.
const vectorKernels = false

func scaleMaxVec(x, lb, out []float64, h float64) float64 { return scaleMaxGo(x, lb, out, h) }

func sumExpVec(a []float64, m float64) float64 { return sumExpGo(a, m) }

var sumExpAsm = sumExpGo
