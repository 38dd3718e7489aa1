//go:build !amd64 || noasm

package tensor

// asmKernel reports that there is no assembly micro-kernel on this platform
// (or with the noasm build tag).
func asmKernel[T Float](isa) (k microKernel[T], ok bool) { return k, false }

// asmDotKernel reports that there is no assembly dot-product kernel.
func asmDotKernel[T Float]() (k dotKernel[T], ok bool) { return k, false }
