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
