//go:build amd64 && gc && !purego

#include "textflag.h"

// func mmTileAVX2(c *float32, ldc int, x *float32, ldx int, b *float32, ldb int, rows, k, nvec int, accum bool)
// For r < rows (1 to 4) and j < 8*nvec:
//	c[r*ldc+j] = (accum ? c[r*ldc+j] : 0) + x[r*ldx+0]*b[0*ldb+j] + ... + x[r*ldx+k-1]*b[(k-1)*ldb+j]
// added left to right, every product rounded (no FMA), as mmTileGo.
// Registers: DI c (column block), R8 ldc, SI AX R13 R9 the rows of x,
// DX b (column block), R10 ldb, CX the row of b, BX 4*p, R11 4*k,
// R12 column blocks left; Y0-Y3 the accumulators of rows 0-3. Strides
// in bytes.
TEXT ·mmTileAVX2(SB), NOSPLIT, $0-73
	MOVQ c+0(FP), DI
	MOVQ ldc+8(FP), R8
	SHLQ $2, R8
	MOVQ x+16(FP), SI
	MOVQ ldx+24(FP), R9
	SHLQ $2, R9
	MOVQ b+32(FP), DX
	MOVQ ldb+40(FP), R10
	SHLQ $2, R10
	MOVQ rows+48(FP), CX
	MOVQ k+56(FP), R11
	SHLQ $2, R11
	MOVQ nvec+64(FP), R12
	TESTQ R12, R12
	JEQ done
	LEAQ (SI)(R9*1), AX
	LEAQ (SI)(R9*2), R13
	LEAQ (R13)(R9*1), R9
	CMPQ CX, $4
	JEQ rows4
	CMPQ CX, $3
	JEQ rows3
	CMPQ CX, $2
	JEQ rows2
	JMP rows1

rows4:
	MOVBLZX accum+72(FP), CX
	TESTQ CX, CX
	JNE load4
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	JMP start4
load4:
	LEAQ (DI)(R8*2), BX
	VMOVUPS (DI), Y0
	VMOVUPS (DI)(R8*1), Y1
	VMOVUPS (DI)(R8*2), Y2
	VMOVUPS (BX)(R8*1), Y3
start4:
	MOVQ DX, CX
	XORQ BX, BX
	CMPQ BX, R11
	JGE store4
loop4:
	VMOVUPS (CX), Y4
	VBROADCASTSS (SI)(BX*1), Y5
	VMULPS Y4, Y5, Y5
	VADDPS Y5, Y0, Y0
	VBROADCASTSS (AX)(BX*1), Y6
	VMULPS Y4, Y6, Y6
	VADDPS Y6, Y1, Y1
	VBROADCASTSS (R13)(BX*1), Y7
	VMULPS Y4, Y7, Y7
	VADDPS Y7, Y2, Y2
	VBROADCASTSS (R9)(BX*1), Y8
	VMULPS Y4, Y8, Y8
	VADDPS Y8, Y3, Y3
	ADDQ R10, CX
	ADDQ $4, BX
	CMPQ BX, R11
	JLT loop4
store4:
	LEAQ (DI)(R8*2), BX
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, (DI)(R8*1)
	VMOVUPS Y2, (DI)(R8*2)
	VMOVUPS Y3, (BX)(R8*1)
	ADDQ $32, DI
	ADDQ $32, DX
	DECQ R12
	JNE rows4
	JMP done

rows3:
	MOVBLZX accum+72(FP), CX
	TESTQ CX, CX
	JNE load3
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	JMP start3
load3:
	VMOVUPS (DI), Y0
	VMOVUPS (DI)(R8*1), Y1
	VMOVUPS (DI)(R8*2), Y2
start3:
	MOVQ DX, CX
	XORQ BX, BX
	CMPQ BX, R11
	JGE store3
loop3:
	VMOVUPS (CX), Y4
	VBROADCASTSS (SI)(BX*1), Y5
	VMULPS Y4, Y5, Y5
	VADDPS Y5, Y0, Y0
	VBROADCASTSS (AX)(BX*1), Y6
	VMULPS Y4, Y6, Y6
	VADDPS Y6, Y1, Y1
	VBROADCASTSS (R13)(BX*1), Y7
	VMULPS Y4, Y7, Y7
	VADDPS Y7, Y2, Y2
	ADDQ R10, CX
	ADDQ $4, BX
	CMPQ BX, R11
	JLT loop3
store3:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, (DI)(R8*1)
	VMOVUPS Y2, (DI)(R8*2)
	ADDQ $32, DI
	ADDQ $32, DX
	DECQ R12
	JNE rows3
	JMP done

rows2:
	MOVBLZX accum+72(FP), CX
	TESTQ CX, CX
	JNE load2
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	JMP start2
load2:
	VMOVUPS (DI), Y0
	VMOVUPS (DI)(R8*1), Y1
start2:
	MOVQ DX, CX
	XORQ BX, BX
	CMPQ BX, R11
	JGE store2
loop2:
	VMOVUPS (CX), Y4
	VBROADCASTSS (SI)(BX*1), Y5
	VMULPS Y4, Y5, Y5
	VADDPS Y5, Y0, Y0
	VBROADCASTSS (AX)(BX*1), Y6
	VMULPS Y4, Y6, Y6
	VADDPS Y6, Y1, Y1
	ADDQ R10, CX
	ADDQ $4, BX
	CMPQ BX, R11
	JLT loop2
store2:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, (DI)(R8*1)
	ADDQ $32, DI
	ADDQ $32, DX
	DECQ R12
	JNE rows2
	JMP done

rows1:
	MOVBLZX accum+72(FP), CX
	TESTQ CX, CX
	JNE load1
	VXORPS Y0, Y0, Y0
	JMP start1
load1:
	VMOVUPS (DI), Y0
start1:
	MOVQ DX, CX
	XORQ BX, BX
	CMPQ BX, R11
	JGE store1
loop1:
	VMOVUPS (CX), Y4
	VBROADCASTSS (SI)(BX*1), Y5
	VMULPS Y4, Y5, Y5
	VADDPS Y5, Y0, Y0
	ADDQ R10, CX
	ADDQ $4, BX
	CMPQ BX, R11
	JLT loop1
store1:
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	ADDQ $32, DX
	DECQ R12
	JNE rows1
	JMP done

done:
	VZEROUPPER
	RET
