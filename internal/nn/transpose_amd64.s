//go:build amd64 && gc && !purego

#include "textflag.h"

// func transpose8AVX2(dst *float32, ldd int, src *float32, lds int, rows, nblk int)
// For the nblk blocks of 8 columns of the rows x 8*nblk block of src
// (rows 1 to 8, the missing rows read as zeros): dst[(8*b+i)*ldd + j] =
// src[j*lds + 8*b+i] for i, j < 8. Registers: DI dst, R8 ldd, SI src
// block, R9 lds, CX rows, DX blocks left, AX row pointer; Y0-Y7 the rows,
// Y8-Y15 the shuffles. Strides in bytes.
TEXT ·transpose8AVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	SHLQ $2, R8
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	SHLQ $2, R9
	MOVQ rows+32(FP), CX
	MOVQ nblk+40(FP), DX
	TESTQ DX, DX
	JEQ tdone

tblock:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ SI, AX
	VMOVUPS (AX), Y0
	CMPQ CX, $2
	JLT tshuf
	ADDQ R9, AX
	VMOVUPS (AX), Y1
	CMPQ CX, $3
	JLT tshuf
	ADDQ R9, AX
	VMOVUPS (AX), Y2
	CMPQ CX, $4
	JLT tshuf
	ADDQ R9, AX
	VMOVUPS (AX), Y3
	CMPQ CX, $5
	JLT tshuf
	ADDQ R9, AX
	VMOVUPS (AX), Y4
	CMPQ CX, $6
	JLT tshuf
	ADDQ R9, AX
	VMOVUPS (AX), Y5
	CMPQ CX, $7
	JLT tshuf
	ADDQ R9, AX
	VMOVUPS (AX), Y6
	CMPQ CX, $8
	JLT tshuf
	ADDQ R9, AX
	VMOVUPS (AX), Y7

tshuf:
	VUNPCKLPS Y1, Y0, Y8  // t0
	VUNPCKHPS Y1, Y0, Y9  // t1
	VUNPCKLPS Y3, Y2, Y10 // t2
	VUNPCKHPS Y3, Y2, Y11 // t3
	VUNPCKLPS Y5, Y4, Y12 // t4
	VUNPCKHPS Y5, Y4, Y13 // t5
	VUNPCKLPS Y7, Y6, Y14 // t6
	VUNPCKHPS Y7, Y6, Y15 // t7
	VSHUFPS $0x44, Y10, Y8, Y0  // u0
	VSHUFPS $0xEE, Y10, Y8, Y1  // u1
	VSHUFPS $0x44, Y11, Y9, Y2  // u2
	VSHUFPS $0xEE, Y11, Y9, Y3  // u3
	VSHUFPS $0x44, Y14, Y12, Y4 // u4
	VSHUFPS $0xEE, Y14, Y12, Y5 // u5
	VSHUFPS $0x44, Y15, Y13, Y6 // u6
	VSHUFPS $0xEE, Y15, Y13, Y7 // u7
	VPERM2F128 $0x20, Y4, Y0, Y8  // column 0
	VPERM2F128 $0x20, Y5, Y1, Y9  // column 1
	VPERM2F128 $0x20, Y6, Y2, Y10 // column 2
	VPERM2F128 $0x20, Y7, Y3, Y11 // column 3
	VPERM2F128 $0x31, Y4, Y0, Y12 // column 4
	VPERM2F128 $0x31, Y5, Y1, Y13 // column 5
	VPERM2F128 $0x31, Y6, Y2, Y14 // column 6
	VPERM2F128 $0x31, Y7, Y3, Y15 // column 7
	VMOVUPS Y8, (DI)
	ADDQ R8, DI
	VMOVUPS Y9, (DI)
	ADDQ R8, DI
	VMOVUPS Y10, (DI)
	ADDQ R8, DI
	VMOVUPS Y11, (DI)
	ADDQ R8, DI
	VMOVUPS Y12, (DI)
	ADDQ R8, DI
	VMOVUPS Y13, (DI)
	ADDQ R8, DI
	VMOVUPS Y14, (DI)
	ADDQ R8, DI
	VMOVUPS Y15, (DI)
	ADDQ R8, DI
	ADDQ $32, SI
	DECQ DX
	JNE tblock

tdone:
	VZEROUPPER
	RET
