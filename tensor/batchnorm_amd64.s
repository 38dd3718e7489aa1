//go:build !noasm

#include "textflag.h"

// The AVX2 kernels of batch normalisation (batchnorm_amd64.go), float32
// inputs, n a multiple of 8. The channel sums are taken in float64: each
// group of 8 values is widened to two vectors of 4 doubles, each summed into
// its own accumulators, which are added at the end.

// SUMS adds the accumulators Y4 + Y5 into the low double of X4 and Y6 + Y7
// into that of X6.
#define SUMS \
	VADDPD       Y5, Y4, Y4; \
	VADDPD       Y7, Y6, Y6; \
	VEXTRACTF128 $1, Y4, X1; \
	VADDPD       X1, X4, X4; \
	VHADDPD      X4, X4, X4; \
	VEXTRACTF128 $1, Y6, X1; \
	VADDPD       X1, X6, X6; \
	VHADDPD      X6, X6, X6

// DOTS adds the 8 gradients in Y8 (low 4) and Y9 (high 4), as doubles, to
// Y4, Y5 and their products with the 8 floats at SI less c (Y0) to Y6, Y7.
#define DOTS \
	VCVTPS2PD   (SI), Y1; \
	VCVTPS2PD   16(SI), Y2; \
	VSUBPD      Y0, Y1, Y1; \
	VSUBPD      Y0, Y2, Y2; \
	VADDPD      Y8, Y4, Y4; \
	VADDPD      Y9, Y5, Y5; \
	VFMADD231PD Y1, Y8, Y6; \
	VFMADD231PD Y2, Y9, Y7

// ZEROSUMS clears the accumulators Y4 to Y7.
#define ZEROSUMS \
	VXORPD Y4, Y4, Y4; \
	VXORPD Y5, Y5, Y5; \
	VXORPD Y6, Y6, Y6; \
	VXORPD Y7, Y7, Y7

// RELUGRAD sets Y3 to the 8 floats at DI where those at DX are above 0
// (Y10, zero; LT_OQ, false for NaN), else to 0: ReluGrad.
#define RELUGRAD \
	VCMPPS $0x11, (DX), Y10, Y3; \
	VANDPS (DI), Y3, Y3

// WIDEN sets Y8 and Y9 to the low and high 4 floats of Y3 as doubles,
// the gradients DOTS takes.
#define WIDEN \
	VCVTPS2PD    X3, Y8; \
	VEXTRACTF128 $1, Y3, X9; \
	VCVTPS2PD    X9, Y9

// func bnSums32(x *float32, n int, c float64) (s, ss float64)
//
// s = Σ (x[i] − c), ss = Σ (x[i] − c)².
TEXT ·bnSums32(SB), NOSPLIT, $0-40
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSD c+16(FP), Y0
	ZEROSUMS
	SHRQ         $3, CX
	JZ           sdone

sloop:
	VCVTPS2PD   (SI), Y1
	VCVTPS2PD   16(SI), Y2
	VSUBPD      Y0, Y1, Y1
	VSUBPD      Y0, Y2, Y2
	VADDPD      Y1, Y4, Y4
	VADDPD      Y2, Y5, Y5
	VFMADD231PD Y1, Y1, Y6
	VFMADD231PD Y2, Y2, Y7
	ADDQ        $32, SI
	DECQ        CX
	JNZ         sloop

sdone:
	SUMS
	VZEROUPPER
	MOVSD        X4, s+24(FP)
	MOVSD        X6, ss+32(FP)
	RET

// func bnDots32(grad, x *float32, n int, c float64) (sg, sgx float64)
//
// sg = Σ grad[i], sgx = Σ grad[i]·(x[i] − c).
TEXT ·bnDots32(SB), NOSPLIT, $0-48
	MOVQ         grad+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD c+24(FP), Y0
	ZEROSUMS
	SHRQ         $3, CX
	JZ           ddone

dloop:
	VCVTPS2PD (DI), Y8
	VCVTPS2PD 16(DI), Y9
	DOTS
	ADDQ        $32, SI
	ADDQ        $32, DI
	DECQ        CX
	JNZ         dloop

ddone:
	SUMS
	VZEROUPPER
	MOVSD        X4, sg+32(FP)
	MOVSD        X6, sgx+40(FP)
	RET

// func affineAddRelu32(dst, src, r *float32, n int, a, b float32)
//
// dst[i] = max((src[i]·a + b) + r[i], 0), each product and sum rounded
// apart in Go's order; a NaN passes through.
TEXT ·affineAddRelu32(SB), NOSPLIT, $0-40
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         r+16(FP), DX
	MOVQ         n+24(FP), CX
	VBROADCASTSS a+32(FP), Y0
	VBROADCASTSS b+36(FP), Y1
	VXORPS       Y2, Y2, Y2
	SHRQ         $3, CX
	JZ           rdone

rloop:
	VMULPS  (SI), Y0, Y3
	VADDPS  Y1, Y3, Y3
	VADDPS  (DX), Y3, Y3
	VMAXPS  Y3, Y2, Y3
	VMOVUPS Y3, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     rloop

rdone:
	VZEROUPPER
	RET

// func bnDotsRelu32(dr, grad, y, x *float32, n int, c float64) (sg, sgx float64)
//
// bnDots32 of g = grad where y > 0 (0 < y, LT_OQ, false for NaN), else 0:
// ReluGrad(grad, y), which it also writes to dr unless dr is nil.
TEXT ·bnDotsRelu32(SB), NOSPLIT, $0-64
	MOVQ         dr+0(FP), R8
	MOVQ         grad+8(FP), DI
	MOVQ         y+16(FP), DX
	MOVQ         x+24(FP), SI
	MOVQ         n+32(FP), CX
	VBROADCASTSD c+40(FP), Y0
	ZEROSUMS
	VXORPS       Y10, Y10, Y10
	SHRQ         $3, CX
	JZ           mdone

mloop:
	RELUGRAD
	TESTQ       R8, R8
	JZ          mnostore
	VMOVUPS     Y3, (R8)
	ADDQ        $32, R8

mnostore:
	WIDEN
	DOTS
	ADDQ        $32, SI
	ADDQ        $32, DI
	ADDQ        $32, DX
	DECQ        CX
	JNZ         mloop

mdone:
	SUMS
	VZEROUPPER
	MOVSD        X4, sg+48(FP)
	MOVSD        X6, sgx+56(FP)
	RET

// func bnDotsReluAdd32(d, grad, y, x *float32, n int, c float64, a float32) (sg, sgx float64)
//
// bnDotsRelu32 of g = ReluGrad(grad, y), adding a·g to d (the product and
// the sum rounded apart, in Go's order) instead of storing g.
TEXT ·bnDotsReluAdd32(SB), NOSPLIT, $0-72
	MOVQ         d+0(FP), R8
	MOVQ         grad+8(FP), DI
	MOVQ         y+16(FP), DX
	MOVQ         x+24(FP), SI
	MOVQ         n+32(FP), CX
	VBROADCASTSD c+40(FP), Y0
	VBROADCASTSS a+48(FP), Y11
	ZEROSUMS
	VXORPS       Y10, Y10, Y10
	SHRQ         $3, CX
	JZ           adone

aloop:
	RELUGRAD
	VMULPS       Y3, Y11, Y12
	VADDPS       (R8), Y12, Y12
	VMOVUPS      Y12, (R8)
	WIDEN
	DOTS
	ADDQ         $32, R8
	ADDQ         $32, SI
	ADDQ         $32, DI
	ADDQ         $32, DX
	DECQ         CX
	JNZ          aloop

adone:
	SUMS
	VZEROUPPER
	MOVSD        X4, sg+56(FP)
	MOVSD        X6, sgx+64(FP)
	RET

// func bnInputGrad32(dx, grad, y, x *float32, n int, a, b, c float32)
//
// dx[i] = a·g[i] + b·x[i] + c, each product and sum rounded apart in Go's
// order, with g = grad where y > 0 (LT_OQ as bnDotsRelu32), else 0, or
// g = grad if y is nil: batch normalisation's input gradient.
TEXT ·bnInputGrad32(SB), NOSPLIT, $0-52
	MOVQ         dx+0(FP), R8
	MOVQ         grad+8(FP), DI
	MOVQ         y+16(FP), DX
	MOVQ         x+24(FP), SI
	MOVQ         n+32(FP), CX
	VBROADCASTSS a+40(FP), Y0
	VBROADCASTSS b+44(FP), Y1
	VBROADCASTSS c+48(FP), Y2
	VXORPS       Y10, Y10, Y10
	SHRQ         $3, CX
	JZ           gdone
	TESTQ        DX, DX
	JZ           gplain

gloop:
	RELUGRAD
	VMULPS  Y3, Y0, Y3
	VMULPS  (SI), Y1, Y4
	VADDPS  Y4, Y3, Y3
	VADDPS  Y2, Y3, Y3
	VMOVUPS Y3, (R8)
	ADDQ    $32, DI
	ADDQ    $32, DX
	ADDQ    $32, SI
	ADDQ    $32, R8
	DECQ    CX
	JNZ     gloop
	JMP     gdone

gplain:
	VMULPS  (DI), Y0, Y3
	VMULPS  (SI), Y1, Y4
	VADDPS  Y4, Y3, Y3
	VADDPS  Y2, Y3, Y3
	VMOVUPS Y3, (R8)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, R8
	DECQ    CX
	JNZ     gplain

gdone:
	VZEROUPPER
	RET
