package nn

import (
	"fmt"
	"testing"

	"decoreg/internal/rng"
)

func BenchmarkMMRows(b *testing.B) {
	r := rng.New(1)
	for _, sz := range []struct{ R, k, W int }{{2, 32, 8}, {3, 32, 8}, {4, 32, 8}, {4, 128, 8}, {6, 32, 8}, {6, 6, 32}, {1, 32, 8}, {1, 6, 32}} {
		b.Run(fmt.Sprintf("R%d_k%d_W%d", sz.R, sz.k, sz.W), func(b *testing.B) {
			c := make([]float32, sz.R*sz.W)
			x := uniform(r, sz.R*sz.k, 1)
			y := uniform(r, sz.k*sz.W, 1)
			for b.Loop() {
				mmRows(c, sz.W, x, sz.k, y, sz.W, sz.R, sz.k, sz.W, false)
			}
		})
	}
}
