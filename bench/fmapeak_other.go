//go:build !amd64 || noasm

package bench

// fmaLoop is nil off amd64: no peak row.
func fmaLoop(double bool) (run func(n int), flopsPerRound float64) { return nil, 0 }
