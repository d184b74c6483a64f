package nn

// mmRows computes a small product row block by row block:
//
//	c[r*ldc+j] = (accum ? c[r*ldc+j] : 0) + sum over p < k of x[r*ldx+p]*b[p*ldb+j]
//
// for r < R and j < W, the sum taken left to right in increasing p with
// every product rounded to float32 (no fused multiply-add): the same bits
// as the obvious scalar loops, whatever the build. It serves the
// short-sequence attention, whose products are too small for gemm.Sgemm.
// Blocks of 8 columns go to the vector kernel where there is one.
func mmRows(c []float32, ldc int, x []float32, ldx int, b []float32, ldb, R, k, W int, accum bool) {
	if R <= 0 || W <= 0 {
		return
	}
	if len(c) < (R-1)*ldc+W || k > 0 && (len(x) < (R-1)*ldx+k || len(b) < (k-1)*ldb+W) {
		panic("nn: mmRows operand shorter than its shape")
	}
	nvec := W / 8
	for r0 := 0; r0 < R; r0 += mmTileRows {
		rows := min(mmTileRows, R-r0)
		if nvec > 0 {
			mmTile(c[r0*ldc:], ldc, x[r0*ldx:], ldx, b, ldb, rows, k, nvec, accum)
		}
		if W > 8*nvec {
			mmTileGo(c[r0*ldc+8*nvec:], ldc, x[r0*ldx:], ldx, b[8*nvec:], ldb, rows, k, W-8*nvec, accum)
		}
	}
}

// mmTileRows is the most rows the vector kernel takes at once.
const mmTileRows = 6

// mmTileGo is mmRows on at most mmTileRows rows, in Go; the vector kernels
// compute the same bits.
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
