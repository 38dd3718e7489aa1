//go:build !noasm

#include "textflag.h"

// FMA24 issues one multiply-add (fma: VFMADD231PS or VFMADD231PD) into each
// of 24 independent accumulators, more than the FMA ports' latency ×
// throughput needs to stay busy.
#define FMA24(fma) \
	fma Z24, Z25, Z0; \
	fma Z24, Z25, Z1; \
	fma Z24, Z25, Z2; \
	fma Z24, Z25, Z3; \
	fma Z24, Z25, Z4; \
	fma Z24, Z25, Z5; \
	fma Z24, Z25, Z6; \
	fma Z24, Z25, Z7; \
	fma Z24, Z25, Z8; \
	fma Z24, Z25, Z9; \
	fma Z24, Z25, Z10; \
	fma Z24, Z25, Z11; \
	fma Z24, Z25, Z12; \
	fma Z24, Z25, Z13; \
	fma Z24, Z25, Z14; \
	fma Z24, Z25, Z15; \
	fma Z24, Z25, Z16; \
	fma Z24, Z25, Z17; \
	fma Z24, Z25, Z18; \
	fma Z24, Z25, Z19; \
	fma Z24, Z25, Z20; \
	fma Z24, Z25, Z21; \
	fma Z24, Z25, Z22; \
	fma Z24, Z25, Z23

// func fmaZMM(n int, double bool)
TEXT ·fmaZMM(SB), NOSPLIT, $0-9
	MOVQ n+0(FP), CX
	VPXORD Z24, Z24, Z24
	VPXORD Z25, Z25, Z25
	CMPB double+8(FP), $0
	JNE  zd
zs:
	FMA24(VFMADD231PS)
	DECQ CX
	JNZ  zs
	VZEROUPPER
	RET
zd:
	FMA24(VFMADD231PD)
	DECQ CX
	JNZ  zd
	VZEROUPPER
	RET
