package gemm

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
)

var benchSizes = flag.String("gemm.sizes", "256x512x512,256x2048x2048,64x32x32,256x32x32,256x96x32,256x10x32",
	"comma-separated MxNxK sizes for BenchmarkSgemm")

// BenchmarkSgemm reports GFLOP/s (2*m*n*k per multiply) for every kernel
// usable here, at 1 and 2 threads, as BenchmarkSgemm/<kernel>/<t>t/<m>x<n>x<k>.
func BenchmarkSgemm(b *testing.B) {
	sizes, err := ParseSizes(*benchSizes)
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range Kernels() {
		mul, err := Using(name)
		if err != nil {
			b.Fatal(err)
		}
		for _, th := range []int{1, 2} {
			for _, s := range sizes {
				m, n, k := s[0], s[1], s[2]
				b.Run(fmt.Sprintf("%s/%dt/%dx%dx%d", name, th, m, n, k), func(b *testing.B) {
					rng := rand.New(rand.NewPCG(1, 1))
					x := make([]float32, m*k)
					y := make([]float32, k*n)
					z := make([]float32, m*n)
					for i := range x {
						x[i] = rng.Float32()
					}
					for i := range y {
						y[i] = rng.Float32()
					}
					b.ResetTimer()
					for b.Loop() {
						mul(th, false, false, m, n, k, 1, x, k, y, n, 0, z, n)
					}
					b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}

// modelShapes are the multiplies of one training step of the models of
// issue 6 (batch 256; N = 256*6 decoder rows), with their transposes:
// forward in·Wᵀ (NT), input gradient dout·W (NN), weight gradient
// doutᵀ·in (TN).
var modelShapes = []struct {
	name    string
	ta, tb  bool
	m, n, k int
}{
	{"a.fwd", false, true, 256, 512, 512},
	{"a.dx", false, false, 256, 512, 512},
	{"a.dw", true, false, 512, 512, 256},
	{"b.fwd", false, true, 256, 2048, 2048},
	{"b.dx", false, false, 256, 2048, 2048},
	{"b.dw", true, false, 2048, 2048, 256},
	{"c.qkv.fwd", false, true, 1536, 384, 128},
	{"c.qkv.dx", false, false, 1536, 128, 384},
	{"c.qkv.dw", true, false, 384, 128, 1536},
	{"c.d.fwd", false, true, 1536, 128, 128},
	{"c.d.dx", false, false, 1536, 128, 128},
	{"c.d.dw", true, false, 128, 128, 1536},
	{"a.dec.fwd", false, true, 1536, 96, 32},
	{"a.dec.dw", true, false, 96, 32, 1536},
}

// BenchmarkModelShapes reports GFLOP/s of the default kernel on the
// model's shapes at 1 and 2 threads, as BenchmarkModelShapes/<t>t/<name>.
func BenchmarkModelShapes(b *testing.B) {
	for _, th := range []int{1, 2} {
		for _, s := range modelShapes {
			b.Run(fmt.Sprintf("%dt/%s", th, s.name), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 1))
				x := make([]float32, s.m*s.k)
				y := make([]float32, s.k*s.n)
				z := make([]float32, s.m*s.n)
				for i := range x {
					x[i] = rng.Float32()
				}
				for i := range y {
					y[i] = rng.Float32()
				}
				lda, ldb := s.k, s.n
				if s.ta {
					lda = s.m
				}
				if s.tb {
					ldb = s.k
				}
				for b.Loop() {
					Sgemm(th, s.ta, s.tb, s.m, s.n, s.k, 1, x, lda, y, ldb, 1, z, s.n)
				}
				b.ReportMetric(2*float64(s.m)*float64(s.n)*float64(s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
