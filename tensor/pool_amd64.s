//go:build !noasm

#include "textflag.h"

// The 2×2, stride-2 max pooling of float32 rows, 8 windows at a time: r0
// and r1 are the two input rows, window i covering r0[2i], r0[2i+1] (a, b)
// and r1[2i], r1[2i+1] (c, d). The maximum is the first one in row-major
// order, as windowArgmax picks it: VMAXPS src1, src2 gives src2 unless
// src1 > src2, so ties go to the earlier operand. A group of windows holding
// a NaN stops the kernel, which returns the number of windows done.

// LOAD2X2 loads 8 windows from SI (r0) and DX (r1) into a, b, c, d, in the
// lane order 0 1 4 5 2 3 6 7 of VSHUFPS.
#define LOAD2X2 \
	VMOVUPS (SI), Y0; \
	VMOVUPS 32(SI), Y1; \
	VMOVUPS (DX), Y2; \
	VMOVUPS 32(DX), Y3; \
	VSHUFPS $0x88, Y1, Y0, Y4; \
	VSHUFPS $0xdd, Y1, Y0, Y5; \
	VSHUFPS $0x88, Y3, Y2, Y6; \
	VSHUFPS $0xdd, Y3, Y2, Y7; \
	VCMPPS  $3, Y5, Y4, Y8; \
	VCMPPS  $3, Y7, Y6, Y9; \
	VORPS   Y9, Y8, Y8; \
	VMOVMSKPS Y8, AX

// MAX2X2 sets Y10 to the top maxima, Y11 to the bottom ones and Y12 to the
// windows' (lane order as LOAD2X2).
#define MAX2X2 \
	VMAXPS Y4, Y5, Y10; \
	VMAXPS Y6, Y7, Y11; \
	VMAXPS Y10, Y11, Y12

// func maxPool2x2F32(y, r0, r1 *float32, n int) int
//
// y[i] = the maximum of window i for i < n (rounded down to a multiple of
// 8), up to the first group with a NaN.
TEXT ·maxPool2x2F32(SB), NOSPLIT, $0-40
	MOVQ y+0(FP), DI
	MOVQ r0+8(FP), SI
	MOVQ r1+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	XORQ BX, BX

fgroup:
	TESTQ CX, CX
	JZ    fdone
	LOAD2X2
	TESTL AX, AX
	JNZ   fdone
	MAX2X2
	VPERMPD $0xd8, Y12, Y12
	VMOVUPS Y12, (DI)
	ADDQ    $32, DI
	ADDQ    $64, SI
	ADDQ    $64, DX
	ADDQ    $8, BX
	DECQ    CX
	JMP     fgroup

fdone:
	MOVQ BX, ret+32(FP)
	VZEROUPPER
	RET

// func maxPool2x2BackF32(g0, g1, dy, r0, r1 *float32, n int) int
//
// Sets the gradient rows g0, g1 (of r0, r1) of windows i < n (rounded down
// to a multiple of 8) to dy[i] at the window's maximum and 0 elsewhere, up
// to the first group with a NaN.
TEXT ·maxPool2x2BackF32(SB), NOSPLIT, $0-56
	MOVQ g0+0(FP), DI
	MOVQ g1+8(FP), R8
	MOVQ dy+16(FP), R9
	MOVQ r0+24(FP), SI
	MOVQ r1+32(FP), DX
	MOVQ n+40(FP), CX
	SHRQ $3, CX
	XORQ BX, BX

bgroup:
	TESTQ CX, CX
	JZ    bdone
	LOAD2X2
	TESTL AX, AX
	JNZ   bdone
	MAX2X2
	VCMPPS  $0x1e, Y4, Y5, Y13   // b > a: the top maximum is b
	VCMPPS  $0x1e, Y6, Y7, Y14   // d > c
	VCMPPS  $0x1e, Y10, Y11, Y15 // bottom > top: the maximum is below
	VMOVUPS (R9), Y0
	VPERMPD $0xd8, Y0, Y0        // dy in the lane order of the windows
	VANDNPS Y0, Y15, Y1          // dy where the maximum is on top
	VANDPS  Y0, Y15, Y2          // dy where it is below
	VANDNPS Y1, Y13, Y4          // at a
	VANDPS  Y1, Y13, Y5          // at b
	VANDNPS Y2, Y14, Y6          // at c
	VANDPS  Y2, Y14, Y7          // at d
	VUNPCKLPS Y5, Y4, Y8         // a, b interleaved: windows 0-3
	VUNPCKHPS Y5, Y4, Y9         // windows 4-7
	VMOVUPS Y8, (DI)
	VMOVUPS Y9, 32(DI)
	VUNPCKLPS Y7, Y6, Y8
	VUNPCKHPS Y7, Y6, Y9
	VMOVUPS Y8, (R8)
	VMOVUPS Y9, 32(R8)
	ADDQ    $64, DI
	ADDQ    $64, R8
	ADDQ    $32, R9
	ADDQ    $64, SI
	ADDQ    $64, DX
	ADDQ    $8, BX
	DECQ    CX
	JMP     bgroup

bdone:
	MOVQ BX, ret+48(FP)
	VZEROUPPER
	RET
