//go:build !noasm

#include "textflag.h"

// Constants of the vector exponential (lse.go), each in four lanes.
// 0: expFloor
DATA expTab<>+0(SB)/8, $0xc086200000000000
DATA expTab<>+8(SB)/8, $0xc086200000000000
DATA expTab<>+16(SB)/8, $0xc086200000000000
DATA expTab<>+24(SB)/8, $0xc086200000000000
// 32: log2(e)
DATA expTab<>+32(SB)/8, $0x3ff71547652b82fe
DATA expTab<>+40(SB)/8, $0x3ff71547652b82fe
DATA expTab<>+48(SB)/8, $0x3ff71547652b82fe
DATA expTab<>+56(SB)/8, $0x3ff71547652b82fe
// 64: ln2Hi
DATA expTab<>+64(SB)/8, $0x3fe62e42fee00000
DATA expTab<>+72(SB)/8, $0x3fe62e42fee00000
DATA expTab<>+80(SB)/8, $0x3fe62e42fee00000
DATA expTab<>+88(SB)/8, $0x3fe62e42fee00000
// 96: ln2Lo
DATA expTab<>+96(SB)/8, $0x3dea39ef35793c76
DATA expTab<>+104(SB)/8, $0x3dea39ef35793c76
DATA expTab<>+112(SB)/8, $0x3dea39ef35793c76
DATA expTab<>+120(SB)/8, $0x3dea39ef35793c76
// 128: 1/13!
DATA expTab<>+128(SB)/8, $0x3de6124613a86d09
DATA expTab<>+136(SB)/8, $0x3de6124613a86d09
DATA expTab<>+144(SB)/8, $0x3de6124613a86d09
DATA expTab<>+152(SB)/8, $0x3de6124613a86d09
// 160: 1/12!
DATA expTab<>+160(SB)/8, $0x3e21eed8eff8d898
DATA expTab<>+168(SB)/8, $0x3e21eed8eff8d898
DATA expTab<>+176(SB)/8, $0x3e21eed8eff8d898
DATA expTab<>+184(SB)/8, $0x3e21eed8eff8d898
// 192: 1/11!
DATA expTab<>+192(SB)/8, $0x3e5ae64567f544e4
DATA expTab<>+200(SB)/8, $0x3e5ae64567f544e4
DATA expTab<>+208(SB)/8, $0x3e5ae64567f544e4
DATA expTab<>+216(SB)/8, $0x3e5ae64567f544e4
// 224: 1/10!
DATA expTab<>+224(SB)/8, $0x3e927e4fb7789f5c
DATA expTab<>+232(SB)/8, $0x3e927e4fb7789f5c
DATA expTab<>+240(SB)/8, $0x3e927e4fb7789f5c
DATA expTab<>+248(SB)/8, $0x3e927e4fb7789f5c
// 256: 1/9!
DATA expTab<>+256(SB)/8, $0x3ec71de3a556c734
DATA expTab<>+264(SB)/8, $0x3ec71de3a556c734
DATA expTab<>+272(SB)/8, $0x3ec71de3a556c734
DATA expTab<>+280(SB)/8, $0x3ec71de3a556c734
// 288: 1/8!
DATA expTab<>+288(SB)/8, $0x3efa01a01a01a01a
DATA expTab<>+296(SB)/8, $0x3efa01a01a01a01a
DATA expTab<>+304(SB)/8, $0x3efa01a01a01a01a
DATA expTab<>+312(SB)/8, $0x3efa01a01a01a01a
// 320: 1/7!
DATA expTab<>+320(SB)/8, $0x3f2a01a01a01a01a
DATA expTab<>+328(SB)/8, $0x3f2a01a01a01a01a
DATA expTab<>+336(SB)/8, $0x3f2a01a01a01a01a
DATA expTab<>+344(SB)/8, $0x3f2a01a01a01a01a
// 352: 1/6!
DATA expTab<>+352(SB)/8, $0x3f56c16c16c16c17
DATA expTab<>+360(SB)/8, $0x3f56c16c16c16c17
DATA expTab<>+368(SB)/8, $0x3f56c16c16c16c17
DATA expTab<>+376(SB)/8, $0x3f56c16c16c16c17
// 384: 1/5!
DATA expTab<>+384(SB)/8, $0x3f81111111111111
DATA expTab<>+392(SB)/8, $0x3f81111111111111
DATA expTab<>+400(SB)/8, $0x3f81111111111111
DATA expTab<>+408(SB)/8, $0x3f81111111111111
// 416: 1/4!
DATA expTab<>+416(SB)/8, $0x3fa5555555555555
DATA expTab<>+424(SB)/8, $0x3fa5555555555555
DATA expTab<>+432(SB)/8, $0x3fa5555555555555
DATA expTab<>+440(SB)/8, $0x3fa5555555555555
// 448: 1/3!
DATA expTab<>+448(SB)/8, $0x3fc5555555555555
DATA expTab<>+456(SB)/8, $0x3fc5555555555555
DATA expTab<>+464(SB)/8, $0x3fc5555555555555
DATA expTab<>+472(SB)/8, $0x3fc5555555555555
// 480: 1/2!
DATA expTab<>+480(SB)/8, $0x3fe0000000000000
DATA expTab<>+488(SB)/8, $0x3fe0000000000000
DATA expTab<>+496(SB)/8, $0x3fe0000000000000
DATA expTab<>+504(SB)/8, $0x3fe0000000000000
// 512: 1
DATA expTab<>+512(SB)/8, $0x3ff0000000000000
DATA expTab<>+520(SB)/8, $0x3ff0000000000000
DATA expTab<>+528(SB)/8, $0x3ff0000000000000
DATA expTab<>+536(SB)/8, $0x3ff0000000000000
// 544: exponent bias 1023
DATA expTab<>+544(SB)/8, $0x00000000000003ff
DATA expTab<>+552(SB)/8, $0x00000000000003ff
DATA expTab<>+560(SB)/8, $0x00000000000003ff
DATA expTab<>+568(SB)/8, $0x00000000000003ff
// 576: -Inf
DATA expTab<>+576(SB)/8, $0xfff0000000000000
DATA expTab<>+584(SB)/8, $0xfff0000000000000
DATA expTab<>+592(SB)/8, $0xfff0000000000000
DATA expTab<>+600(SB)/8, $0xfff0000000000000
GLOBL expTab<>(SB), RODATA|NOPTR, $608

// func scaleMaxVec(x, lb, out []float64, h float64) float64
TEXT ·scaleMaxVec(SB), NOSPLIT, $0-88
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         lb_base+24(FP), DI
	MOVQ         out_base+48(FP), DX
	VBROADCASTSD h+72(FP), Y15
	VMOVUPD      expTab<>+576(SB), Y8 // running maxima, −∞
	XORQ         AX, AX

scaleLoop:
	CMPQ    AX, CX
	JGE     scaleDone
	VMOVUPD (SI)(AX*8), Y0
	VDIVPD  Y15, Y0, Y0         // x/h
	VSUBPD  (DI)(AX*8), Y0, Y0  // − lb
	VMOVUPD Y0, (DX)(AX*8)
	VMAXPD  Y0, Y8, Y8
	ADDQ    $4, AX
	JMP     scaleLoop

scaleDone:
	VEXTRACTF128 $1, Y8, X0
	VMAXPD       X0, X8, X0
	VPERMILPD    $1, X0, X1
	VMAXSD       X1, X0, X0
	VMOVSD       X0, ret+80(FP)
	VZEROUPPER
	RET

// func sumExpVec(a []float64, m float64) float64
// Eight terms per round in two registers, lanes 0–3 and 4–7.
TEXT ·sumExpVec(SB), NOSPLIT, $0-40
	MOVQ         a_base+0(FP), SI
	MOVQ         a_len+8(FP), CX
	VBROADCASTSD m+24(FP), Y15
	VMOVUPD      expTab<>+0(SB), Y14   // floor
	VMOVUPD      expTab<>+32(SB), Y13  // log2(e)
	VMOVUPD      expTab<>+64(SB), Y12  // ln2Hi
	VMOVUPD      expTab<>+96(SB), Y11  // ln2Lo
	VMOVUPD      expTab<>+512(SB), Y10 // 1
	VXORPD       Y8, Y8, Y8            // lanes 0–3
	VXORPD       Y9, Y9, Y9            // lanes 4–7
	XORQ         AX, AX

sumLoop:
	CMPQ         AX, CX
	JGE          sumDone
	VMOVUPD      (SI)(AX*8), Y0
	VMOVUPD      32(SI)(AX*8), Y5
	VSUBPD       Y15, Y0, Y0           // x = a − m
	VSUBPD       Y15, Y5, Y5
	VCMPPD       $0x1d, Y14, Y0, Y1    // x ≥ floor (ordered)
	VCMPPD       $0x1d, Y14, Y5, Y6
	VORPD        Y1, Y6, Y6
	VMOVMSKPD    Y6, DX
	TESTL        DX, DX
	JZ           sumNext               // all eight below the floor: left out
	VMAXPD       Y14, Y0, Y0           // at least the floor
	VMAXPD       Y14, Y5, Y5
	VMULPD       Y13, Y0, Y1
	VMULPD       Y13, Y5, Y6
	VROUNDPD     $0, Y1, Y1            // n = round(x·log2(e)), to even
	VROUNDPD     $0, Y6, Y6
	VMOVAPD      Y0, Y2
	VMOVAPD      Y5, Y7
	VFNMADD231PD Y12, Y1, Y2           // r = x − n·ln2Hi
	VFNMADD231PD Y12, Y6, Y7
	VFNMADD231PD Y11, Y1, Y2           // r −= n·ln2Lo
	VFNMADD231PD Y11, Y6, Y7
	VMOVUPD      expTab<>+128(SB), Y3  // p = 1/13!
	VMOVAPD      Y3, Y4
	VFMADD213PD  expTab<>+160(SB), Y2, Y3 // p = p·r + 1/12!
	VFMADD213PD  expTab<>+160(SB), Y7, Y4
	VFMADD213PD  expTab<>+192(SB), Y2, Y3
	VFMADD213PD  expTab<>+192(SB), Y7, Y4
	VFMADD213PD  expTab<>+224(SB), Y2, Y3
	VFMADD213PD  expTab<>+224(SB), Y7, Y4
	VFMADD213PD  expTab<>+256(SB), Y2, Y3
	VFMADD213PD  expTab<>+256(SB), Y7, Y4
	VFMADD213PD  expTab<>+288(SB), Y2, Y3
	VFMADD213PD  expTab<>+288(SB), Y7, Y4
	VFMADD213PD  expTab<>+320(SB), Y2, Y3
	VFMADD213PD  expTab<>+320(SB), Y7, Y4
	VFMADD213PD  expTab<>+352(SB), Y2, Y3
	VFMADD213PD  expTab<>+352(SB), Y7, Y4
	VFMADD213PD  expTab<>+384(SB), Y2, Y3
	VFMADD213PD  expTab<>+384(SB), Y7, Y4
	VFMADD213PD  expTab<>+416(SB), Y2, Y3
	VFMADD213PD  expTab<>+416(SB), Y7, Y4
	VFMADD213PD  expTab<>+448(SB), Y2, Y3
	VFMADD213PD  expTab<>+448(SB), Y7, Y4
	VFMADD213PD  expTab<>+480(SB), Y2, Y3 // … + 1/2!
	VFMADD213PD  expTab<>+480(SB), Y7, Y4
	VFMADD213PD  Y10, Y2, Y3           // p·r + 1
	VFMADD213PD  Y10, Y7, Y4
	VFMADD213PD  Y10, Y2, Y3           // p·r + 1 = e^r
	VFMADD213PD  Y10, Y7, Y4
	VCVTPD2DQY   Y1, X1
	VCVTPD2DQY   Y6, X6
	VPMOVSXDQ    X1, Y1
	VPMOVSXDQ    X6, Y6
	VPADDQ       expTab<>+544(SB), Y1, Y1 // + bias
	VPADDQ       expTab<>+544(SB), Y6, Y6
	VPSLLQ       $52, Y1, Y1           // 2^n
	VPSLLQ       $52, Y6, Y6
	VMULPD       Y1, Y3, Y3
	VMULPD       Y6, Y4, Y4
	VADDPD       Y3, Y8, Y8
	VADDPD       Y4, Y9, Y9

sumNext:
	ADDQ         $8, AX
	JMP          sumLoop

sumDone:
	VADDPD       Y9, Y8, Y8            // lanes 0+4, 1+5, 2+6, 3+7
	VEXTRACTF128 $1, Y8, X0
	VADDPD       X0, X8, X0            // (0+4)+(2+6), (1+5)+(3+7)
	VPERMILPD    $1, X0, X1
	VADDSD       X1, X0, X0
	VMOVSD       X0, ret+32(FP)
	VZEROUPPER
	RET

// func sumExp512(a []float64, m float64) float64
// sumExpVec in one AVX-512 register of the same eight lanes.
TEXT ·sumExp512(SB), NOSPLIT, $0-40
	MOVQ         a_base+0(FP), SI
	MOVQ         a_len+8(FP), CX
	VBROADCASTSD m+24(FP), Z15
	VBROADCASTSD expTab<>+0(SB), Z14   // floor
	VBROADCASTSD expTab<>+32(SB), Z13  // log2(e)
	VBROADCASTSD expTab<>+64(SB), Z12  // ln2Hi
	VBROADCASTSD expTab<>+96(SB), Z11  // ln2Lo
	VBROADCASTSD expTab<>+512(SB), Z10 // 1
	VPBROADCASTQ expTab<>+544(SB), Z9  // bias
	VXORPD       Z8, Z8, Z8            // the eight lanes' sums
	XORQ         AX, AX

sum512Loop:
	CMPQ          AX, CX
	JGE           sum512Done
	VMOVUPD       (SI)(AX*8), Z0
	VSUBPD        Z15, Z0, Z0          // x = a − m
	VCMPPD        $0x1d, Z14, Z0, K1   // x ≥ floor (ordered)
	KORTESTW      K1, K1
	JZ            sum512Next           // all eight below the floor: left out
	VMAXPD        Z14, Z0, Z0
	VMULPD        Z13, Z0, Z1
	VRNDSCALEPD   $0, Z1, Z1           // n = round(x·log2(e)), to even
	VMOVAPD       Z0, Z2
	VFNMADD231PD  Z12, Z1, Z2          // r = x − n·ln2Hi
	VFNMADD231PD  Z11, Z1, Z2          // r −= n·ln2Lo
	VBROADCASTSD  expTab<>+128(SB), Z3 // p = 1/13!
	VFMADD213PD.BCST expTab<>+160(SB), Z2, Z3
	VFMADD213PD.BCST expTab<>+192(SB), Z2, Z3
	VFMADD213PD.BCST expTab<>+224(SB), Z2, Z3
	VFMADD213PD.BCST expTab<>+256(SB), Z2, Z3
	VFMADD213PD.BCST expTab<>+288(SB), Z2, Z3
	VFMADD213PD.BCST expTab<>+320(SB), Z2, Z3
	VFMADD213PD.BCST expTab<>+352(SB), Z2, Z3
	VFMADD213PD.BCST expTab<>+384(SB), Z2, Z3
	VFMADD213PD.BCST expTab<>+416(SB), Z2, Z3
	VFMADD213PD.BCST expTab<>+448(SB), Z2, Z3
	VFMADD213PD.BCST expTab<>+480(SB), Z2, Z3
	VFMADD213PD   Z10, Z2, Z3          // p·r + 1
	VFMADD213PD   Z10, Z2, Z3          // p·r + 1 = e^r
	VCVTPD2DQ     Z1, Y4
	VPMOVSXDQ     Y4, Z4
	VPADDQ        Z9, Z4, Z4
	VPSLLQ        $52, Z4, Z4          // 2^n
	VMULPD        Z4, Z3, Z3
	VADDPD        Z3, Z8, Z8

sum512Next:
	ADDQ          $8, AX
	JMP           sum512Loop

sum512Done:
	VEXTRACTF64X4 $1, Z8, Y0
	VADDPD        Y0, Y8, Y8           // lanes 0+4, 1+5, 2+6, 3+7
	VEXTRACTF128  $1, Y8, X0
	VADDPD        X0, X8, X0
	VPERMILPD     $1, X0, X1
	VADDSD        X1, X0, X0
	VMOVSD        X0, ret+32(FP)
	VZEROUPPER
	RET
