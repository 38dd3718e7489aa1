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

// GARGS loads the kernels' arguments: k to CX, a to SI, b to R12, the
// offsets to R10, c to DX and its row stride in bytes to R8.
#define GARGS \
	MOVQ k+0(FP), CX; \
	MOVQ a+8(FP), SI; \
	MOVQ b+16(FP), R12; \
	MOVQ offs+24(FP), R10; \
	MOVQ c+32(FP), DX; \
	MOVQ ldc+40(FP), R8; \
	SHLQ $2, R8

// GZERO clears the accumulators of rows 0 to 7 (Z4 to Z19), GZERO12 those
// of rows 8 to 11 (Z20 to Z27) too.
#define GZERO \
	VPXORD Z4, Z4, Z4; \
	VPXORD Z5, Z5, Z5; \
	VPXORD Z6, Z6, Z6; \
	VPXORD Z7, Z7, Z7; \
	VPXORD Z8, Z8, Z8; \
	VPXORD Z9, Z9, Z9; \
	VPXORD Z10, Z10, Z10; \
	VPXORD Z11, Z11, Z11; \
	VPXORD Z12, Z12, Z12; \
	VPXORD Z13, Z13, Z13; \
	VPXORD Z14, Z14, Z14; \
	VPXORD Z15, Z15, Z15; \
	VPXORD Z16, Z16, Z16; \
	VPXORD Z17, Z17, Z17; \
	VPXORD Z18, Z18, Z18; \
	VPXORD Z19, Z19, Z19

#define GZERO12 \
	GZERO; \
	VPXORD Z20, Z20, Z20; \
	VPXORD Z21, Z21, Z21; \
	VPXORD Z22, Z22, Z22; \
	VPXORD Z23, Z23, Z23; \
	VPXORD Z24, Z24, Z24; \
	VPXORD Z25, Z25, Z25; \
	VPXORD Z26, Z26, Z26; \
	VPXORD Z27, Z27, Z27

// GADD8 and GSET8 add or store rows 0 to 7.
#define GADD8 \
	GADD(Z4, Z5); \
	GADD(Z6, Z7); \
	GADD(Z8, Z9); \
	GADD(Z10, Z11); \
	GADD(Z12, Z13); \
	GADD(Z14, Z15); \
	GADD(Z16, Z17); \
	GADD(Z18, Z19)

#define GSET8 \
	GSET(Z4, Z5); \
	GSET(Z6, Z7); \
	GSET(Z8, Z9); \
	GSET(Z10, Z11); \
	GSET(Z12, Z13); \
	GSET(Z14, Z15); \
	GSET(Z16, Z17); \
	GSET(Z18, Z19)

// func sgemm8x32g(k int, a, b *float32, offs *int, c *float32, ldc int, add bool)
//
// c[i*ldc+j] += Σ_p a[p*8+i]·b[offs[p]+j] for i < 8, j < 32 and p < k,
// k ≥ 1; without add, c is set to the sums instead, whatever it held.
TEXT ·sgemm8x32g(SB), NOSPLIT, $0-49
	GARGS
	GZERO
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
	GADD8
	VZEROUPPER
	RET

set:
	GSET8
	VZEROUPPER
	RET

// sgemm12x32g is sgemm8x32g for a tile of 12 rows, in 24 accumulators
// Z4 to Z27 (12 floats of a a step), for layers of 12 or 36 output channels
// (a DenseNet's growth), which 8-row tiles would pad by a third or a
// ninth.
#define GSTEP12(aoff) \
	GSTEP(aoff); \
	GROW(aoff+32, Z20, Z21); \
	GROW(aoff+36, Z22, Z23); \
	GROW(aoff+40, Z24, Z25); \
	GROW(aoff+44, Z26, Z27)

// func sgemm12x32g(k int, a, b *float32, offs *int, c *float32, ldc int, add bool)
//
// c[i*ldc+j] += Σ_p a[p*12+i]·b[offs[p]+j] for i < 12, j < 32 and p < k,
// k ≥ 1; without add, c is set to the sums instead, whatever it held.
TEXT ·sgemm12x32g(SB), NOSPLIT, $0-49
	GARGS
	GZERO12
	CMPQ   CX, $4
	JLT    tail12

loop12x4:
	GSTEP12(0)
	GSTEP12(48)
	GSTEP12(96)
	GSTEP12(144)
	ADDQ $192, SI
	SUBQ $4, CX
	CMPQ CX, $4
	JGE  loop12x4

tail12:
	TESTQ CX, CX
	JZ    store12

loop12x1:
	GSTEP12(0)
	ADDQ $48, SI
	DECQ CX
	JNZ  loop12x1

store12:
	MOVBLZX add+48(FP), AX
	TESTL   AX, AX
	JZ      set12
	GADD8
	GADD(Z20, Z21)
	GADD(Z22, Z23)
	GADD(Z24, Z25)
	GADD(Z26, Z27)
	VZEROUPPER
	RET

set12:
	GSET8
	GSET(Z20, Z21)
	GSET(Z22, Z23)
	GSET(Z24, Z25)
	GSET(Z26, Z27)
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

// The weight gradient's shifted dot products (sdot2x3x4): two rows of a,
// each at three shifts s = 0, 1, 2, against four rows of b. A step loads
// 16 floats of a row and the next 16 into Z4, Z5, makes the shifted
// vectors with VALIGND into Z6, Z7, and multiplies the three into the
// accumulators with b's rows, held in Z0–Z3: Z(8+12i+4s+j) for row i,
// shift s, row j of b.
#define SROW(lo, hi, a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3) \
	VMOVUPS     lo, Z4; \
	VMOVUPS     hi, Z5; \
	VALIGND     $1, Z4, Z5, Z6; \
	VALIGND     $2, Z4, Z5, Z7; \
	VFMADD231PS Z0, Z4, a0; \
	VFMADD231PS Z1, Z4, a1; \
	VFMADD231PS Z2, Z4, a2; \
	VFMADD231PS Z3, Z4, a3; \
	VFMADD231PS Z0, Z6, b0; \
	VFMADD231PS Z1, Z6, b1; \
	VFMADD231PS Z2, Z6, b2; \
	VFMADD231PS Z3, Z6, b3; \
	VFMADD231PS Z0, Z7, c0; \
	VFMADD231PS Z1, Z7, c1; \
	VFMADD231PS Z2, Z7, c2; \
	VFMADD231PS Z3, Z7, c3

// Add the lane sums of a, b, c and d to the four floats at R10, using
// Z0–Z3 and the mask K1 = 0x1111: the halves of a and b, and of c and d,
// folded into one vector each (VSHUFF32X4), their quarters into one vector
// of four (A, B, C, D), each quarter summed within itself (VPERMILPS), and
// the first float of each quarter compressed into X1.
#define SSUM4(a, b, c, d) \
	VSHUFF32X4  $0x44, b, a, Z0; \
	VSHUFF32X4  $0xEE, b, a, Z1; \
	VADDPS      Z1, Z0, Z0; \
	VSHUFF32X4  $0x44, d, c, Z2; \
	VSHUFF32X4  $0xEE, d, c, Z3; \
	VADDPS      Z3, Z2, Z2; \
	VSHUFF32X4  $0x88, Z2, Z0, Z1; \
	VSHUFF32X4  $0xDD, Z2, Z0, Z3; \
	VADDPS      Z3, Z1, Z1; \
	VPERMILPS   $0x4E, Z1, Z2; \
	VADDPS      Z2, Z1, Z1; \
	VPERMILPS   $0xB1, Z1, Z2; \
	VADDPS      Z2, Z1, Z1; \
	VCOMPRESSPS Z1, K1, Z2; \
	VADDPS      (R10), X2, X2; \
	VMOVUPS     X2, (R10)

// func sdot2x3x4(kv int, a *float32, lda int, b *float32, ldb int, c *float32, lds, ldi int)
//
// c[s*lds+i*ldi+j] += Σ_{p<16·kv} a[i*lda+p+s]·b[j*ldb+p] for i < 2,
// s < 3, j < 4; kv ≥ 1. It reads 16 floats past each row of a.
TEXT ·sdot2x3x4(SB), NOSPLIT, $0-64
	MOVQ   kv+0(FP), CX
	MOVQ   a+8(FP), SI
	MOVQ   lda+16(FP), R8
	SHLQ   $2, R8
	MOVQ   b+24(FP), DI
	MOVQ   ldb+32(FP), R9
	SHLQ   $2, R9
	LEAQ   (R9)(R9*2), R11
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
	VPXORD Z20, Z20, Z20
	VPXORD Z21, Z21, Z21
	VPXORD Z22, Z22, Z22
	VPXORD Z23, Z23, Z23
	VPXORD Z24, Z24, Z24
	VPXORD Z25, Z25, Z25
	VPXORD Z26, Z26, Z26
	VPXORD Z27, Z27, Z27
	VPXORD Z28, Z28, Z28
	VPXORD Z29, Z29, Z29
	VPXORD Z30, Z30, Z30
	VPXORD Z31, Z31, Z31

sloop:
	VMOVUPS (DI), Z0
	VMOVUPS (DI)(R9*1), Z1
	VMOVUPS (DI)(R9*2), Z2
	VMOVUPS (DI)(R11*1), Z3
	SROW((SI), 64(SI), Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15, Z16, Z17, Z18, Z19)
	SROW((SI)(R8*1), 64(SI)(R8*1), Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  sloop

	MOVQ c+40(FP), DX
	MOVQ lds+48(FP), R12
	SHLQ $2, R12
	MOVQ ldi+56(FP), R13
	SHLQ $2, R13
	MOVL  $0x1111, AX
	KMOVW AX, K1
	MOVQ  DX, R10
	SSUM4(Z8, Z9, Z10, Z11)
	ADDQ  R12, R10
	SSUM4(Z12, Z13, Z14, Z15)
	ADDQ  R12, R10
	SSUM4(Z16, Z17, Z18, Z19)
	LEAQ  (DX)(R13*1), R10
	SSUM4(Z20, Z21, Z22, Z23)
	ADDQ  R12, R10
	SSUM4(Z24, Z25, Z26, Z27)
	ADDQ  R12, R10
	SSUM4(Z28, Z29, Z30, Z31)
	VZEROUPPER
	RET
