//go:build !noasm

#include "textflag.h"

// AHEAD prefetches the k (CX) cache lines of the block of 16 rows 256 rows
// (R14 bytes) after the one at SI, out of the chunk if need be (prefetches
// do not fault), so that a chunk's first blocks are loaded while the
// previous one is still being reduced; it uses R13, R15.
#define AHEAD(loop) \
	LEAQ       (SI)(R14*1), R13; \
	MOVQ       CX, R15; \
loop: \
	PREFETCHT0 (R13); \
	ADDQ       $64, R13; \
	DECQ       R15; \
	JNZ        loop

// ROWSARGS loads the arguments of extremesRows and extremesTree: x to SI,
// the count n to R10, k to CX, flip to the vector f, val to DI, idx to R9;
// it sets K1 to the k lanes of a row and R11 to its length in bytes.
#define ROWSARGS(n, f) \
	MOVQ         x+0(FP), SI; \
	MOVQ         n, R10; \
	MOVQ         k+16(FP), CX; \
	VBROADCASTSS flip+24(FP), f; \
	MOVQ         val+32(FP), DI; \
	MOVQ         idx+40(FP), R9; \
	MOVL         $1, AX; \
	SHLL         CX, AX; \
	DECL         AX; \
	KMOVW        AX, K1; \
	MOVQ         CX, R11; \
	SHLQ         $2, R11

// HMAX sets dst to the largest lane of src in every lane (tmp scratch;
// dst and src differ).
#define HMAX(src, dst, tmp) \
	VSHUFF32X4 $0x4e, src, src, dst; \
	VMAXPS     dst, src, dst; \
	VSHUFF32X4 $0xb1, dst, dst, tmp; \
	VMAXPS     tmp, dst, dst; \
	VPERMILPS  $0x4e, dst, tmp; \
	VMAXPS     tmp, dst, dst; \
	VPERMILPS  $0xb1, dst, tmp; \
	VMAXPS     tmp, dst, dst

// EXTREMEGRAD is the body of extremeGradRows and extremeGradRowsCached,
// storing each vector with store.
#define EXTREMEGRAD(store) \
	MOVQ  dst+0(FP), DI; \
	MOVQ  blocks+8(FP), R10; \
	MOVQ  k+16(FP), CX; \
	MOVQ  val+24(FP), SI; \
	MOVQ  idx+32(FP), R9; \
	MOVQ  tab+40(FP), BX; \
	MOVQ  CX, R11; \
	SHLQ  $6, R11; \
	TESTQ R10, R10; \
	JZ    gdone; \
gblock: \
	VMOVUPS (SI), Z0; \
	VMOVUPS (R9), Z1; \
	MOVQ    BX, R12; \
	MOVQ    CX, DX; \
gvec: \
	VMOVDQU32 (R12), Z2; \
	VPERMPS   Z0, Z2, Z3; \
	VPERMPS   Z1, Z2, Z4; \
	VCMPPS    $0, (R12)(R11*1), Z4, K1; \
	VMOVAPS.Z Z3, K1, Z5; \
	store     Z5, (DI); \
	ADDQ      $64, DI; \
	ADDQ      $64, R12; \
	DECQ      DX; \
	JNZ       gvec; \
	ADDQ      $64, SI; \
	ADDQ      $64, R9; \
	DECQ      R10; \
	JNZ       gblock; \
gdone:

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
	ROWSARGS(rows+8(FP), Z7)
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
	HMAX(Z1, Z2, Z3)
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

// 0, 1, …, 15: the lanes' rows in extremesCols.
DATA iota16<>+0(SB)/4, $0
DATA iota16<>+4(SB)/4, $1
DATA iota16<>+8(SB)/4, $2
DATA iota16<>+12(SB)/4, $3
DATA iota16<>+16(SB)/4, $4
DATA iota16<>+20(SB)/4, $5
DATA iota16<>+24(SB)/4, $6
DATA iota16<>+28(SB)/4, $7
DATA iota16<>+32(SB)/4, $8
DATA iota16<>+36(SB)/4, $9
DATA iota16<>+40(SB)/4, $10
DATA iota16<>+44(SB)/4, $11
DATA iota16<>+48(SB)/4, $12
DATA iota16<>+52(SB)/4, $13
DATA iota16<>+56(SB)/4, $14
DATA iota16<>+60(SB)/4, $15
GLOBL iota16<>(SB), RODATA|NOPTR, $64

// func extremesCols(x *float32, blocks, k int, flip float32, val, idx *float32)
//
// extremesRows for blocks of 16 rows of 1 ≤ k ≤ 4 contiguous float32 at x,
// one row per lane: a block is k vectors, from which each column is
// permuted out (VPERMI2PS from the first two, the last two, blended) and
// compared with the best so far (strictly greater: the first maximum;
// never, for a NaN on either side: NaNs count as −∞, and a row whose
// first element is NaN keeps index 0), then the value is the element at
// the index, or NaN if the row has one.
TEXT ·extremesCols(SB), NOSPLIT, $0-48
	MOVQ         x+0(FP), SI
	MOVQ         blocks+8(FP), R10
	MOVQ         k+16(FP), CX
	VBROADCASTSS flip+24(FP), Z7
	MOVQ         val+32(FP), DI
	MOVQ         idx+40(FP), R9
	VPBROADCASTD CX, Z6
	VPMULLD      iota16<>(SB), Z6, Z6 // the rows' first elements in the block
	MOVL         $1, AX
	VPBROADCASTD AX, Z10
	MOVL         $31, AX
	VPBROADCASTD AX, Z11
	MOVL         $0x3f800000, AX
	VPBROADCASTD AX, Z9                // 1.0
	MOVL         $0x7fc00000, AX
	VPBROADCASTD AX, Z8                // NaN
	MOVQ         CX, R11
	SHLQ         $6, R11               // 16 rows, in bytes
	MOVQ         R11, R14
	SHLQ         $4, R14

	// K5, K6, K7: the block's vectors 1, 2, 3 exist (k > 1, 2, 3).
	XORL    AX, AX
	MOVL    $0xffff, DX
	CMPQ    CX, $1
	CMOVLGT DX, AX
	KMOVW   AX, K5
	XORL    AX, AX
	CMPQ    CX, $2
	CMOVLGT DX, AX
	KMOVW   AX, K6
	XORL    AX, AX
	CMPQ    CX, $3
	CMOVLGT DX, AX
	KMOVW   AX, K7
	TESTQ   R10, R10
	JZ      cdone

cblock:
	AHEAD(cahead)
	VMOVUPS   (SI), Z12
	VMOVUPS.Z 64(SI), K5, Z13
	VMOVUPS.Z 128(SI), K6, Z14
	VMOVUPS.Z 192(SI), K7, Z15
	VMOVDQA32 Z6, Z3           // the column's elements in the block
	VMOVDQA32 Z3, Z0
	VPERMI2PS Z13, Z12, Z0
	VMOVDQA32 Z3, Z1
	VPERMI2PS Z15, Z14, Z1
	VPCMPGTD  Z11, Z3, K2
	VMOVAPS   Z1, K2, Z0
	VXORPS    Z7, Z0, Z0       // best
	VCMPPS    $3, Z0, Z0, K4   // rows with a NaN
	VXORPS    Z5, Z5, Z5       // their index
	VXORPS    Z4, Z4, Z4       // the column's index
	MOVQ      CX, DX
	DECQ      DX
	JZ        cstore

ccol:
	VADDPS    Z9, Z4, Z4
	VPADDD    Z10, Z3, Z3
	VMOVDQA32 Z3, Z1
	VPERMI2PS Z13, Z12, Z1
	VMOVDQA32 Z3, Z2
	VPERMI2PS Z15, Z14, Z2
	VPCMPGTD  Z11, Z3, K2
	VMOVAPS   Z2, K2, Z1
	VXORPS    Z7, Z1, Z1
	VCMPPS    $3, Z1, Z1, K3
	KORW      K3, K4, K4
	VCMPPS    $0x1e, Z0, Z1, K2 // v > best, ordered
	VMOVAPS   Z1, K2, Z0
	VMOVAPS   Z4, K2, Z5
	DECQ      DX
	JNZ       ccol

cstore:
	VXORPS  Z7, Z0, Z0
	VMOVAPS Z8, K4, Z0
	VMOVUPS Z0, (DI)
	VMOVUPS Z5, (R9)
	ADDQ    R11, SI
	ADDQ    $64, DI
	ADDQ    $64, R9
	DECQ    R10
	JNZ     cblock

cdone:
	VZEROUPPER
	RET

// TLOAD loads the row at R12 into r, flipped, lanes from k on (K1 unset)
// the flipped −∞ in Z26, and advances R12 by a row (R11 bytes).
#define TLOAD(r) \
	VMOVAPS Z26, r; \
	VMOVUPS (R12), K1, r; \
	VXORPS  Z27, r, r; \
	ADDQ    R11, R12

// TPAIR sets dst to the lane-wise maximum of two shuffles (ins, with
// immediates lo and hi) of a and b; it uses Z24, Z25.
#define TPAIR(ins, lo, hi, a, b, dst) \
	ins     $lo, b, a, Z24; \
	ins     $hi, b, a, Z25; \
	VMAXPS  Z25, Z24, dst

// TIDX finds the first lane of row r (in reg, at R12) equal to its maximum,
// at byte pos of the maxima at 0(SP): the index to io(SP) (64 + 4r), the
// element there to vo(DI) (4r); it advances R12 by a row and uses AX, DX,
// Z28, K2.
#define TIDX(reg, pos, vo, io) \
	VBROADCASTSS pos(SP), Z28; \
	VCMPPS       $0, Z28, reg, K1, K2; \
	KMOVW        K2, AX; \
	BSFL         AX, AX; \
	MOVL         AX, io(SP); \
	MOVL         (R12)(AX*4), DX; \
	MOVL         DX, vo(DI); \
	ADDQ         R11, R12

// func extremesTree(x *float32, blocks, k int, flip float32, val, idx *float32) int
//
// extremesRows for blocks of 16 rows of 1 ≤ k ≤ 16 contiguous float32 at
// x: the block's rows, one per vector, are reduced together by a tree of
// shuffles (256-bit halves, 128-bit quarters, then pairs and elements
// within the quarters) to one vector of their maxima, lane 4i + j holding
// row 4j + i's; each row's index is then its first lane equal to its
// maximum, and the value the element there. It stops before a block with
// a NaN or an infinity of both signs (the sum of its rows is NaN), for
// extremesRows to take it, and returns the blocks done.
TEXT ·extremesTree(SB), NOSPLIT, $128-56
	ROWSARGS(blocks+8(FP), Z27)
	MOVQ         R11, R14
	SHLQ         $8, R14
	MOVL         $0xff800000, AX
	VPBROADCASTD AX, Z26
	VXORPS       Z27, Z26, Z26
	XORQ         BX, BX

tblock:
	CMPQ     BX, R10
	JGE      tdone
	AHEAD(tahead)
	MOVQ     SI, R12
	TLOAD(Z0)
	TLOAD(Z1)
	TLOAD(Z2)
	TLOAD(Z3)
	TLOAD(Z4)
	TLOAD(Z5)
	TLOAD(Z6)
	TLOAD(Z7)
	TLOAD(Z8)
	TLOAD(Z9)
	TLOAD(Z10)
	TLOAD(Z11)
	TLOAD(Z12)
	TLOAD(Z13)
	TLOAD(Z14)
	TLOAD(Z15)
	VADDPS   Z1, Z0, Z28
	VADDPS   Z3, Z2, Z29
	VADDPS   Z5, Z4, Z30
	VADDPS   Z7, Z6, Z31
	VADDPS   Z9, Z28, Z28
	VADDPS   Z11, Z29, Z29
	VADDPS   Z13, Z30, Z30
	VADDPS   Z15, Z31, Z31
	VADDPS   Z8, Z28, Z28
	VADDPS   Z10, Z29, Z29
	VADDPS   Z12, Z30, Z30
	VADDPS   Z14, Z31, Z31
	VADDPS   Z29, Z28, Z28
	VADDPS   Z31, Z30, Z30
	VADDPS   Z30, Z28, Z28
	VCMPPS   $3, Z28, Z28, K2
	KORTESTW K2, K2
	JNZ      tdone
	TPAIR(VSHUFF32X4, 0x44, 0xee, Z0, Z1, Z16)
	TPAIR(VSHUFF32X4, 0x44, 0xee, Z2, Z3, Z17)
	TPAIR(VSHUFF32X4, 0x44, 0xee, Z4, Z5, Z18)
	TPAIR(VSHUFF32X4, 0x44, 0xee, Z6, Z7, Z19)
	TPAIR(VSHUFF32X4, 0x44, 0xee, Z8, Z9, Z20)
	TPAIR(VSHUFF32X4, 0x44, 0xee, Z10, Z11, Z21)
	TPAIR(VSHUFF32X4, 0x44, 0xee, Z12, Z13, Z22)
	TPAIR(VSHUFF32X4, 0x44, 0xee, Z14, Z15, Z23)
	TPAIR(VSHUFF32X4, 0x88, 0xdd, Z16, Z17, Z16)
	TPAIR(VSHUFF32X4, 0x88, 0xdd, Z18, Z19, Z17)
	TPAIR(VSHUFF32X4, 0x88, 0xdd, Z20, Z21, Z18)
	TPAIR(VSHUFF32X4, 0x88, 0xdd, Z22, Z23, Z19)
	TPAIR(VSHUFPS, 0x44, 0xee, Z16, Z17, Z16)
	TPAIR(VSHUFPS, 0x44, 0xee, Z18, Z19, Z17)
	TPAIR(VSHUFPS, 0x88, 0xdd, Z16, Z17, Z16)
	VMOVUPS  Z16, (SP)
	MOVQ     SI, R12
	TIDX(Z0, 0, 0, 64)
	TIDX(Z1, 16, 4, 68)
	TIDX(Z2, 32, 8, 72)
	TIDX(Z3, 48, 12, 76)
	TIDX(Z4, 4, 16, 80)
	TIDX(Z5, 20, 20, 84)
	TIDX(Z6, 36, 24, 88)
	TIDX(Z7, 52, 28, 92)
	TIDX(Z8, 8, 32, 96)
	TIDX(Z9, 24, 36, 100)
	TIDX(Z10, 40, 40, 104)
	TIDX(Z11, 56, 44, 108)
	TIDX(Z12, 12, 48, 112)
	TIDX(Z13, 28, 52, 116)
	TIDX(Z14, 44, 56, 120)
	TIDX(Z15, 60, 60, 124)
	VCVTDQ2PS 64(SP), Z28
	VMOVUPS   Z28, (R9)
	MOVQ      R12, SI
	ADDQ      $64, DI
	ADDQ      $64, R9
	INCQ      BX
	JMP       tblock

tdone:
	MOVQ BX, ret+48(FP)
	VZEROUPPER
	RET

// func extremeGradRows(dst *float32, blocks, k int, val, idx *float32, tab *int32)
//
// Sets the blocks of 16 rows of 1 ≤ k ≤ 16 float32 at dst (64-byte
// aligned) to zero, but for val at the column idx of each row, with
// streaming stores (no read of dst's lines): the block's vector q takes
// lane l from the row tab[16q + l] (int32), its column being
// tab[16k + 16q + l] (float32).
TEXT ·extremeGradRows(SB), NOSPLIT, $0-48
	EXTREMEGRAD(VMOVNTPS)
	SFENCE
	VZEROUPPER
	RET

// func extremeGradRowsCached(dst *float32, blocks, k int, val, idx *float32, tab *int32)
//
// extremeGradRows with ordinary stores, dst aligned or not: for a
// gradient that the next op reads from cache.
TEXT ·extremeGradRowsCached(SB), NOSPLIT, $0-48
	EXTREMEGRAD(VMOVUPS)
	VZEROUPPER
	RET

// func extremesWide(x *float32, rows, k int, flip float32, val, idx *float32) int
//
// extremesRows for rows of k ≥ 16 contiguous float32 at x, a row at a
// time: four running maxima over its vectors (the last one masked, lanes
// past the row −∞), their maximum, then a second pass, from cache, for
// the first element equal to it: the index, and the value the element
// there. It returns the rows done, stopping before a row with a NaN (the
// caller takes that row).
TEXT ·extremesWide(SB), NOSPLIT, $0-56
	ROWSARGS(rows+8(FP), Z7)
	MOVL         $0xff800000, AX
	VPBROADCASTD AX, Z8         // −∞
	MOVQ         CX, R8
	SHRQ         $4, R8         // whole vectors
	MOVQ         CX, AX
	ANDQ         $15, AX
	MOVL         $1, DX
	SHLXL        AX, DX, DX
	DECL         DX
	KMOVW        DX, K1         // the tail's lanes
	XORQ         BX, BX         // rows done
	TESTQ        R10, R10
	JZ           wdone

wrow:
	VMOVAPS Z8, Z0
	VMOVAPS Z8, Z1
	VMOVAPS Z8, Z2
	VMOVAPS Z8, Z3
	KXORW   K4, K4, K4          // a NaN seen
	MOVQ    SI, R12
	MOVQ    R8, DX
	CMPQ    DX, $4
	JLT     wone

wfour:
	VXORPS  (R12), Z7, Z4
	VXORPS  64(R12), Z7, Z5
	VXORPS  128(R12), Z7, Z6
	VXORPS  192(R12), Z7, Z9
	VCMPPS  $3, Z4, Z4, K2
	KORW    K2, K4, K4
	VCMPPS  $3, Z5, Z5, K2
	KORW    K2, K4, K4
	VCMPPS  $3, Z6, Z6, K2
	KORW    K2, K4, K4
	VCMPPS  $3, Z9, Z9, K2
	KORW    K2, K4, K4
	VMAXPS  Z0, Z4, Z0
	VMAXPS  Z1, Z5, Z1
	VMAXPS  Z2, Z6, Z2
	VMAXPS  Z3, Z9, Z3
	ADDQ    $256, R12
	SUBQ    $4, DX
	CMPQ    DX, $4
	JGE     wfour

wone:
	TESTQ  DX, DX
	JZ     wtail
	VXORPS (R12), Z7, Z4
	VCMPPS $3, Z4, Z4, K2
	KORW   K2, K4, K4
	VMAXPS Z0, Z4, Z0
	ADDQ   $64, R12
	DECQ   DX
	JMP    wone

wtail:
	KORTESTW  K1, K1
	JZ        wreduce
	VMOVAPS   Z8, Z4
	VMOVUPS   (R12), K1, Z4
	VXORPS    Z7, Z4, K1, Z4
	VCMPPS    $3, Z4, Z4, K2
	KORW      K2, K4, K4
	VMAXPS    Z0, Z4, Z0

wreduce:
	KORTESTW   K4, K4
	JNZ        wdone
	VMAXPS     Z1, Z0, Z0
	VMAXPS     Z3, Z2, Z2
	VMAXPS     Z2, Z0, Z0
	HMAX(Z0, Z1, Z2)            // the row's maximum in every lane of Z1

	// The first element equal to it (one exists: no NaN, and the maximum
	// is an element or −∞ of a masked lane, which the tail compare skips
	// only when an element equals it earlier or in the tail itself).
	MOVQ SI, R12
	XORQ AX, AX                 // the vector's first element
	MOVQ R8, R13
	SHLQ $4, R13                // the whole vectors' elements

wfind:
	CMPQ     AX, R13
	JGE      wfindtail
	VXORPS   (R12), Z7, Z4
	VCMPPS   $0, Z1, Z4, K3
	KORTESTW K3, K3
	JNZ      wfound
	ADDQ     $64, R12
	ADDQ     $16, AX
	JMP      wfind

wfindtail:
	VMOVAPS Z8, Z4
	VMOVUPS (R12), K1, Z4
	VXORPS  Z7, Z4, K1, Z4
	VCMPPS  $0, Z1, Z4, K1, K3

wfound:
	KMOVW      K3, DX
	TZCNTL     DX, DX
	ADDQ       DX, AX
	MOVL       (SI)(AX*4), DX
	MOVL       DX, (DI)
	VCVTSI2SSL AX, X3, X3
	VMOVSS     X3, (R9)
	ADDQ       R11, SI
	ADDQ       $4, DI
	ADDQ       $4, R9
	INCQ       BX
	CMPQ       BX, R10
	JLT        wrow

wdone:
	MOVQ BX, ret+48(FP)
	VZEROUPPER
	RET

// func zeroStream(dst *float32, n int)
//
// Sets n float32 at dst (64-byte aligned, n a multiple of 16) to zero with
// streaming stores: no read of dst's lines.
TEXT ·zeroStream(SB), NOSPLIT, $0-16
	MOVQ   dst+0(FP), DI
	MOVQ   n+8(FP), CX
	SHRQ   $4, CX
	VXORPS Z0, Z0, Z0
	TESTQ  CX, CX
	JZ     zdone

zloop:
	VMOVNTPS Z0, (DI)
	ADDQ     $64, DI
	DECQ     CX
	JNZ      zloop

zdone:
	SFENCE
	VZEROUPPER
	RET

// func extremesWideAVX2(x *float32, rows, k int, flip float32, val, idx *float32) int
//
// extremesWide in AVX2, for rows of k ≥ 8: four running maxima over the
// row's whole vectors of 8, then its last 8 elements (overlapping the
// whole vectors where k is not a multiple of 8: a maximum is unchanged by
// elements seen twice), their maximum, then a second pass, from cache,
// for the first element equal to it in the same order (an overlapped
// element equal to it would have been found before). It returns the rows
// done, stopping before a row with a NaN.
TEXT ·extremesWideAVX2(SB), NOSPLIT, $0-56
	MOVQ         x+0(FP), SI
	MOVQ         rows+8(FP), R10
	MOVQ         k+16(FP), CX
	VBROADCASTSS flip+24(FP), Y7
	MOVQ         val+32(FP), DI
	MOVQ         idx+40(FP), R9
	MOVQ         CX, R11
	SHLQ         $2, R11        // a row's bytes
	MOVL         $0xff800000, AX
	MOVQ         AX, X8
	VPBROADCASTD X8, Y8         // −∞
	MOVQ         CX, R8
	SHRQ         $3, R8         // whole vectors
	MOVQ         CX, R14
	ANDQ         $7, R14        // the tail's length
	LEAQ         -32(R11), R15  // the last 8 elements' offset
	XORQ         BX, BX         // rows done
	TESTQ        R10, R10
	JZ           adone

arow:
	VMOVAPS Y8, Y0
	VMOVAPS Y8, Y1
	VMOVAPS Y8, Y2
	VMOVAPS Y8, Y3
	VXORPS  Y6, Y6, Y6          // NaN lanes seen
	MOVQ    SI, R12
	MOVQ    R8, DX
	CMPQ    DX, $4
	JLT     aone

afour:
	VXORPS  (R12), Y7, Y4
	VXORPS  32(R12), Y7, Y5
	VXORPS  64(R12), Y7, Y9
	VXORPS  96(R12), Y7, Y10
	VCMPPS  $3, Y5, Y4, Y11
	VCMPPS  $3, Y10, Y9, Y12
	VORPS   Y11, Y12, Y12
	VORPS   Y12, Y6, Y6
	VMAXPS  Y0, Y4, Y0
	VMAXPS  Y1, Y5, Y1
	VMAXPS  Y2, Y9, Y2
	VMAXPS  Y3, Y10, Y3
	ADDQ    $128, R12
	SUBQ    $4, DX
	CMPQ    DX, $4
	JGE     afour

aone:
	TESTQ  DX, DX
	JZ     atail
	VXORPS (R12), Y7, Y4
	VCMPPS $3, Y4, Y4, Y11
	VORPS  Y11, Y6, Y6
	VMAXPS Y0, Y4, Y0
	ADDQ   $32, R12
	DECQ   DX
	JMP    aone

atail:
	TESTQ  R14, R14
	JZ     areduce
	VXORPS (SI)(R15*1), Y7, Y4
	VCMPPS $3, Y4, Y4, Y11
	VORPS  Y11, Y6, Y6
	VMAXPS Y0, Y4, Y0

areduce:
	VMOVMSKPS  Y6, AX
	TESTL      AX, AX
	JNZ        adone
	VMAXPS     Y1, Y0, Y0
	VMAXPS     Y3, Y2, Y2
	VMAXPS     Y2, Y0, Y0
	VPERM2F128 $1, Y0, Y0, Y1
	VMAXPS     Y1, Y0, Y1
	VPERMILPS  $0x4e, Y1, Y2
	VMAXPS     Y2, Y1, Y1
	VPERMILPS  $0xb1, Y1, Y2
	VMAXPS     Y2, Y1, Y1       // the row's maximum in every lane

	// The first element equal to it: one exists, the maximum being an
	// element's value.
	MOVQ SI, R12
	XORQ AX, AX                 // the vector's first element
	MOVQ R8, R13
	SHLQ $3, R13                // the whole vectors' elements

afind:
	CMPQ      AX, R13
	JGE       afindtail
	VXORPS    (R12), Y7, Y4
	VCMPPS    $0, Y1, Y4, Y5
	VMOVMSKPS Y5, DX
	TESTL     DX, DX
	JNZ       afound
	ADDQ      $32, R12
	ADDQ      $8, AX
	JMP       afind

afindtail:
	LEAQ      -8(CX), AX
	VXORPS    (SI)(R15*1), Y7, Y4
	VCMPPS    $0, Y1, Y4, Y5
	VMOVMSKPS Y5, DX

afound:
	BSFL       DX, DX
	ADDQ       DX, AX
	MOVL       (SI)(AX*4), DX
	MOVL       DX, (DI)
	VCVTSI2SSL AX, X3, X3
	VMOVSS     X3, (R9)
	ADDQ       R11, SI
	ADDQ       $4, DI
	ADDQ       $4, R9
	INCQ       BX
	CMPQ       BX, R10
	JLT        arow

adone:
	MOVQ BX, ret+48(FP)
	VZEROUPPER
	RET

// func zeroStreamAVX2(dst *float32, n int)
//
// zeroStream in AVX2: n float32 at dst (64-byte aligned, n a multiple of
// 16) set to zero with streaming stores.
TEXT ·zeroStreamAVX2(SB), NOSPLIT, $0-16
	MOVQ   dst+0(FP), DI
	MOVQ   n+8(FP), CX
	SHRQ   $4, CX
	VXORPS Y0, Y0, Y0
	TESTQ  CX, CX
	JZ     ydone

yloop:
	VMOVNTPS Y0, (DI)
	VMOVNTPS Y0, 32(DI)
	ADDQ     $64, DI
	DECQ     CX
	JNZ      yloop

ydone:
	SFENCE
	VZEROUPPER
	RET
