//go:build !amd64 || noasm

package tensor

// expScaledAsm reports that there is no assembly kernel: it does nothing.
func expScaledAsm(dst, src []float64, shift, t float64) (sum float64, ok bool) { return 0, false }

// expKernel is an assembly kernel of ExpScaled64 (none in this build).
type expKernel struct {
	name string
	run  func(dst, src []float64, shift, t float64) float64
}

// expKernels is empty: this build has no assembly.
var expKernels []expKernel
