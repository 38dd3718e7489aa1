//go:build !noasm

#include "textflag.h"
#include "softbin_amd64.h"

// The AVX-512 kernels of the soft bins of points of E ≥ 2 dimensions in
// one group (canonical), float32, 16 samples per round: x [rows, E] and p
// [rows, D] flat, each round's coordinates transposed (CTRANS) into the
// scratch at tmp, [E][16] then [D][16]. Per sample the
// logits z_j = k‖a_j‖² − 2k·x·(a_j − o) (k‖x − a_j‖² up to terms common
// to all j) come from the table cf: per anchor the bias k‖a_j‖², then the
// coefficients −2k(a_j − o)_c at its nonzero coordinates, whose byte
// offsets 64c into the gathered x are in nz after their count. Then
// t_j = e^{z_j − max z} (the exponent clamped at −104, below which e^x is
// 0 in float32, as the scalar loop sets it) and w_j = t_j/Σ t. Each round
// is first checked for non-finite x or p; the kernels stop before such a
// round and return the rounds done, for the caller to take it on the
// scalar path.

// CPERM transposes the n (1 ≤ n ≤ 16) vectors at R8 into n vectors at
// R14 by the table at DX + 64 (after the gather indices): per output
// vector an index and a source vector, its lane m being lane index[m] of
// the vector source[m] at R8, set by one masked permute per source. It
// leaves DX after the table and R14 after the outputs and uses R11, R15,
// CX, Z0, Z1, Z3, Z4, Z7, K1.
#define CPERM(n, lo, ls) \
	VPTERNLOGD $0xff, Z0, Z0, Z0; \
	ADDQ       $64, DX; \
	MOVQ       n, CX; \
lo: \
	VMOVDQU32  (DX), Z1; \
	VMOVDQU32  64(DX), Z3; \
	VPXORD     Z4, Z4, Z4; \
	VPXORD     Z7, Z7, Z7; \
	MOVQ       R8, R11; \
	MOVQ       n, R15; \
ls: \
	VPCMPEQD   Z4, Z3, K1; \
	VPERMPS    (R11), Z1, K1, Z7; \
	VPSUBD     Z0, Z4, Z4; \
	ADDQ       $64, R11; \
	DECQ       R15; \
	JNZ        ls; \
	VMOVUPS    Z7, (R14); \
	ADDQ       $64, R14; \
	ADDQ       $128, DX; \
	DECQ       CX; \
	JNZ        lo

// CTRANS transposes one round's n coordinates (x: n = E, p: n = D) by the
// table at DX (softCanon.trans: the gather indices l·n, then CPERM's), in
// the direction given by the table: from the rows [16][n] at R8 to
// coordinate vectors [n][16] at R14, or the inverse. Above 16 coordinates
// it gathers (rows to coordinates) or scatters by the indices
// instead of permuting (one: CGATHERONE or CSCATTERONE). It leaves DX after
// the table and uses R11, R15, CX, Z0, Z1, Z3, Z4, Z7, K1.
#define CTRANS(n, one, lo, ls, lg, lgl, ld) \
	CMPQ        n, $16; \
	JGT         lg; \
	CPERM(n, lo, ls); \
	JMP         ld; \
lg: \
	VMOVDQU32   (DX), Z1; \
	MOVQ        n, CX; \
	MOVQ        R8, R11; \
	MOVQ        R14, R15; \
lgl: \
	KXNORW      K1, K1, K1; \
	one; \
	DECQ        CX; \
	JNZ         lgl; \
	MOVQ        n, CX; \
	SHLQ        $7, CX; \
	LEAQ        64(DX)(CX*1), DX; \
ld:

// CGATHERONE gathers coordinate vector R15 from the rows at R11 and
// CSCATTERONE scatters coordinate vector R11 to the rows at R15, by the
// indices Z1 under the mask K1; both advance R11 and R15.
#define CGATHERONE \
	VGATHERDPS  (R11)(Z1*4), K1, Z3; \
	VMOVUPS     Z3, (R15); \
	ADDQ        $4, R11; \
	ADDQ        $64, R15
#define CSCATTERONE \
	VMOVUPS     (R11), Z3; \
	VSCATTERDPS Z3, K1, (R15)(Z1*4); \
	ADDQ        $64, R11; \
	ADDQ        $4, R15

// CINPUT transposes the round's points at SI and values at DI (the
// first two tables at trans) to the scratch at R13: x [E][16], then P
// [D+2][16] = 1, p, ‖p‖²; it sets BX to the scratch after them and uses
// R8, R11, R14, R15, CX, DX, Z0–Z4, Z7, K1. Like CLATTICE and CTERMS, a
// kernel expands it once (the labels are the kernel's).
#define CINPUT(trans) \
	MOVQ        trans, DX; \
	MOVQ        SI, R8; \
	MOVQ        R13, R14; \
	CTRANS(R9, CGATHERONE, inxperm, inxsrc, inxgather, inxgloop, inxdone); \
	MOVQ        R9, R8; \
	SHLQ        $6, R8; \
	ADDQ        R13, R8; \
	VMOVUPS     Z30, (R8); \
	LEAQ        64(R8), R14; \
	MOVQ        DI, R8; \
	CTRANS(R10, CGATHERONE, inpperm, inpsrc, inpgather, inpgloop, inpdone); \
	MOVQ        R9, R8; \
	SHLQ        $6, R8; \
	LEAQ        64(R13)(R8*1), R8; \
	MOVQ        R10, CX; \
	VXORPS      Z2, Z2, Z2; \
inpnorm: \
	VMOVUPS     (R8), Z1; \
	VFMADD231PS Z1, Z1, Z2; \
	ADDQ        $64, R8; \
	DECQ        CX; \
	JNZ         inpnorm; \
	VMOVUPS     Z2, (R8); \
	LEAQ        64(R8), BX

// CLATTICE sets the terms for lattice anchors (a_j = o + u·g_j, see
// anchorSet.lattice) from E exponentials instead of B: t_j =
// lift_j·Π_c F_c^{g_jc} with F_c = e^{γ(x_c − max x)}, γ = −2ku, [B][16]
// at BX, Z5 = Σ t and R15 after the terms, and jumps to done. The table
// lat holds γ, the bound below and lift_j; pw the largest power G, then
// per anchor the count of its nonzero g_jc and their byte offsets
// 64(cG + g_jc − 1) into the powers F_c^g, which it keeps after the terms.
// Every factor is at most 1, so no term underflows while
// γ·(min x − max x) is at least the bound, (−87 − ln min lift)/Σ_c g_jc;
// it falls through, having set nothing, when some lane is below it or γ
// is 0 (no lattice). It uses R8, R11, R12, R14, R15, DX, SI, DI, Z3, Z4,
// Z6, Z7, K1.
#define CLATTICE(lat, pw, done) \
	MOVQ           lat, R12; \
	MOVL           (R12), R8; \
	TESTL          R8, R8; \
	JZ             latnone; \
	MOVQ           R13, R8; \
	VMOVUPS        (R8), Z3; \
	VMOVAPS        Z3, Z4; \
	MOVQ           R9, R11; \
	DECQ           R11; \
latrange: \
	ADDQ           $64, R8; \
	VMAXPS         (R8), Z3, Z3; \
	VMINPS         (R8), Z4, Z4; \
	DECQ           R11; \
	JNZ            latrange; \
	VSUBPS         Z3, Z4, Z4; \
	VMULPS.BCST    (R12), Z4, Z4; \
	VCMPPS.BCST    $0x1d, 4(R12), Z4, K1; \
	KMOVW          K1, R8; \
	CMPL           R8, $0xffff; \
	JNE            latnone; \
	MOVQ           CX, SI; \
	SHLQ           $6, SI; \
	ADDQ           BX, SI; \
	MOVQ           pw, DI; \
	MOVLQSX        (DI), R11; \
	ADDQ           $4, DI; \
	MOVQ           R13, R8; \
	MOVQ           SI, R15; \
	MOVQ           R9, R14; \
latcoord: \
	VMOVUPS        (R8), Z4; \
	VSUBPS         Z3, Z4, Z4; \
	VMULPS.BCST    (R12), Z4, Z4; \
	EXP(Z4, Z6, Z7); \
	VMOVUPS        Z4, (R15); \
	ADDQ           $64, R15; \
	VMOVAPS        Z4, Z7; \
	MOVQ           R11, DX; \
	DECQ           DX; \
	JZ             latpowsdone; \
latpow: \
	VMULPS         Z4, Z7, Z7; \
	VMOVUPS        Z7, (R15); \
	ADDQ           $64, R15; \
	DECQ           DX; \
	JNZ            latpow; \
latpowsdone: \
	ADDQ           $64, R8; \
	DECQ           R14; \
	JNZ            latcoord; \
	ADDQ           $8, R12; \
	MOVQ           BX, R8; \
	MOVQ           CX, R14; \
	VXORPS         Z5, Z5, Z5; \
latanchor: \
	VBROADCASTSS   (R12), Z4; \
	ADDQ           $4, R12; \
	MOVLQSX        (DI), DX; \
	ADDQ           $4, DI; \
latnz: \
	MOVLQSX        (DI), R11; \
	VMULPS         (SI)(R11*1), Z4, Z4; \
	ADDQ           $4, DI; \
	DECQ           DX; \
	JNZ            latnz; \
	VMOVUPS        Z4, (R8); \
	VADDPS         Z4, Z5, Z5; \
	ADDQ           $64, R8; \
	DECQ           R14; \
	JNZ            latanchor; \
	MOVQ           R8, R15; \
	JMP            done; \
latnone:

// CTERMS sets the terms t_j, [B][16] at BX, for the tables cf and nz
// (loaded into DX and R14) of the b anchors (or lat and pw, CLATTICE),
// Z5 = Σ t and R15 to the scratch after the terms; it uses R8, R11, R12,
// R14, CX, DX, SI, DI, Z3, Z4, Z6, Z7, K1.
#define CTERMS(cf, nz, b, lat, pw) \
	MOVQ             cf, DX; \
	MOVQ             nz, R14; \
	MOVQ             b, CX; \
	CLATTICE(lat, pw, termsdone); \
	MOVQ             BX, R8; \
	MOVQ             CX, R11; \
termlogit: \
	VBROADCASTSS     (DX), Z4; \
	ADDQ             $4, DX; \
	MOVLQSX          (R14), R15; \
	ADDQ             $4, R14; \
	TESTQ            R15, R15; \
	JZ               termnzdone; \
termnz: \
	MOVLQSX          (R14), CX; \
	VMOVUPS          (R13)(CX*1), Z6; \
	VFMADD231PS.BCST (DX), Z6, Z4; \
	ADDQ             $4, DX; \
	ADDQ             $4, R14; \
	DECQ             R15; \
	JNZ              termnz; \
termnzdone: \
	VMOVUPS          Z4, (R8); \
	ADDQ             $64, R8; \
	DECQ             R11; \
	JNZ              termlogit; \
	MOVQ             R8, R15; \
	MOVQ             BX, R8; \
	VMOVUPS          (BX), Z3; \
termmax: \
	VMAXPS           (R8), Z3, Z3; \
	ADDQ             $64, R8; \
	CMPQ             R8, R15; \
	JNE              termmax; \
	MOVQ             BX, R8; \
	VXORPS           Z5, Z5, Z5; \
termexp: \
	VMOVUPS          (R8), Z4; \
	VSUBPS           Z3, Z4, Z4; \
	EXP(Z4, Z6, Z7); \
	VMOVUPS          Z4, (R8); \
	VADDPS           Z4, Z5, Z5; \
	ADDQ             $64, R8; \
	CMPQ             R8, R15; \
	JNE              termexp; \
termsdone:

// CROUND points SI and DI at round AX of the points x and values p, and
// loads E, D into R9, R10.
#define CROUND(x, p, e, d) \
	MOVQ  e, R9; \
	MOVQ  d, R10; \
	MOVQ  AX, SI; \
	IMULQ R9, SI; \
	SHLQ  $6, SI; \
	ADDQ  x, SI; \
	MOVQ  AX, DI; \
	IMULQ R10, DI; \
	SHLQ  $6, DI; \
	ADDQ  p, DI

// CSTART loads the constants at c, points R13 at the scratch tmp and sets
// the round AX to 0.
#define CSTART(c, tmp) \
	MOVQ      c, CX; \
	LOADCONSTS(CX); \
	MOVQ      tmp, R13; \
	XORQ      AX, AX

// CZERO zeroes CX vectors from R8.
#define CZERO(l) \
	VXORPS  Z6, Z6, Z6; \
l: \
	VMOVUPS Z6, (R8); \
	ADDQ    $64, R8; \
	DECQ    CX; \
	JNZ     l

// CFRAME points R13 at frame r mod 4 of the scratch tmp and loads E, D
// into R9, R10; it uses CX.
#define CFRAME(r, e, d, b, tmp) \
	MOVQ  e, R9; \
	MOVQ  d, R10; \
	LEAQ  2(R9)(R10*1), CX; \
	ADDQ  b, CX; \
	SHLQ  $6, CX; \
	MOVQ  r, R13; \
	ANDQ  $3, R13; \
	IMULQ CX, R13; \
	ADDQ  tmp, R13

// CLOADP loads column i of P/Σ t of the four frames, at o(R8) and F (R12)
// apart, into a, b, c, d; CLOADT loads t_j of the four frames at R11 into
// Z12–Z15; CACC adds their products to the sum at o(DX) through z.
#define CLOADP(a, b, c, d, o) \
	VMOVUPS o(R8), a; VMOVUPS o(R8)(R12*1), b; VMOVUPS o(R8)(R12*2), c; VMOVUPS o(R8)(R14*1), d

#define CLOADT \
	VMOVUPS (R11), Z12; VMOVUPS (R11)(R12*1), Z13; VMOVUPS (R11)(R12*2), Z14; VMOVUPS (R11)(R14*1), Z15

#define CACC(z, o, a, b, c, d) \
	VMOVUPS o(DX), z; VFMADD231PS a, Z12, z; VFMADD231PS b, Z13, z; VFMADD231PS c, Z14, z; VFMADD231PS d, Z15, z; \
	VMOVUPS z, o(DX)

// CTBASE points R11 at t_0 of frame 0 (tmp + 64(E + D + 2)), DX at the
// sums' column DI and BX at B.
#define CTBASE(b, tmp) \
	LEAQ 2(R9)(R10*1), R11; \
	SHLQ $6, R11; \
	ADDQ tmp, R11; \
	MOVQ DI, DX; \
	MOVQ b, BX

// CFLUSH adds the four frames' Σ_r t_r·P_r/Σ t_r to the sums at acc
// (frame 0 at tmp), three columns i of [B][D+2] at a time with their P_ri
// in registers, then one at a time; it loads E, D into R9, R10 and uses
// BX, CX, DX, SI, DI, R8, R11, R12, R14, Z0–Z18.
#define CFLUSH(e, d, b, acc, tmp, l3, lj3, l1, lj1, ld) \
	MOVQ  e, R9; \
	MOVQ  d, R10; \
	LEAQ  2(R9)(R10*1), R12; \
	ADDQ  b, R12; \
	SHLQ  $6, R12; \
	LEAQ  (R12)(R12*2), R14; \
	MOVQ  R9, R8; \
	SHLQ  $6, R8; \
	ADDQ  tmp, R8; \
	LEAQ  2(R10), CX; \
	MOVQ  CX, SI; \
	SHLQ  $6, SI; \
	MOVQ  acc, DI; \
l3: \
	CMPQ  CX, $3; \
	JLT   l1; \
	CLOADP(Z0, Z1, Z2, Z3, 0); \
	CLOADP(Z4, Z5, Z6, Z7, 64); \
	CLOADP(Z8, Z9, Z10, Z11, 128); \
	CTBASE(b, tmp); \
lj3: \
	CLOADT; \
	CACC(Z16, 0, Z0, Z1, Z2, Z3); \
	CACC(Z17, 64, Z4, Z5, Z6, Z7); \
	CACC(Z18, 128, Z8, Z9, Z10, Z11); \
	ADDQ  SI, DX; \
	ADDQ  $64, R11; \
	DECQ  BX; \
	JNZ   lj3; \
	ADDQ  $192, R8; \
	ADDQ  $192, DI; \
	SUBQ  $3, CX; \
	JMP   l3; \
l1: \
	TESTQ CX, CX; \
	JZ    ld; \
	CLOADP(Z0, Z1, Z2, Z3, 0); \
	CTBASE(b, tmp); \
lj1: \
	CLOADT; \
	CACC(Z16, 0, Z0, Z1, Z2, Z3); \
	ADDQ  SI, DX; \
	ADDQ  $64, R11; \
	DECQ  BX; \
	JNZ   lj1; \
	ADDQ  $64, R8; \
	ADDQ  $64, DI; \
	DECQ  CX; \
	JMP   l1; \
ld:

// func softCanonFwd16(x, p *float32, rounds, e, d int, cf *float32, nz *int32, b int, c *softConsts, trans *int32, acc, tmp, lat *float32, pw *int32) int
//
// Adds each sample's w_j, w_j·p and w_j·‖p‖² to the per-lane sums at acc,
// [B][D+2][16], four rounds at a time: round r's x, P/Σ t and t in frame
// r mod 4 of the scratch (tmp: 4 frames of E + D + 2 + B vectors, then
// room for the lattice's E·G powers, CLATTICE), then per sum
// acc += Σ_r t_r·P_r/Σ t_r (CFLUSH), the frames of missing rounds zeroed.
TEXT ·softCanonFwd16(SB), NOSPLIT, $8-120
	FLUSHON(mxcsr-4(SP), flush-8(SP))
	CSTART(c+64(FP), tmp+88(FP))

cfround:
	CMPQ  AX, rounds+16(FP)
	JGE   cfend
	CFRAME(AX, e+24(FP), d+32(FP), b+56(FP), tmp+88(FP))
	CROUND(x+0(FP), p+8(FP), e+24(FP), d+32(FP))
	FINITEXP(cfend, R9, R10)
	CINPUT(trans+72(FP))
	CTERMS(cf+40(FP), nz+48(FP), b+56(FP), lat+96(FP), pw+104(FP))
	VDIVPS Z5, Z30, Z5
	MOVQ  R9, R8
	SHLQ  $6, R8
	ADDQ  R13, R8
	LEAQ  2(R10), CX

cfscale:
	VMULPS  (R8), Z5, Z6
	VMOVUPS Z6, (R8)
	ADDQ    $64, R8
	DECQ    CX
	JNZ     cfscale
	INCQ    AX
	TESTQ   $3, AX
	JNZ     cfround
	CFLUSH(e+24(FP), d+32(FP), b+56(FP), acc+80(FP), tmp+88(FP), cff1, cff2, cff5, cff6, cff7)
	JMP     cfround

cfend:
	TESTQ $3, AX
	JZ    cfdone
	MOVQ  AX, BX

cfzero:
	CFRAME(BX, e+24(FP), d+32(FP), b+56(FP), tmp+88(FP))
	MOVQ  R9, R8
	SHLQ  $6, R8
	ADDQ  R13, R8
	LEAQ  2(R10), CX
	ADDQ  b+56(FP), CX
	CZERO(cfz)
	INCQ  BX
	TESTQ $3, BX
	JNZ   cfzero
	CFLUSH(e+24(FP), d+32(FP), b+56(FP), acc+80(FP), tmp+88(FP), cff3, cff4, cff8, cff9, cff10)

cfdone:
	MOVQ AX, ret+112(FP)
	FLUSHOFF(mxcsr-4(SP))
	VZEROUPPER
	RET

// CZERO8 zeroes the eight sums Z8–Z15, CFMA8 adds to them Z6 times the
// eight values at DX, CSTORE8 stores them from R11 and CDZ8 sets
// dz = (Z − dot)·t/Σ t for them, t at R8, to R14 (softCanonBwd16).
#define CZERO8 \
	VXORPS Z8, Z8, Z8; VXORPS Z9, Z9, Z9; VXORPS Z10, Z10, Z10; VXORPS Z11, Z11, Z11; \
	VXORPS Z12, Z12, Z12; VXORPS Z13, Z13, Z13; VXORPS Z14, Z14, Z14; VXORPS Z15, Z15, Z15

#define CFMA8 \
	VFMADD231PS.BCST (DX), Z6, Z8; VFMADD231PS.BCST 4(DX), Z6, Z9; \
	VFMADD231PS.BCST 8(DX), Z6, Z10; VFMADD231PS.BCST 12(DX), Z6, Z11; \
	VFMADD231PS.BCST 16(DX), Z6, Z12; VFMADD231PS.BCST 20(DX), Z6, Z13; \
	VFMADD231PS.BCST 24(DX), Z6, Z14; VFMADD231PS.BCST 28(DX), Z6, Z15

#define CSTORE8 \
	VMOVUPS Z8, (R11); VMOVUPS Z9, 64(R11); VMOVUPS Z10, 128(R11); VMOVUPS Z11, 192(R11); \
	VMOVUPS Z12, 256(R11); VMOVUPS Z13, 320(R11); VMOVUPS Z14, 384(R11); VMOVUPS Z15, 448(R11)

#define CDZ(z, o) \
	VSUBPS Z17, z, z; VMULPS o(R8), z, z; VMULPS Z5, z, z; VMOVUPS z, o(R14)

#define CDZ8 \
	CDZ(Z8, 0); CDZ(Z9, 64); CDZ(Z10, 128); CDZ(Z11, 192); \
	CDZ(Z12, 256); CDZ(Z13, 320); CDZ(Z14, 384); CDZ(Z15, 448)

// COUT transposes the n coordinate vectors at R8 into round AX's rows of
// the output at base, by the table at DX (CTRANS).
#define COUT(n, base, l1, l2, l3, l4, l5) \
	MOVQ  AX, R14; \
	IMULQ n, R14; \
	SHLQ  $6, R14; \
	ADDQ  base, R14; \
	CTRANS(n, CSCATTERONE, l1, l2, l3, l4, l5)

// func softCanonBwd16(dx, dp, x, p *float32, rounds, e, d int, cf *float32, nz *int32, b int, c *softConsts, trans *int32, tab, off, tmp, lat *float32, pw *int32) int
//
// Sets dx and dp to the gradients of each sample's statistics for their
// gradient ds [B][D+2] (dn, dm, dq per anchor) and the anchors' common
// offset o [E] (off). With P = (1, p, ‖p‖²), dw_j = ds_j·P, the sums
// S_i = Σ_j t_j·ds_ji, dot = Σ_j w_j·dw_j = S·P/Σ t and
// dz_j = w_j·(dw_j − dot): dx = 2k·Σ_j dz_j·(x − a_j) = 2k·(x − o)·Σ_j dz_j
// + Σ_j dz_j·(−2k)(a_j − o) (the second sum over the nonzero coordinates,
// with cf's coefficients) and dp = (S_dm + 2p·S_dq)/Σ t. S and dw run 8
// columns or 8 anchors at a time (8 independent sums) from tab: ds by
// blocks of columns, [⌈(D+2)/8⌉][B][8], then by blocks of anchors,
// [⌈B/8⌉][D+2][8], zero-padded (softCanon.table). tmp holds
// 2E + D + 2 + 2B' + C' + E·G vectors (B' and C': B and D + 2 rounded up
// to a multiple of 8; G: the lattice's largest power, CLATTICE): the
// transposed x and P, t, dz, S and the sums for dx (the lattice's powers
// after t, before dz is set).
TEXT ·softCanonBwd16(SB), NOSPLIT, $8-144
	FLUSHON(mxcsr-4(SP), flush-8(SP))
	CSTART(c+80(FP), tmp+112(FP))

cbround:
	CMPQ AX, rounds+32(FP)
	JGE  cbdone
	CROUND(x+16(FP), p+24(FP), e+40(FP), d+48(FP))
	FINITEXP(cbdone, R9, R10)
	CINPUT(trans+88(FP))
	CTERMS(cf+56(FP), nz+64(FP), b+72(FP), lat+120(FP), pw+128(FP))
	VDIVPS Z5, Z30, Z5

	// t is zero from B to B'; dz at SI (after t), S at DI (after dz).
	MOVQ   b+72(FP), R12
	ADDQ   $7, R12
	ANDQ   $-8, R12
	SHLQ   $6, R12
	LEAQ   (BX)(R12*1), SI
	LEAQ   (SI)(R12*1), DI
	MOVQ   R15, R8
	VXORPS Z6, Z6, Z6

cbpad:
	CMPQ    R8, SI
	JEQ     cbs0
	VMOVUPS Z6, (R8)
	ADDQ    $64, R8
	JMP     cbpad

	// S, 8 columns at a time.
cbs0:
	MOVQ tab+96(FP), DX
	MOVQ DI, R11
	LEAQ 9(R10), R12
	SHRQ $3, R12

cbs:
	CZERO8
	MOVQ             BX, R8

cbsj:
	VMOVUPS          (R8), Z6
	CFMA8
	ADDQ             $32, DX
	ADDQ             $64, R8
	CMPQ             R8, R15
	JNE              cbsj
	CSTORE8
	ADDQ             $512, R11
	DECQ             R12
	JNZ              cbs

	// Z17 = dot = S·P/Σ t.
	MOVQ        R9, R8
	SHLQ        $6, R8
	ADDQ        R13, R8
	MOVQ        DI, R14
	LEAQ        2(R10), CX
	VXORPS      Z17, Z17, Z17

cbdot:
	VMOVUPS     (R8), Z6
	VFMADD231PS (R14), Z6, Z17
	ADDQ        $64, R8
	ADDQ        $64, R14
	DECQ        CX
	JNZ         cbdot
	VMULPS      Z5, Z17, Z17

	// dz_j = (dw_j − dot)·t_j/Σ t, 8 anchors at a time (DX at the second
	// table).
	MOVQ BX, R8
	MOVQ SI, R14

cbw:
	CZERO8
	MOVQ             R9, R11
	SHLQ             $6, R11
	ADDQ             R13, R11
	LEAQ             2(R10), CX

cbwi:
	VMOVUPS          (R11), Z6
	CFMA8
	ADDQ             $32, DX
	ADDQ             $64, R11
	DECQ             CX
	JNZ              cbwi
	CDZ8
	ADDQ             $512, R8
	ADDQ             $512, R14
	CMPQ             R8, SI
	JNE              cbw

	// Z11 = Σ dz and the sums for dx at R12 (after S), by the nonzero
	// coordinates; R11 at the end of dz.
	LEAQ   9(R10), R12
	SHRQ   $3, R12
	SHLQ   $9, R12
	ADDQ   DI, R12
	MOVQ   R12, R8
	MOVQ   R9, CX
	CZERO(cbzx)
	VXORPS Z11, Z11, Z11
	MOVQ   R15, R11
	SUBQ   BX, R11
	ADDQ   SI, R11
	MOVQ   SI, R8
	MOVQ   cf+56(FP), DX
	MOVQ   nz+64(FP), R14

cbdz:
	VMOVUPS (R8), Z6
	VADDPS  Z6, Z11, Z11
	ADDQ    $4, DX
	MOVLQSX (R14), CX
	ADDQ    $4, R14
	TESTQ   CX, CX
	JZ      cbdzd

cbnzb:
	MOVLQSX          (R14), R15
	VMOVUPS          (R12)(R15*1), Z7
	VFMADD231PS.BCST (DX), Z6, Z7
	VMOVUPS          Z7, (R12)(R15*1)
	ADDQ             $4, DX
	ADDQ             $4, R14
	DECQ             CX
	JNZ              cbnzb

cbdzd:
	ADDQ $64, R8
	CMPQ R8, R11
	JNE  cbdz

	// dx = 2k·(x − o)·Σ dz + the sums at R12, in place, then transposed
	// to the rows (the third table at trans).
	VADDPS Z20, Z20, Z12
	VMULPS Z11, Z12, Z12
	MOVQ   R13, R8
	MOVQ   off+104(FP), DX
	MOVQ   R12, R14
	MOVQ   R9, CX

cbdx:
	VMOVUPS     (R8), Z6
	VSUBPS.BCST (DX), Z6, Z6
	VMULPS      Z12, Z6, Z6
	VADDPS      (R14), Z6, Z6
	VMOVUPS     Z6, (R14)
	ADDQ        $64, R8
	ADDQ        $64, R14
	ADDQ        $4, DX
	DECQ        CX
	JNZ         cbdx
	MOVQ        R9, CX
	ADDQ        R10, CX
	SHLQ        $7, CX
	MOVQ        trans+88(FP), DX
	LEAQ        128(DX)(CX*1), DX
	MOVQ        R12, R8
	COUT(R9, dx+0(FP), cbt1, cbt2, cbt3, cbt4, cbt5)

	// dp = (S_dm + 2p·S_dq)/Σ t in place of S_dm, then transposed (the
	// last table).
	LEAQ        1(R10), CX
	SHLQ        $6, CX
	VMOVUPS     (DI)(CX*1), Z10
	VADDPS      Z10, Z10, Z10
	MOVQ        R9, R8
	SHLQ        $6, R8
	LEAQ        64(R13)(R8*1), R8
	ADDQ        $64, DI
	MOVQ        DI, R14
	MOVQ        R10, CX

cbdp:
	VMOVUPS     (R8), Z6
	VFMADD213PS (R14), Z10, Z6
	VMULPS      Z5, Z6, Z6
	VMOVUPS     Z6, (R14)
	ADDQ        $64, R8
	ADDQ        $64, R14
	DECQ        CX
	JNZ         cbdp
	MOVQ        DI, R8
	COUT(R10, dp+8(FP), cbt6, cbt7, cbt8, cbt9, cbt10)
	INCQ        AX
	JMP         cbround

cbdone:
	MOVQ AX, ret+136(FP)
	FLUSHOFF(mxcsr-4(SP))
	VZEROUPPER
	RET
