//go:build !noasm

#include "textflag.h"
#include "softbin_amd64.h"

// The AVX-512 kernels of the 1-D soft bins (softbin_amd64.go), float32, 16
// samples per vector. The points x and values p are [rows, g] flat; a round
// is 16 rows, g vectors, vector v of a round holding the flat elements
// 16v…16v+15, so that its lane l belongs to group (16v + l) mod g whatever
// the round: the per-bin sums and the gradient table are laid out per
// vector of a round, [g][b][3][16] (soft count, weighted sum, weighted
// square). Each round is first checked for non-finite x or p; the kernels
// stop before such a round and return the rounds done, for the caller to
// take it on the scalar path.
//
// Per sample: u² = min_j (x − a_j)², t_j = e^{k((x − a_j)² − u²)} (the
// largest term is 1), w_j = t_j/Σ t.

// MINSQ sets Z3 = u² = min_j (x − a_j)² for x in Z0 over the b (R11)
// anchors at R10; it uses R15, CX, Z4.
#define MINSQ(loop) \
	VBROADCASTSS (R10), Z3; \
	VSUBPS       Z3, Z0, Z3; \
	VMULPS       Z3, Z3, Z3; \
	MOVQ         R10, R15; \
	MOVQ         R11, CX; \
loop: \
	VBROADCASTSS (R15), Z4; \
	VSUBPS       Z4, Z0, Z4; \
	VMULPS       Z4, Z4, Z4; \
	VMINPS       Z4, Z3, Z3; \
	ADDQ         $4, R15; \
	DECQ         CX; \
	JNZ          loop

// TERM sets Z4 = t_j = e^{k((x − a_j)² − u²)} for the anchor at R15, x in
// Z0 and u² in Z3; it uses Z6, Z7.
#define TERM \
	VBROADCASTSS (R15), Z4; \
	VSUBPS       Z4, Z0, Z4; \
	VMULPS       Z4, Z4, Z4; \
	VSUBPS       Z3, Z4, Z4; \
	VMULPS       Z20, Z4, Z4; \
	EXP(Z4, Z6, Z7)

// PRELUDE starts the vector of points in x on equally spaced anchors (a_j =
// a_0 + j·h), where the terms follow from one another, t_{j+1} = t_j·ρ_j
// and ρ_{j+1} = ρ_j·γ with ρ_j = e^{k(h² − 2h(x − a_j))}, γ = e^{2kh²}: it
// sets t = t_0 and r = ρ_0 (u² from the nearest anchor), and BX to the
// mask of the lanes whose first and last exponents of t and ρ lie within
// ±40 (no term underflows, no product of two ratios overflows; the
// constants at R8, a softConsts, have lo = +∞ in place of −40 when the
// anchors are not equally spaced): the
// vector takes the generic path unless it is 0xffff. The kernels run it
// for the next vector before the current one's bins, so that its chain of
// dependent instructions overlaps their work (x past the last vector is
// the last one again). It uses a–d, K1, K2.
#define PRELUDE(x, t, r, a, b, c, d) \
	VBROADCASTSS softConsts_a0(R8), t; \
	VSUBPS       t, x, t; \
	VBROADCASTSS softConsts_invStep(R8), r; \
	VMULPS       r, t, r; \
	VRNDSCALEPS  $0, r, r; \
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
	VMULPS       Z20, c, c; \
	VBROADCASTSS softConsts_aLast(R8), r; \
	VSUBPS       r, x, r; \
	VMULPS       r, r, r; \
	VSUBPS       b, r, r; \
	VMULPS       Z20, r, r; \
	VMINPS       r, c, r; \
	VBROADCASTSS softConsts_kh2(R8), d; \
	VBROADCASTSS softConsts_m2kh(R8), a; \
	VFMADD231PS  a, t, d; \
	VBROADCASTSS softConsts_span(R8), a; \
	VADDPS       d, a, a; \
	VMINPS       d, r, r; \
	VMINPS       a, r, r; \
	VMAXPS       d, a, a; \
	VBROADCASTSS softConsts_lo(R8), b; \
	VCMPPS       $29, b, r, K1; \
	VBROADCASTSS softConsts_hi(R8), b; \
	VCMPPS       $18, b, a, K2; \
	KANDW        K1, K2, K1; \
	KMOVW        K1, BX; \
	EXP(c, a, b); \
	VMOVAPS      c, t; \
	EXP(d, a, b); \
	VMOVAPS      d, r

// NEXTX loads into x the vector of points after the one at SI, or the one
// at SI if that is the call's last (at last), and points R8 at the table c.
#define NEXTX(x, last, c) \
	LEAQ    64(SI), CX; \
	CMPQ    CX, last; \
	CMOVQGT last, CX; \
	VMOVUPS (CX), x; \
	MOVQ    c, R8

// LASTX sets last to the address of the call's last vector of points,
// x + 64(rounds·g − 1), and jumps to done if there is none; it uses AX.
#define LASTX(rounds, last, done) \
	MOVQ  rounds, AX; \
	IMULQ R9, AX; \
	TESTQ AX, AX; \
	JLE   done; \
	DECQ  AX; \
	SHLQ  $6, AX; \
	ADDQ  SI, AX; \
	MOVQ  AX, last

// CHAINS starts the two chains of terms on equally spaced anchors from
// t_0 (Z4) and ρ_0 (Z17): even and odd j, t_{j+2} = t_j·σ_j with
// σ_j = ρ_j·ρ_{j+1} and σ_{j+2} = σ_j·γ⁴ (γ² in Z10, γ⁴ in Z11): t_1 in
// Z18, σ_0 in Z19, σ_1 in Z9. STEP moves both chains on by two bins.
#define CHAINS \
	VMULPS Z17, Z4, Z18; \
	VMULPS Z16, Z17, Z19; \
	VMULPS Z17, Z19, Z19; \
	VMULPS Z10, Z19, Z9

#define STEP \
	VMULPS Z19, Z4, Z4; \
	VMULPS Z9, Z18, Z18; \
	VMULPS Z11, Z19, Z19; \
	VMULPS Z11, Z9, Z9

// ACCBIN adds w = t·(1/Σt) (1/Σt in Z5), w·p and w·p² (p, p² in Z1, Z2) to
// the sums at o0, o1, o2(DX); it uses Z6, Z7.
#define ACCBIN(t, o0, o1, o2) \
	VMULPS      t, Z5, Z6; \
	VADDPS      o0(DX), Z6, Z7; \
	VMOVUPS     Z7, o0(DX); \
	VMOVUPS     o1(DX), Z7; \
	VFMADD231PS Z1, Z6, Z7; \
	VMOVUPS     Z7, o1(DX); \
	VMOVUPS     o2(DX), Z7; \
	VFMADD231PS Z2, Z6, Z7; \
	VMOVUPS     Z7, o2(DX)

// func softBinFwd16(x, p *float32, rounds, ng int, a *float32, b int, c *softConsts, acc, tmp *float32) int
//
// Adds each sample's w_j, w_j·p and w_j·p² to the per-vector sums at acc;
// tmp holds b vectors of terms. On equally spaced anchors the terms follow
// in two chains (CHAINS), summed apart (half the latency of one chain),
// then made again for the sums rather than stored and loaded (the stores
// bound the loop).
TEXT ·softBinFwd16(SB), NOSPLIT, $16-80
	FLUSHON(mxcsr-12(SP), flush-16(SP))
	MOVQ x+0(FP), SI
	MOVQ p+8(FP), DI
	MOVQ ng+24(FP), R9
	MOVQ a+32(FP), R10
	MOVQ b+40(FP), R11
	MOVQ c+48(FP), R8
	MOVQ acc+56(FP), R12
	MOVQ tmp+64(FP), R13
	LOADCONSTS(R8)
	VMULPS Z16, Z16, Z10
	VMULPS Z10, Z10, Z11
	XORQ   AX, AX
	LASTX(rounds+16(FP), last-8(SP), fdone)
	XORQ    AX, AX
	VMOVUPS (SI), Z12
	PRELUDE(Z12, Z13, Z14, Z3, Z6, Z7, Z15)

fround:
	CMPQ AX, rounds+16(FP)
	JGE  fdone
	FINITEXP(fdone, R9, R9)
	MOVQ R12, DX
	MOVQ R9, R14

fvec:
	VMOVAPS Z12, Z0
	VMOVAPS Z13, Z4
	VMOVAPS Z14, Z17
	MOVQ    BX, R15
	NEXTX(Z12, last-8(SP), c+48(FP))
	PRELUDE(Z12, Z13, Z14, Z3, Z6, Z7, Z15)
	VMOVUPS (DI), Z1
	VMULPS  Z1, Z1, Z2
	CMPQ    R15, $0xffff
	JNE     fgeneric
	VMOVAPS Z4, Z15
	VMOVAPS Z17, Z3
	VXORPS  Z5, Z5, Z5
	VXORPS  Z8, Z8, Z8
	CHAINS
	MOVQ    R11, CX
	SHRQ    $1, CX

fsum:
	VADDPS Z4, Z5, Z5
	VADDPS Z18, Z8, Z8
	STEP
	DECQ   CX
	JNZ    fsum
	TESTQ  $1, R11
	JZ     fpair
	VADDPS Z4, Z5, Z5

fpair:
	VADDPS  Z8, Z5, Z5
	VDIVPS  Z5, Z30, Z5
	VMOVAPS Z15, Z4
	VMOVAPS Z3, Z17
	CHAINS
	MOVQ    R11, CX
	SHRQ    $1, CX

funi:
	ACCBIN(Z4, 0, 64, 128)
	ACCBIN(Z18, 192, 256, 320)
	STEP
	ADDQ  $384, DX
	DECQ  CX
	JNZ   funi
	TESTQ $1, R11
	JZ    fnext
	ACCBIN(Z4, 0, 64, 128)
	ADDQ  $192, DX
	JMP   fnext

fgeneric:
	MINSQ(fmin)
	VXORPS  Z5, Z5, Z5
	MOVQ    R10, R15
	MOVQ    R13, R8
	MOVQ    R11, CX

fexp:
	TERM
	VMOVUPS      Z4, (R8)
	VADDPS       Z4, Z5, Z5
	ADDQ         $4, R15
	ADDQ         $64, R8
	DECQ         CX
	JNZ          fexp
	VDIVPS       Z5, Z30, Z5
	MOVQ         R13, R8
	MOVQ         R11, CX

facc:
	ACCBIN((R8), 0, 64, 128)
	ADDQ $64, R8
	ADDQ $192, DX
	DECQ CX
	JNZ  facc

fnext:
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ R14
	JNZ  fvec
	INCQ AX
	JMP  fround

fdone:
	MOVQ AX, ret+72(FP)
	FLUSHOFF(mxcsr-12(SP))
	VZEROUPPER
	RET

// BWDBIN adds bin j's terms to the backward sums, t in Z4, x in Z0 and
// the table's dn, dm, dq, a at DX, with d = x − a (in Z7): Σt (Z5),
// Σt·dn, Σt·dm, Σt·dq (Z9–Z11), Σt·d·dn, Σt·d·dm, Σt·d·dq (Z12–Z14),
// Σt·d (Z15).
#define BWDBIN \
	VADDPS      Z4, Z5, Z5; \
	VFMADD231PS (DX), Z4, Z9; \
	VFMADD231PS 64(DX), Z4, Z10; \
	VFMADD231PS 128(DX), Z4, Z11; \
	VSUBPS      192(DX), Z0, Z7; \
	VMULPS      Z4, Z7, Z7; \
	VADDPS      Z7, Z15, Z15; \
	VFMADD231PS (DX), Z7, Z12; \
	VFMADD231PS 64(DX), Z7, Z13; \
	VFMADD231PS 128(DX), Z7, Z14

#define BWDZERO \
	VXORPS Z5, Z5, Z5; \
	VXORPS Z9, Z9, Z9; \
	VXORPS Z10, Z10, Z10; \
	VXORPS Z11, Z11, Z11; \
	VXORPS Z12, Z12, Z12; \
	VXORPS Z13, Z13, Z13; \
	VXORPS Z14, Z14, Z14; \
	VXORPS Z15, Z15, Z15

// func softBinBwd16(dx, dp, x, p *float32, rounds, ng int, a *float32, b int, c *softConsts, tab *float32) int
//
// Adds to dx and dp the gradients of each sample's statistics for the
// per-vector table tab of their gradients and the anchors, [g][b][4][16]
// (dn, dm, dq, a): with dw_j = dn_j + dm_j·p + dq_j·p², d_j = x − a_j and
// dot = Σ_j w_j·dw_j, dx = 2k·Σ_j w_j·(dw_j − dot)·d_j
// = 2k·(Σ_j w_j·d_j·dw_j − dot·Σ_j w_j·d_j) and dp = Σ_j w_j·(dm_j + 2dq_j·p),
// from the sums of BWDBIN.
TEXT ·softBinBwd16(SB), NOSPLIT, $16-88
	FLUSHON(mxcsr-12(SP), flush-16(SP))
	MOVQ dx+0(FP), R12
	MOVQ dp+8(FP), R13
	MOVQ x+16(FP), SI
	MOVQ p+24(FP), DI
	MOVQ ng+40(FP), R9
	MOVQ a+48(FP), R10
	MOVQ b+56(FP), R11
	MOVQ c+64(FP), R8
	LOADCONSTS(R8)
	XORQ AX, AX
	LASTX(rounds+32(FP), last-8(SP), bdone)
	XORQ    AX, AX
	VMOVUPS (SI), Z8
	PRELUDE(Z8, Z18, Z19, Z3, Z6, Z7, Z15)

bround:
	CMPQ   AX, rounds+32(FP)
	JGE    bdone
	FINITEXP(bdone, R9, R9)
	MOVQ     tab+72(FP), DX
	MOVQ     R9, R14

bvec:
	VMOVAPS Z8, Z0
	VMOVAPS Z18, Z4
	VMOVAPS Z19, Z17
	MOVQ    BX, R15
	NEXTX(Z8, last-8(SP), c+64(FP))
	PRELUDE(Z8, Z18, Z19, Z3, Z6, Z7, Z15)
	VMOVUPS (DI), Z1
	VMULPS  Z1, Z1, Z2
	CMPQ    R15, $0xffff
	JNE     bgeneric
	BWDZERO
	MOVQ    R11, CX

buni:
	BWDBIN
	VMULPS Z17, Z4, Z4
	VMULPS Z16, Z17, Z17
	ADDQ   $256, DX
	DECQ   CX
	JNZ    buni
	JMP    bnorm

bgeneric:
	MINSQ(bmin)
	BWDZERO
	MOVQ         R10, R15
	MOVQ         R11, CX

bbin:
	TERM
	BWDBIN
	ADDQ         $4, R15
	ADDQ         $256, DX
	DECQ         CX
	JNZ          bbin

bnorm:
	VDIVPS       Z5, Z30, Z5
	VFMADD231PS  Z10, Z1, Z9
	VFMADD231PS  Z11, Z2, Z9
	VFMADD231PS  Z13, Z1, Z12
	VFMADD231PS  Z14, Z2, Z12
	VADDPS       Z1, Z1, Z6
	VFMADD231PS  Z11, Z6, Z10
	VMULPS       Z5, Z9, Z9
	VFNMADD231PS Z15, Z9, Z12
	VMULPS       Z5, Z12, Z12
	VADDPS       Z20, Z20, Z6
	VMULPS       Z6, Z12, Z12
	VADDPS       (R12), Z12, Z12
	VMOVUPS      Z12, (R12)
	VMULPS       Z5, Z10, Z10
	VADDPS       (R13), Z10, Z10
	VMOVUPS      Z10, (R13)
	ADDQ         $64, SI
	ADDQ         $64, DI
	ADDQ         $64, R12
	ADDQ         $64, R13
	DECQ         R14
	JNZ          bvec
	INCQ         AX
	JMP          bround

bdone:
	MOVQ AX, ret+80(FP)
	FLUSHOFF(mxcsr-12(SP))
	VZEROUPPER
	RET
