package nn

import (
	"math"
	"testing"

	"decoreg/internal/rng"
)

// TestMMRows checks mmRows against a float64 product and, bit for bit,
// against the scalar loops of its definition, for every row count, depths
// 0 to 9, widths below, at and between multiples of the vector width,
// strides wider than the rows, and accumulation on and off.
func TestMMRows(t *testing.T) {
	r := rng.New(40)
	for R := 1; R <= 9; R++ {
		for k := 0; k <= 9; k++ {
			for _, W := range []int{1, 5, 8, 13, 16, 24} {
				for _, accum := range []bool{false, true} {
					ldc, ldx, ldb := W+3, k+2, W+5
					c := uniform(r, R*ldc, 1)
					x := uniform(r, R*ldx, 1)
					b := uniform(r, max(k, 1)*ldb, 1)
					want := make([]float32, len(c)) // the definition's loops
					copy(want, c)
					ref := to64(c) // float64 product
					for i := range R {
						for j := range W {
							acc := float32(0)
							if accum {
								acc = c[i*ldc+j]
							}
							ref[i*ldc+j] = float64(acc)
							for p := range k {
								acc += float32(x[i*ldx+p] * b[p*ldb+j])
								ref[i*ldc+j] += float64(x[i*ldx+p]) * float64(b[p*ldb+j])
							}
							want[i*ldc+j] = acc
						}
					}
					mmRows(c, ldc, x, ldx, b, ldb, R, k, W, accum)
					if i := equalBits(c, want); i >= 0 {
						t.Fatalf("R %d k %d W %d accum %v: c[%d] = %v, loops give %v", R, k, W, accum, i, c[i], want[i])
					}
					for i, v := range ref {
						if math.Abs(float64(c[i])-v) > 1e-5*(1+math.Abs(v)) {
							t.Fatalf("R %d k %d: c[%d] = %v, float64 %v", R, k, i, c[i], v)
						}
					}
				}
			}
		}
	}
	mustPanic(t, "short c", func() { mmRows(make([]float32, 7), 8, make([]float32, 1), 1, make([]float32, 8), 8, 1, 1, 8, false) })
	mustPanic(t, "short b", func() { mmRows(make([]float32, 8), 8, make([]float32, 2), 2, make([]float32, 15), 8, 1, 2, 8, false) })
}

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
