package gemm

import (
	"fmt"
	"testing"
)

// BenchmarkColdOperands times the products of bench train's config (c)
// (decoder 3 layers of width 128 on 1,536 rows) on 2 threads, with the
// operands in cache (the same product back to back) and cold (32 MiB
// touched before each product, untimed), in µs per product. In a training
// step the products run between the pointwise layers, whose activations
// push theirs out of the 2 MB L2: their times there are between the two.
func BenchmarkColdOperands(b *testing.B) {
	type shape struct {
		transA, transB bool
		m, n, k        int
	}
	junk := make([]float32, 8<<20)
	for _, s := range []shape{
		{false, true, 1536, 128, 128}, {false, false, 1536, 128, 128}, {true, false, 128, 128, 1536}, {true, false, 384, 128, 1536},
	} {
		for _, cold := range []bool{false, true} {
			name := fmt.Sprintf("%s/%dx%dx%d/cold=%v", opName(s.transA, s.transB), s.m, s.n, s.k, cold)
			b.Run(name, func(b *testing.B) {
				a, bb, c := make([]float32, s.m*s.k), make([]float32, s.n*s.k), make([]float32, s.m*s.n)
				for i := range a {
					a[i] = float32(i%7) * 0.1
				}
				for i := range bb {
					bb[i] = float32(i%5) * 0.1
				}
				lda, ldb := s.k, s.n
				if s.transA {
					lda = s.m
				}
				if s.transB {
					ldb = s.k
				}
				for b.Loop() {
					if cold {
						b.StopTimer()
						for i := range junk {
							junk[i]++
						}
						b.StartTimer()
					}
					Sgemm(2, s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, s.n)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e3, "µs/op")
			})
		}
	}
}

// opName names a product by its operands' transposition, as A·Bᵀ.
func opName(transA, transB bool) string {
	a, bt := "A", "B"
	if transA {
		a = "At"
	}
	if transB {
		bt = "Bt"
	}
	return a + bt
}
