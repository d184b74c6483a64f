//go:build amd64 && gc && !purego

package gemm

import "decoreg/internal/vec"

// mmTileAVX2 is mmTileGo in AVX2 on 8*nvec columns (see direct_amd64.s).
// The caller has checked the operands' lengths.
//
//go:noescape
func mmTileAVX2(c *float32, ldc int, x *float32, ldx int, b *float32, ldb int, rows, k, nvec int, accum bool)

func mmTile(c []float32, ldc int, x []float32, ldx int, b []float32, ldb, rows, k, nvec int, accum bool) {
	if !vec.CPU().AVX2 {
		mmTileGo(c, ldc, x, ldx, b, ldb, rows, k, 8*nvec, accum)
		return
	}
	xp, bp := &c[0], &c[0] // not read when k == 0
	if k > 0 {
		xp, bp = &x[0], &b[0]
	}
	mmTileAVX2(&c[0], ldc, xp, ldx, bp, ldb, rows, k, nvec, accum)
}
