//go:build !noasm

#include "textflag.h"

// One k step of the float32 kernel: B row (16 lanes) in Y0, Y1, DI moved
// to the next row; A column
// element i broadcast and multiplied into accumulators Y(4+2i), Y(5+2i).
#define SROW(off, lo, hi) \
	VBROADCASTSS off(SI), Y2; \
	VFMADD231PS  Y0, Y2, lo; \
	VFMADD231PS  Y1, Y2, hi

#define SROWS(aoff) \
	SROW(aoff, Y4, Y5); \
	SROW(aoff+4, Y6, Y7); \
	SROW(aoff+8, Y8, Y9); \
	SROW(aoff+12, Y10, Y11); \
	SROW(aoff+16, Y12, Y13); \
	SROW(aoff+20, Y14, Y15)

#define SSTEP(aoff) \
	VMOVUPS (DI), Y0; \
	VMOVUPS 32(DI), Y1; \
	ADDQ R9, DI; \
	SROWS(aoff)

// The gather kernel's k step (sgemm6x16g): b's row at R12 plus the next
// offset of the table at R10, in floats.
#define GSTEP(aoff) \
	MOVQ (R10), AX; \
	ADDQ $8, R10; \
	VMOVUPS (R12)(AX*4), Y0; \
	VMOVUPS 32(R12)(AX*4), Y1; \
	SROWS(aoff)

#define SZERO \
	VXORPS Y4, Y4, Y4; \
	VXORPS Y5, Y5, Y5; \
	VXORPS Y6, Y6, Y6; \
	VXORPS Y7, Y7, Y7; \
	VXORPS Y8, Y8, Y8; \
	VXORPS Y9, Y9, Y9; \
	VXORPS Y10, Y10, Y10; \
	VXORPS Y11, Y11, Y11; \
	VXORPS Y12, Y12, Y12; \
	VXORPS Y13, Y13, Y13; \
	VXORPS Y14, Y14, Y14; \
	VXORPS Y15, Y15, Y15

// PREFETCHC asks for the 6 rows of c at DX (stride R8) to be loaded into
// L1 while the k loop runs: each row's first and last of its 64 bytes
// (two lines unless aligned); it uses AX.
#define PREFETCHROW \
	PREFETCHT0 (AX); \
	PREFETCHT0 60(AX); \
	ADDQ       R8, AX

#define PREFETCHC \
	MOVQ DX, AX; \
	PREFETCHROW; \
	PREFETCHROW; \
	PREFETCHROW; \
	PREFETCHROW; \
	PREFETCHROW; \
	PREFETCHROW

// Add the 16 floats of c at AX to the accumulators lo, hi and step AX to
// the next row (SADDC); store them at DX and step DX (SSET).
#define SADDC(lo, hi) \
	VADDPS (AX), lo, lo; \
	VADDPS 32(AX), hi, hi; \
	ADDQ   R8, AX

#define SSET(lo, hi) \
	VMOVUPS lo, (DX); \
	VMOVUPS hi, 32(DX); \
	ADDQ    R8, DX

// SKERNEL runs the float32 kernel's k loop of CX ≥ 1 steps (step: SSTEP
// or GSTEP, A's panel at SI) from zero accumulators, then adds c at DX
// (rows R8 bytes apart) to them if add is set, and stores them there.
#define SKERNEL(step) \
	SZERO; \
	CMPQ CX, $4; \
	JLT  stail; \
sloop4: \
	step(0); \
	step(24); \
	step(48); \
	step(72); \
	ADDQ $96, SI; \
	SUBQ $4, CX; \
	CMPQ CX, $4; \
	JGE  sloop4; \
stail: \
	TESTQ CX, CX; \
	JZ    sstore; \
sloop1: \
	step(0); \
	ADDQ $24, SI; \
	DECQ CX; \
	JNZ  sloop1; \
sstore: \
	MOVBLZX add+48(FP), AX; \
	TESTL   AX, AX; \
	JZ      sset; \
	MOVQ    DX, AX; \
	SADDC(Y4, Y5); \
	SADDC(Y6, Y7); \
	SADDC(Y8, Y9); \
	SADDC(Y10, Y11); \
	SADDC(Y12, Y13); \
	SADDC(Y14, Y15); \
sset: \
	SSET(Y4, Y5); \
	SSET(Y6, Y7); \
	SSET(Y8, Y9); \
	SSET(Y10, Y11); \
	SSET(Y12, Y13); \
	SSET(Y14, Y15)

// func sgemm6x16(k int, a, b *float32, ldb int, c *float32, ldc int, add bool)
//
// c[i*ldc+j] += Σ_p a[p*6+i]·b[p*ldb+j] for i < 6, j < 16; k ≥ 1. Without
// add, c is set to the sums instead, whatever it held.
TEXT ·sgemm6x16(SB), NOSPLIT, $0-49
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ ldb+24(FP), R9
	SHLQ $2, R9
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R8
	SHLQ $2, R8
	PREFETCHC
	SKERNEL(SSTEP)
	VZEROUPPER
	RET

// func sgemm6x16g(k int, a, b *float32, offs *int, c *float32, ldc int, add bool)
//
// The gather kernel of conv_gather.go: c[i*ldc+j] += Σ_p
// a[p*6+i]·b[offs[p]+j] for i < 6, j < 16 and p < k, k ≥ 1, in
// sgemm6x16's order; without add, c is set to the sums instead.
TEXT ·sgemm6x16g(SB), NOSPLIT, $0-49
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), R12
	MOVQ offs+24(FP), R10
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R8
	SHLQ $2, R8
	PREFETCHC
	SKERNEL(GSTEP)
	VZEROUPPER
	RET

// The float64 kernel: 6×8, B row (8 lanes) in Y0, Y1.
#define DROW(off, lo, hi) \
	VBROADCASTSD off(SI), Y2; \
	VFMADD231PD  Y0, Y2, lo; \
	VFMADD231PD  Y1, Y2, hi

#define DSTEP(aoff) \
	VMOVUPD (DI), Y0; \
	VMOVUPD 32(DI), Y1; \
	ADDQ R9, DI; \
	DROW(aoff, Y4, Y5); \
	DROW(aoff+8, Y6, Y7); \
	DROW(aoff+16, Y8, Y9); \
	DROW(aoff+24, Y10, Y11); \
	DROW(aoff+32, Y12, Y13); \
	DROW(aoff+40, Y14, Y15)

#define DSTORE(lo, hi) \
	VADDPD  (DX), lo, lo; \
	VADDPD  32(DX), hi, hi; \
	DSET(lo, hi)

#define DSET(lo, hi) \
	VMOVUPD lo, (DX); \
	VMOVUPD hi, 32(DX); \
	ADDQ    R8, DX

// func dgemm6x8(k int, a, b *float64, ldb int, c *float64, ldc int, add bool)
//
// c[i*ldc+j] += Σ_p a[p*6+i]·b[p*ldb+j] for i < 6, j < 8; k ≥ 1; set
// without add.
TEXT ·dgemm6x8(SB), NOSPLIT, $0-49
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ ldb+24(FP), R9
	SHLQ $3, R9
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R8
	SHLQ $3, R8
	PREFETCHC
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	VXORPD Y14, Y14, Y14
	VXORPD Y15, Y15, Y15
	CMPQ CX, $4
	JLT  dtail

dloop4:
	DSTEP(0)
	DSTEP(48)
	DSTEP(96)
	DSTEP(144)
	ADDQ $192, SI
	SUBQ $4, CX
	CMPQ CX, $4
	JGE  dloop4

dtail:
	TESTQ CX, CX
	JZ    dstore

dloop1:
	DSTEP(0)
	ADDQ $48, SI
	DECQ CX
	JNZ  dloop1

dstore:
	MOVBLZX add+48(FP), AX
	TESTL   AX, AX
	JZ      dset
	DSTORE(Y4, Y5)
	DSTORE(Y6, Y7)
	DSTORE(Y8, Y9)
	DSTORE(Y10, Y11)
	DSTORE(Y12, Y13)
	DSTORE(Y14, Y15)
	VZEROUPPER
	RET

dset:
	DSET(Y4, Y5)
	DSET(Y6, Y7)
	DSET(Y8, Y9)
	DSET(Y10, Y11)
	DSET(Y12, Y13)
	DSET(Y14, Y15)
	VZEROUPPER
	RET

// Dot-product kernels for c += a·bᵀ with both operands read along k: the
// 3×4 accumulators each hold a vector of partial sums, summed across lanes
// at the end. SI, SI+R8, SI+2·R8 are the rows of a; DI, DI+R9, DI+2·R9,
// DI+R10 (= 3·R9) the rows of b.
#define SDOTB(boff, acc0, acc1, acc2) \
	VMOVUPS boff, Y3; \
	VFMADD231PS Y0, Y3, acc0; \
	VFMADD231PS Y1, Y3, acc1; \
	VFMADD231PS Y2, Y3, acc2

// Sum the lanes of acc0..acc3 into X(acc0) = [Σacc0, Σacc1, Σacc2, Σacc3],
// add to the 4 floats at DX, store, and step DX to the next row.
#define SDOTSTORE(acc0, acc1, acc2, acc3, x0) \
	VHADDPS acc1, acc0, acc0; \
	VHADDPS acc3, acc2, acc2; \
	VHADDPS acc2, acc0, acc0; \
	VEXTRACTF128 $1, acc0, X3; \
	VADDPS X3, x0, x0; \
	VADDPS (DX), x0, x0; \
	VMOVUPS x0, (DX); \
	ADDQ R11, DX

// func sdot3x4(kv int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)
//
// c[i*ldc+j] += Σ_{p<8·kv} a[i*lda+p]·b[j*ldb+p] for i < 3, j < 4; kv ≥ 1.
TEXT ·sdot3x4(SB), NOSPLIT, $0-56
	MOVQ kv+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R8
	SHLQ $2, R8
	MOVQ b+24(FP), DI
	MOVQ ldb+32(FP), R9
	SHLQ $2, R9
	LEAQ (R9)(R9*2), R10
	MOVQ c+40(FP), DX
	MOVQ ldc+48(FP), R11
	SHLQ $2, R11
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	VXORPS Y12, Y12, Y12
	VXORPS Y13, Y13, Y13
	VXORPS Y14, Y14, Y14
	VXORPS Y15, Y15, Y15

sdotloop:
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R8*1), Y1
	VMOVUPS (SI)(R8*2), Y2
	SDOTB((DI), Y4, Y8, Y12)
	SDOTB((DI)(R9*1), Y5, Y9, Y13)
	SDOTB((DI)(R9*2), Y6, Y10, Y14)
	SDOTB((DI)(R10*1), Y7, Y11, Y15)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  sdotloop

	SDOTSTORE(Y4, Y5, Y6, Y7, X4)
	SDOTSTORE(Y8, Y9, Y10, Y11, X8)
	SDOTSTORE(Y12, Y13, Y14, Y15, X12)
	VZEROUPPER
	RET

#define DDOTB(boff, acc0, acc1, acc2) \
	VMOVUPD boff, Y3; \
	VFMADD231PD Y0, Y3, acc0; \
	VFMADD231PD Y1, Y3, acc1; \
	VFMADD231PD Y2, Y3, acc2

// acc0 = [a0₀+a0₁, a1₀+a1₁, a0₂+a0₃, a1₂+a1₃], acc2 likewise for acc2, acc3;
// then the two 128-bit halves are crossed and added.
#define DDOTSTORE(acc0, acc1, acc2, acc3) \
	VHADDPD acc1, acc0, acc0; \
	VHADDPD acc3, acc2, acc2; \
	VPERM2F128 $0x21, acc2, acc0, Y3; \
	VBLENDPD $12, acc2, acc0, acc0; \
	VADDPD Y3, acc0, acc0; \
	VADDPD (DX), acc0, acc0; \
	VMOVUPD acc0, (DX); \
	ADDQ R11, DX

// func ddot3x4(kv int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int)
//
// c[i*ldc+j] += Σ_{p<4·kv} a[i*lda+p]·b[j*ldb+p] for i < 3, j < 4; kv ≥ 1.
TEXT ·ddot3x4(SB), NOSPLIT, $0-56
	MOVQ kv+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R8
	SHLQ $3, R8
	MOVQ b+24(FP), DI
	MOVQ ldb+32(FP), R9
	SHLQ $3, R9
	LEAQ (R9)(R9*2), R10
	MOVQ c+40(FP), DX
	MOVQ ldc+48(FP), R11
	SHLQ $3, R11
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	VXORPD Y14, Y14, Y14
	VXORPD Y15, Y15, Y15

ddotloop:
	VMOVUPD (SI), Y0
	VMOVUPD (SI)(R8*1), Y1
	VMOVUPD (SI)(R8*2), Y2
	DDOTB((DI), Y4, Y8, Y12)
	DDOTB((DI)(R9*1), Y5, Y9, Y13)
	DDOTB((DI)(R9*2), Y6, Y10, Y14)
	DDOTB((DI)(R10*1), Y7, Y11, Y15)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  ddotloop

	DDOTSTORE(Y4, Y5, Y6, Y7)
	DDOTSTORE(Y8, Y9, Y10, Y11)
	DDOTSTORE(Y12, Y13, Y14, Y15)
	VZEROUPPER
	RET

// The AVX-512 dot-product kernels: as sdot3x4 and ddot3x4 with ZMM
// registers (64 bytes a step), reusing their stores (store, a macro) once
// the accumulators are folded to YMM.
#define ZDOTB(ld, fma, boff, acc0, acc1, acc2) \
	ld  boff, Z3; \
	fma Z0, Z3, acc0; \
	fma Z1, Z3, acc1; \
	fma Z2, Z3, acc2

#define ZDOT(ld, fma, add, xor, shift, store) \
	MOVQ kv+0(FP), CX; \
	MOVQ a+8(FP), SI; \
	MOVQ lda+16(FP), R8; \
	SHLQ $shift, R8; \
	MOVQ b+24(FP), DI; \
	MOVQ ldb+32(FP), R9; \
	SHLQ $shift, R9; \
	LEAQ (R9)(R9*2), R10; \
	MOVQ c+40(FP), DX; \
	MOVQ ldc+48(FP), R11; \
	SHLQ $shift, R11; \
	xor Z4, Z4, Z4; \
	xor Z5, Z5, Z5; \
	xor Z6, Z6, Z6; \
	xor Z7, Z7, Z7; \
	xor Z8, Z8, Z8; \
	xor Z9, Z9, Z9; \
	xor Z10, Z10, Z10; \
	xor Z11, Z11, Z11; \
	xor Z12, Z12, Z12; \
	xor Z13, Z13, Z13; \
	xor Z14, Z14, Z14; \
	xor Z15, Z15, Z15; \
loop: \
	ld   (SI), Z0; \
	ld   (SI)(R8*1), Z1; \
	ld   (SI)(R8*2), Z2; \
	ZDOTB(ld, fma, (DI), Z4, Z8, Z12); \
	ZDOTB(ld, fma, (DI)(R9*1), Z5, Z9, Z13); \
	ZDOTB(ld, fma, (DI)(R9*2), Z6, Z10, Z14); \
	ZDOTB(ld, fma, (DI)(R10*1), Z7, Z11, Z15); \
	ADDQ $64, SI; \
	ADDQ $64, DI; \
	DECQ CX; \
	JNZ  loop; \
	VEXTRACTF64X4 $1, Z4, Y3; \
	add Y3, Y4, Y4; \
	VEXTRACTF64X4 $1, Z5, Y3; \
	add Y3, Y5, Y5; \
	VEXTRACTF64X4 $1, Z6, Y3; \
	add Y3, Y6, Y6; \
	VEXTRACTF64X4 $1, Z7, Y3; \
	add Y3, Y7, Y7; \
	VEXTRACTF64X4 $1, Z8, Y3; \
	add Y3, Y8, Y8; \
	VEXTRACTF64X4 $1, Z9, Y3; \
	add Y3, Y9, Y9; \
	VEXTRACTF64X4 $1, Z10, Y3; \
	add Y3, Y10, Y10; \
	VEXTRACTF64X4 $1, Z11, Y3; \
	add Y3, Y11, Y11; \
	VEXTRACTF64X4 $1, Z12, Y3; \
	add Y3, Y12, Y12; \
	VEXTRACTF64X4 $1, Z13, Y3; \
	add Y3, Y13, Y13; \
	VEXTRACTF64X4 $1, Z14, Y3; \
	add Y3, Y14, Y14; \
	VEXTRACTF64X4 $1, Z15, Y3; \
	add Y3, Y15, Y15; \
	store(); \
	VZEROUPPER; \
	RET

#define SDOTSTORE3() \
	SDOTSTORE(Y4, Y5, Y6, Y7, X4); \
	SDOTSTORE(Y8, Y9, Y10, Y11, X8); \
	SDOTSTORE(Y12, Y13, Y14, Y15, X12)

#define DDOTSTORE3() \
	DDOTSTORE(Y4, Y5, Y6, Y7); \
	DDOTSTORE(Y8, Y9, Y10, Y11); \
	DDOTSTORE(Y12, Y13, Y14, Y15)

// func sdot3x4z(kv int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)
//
// c[i*ldc+j] += Σ_{p<16·kv} a[i*lda+p]·b[j*ldb+p] for i < 3, j < 4; kv ≥ 1.
TEXT ·sdot3x4z(SB), NOSPLIT, $0-56
	ZDOT(VMOVUPS, VFMADD231PS, VADDPS, VPXORD, 2, SDOTSTORE3)

// func ddot3x4z(kv int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int)
//
// c[i*ldc+j] += Σ_{p<8·kv} a[i*lda+p]·b[j*ldb+p] for i < 3, j < 4; kv ≥ 1.
TEXT ·ddot3x4z(SB), NOSPLIT, $0-56
	ZDOT(VMOVUPD, VFMADD231PD, VADDPD, VPXORQ, 3, DDOTSTORE3)

// func interleave4x8F32(dst *float32, w int, src *float32, ld int, n8 int, alpha float32)
//
// dst[p*w+i] = alpha·src[i*ld+p] for i < 4, p < 8·n8, n8 ≥ 1: four rows of
// src, 8 columns at a time, transposed in registers (unpack, then shuffle:
// lane halves hold columns p..p+3 and p+4..p+7) and stored 4 floats a row
// of dst.
TEXT ·interleave4x8F32(SB), NOSPLIT, $0-44
	MOVQ         dst+0(FP), DI
	MOVQ         w+8(FP), R8
	SHLQ         $2, R8
	MOVQ         src+16(FP), SI
	MOVQ         ld+24(FP), R9
	SHLQ         $2, R9
	MOVQ         n8+32(FP), CX
	VBROADCASTSS alpha+40(FP), Y15
	LEAQ         (R9)(R9*2), R10
	LEAQ         (R8)(R8*2), R11

iloop:
	VMULPS       (SI), Y15, Y0
	VMULPS       (SI)(R9*1), Y15, Y1
	VMULPS       (SI)(R9*2), Y15, Y2
	VMULPS       (SI)(R10*1), Y15, Y3
	VUNPCKLPS    Y1, Y0, Y4
	VUNPCKHPS    Y1, Y0, Y5
	VUNPCKLPS    Y3, Y2, Y6
	VUNPCKHPS    Y3, Y2, Y7
	VSHUFPS      $0x44, Y6, Y4, Y8
	VSHUFPS      $0xEE, Y6, Y4, Y9
	VSHUFPS      $0x44, Y7, Y5, Y10
	VSHUFPS      $0xEE, Y7, Y5, Y11
	VMOVUPS      X8, (DI)
	VMOVUPS      X9, (DI)(R8*1)
	VMOVUPS      X10, (DI)(R8*2)
	VMOVUPS      X11, (DI)(R11*1)
	LEAQ         (DI)(R8*4), AX
	VEXTRACTF128 $1, Y8, (AX)
	VEXTRACTF128 $1, Y9, (AX)(R8*1)
	VEXTRACTF128 $1, Y10, (AX)(R8*2)
	VEXTRACTF128 $1, Y11, (AX)(R11*1)
	LEAQ         (AX)(R8*4), DI
	ADDQ         $32, SI
	DECQ         CX
	JNZ          iloop
	VZEROUPPER
	RET

// func interleave4x4F64(dst *float64, w int, src *float64, ld int, n4 int, alpha float64)
//
// dst[p*w+i] = alpha·src[i*ld+p] for i < 4, p < 4·n4, n4 ≥ 1: as
// interleave4x8F32, 4 columns at a time, the lane halves crossed by
// VPERM2F128.
TEXT ·interleave4x4F64(SB), NOSPLIT, $0-48
	MOVQ         dst+0(FP), DI
	MOVQ         w+8(FP), R8
	SHLQ         $3, R8
	MOVQ         src+16(FP), SI
	MOVQ         ld+24(FP), R9
	SHLQ         $3, R9
	MOVQ         n4+32(FP), CX
	VBROADCASTSD alpha+40(FP), Y15
	LEAQ         (R9)(R9*2), R10
	LEAQ         (R8)(R8*2), R11

dloopi:
	VMULPD     (SI), Y15, Y0
	VMULPD     (SI)(R9*1), Y15, Y1
	VMULPD     (SI)(R9*2), Y15, Y2
	VMULPD     (SI)(R10*1), Y15, Y3
	VUNPCKLPD  Y1, Y0, Y4
	VUNPCKHPD  Y1, Y0, Y5
	VUNPCKLPD  Y3, Y2, Y6
	VUNPCKHPD  Y3, Y2, Y7
	VPERM2F128 $0x20, Y6, Y4, Y8
	VPERM2F128 $0x20, Y7, Y5, Y9
	VPERM2F128 $0x31, Y6, Y4, Y10
	VPERM2F128 $0x31, Y7, Y5, Y11
	VMOVUPD    Y8, (DI)
	VMOVUPD    Y9, (DI)(R8*1)
	VMOVUPD    Y10, (DI)(R8*2)
	VMOVUPD    Y11, (DI)(R11*1)
	LEAQ       (DI)(R8*4), DI
	ADDQ       $32, SI
	DECQ       CX
	JNZ        dloopi
	VZEROUPPER
	RET
