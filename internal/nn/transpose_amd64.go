//go:build amd64 && gc && !purego

package nn

//go:noescape
func transpose8AVX2(dst *float32, ldd int, src *float32, lds int, rows, nblk int)

// transposeVec transposes the block as transpose does, zero-padding dst's
// columns rows..7, when the vector kernel applies (1 <= rows <= 8 <= ldd,
// cols a multiple of 8) and reports whether it did.
func transposeVec(dst []float32, ldd int, src []float32, lds, rows, cols int) bool {
	if !useAVX2 || rows < 1 || rows > 8 || ldd < 8 || cols < 8 || cols%8 != 0 {
		return false
	}
	if len(src) < (rows-1)*lds+cols || len(dst) < (cols-1)*ldd+8 {
		panic("nn: transpose operand shorter than its shape")
	}
	transpose8AVX2(&dst[0], ldd, &src[0], lds, rows, cols/8)
	return true
}
