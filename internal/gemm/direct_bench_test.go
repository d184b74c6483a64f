package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func BenchmarkDirect(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, sz := range []struct{ m, k, n, ldc, lda, ldb int }{
		{4, 32, 8, 8, 32, 8}, {6, 32, 8, 8, 32, 8}, {6, 6, 32, 32, 6, 32}, {1, 32, 8, 8, 32, 8}, {1, 6, 32, 32, 6, 32},
		{6, 32, 8, 8, 384, 8}, {6, 6, 32, 384, 6, 384}, {6, 6, 32, 128, 6, 384},
	} {
		b.Run(fmt.Sprintf("m%d_k%d_n%d_ld%d_%d_%d", sz.m, sz.k, sz.n, sz.ldc, sz.lda, sz.ldb), func(b *testing.B) {
			c := make([]float32, sz.m*sz.ldc)
			x := make([]float32, sz.m*sz.lda)
			y := make([]float32, sz.k*sz.ldb)
			for i := range x {
				x[i] = rng.Float32()
			}
			for i := range y {
				y[i] = rng.Float32()
			}
			for b.Loop() {
				Direct(false, sz.m, sz.n, sz.k, x, sz.lda, y, sz.ldb, c, sz.ldc)
			}
		})
	}
}
