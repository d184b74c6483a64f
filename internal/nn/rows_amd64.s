//go:build amd64 && gc && !purego

#include "textflag.h"

// The vector twins of rows.go's kernels (see there for the order of every
// sum). C and the widths are multiples of 8; strides are in elements.

// REDUCE8 sets the low lane of X0 to ((a0+b0)+(a2+b2)) + ((a1+b1)+(a3+b3))
// for the float64 lanes a of Y0 and b of Y1 (partial sums s_l and s_(l+4)).
#define REDUCE8 \
	VADDPD Y1, Y0, Y0 \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPD X1, X0, X0 \
	VPERMILPD $1, X0, X1 \
	VADDSD X1, X0, X0

// func lnForwardAVX2(out, mean, rstd, in, w, b *float32, N, C int, eps float32)
// Registers: SI row of in, DI row of out, R8 mean, R9 rstd, R10 w, R11 b,
// DX rows left, CX C, AX column, BX row stride in bytes; X12 1.0,
// X13 float64(eps), X14 float64(C).
TEXT ·lnForwardAVX2(SB), NOSPLIT, $0-68
	MOVQ out+0(FP), DI
	MOVQ mean+8(FP), R8
	MOVQ rstd+16(FP), R9
	MOVQ in+24(FP), SI
	MOVQ w+32(FP), R10
	MOVQ b+40(FP), R11
	MOVQ N+48(FP), DX
	MOVQ C+56(FP), CX
	MOVQ CX, BX
	SHLQ $2, BX
	MOVQ $0x3FF0000000000000, AX
	VMOVQ AX, X12
	VCVTSS2SD eps+64(FP), X13, X13
	VCVTSI2SDQ CX, X14, X14
	TESTQ DX, DX
	JEQ fdone

frow:
	// pass 1: the mean
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	XORQ AX, AX

fsum:
	VCVTPS2PD (SI)(AX*4), Y2
	VCVTPS2PD 16(SI)(AX*4), Y3
	VADDPD Y2, Y0, Y0
	VADDPD Y3, Y1, Y1
	ADDQ $8, AX
	CMPQ AX, CX
	JLT fsum
	REDUCE8
	VDIVSD X14, X0, X5
	VBROADCASTSD X5, Y5

	// pass 2: the sum of squared deviations
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	XORQ AX, AX

fdev:
	VCVTPS2PD (SI)(AX*4), Y2
	VCVTPS2PD 16(SI)(AX*4), Y3
	VSUBPD Y5, Y2, Y2
	VSUBPD Y5, Y3, Y3
	VMULPD Y2, Y2, Y2
	VMULPD Y3, Y3, Y3
	VADDPD Y2, Y0, Y0
	VADDPD Y3, Y1, Y1
	ADDQ $8, AX
	CMPQ AX, CX
	JLT fdev
	REDUCE8
	VDIVSD X14, X0, X0
	VADDSD X13, X0, X0
	VSQRTSD X0, X0, X0
	VDIVSD X0, X12, X0
	VCVTSD2SS X0, X0, X7 // rs
	VCVTSD2SS X5, X5, X6 // mf
	VMOVSS X6, (R8)
	VMOVSS X7, (R9)
	VBROADCASTSS X6, Y6
	VBROADCASTSS X7, Y7

	// pass 3: out = (x-mf)*rs*w + b
	XORQ AX, AX

fout:
	VMOVUPS (SI)(AX*4), Y2
	VSUBPS Y6, Y2, Y2
	VMULPS Y7, Y2, Y2
	VMULPS (R10)(AX*4), Y2, Y2
	VADDPS (R11)(AX*4), Y2, Y2
	VMOVUPS Y2, (DI)(AX*4)
	ADDQ $8, AX
	CMPQ AX, CX
	JLT fout

	ADDQ BX, SI
	ADDQ BX, DI
	ADDQ $4, R8
	ADDQ $4, R9
	DECQ DX
	JNE frow

fdone:
	VZEROUPPER
	RET

// func lnBackwardAVX2(din, dout, in, w, mean, rstd *float32, N, C int)
// Sets din, row by row, as lnBackRowGo.
// Registers: DI row of din, R12 row of dout, SI row of in, R10 w, R8 mean,
// R9 rstd, DX rows left, CX C, AX column, BX row stride in bytes;
// X14 float64(C); Y6 m, Y7 rs, Y4 mean(dn), Y5 mean(dn*n).
TEXT ·lnBackwardAVX2(SB), NOSPLIT, $0-64
	MOVQ din+0(FP), DI
	MOVQ dout+8(FP), R12
	MOVQ in+16(FP), SI
	MOVQ w+24(FP), R10
	MOVQ mean+32(FP), R8
	MOVQ rstd+40(FP), R9
	MOVQ N+48(FP), DX
	MOVQ C+56(FP), CX
	MOVQ CX, BX
	SHLQ $2, BX
	VCVTSI2SDQ CX, X14, X14
	TESTQ DX, DX
	JEQ bdone

brow:
	VBROADCASTSS (R8), Y6
	VBROADCASTSS (R9), Y7
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ AX, AX

bsum:
	VMOVUPS (SI)(AX*4), Y8
	VSUBPS Y6, Y8, Y8
	VMULPS Y7, Y8, Y8 // n
	VMOVUPS (R12)(AX*4), Y9
	VMULPS (R10)(AX*4), Y9, Y9 // dn
	VCVTPS2PD X9, Y10
	VEXTRACTF128 $1, Y9, X11
	VCVTPS2PD X11, Y11
	VADDPD Y10, Y0, Y0
	VADDPD Y11, Y1, Y1
	VCVTPS2PD X8, Y12
	VEXTRACTF128 $1, Y8, X13
	VCVTPS2PD X13, Y13
	VMULPD Y12, Y10, Y10
	VMULPD Y13, Y11, Y11
	VADDPD Y10, Y2, Y2
	VADDPD Y11, Y3, Y3
	ADDQ $8, AX
	CMPQ AX, CX
	JLT bsum
	REDUCE8
	VDIVSD X14, X0, X0
	VCVTSD2SS X0, X0, X4
	VBROADCASTSS X4, Y4 // md
	VMOVAPD Y2, Y0
	VMOVAPD Y3, Y1
	REDUCE8
	VDIVSD X14, X0, X0
	VCVTSD2SS X0, X0, X5
	VBROADCASTSS X5, Y5 // mdn
	XORQ AX, AX

bset:
	VMOVUPS (SI)(AX*4), Y8
	VSUBPS Y6, Y8, Y8
	VMULPS Y7, Y8, Y8
	VMOVUPS (R12)(AX*4), Y9
	VMULPS (R10)(AX*4), Y9, Y9
	VSUBPS Y4, Y9, Y9
	VMULPS Y5, Y8, Y8
	VSUBPS Y8, Y9, Y9
	VMULPS Y7, Y9, Y9
	VMOVUPS Y9, (DI)(AX*4)
	ADDQ $8, AX
	CMPQ AX, CX
	JLT bset

	ADDQ BX, SI
	ADDQ BX, DI
	ADDQ BX, R12
	ADDQ $4, R8
	ADDQ $4, R9
	DECQ DX
	JNE brow

bdone:
	VZEROUPPER
	RET

// func colSumsAVX2(dst, src *float32, rows, stride, width int)
// dst[j] += float32(sum over r of float64(src[r*stride+j])) for j < width,
// 8 columns at a time. Registers: DI dst, SI src column block, R8 row
// pointer, DX rows left, BX stride in bytes, CX blocks left.
TEXT ·colSumsAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ stride+24(FP), BX
	SHLQ $2, BX
	MOVQ width+32(FP), CX
	SHRQ $3, CX
	TESTQ CX, CX
	JEQ cdone

cblock:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	MOVQ SI, R8
	MOVQ rows+16(FP), DX
	TESTQ DX, DX
	JEQ cstore

crow:
	VCVTPS2PD (R8), Y2
	VCVTPS2PD 16(R8), Y3
	VADDPD Y2, Y0, Y0
	VADDPD Y3, Y1, Y1
	ADDQ BX, R8
	DECQ DX
	JNE crow

cstore:
	VCVTPD2PSY Y0, X0
	VCVTPD2PSY Y1, X1
	VINSERTF128 $1, X1, Y0, Y0
	VADDPS (DI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	DECQ CX
	JNE cblock

cdone:
	VZEROUPPER
	RET

// func lnColsAVX2(dw, db, dout, in, mean, rstd *float32, N, C, width int)
// For j < width (8 at a time): dw[j] += float32(sum over rows i of
// float64(g)*float64((x-mean_i)*rstd_i)), db[j] += float32(sum of
// float64(g)), g = dout[i*C+j], x = in[i*C+j]. Registers: DI dw, R11 db,
// R12 dout column block, SI in column block, R8 mean, R9 rstd, R13 and R10
// the row pointers, AX row index, DX N, BX row stride in bytes, CX blocks
// left; Y0 Y1 the dw sums, Y2 Y3 the db sums.
TEXT ·lnColsAVX2(SB), NOSPLIT, $0-72
	MOVQ dw+0(FP), DI
	MOVQ db+8(FP), R11
	MOVQ dout+16(FP), R12
	MOVQ in+24(FP), SI
	MOVQ mean+32(FP), R8
	MOVQ rstd+40(FP), R9
	MOVQ N+48(FP), DX
	MOVQ C+56(FP), BX
	SHLQ $2, BX
	MOVQ width+64(FP), CX
	SHRQ $3, CX
	TESTQ CX, CX
	JEQ ldone

lblock:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ SI, R10
	MOVQ R12, R13
	XORQ AX, AX
	TESTQ DX, DX
	JEQ lstore

lrow:
	VBROADCASTSS (R8)(AX*4), Y6
	VBROADCASTSS (R9)(AX*4), Y7
	VMOVUPS (R10), Y8
	VSUBPS Y6, Y8, Y8
	VMULPS Y7, Y8, Y8 // n
	VMOVUPS (R13), Y9 // g
	VCVTPS2PD X9, Y10
	VEXTRACTF128 $1, Y9, X11
	VCVTPS2PD X11, Y11
	VADDPD Y10, Y2, Y2
	VADDPD Y11, Y3, Y3
	VCVTPS2PD X8, Y12
	VEXTRACTF128 $1, Y8, X13
	VCVTPS2PD X13, Y13
	VMULPD Y12, Y10, Y10
	VMULPD Y13, Y11, Y11
	VADDPD Y10, Y0, Y0
	VADDPD Y11, Y1, Y1
	ADDQ BX, R10
	ADDQ BX, R13
	INCQ AX
	CMPQ AX, DX
	JLT lrow

lstore:
	VCVTPD2PSY Y0, X0
	VCVTPD2PSY Y1, X1
	VINSERTF128 $1, X1, Y0, Y0
	VADDPS (DI), Y0, Y0
	VMOVUPS Y0, (DI)
	VCVTPD2PSY Y2, X2
	VCVTPD2PSY Y3, X3
	VINSERTF128 $1, X3, Y2, Y2
	VADDPS (R11), Y2, Y2
	VMOVUPS Y2, (R11)
	ADDQ $32, DI
	ADDQ $32, R11
	ADDQ $32, SI
	ADDQ $32, R12
	DECQ CX
	JNE lblock

ldone:
	VZEROUPPER
	RET
