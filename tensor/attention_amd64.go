//go:build !noasm

package tensor

// expShift32 is expShiftAsm's AVX-512 kernel (attention_amd64.s).
//
//go:noescape
func expShift32(x *float32, n int, shift float32, c *softConsts) float64

// expConsts is expShift32's constant table (its k is unused).
var expConsts = softConstants(0)

// expShiftAsm sets row[i] = e^(row[i] − shift) and returns their sum in
// float64, with the AVX-512 kernel where the CPU has it and T is float32
// (ok false otherwise, row untouched). shift must be finite and at least
// every element, which must not be NaN: the kernel clamps below −104
// (e^x is 0 there), where a NaN would become 0 too.
func expShiftAsm[T Float](row []T, shift float64) (sum float64, ok bool) {
	r, f32 := any(row).([]float32)
	if !softAsm || !f32 || len(r) == 0 {
		return 0, false
	}
	return expShift32(&r[0], len(r), float32(shift), &expConsts), true
}
