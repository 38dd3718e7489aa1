//go:build cuda

package cuda

// SetConvRows sets convRows, the most output channels an implicit-GEMM
// convolution takes, for a benchmark comparing the two paths; it returns
// the function that restores it.
func SetConvRows(n int) (restore func()) {
	old := convRows
	convRows = n
	return func() { convRows = old }
}
