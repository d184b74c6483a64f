//go:build amd64 && gc && !purego

#include "textflag.h"

// func reluAVX2(x *float32, n int)
// x[i] = max(x[i], 0) as Go's max for i < n (a multiple of 8): VMAXPS
// returns its second source, x, when either is NaN or both are zeros, and
// adding +0 turns -0 into +0.
TEXT ·reluAVX2(SB), NOSPLIT, $0-16
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	VXORPS Y0, Y0, Y0
	XORQ AX, AX
	TESTQ CX, CX
	JEQ rdone

rloop:
	VMOVUPS (SI)(AX*4), Y1
	VMAXPS Y1, Y0, Y1
	VADDPS Y0, Y1, Y1
	VMOVUPS Y1, (SI)(AX*4)
	ADDQ $8, AX
	CMPQ AX, CX
	JLT rloop

rdone:
	VZEROUPPER
	RET

// func maskAVX2(d, o *float32, n int)
// d[i] &^= ((bits(o[i]) - 1) >> 31, arithmetic) for i < n (a multiple of 8).
TEXT ·maskAVX2(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ o+8(FP), SI
	MOVQ n+16(FP), CX
	VPCMPEQD Y0, Y0, Y0 // all ones: -1 in every lane
	XORQ AX, AX
	TESTQ CX, CX
	JEQ mdone

mloop:
	VMOVDQU (SI)(AX*4), Y1
	VPADDD Y0, Y1, Y1
	VPSRAD $31, Y1, Y1
	VPANDN (DI)(AX*4), Y1, Y1
	VMOVDQU Y1, (DI)(AX*4)
	ADDQ $8, AX
	CMPQ AX, CX
	JLT mloop

mdone:
	VZEROUPPER
	RET
