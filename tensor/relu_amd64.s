//go:build !noasm

#include "textflag.h"

// The AVX ReLU masks: d[i] = grad[i] where x[i] > 0 (also where x[i] is NaN
// with nan set), else 0, for i < n, a multiple of the vector length. The
// compare predicates are GT_OQ (0x1e, false for NaN) and NLE_UQ (0x06,
// true for NaN).

// func maskPositive32(d, grad, x *float32, n int, nan bool)
TEXT ·maskPositive32(SB), NOSPLIT, $0-33
	MOVQ    d+0(FP), DI
	MOVQ    grad+8(FP), SI
	MOVQ    x+16(FP), DX
	MOVQ    n+24(FP), CX
	MOVBLZX nan+32(FP), AX
	VXORPS  Y0, Y0, Y0
	TESTQ   CX, CX
	JZ      s32done
	TESTL   AX, AX
	JNZ     s32nan

s32loop:
	VMOVUPS (DX), Y1
	VCMPPS  $0x1e, Y0, Y1, Y1
	VANDPS  (SI), Y1, Y1
	VMOVUPS Y1, (DI)
	ADDQ    $32, DX
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JNZ     s32loop
	JMP     s32done

s32nan:
	VMOVUPS (DX), Y1
	VCMPPS  $0x06, Y0, Y1, Y1
	VANDPS  (SI), Y1, Y1
	VMOVUPS Y1, (DI)
	ADDQ    $32, DX
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JNZ     s32nan

s32done:
	VZEROUPPER
	RET

// func maskPositive64(d, grad, x *float64, n int, nan bool)
TEXT ·maskPositive64(SB), NOSPLIT, $0-33
	MOVQ    d+0(FP), DI
	MOVQ    grad+8(FP), SI
	MOVQ    x+16(FP), DX
	MOVQ    n+24(FP), CX
	MOVBLZX nan+32(FP), AX
	VXORPD  Y0, Y0, Y0
	TESTQ   CX, CX
	JZ      d64done
	TESTL   AX, AX
	JNZ     d64nan

d64loop:
	VMOVUPD (DX), Y1
	VCMPPD  $0x1e, Y0, Y1, Y1
	VANDPD  (SI), Y1, Y1
	VMOVUPD Y1, (DI)
	ADDQ    $32, DX
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $4, CX
	JNZ     d64loop
	JMP     d64done

d64nan:
	VMOVUPD (DX), Y1
	VCMPPD  $0x06, Y0, Y1, Y1
	VANDPD  (SI), Y1, Y1
	VMOVUPD Y1, (DI)
	ADDQ    $32, DX
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $4, CX
	JNZ     d64nan

d64done:
	VZEROUPPER
	RET
