//go:build !noasm

#include "textflag.h"

// The AVX2 transforms of F(4×4, 3×3) (winograd.go) on up to 8 tiles of one
// tile row at once, one tile a lane, rounded as the Go transforms
// (inputRow4, outputRow4: the same operations in the same order, no FMA),
// as the AVX-512 ones (winograd_avx512_amd64.s) on 16. Masks are vectors
// of 8 int32s, a lane taken where its sign bit is set: the columns a row
// is read or written at, the lanes (tiles) the transformed values are read
// or written at.

// Lane numbers 1 to 7 and 0 for VPERMPS: a vector moved down a lane.
DATA winoNext<>+0(SB)/8, $0x0000000200000001
DATA winoNext<>+8(SB)/8, $0x0000000400000003
DATA winoNext<>+16(SB)/8, $0x0000000600000005
DATA winoNext<>+24(SB)/8, $0x0000000000000007
GLOBL winoNext<>(SB), RODATA|NOPTR, $32

// Zeros the input reads for its rows outside the plane.
GLOBL winoZero8<>(SB), RODATA|NOPTR, $160

// BT6Y(st, m0, ..., m5) stores inputRow4 of Y0..Y5 (d0..d5) to m0..m5 by
// st (VSTORE or MSTORE); Y13, Y14 and Y15 hold 4, 5 and 2, Y6..Y8 are
// scratch.
#define BT6Y(st, m0, m1, m2, m3, m4, m5) \
	VMULPS Y13, Y0, Y6; \
	VMULPS Y14, Y2, Y7; \
	VSUBPS Y7, Y6, Y6; \
	VADDPS Y4, Y6, Y6; \
	st(Y6, m0); \
	VADDPS Y2, Y1, Y6; \
	VMULPS Y13, Y6, Y6; \
	VADDPS Y3, Y4, Y7; \
	VSUBPS Y6, Y7, Y7; \
	st(Y7, m1); \
	VSUBPS Y2, Y1, Y6; \
	VMULPS Y13, Y6, Y6; \
	VSUBPS Y3, Y4, Y7; \
	VADDPS Y6, Y7, Y7; \
	st(Y7, m2); \
	VSUBPS Y2, Y4, Y6; \
	VSUBPS Y1, Y3, Y7; \
	VMULPS Y15, Y7, Y7; \
	VADDPS Y7, Y6, Y8; \
	st(Y8, m3); \
	VSUBPS Y7, Y6, Y8; \
	st(Y8, m4); \
	VMULPS Y13, Y1, Y6; \
	VMULPS Y14, Y3, Y7; \
	VSUBPS Y7, Y6, Y6; \
	VADDPS Y5, Y6, Y6; \
	st(Y6, m5)

// A store of a whole vector (VSTORE), or of the lanes of the mask in Y12
// (MSTORE).
#define VSTORE(y, m) VMOVUPS y, m
#define MSTORE(y, m) VMASKMOVPS y, Y12, m

// INROW8(i) sets Y0..Y5 to elements 4t+j, j < 6, t < 8, of input row i at
// AX (34 floats; the zeros at BX for a row outside the plane, bit i of R11
// clear), read under the column masks at R14 (5 vectors, elements 0 to
// 39): the four vectors of two tiles each regrouped by 128-bit halves
// into four of tiles t and t+4, then transposed within the halves into
// j = 0 to 3; j = 4 and 5 are j = 0 and 1 moved down a lane, elements 32
// and 33 entering. Then moves AX a row (R8) on.
#define INROW8(i) \
	MOVQ       AX, DX; \
	BTQ        $i, R11; \
	CMOVQCC    BX, DX; \
	VMOVDQU    (R14), Y8; \
	VMASKMOVPS (DX), Y8, Y0; \
	VMOVDQU    32(R14), Y8; \
	VMASKMOVPS 32(DX), Y8, Y1; \
	VMOVDQU    64(R14), Y8; \
	VMASKMOVPS 64(DX), Y8, Y2; \
	VMOVDQU    96(R14), Y8; \
	VMASKMOVPS 96(DX), Y8, Y3; \
	VMOVDQU    128(R14), Y8; \
	VMASKMOVPS 128(DX), Y8, Y4; \
	VPERM2F128 $0x20, Y2, Y0, Y5; \
	VPERM2F128 $0x31, Y2, Y0, Y6; \
	VPERM2F128 $0x20, Y3, Y1, Y7; \
	VPERM2F128 $0x31, Y3, Y1, Y8; \
	VUNPCKLPS  Y6, Y5, Y9; \
	VUNPCKLPS  Y8, Y7, Y10; \
	VUNPCKHPS  Y6, Y5, Y11; \
	VUNPCKHPS  Y8, Y7, Y12; \
	VUNPCKLPD  Y10, Y9, Y0; \
	VUNPCKHPD  Y10, Y9, Y1; \
	VUNPCKLPD  Y12, Y11, Y2; \
	VUNPCKHPD  Y12, Y11, Y3; \
	VMOVDQU    winoNext<>(SB), Y5; \
	VPERMPS    Y0, Y5, Y6; \
	VPERMPS    Y1, Y5, Y7; \
	VBROADCASTSS X4, Y8; \
	VPERMILPS  $0x55, Y4, Y9; \
	VBROADCASTSS X9, Y9; \
	VBLENDPS   $0x80, Y8, Y6, Y4; \
	VBLENDPS   $0x80, Y9, Y7, Y5; \
	ADDQ       R8, AX

// INCOL8(st, off) transforms column k of the row transforms (stack offset
// off = 32k) into positions k + 6i of v, at (BX), (BX)(R13*1),
// (BX)(R13*2), (DX), (DX)(R13*1), (DX)(R13*2) (BX position k, R13 six
// positions, DX BX + 3·R13), stored by st, and moves BX, DX to position
// k+1 (R9 on).
#define INCOL8(st, off) \
	VMOVUPS off(SP), Y0; \
	VMOVUPS off+192(SP), Y1; \
	VMOVUPS off+384(SP), Y2; \
	VMOVUPS off+576(SP), Y3; \
	VMOVUPS off+768(SP), Y4; \
	VMOVUPS off+960(SP), Y5; \
	BT6Y(st, (BX), (BX)(R13*1), (BX)(R13*2), (DX), (DX)(R13*1), (DX)(R13*2)); \
	ADDQ R9, BX; \
	LEAQ (BX)(R13*2), DX; \
	ADDQ R13, DX

// INCOLS8(st) is INCOL8 for the six columns, from v's position 0 at DI.
#define INCOLS8(st) \
	MOVQ DI, BX; \
	LEAQ (BX)(R13*2), DX; \
	ADDQ R13, DX; \
	INCOL8(st, 0); \
	INCOL8(st, 32); \
	INCOL8(st, 64); \
	INCOL8(st, 96); \
	INCOL8(st, 128); \
	INCOL8(st, 160)

// func winogradInput4AVX2(x *float32, off, ldx, plane, c int, rows uint64, masks *int32, full bool, v *float32, ldc, ldxi int)
//
// For each channel: each of the 6 rows deinterleaved (INROW8) and
// transformed (d·B) onto the stack, 6 vectors a row; then each column
// (Bᵀ·) into v's 36 positions, whole vectors if full, else the lanes of
// the mask at masks+160 (after the 5 column masks).
TEXT ·winogradInput4AVX2(SB), 0, $1152-88
	MOVQ         x+0(FP), SI
	MOVQ         off+8(FP), AX
	LEAQ         (SI)(AX*4), SI
	MOVQ         ldx+16(FP), R8
	SHLQ         $2, R8
	MOVQ         plane+24(FP), R10
	SHLQ         $2, R10
	MOVQ         c+32(FP), CX
	MOVQ         rows+40(FP), R11
	MOVQ         masks+48(FP), R14
	MOVQ         v+64(FP), DI
	MOVQ         ldc+72(FP), R12
	SHLQ         $2, R12
	MOVQ         ldxi+80(FP), R9
	SHLQ         $2, R9
	LEAQ         (R9)(R9*2), R13
	SHLQ         $1, R13
	MOVL         $0x40800000, AX
	MOVQ         AX, X13
	VBROADCASTSS X13, Y13
	MOVL         $0x40a00000, AX
	MOVQ         AX, X14
	VBROADCASTSS X14, Y14
	MOVL         $0x40000000, AX
	MOVQ         AX, X15
	VBROADCASTSS X15, Y15

inchan:
	MOVQ SI, AX
	LEAQ winoZero8<>(SB), BX
	INROW8(0)
	BT6Y(VSTORE, 0(SP), 32(SP), 64(SP), 96(SP), 128(SP), 160(SP))
	INROW8(1)
	BT6Y(VSTORE, 192(SP), 224(SP), 256(SP), 288(SP), 320(SP), 352(SP))
	INROW8(2)
	BT6Y(VSTORE, 384(SP), 416(SP), 448(SP), 480(SP), 512(SP), 544(SP))
	INROW8(3)
	BT6Y(VSTORE, 576(SP), 608(SP), 640(SP), 672(SP), 704(SP), 736(SP))
	INROW8(4)
	BT6Y(VSTORE, 768(SP), 800(SP), 832(SP), 864(SP), 896(SP), 928(SP))
	INROW8(5)
	BT6Y(VSTORE, 960(SP), 992(SP), 1024(SP), 1056(SP), 1088(SP), 1120(SP))
	MOVBLZX full+56(FP), AX
	TESTL   AX, AX
	JZ      inpart
	INCOLS8(VSTORE)
	JMP     innext

inpart:
	VMOVDQU 160(R14), Y12
	INCOLS8(MSTORE)

innext:
	ADDQ R10, SI
	ADDQ R12, DI
	DECQ CX
	JNZ  inchan
	VZEROUPPER
	RET

// AT4Y sets Y6, Y9, Y11, Y8 to outputRow4 of Y0..Y5 (s0..s5); Y13, Y14
// and Y15 hold 2, 4 and 8, Y7 and Y10 are scratch.
#define AT4Y \
	VADDPS Y1, Y0, Y6; \
	VADDPS Y2, Y6, Y6; \
	VADDPS Y3, Y6, Y6; \
	VADDPS Y4, Y6, Y6; \
	VSUBPS Y2, Y1, Y7; \
	VSUBPS Y4, Y3, Y8; \
	VMULPS Y13, Y8, Y9; \
	VADDPS Y9, Y7, Y9; \
	VADDPS Y2, Y1, Y10; \
	VADDPS Y4, Y3, Y11; \
	VMULPS Y14, Y11, Y11; \
	VADDPS Y11, Y10, Y11; \
	VMULPS Y15, Y8, Y8; \
	VADDPS Y8, Y7, Y8; \
	VADDPS Y5, Y8, Y8

// OUTCOL8(off) transforms column j of the channel's M (positions j + 6i
// at BX, DX as for INCOL8, read under the lanes mask in Y12) by Aᵀ onto
// the stack at off = 32j, a row of 6 vectors for each of the 4 rows, and
// moves BX, DX to column j+1.
#define OUTCOL8(off) \
	VMASKMOVPS (BX), Y12, Y0; \
	VMASKMOVPS (BX)(R13*1), Y12, Y1; \
	VMASKMOVPS (BX)(R13*2), Y12, Y2; \
	VMASKMOVPS (DX), Y12, Y3; \
	VMASKMOVPS (DX)(R13*1), Y12, Y4; \
	VMASKMOVPS (DX)(R13*2), Y12, Y5; \
	AT4Y; \
	VMOVUPS Y6, off(SP); \
	VMOVUPS Y9, off+192(SP); \
	VMOVUPS Y11, off+384(SP); \
	VMOVUPS Y8, off+576(SP); \
	ADDQ    R9, BX; \
	LEAQ    (BX)(R13*2), DX; \
	ADDQ    R13, DX

// OUTROW8(st, off, i) transforms row i of Aᵀ·M (stack offset off = 192i)
// by A, adds the bias (Y12), interleaves the 4 outputs of the 8 tiles
// (two 4×4 transposes within the 128-bit halves, then the halves
// regrouped) and stores them by st (VSTORE, or OSTORE under the column
// masks at R14) as 32 floats at AX (to the stack's spare 128 bytes
// instead for a row outside the plane, bit i of BX clear), then moves AX a
// row (R8) on.
#define OUTROW8(st, off, i) \
	VMOVUPS    off(SP), Y0; \
	VMOVUPS    off+32(SP), Y1; \
	VMOVUPS    off+64(SP), Y2; \
	VMOVUPS    off+96(SP), Y3; \
	VMOVUPS    off+128(SP), Y4; \
	VMOVUPS    off+160(SP), Y5; \
	AT4Y; \
	VADDPS     Y12, Y6, Y6; \
	VADDPS     Y12, Y9, Y9; \
	VADDPS     Y12, Y11, Y11; \
	VADDPS     Y12, Y8, Y8; \
	VUNPCKLPS  Y9, Y6, Y0; \
	VUNPCKLPS  Y8, Y11, Y1; \
	VUNPCKHPS  Y9, Y6, Y2; \
	VUNPCKHPS  Y8, Y11, Y3; \
	VUNPCKLPD  Y1, Y0, Y4; \
	VUNPCKHPD  Y1, Y0, Y5; \
	VUNPCKLPD  Y3, Y2, Y7; \
	VUNPCKHPD  Y3, Y2, Y10; \
	VPERM2F128 $0x20, Y5, Y4, Y0; \
	VPERM2F128 $0x20, Y10, Y7, Y1; \
	VPERM2F128 $0x31, Y5, Y4, Y2; \
	VPERM2F128 $0x31, Y10, Y7, Y3; \
	MOVQ       AX, DX; \
	BTQ        $i, BX; \
	CMOVQCC    896(SP), DX; \
	st(0, Y0); \
	st(32, Y1); \
	st(64, Y2); \
	st(96, Y3); \
	ADDQ       R8, AX

// A row's vector at byte off of DX: whole (OVSTORE) or under the column
// mask at off(R14) (OMSTORE, through Y6).
#define OVSTORE(off, y) VMOVUPS y, off(DX)
#define OMSTORE(off, y) \
	VMOVDQU    off(R14), Y6; \
	VMASKMOVPS y, Y6, off(DX)

// OUTROWS8(st) is OUTROW8 for the 4 rows, from y at DI.
#define OUTROWS8(st) \
	MOVQ DI, AX; \
	OUTROW8(st, 0, 0); \
	OUTROW8(st, 192, 1); \
	OUTROW8(st, 384, 2); \
	OUTROW8(st, 576, 3)

// func winogradOutput4AVX2(m *float32, ldo, ldxi int, masks *int32, o int, y *float32, off, ldy, plane int, rows uint64, full bool, bias *float32, add bool)
//
// For each channel: each column of M (read under the lanes mask at
// masks+128, after the 4 column masks) by Aᵀ onto the stack (768 bytes),
// then each row by A, plus the bias (the float at bias, the next channel's
// next if add), into y: whole vectors if full, else under the column
// masks. The 128 bytes after take the stores of rows outside the plane;
// the 8 after, their address.
TEXT ·winogradOutput4AVX2(SB), 0, $904-97
	MOVQ         m+0(FP), SI
	MOVQ         ldo+8(FP), R12
	SHLQ         $2, R12
	MOVQ         ldxi+16(FP), R9
	SHLQ         $2, R9
	LEAQ         (R9)(R9*2), R13
	SHLQ         $1, R13
	MOVQ         masks+24(FP), R14
	MOVQ         o+32(FP), CX
	MOVQ         y+40(FP), DI
	MOVQ         off+48(FP), AX
	LEAQ         (DI)(AX*4), DI
	MOVQ         ldy+56(FP), R8
	SHLQ         $2, R8
	MOVQ         plane+64(FP), R10
	SHLQ         $2, R10
	MOVQ         bias+88(FP), R11
	LEAQ         768(SP), AX
	MOVQ         AX, 896(SP)
	MOVL         $0x40000000, AX
	MOVQ         AX, X13
	VBROADCASTSS X13, Y13
	MOVL         $0x40800000, AX
	MOVQ         AX, X14
	VBROADCASTSS X14, Y14
	MOVL         $0x41000000, AX
	MOVQ         AX, X15
	VBROADCASTSS X15, Y15

outchan:
	VMOVDQU      128(R14), Y12
	MOVQ         SI, BX
	LEAQ         (BX)(R13*2), DX
	ADDQ         R13, DX
	OUTCOL8(0)
	OUTCOL8(32)
	OUTCOL8(64)
	OUTCOL8(96)
	OUTCOL8(128)
	OUTCOL8(160)
	VBROADCASTSS (R11), Y12
	MOVQ         rows+72(FP), BX
	MOVBLZX      full+80(FP), AX
	TESTL        AX, AX
	JZ           outpart
	OUTROWS8(OVSTORE)
	JMP          outnext

outpart:
	OUTROWS8(OMSTORE)

outnext:
	MOVBQZX add+96(FP), BX
	LEAQ    (R11)(BX*4), R11
	ADDQ    R12, SI
	ADDQ    R10, DI
	DECQ    CX
	JNZ     outchan
	VZEROUPPER
	RET
