//go:build amd64 && !purego

package gemm

import (
	"testing"
)

func BenchmarkMicroAVX2(b *testing.B) {
	k := 256
	a := getBuf(6 * k).f
	bb := getBuf(16 * k).f
	c := make([]float32, 6*16)
	for i := range a {
		a[i] = 1
	}
	for i := range bb {
		bb[i] = 1
	}
	for b.Loop() {
		sgemmKernelAVX2(&a[0], &bb[0], &c[0], k, 1, 6, 16, 16, 1, 0)
	}
	b.ReportMetric(2*6*16*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkCopy16MB(b *testing.B) {
	x := make([]float32, 4<<20)
	y := make([]float32, 4<<20)
	for b.Loop() {
		copy(y, x)
	}
	b.ReportMetric(float64(len(x)*4)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

func BenchmarkMicroBlock(b *testing.B) {
	k := 256
	tiles := 24
	a := getBuf(6 * k * tiles).f
	nt := 32
	bb := getBuf(16 * k * nt).f
	ldc := 2048
	c := make([]float32, 6*tiles*ldc)
	for i := range a {
		a[i] = 1
	}
	for i := range bb {
		bb[i] = 1
	}
	for b.Loop() {
		for jr := 0; jr < nt; jr++ {
			for ir := 0; ir < tiles; ir++ {
				sgemmKernelAVX2(&a[ir*6*k], &bb[jr*16*k], &c[ir*6*ldc+jr*16], k, 1, 6, 16, ldc, 1, 1)
			}
		}
	}
	b.ReportMetric(2*6*16*float64(k*tiles*nt)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkParallelNoop(b *testing.B) {
	x := make([]int, 2)
	for b.Loop() {
		parallel(2, func(w int) { x[w]++ })
	}
}

func BenchmarkPackA6(b *testing.B) {
	m, k := 264, 512
	a := make([]float32, m*k)
	g := &gemmCall{kern: kernelAVX2, a: a, lda: k, m: m, k: k}
	dst := make([]float32, 44*256*6)
	for b.Loop() {
		for pc := 0; pc < k; pc += 256 {
			d := depth{pc: pc, kcb: 256}
			for ir := 0; ir < 44; ir++ {
				g.packA(dst[ir*256*6:], d, ir)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(m*k), "ns/float")
}

func BenchmarkPackB16(b *testing.B) {
	n, k := 512, 512
	bm := make([]float32, n*k)
	g := &gemmCall{kern: kernelAVX2, b: bm, ldb: n, n: n, k: k}
	dst := make([]float32, 4*256*16)
	for b.Loop() {
		for pc := 0; pc < k; pc += 256 {
			d := depth{pc: pc, kcb: 256}
			for j0 := 0; j0 < n/16; j0 += 4 {
				g.packB(dst, d, j0, j0+4)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*k), "ns/float")
}
