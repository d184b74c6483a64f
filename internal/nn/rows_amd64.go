//go:build amd64 && gc && !purego

package nn

// The vector kernels of rows.go (rows_amd64.s). C and width are positive
// multiples of 8; the callers check the lengths.

//go:noescape
func lnForwardAVX2(out, mean, rstd, in, w, b *float32, N, C int, eps float32)

//go:noescape
func lnBackwardAVX2(din, dout, in, w, mean, rstd *float32, N, C int)

//go:noescape
func colSumsAVX2(dst, src *float32, rows, stride, width int)

//go:noescape
func lnColsAVX2(dw, db, dout, in, mean, rstd *float32, N, C, width int)
