//go:build !noasm

#include "textflag.h"

// Strided row moves for the convolutions' im2col and col2im: rows rows of
// cols elements, row r of dst at dst + r·ldd and of src at src + r·lds
// (strides in bytes). Whole 32-byte vectors first, then single elements,
// VEX-encoded too: a legacy SSE instruction after a 256-bit one costs a
// state transition (about 50 ns a row here).

// func copyRowsAVX(dst, src unsafe.Pointer, rows, bytes, ldd, lds int)
//
// Copies bytes (a multiple of 4) per row.
TEXT ·copyRowsAVX(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ rows+16(FP), CX
	MOVQ bytes+24(FP), DX
	MOVQ ldd+32(FP), R8
	MOVQ lds+40(FP), R9
	TESTQ CX, CX
	JZ    cdone

crow:
	MOVQ DI, R10
	MOVQ SI, R11
	MOVQ DX, AX

cvec:
	CMPQ    AX, $32
	JLT     cword
	VMOVUPS (R11), Y0
	VMOVUPS Y0, (R10)
	ADDQ    $32, R10
	ADDQ    $32, R11
	SUBQ    $32, AX
	JMP     cvec

cword:
	TESTQ AX, AX
	JZ    cnext
	MOVL  (R11), BX
	MOVL  BX, (R10)
	ADDQ  $4, R10
	ADDQ  $4, R11
	SUBQ  $4, AX
	JMP   cword

cnext:
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ CX
	JNZ  crow

cdone:
	VZEROUPPER
	RET

// func addRows32(dst, src *float32, rows, cols, ldd, lds int)
//
// dst += src, cols float32 per row.
TEXT ·addRows32(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ rows+16(FP), CX
	MOVQ cols+24(FP), DX
	MOVQ ldd+32(FP), R8
	MOVQ lds+40(FP), R9
	TESTQ CX, CX
	JZ    sdone

srow:
	MOVQ DI, R10
	MOVQ SI, R11
	MOVQ DX, AX

svec:
	CMPQ    AX, $8
	JLT     sone
	VMOVUPS (R10), Y0
	VADDPS  (R11), Y0, Y0
	VMOVUPS Y0, (R10)
	ADDQ    $32, R10
	ADDQ    $32, R11
	SUBQ    $8, AX
	JMP     svec

sone:
	TESTQ AX, AX
	JZ    snext
	VMOVSS (R10), X0
	VADDSS (R11), X0, X0
	VMOVSS X0, (R10)
	ADDQ  $4, R10
	ADDQ  $4, R11
	DECQ  AX
	JMP   sone

snext:
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ CX
	JNZ  srow

sdone:
	VZEROUPPER
	RET

// func addRows64(dst, src *float64, rows, cols, ldd, lds int)
//
// dst += src, cols float64 per row.
TEXT ·addRows64(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ rows+16(FP), CX
	MOVQ cols+24(FP), DX
	MOVQ ldd+32(FP), R8
	MOVQ lds+40(FP), R9
	TESTQ CX, CX
	JZ    ddone

drow:
	MOVQ DI, R10
	MOVQ SI, R11
	MOVQ DX, AX

dvec:
	CMPQ    AX, $4
	JLT     done1
	VMOVUPD (R10), Y0
	VADDPD  (R11), Y0, Y0
	VMOVUPD Y0, (R10)
	ADDQ    $32, R10
	ADDQ    $32, R11
	SUBQ    $4, AX
	JMP     dvec

done1:
	TESTQ AX, AX
	JZ    dnext
	VMOVSD (R10), X0
	VADDSD (R11), X0, X0
	VMOVSD X0, (R10)
	ADDQ  $8, R10
	ADDQ  $8, R11
	DECQ  AX
	JMP   done1

dnext:
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ CX
	JNZ  drow

ddone:
	VZEROUPPER
	RET

// func affineRelu32(dst, src *float32, n int, a, b float32)
//
// dst[i] = max(src[i]·a + b, 0) for n a multiple of 8: a product and a sum
// rounded apart, as Go computes src[i]*a + b; a NaN passes through.
TEXT ·affineRelu32(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVSS        a+24(FP), X0
	MOVSS        b+28(FP), X1
	VBROADCASTSS X0, Y0
	VBROADCASTSS X1, Y1
	VXORPS       Y2, Y2, Y2
	SHRQ         $3, CX
	JZ           adone32

aloop32:
	VMOVUPS (SI), Y3
	VMULPS  Y0, Y3, Y3
	VADDPS  Y1, Y3, Y3
	VMAXPS  Y3, Y2, Y3
	VMOVUPS Y3, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     aloop32

adone32:
	VZEROUPPER
	RET

// func affineRelu64(dst, src *float64, n int, a, b float64)
//
// affineRelu32 in float64, n a multiple of 4.
TEXT ·affineRelu64(SB), NOSPLIT, $0-40
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVSD        a+24(FP), X0
	MOVSD        b+32(FP), X1
	VBROADCASTSD X0, Y0
	VBROADCASTSD X1, Y1
	VXORPD       Y2, Y2, Y2
	SHRQ         $2, CX
	JZ           adone64

aloop64:
	VMOVUPD (SI), Y3
	VMULPD  Y0, Y3, Y3
	VADDPD  Y1, Y3, Y3
	VMAXPD  Y3, Y2, Y3
	VMOVUPD Y3, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     aloop64

adone64:
	VZEROUPPER
	RET

// func keepPositive32(d, z *float32, n int)
//
// d[i] = 0 where z[i] ≤ 0 (kept where z[i] > 0 or is NaN), for n a
// multiple of 8: ReLU's gradient mask without a branch per element.
TEXT ·keepPositive32(SB), NOSPLIT, $0-24
	MOVQ   d+0(FP), DI
	MOVQ   z+8(FP), SI
	MOVQ   n+16(FP), CX
	VXORPS Y2, Y2, Y2
	SHRQ   $3, CX
	JZ     kdone32

kloop32:
	VMOVUPS (SI), Y0
	VCMPPS  $6, Y2, Y0, Y1 // z not ≤ 0
	VANDPS  (DI), Y1, Y1
	VMOVUPS Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     kloop32

kdone32:
	VZEROUPPER
	RET

// func keepPositive64(d, z *float64, n int)
//
// keepPositive32 in float64, n a multiple of 4.
TEXT ·keepPositive64(SB), NOSPLIT, $0-24
	MOVQ   d+0(FP), DI
	MOVQ   z+8(FP), SI
	MOVQ   n+16(FP), CX
	VXORPD Y2, Y2, Y2
	SHRQ   $2, CX
	JZ     kdone64

kloop64:
	VMOVUPD (SI), Y0
	VCMPPD  $6, Y2, Y0, Y1
	VANDPD  (DI), Y1, Y1
	VMOVUPD Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     kloop64

kdone64:
	VZEROUPPER
	RET

// func axpbyc32(d, grad, x *float32, n int, a, b, c float32)
//
// d[i] += a·grad[i] + b·x[i] + c for n a multiple of 8, each product and sum
// rounded apart in Go's order: batch normalisation's input gradient added
// into d.
TEXT ·axpbyc32(SB), NOSPLIT, $0-44
	MOVQ         d+0(FP), DI
	MOVQ         grad+8(FP), SI
	MOVQ         x+16(FP), DX
	MOVQ         n+24(FP), CX
	MOVSS        a+32(FP), X0
	MOVSS        b+36(FP), X1
	MOVSS        c+40(FP), X2
	VBROADCASTSS X0, Y0
	VBROADCASTSS X1, Y1
	VBROADCASTSS X2, Y2
	SHRQ         $3, CX
	JZ           xdone32

xloop32:
	VMULPS  (SI), Y0, Y3
	VMULPS  (DX), Y1, Y4
	VADDPS  Y4, Y3, Y3
	VADDPS  Y2, Y3, Y3
	VADDPS  (DI), Y3, Y3
	VMOVUPS Y3, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     xloop32

xdone32:
	VZEROUPPER
	RET

// func axpbyc64(d, grad, x *float64, n int, a, b, c float64)
//
// axpbyc32 in float64, n a multiple of 4.
TEXT ·axpbyc64(SB), NOSPLIT, $0-56
	MOVQ         d+0(FP), DI
	MOVQ         grad+8(FP), SI
	MOVQ         x+16(FP), DX
	MOVQ         n+24(FP), CX
	MOVSD        a+32(FP), X0
	MOVSD        b+40(FP), X1
	MOVSD        c+48(FP), X2
	VBROADCASTSD X0, Y0
	VBROADCASTSD X1, Y1
	VBROADCASTSD X2, Y2
	SHRQ         $2, CX
	JZ           xdone64

xloop64:
	VMULPD  (SI), Y0, Y3
	VMULPD  (DX), Y1, Y4
	VADDPD  Y4, Y3, Y3
	VADDPD  Y2, Y3, Y3
	VADDPD  (DI), Y3, Y3
	VMOVUPD Y3, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     xloop64

xdone64:
	VZEROUPPER
	RET
