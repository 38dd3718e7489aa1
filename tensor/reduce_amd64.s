//go:build !noasm

#include "textflag.h"

// func extremesRows(x *float32, rows, k int, flip float32, val, idx *float32)
//
// The largest element of each of rows rows of 1 ≤ k ≤ 16 contiguous
// float32 at x and the index of its first occurrence, one row per vector
// (a masked load, lanes from k on −∞): NaNs count as −∞ for the maximum,
// whose first equal lane is the index, then the value is the element
// there, or NaN if the row has one, and the index 0 if its first element is
// NaN, as Max and ArgMax give. With flip = −0 the elements' signs are
// flipped for the comparisons: the smallest element.
TEXT ·extremesRows(SB), NOSPLIT, $0-48
	MOVQ         x+0(FP), SI
	MOVQ         rows+8(FP), R10
	MOVQ         k+16(FP), CX
	VBROADCASTSS flip+24(FP), Z7
	MOVQ         val+32(FP), DI
	MOVQ         idx+40(FP), R9
	MOVL         $1, AX
	SHLL         CX, AX
	DECL         AX
	KMOVW        AX, K1
	MOVQ         CX, R11
	SHLQ         $2, R11
	MOVL         $0xff800000, AX
	VPBROADCASTD AX, Z8
	MOVL         $0x7fc00000, AX
	MOVL         AX, R12
	TESTQ        R10, R10
	JZ           rdone

rrow:
	VMOVAPS    Z8, Z1
	VMOVUPS    (SI), K1, Z1
	VXORPS     Z7, Z1, K1, Z1
	VCMPPS     $3, Z1, Z1, K2
	VMOVAPS    Z8, K2, Z1
	VSHUFF32X4 $0x4e, Z1, Z1, Z2
	VMAXPS     Z2, Z1, Z2
	VSHUFF32X4 $0xb1, Z2, Z2, Z3
	VMAXPS     Z3, Z2, Z2
	VPERMILPS  $0x4e, Z2, Z3
	VMAXPS     Z3, Z2, Z2
	VPERMILPS  $0xb1, Z2, Z3
	VMAXPS     Z3, Z2, Z2
	VCMPPS     $0, Z2, Z1, K3
	KMOVW      K3, AX
	BSFL       AX, AX
	KMOVW      K2, DX
	XORL       BX, BX
	TESTL      $1, DX
	CMOVLNE    BX, AX
	MOVL       (SI)(AX*4), BX
	TESTL      DX, DX
	CMOVLNE    R12, BX
	MOVL       BX, (DI)
	VCVTSI2SSL AX, X3, X3
	VMOVSS     X3, (R9)
	ADDQ       R11, SI
	ADDQ       $4, DI
	ADDQ       $4, R9
	DECQ       R10
	JNZ        rrow

rdone:
	VZEROUPPER
	RET
