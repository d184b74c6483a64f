//go:build amd64 && gc && !purego

package nn

// adamConsts are the per-step constants of the vector Adam kernel, in the
// order adamAVX2 loads them.
type adamConsts struct {
	b1, c1, b2, c2, eps, stepSize, invBc2Sqrt, decay, wd float32
	l2                                                   uint32 // 1: add wd*p to the gradient
}

// adamAVX2 applies adamGo's update to elements [0, n) of p, g, m, v, n a
// multiple of 8, with the same float32 operations in the same order (no
// fused multiply-add) and subnormals flushed to zero as adamGo does, so that
// it agrees bit for bit with the Go loop.
//
//go:noescape
func adamAVX2(p, grad, m, v *float32, n int, c *adamConsts)

// adamVec updates the longest prefix of the slices it can in vector code
// and returns its length; the caller finishes the rest.
func adamVec(k *adamStep, p, g, m, v []float32) int {
	n := len(p) &^ 7
	if !useAVX2 || n == 0 {
		return 0
	}
	c := adamConsts{k.b1, 1 - k.b1, k.b2, 1 - k.b2, k.eps, k.stepSize, k.invBc2Sqrt, k.decay, k.wd, 0}
	if k.wd != 0 {
		c.l2 = 1
	}
	adamAVX2(&p[0], &g[:n][0], &m[:n][0], &v[:n][0], n, &c)
	return n
}
