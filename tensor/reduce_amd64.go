//go:build !noasm

package tensor

import "math"

// extremesVec reports the AVX-512 kernel of extremesAsm.
var extremesVec = cpuISA >= isaAVX512

// extremesRows is extremesAsm's kernel (reduce_amd64.s).
//
//go:noescape
func extremesRows(x *float32, rows, k int, flip float32, val, idx *float32)

// extremesAsm sets val and idx, the extreme of each row of k contiguous
// elements of x and its index (lastExtreme), where the AVX-512 kernel
// takes them (float32, k ≤ 16), and returns the number of rows it did.
func extremesAsm[T Float](x, val, idx []T, k int, min bool) int {
	v, ok := any(val).([]float32)
	if !extremesVec || !ok || len(v) == 0 || k < 1 || k > 16 {
		return 0
	}
	var flip float32
	if min {
		flip = float32(math.Copysign(0, -1))
	}
	extremesRows(&reinterpret[float32](x)[0], len(v), k, flip, &v[0], &reinterpret[float32](idx)[0])
	return len(v)
}
