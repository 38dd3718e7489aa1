//go:build !noasm

#include "textflag.h"

// Lane indices of the even and odd columns of a 32-float pair of vectors.
DATA pool3even<>+0(SB)/4, $0
DATA pool3even<>+4(SB)/4, $2
DATA pool3even<>+8(SB)/4, $4
DATA pool3even<>+12(SB)/4, $6
DATA pool3even<>+16(SB)/4, $8
DATA pool3even<>+20(SB)/4, $10
DATA pool3even<>+24(SB)/4, $12
DATA pool3even<>+28(SB)/4, $14
DATA pool3even<>+32(SB)/4, $16
DATA pool3even<>+36(SB)/4, $18
DATA pool3even<>+40(SB)/4, $20
DATA pool3even<>+44(SB)/4, $22
DATA pool3even<>+48(SB)/4, $24
DATA pool3even<>+52(SB)/4, $26
DATA pool3even<>+56(SB)/4, $28
DATA pool3even<>+60(SB)/4, $30
GLOBL pool3even<>(SB), RODATA|NOPTR, $64

DATA pool3odd<>+0(SB)/4, $1
DATA pool3odd<>+4(SB)/4, $3
DATA pool3odd<>+8(SB)/4, $5
DATA pool3odd<>+12(SB)/4, $7
DATA pool3odd<>+16(SB)/4, $9
DATA pool3odd<>+20(SB)/4, $11
DATA pool3odd<>+24(SB)/4, $13
DATA pool3odd<>+28(SB)/4, $15
DATA pool3odd<>+32(SB)/4, $17
DATA pool3odd<>+36(SB)/4, $19
DATA pool3odd<>+40(SB)/4, $21
DATA pool3odd<>+44(SB)/4, $23
DATA pool3odd<>+48(SB)/4, $25
DATA pool3odd<>+52(SB)/4, $27
DATA pool3odd<>+56(SB)/4, $29
DATA pool3odd<>+60(SB)/4, $31
GLOBL pool3odd<>(SB), RODATA|NOPTR, $64

// NEGZERO ORs into K2 the lanes of z that hold −0 (the bits 0x80000000,
// broadcast in Z29), using K3.
#define NEGZERO(z) \
	VPCMPEQD Z29, z, K3; \
	KORW     K3, K2, K2

// UNORD ORs into K2 the lanes where a or b is a NaN, using K3.
#define UNORD(a, b) \
	VCMPPS $3, b, a, K3; \
	KORW   K3, K2, K2

// COLS sets e, o and e2 to the even columns 0–30, the odd ones 1–31 and
// the even ones 2–32 of a row held in lo (0–15), hi (16–31) and c32
// (column 32 in lane 0), by the lane indices in Z30 and Z31.
#define COLS(lo, hi, c32, e, o, e2) \
	VMOVAPS   lo, e; \
	VPERMT2PS hi, Z30, e; \
	VMOVAPS   lo, o; \
	VPERMT2PS hi, Z31, o; \
	VALIGND   $1, e, c32, e2

// LOAD3 loads columns 0–15, 16–31 and 32 (lane 0, the rest zero, by the
// mask K1 = 1) of the rows at SI, R8 and R9 into Z0–Z2, Z3–Z5 and Z6–Z8,
// and sets K2 to the lanes where any of them holds a NaN.
#define LOAD3 \
	VMOVUPS   (SI), Z0; \
	VMOVUPS   64(SI), Z1; \
	VMOVUPS.Z 128(SI), K1, Z2; \
	VMOVUPS   (R8), Z3; \
	VMOVUPS   64(R8), Z4; \
	VMOVUPS.Z 128(R8), K1, Z5; \
	VMOVUPS   (R9), Z6; \
	VMOVUPS   64(R9), Z7; \
	VMOVUPS.Z 128(R9), K1, Z8; \
	KXORW     K2, K2, K2; \
	UNORD(Z0, Z3); \
	UNORD(Z1, Z4); \
	UNORD(Z6, Z7); \
	UNORD(Z2, Z5); \
	UNORD(Z8, Z8)

// POOL3ARGS loads a kernel's arguments: the output (named first) into DI,
// the rows into SI, R8 and R9, the groups of 16 into CX, BX cleared for
// the count set; the column indices into Z30, Z31 and the mask K1 = 1.
#define POOL3ARGS(first) \
	MOVQ    first+0(FP), DI; \
	MOVQ    r0+8(FP), SI; \
	MOVQ    r1+16(FP), R8; \
	MOVQ    r2+24(FP), R9; \
	MOVQ    n+32(FP), CX; \
	SHRQ    $4, CX; \
	XORQ    BX, BX; \
	VMOVUPS pool3even<>(SB), Z30; \
	VMOVUPS pool3odd<>(SB), Z31; \
	MOVL    $1, AX; \
	KMOVW   AX, K1

// NEXT3 moves the rows on by a group (32 columns) and counts its 16
// windows.
#define NEXT3 \
	ADDQ $128, SI; \
	ADDQ $128, R8; \
	ADDQ $128, R9; \
	ADDQ $16, BX; \
	DECQ CX

// func maxPool3x3S2F32(y, r0, r1, r2 *float32, n int) int
//
// y[i] = the maximum of r0, r1 and r2 at columns 2i, 2i+1 and 2i+2, for i
// below n rounded down to a multiple of 16, up to the first group of 16
// whose inputs hold a NaN or a −0; returns the count set. A group reads
// 32 columns of each row whole and the 33rd by a masked load: row k must
// hold 2·n + 1 floats.
TEXT ·maxPool3x3S2F32(SB), NOSPLIT, $0-48
	POOL3ARGS(y)
	MOVL         $0x80000000, AX
	VPBROADCASTD AX, Z29

group:
	TESTQ     CX, CX
	JZ        done
	LOAD3
	NEGZERO(Z0)
	NEGZERO(Z1)
	NEGZERO(Z2)
	NEGZERO(Z3)
	NEGZERO(Z4)
	NEGZERO(Z5)
	NEGZERO(Z6)
	NEGZERO(Z7)
	NEGZERO(Z8)
	KORTESTW  K2, K2
	JNZ       done
	// The maxima down the three rows, columns 0–15, 16–31 and 32.
	VMAXPS    Z3, Z0, Z0
	VMAXPS    Z6, Z0, Z0
	VMAXPS    Z4, Z1, Z1
	VMAXPS    Z7, Z1, Z1
	VMAXPS    Z5, Z2, Z2
	VMAXPS    Z8, Z2, Z2
	// Across: the even columns, the odd ones, and the even ones from 2 on.
	COLS(Z0, Z1, Z2, Z9, Z10, Z11)
	VMAXPS    Z10, Z9, Z9
	VMAXPS    Z11, Z9, Z9
	VMOVUPS   Z9, (DI)
	ADDQ      $64, DI
	NEXT3
	JMP       group

done:
	MOVQ BX, ret+40(FP)
	VZEROUPPER
	RET

// FIRST sets the lanes of Z19 where x equals the maximum Z18 to k, using
// K3 and Z20.
#define FIRST(x, k) \
	VCMPPS       $0, Z18, x, K3; \
	MOVL         $k, AX; \
	VPBROADCASTD AX, Z20; \
	VMOVDQA32    Z20, K3, Z19

// func maxPool3x3S2ArgF32(at *uint8, r0, r1, r2 *float32, n int) int
//
// at[i] = the position, 0–8 in row-major order, of the first maximum of
// the window of rows r0, r1, r2 at columns 2i to 2i+2 (as windowArgmax
// picks it), for i below n rounded down to a multiple of 16, up to the
// first group of 16 whose inputs hold a NaN; returns the count set. Rows
// are read as by maxPool3x3S2F32.
TEXT ·maxPool3x3S2ArgF32(SB), NOSPLIT, $0-48
	POOL3ARGS(at)

agroup:
	TESTQ     CX, CX
	JZ        adone
	LOAD3
	KORTESTW  K2, K2
	JNZ       adone
	COLS(Z0, Z1, Z2, Z9, Z10, Z11)
	COLS(Z3, Z4, Z5, Z12, Z13, Z14)
	COLS(Z6, Z7, Z8, Z15, Z16, Z17)
	VMAXPS    Z10, Z9, Z18
	VMAXPS    Z11, Z18, Z18
	VMAXPS    Z12, Z18, Z18
	VMAXPS    Z13, Z18, Z18
	VMAXPS    Z14, Z18, Z18
	VMAXPS    Z15, Z18, Z18
	VMAXPS    Z16, Z18, Z18
	VMAXPS    Z17, Z18, Z18
	// The last position first, then each earlier one that holds the
	// maximum over it.
	MOVL         $8, AX
	VPBROADCASTD AX, Z19
	FIRST(Z16, 7)
	FIRST(Z15, 6)
	FIRST(Z14, 5)
	FIRST(Z13, 4)
	FIRST(Z12, 3)
	FIRST(Z11, 2)
	FIRST(Z10, 1)
	FIRST(Z9, 0)
	VPMOVDB   Z19, (DI)
	ADDQ      $16, DI
	NEXT3
	JMP       agroup

adone:
	MOVQ BX, ret+40(FP)
	VZEROUPPER
	RET
