//go:build cuda

package cuda

// SetImplicitConv makes every convolution pass that has an implicit GEMM
// take it (on) or restores implicitConv's choices (off), for a benchmark
// comparing the two paths.
func SetImplicitConv(on bool) { implicitAlways = on }
