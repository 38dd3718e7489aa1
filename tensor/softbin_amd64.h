// The macros the two families of soft-binning kernels share
// (softbin1d_amd64.s, softbincanon_amd64.s): the constant table, e^x and
// the check for non-finite inputs.
//
// The constants at c are a softConsts (softbin_vec.go), each field at the
// offset softConsts_<field> that the compiler writes to go_asm.h: k,
// log2 e, ln 2 in two parts, the six coefficients of Cephes' expf
// polynomial, 1 and the lower clamp of the exponent, loaded into Z20–Z31,
// and γ (see PRELUDE, softbin1d_amd64.s) into Z16.

#include "go_asm.h"

// FLUSHON saves MXCSR at old and sets its flush-to-zero and
// denormals-are-zero bits (0x8040) through new (two 4-byte frame slots,
// R8 scratch); FLUSHOFF(old) restores it before the kernel returns. The
// exponentials reach below 2^−126 (the exponent's clamp is −104), and on
// Intel cores each subnormal operand or result costs a microcode assist: a
// canonical K = 10 pass ran 13× slower with them on a Sapphire Rapids-class
// Xeon (AMD's cores take them at full speed). Flushed, a weight changes by
// less than 2^−126 in absolute value.
#define FLUSHON(old, new) \
	STMXCSR old; \
	MOVL    old, R8; \
	ORL     $0x8040, R8; \
	MOVL    R8, new; \
	LDMXCSR new

#define FLUSHOFF(old) \
	LDMXCSR old

#define LOADCONSTS(c) \
	VBROADCASTSS softConsts_k(c), Z20; \
	VBROADCASTSS softConsts_log2e(c), Z21; \
	VBROADCASTSS softConsts_ln2Hi(c), Z22; \
	VBROADCASTSS softConsts_ln2Lo(c), Z23; \
	VBROADCASTSS softConsts_p0(c), Z24; \
	VBROADCASTSS softConsts_p1(c), Z25; \
	VBROADCASTSS softConsts_p2(c), Z26; \
	VBROADCASTSS softConsts_p3(c), Z27; \
	VBROADCASTSS softConsts_p4(c), Z28; \
	VBROADCASTSS softConsts_p5(c), Z29; \
	VBROADCASTSS softConsts_one(c), Z30; \
	VBROADCASTSS softConsts_expMin(c), Z31; \
	VBROADCASTSS softConsts_gamma(c), Z16

// EXP sets v = e^v for v ≤ 0: n = round(v·log2 e), r = v − n·ln 2,
// e^r ≈ 1 + r + r²·P(r), scaled by 2^n. n, r are scratch.
#define EXP(v, n, r) \
	VMAXPS       Z31, v, v; \
	VMULPS       Z21, v, n; \
	VRNDSCALEPS  $0, n, n; \
	VMOVAPS      v, r; \
	VFNMADD231PS Z22, n, r; \
	VFNMADD231PS Z23, n, r; \
	VMOVAPS      Z24, v; \
	VFMADD213PS  Z25, r, v; \
	VFMADD213PS  Z26, r, v; \
	VFMADD213PS  Z27, r, v; \
	VFMADD213PS  Z28, r, v; \
	VFMADD213PS  Z29, r, v; \
	VMULPS       r, v, v; \
	VFMADD213PS  r, r, v; \
	VADDPS       Z30, v, v; \
	VSCALEFPS    n, v, v

// NONFINITE adds to Z0 v − v for the n vectors from ptr (NaN where one is
// not finite); it uses R8, CX, Z1.
#define NONFINITE(ptr, n, loop) \
	MOVQ    ptr, R8; \
	MOVQ    n, CX; \
loop: \
	VMOVUPS (R8), Z1; \
	VSUBPS  Z1, Z1, Z1; \
	VADDPS  Z1, Z0, Z0; \
	ADDQ    $64, R8; \
	DECQ    CX; \
	JNZ     loop

// FINITEXP jumps to stop unless the nx vectors of points at SI and the np
// vectors of values at DI are all finite; it uses R8, CX, Z0, Z1, K1. A
// kernel expands it once (its labels are the kernel's: the assembler
// scopes labels by function).
#define FINITEXP(stop, nx, np) \
	VXORPS   Z0, Z0, Z0; \
	NONFINITE(SI, nx, finitex); \
	NONFINITE(DI, np, finitep); \
	VCMPPS   $7, Z0, Z0, K1; \
	KORTESTW K1, K1; \
	JCC      stop
