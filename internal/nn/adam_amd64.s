//go:build amd64 && gc && !purego

#include "textflag.h"

// func adamAVX2(p, grad, m, v *float32, n int, c *adamConsts)
// Per element, all float32, each product and quotient rounded (no FMA):
//	g = g + wd*p                        (only when c.l2 is not 0)
//	m = b1*m + c1*g
//	v = b2*v + (c2*g)*g
//	p = decay*p - (stepSize*m) / (sqrt(v)*invBc2Sqrt + eps)
// with the MXCSR's flush-to-zero and denormals-are-zero bits set for the
// duration of the call (subnormal operands and results are zeros of their
// sign; an update on subnormals costs a hundred times more without them),
// and the caller's MXCSR restored before returning. Assembly functions are
// not preempted asynchronously, so no other Go code runs with these bits.
// Registers: SI p, DI g, R8 m, R9 v, CX n (a multiple of 8), AX index, BX l2;
// Y8-Y15 the constants b1, c1, b2, c2, eps, stepSize, invBc2Sqrt, decay; Y4 wd.
TEXT ·adamAVX2(SB), NOSPLIT, $8-48
	MOVQ p+0(FP), SI
	MOVQ grad+8(FP), DI
	MOVQ m+16(FP), R8
	MOVQ v+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ c+40(FP), DX
	VBROADCASTSS 0(DX), Y8
	VBROADCASTSS 4(DX), Y9
	VBROADCASTSS 8(DX), Y10
	VBROADCASTSS 12(DX), Y11
	VBROADCASTSS 16(DX), Y12
	VBROADCASTSS 20(DX), Y13
	VBROADCASTSS 24(DX), Y14
	VBROADCASTSS 28(DX), Y15
	VBROADCASTSS 32(DX), Y4
	MOVL 36(DX), BX            // l2
	STMXCSR saved-8(SP)
	MOVL saved-8(SP), R10
	ORL $0x8040, R10           // FTZ (bit 15) | DAZ (bit 6)
	MOVL R10, flush-4(SP)
	LDMXCSR flush-4(SP)
	XORQ AX, AX
	TESTQ CX, CX
	JEQ done

loop:
	VMOVUPS (DI)(AX*4), Y0     // g
	VMOVUPS (SI)(AX*4), Y7     // p
	TESTL BX, BX               // the same every iteration: predicted
	JEQ moments
	VMULPS Y4, Y7, Y2          // wd*p
	VADDPS Y2, Y0, Y0          // g + wd*p

moments:
	VMOVUPS (R8)(AX*4), Y1     // m
	VMULPS Y8, Y1, Y1          // b1*m
	VMULPS Y9, Y0, Y2          // c1*g
	VADDPS Y2, Y1, Y1          // m'
	VMOVUPS Y1, (R8)(AX*4)
	VMOVUPS (R9)(AX*4), Y3     // v
	VMULPS Y10, Y3, Y3         // b2*v
	VMULPS Y11, Y0, Y2         // c2*g
	VMULPS Y0, Y2, Y2          // (c2*g)*g
	VADDPS Y2, Y3, Y3          // v'
	VMOVUPS Y3, (R9)(AX*4)
	VSQRTPS Y3, Y5             // sqrt(v')
	VMULPS Y14, Y5, Y5         // sqrt(v')*invBc2Sqrt
	VADDPS Y12, Y5, Y5         // + eps
	VMULPS Y13, Y1, Y6         // stepSize*m'
	VDIVPS Y5, Y6, Y6          // (stepSize*m')/denom
	VMULPS Y15, Y7, Y7         // decay*p
	VSUBPS Y6, Y7, Y7          // decay*p - update
	VMOVUPS Y7, (SI)(AX*4)
	ADDQ $8, AX
	CMPQ AX, CX
	JLT loop

done:
	LDMXCSR saved-8(SP)
	VZEROUPPER
	RET
