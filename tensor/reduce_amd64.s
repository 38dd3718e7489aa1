//go:build !noasm

#include "textflag.h"

// func extremes16(x *float32, rows, k int, flip float32, val, idx *float32)
//
// The largest element of each of rows (a multiple of 16) rows of k ≥ 1
// contiguous float32 at x, and the index of its first occurrence, 16 rows
// per vector (gathered by column). NaN: the value is NaN if any element
// is; the index ignores NaNs (so it is 0 when the first element is NaN),
// as ArgMax does. With flip = −0 the elements' signs are flipped on the
// way in and the value's on the way out: the smallest element.
TEXT ·extremes16(SB), NOSPLIT, $0-48
	MOVQ         x+0(FP), SI
	MOVQ         rows+8(FP), CX
	MOVQ         k+16(FP), R8
	VBROADCASTSS flip+24(FP), Z7
	MOVQ         val+32(FP), DI
	MOVQ         idx+40(FP), R9
	MOVQ         R8, AX
	SHLQ         $6, AX              // 16·k·4 bytes per 16 rows
	VPBROADCASTD R8, Z6
	MOVL         $1, DX
	VPBROADCASTD DX, Z8              // 1 (int32)
	MOVL         $0x7fc00000, DX
	VPBROADCASTD DX, Z10             // NaN

xrows:
	TESTQ CX, CX
	JZ    xdone
	// the indices of column 0 of the 16 rows: lane·k
	VMOVDQU32 xiota<>(SB), Z5
	VPMULLD   Z6, Z5, Z5
	KXNORW    K2, K2, K2
	VGATHERDPS (SI)(Z5*4), K2, Z1
	VXORPS    Z7, Z1, Z1
	VMOVAPS   Z1, Z2                 // best
	VXORPS    Z3, Z3, Z3             // its column (float)
	VCMPPS    $3, Z1, Z1, K3         // NaN lanes
	VXORPS    Z4, Z4, Z4             // column counter (float)
	VBROADCASTSS xone<>(SB), Z11
	MOVQ      $1, DX

xcol:
	CMPQ       DX, R8
	JGE        xstore
	VPADDD     Z8, Z5, Z5
	VADDPS     Z11, Z4, Z4
	KXNORW     K2, K2, K2
	VGATHERDPS (SI)(Z5*4), K2, Z1
	VXORPS     Z7, Z1, Z1
	VCMPPS     $30, Z2, Z1, K1       // x > best, ordered
	VMOVAPS    Z1, K1, Z2
	VMOVAPS    Z4, K1, Z3
	VCMPPS     $3, Z1, Z1, K4
	KORW       K4, K3, K3
	INCQ       DX
	JMP        xcol

xstore:
	VMOVAPS Z10, K3, Z2
	VXORPS  Z7, Z2, Z2
	VMOVUPS Z2, (DI)
	VMOVUPS Z3, (R9)
	ADDQ    AX, SI
	ADDQ    $64, DI
	ADDQ    $64, R9
	SUBQ    $16, CX
	JMP     xrows

xdone:
	VZEROUPPER
	RET

DATA xiota<>+0(SB)/4, $0
DATA xiota<>+4(SB)/4, $1
DATA xiota<>+8(SB)/4, $2
DATA xiota<>+12(SB)/4, $3
DATA xiota<>+16(SB)/4, $4
DATA xiota<>+20(SB)/4, $5
DATA xiota<>+24(SB)/4, $6
DATA xiota<>+28(SB)/4, $7
DATA xiota<>+32(SB)/4, $8
DATA xiota<>+36(SB)/4, $9
DATA xiota<>+40(SB)/4, $10
DATA xiota<>+44(SB)/4, $11
DATA xiota<>+48(SB)/4, $12
DATA xiota<>+52(SB)/4, $13
DATA xiota<>+56(SB)/4, $14
DATA xiota<>+60(SB)/4, $15
GLOBL xiota<>(SB), RODATA|NOPTR, $64

DATA xone<>+0(SB)/4, $1.0
GLOBL xone<>(SB), RODATA|NOPTR, $4
