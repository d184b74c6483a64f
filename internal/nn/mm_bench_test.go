package nn

import (
	"fmt"
	"testing"

	"decoreg/internal/rng"
)

func BenchmarkMMRows(b *testing.B) {
	r := rng.New(1)
	for _, sz := range []struct{ R, k, W, ldc, ldx, ldb int }{
		{4, 32, 8, 8, 32, 8}, {6, 32, 8, 8, 32, 8}, {6, 6, 32, 32, 6, 32}, {1, 32, 8, 8, 32, 8}, {1, 6, 32, 32, 6, 32},
		{6, 32, 8, 8, 384, 8}, {6, 6, 32, 384, 6, 384}, {6, 6, 32, 128, 6, 384},
	} {
		b.Run(fmt.Sprintf("R%d_k%d_W%d_ld%d_%d_%d", sz.R, sz.k, sz.W, sz.ldc, sz.ldx, sz.ldb), func(b *testing.B) {
			c := make([]float32, sz.R*sz.ldc)
			x := uniform(r, sz.R*sz.ldx, 1)
			y := uniform(r, sz.k*sz.ldb, 1)
			for b.Loop() {
				mmRows(c, sz.ldc, x, sz.ldx, y, sz.ldb, sz.R, sz.k, sz.W, false)
			}
		})
	}
}
