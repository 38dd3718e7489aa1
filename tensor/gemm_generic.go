//go:build !amd64 || noasm

package tensor

// asmKernel reports that there is no assembly micro-kernel on this platform
// (or with the noasm build tag).
func asmKernel[T Float](isa) (k microKernel[T], ok bool) { return k, false }

// asmDotKernel reports that there is no assembly dot-product kernel.
func asmDotKernel[T Float]() (k dotKernel[T], ok bool) { return k, false }

// interleave4Asm reports that no columns were interleaved in assembly.
func interleave4Asm[T Float](dst []T, w int, src []T, ld, kb int, alpha T) int { return 0 }
