package gemm

// kernelGeneric is the portable kernel: the blocked algorithm over the pure
// Go micro-kernel microGeneric. It always builds and is always available.
var kernelGeneric = &kernel{name: "purego", mr: 4, nr: 4, kc: 256, mc: 128, micro: microGeneric}

// microGeneric is the reference micro-kernel, on a 4x4 tile of C: with
// acc(i, j) = sum over p < k of a[i*rsa+p*csa] * b[p*rsb+j], accumulated
// in order of increasing p, it stores c[i*ldc+j] = alpha*acc(i, j), plus
// beta*c[i*ldc+j] unless beta is 0 (then C is not read). The assembly
// micro-kernels compute the same on larger tiles.
func microGeneric(k int, a []float32, rsa, csa int, b []float32, rsb int, c []float32, ldc int, alpha, beta float32) {
	var (
		c00, c01, c02, c03 float32
		c10, c11, c12, c13 float32
		c20, c21, c22, c23 float32
		c30, c31, c32, c33 float32
	)
	ia, ib := 0, 0
	for p := 0; p < k; p++ {
		bp := (*[4]float32)(b[ib : ib+4])
		b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
		a0 := a[ia]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		a1 := a[ia+rsa]
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		a2 := a[ia+2*rsa]
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		a3 := a[ia+3*rsa]
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
		ia += csa
		ib += rsb
	}
	store4(c[0*ldc:0*ldc+4], alpha, beta, c00, c01, c02, c03)
	store4(c[1*ldc:1*ldc+4], alpha, beta, c10, c11, c12, c13)
	store4(c[2*ldc:2*ldc+4], alpha, beta, c20, c21, c22, c23)
	store4(c[3*ldc:3*ldc+4], alpha, beta, c30, c31, c32, c33)
}

func store4(c []float32, alpha, beta, x0, x1, x2, x3 float32) {
	c = c[:4]
	if beta == 0 {
		c[0], c[1], c[2], c[3] = alpha*x0, alpha*x1, alpha*x2, alpha*x3
		return
	}
	c[0] = alpha*x0 + beta*c[0]
	c[1] = alpha*x1 + beta*c[1]
	c[2] = alpha*x2 + beta*c[2]
	c[3] = alpha*x3 + beta*c[3]
}
