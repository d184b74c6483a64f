package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDirect checks Direct against a float64 product and, bit for bit,
// against the scalar loops of its definition, for every row count, depths
// 0 to 9, widths below, at and between multiples of the vector width,
// strides wider than the rows, and accumulation on and off.
func TestDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 41))
	uniform := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.Float64()*2 - 1)
		}
		return x
	}
	for m := 1; m <= 9; m++ {
		for k := 0; k <= 9; k++ {
			for _, n := range []int{1, 5, 8, 13, 16, 24} {
				for _, accum := range []bool{false, true} {
					ldc, lda, ldb := n+3, k+2, n+5
					c := uniform(m * ldc)
					a := uniform(m * lda)
					b := uniform(max(k, 1) * ldb)
					want := make([]float32, len(c)) // the definition's loops
					copy(want, c)
					ref := make([]float64, len(c)) // float64 product
					for i, v := range c {
						ref[i] = float64(v)
					}
					for i := range m {
						for j := range n {
							acc := float32(0)
							if accum {
								acc = c[i*ldc+j]
							}
							ref[i*ldc+j] = float64(acc)
							for p := range k {
								acc += float32(a[i*lda+p] * b[p*ldb+j])
								ref[i*ldc+j] += float64(a[i*lda+p]) * float64(b[p*ldb+j])
							}
							want[i*ldc+j] = acc
						}
					}
					Direct(accum, m, n, k, a, lda, b, ldb, c, ldc)
					for i := range c {
						if math.Float32bits(c[i]) != math.Float32bits(want[i]) {
							t.Fatalf("m %d k %d n %d accum %v: c[%d] = %v, loops give %v", m, k, n, accum, i, c[i], want[i])
						}
						if v := ref[i]; !(math.Abs(float64(c[i])-v) <= 1e-5*(1+math.Abs(v))) {
							t.Fatalf("m %d k %d n %d: c[%d] = %v, float64 %v", m, k, n, i, c[i], v)
						}
					}
				}
			}
		}
	}
	for name, f := range map[string]func(){
		"short c": func() { Direct(false, 1, 8, 1, make([]float32, 1), 1, make([]float32, 8), 8, make([]float32, 7), 8) },
		"short b": func() { Direct(false, 1, 8, 2, make([]float32, 2), 2, make([]float32, 15), 8, make([]float32, 8), 8) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
