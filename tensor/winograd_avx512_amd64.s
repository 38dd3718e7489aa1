//go:build !noasm

#include "textflag.h"

// The AVX-512 transforms of F(4×4, 3×3) (winograd.go) on up to 16 tiles
// of one tile row at once, one tile a lane, rounded as the Go transforms
// (inputRow4, outputRow4: the same operations in the same order, no FMA).
// Lanes past the segment's tiles (mask K7) are neither read nor written.

// Lane permutations, as bytes for VPMOVZXBD: +0 and +16 gather elements
// 4t+j, j = 0, 1 and 2, 3, of two vectors into halves (the input's
// deinterleave); +32 and +48 interleave the first and last 8 lanes of two
// vectors; +64 and +80 their lane pairs (the output's interleave).
DATA winoIdx<>+0(SB)/8, $0x1c1814100c080400
DATA winoIdx<>+8(SB)/8, $0x1d1915110d090501
DATA winoIdx<>+16(SB)/8, $0x1e1a16120e0a0602
DATA winoIdx<>+24(SB)/8, $0x1f1b17130f0b0703
DATA winoIdx<>+32(SB)/8, $0x1303120211011000
DATA winoIdx<>+40(SB)/8, $0x1707160615051404
DATA winoIdx<>+48(SB)/8, $0x1b0b1a0a19091808
DATA winoIdx<>+56(SB)/8, $0x1f0f1e0e1d0d1c0c
DATA winoIdx<>+64(SB)/8, $0x1312030211100100
DATA winoIdx<>+72(SB)/8, $0x1716070615140504
DATA winoIdx<>+80(SB)/8, $0x1b1a0b0a19180908
DATA winoIdx<>+88(SB)/8, $0x1f1e0f0e1d1c0d0c
GLOBL winoIdx<>(SB), RODATA|NOPTR, $96

// Zeros the input reads for its rows outside the plane.
GLOBL winoZero<>(SB), RODATA|NOPTR, $320

// LOAD6 sets Z0..Z5 from m0..m5, zero past the tiles.
#define LOAD6(m0, m1, m2, m3, m4, m5) \
	VMOVUPS.Z m0, K7, Z0; \
	VMOVUPS.Z m1, K7, Z1; \
	VMOVUPS.Z m2, K7, Z2; \
	VMOVUPS.Z m3, K7, Z3; \
	VMOVUPS.Z m4, K7, Z4; \
	VMOVUPS.Z m5, K7, Z5

// BT6 stores inputRow4 of Z0..Z5 (d0..d5) to m0..m5; Z27, Z30 and Z31
// hold 2, 5 and 4.
#define BT6(m0, m1, m2, m3, m4, m5) \
	VMULPS  Z31, Z0, Z6; \
	VMULPS  Z30, Z2, Z7; \
	VSUBPS  Z7, Z6, Z6; \
	VADDPS  Z4, Z6, Z6; \
	VMOVUPS Z6, K7, m0; \
	VADDPS  Z2, Z1, Z6; \
	VMULPS  Z31, Z6, Z6; \
	VADDPS  Z3, Z4, Z7; \
	VSUBPS  Z6, Z7, Z7; \
	VMOVUPS Z7, K7, m1; \
	VSUBPS  Z2, Z1, Z6; \
	VMULPS  Z31, Z6, Z6; \
	VSUBPS  Z3, Z4, Z7; \
	VADDPS  Z6, Z7, Z7; \
	VMOVUPS Z7, K7, m2; \
	VSUBPS  Z2, Z4, Z6; \
	VSUBPS  Z1, Z3, Z7; \
	VMULPS  Z27, Z7, Z7; \
	VADDPS  Z7, Z6, Z8; \
	VMOVUPS Z8, K7, m3; \
	VSUBPS  Z7, Z6, Z8; \
	VMOVUPS Z8, K7, m4; \
	VMULPS  Z31, Z1, Z6; \
	VMULPS  Z30, Z3, Z7; \
	VSUBPS  Z7, Z6, Z6; \
	VADDPS  Z5, Z6, Z6; \
	VMOVUPS Z6, K7, m5

// INROW(i) sets Z0..Z5 to elements 4t+j, j < 6, of input row i at AX (66
// floats; the zeros at BX for a row outside the plane, bit i of R11
// clear), under the column masks K1..K4 (elements 0 to 63) and K5, K6
// (64, 65): two permutations of each pair of its first four vectors (Z28,
// Z29) give j = 0 to 3 in halves, joined by lane shuffles; j = 4 and 5
// are j = 0 and 1 moved down a lane, elements 64 and 65 entering. Then
// moves AX a row (R8) on.
#define INROW(i) \
	MOVQ       AX, DX; \
	BTQ        $i, R11; \
	CMOVQCC    BX, DX; \
	VMOVUPS.Z  (DX), K1, Z10; \
	VMOVAPS    Z10, Z11; \
	VMOVUPS.Z  64(DX), K2, Z16; \
	VPERMT2PS  Z16, Z28, Z10; \
	VPERMT2PS  Z16, Z29, Z11; \
	VMOVUPS.Z  128(DX), K3, Z12; \
	VMOVAPS    Z12, Z13; \
	VMOVUPS.Z  192(DX), K4, Z17; \
	VPERMT2PS  Z17, Z28, Z12; \
	VPERMT2PS  Z17, Z29, Z13; \
	VSHUFF32X4 $0x44, Z12, Z10, Z0; \
	VSHUFF32X4 $0xee, Z12, Z10, Z1; \
	VSHUFF32X4 $0x44, Z13, Z11, Z2; \
	VSHUFF32X4 $0xee, Z13, Z11, Z3; \
	VMOVUPS.Z  256(DX), K5, Z14; \
	VMOVUPS.Z  260(DX), K6, Z15; \
	VALIGND    $1, Z0, Z14, Z4; \
	VALIGND    $1, Z1, Z15, Z5; \
	ADDQ       R8, AX

// INCOL transforms column k of the row transforms (stack offset off =
// 64k) into positions k + 6i of v, at (BX), (BX)(R13*1), (BX)(R13*2),
// (DX), (DX)(R13*1), (DX)(R13*2) (BX position k, R13 six positions, DX
// BX + 3·R13), and moves BX, DX to position k+1 (R9 on).
#define INCOL(off) \
	LOAD6(off(SP), off+384(SP), off+768(SP), off+1152(SP), off+1536(SP), off+1920(SP)); \
	BT6((BX), (BX)(R13*1), (BX)(R13*2), (DX), (DX)(R13*1), (DX)(R13*2)); \
	ADDQ R9, BX; \
	LEAQ (BX)(R13*2), DX; \
	ADDQ R13, DX

// func winogradInput4(x *float32, off, ldx, plane, c int, rows, lo, hi, lanes uint64, v *float32, ldc, ldxi int)
//
// For each channel: each of the 6 rows deinterleaved (INROW) and
// transformed (d·B) onto the stack, 6 vectors a row; then each column
// (Bᵀ·) into v's 36 positions.
TEXT ·winogradInput4(SB), 0, $2304-96
	MOVQ         x+0(FP), SI
	MOVQ         off+8(FP), AX
	LEAQ         (SI)(AX*4), SI
	MOVQ         ldx+16(FP), R8
	SHLQ         $2, R8
	MOVQ         plane+24(FP), R10
	SHLQ         $2, R10
	MOVQ         c+32(FP), CX
	MOVQ         rows+40(FP), R11
	MOVQ         lo+48(FP), AX
	KMOVW        AX, K1
	SHRQ         $16, AX
	KMOVW        AX, K2
	SHRQ         $16, AX
	KMOVW        AX, K3
	SHRQ         $16, AX
	KMOVW        AX, K4
	MOVQ         hi+56(FP), AX
	KMOVW        AX, K5
	SHRQ         $1, AX
	KMOVW        AX, K6
	MOVQ         lanes+64(FP), AX
	KMOVW        AX, K7
	MOVQ         v+72(FP), DI
	MOVQ         ldc+80(FP), R12
	SHLQ         $2, R12
	MOVQ         ldxi+88(FP), R9
	SHLQ         $2, R9
	LEAQ         (R9)(R9*2), R13
	SHLQ         $1, R13
	VPMOVZXBD    winoIdx<>+0(SB), Z28
	VPMOVZXBD    winoIdx<>+16(SB), Z29
	MOVL         $0x40000000, AX
	VPBROADCASTD AX, Z27
	MOVL         $0x40a00000, AX
	VPBROADCASTD AX, Z30
	MOVL         $0x40800000, AX
	VPBROADCASTD AX, Z31

inchan:
	MOVQ SI, AX
	LEAQ winoZero<>(SB), BX
	INROW(0)
	BT6(0(SP), 64(SP), 128(SP), 192(SP), 256(SP), 320(SP))
	INROW(1)
	BT6(384(SP), 448(SP), 512(SP), 576(SP), 640(SP), 704(SP))
	INROW(2)
	BT6(768(SP), 832(SP), 896(SP), 960(SP), 1024(SP), 1088(SP))
	INROW(3)
	BT6(1152(SP), 1216(SP), 1280(SP), 1344(SP), 1408(SP), 1472(SP))
	INROW(4)
	BT6(1536(SP), 1600(SP), 1664(SP), 1728(SP), 1792(SP), 1856(SP))
	INROW(5)
	BT6(1920(SP), 1984(SP), 2048(SP), 2112(SP), 2176(SP), 2240(SP))
	MOVQ DI, BX
	LEAQ (BX)(R13*2), DX
	ADDQ R13, DX
	INCOL(0)
	INCOL(64)
	INCOL(128)
	INCOL(192)
	INCOL(256)
	INCOL(320)
	ADDQ R10, SI
	ADDQ R12, DI
	DECQ CX
	JNZ  inchan
	VZEROUPPER
	RET

// AT4 sets Z6, Z9, Z11, Z8 to outputRow4 of Z0..Z5 (s0..s5); Z27, Z31
// and Z26 hold 2, 4 and 8.
#define AT4 \
	VADDPS Z1, Z0, Z6; \
	VADDPS Z2, Z6, Z6; \
	VADDPS Z3, Z6, Z6; \
	VADDPS Z4, Z6, Z6; \
	VSUBPS Z2, Z1, Z7; \
	VSUBPS Z4, Z3, Z8; \
	VMULPS Z27, Z8, Z9; \
	VADDPS Z9, Z7, Z9; \
	VADDPS Z2, Z1, Z10; \
	VADDPS Z4, Z3, Z11; \
	VMULPS Z31, Z11, Z11; \
	VADDPS Z11, Z10, Z11; \
	VMULPS Z26, Z8, Z8; \
	VADDPS Z8, Z7, Z8; \
	VADDPS Z5, Z8, Z8

// OUTCOL transforms column j of the channel's M (positions j + 6i at BX,
// DX as for INCOL) by Aᵀ onto the stack at off = 64j, a row of 6
// vectors for each of the 4 rows, and moves BX, DX to column j+1.
#define OUTCOL(off) \
	LOAD6((BX), (BX)(R13*1), (BX)(R13*2), (DX), (DX)(R13*1), (DX)(R13*2)); \
	AT4; \
	VMOVUPS Z6, K7, off(SP); \
	VMOVUPS Z9, K7, off+384(SP); \
	VMOVUPS Z11, K7, off+768(SP); \
	VMOVUPS Z8, K7, off+1152(SP); \
	ADDQ    R9, BX; \
	LEAQ    (BX)(R13*2), DX; \
	ADDQ    R13, DX

// OUTROW(off, i) transforms row i of Aᵀ·M (stack offset off = 384i) by
// A, adds the bias (Z25, under mask K1), interleaves the 4 outputs of the
// 16 tiles (Z20..Z23) and stores them as 64 floats at AX under the
// column masks K2..K5 (to the stack's spare 256 bytes instead for a row
// outside the plane, bit i of BX clear), then moves AX a row (R8) on.
#define OUTROW(off, i) \
	LOAD6(off(SP), off+64(SP), off+128(SP), off+192(SP), off+256(SP), off+320(SP)); \
	AT4; \
	VADDPS    Z25, Z6, K1, Z6; \
	VADDPS    Z25, Z9, K1, Z9; \
	VADDPS    Z25, Z11, K1, Z11; \
	VADDPS    Z25, Z8, K1, Z8; \
	VMOVAPS   Z6, Z12; \
	VPERMT2PS Z9, Z20, Z12; \
	VPERMT2PS Z9, Z21, Z6; \
	VMOVAPS   Z11, Z13; \
	VPERMT2PS Z8, Z20, Z13; \
	VPERMT2PS Z8, Z21, Z11; \
	VMOVAPS   Z12, Z14; \
	VPERMT2PS Z13, Z22, Z14; \
	VPERMT2PS Z13, Z23, Z12; \
	VMOVAPS   Z6, Z15; \
	VPERMT2PS Z11, Z22, Z15; \
	VPERMT2PS Z11, Z23, Z6; \
	MOVQ      AX, DX; \
	BTQ       $i, BX; \
	CMOVQCC   1792(SP), DX; \
	VMOVUPS   Z14, K2, (DX); \
	VMOVUPS   Z12, K3, 64(DX); \
	VMOVUPS   Z15, K4, 128(DX); \
	VMOVUPS   Z6, K5, 192(DX); \
	ADDQ      R8, AX

// func winogradOutput4(m *float32, ldo, ldxi int, lanes uint64, o int, y *float32, off, ldy, plane int, rows, cols uint64, bias *float32, add bool)
//
// For each channel: each column of M by Aᵀ onto the stack (1536 bytes),
// then each row by A into y. The 256 bytes after take the stores of rows
// outside the plane; the 8 after, their address.
TEXT ·winogradOutput4(SB), 0, $1800-97
	MOVQ         m+0(FP), SI
	MOVQ         ldo+8(FP), R12
	SHLQ         $2, R12
	MOVQ         ldxi+16(FP), R9
	SHLQ         $2, R9
	LEAQ         (R9)(R9*2), R13
	SHLQ         $1, R13
	MOVQ         lanes+24(FP), AX
	KMOVW        AX, K7
	MOVQ         o+32(FP), CX
	MOVQ         y+40(FP), DI
	MOVQ         off+48(FP), AX
	LEAQ         (DI)(AX*4), DI
	MOVQ         ldy+56(FP), R8
	SHLQ         $2, R8
	MOVQ         plane+64(FP), R10
	SHLQ         $2, R10
	MOVQ         cols+80(FP), AX
	KMOVW        AX, K2
	SHRQ         $16, AX
	KMOVW        AX, K3
	SHRQ         $16, AX
	KMOVW        AX, K4
	SHRQ         $16, AX
	KMOVW        AX, K5
	MOVQ         bias+88(FP), R11
	MOVBQZX      add+96(FP), AX
	NEGQ         AX
	KMOVW        AX, K1
	LEAQ         1536(SP), AX
	MOVQ         AX, 1792(SP)
	VPMOVZXBD    winoIdx<>+32(SB), Z20
	VPMOVZXBD    winoIdx<>+48(SB), Z21
	VPMOVZXBD    winoIdx<>+64(SB), Z22
	VPMOVZXBD    winoIdx<>+80(SB), Z23
	MOVL         $0x40000000, AX
	VPBROADCASTD AX, Z27
	MOVL         $0x40800000, AX
	VPBROADCASTD AX, Z31
	MOVL         $0x41000000, AX
	VPBROADCASTD AX, Z26

outchan:
	MOVQ SI, BX
	LEAQ (BX)(R13*2), DX
	ADDQ R13, DX
	OUTCOL(0)
	OUTCOL(64)
	OUTCOL(128)
	OUTCOL(192)
	OUTCOL(256)
	OUTCOL(320)
	VBROADCASTSS (R11), Z25
	MOVQ         rows+72(FP), BX
	MOVQ         DI, AX
	OUTROW(0, 0)
	OUTROW(384, 1)
	OUTROW(768, 2)
	OUTROW(1152, 3)
	MOVBQZX      add+96(FP), BX
	LEAQ         (R11)(BX*4), R11
	ADDQ         R12, SI
	ADDQ         R10, DI
	DECQ         CX
	JNZ          outchan
	VZEROUPPER
	RET

// Lane numbers 0 to 15, as bytes for VPMOVZXBD: the filters' gather
// offsets.
DATA winoIota<>+0(SB)/8, $0x0706050403020100
DATA winoIota<>+8(SB)/8, $0x0f0e0d0c0b0a0908
GLOBL winoIota<>(SB), RODATA|NOPTR, $16

// G6(x0, x1, x2, o0, ..., o5) sets o0..o5 to filterRow4 of x0..x2 (the
// same operations in the same order), clobbering x0..x2, Z26 and Z27;
// Z28..Z31 hold 1/4, −1/6, 1/12 and 1/24.
#define G6(x0, x1, x2, o0, o1, o2, o3, o4, o5) \
	VMULPS  Z28, x0, o0; \
	VMOVAPS x2, o5; \
	VMULPS  Z31, x0, Z26; \
	VMULPS  Z30, x1, Z27; \
	VMULPS  Z29, x0, x0; \
	VMULPS  Z29, x1, x1; \
	VMULPS  Z29, x2, x2; \
	VADDPS  x1, x0, o1; \
	VADDPS  x2, o1, o1; \
	VSUBPS  x1, x0, o2; \
	VADDPS  x2, o2, o2; \
	VADDPS  Z27, Z26, o3; \
	VSUBPS  x2, o3, o3; \
	VSUBPS  Z27, Z26, o4; \
	VSUBPS  x2, o4, o4

// GATHER(off, z) sets z to element off/4 of each lane's filter (SI, the
// lanes Z25·4 bytes apart) in the lanes of K6, zero in the others.
#define GATHER(off, z) \
	KMOVW      K6, K1; \
	VPXORD     z, z, z; \
	VGATHERDPS off(SI)(Z25*4), K1, z

// FCOL(x0, x1, x2, off) transforms the filters' column x0..x2 by G onto
// the stack, element k at off + 192k (row k of G·g at 192k).
#define FCOL(x0, x1, x2, off) \
	G6(x0, x1, x2, Z9, Z10, Z11, Z12, Z13, Z14); \
	VMOVUPS Z9, off(SP); \
	VMOVUPS Z10, off+192(SP); \
	VMOVUPS Z11, off+384(SP); \
	VMOVUPS Z12, off+576(SP); \
	VMOVUPS Z13, off+768(SP); \
	VMOVUPS Z14, off+960(SP)

// FROW(off) transforms row k of G·g (stack offset off = 192k) by G into
// positions 6k to 6k+5 of u, at (BX), (BX)(R9*1), (BX)(R9*2), (DX),
// (DX)(R9*1), (DX)(R9*2) under the lanes K7 (BX position 6k, R9 one
// position, DX BX + 3·R9), and moves BX, DX to position 6k+6 (R13 on).
#define FROW(off) \
	VMOVUPS off(SP), Z0; \
	VMOVUPS off+64(SP), Z1; \
	VMOVUPS off+128(SP), Z2; \
	G6(Z0, Z1, Z2, Z9, Z10, Z11, Z12, Z13, Z14); \
	VMOVUPS Z9, K7, (BX); \
	VMOVUPS Z10, K7, (BX)(R9*1); \
	VMOVUPS Z11, K7, (BX)(R9*2); \
	VMOVUPS Z12, K7, (DX); \
	VMOVUPS Z13, K7, (DX)(R9*1); \
	VMOVUPS Z14, K7, (DX)(R9*2); \
	ADDQ    R13, BX; \
	LEAQ    (BX)(R9*2), DX; \
	ADDQ    R9, DX

// func winogradFilters4(w *float32, ldo, ldc int, rows uint64, n int, u *float32, ldu, ldxi int, lanes uint64, flip bool)
//
// For each channel: the 9 weights of the lanes' filters gathered (in
// reverse order if flip), each column transformed (G·) onto the stack
// (1152 bytes), then each row (·Gᵀ) into u's 36 positions.
TEXT ·winogradFilters4(SB), 0, $1152-73
	MOVQ         w+0(FP), SI
	MOVQ         ldo+8(FP), AX
	VPBROADCASTD AX, Z25
	VPMOVZXBD    winoIota<>(SB), Z24
	VPMULLD      Z24, Z25, Z25
	MOVQ         ldc+16(FP), R10
	SHLQ         $2, R10
	MOVQ         rows+24(FP), AX
	KMOVW        AX, K6
	MOVQ         n+32(FP), CX
	MOVQ         u+40(FP), DI
	MOVQ         ldu+48(FP), R12
	SHLQ         $2, R12
	MOVQ         ldxi+56(FP), R9
	SHLQ         $2, R9
	LEAQ         (R9)(R9*2), R13
	SHLQ         $1, R13
	MOVQ         lanes+64(FP), AX
	KMOVW        AX, K7
	MOVBQZX      flip+72(FP), R11
	MOVL         $0x3e800000, AX
	VPBROADCASTD AX, Z28
	MOVL         $0xbe2aaaab, AX
	VPBROADCASTD AX, Z29
	MOVL         $0x3daaaaab, AX
	VPBROADCASTD AX, Z30
	MOVL         $0x3d2aaaab, AX
	VPBROADCASTD AX, Z31

filchan:
	TESTQ R11, R11
	JNZ   filflip
	GATHER(0, Z0)
	GATHER(4, Z1)
	GATHER(8, Z2)
	GATHER(12, Z3)
	GATHER(16, Z4)
	GATHER(20, Z5)
	GATHER(24, Z6)
	GATHER(28, Z7)
	GATHER(32, Z8)
	JMP   filrows

filflip:
	GATHER(32, Z0)
	GATHER(28, Z1)
	GATHER(24, Z2)
	GATHER(20, Z3)
	GATHER(16, Z4)
	GATHER(12, Z5)
	GATHER(8, Z6)
	GATHER(4, Z7)
	GATHER(0, Z8)

filrows:
	FCOL(Z0, Z3, Z6, 0)
	FCOL(Z1, Z4, Z7, 64)
	FCOL(Z2, Z5, Z8, 128)
	MOVQ DI, BX
	LEAQ (BX)(R9*2), DX
	ADDQ R9, DX
	FROW(0)
	FROW(192)
	FROW(384)
	FROW(576)
	FROW(768)
	FROW(960)
	ADDQ R10, SI
	ADDQ R12, DI
	DECQ CX
	JNZ  filchan
	VZEROUPPER
	RET
