package gemm

// Direct computes C = A·B, or C += A·B when accum is set, for small
// untransposed row-major products on the calling goroutine:
//
//	c[i*ldc+j] = (accum ? c[i*ldc+j] : 0) + sum over p < k of a[i*lda+p]*b[p*ldb+j]
//
// for i < m and j < n, the sum taken left to right in increasing p with
// every product rounded to float32 (no fused multiply-add): the same bits
// as the obvious scalar loops, whatever the build. It serves the
// short-sequence attention, whose products are too small for Sgemm and
// must match its incremental (key/value-cached) twin bit for bit. Blocks
// of 8 columns go to the vector kernel where there is one. It panics if an
// operand is shorter than its shape.
func Direct(accum bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if m <= 0 || n <= 0 {
		return
	}
	if len(c) < (m-1)*ldc+n || k > 0 && (len(a) < (m-1)*lda+k || len(b) < (k-1)*ldb+n) {
		panic("gemm: Direct operand shorter than its shape")
	}
	nvec := n / 8
	for r0 := 0; r0 < m; r0 += mmTileRows {
		rows := min(mmTileRows, m-r0)
		if nvec > 0 {
			mmTile(c[r0*ldc:], ldc, a[r0*lda:], lda, b, ldb, rows, k, nvec, accum)
		}
		if n > 8*nvec {
			mmTileGo(c[r0*ldc+8*nvec:], ldc, a[r0*lda:], lda, b[8*nvec:], ldb, rows, k, n-8*nvec, accum)
		}
	}
}

// mmTileRows is the most rows the vector kernel takes at once.
const mmTileRows = 6

// mmTileGo is Direct on at most mmTileRows rows and W columns, in Go; the
// vector kernel computes the same bits.
func mmTileGo(c []float32, ldc int, x []float32, ldx int, b []float32, ldb, rows, k, W int, accum bool) {
	for r := range rows {
		cr := c[r*ldc : r*ldc+W]
		if !accum {
			clear(cr)
		}
		for p, xv := range x[r*ldx : r*ldx+k] {
			br := b[p*ldb : p*ldb+W]
			for j := range cr {
				cr[j] += float32(xv * br[j])
			}
		}
	}
}
