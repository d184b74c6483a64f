//go:build !amd64 || !gc || purego

package gemm

func mmTile(c []float32, ldc int, x []float32, ldx int, b []float32, ldb, rows, k, nvec int, accum bool) {
	mmTileGo(c, ldc, x, ldx, b, ldb, rows, k, 8*nvec, accum)
}
