//go:build amd64 && gc && !purego

#include "textflag.h"

// func packTransAVX(dst, src *float32, lds, blocks, groups, ldd int)
// Packs a transposed operand by 8x8 transposes: for g < groups, b < blocks,
// i, j < 8: dst[(8*b+i)*ldd + 8*g+j] = src[(8*g+j)*lds + 8*b+i], that is
// groups*8 rows of src (each read along 8*blocks elements) become the
// columns of 8*blocks rows of dst. Registers: DI dst at the group, SI src
// at the group, R8 lds, R11 ldd (bytes), R10 groups left, AX src block,
// BX dst block, CX blocks left, DX and R12 row pointers; Y0-Y7 the rows of
// a block, Y8-Y15 the shuffles.
TEXT ·packTransAVX(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ lds+16(FP), R8
	SHLQ $2, R8
	MOVQ groups+32(FP), R10
	MOVQ ldd+40(FP), R11
	SHLQ $2, R11
	TESTQ R10, R10
	JEQ pdone

pgroup:
	MOVQ SI, AX
	MOVQ DI, BX
	MOVQ blocks+24(FP), CX
	TESTQ CX, CX
	JEQ pnext

pblock:
	LEAQ (AX)(R8*4), DX
	LEAQ (AX)(R8*2), R12
	VMOVUPS (AX), Y0
	VMOVUPS (AX)(R8*1), Y1
	VMOVUPS (R12), Y2
	VMOVUPS (R12)(R8*1), Y3
	LEAQ (DX)(R8*2), R12
	VMOVUPS (DX), Y4
	VMOVUPS (DX)(R8*1), Y5
	VMOVUPS (R12), Y6
	VMOVUPS (R12)(R8*1), Y7
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	MOVQ BX, R12
	VMOVUPS Y8, (R12)
	ADDQ R11, R12
	VMOVUPS Y9, (R12)
	ADDQ R11, R12
	VMOVUPS Y10, (R12)
	ADDQ R11, R12
	VMOVUPS Y11, (R12)
	ADDQ R11, R12
	VMOVUPS Y12, (R12)
	ADDQ R11, R12
	VMOVUPS Y13, (R12)
	ADDQ R11, R12
	VMOVUPS Y14, (R12)
	ADDQ R11, R12
	VMOVUPS Y15, (R12)
	ADDQ R11, R12
	MOVQ R12, BX
	ADDQ $32, AX
	DECQ CX
	JNE pblock

pnext:
	LEAQ (SI)(R8*8), SI
	ADDQ $32, DI
	DECQ R10
	JNE pgroup

pdone:
	VZEROUPPER
	RET

// func packA6AVX(dst, src *float32, lda, blocks int)
// Packs 6 rows of an untransposed A, 8 columns at a time, by 8x8
// transposes (rows 6 and 7 zero): dst[p*6+i] = src[i*lda+p] for i < 6,
// p < 8*blocks. Registers: DI dst, SI src, R8 lda (bytes), CX blocks left,
// R12 row pointer; Y0-Y7 the rows, Y8-Y15 the shuffles.
TEXT ·packA6AVX(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ lda+16(FP), R8
	SHLQ $2, R8
	MOVQ blocks+24(FP), CX
	TESTQ CX, CX
	JEQ adone
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

ablock:
	LEAQ (SI)(R8*2), R12
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R8*1), Y1
	VMOVUPS (R12), Y2
	VMOVUPS (R12)(R8*1), Y3
	VMOVUPS (SI)(R8*4), Y4
	LEAQ (SI)(R8*4), R12
	VMOVUPS (R12)(R8*1), Y5
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y8
	VSHUFPS $0xEE, Y15, Y13, Y9
	// column p of the block: rows 0-3 in the low half of u_p, rows 4-5
	// in the low half of v_p; columns 4-7 in the high halves
	VMOVUPS X0, 0(DI)
	VMOVLPS X4, 16(DI)
	VMOVUPS X1, 24(DI)
	VMOVLPS X5, 40(DI)
	VMOVUPS X2, 48(DI)
	VMOVLPS X8, 64(DI)
	VMOVUPS X3, 72(DI)
	VMOVLPS X9, 88(DI)
	VEXTRACTF128 $1, Y0, X10
	VEXTRACTF128 $1, Y4, X11
	VMOVUPS X10, 96(DI)
	VMOVLPS X11, 112(DI)
	VEXTRACTF128 $1, Y1, X10
	VEXTRACTF128 $1, Y5, X11
	VMOVUPS X10, 120(DI)
	VMOVLPS X11, 136(DI)
	VEXTRACTF128 $1, Y2, X10
	VEXTRACTF128 $1, Y8, X11
	VMOVUPS X10, 144(DI)
	VMOVLPS X11, 160(DI)
	VEXTRACTF128 $1, Y3, X10
	VEXTRACTF128 $1, Y9, X11
	VMOVUPS X10, 168(DI)
	VMOVLPS X11, 184(DI)
	ADDQ $192, DI
	ADDQ $32, SI
	DECQ CX
	JNE ablock

adone:
	VZEROUPPER
	RET
