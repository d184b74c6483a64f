//go:build amd64 && gc && !purego

#include "textflag.h"

DATA expc<>+0(SB)/8, $1.4426950408889634
DATA expc<>+8(SB)/8, $6.93147180369123816490e-01
DATA expc<>+16(SB)/8, $1.90821492927058770002e-10
DATA expc<>+24(SB)/8, $-708.0
DATA expc<>+32(SB)/8, $1.0
DATA expc<>+40(SB)/8, $1.0
DATA expc<>+48(SB)/8, $0.5
DATA expc<>+56(SB)/8, $0.16666666666666666
DATA expc<>+64(SB)/8, $0.041666666666666664
DATA expc<>+72(SB)/8, $0.008333333333333333
DATA expc<>+80(SB)/8, $0.001388888888888889
DATA expc<>+88(SB)/8, $0.0001984126984126984
DATA expc<>+96(SB)/8, $2.48015873015873e-05
DATA expc<>+104(SB)/8, $2.7557319223985893e-06
DATA expc<>+112(SB)/8, $2.755731922398589e-07
DATA expc<>+120(SB)/8, $2.505210838544172e-08
DATA expc<>+128(SB)/8, $2.08767569878681e-09
DATA expc<>+136(SB)/8, $1.6059043836821613e-10
DATA expc<>+144(SB)/8, $1023
GLOBL expc<>(SB), RODATA|NOPTR, $152

// func expNegAVX2(x *float64, n int)
// x[i] = expNeg(x[i]) for i < n (a multiple of 4), as exp.go's Go code:
// VROUNDPD $0 rounds to nearest even, every multiply-add is fused.
// Y8 log2e, Y9 ln2hi, Y10 ln2lo, Y11 -708, Y12 1023 (int64 lanes).
TEXT ·expNegAVX2(SB), NOSPLIT, $0-16
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	VBROADCASTSD expc<>+0(SB), Y8
	VBROADCASTSD expc<>+8(SB), Y9
	VBROADCASTSD expc<>+16(SB), Y10
	VBROADCASTSD expc<>+24(SB), Y11
	VPBROADCASTQ expc<>+144(SB), Y12
	XORQ AX, AX
	TESTQ CX, CX
	JEQ edone

eloop:
	VMOVUPD (SI)(AX*8), Y0        // x
	VMULPD Y8, Y0, Y1             // x*log2e
	VROUNDPD $0, Y1, Y1           // k
	VMOVAPD Y0, Y2
	VFNMADD231PD Y9, Y1, Y2       // r = x - k*ln2hi
	VFNMADD231PD Y10, Y1, Y2      // r -= k*ln2lo
	VBROADCASTSD expc<>+136(SB), Y3 // p = c13
	VBROADCASTSD expc<>+128(SB), Y4
	VFMADD213PD Y4, Y2, Y3        // p = p*r + c12
	VBROADCASTSD expc<>+120(SB), Y4
	VFMADD213PD Y4, Y2, Y3
	VBROADCASTSD expc<>+112(SB), Y4
	VFMADD213PD Y4, Y2, Y3
	VBROADCASTSD expc<>+104(SB), Y4
	VFMADD213PD Y4, Y2, Y3
	VBROADCASTSD expc<>+96(SB), Y4
	VFMADD213PD Y4, Y2, Y3
	VBROADCASTSD expc<>+88(SB), Y4
	VFMADD213PD Y4, Y2, Y3
	VBROADCASTSD expc<>+80(SB), Y4
	VFMADD213PD Y4, Y2, Y3
	VBROADCASTSD expc<>+72(SB), Y4
	VFMADD213PD Y4, Y2, Y3
	VBROADCASTSD expc<>+64(SB), Y4
	VFMADD213PD Y4, Y2, Y3
	VBROADCASTSD expc<>+56(SB), Y4
	VFMADD213PD Y4, Y2, Y3
	VBROADCASTSD expc<>+48(SB), Y4
	VFMADD213PD Y4, Y2, Y3
	VBROADCASTSD expc<>+40(SB), Y4
	VFMADD213PD Y4, Y2, Y3
	VBROADCASTSD expc<>+32(SB), Y4
	VFMADD213PD Y4, Y2, Y3        // p = p*r + c0
	VCVTPD2DQY Y1, X5             // int32(k), exact
	VPMOVSXDQ X5, Y5              // int64(k)
	VPADDQ Y12, Y5, Y5
	VPSLLQ $52, Y5, Y5            // 2^k
	VMULPD Y5, Y3, Y3
	VCMPPD $1, Y11, Y0, Y6        // x < -708 (false for NaN)
	VANDNPD Y3, Y6, Y3
	VMOVUPD Y3, (SI)(AX*8)
	ADDQ $4, AX
	CMPQ AX, CX
	JLT eloop

edone:
	VZEROUPPER
	RET
