//go:build amd64 && gc && !purego

package nn

//go:noescape
func reluAVX2(x *float32, n int)

//go:noescape
func maskAVX2(d, o *float32, n int)

// reluVec applies ReLUInPlace's rule to the longest prefix of x it can
// and returns its length.
func reluVec(x []float32) int {
	n := len(x) &^ 7
	if !useAVX2 || n == 0 {
		return 0
	}
	reluAVX2(&x[0], n)
	return n
}

// maskVec applies ReLUMask's rule to the longest prefix of d it can and
// returns its length; len(o) >= len(d).
func maskVec(d, o []float32) int {
	n := len(d) &^ 7
	if !useAVX2 || n == 0 {
		return 0
	}
	maskAVX2(&d[0], &o[:n][0], n)
	return n
}

//go:noescape
func addRowsAVX2(out, res, b *float32, N, OC, width int)

// addRowsVec sets out[i*OC+j] = res[i*OC+j] + b[j] for i < N and j below
// the largest multiple of 8 it can (at most OC) and returns that width.
func addRowsVec(out, res, b []float32, N, OC int) int {
	w := OC &^ 7
	if !useAVX2 || w == 0 || N == 0 {
		return 0
	}
	addRowsAVX2(&out[:N*OC][0], &res[:N*OC][0], &b[:OC][0], N, OC, w)
	return w
}
