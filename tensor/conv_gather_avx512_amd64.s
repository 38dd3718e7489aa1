//go:build !noasm

#include "textflag.h"

// sgemm8x32g, the gather micro-kernel of conv_gather.go (AVX-512): a tile of
// 8 rows of c in 16 ZMM accumulators, Z(4+2i) and Z(5+2i) for row i, 32
// floats wide. Each k step reads the next offset from the table at R10,
// loads b's row there (base R12) into Z0, Z1, and broadcasts the column of
// the packed panel of a at SI (8 floats a step) into Z2 to multiply into
// the rows.
#define GLOADB \
	MOVQ (R10), AX; \
	ADDQ $8, R10; \
	VMOVUPS (R12)(AX*4), Z0; \
	VMOVUPS 64(R12)(AX*4), Z1

#define GROW(off, lo, hi) \
	VBROADCASTSS off(SI), Z2; \
	VFMADD231PS  Z0, Z2, lo; \
	VFMADD231PS  Z1, Z2, hi

#define GSTEP(aoff) \
	GLOADB; \
	GROW(aoff+0, Z4, Z5); \
	GROW(aoff+4, Z6, Z7); \
	GROW(aoff+8, Z8, Z9); \
	GROW(aoff+12, Z10, Z11); \
	GROW(aoff+16, Z12, Z13); \
	GROW(aoff+20, Z14, Z15); \
	GROW(aoff+24, Z16, Z17); \
	GROW(aoff+28, Z18, Z19)

// Add a row of accumulators to c at DX (GADD) or store it there (GSET),
// then move DX one row of c (R8 bytes) on.
#define GADD(lo, hi) \
	VADDPS (DX), lo, lo; \
	VADDPS 64(DX), hi, hi; \
	GSET(lo, hi)

#define GSET(lo, hi) \
	VMOVUPS lo, (DX); \
	VMOVUPS hi, 64(DX); \
	ADDQ    R8, DX

// func sgemm8x32g(k int, a, b *float32, offs *int, c *float32, ldc int, add bool)
//
// c[i*ldc+j] += Σ_p a[p*8+i]·b[offs[p]+j] for i < 8, j < 32 and p < k,
// k ≥ 1; without add, c is set to the sums instead, whatever it held.
TEXT ·sgemm8x32g(SB), NOSPLIT, $0-49
	MOVQ   k+0(FP), CX
	MOVQ   a+8(FP), SI
	MOVQ   b+16(FP), R12
	MOVQ   offs+24(FP), R10
	MOVQ   c+32(FP), DX
	MOVQ   ldc+40(FP), R8
	SHLQ   $2, R8
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	CMPQ   CX, $4
	JLT    tail

loop4:
	GSTEP(0)
	GSTEP(32)
	GSTEP(64)
	GSTEP(96)
	ADDQ $128, SI
	SUBQ $4, CX
	CMPQ CX, $4
	JGE  loop4

tail:
	TESTQ CX, CX
	JZ    store

loop1:
	GSTEP(0)
	ADDQ $32, SI
	DECQ CX
	JNZ  loop1

store:
	MOVBLZX add+48(FP), AX
	TESTL   AX, AX
	JZ      set
	GADD(Z4, Z5)
	GADD(Z6, Z7)
	GADD(Z8, Z9)
	GADD(Z10, Z11)
	GADD(Z12, Z13)
	GADD(Z14, Z15)
	GADD(Z16, Z17)
	GADD(Z18, Z19)
	VZEROUPPER
	RET

set:
	GSET(Z4, Z5)
	GSET(Z6, Z7)
	GSET(Z8, Z9)
	GSET(Z10, Z11)
	GSET(Z12, Z13)
	GSET(Z14, Z15)
	GSET(Z16, Z17)
	GSET(Z18, Z19)
	VZEROUPPER
	RET

// func copyRows512(dst, src *float32, rows, cols, ldd, lds int)
//
// Copies rows rows of cols ≥ 1 floats, row r of dst at dst + r·ldd and of
// src at src + r·lds (strides in floats): 16 floats at a time, the rest in
// one masked move.
TEXT ·copyRows512(SB), NOSPLIT, $0-48
	MOVQ  dst+0(FP), DI
	MOVQ  src+8(FP), SI
	MOVQ  rows+16(FP), DX
	MOVQ  cols+24(FP), BX
	MOVQ  ldd+32(FP), R8
	SHLQ  $2, R8
	MOVQ  lds+40(FP), R9
	SHLQ  $2, R9
	MOVQ  BX, CX
	ANDQ  $15, CX
	MOVQ  $1, AX
	SHLQ  CX, AX
	DECQ  AX
	KMOVW AX, K1
	SHRQ  $4, BX
	TESTQ DX, DX
	JZ    done

row:
	MOVQ DI, R10
	MOVQ SI, R11
	MOVQ BX, CX
	TESTQ CX, CX
	JZ   tail

vec:
	VMOVUPS (R11), Z0
	VMOVUPS Z0, (R10)
	ADDQ    $64, R10
	ADDQ    $64, R11
	DECQ    CX
	JNZ     vec

tail:
	VMOVUPS.Z (R11), K1, Z0
	VMOVUPS   Z0, K1, (R10)
	ADDQ      R8, DI
	ADDQ      R9, SI
	DECQ      DX
	JNZ       row

done:
	VZEROUPPER
	RET
