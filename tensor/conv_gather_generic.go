//go:build !amd64 || noasm

package tensor

// asmGatherKernel reports that there is no assembly gather micro-kernel on
// this platform (or with the noasm build tag).
func asmGatherKernel[T Float](o int) (k gatherKernel[T], ok bool) { return k, false }

// gatherSets are none here.
func gatherSets() []gatherKernel[float32] { return nil }

// canvasCopy is moveRows without add.
func canvasCopy[T Float](dst, src []T, rows, cols, ldd, lds int) {
	moveRows(dst, src, rows, cols, ldd, lds, false)
}
