//go:build !noasm

#include "textflag.h"
#include "go_asm.h"

// EXP64 sets v = e^v (float64, 8 lanes) with the constants of LOAD64: v
// clamped to [−746, 710] (NaN kept: the max and min return their second
// source, v, when either is NaN), n = round(v·log2 e), r = v − n·ln 2 in
// two parts, e^r = 1 + (r + r²·P(r)) with P the Taylor polynomial of
// degree 11 by Horner's rule, scaled by 2^n (VSCALEFPD, which rounds once
// into the subnormals and overflows to +∞). n, r, p are scratch.
#define EXP64(v, n, r, p) \
	VMAXPD       v, Z14, v; \
	VMINPD       v, Z15, v; \
	VMULPD       Z16, v, n; \
	VRNDSCALEPD  $0, n, n; \
	VMOVAPD      v, r; \
	VFNMADD231PD Z17, n, r; \
	VFNMADD231PD Z18, n, r; \
	VMOVAPD      Z20, p; \
	VFMADD213PD  Z21, r, p; \
	VFMADD213PD  Z22, r, p; \
	VFMADD213PD  Z23, r, p; \
	VFMADD213PD  Z24, r, p; \
	VFMADD213PD  Z25, r, p; \
	VFMADD213PD  Z26, r, p; \
	VFMADD213PD  Z27, r, p; \
	VFMADD213PD  Z28, r, p; \
	VFMADD213PD  Z29, r, p; \
	VFMADD213PD  Z30, r, p; \
	VFMADD213PD  Z31, r, p; \
	VMULPD       r, r, v; \
	VFMADD213PD  r, v, p; \
	VADDPD       Z19, p, p; \
	VSCALEFPD    n, p, v

// LOAD64 broadcasts the exp64Consts at c into Z14–Z31.
#define LOAD64(c) \
	VBROADCASTSD exp64Consts_lo(c), Z14; \
	VBROADCASTSD exp64Consts_hi(c), Z15; \
	VBROADCASTSD exp64Consts_log2e(c), Z16; \
	VBROADCASTSD exp64Consts_ln2Hi(c), Z17; \
	VBROADCASTSD exp64Consts_ln2Lo(c), Z18; \
	VBROADCASTSD exp64Consts_one(c), Z19; \
	VBROADCASTSD exp64Consts_c+0(c), Z20; \
	VBROADCASTSD exp64Consts_c+8(c), Z21; \
	VBROADCASTSD exp64Consts_c+16(c), Z22; \
	VBROADCASTSD exp64Consts_c+24(c), Z23; \
	VBROADCASTSD exp64Consts_c+32(c), Z24; \
	VBROADCASTSD exp64Consts_c+40(c), Z25; \
	VBROADCASTSD exp64Consts_c+48(c), Z26; \
	VBROADCASTSD exp64Consts_c+56(c), Z27; \
	VBROADCASTSD exp64Consts_c+64(c), Z28; \
	VBROADCASTSD exp64Consts_c+72(c), Z29; \
	VBROADCASTSD exp64Consts_c+80(c), Z30; \
	VBROADCASTSD exp64Consts_c+88(c), Z31

// SUM4 sets X10's low lane to the sum of Y10's 4 lanes, (0+2)+(1+3);
// X11 is scratch.
#define SUM4 \
	VEXTRACTF128 $1, Y10, X11; \
	VADDPD       X11, X10, X10; \
	VPERMILPD    $1, X10, X11; \
	VADDSD       X11, X10, X10

// func expScaled64(dst, src *float64, n int, shift, t float64, c *exp64Consts) float64
//
// Sets dst[i] = e^((src[i] − shift)/t) for i < n (n ≥ 1; dst may be src)
// and returns their sum, added in 8 lanes and then across them.
TEXT ·expScaled64(SB), NOSPLIT, $0-56
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD shift+24(FP), Z0
	VBROADCASTSD t+32(FP), Z1
	MOVQ         c+40(FP), R8
	LOAD64(R8)
	VXORPD       Z10, Z10, Z10

xloop:
	CMPQ    CX, $8
	JLT     xtail
	VMOVUPD (SI), Z2
	VSUBPD  Z0, Z2, Z2
	VDIVPD  Z1, Z2, Z2
	EXP64(Z2, Z3, Z4, Z5)
	VMOVUPD Z2, (DI)
	VADDPD  Z2, Z10, Z10
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $8, CX
	JMP     xloop

xtail:
	TESTQ     CX, CX
	JZ        xdone
	MOVL      $1, AX
	SHLL      CX, AX
	DECL      AX
	KMOVW     AX, K1
	VMOVUPD.Z (SI), K1, Z2
	VSUBPD    Z0, Z2, Z2
	VDIVPD    Z1, Z2, Z2
	EXP64(Z2, Z3, Z4, Z5)
	VMOVAPD.Z Z2, K1, Z2
	VMOVUPD   Z2, K1, (DI)
	VADDPD    Z2, Z10, Z10

xdone:
	VEXTRACTF64X4 $1, Z10, Y11
	VADDPD        Y11, Y10, Y10
	SUM4
	VMOVSD X10, ret+48(FP)
	VZEROUPPER
	RET

// EXP64Y sets v = e^v (float64, 4 lanes) as EXP64 does, for AVX2 and FMA:
// the clamps and log2 e in Y12–Y14, the other constants read from the
// exp64Wide at R8. VSCALEFPD's 2^n is two factors 2^n₁·2^n₂, n₁ = ⌊n/2⌋
// and n₂ = n − n₁, each built in the exponent bits (n + 1023 + 2^52
// shifted left by 52): both are normal for every clamped n, p·2^n₁ is
// exact, and the second product rounds once as VSCALEFPD does, so the
// lanes equal EXP64's bit for bit. n, r, p are scratch.
#define EXP64Y(v, n, r, p) \
	VMAXPD       v, Y12, v; \
	VMINPD       v, Y13, v; \
	VMULPD       Y14, v, n; \
	VROUNDPD     $0, n, n; \
	VMOVAPD      v, r; \
	VFNMADD231PD exp64Wide_ln2Hi(R8), n, r; \
	VFNMADD231PD exp64Wide_ln2Lo(R8), n, r; \
	VMOVAPD      exp64Wide_c+0(R8), p; \
	VFMADD213PD  exp64Wide_c+32(R8), r, p; \
	VFMADD213PD  exp64Wide_c+64(R8), r, p; \
	VFMADD213PD  exp64Wide_c+96(R8), r, p; \
	VFMADD213PD  exp64Wide_c+128(R8), r, p; \
	VFMADD213PD  exp64Wide_c+160(R8), r, p; \
	VFMADD213PD  exp64Wide_c+192(R8), r, p; \
	VFMADD213PD  exp64Wide_c+224(R8), r, p; \
	VFMADD213PD  exp64Wide_c+256(R8), r, p; \
	VFMADD213PD  exp64Wide_c+288(R8), r, p; \
	VFMADD213PD  exp64Wide_c+320(R8), r, p; \
	VFMADD213PD  exp64Wide_c+352(R8), r, p; \
	VMULPD       r, r, v; \
	VFMADD213PD  r, v, p; \
	VADDPD       exp64Wide_one(R8), p, p; \
	VMULPD       exp64Wide_half(R8), n, r; \
	VROUNDPD     $1, r, r; \
	VSUBPD       r, n, n; \
	VADDPD       exp64Wide_bias(R8), r, r; \
	VPSLLQ       $52, r, r; \
	VMULPD       r, p, p; \
	VADDPD       exp64Wide_bias(R8), n, n; \
	VPSLLQ       $52, n, n; \
	VMULPD       n, p, v

// func expScaled64AVX2(dst, src *float64, n int, shift, t float64, c *exp64Wide) float64
//
// expScaled64 for AVX2 and FMA: 8 elements a step in two 4-lane halves,
// the sums of lanes 0–3 in Y10 and of lanes 4–7 in Y11, so that the
// returned sum adds in the order expScaled64's 8 lanes do; the last 1 to
// 7 elements by masked loads and stores (VMASKMOVPD), the lanes past them
// zeroed before they are added.
TEXT ·expScaled64AVX2(SB), NOSPLIT, $0-56
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD shift+24(FP), Y0
	VBROADCASTSD t+32(FP), Y1
	MOVQ         c+40(FP), R8
	VMOVUPD      exp64Wide_lo(R8), Y12
	VMOVUPD      exp64Wide_hi(R8), Y13
	VMOVUPD      exp64Wide_log2e(R8), Y14
	VXORPD       Y10, Y10, Y10
	VXORPD       Y11, Y11, Y11

yloop:
	CMPQ    CX, $8
	JLT     ytail
	VMOVUPD (SI), Y2
	VMOVUPD 32(SI), Y6
	VSUBPD  Y0, Y2, Y2
	VSUBPD  Y0, Y6, Y6
	VDIVPD  Y1, Y2, Y2
	VDIVPD  Y1, Y6, Y6
	EXP64Y(Y2, Y3, Y4, Y5)
	EXP64Y(Y6, Y7, Y8, Y9)
	VMOVUPD Y2, (DI)
	VMOVUPD Y6, 32(DI)
	VADDPD  Y2, Y10, Y10
	VADDPD  Y6, Y11, Y11
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $8, CX
	JMP     yloop

ytail:
	TESTQ        CX, CX
	JZ           ydone
	MOVQ         CX, X15
	VPBROADCASTQ X15, Y15
	VPCMPGTQ     exp64Wide_lanes+0(R8), Y15, Y9
	VMASKMOVPD   (SI), Y9, Y2
	VSUBPD       Y0, Y2, Y2
	VDIVPD       Y1, Y2, Y2
	EXP64Y(Y2, Y3, Y4, Y5)
	VANDPD       Y9, Y2, Y2
	VMASKMOVPD   Y2, Y9, (DI)
	VADDPD       Y2, Y10, Y10
	VPCMPGTQ     exp64Wide_lanes+32(R8), Y15, Y9
	VMASKMOVPD   32(SI), Y9, Y6
	VSUBPD       Y0, Y6, Y6
	VDIVPD       Y1, Y6, Y6
	EXP64Y(Y6, Y7, Y8, Y3)
	VANDPD       Y9, Y6, Y6
	VMASKMOVPD   Y6, Y9, 32(DI)
	VADDPD       Y6, Y11, Y11

ydone:
	VADDPD Y11, Y10, Y10
	SUM4
	VMOVSD X10, ret+48(FP)
	VZEROUPPER
	RET
