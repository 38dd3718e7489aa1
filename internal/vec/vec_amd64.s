//go:build !noasm

#include "textflag.h"

// func dotAVX2(x, y *float64, n int) float64
//
// 16 elements a step in four accumulators (Y0–Y3), then 4 at a time into
// Y0, then the last 0 to 3 one by one; the four added as (Y0+Y1)+(Y2+Y3),
// then across the lanes.
TEXT ·dotAVX2(SB), NOSPLIT, $0-32
	MOVQ   x+0(FP), SI
	MOVQ   y+8(FP), DI
	MOVQ   n+16(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

dloop16:
	CMPQ        CX, $16
	JLT         dloop4
	VMOVUPD     (SI), Y4
	VMOVUPD     32(SI), Y5
	VMOVUPD     64(SI), Y6
	VMOVUPD     96(SI), Y7
	VFMADD231PD (DI), Y4, Y0
	VFMADD231PD 32(DI), Y5, Y1
	VFMADD231PD 64(DI), Y6, Y2
	VFMADD231PD 96(DI), Y7, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $16, CX
	JMP         dloop16

dloop4:
	CMPQ        CX, $4
	JLT         dreduce
	VMOVUPD     (SI), Y4
	VFMADD231PD (DI), Y4, Y0
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $4, CX
	JMP         dloop4

dreduce:
	VADDPD       Y1, Y0, Y0
	VADDPD       Y3, Y2, Y2
	VADDPD       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VPERMILPD    $1, X0, X1
	VADDSD       X1, X0, X0

dtail:
	TESTQ       CX, CX
	JZ          ddone
	VMOVSD      (SI), X4
	VFMADD231SD (DI), X4, X0
	ADDQ        $8, SI
	ADDQ        $8, DI
	DECQ        CX
	JMP         dtail

ddone:
	VMOVSD     X0, ret+24(FP)
	VZEROUPPER
	RET

// func axpyAVX2(a float64, x, y *float64, n int)
//
// y[i] = a·x[i] + y[i] by fused multiply-adds, 16 a step, then 4, then
// one by one.
TEXT ·axpyAVX2(SB), NOSPLIT, $0-32
	VBROADCASTSD a+0(FP), Y8
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	MOVQ         n+24(FP), CX

aloop16:
	CMPQ        CX, $16
	JLT         aloop4
	VMOVUPD     (DI), Y0
	VMOVUPD     32(DI), Y1
	VMOVUPD     64(DI), Y2
	VMOVUPD     96(DI), Y3
	VFMADD231PD (SI), Y8, Y0
	VFMADD231PD 32(SI), Y8, Y1
	VFMADD231PD 64(SI), Y8, Y2
	VFMADD231PD 96(SI), Y8, Y3
	VMOVUPD     Y0, (DI)
	VMOVUPD     Y1, 32(DI)
	VMOVUPD     Y2, 64(DI)
	VMOVUPD     Y3, 96(DI)
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $16, CX
	JMP         aloop16

aloop4:
	CMPQ        CX, $4
	JLT         atail
	VMOVUPD     (DI), Y0
	VFMADD231PD (SI), Y8, Y0
	VMOVUPD     Y0, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $4, CX
	JMP         aloop4

atail:
	TESTQ       CX, CX
	JZ          adone
	VMOVSD      (DI), X0
	VFMADD231SD (SI), X8, X0
	VMOVSD      X0, (DI)
	ADDQ        $8, SI
	ADDQ        $8, DI
	DECQ        CX
	JMP         atail

adone:
	VZEROUPPER
	RET

// func maxAVX2(x *float64, n int) (m float64, nan bool)
//
// The largest of x[:n], n a multiple of 4 (≥ 4), 16 a step in four
// accumulators, then 4 at a time; nan reports a NaN among them (each
// vector compared unordered with itself, the masks or-ed in Y8), whatever
// m then is.
TEXT ·maxAVX2(SB), NOSPLIT, $0-25
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	MOVQ         $0xfff0000000000000, AX
	MOVQ         AX, X0
	VPBROADCASTQ X0, Y0
	VMOVAPD      Y0, Y1
	VMOVAPD      Y0, Y2
	VMOVAPD      Y0, Y3
	VXORPD       Y8, Y8, Y8

mloop16:
	CMPQ    CX, $16
	JLT     mloop4
	VMOVUPD (SI), Y4
	VMOVUPD 32(SI), Y5
	VMOVUPD 64(SI), Y6
	VMOVUPD 96(SI), Y7
	VCMPPD  $3, Y4, Y4, Y9
	VORPD   Y9, Y8, Y8
	VCMPPD  $3, Y5, Y5, Y9
	VORPD   Y9, Y8, Y8
	VCMPPD  $3, Y6, Y6, Y9
	VORPD   Y9, Y8, Y8
	VCMPPD  $3, Y7, Y7, Y9
	VORPD   Y9, Y8, Y8
	VMAXPD  Y4, Y0, Y0
	VMAXPD  Y5, Y1, Y1
	VMAXPD  Y6, Y2, Y2
	VMAXPD  Y7, Y3, Y3
	ADDQ    $128, SI
	SUBQ    $16, CX
	JMP     mloop16

mloop4:
	CMPQ    CX, $4
	JLT     mreduce
	VMOVUPD (SI), Y4
	VCMPPD  $3, Y4, Y4, Y9
	VORPD   Y9, Y8, Y8
	VMAXPD  Y4, Y0, Y0
	ADDQ    $32, SI
	SUBQ    $4, CX
	JMP     mloop4

mreduce:
	VMAXPD       Y1, Y0, Y0
	VMAXPD       Y3, Y2, Y2
	VMAXPD       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPD       X1, X0, X0
	VPERMILPD    $1, X0, X1
	VMAXSD       X1, X0, X0
	VMOVSD       X0, m+16(FP)
	VMOVMSKPD    Y8, AX
	TESTL        AX, AX
	SETNE        nan+24(FP)
	VZEROUPPER
	RET
