//go:build !noasm

#include "textflag.h"
#include "softbin_amd64.h"

// EXPSUM adds the 16 float32 lanes of v to the float64 sums Z10 (low
// lanes) and Z11 (high); it uses Z6, Z7.
#define EXPSUM(v, vy) \
	VCVTPS2PD     vy, Z6; \
	VEXTRACTF32X8 $1, v, Y7; \
	VCVTPS2PD     Y7, Z7; \
	VADDPD        Z6, Z10, Z10; \
	VADDPD        Z7, Z11, Z11

// func expShift32(x *float32, n int, shift float32, c *softConsts) float64
//
// Sets x[i] = e^(x[i] − shift) for i < n, every x[i] − shift (rounded to
// float32) being at most 0 and finite or −∞, and returns their sum,
// accumulated in float64. The
// exponential is the soft-binning kernels' (EXP, Cephes' expf): below
// e^−104 it is 0, and with flush-to-zero set no result is subnormal.
TEXT ·expShift32(SB), NOSPLIT, $16-40
	FLUSHON(mxcsr-12(SP), flush-16(SP))
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSS shift+16(FP), Z2
	MOVQ         c+24(FP), R8
	LOADCONSTS(R8)
	VXORPD       Z10, Z10, Z10
	VXORPD       Z11, Z11, Z11

eloop:
	CMPQ    CX, $16
	JLT     etail
	VMOVUPS (SI), Z3
	VSUBPS  Z2, Z3, Z3
	EXP(Z3, Z4, Z5)
	VMOVUPS Z3, (SI)
	EXPSUM(Z3, Y3)
	ADDQ    $64, SI
	SUBQ    $16, CX
	JMP     eloop

etail:
	TESTQ     CX, CX
	JZ        edone
	MOVL      $1, AX
	SHLL      CX, AX
	DECL      AX
	KMOVW     AX, K1
	VMOVUPS.Z (SI), K1, Z3
	VSUBPS    Z2, Z3, Z3
	EXP(Z3, Z4, Z5)
	VMOVAPS.Z Z3, K1, Z3
	VMOVUPS   Z3, K1, (SI)
	EXPSUM(Z3, Y3)

edone:
	VADDPD        Z11, Z10, Z10
	VEXTRACTF64X4 $1, Z10, Y11
	VADDPD        Y11, Y10, Y10
	VEXTRACTF128  $1, Y10, X11
	VADDPD        X11, X10, X10
	VPERMILPD     $1, X10, X11
	VADDSD        X11, X10, X10
	VMOVSD        X10, ret+32(FP)
	FLUSHOFF(mxcsr-12(SP))
	VZEROUPPER
	RET
