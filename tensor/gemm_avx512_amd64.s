//go:build !noasm

#include "textflag.h"

// The AVX-512 micro-kernels: a tile of 12 (or 6) rows of c in 24 (12) ZMM
// accumulators, Z(4+2i) and Z(5+2i) for row i, two vectors wide (32 floats
// or 16 doubles). Each k step loads the row of b into Z0, Z1, moves DI to
// the next row (R9 bytes on), and broadcasts the elements of the column of
// a at SI (sz bytes each; the packed panel has 12 per step whichever the
// rows) into Z2 to multiply into the row accumulators. The macros take the
// broadcast, load, add and FMA instructions, so that one text serves
// float32 and float64; those named …0 handle rows 0–5, …1 rows 6–11, and
// the ZNONE… ones stand for the …1 ones in the 6-row kernels.
#define ZROW(bc, fma, off, lo, hi) \
	bc   off(SI), Z2; \
	fma  Z0, Z2, lo; \
	fma  Z1, Z2, hi

#define ZLOADB(ld) \
	ld   (DI), Z0; \
	ld   64(DI), Z1; \
	ADDQ R9, DI

#define ZFMA0(bc, fma, sz, aoff) \
	ZROW(bc, fma, aoff+0*sz, Z4, Z5); \
	ZROW(bc, fma, aoff+1*sz, Z6, Z7); \
	ZROW(bc, fma, aoff+2*sz, Z8, Z9); \
	ZROW(bc, fma, aoff+3*sz, Z10, Z11); \
	ZROW(bc, fma, aoff+4*sz, Z12, Z13); \
	ZROW(bc, fma, aoff+5*sz, Z14, Z15)

#define ZFMA1(bc, fma, sz, aoff) \
	ZROW(bc, fma, aoff+6*sz, Z16, Z17); \
	ZROW(bc, fma, aoff+7*sz, Z18, Z19); \
	ZROW(bc, fma, aoff+8*sz, Z20, Z21); \
	ZROW(bc, fma, aoff+9*sz, Z22, Z23); \
	ZROW(bc, fma, aoff+10*sz, Z24, Z25); \
	ZROW(bc, fma, aoff+11*sz, Z26, Z27)

// One k step: b's row, then the rows of the tile (fma1: ZFMA1 or ZNONE4).
#define ZSTEP(bc, ld, fma, sz, aoff, fma1) \
	ZLOADB(ld); \
	ZFMA0(bc, fma, sz, aoff); \
	fma1(bc, fma, sz, aoff)

// Add the accumulators to c at DX (ZADD) or store them there (ZSET), one
// row of c (R8 bytes) after another.
#define ZADD(add, st, lo, hi) \
	add  (DX), lo, lo; \
	add  64(DX), hi, hi; \
	ZSET(st, lo, hi)

#define ZSET(st, lo, hi) \
	st   lo, (DX); \
	st   hi, 64(DX); \
	ADDQ R8, DX

#define ZADD0(add, st) \
	ZADD(add, st, Z4, Z5); \
	ZADD(add, st, Z6, Z7); \
	ZADD(add, st, Z8, Z9); \
	ZADD(add, st, Z10, Z11); \
	ZADD(add, st, Z12, Z13); \
	ZADD(add, st, Z14, Z15)

#define ZADD1(add, st) \
	ZADD(add, st, Z16, Z17); \
	ZADD(add, st, Z18, Z19); \
	ZADD(add, st, Z20, Z21); \
	ZADD(add, st, Z22, Z23); \
	ZADD(add, st, Z24, Z25); \
	ZADD(add, st, Z26, Z27)

#define ZSET0(st) \
	ZSET(st, Z4, Z5); \
	ZSET(st, Z6, Z7); \
	ZSET(st, Z8, Z9); \
	ZSET(st, Z10, Z11); \
	ZSET(st, Z12, Z13); \
	ZSET(st, Z14, Z15)

#define ZSET1(st) \
	ZSET(st, Z16, Z17); \
	ZSET(st, Z18, Z19); \
	ZSET(st, Z20, Z21); \
	ZSET(st, Z22, Z23); \
	ZSET(st, Z24, Z25); \
	ZSET(st, Z26, Z27)

#define ZCLEAR0(xor) \
	xor Z4, Z4, Z4; xor Z5, Z5, Z5; \
	xor Z6, Z6, Z6; xor Z7, Z7, Z7; \
	xor Z8, Z8, Z8; xor Z9, Z9, Z9; \
	xor Z10, Z10, Z10; xor Z11, Z11, Z11; \
	xor Z12, Z12, Z12; xor Z13, Z13, Z13; \
	xor Z14, Z14, Z14; xor Z15, Z15, Z15

#define ZCLEAR1(xor) \
	xor Z16, Z16, Z16; xor Z17, Z17, Z17; \
	xor Z18, Z18, Z18; xor Z19, Z19, Z19; \
	xor Z20, Z20, Z20; xor Z21, Z21, Z21; \
	xor Z22, Z22, Z22; xor Z23, Z23, Z23; \
	xor Z24, Z24, Z24; xor Z25, Z25, Z25; \
	xor Z26, Z26, Z26; xor Z27, Z27, Z27

// Prefetch 6 rows of c from AX on, leaving AX past them.
#define ZPREFETCH6() \
	PREFETCHT0 (AX); \
	PREFETCHT0 64(AX); \
	ADDQ R8, AX; \
	PREFETCHT0 (AX); \
	PREFETCHT0 64(AX); \
	ADDQ R8, AX; \
	PREFETCHT0 (AX); \
	PREFETCHT0 64(AX); \
	ADDQ R8, AX; \
	PREFETCHT0 (AX); \
	PREFETCHT0 64(AX); \
	ADDQ R8, AX; \
	PREFETCHT0 (AX); \
	PREFETCHT0 64(AX); \
	ADDQ R8, AX; \
	PREFETCHT0 (AX); \
	PREFETCHT0 64(AX); \
	ADDQ R8, AX

#define ZNONE0()
#define ZNONE1(x)
#define ZNONE2(x, y)
#define ZNONE4(x, y, z, w)

// The kernel: arguments to registers (shift = log2 of the element size),
// c prefetched, accumulators cleared, k steps 4 at a time then one at a
// time, and the tile added to or stored in c. The last five arguments are
// the …1 macros, or ZNONE… for a 6-row kernel.
#define ZKERNEL(bc, ld, fma, add, st, xor, sz, shift, pf1, clear1, fma1, add1, set1) \
	MOVQ    k+0(FP), CX; \
	MOVQ    a+8(FP), SI; \
	MOVQ    b+16(FP), DI; \
	MOVQ    ldb+24(FP), R9; \
	SHLQ    $shift, R9; \
	MOVQ    c+32(FP), DX; \
	MOVQ    ldc+40(FP), R8; \
	SHLQ    $shift, R8; \
	MOVQ    DX, AX; \
	ZPREFETCH6(); \
	pf1(); \
	ZCLEAR0(xor); \
	clear1(xor); \
	CMPQ    CX, $4; \
	JLT     tail; \
loop4: \
	ZSTEP(bc, ld, fma, sz, 0, fma1); \
	ZSTEP(bc, ld, fma, sz, 12*sz, fma1); \
	ZSTEP(bc, ld, fma, sz, 24*sz, fma1); \
	ZSTEP(bc, ld, fma, sz, 36*sz, fma1); \
	ADDQ    $(48*sz), SI; \
	SUBQ    $4, CX; \
	CMPQ    CX, $4; \
	JGE     loop4; \
tail: \
	TESTQ   CX, CX; \
	JZ      store; \
loop1: \
	ZSTEP(bc, ld, fma, sz, 0, fma1); \
	ADDQ    $(12*sz), SI; \
	DECQ    CX; \
	JNZ     loop1; \
store: \
	MOVBLZX add+48(FP), AX; \
	TESTL   AX, AX; \
	JZ      set; \
	ZADD0(add, st); \
	add1(add, st); \
	VZEROUPPER; \
	RET; \
set: \
	ZSET0(st); \
	set1(st); \
	VZEROUPPER; \
	RET

// func sgemm12x32(k int, a, b *float32, ldb int, c *float32, ldc int, add bool)
// func sgemm6x32(k int, a, b *float32, ldb int, c *float32, ldc int, add bool)
// func dgemm12x16(k int, a, b *float64, ldb int, c *float64, ldc int, add bool)
// func dgemm6x16(k int, a, b *float64, ldb int, c *float64, ldc int, add bool)
//
// c[i*ldc+j] += Σ_p a[p*12+i]·b[p*ldb+j] for i below the rows (12 or 6)
// and j below the columns (32 floats, 16 doubles); k ≥ 1. Without add, c
// is set to the sums instead, whatever it held.
TEXT ·sgemm12x32(SB), NOSPLIT, $0-49
	ZKERNEL(VBROADCASTSS, VMOVUPS, VFMADD231PS, VADDPS, VMOVUPS, VPXORD, 4, 2, ZPREFETCH6, ZCLEAR1, ZFMA1, ZADD1, ZSET1)

TEXT ·sgemm6x32(SB), NOSPLIT, $0-49
	ZKERNEL(VBROADCASTSS, VMOVUPS, VFMADD231PS, VADDPS, VMOVUPS, VPXORD, 4, 2, ZNONE0, ZNONE1, ZNONE4, ZNONE2, ZNONE1)

TEXT ·dgemm12x16(SB), NOSPLIT, $0-49
	ZKERNEL(VBROADCASTSD, VMOVUPD, VFMADD231PD, VADDPD, VMOVUPD, VPXORQ, 8, 3, ZPREFETCH6, ZCLEAR1, ZFMA1, ZADD1, ZSET1)

TEXT ·dgemm6x16(SB), NOSPLIT, $0-49
	ZKERNEL(VBROADCASTSD, VMOVUPD, VFMADD231PD, VADDPD, VMOVUPD, VPXORQ, 8, 3, ZNONE0, ZNONE1, ZNONE4, ZNONE2, ZNONE1)
