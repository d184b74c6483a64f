package gemm

// Sgemm computes C = alpha*op(A)*op(B) + beta*C for row-major float32
// matrices, where op(X) is X or its transpose. op(A) is m x k, op(B) is
// k x n and C is m x n; lda, ldb and ldc are the row strides of A, B and C
// as stored. When beta is 0, C is not read (NaNs in C do not propagate).
func Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkArgs(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	sgemmGeneric(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

func checkArgs(transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic("gemm: negative dimension")
	}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	if lda < max(1, ac) || ldb < max(1, bc) || ldc < max(1, n) {
		panic("gemm: bad leading dimension")
	}
	if m == 0 || n == 0 {
		return
	}
	if k > 0 && (len(a) < (ar-1)*lda+ac || len(b) < (br-1)*ldb+bc) {
		panic("gemm: insufficient length of a or b")
	}
	if len(c) < (m-1)*ldc+n {
		panic("gemm: insufficient length of c")
	}
}

// sgemmGeneric is the reference implementation: plain loops with float32
// accumulation in the natural order.
func sgemmGeneric(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		ci := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(ci)
		} else if beta != 1 {
			for j := range ci {
				ci[j] *= beta
			}
		}
		for p := 0; p < k; p++ {
			var aip float32
			if transA {
				aip = a[p*lda+i]
			} else {
				aip = a[i*lda+p]
			}
			aip *= alpha
			if aip == 0 {
				continue
			}
			if transB {
				for j := range ci {
					ci[j] += aip * b[j*ldb+p]
				}
			} else {
				bp := b[p*ldb : p*ldb+n]
				for j := range ci {
					ci[j] += aip * bp[j]
				}
			}
		}
	}
}
