//go:build cuda

package cuda

// SetImplicitConv makes every convolution pass that has an implicit GEMM
// take it (on) or restores implicitConv's choices (off), for a benchmark
// comparing the two paths.
func SetImplicitConv(on bool) { implicitAlways = on }

// SetWinogradBudget sets the bytes a chunk of the Winograd path's tiles
// may take (winogradBudget), so that a test runs several chunks, and
// returns a function restoring it.
func SetWinogradBudget(bytes int) (restore func()) {
	old := winogradBudget
	winogradBudget = bytes
	return func() { winogradBudget = old }
}

// LastLaunch names the device's most recent kernel launch with its scalar
// arguments, as describe writes it.
func LastLaunch() string {
	e, err := getEngine()
	if err != nil {
		return err.Error()
	}
	var s string
	must(e.do(func() error { s = e.lastLaunch(); return nil }))
	return s
}
