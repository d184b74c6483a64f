//go:build amd64 && gc && !purego

package nn

import "golang.org/x/sys/cpu"

//go:noescape
func expNegAVX2(x *float64, n int)

var useExpAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// expVec applies expNeg to the longest prefix of x it can in vector code
// and returns its length.
func expVec(x []float64) int {
	n := len(x) &^ 3
	if !useExpAVX2 || n == 0 {
		return 0
	}
	expNegAVX2(&x[0], n)
	return n
}
