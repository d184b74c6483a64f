//go:build amd64 && gc && !purego

#include "textflag.h"

// func kvScoresAVX2(s, q *float32, k *[8]*float32, hs int)
// s[j] = q·k[j] over hs floats (a positive multiple of 8) for j < 8, with
// gemm.Direct's arithmetic (one row, the 8 keys as its columns): each
// product rounded, then added to the running sum, from 0, in the order of
// p. The keys are read as rows and transposed in registers, 8 floats of
// each at a time. Registers: AX BX DX R8-R12 the 8 key rows, SI q, R13
// the byte offset into the rows, CX blocks left, Y15 the sums, Y0-Y14 the
// rows, the shuffles and the products.
TEXT ·kvScoresAVX2(SB), NOSPLIT, $0-32
	MOVQ q+8(FP), SI
	MOVQ k+16(FP), DI
	MOVQ 0(DI), AX
	MOVQ 8(DI), BX
	MOVQ 16(DI), DX
	MOVQ 24(DI), R8
	MOVQ 32(DI), R9
	MOVQ 40(DI), R10
	MOVQ 48(DI), R11
	MOVQ 56(DI), R12
	MOVQ hs+24(FP), CX
	SHRQ $3, CX
	XORQ R13, R13
	VXORPS Y15, Y15, Y15
	TESTQ CX, CX
	JEQ sstore

sblock:
	VMOVUPS (AX)(R13*1), Y0
	VMOVUPS (BX)(R13*1), Y1
	VMOVUPS (DX)(R13*1), Y2
	VMOVUPS (R8)(R13*1), Y3
	VMOVUPS (R9)(R13*1), Y4
	VMOVUPS (R10)(R13*1), Y5
	VMOVUPS (R11)(R13*1), Y6
	VMOVUPS (R12)(R13*1), Y7
	VUNPCKLPS Y1, Y0, Y8  // t0
	VUNPCKHPS Y1, Y0, Y9  // t1
	VUNPCKLPS Y3, Y2, Y10 // t2
	VUNPCKHPS Y3, Y2, Y11 // t3
	VUNPCKLPS Y5, Y4, Y12 // t4
	VUNPCKHPS Y5, Y4, Y13 // t5
	VUNPCKLPS Y7, Y6, Y14 // t6
	VUNPCKHPS Y7, Y6, Y0  // t7
	VSHUFPS $0x44, Y10, Y8, Y1  // u0
	VSHUFPS $0xEE, Y10, Y8, Y2  // u1
	VSHUFPS $0x44, Y11, Y9, Y3  // u2
	VSHUFPS $0xEE, Y11, Y9, Y4  // u3
	VSHUFPS $0x44, Y14, Y12, Y5 // u4
	VSHUFPS $0xEE, Y14, Y12, Y6 // u5
	VSHUFPS $0x44, Y0, Y13, Y7  // u6
	VSHUFPS $0xEE, Y0, Y13, Y8  // u7
	VPERM2F128 $0x20, Y5, Y1, Y9  // element 0 of the 8 keys
	VPERM2F128 $0x20, Y6, Y2, Y10 // 1
	VPERM2F128 $0x20, Y7, Y3, Y11 // 2
	VPERM2F128 $0x20, Y8, Y4, Y12 // 3
	VPERM2F128 $0x31, Y5, Y1, Y13 // 4
	VPERM2F128 $0x31, Y6, Y2, Y14 // 5
	VPERM2F128 $0x31, Y7, Y3, Y0  // 6
	VPERM2F128 $0x31, Y8, Y4, Y1  // 7
	VBROADCASTSS 0(SI), Y2
	VMULPS Y9, Y2, Y2
	VADDPS Y2, Y15, Y15
	VBROADCASTSS 4(SI), Y3
	VMULPS Y10, Y3, Y3
	VADDPS Y3, Y15, Y15
	VBROADCASTSS 8(SI), Y4
	VMULPS Y11, Y4, Y4
	VADDPS Y4, Y15, Y15
	VBROADCASTSS 12(SI), Y5
	VMULPS Y12, Y5, Y5
	VADDPS Y5, Y15, Y15
	VBROADCASTSS 16(SI), Y6
	VMULPS Y13, Y6, Y6
	VADDPS Y6, Y15, Y15
	VBROADCASTSS 20(SI), Y7
	VMULPS Y14, Y7, Y7
	VADDPS Y7, Y15, Y15
	VBROADCASTSS 24(SI), Y8
	VMULPS Y0, Y8, Y8
	VADDPS Y8, Y15, Y15
	VBROADCASTSS 28(SI), Y9
	VMULPS Y1, Y9, Y9
	VADDPS Y9, Y15, Y15
	ADDQ $32, SI
	ADDQ $32, R13
	DECQ CX
	JNE sblock

sstore:
	MOVQ s+0(FP), DI
	VMOVUPS Y15, (DI)
	VZEROUPPER
	RET

// func kvValuesAVX2(o, a *float32, v *[8]*float32, cnt, hs int, accum bool)
// o[c] = (o[c] if accum, else 0) + a[0]*v[0][c] + ... + a[cnt-1]*v[cnt-1][c]
// for c < hs (a positive multiple of 8), cnt in 1..8, with gemm.Direct's
// arithmetic (one row a, the values as the rows of its right operand):
// each product rounded, then added in the order of j. Registers: DI o, SI
// a, BX v, CX cnt, DX blocks left, R9 accum, R13 the byte offset into
// the rows, R11 j, R10 v[j]; Y0 the sums, Y1 the product.
TEXT ·kvValuesAVX2(SB), NOSPLIT, $0-41
	MOVQ o+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ v+16(FP), BX
	MOVQ cnt+24(FP), CX
	MOVQ hs+32(FP), DX
	SHRQ $3, DX
	MOVBLZX accum+40(FP), R9
	XORQ R13, R13
	TESTQ DX, DX
	JEQ vdone
	TESTQ CX, CX
	JEQ vdone

vblock:
	TESTQ R9, R9
	JNE vload
	VXORPS Y0, Y0, Y0
	JMP vsum
vload:
	VMOVUPS (DI)(R13*1), Y0
vsum:
	XORQ R11, R11
vpos:
	MOVQ (BX)(R11*8), R10
	VBROADCASTSS (SI)(R11*4), Y1
	VMULPS (R10)(R13*1), Y1, Y1
	VADDPS Y1, Y0, Y0
	INCQ R11
	CMPQ R11, CX
	JLT vpos
	VMOVUPS Y0, (DI)(R13*1)
	ADDQ $32, R13
	DECQ DX
	JNE vblock

vdone:
	VZEROUPPER
	RET
