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

// func addRowsAVX2(out, res, b *float32, N, OC, width int)
// out[i*OC+j] = res[i*OC+j] + b[j] for i < N and j < width (a positive
// multiple of 8, at most OC): VADDPS rounds each sum as Go's float32 +.
TEXT ·addRowsAVX2(SB), NOSPLIT, $0-48
	MOVQ out+0(FP), DI
	MOVQ res+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ N+24(FP), R8
	MOVQ OC+32(FP), R9
	MOVQ width+40(FP), CX
	SHLQ $2, R9 // row stride in bytes
	TESTQ R8, R8
	JEQ adone

arow:
	XORQ AX, AX

acol:
	VMOVUPS (SI)(AX*4), Y0
	VADDPS (DX)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, AX
	CMPQ AX, CX
	JLT acol
	ADDQ R9, DI
	ADDQ R9, SI
	DECQ R8
	JNE arow

adone:
	VZEROUPPER
	RET
