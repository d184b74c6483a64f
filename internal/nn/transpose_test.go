package nn

import (
	"testing"

	"decoreg/internal/rng"
)

// TestTranspose checks transpose (the vector kernel where it applies)
// against the definition, with the zero padding of the vector kernel.
func TestTranspose(t *testing.T) {
	r := rng.New(41)
	for rows := 1; rows <= 10; rows++ {
		for _, cols := range []int{3, 8, 16, 32, 40} {
			for _, ldd := range []int{max(rows, 8), max(rows, 8) + 3} {
				lds := cols + 5
				src := uniform(r, rows*lds, 1)
				dst := uniform(r, cols*ldd+3, 1) // garbage, including the padding
				want := clone(dst)
				for i := range cols {
					for j := range rows {
						want[i*ldd+j] = src[j*lds+i]
					}
				}
				vec := transposeVec(make([]float32, len(dst)), ldd, src, lds, rows, cols)
				transpose(dst, ldd, src, lds, rows, cols)
				for i := range cols {
					for j := range ldd {
						g, w := dst[i*ldd+j], want[i*ldd+j]
						if j >= rows && vec && j < 8 {
							w = 0
						}
						if g != w {
							t.Fatalf("rows %d cols %d ldd %d: dst[%d][%d] = %v, want %v", rows, cols, ldd, i, j, g, w)
						}
					}
				}
			}
		}
	}
}
