//go:build !amd64 || noasm

package tensor

// max2x2Asm, max2x2BackAsm, max3x3s2Asm and argmax3x3s2Asm report that
// there are no assembly pooling kernels: they do nothing.
func max2x2Asm[T Float](y, r0, r1 []T) int { return 0 }

func max3x3s2Asm[T Float](y, x []T, ld int) int { return 0 }

func max2x2BackAsm[T Float](g0, g1, dy, r0, r1 []T) int { return 0 }

func argmax3x3s2Asm[T Float](at []uint8, x []T, ld int) int { return 0 }
