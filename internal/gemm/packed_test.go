package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSgemmPackedSameBits: a multiply with B packed beforehand gives
// Sgemm's results bit for bit, for either transposition of A and B,
// partial tiles and panels, several depth blocks, thread counts, alpha and
// beta; and packing copies B.
func TestSgemmPackedSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	fill := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		return x
	}
	shapes := [][3]int{{1, 1, 1}, {1, 256, 256}, {3, 96, 32}, {17, 33, 7}, {64, 512, 512}, {9, 40, 1100}, {300, 10, 700}, {5, 2048, 64}}
	for _, sh := range shapes {
		m, n, k := sh[0], sh[1], sh[2]
		for _, transA := range []bool{false, true} {
			for _, transB := range []bool{true, false} {
				lda, ldb := k, n
				if transA {
					lda = m
				}
				if transB {
					ldb = k
				}
				a, b := fill(m*k), fill(n*k)
				pb := PackB(transB, n, k, b, ldb)
				for _, threads := range []int{1, 2} {
					for _, ab := range [][2]float32{{1, 0}, {-0.7, 1}, {1.3, 0.5}} {
						c0 := fill(m * n)
						want, got := append([]float32(nil), c0...), append([]float32(nil), c0...)
						Sgemm(threads, transA, transB, m, n, k, ab[0], a, lda, b, ldb, ab[1], want, n)
						SgemmPacked(threads, transA, m, ab[0], a, lda, pb, ab[1], got, n)
						for i := range want {
							if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
								t.Fatalf("%dx%dx%d transA %v transB %v threads %d alpha,beta %v: c[%d] = %v packed, %v by Sgemm", m, n, k, transA, transB, threads, ab, i, got[i], want[i])
							}
						}
					}
				}
				// The panels are a copy: changing B does not change them.
				b0 := b[0]
				b[0] += 1
				c1, c2 := make([]float32, m*n), make([]float32, m*n)
				SgemmPacked(1, transA, m, 1, a, lda, pb, 0, c1, n)
				b[0] = b0
				Sgemm(1, transA, transB, m, n, k, 1, a, lda, b, ldb, 0, c2, n)
				for i := range c1 {
					if math.Float32bits(c1[i]) != math.Float32bits(c2[i]) {
						t.Fatalf("%dx%dx%d: the packed B saw a change to B", m, n, k)
					}
				}
			}
		}
	}
}

// TestPackBChecks: PackB refuses what Sgemm refuses.
func TestPackBChecks(t *testing.T) {
	for name, f := range map[string]func(){
		"short b":    func() { PackB(true, 4, 4, make([]float32, 15), 4) },
		"bad ldb":    func() { PackB(false, 4, 4, make([]float32, 16), 3) },
		"negative n": func() { PackB(true, -1, 4, nil, 4) },
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
	// Empty operands multiply like Sgemm: C scaled by beta.
	pb := PackB(true, 3, 0, nil, 1)
	c := []float32{1, 2, 3}
	SgemmPacked(1, false, 1, 1, nil, 1, pb, 2, c, 3)
	if c[0] != 2 || c[2] != 6 {
		t.Errorf("k = 0: C = %v, want 2C", c)
	}
}
