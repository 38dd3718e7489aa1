//go:build !amd64 || noasm

package metrics

// vectorLen is 0: this build has no vector kernels, logSumExp's scalar
// loops do all the work.
func vectorLen(n int) int { return 0 }

func scaleMaxVec(x, lb, out []float64, h float64) float64 { panic("metrics: no vector kernel") }

func sumExpVec(a []float64, m float64) float64 { panic("metrics: no vector kernel") }
