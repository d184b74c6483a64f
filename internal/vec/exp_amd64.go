//go:build amd64 && gc && !purego

package vec

//go:noescape
func expNegAVX2(x *float64, n int)

// expVec applies expNeg to the longest prefix of x it can in vector code
// and returns its length.
func expVec(x []float64) int {
	n := len(x) &^ 3
	if n == 0 || !cpuFeatures.AVX2FMA() {
		return 0
	}
	expNegAVX2(&x[0], n)
	return n
}
