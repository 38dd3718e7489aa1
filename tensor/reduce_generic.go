//go:build !amd64 || noasm

package tensor

// extremesVec reports that there is no vector kernel for extremesAsm.
var extremesVec = false

// wideSets is empty and wide has no kernels: this build has no assembly.
var (
	wideSets []wideKernels
	wide     wideKernels
)

// extremesAsmTakes reports that there is no kernel for any row length.
func extremesAsmTakes(k int) bool { return false }

// extremesAsm reports that there is no assembly: it took no rows.
func extremesAsm[T Float](x, val, idx []T, k int, min bool) int { return 0 }

// extremesColsK is unused without the kernels (reduce_amd64.go).
var extremesColsK = 0

// extremesTreeOn is unused without the kernels (reduce_amd64.go).
var extremesTreeOn = false

// extremeGradAsm reports that there is no assembly: it wrote no rows.
func extremeGradAsm[T Float](dst, val, idx []T, k int, stream bool) int { return 0 }

// clearStream sets dst to zero (no streaming stores without the kernels).
func clearStream[T Float](dst []T, stream bool) { clear(dst) }
