//go:build !noasm

package bench

import "github.com/ecl-go/ecl/tensor"

// fmaZMM runs n rounds of 24 independent AVX-512 multiply-adds (float64
// lanes when double, else float32) on registers alone.
//
//go:noescape
func fmaZMM(n int, double bool)

// fmaLoop is the peak kernel of this CPU: n rounds of 24 vector
// multiply-adds, and the floating-point operations of one round, or
// nil where the build or CPU has no AVX-512.
func fmaLoop(double bool) (run func(n int), flopsPerRound float64) {
	if !tensor.HasAVX512() {
		return nil, 0
	}
	lanes := 16.0
	if double {
		lanes = 8
	}
	return func(n int) { fmaZMM(n, double) }, 24 * lanes * 2
}
