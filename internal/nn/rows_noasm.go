//go:build !amd64 || !gc || purego

package nn

// This build has no vector kernels for rows.go: the stubs are never called
// (useAVX2 is false).

func lnForwardAVX2(out, mean, rstd, in, w, b *float32, N, C int, eps float32) {
	panic("nn: no vector kernels")
}

func lnBackwardAVX2(din, dout, in, w, mean, rstd *float32, N, C int) {
	panic("nn: no vector kernels")
}

func colSumsAVX2(dst, src *float32, rows, stride, width int) { panic("nn: no vector kernels") }

func lnColsAVX2(dw, db, dout, in, mean, rstd *float32, N, C, width int) {
	panic("nn: no vector kernels")
}
