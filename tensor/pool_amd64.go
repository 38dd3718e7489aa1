//go:build !noasm

package tensor

import "unsafe"

// The AVX2 kernels of pool_amd64.s.
//
//go:noescape
func maxPool2x2F32(y, r0, r1 *float32, n int) int

//go:noescape
func maxPool2x2BackF32(g0, g1, dy, r0, r1 *float32, n int) int

// The AVX-512 kernels of pool_avx512_amd64.s.
//
//go:noescape
func maxPool3x3S2F32(y, r0, r1, r2 *float32, n int) int

//go:noescape
func maxPool3x3S2ArgF32(at *uint8, r0, r1, r2 *float32, n int) int

// max2x2Asm sets y[i] to the maximum of window i of the input rows r0, r1
// of a halving pooling, as argmax2x2 picks it, for a prefix of y that it
// returns the length of: float32 rows of 8 windows or more on CPUs with
// AVX2, up to a NaN. A last partial group is done as the 8 windows ending
// the row, again in part.
func max2x2Asm[T Float](y, r0, r1 []T) int {
	n := len(y)
	if !asmKernels || unsafe.Sizeof(y[0]) != 4 || n < 8 {
		return 0
	}
	_, _ = r0[2*n-1], r1[2*n-1] // bounds the assembly relies on
	y32, a, b := reinterpret[float32](y), reinterpret[float32](r0), reinterpret[float32](r1)
	done := maxPool2x2F32(&y32[0], &a[0], &b[0], n&^7)
	if done == n&^7 && done < n && maxPool2x2F32(&y32[n-8], &a[2*n-16], &b[2*n-16], 8) == 8 {
		done = n
	}
	return done
}

// max2x2BackAsm sets the gradient rows g0, g1 of r0, r1 to dy[i] at the
// maximum of window i and 0 elsewhere in it, for a prefix of dy that it
// returns the length of, as max2x2Asm.
func max2x2BackAsm[T Float](g0, g1, dy, r0, r1 []T) int {
	n := len(dy)
	if !asmKernels || unsafe.Sizeof(dy[0]) != 4 || n < 8 {
		return 0
	}
	_, _, _, _ = g0[2*n-1], g1[2*n-1], r0[2*n-1], r1[2*n-1]
	h0, h1, d, a, b := reinterpret[float32](g0), reinterpret[float32](g1), reinterpret[float32](dy), reinterpret[float32](r0), reinterpret[float32](r1)
	done := maxPool2x2BackF32(&h0[0], &h1[0], &d[0], &a[0], &b[0], n&^7)
	if done == n&^7 && done < n && maxPool2x2BackF32(&h0[2*n-16], &h1[2*n-16], &d[n-8], &a[2*n-16], &b[2*n-16], 8) == 8 {
		done = n
	}
	return done
}

// max3x3s2Asm sets y[i] to the maximum of the 3×3 window at columns 2i to
// 2i+2 of the rows x, x[ld:], x[2·ld:], for a prefix of y that it returns
// the length of: float32 with AVX-512, 16 windows at a time, up to a group
// whose inputs hold a NaN or a −0 (where windowArgmax's first maximum may
// differ from the vector maximum).
func max3x3s2Asm[T Float](y, x []T, ld int) int {
	n := len(y) &^ 15
	if cpuISA < isaAVX512 || unsafe.Sizeof(y[0]) != 4 || n == 0 {
		return 0
	}
	_ = x[2*ld+2*n] // the last group's 33rd column of the third row
	x32 := reinterpret[float32](x)
	return maxPool3x3S2F32(&reinterpret[float32](y)[0], &x32[0], &x32[ld], &x32[2*ld], n)
}

// argmax3x3s2Asm sets at[i] to the position, 0–8 in row-major order, of
// the first maximum of the 3×3 window at columns 2i to 2i+2 of the rows x,
// x[ld:], x[2·ld:] (windowArgmax's choice), for a prefix of at that it
// returns the length of: float32 with AVX-512, 16 windows at a time, up
// to a group whose inputs hold a NaN.
func argmax3x3s2Asm[T Float](at []uint8, x []T, ld int) int {
	n := len(at) &^ 15
	if cpuISA < isaAVX512 || unsafe.Sizeof(x[0]) != 4 || n == 0 {
		return 0
	}
	_ = x[2*ld+2*n] // the last group's 33rd column of the third row
	x32 := reinterpret[float32](x)
	return maxPool3x3S2ArgF32(&at[0], &x32[0], &x32[ld], &x32[2*ld], n)
}
