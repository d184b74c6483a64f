//go:build amd64 && gc && !purego

package gemm

// packTransAVX packs a transposed operand with 8x8 transposes (AVX). Its
// Go equivalent, with pointers read as slices:
//
//	for g := 0; g < groups; g++ {
//		for b := 0; b < blocks; b++ {
//			for i := 0; i < 8; i++ {
//				for j := 0; j < 8; j++ {
//					dst[(8*b+i)*ldd+8*g+j] = src[(8*g+j)*lds+8*b+i]
//				}
//			}
//		}
//	}
//
//go:noescape
func packTransAVX(dst, src *float32, lds, blocks, groups, ldd int)

// packTransChecked checks the ranges packTransAVX touches, then calls it.
func packTransChecked(dst, src []float32, lds, blocks, groups, ldd int) {
	if blocks <= 0 || groups <= 0 {
		return
	}
	_ = src[(8*groups-1)*lds+8*blocks-1]
	_ = dst[(8*blocks-1)*ldd+8*groups-1]
	packTransAVX(&dst[0], &src[0], lds, blocks, groups, ldd)
}

// archPackTrans is packTransChecked where this build has it, for tests.
var archPackTrans = packTransChecked

// packA6AVX packs 6 rows of an untransposed A into groups of 6 (AVX). Its
// Go equivalent, with pointers read as slices:
//
//	for p := 0; p < 8*blocks; p++ {
//		for i := 0; i < 6; i++ {
//			dst[p*6+i] = src[i*lda+p]
//		}
//	}
//
//go:noescape
func packA6AVX(dst, src *float32, lda, blocks int)

// packA6Checked checks the ranges packA6AVX touches, then calls it.
func packA6Checked(dst, src []float32, lda, blocks int) {
	if blocks <= 0 {
		return
	}
	_ = src[5*lda+8*blocks-1]
	_ = dst[48*blocks-1]
	packA6AVX(&dst[0], &src[0], lda, blocks)
}

// archPackA6 is packA6Checked where this build has it, for tests.
var archPackA6 = packA6Checked
