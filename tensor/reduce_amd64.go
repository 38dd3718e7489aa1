//go:build !noasm

package tensor

import "math"

// extremesVec reports the AVX-512 kernel of extremesAsm.
var extremesVec = cpuISA >= isaAVX512

// extremes16 is extremesAsm's kernel (reduce_amd64.s).
//
//go:noescape
func extremes16(x *float32, rows, k int, flip float32, val, idx *float32)

// extremesAsm sets val and idx, the extreme of each row of k contiguous
// elements of x and its index (lastExtreme), over the rows that the
// AVX-512 kernel takes, float32 only, and returns their number.
func extremesAsm[T Float](x, val, idx []T, k int, min bool) int {
	rows := len(val) &^ 15
	if !extremesVec || rows == 0 || k > 1<<20 {
		return 0
	}
	v, ok := any(val).([]float32)
	if !ok {
		return 0
	}
	var flip float32
	if min {
		flip = float32(math.Copysign(0, -1))
	}
	extremes16(&view[float32](x)[0], rows, k, flip, &v[0], &view[float32](idx)[0])
	return rows
}
