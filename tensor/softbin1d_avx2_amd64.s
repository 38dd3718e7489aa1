//go:build !noasm

#include "textflag.h"
#include "softbin_amd64.h"

// The AVX2 kernels of the 1-D soft bins (soft1D, softbin_1d.go), the
// contract and the data layout of softbin1d_amd64.s's AVX-512 kernels: a
// round is 16 rows of g groups, its vector v the flat elements 16v…16v+15,
// here taken as two halves of 8 lanes (the half's sums at 32 bytes past the
// vector's). They take only rounds whose points and values are all finite
// and whose terms all follow from one another on equally spaced anchors
// (PRE8, MASK8: softbin1d_amd64.s's PRELUDE and its test of the
// exponents), checked before the round (CHECK8), and stop before any
// other round, for the caller to take it on the scalar path. On the rounds
// they take, each lane's operations are the AVX-512 kernels', in the same
// order (2^n as an integer added to the exponent, which equals VSCALEFPS
// for the exponents within ±40 that the test admits).
//
// With R8 at the softConsts, Y10 = γ², Y11 = γ⁴ and Y14 = γ are the
// kernels' only constants in registers; the others are broadcast where
// used.

// PRE8 sets, for the 8 points in x on the anchors a_j = a_0 + j·h, c = ln
// t_0 and d = ln ρ_0 (PRELUDE, softbin1d_amd64.s), r the smallest and a
// the largest exponent of the terms and ratios; t, b, e are scratch.
#define PRE8(x, t, r, a, b, c, d, e) \
	VBROADCASTSS softConsts_a0(R8), t; \
	VSUBPS       t, x, t; \
	VBROADCASTSS softConsts_invStep(R8), r; \
	VMULPS       r, t, r; \
	VROUNDPS     $0, r, r; \
	VXORPS       a, a, a; \
	VMAXPS       a, r, r; \
	VBROADCASTSS softConsts_lastBin(R8), a; \
	VMINPS       a, r, r; \
	VBROADCASTSS softConsts_step(R8), a; \
	VMOVAPS      t, b; \
	VFNMADD231PS a, r, b; \
	VMULPS       b, b, b; \
	VMULPS       t, t, c; \
	VSUBPS       b, c, c; \
	VBROADCASTSS softConsts_k(R8), e; \
	VMULPS       e, c, c; \
	VBROADCASTSS softConsts_aLast(R8), r; \
	VSUBPS       r, x, r; \
	VMULPS       r, r, r; \
	VSUBPS       b, r, r; \
	VMULPS       e, r, r; \
	VMINPS       r, c, r; \
	VBROADCASTSS softConsts_kh2(R8), d; \
	VBROADCASTSS softConsts_m2kh(R8), a; \
	VFMADD231PS  a, t, d; \
	VBROADCASTSS softConsts_span(R8), a; \
	VADDPS       d, a, a; \
	VMINPS       d, r, r; \
	VMINPS       a, r, r; \
	VMAXPS       d, a, a

// MASK8 sets m to the lanes whose exponents r (smallest) and a (largest)
// lie within [lo, hi]; tmp is scratch.
#define MASK8(r, a, m, tmp) \
	VBROADCASTSS softConsts_lo(R8), tmp; \
	VCMPPS       $29, tmp, r, m; \
	VBROADCASTSS softConsts_hi(R8), tmp; \
	VCMPPS       $18, tmp, a, tmp; \
	VANDPS       tmp, m, m

// EXP8 sets v = e^v (softbin_amd64.h's EXP, its constants broadcast from R8) for −40 ≤ v ≤ 40; n, r, tmp
// are scratch.
#define EXP8(v, n, r, tmp) \
	VBROADCASTSS softConsts_expMin(R8), tmp; \
	VMAXPS       tmp, v, v; \
	VBROADCASTSS softConsts_log2e(R8), tmp; \
	VMULPS       tmp, v, n; \
	VROUNDPS     $0, n, n; \
	VMOVAPS      v, r; \
	VBROADCASTSS softConsts_ln2Hi(R8), tmp; \
	VFNMADD231PS tmp, n, r; \
	VBROADCASTSS softConsts_ln2Lo(R8), tmp; \
	VFNMADD231PS tmp, n, r; \
	VBROADCASTSS softConsts_p0(R8), v; \
	VBROADCASTSS softConsts_p1(R8), tmp; \
	VFMADD213PS  tmp, r, v; \
	VBROADCASTSS softConsts_p2(R8), tmp; \
	VFMADD213PS  tmp, r, v; \
	VBROADCASTSS softConsts_p3(R8), tmp; \
	VFMADD213PS  tmp, r, v; \
	VBROADCASTSS softConsts_p4(R8), tmp; \
	VFMADD213PS  tmp, r, v; \
	VBROADCASTSS softConsts_p5(R8), tmp; \
	VFMADD213PS  tmp, r, v; \
	VMULPS       r, v, v; \
	VFMADD213PS  r, r, v; \
	VBROADCASTSS softConsts_one(R8), tmp; \
	VADDPS       tmp, v, v; \
	VCVTPS2DQ    n, n; \
	VPSLLD       $23, n, n; \
	VPADDD       n, v, v

// CHECK8 jumps to stop unless the round's 2·R9 halves of points at SI and
// values at DI are all finite and take the recurrence (PRE8, MASK8); it
// uses R10, R15, CX, BX, Y0–Y7, Y9, Y12, Y13, Y15.
#define CHECK8(stop, loop) \
	MOVQ      SI, R10; \
	MOVQ      DI, R15; \
	MOVQ      R9, CX; \
	SHLQ      $1, CX; \
	VPCMPEQD  Y9, Y9, Y9; \
loop: \
	VMOVUPS   (R10), Y0; \
	VMOVUPS   (R15), Y1; \
	VSUBPS    Y1, Y1, Y1; \
	VCMPPS    $7, Y1, Y1, Y1; \
	VANDPS    Y1, Y9, Y9; \
	VSUBPS    Y0, Y0, Y2; \
	VCMPPS    $7, Y2, Y2, Y2; \
	VANDPS    Y2, Y9, Y9; \
	PRE8(Y0, Y4, Y12, Y13, Y5, Y15, Y3, Y6); \
	MASK8(Y12, Y13, Y7, Y6); \
	VANDPS    Y7, Y9, Y9; \
	ADDQ      $32, R10; \
	ADDQ      $32, R15; \
	DECQ      CX; \
	JNZ       loop; \
	VMOVMSKPS Y9, BX; \
	CMPQ      BX, $0xff; \
	JNE       stop

// START8 loads the half of points at (SI)(R10) into Y0 and sets Y4 =
// Y15 = t_0, Y3 = ρ_0, Y1 = p and Y2 = p² from the values at (DI)(R10);
// it uses Y5, Y6, Y12, Y13.
#define START8 \
	VMOVUPS (SI)(R10*1), Y0; \
	PRE8(Y0, Y4, Y12, Y13, Y5, Y15, Y3, Y6); \
	EXP8(Y15, Y4, Y12, Y13); \
	EXP8(Y3, Y4, Y12, Y13); \
	VMOVUPS (DI)(R10*1), Y1; \
	VMULPS  Y1, Y1, Y2; \
	VMOVAPS Y15, Y4

// CHAINS8 and STEP8 are softbin1d_amd64.s's CHAINS and STEP: t in Y4, ρ_0
// in Y3, t_1 in Y12, σ_0 in Y13, σ_1 in Y9.
#define CHAINS8 \
	VMULPS Y3, Y4, Y12; \
	VMULPS Y14, Y3, Y13; \
	VMULPS Y3, Y13, Y13; \
	VMULPS Y10, Y13, Y9

#define STEP8 \
	VMULPS Y13, Y4, Y4; \
	VMULPS Y9, Y12, Y12; \
	VMULPS Y11, Y13, Y13; \
	VMULPS Y11, Y9, Y9

// ACCBIN8 is softbin1d_amd64.s's ACCBIN: 1/Σt in Y5, p and p² in Y1, Y2;
// it uses Y6, Y7.
#define ACCBIN8(t, o0, o1, o2) \
	VMULPS      t, Y5, Y6; \
	VADDPS      o0(DX), Y6, Y7; \
	VMOVUPS     Y7, o0(DX); \
	VMOVUPS     o1(DX), Y7; \
	VFMADD231PS Y1, Y6, Y7; \
	VMOVUPS     Y7, o1(DX); \
	VMOVUPS     o2(DX), Y7; \
	VFMADD231PS Y2, Y6, Y7; \
	VMOVUPS     Y7, o2(DX)

// func softBinFwdAVX2(x, p *float32, rounds, ng int, a *float32, b int, c *softConsts, acc, tmp *float32) int
//
// softBinFwd16's sums on the rounds CHECK8 admits (b ≥ 2; a and tmp are
// unused).
TEXT ·softBinFwdAVX2(SB), NOSPLIT, $16-80
	FLUSHON(mxcsr-12(SP), flush-16(SP))
	MOVQ         x+0(FP), SI
	MOVQ         p+8(FP), DI
	MOVQ         ng+24(FP), R9
	MOVQ         b+40(FP), R11
	MOVQ         c+48(FP), R8
	MOVQ         acc+56(FP), R12
	IMUL3Q       $192, R11, R13 // a vector's sums, in bytes
	VBROADCASTSS softConsts_gamma(R8), Y14
	VMULPS       Y14, Y14, Y10
	VMULPS       Y10, Y10, Y11
	XORQ         AX, AX

fround:
	CMPQ AX, rounds+16(FP)
	JGE  fdone
	CHECK8(fdone, fcheck)
	MOVQ R12, R15               // the vector's sums
	MOVQ R9, R14

fvec:
	XORQ R10, R10               // the half's offset

fhalf:
	LEAQ    (R15)(R10*1), DX
	START8
	VXORPS  Y5, Y5, Y5
	VXORPS  Y8, Y8, Y8
	CHAINS8
	MOVQ    R11, CX
	SHRQ    $1, CX

fsum:
	VADDPS Y4, Y5, Y5
	VADDPS Y12, Y8, Y8
	STEP8
	DECQ   CX
	JNZ    fsum
	TESTQ  $1, R11
	JZ     fpair
	VADDPS Y4, Y5, Y5

fpair:
	VADDPS       Y8, Y5, Y5
	VBROADCASTSS softConsts_one(R8), Y6
	VDIVPS       Y5, Y6, Y5
	VMOVAPS      Y15, Y4
	CHAINS8
	MOVQ         R11, CX
	SHRQ         $1, CX

funi:
	ACCBIN8(Y4, 0, 64, 128)
	ACCBIN8(Y12, 192, 256, 320)
	STEP8
	ADDQ  $384, DX
	DECQ  CX
	JNZ   funi
	TESTQ $1, R11
	JZ    fnext
	ACCBIN8(Y4, 0, 64, 128)

fnext:
	ADDQ $32, R10
	CMPQ R10, $64
	JLT  fhalf
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ R13, R15
	DECQ R14
	JNZ  fvec
	INCQ AX
	JMP  fround

fdone:
	MOVQ AX, ret+72(FP)
	FLUSHOFF(mxcsr-12(SP))
	VZEROUPPER
	RET

// BWDBIN8 is softbin1d_amd64.s's BWDBIN: x in Y0, t in Y4, the table's
// dn, dm, dq, a at DX; sums Y5, Y9–Y15; it uses Y6.
#define BWDBIN8 \
	VADDPS      Y4, Y5, Y5; \
	VFMADD231PS (DX), Y4, Y9; \
	VFMADD231PS 64(DX), Y4, Y10; \
	VFMADD231PS 128(DX), Y4, Y11; \
	VSUBPS      192(DX), Y0, Y6; \
	VMULPS      Y4, Y6, Y6; \
	VADDPS      Y6, Y15, Y15; \
	VFMADD231PS (DX), Y6, Y12; \
	VFMADD231PS 64(DX), Y6, Y13; \
	VFMADD231PS 128(DX), Y6, Y14

// func softBinBwdAVX2(dx, dp, x, p *float32, rounds, ng int, a *float32, b int, c *softConsts, tab *float32) int
//
// softBinBwd16's gradients on the rounds CHECK8 admits (a is unused).
TEXT ·softBinBwdAVX2(SB), NOSPLIT, $16-88
	FLUSHON(mxcsr-12(SP), flush-16(SP))
	MOVQ dx+0(FP), R12
	MOVQ dp+8(FP), R13
	MOVQ x+16(FP), SI
	MOVQ p+24(FP), DI
	MOVQ ng+40(FP), R9
	MOVQ b+56(FP), R11
	MOVQ c+64(FP), R8
	XORQ AX, AX

bround:
	CMPQ AX, rounds+32(FP)
	JGE  bdone
	CHECK8(bdone, bcheck)
	MOVQ tab+72(FP), R15        // the vector's table
	MOVQ R9, R14

bvec:
	XORQ R10, R10               // the half's offset

bhalf:
	LEAQ         (R15)(R10*1), DX
	START8
	VXORPS       Y5, Y5, Y5
	VXORPS       Y9, Y9, Y9
	VXORPS       Y10, Y10, Y10
	VXORPS       Y11, Y11, Y11
	VXORPS       Y12, Y12, Y12
	VXORPS       Y13, Y13, Y13
	VXORPS       Y14, Y14, Y14
	VXORPS       Y15, Y15, Y15
	VBROADCASTSS softConsts_gamma(R8), Y8
	MOVQ         R11, CX

buni:
	BWDBIN8
	VMULPS Y3, Y4, Y4
	VMULPS Y8, Y3, Y3
	ADDQ   $256, DX
	DECQ   CX
	JNZ    buni

	VBROADCASTSS softConsts_one(R8), Y6
	VDIVPS       Y5, Y6, Y5
	VFMADD231PS  Y10, Y1, Y9
	VFMADD231PS  Y11, Y2, Y9
	VFMADD231PS  Y13, Y1, Y12
	VFMADD231PS  Y14, Y2, Y12
	VADDPS       Y1, Y1, Y6
	VFMADD231PS  Y11, Y6, Y10
	VMULPS       Y5, Y9, Y9
	VFNMADD231PS Y15, Y9, Y12
	VMULPS       Y5, Y12, Y12
	VBROADCASTSS softConsts_k(R8), Y6
	VADDPS       Y6, Y6, Y6
	VMULPS       Y6, Y12, Y12
	VADDPS       (R12)(R10*1), Y12, Y12
	VMOVUPS      Y12, (R12)(R10*1)
	VMULPS       Y5, Y10, Y10
	VADDPS       (R13)(R10*1), Y10, Y10
	VMOVUPS      Y10, (R13)(R10*1)
	ADDQ         $32, R10
	CMPQ         R10, $64
	JLT          bhalf
	ADDQ         $64, SI
	ADDQ         $64, DI
	ADDQ         $64, R12
	ADDQ         $64, R13
	MOVQ         R11, BX
	SHLQ         $8, BX
	ADDQ         BX, R15
	DECQ         R14
	JNZ          bvec
	INCQ         AX
	JMP          bround

bdone:
	MOVQ AX, ret+80(FP)
	FLUSHOFF(mxcsr-12(SP))
	VZEROUPPER
	RET
