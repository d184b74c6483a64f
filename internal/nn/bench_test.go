package nn

import (
	"fmt"
	"runtime"
	"testing"

	"decoreg/internal/rng"
)

// benchThreads is the thread count of the benchmarks: all cores.
var benchThreads = runtime.GOMAXPROCS(0)

// BenchmarkAttention times AttentionForward+Backward on the direct loops
// and on gemm.Sgemm per head, to place attnGemmMin.
func BenchmarkAttention(b *testing.B) {
	for _, sz := range []struct{ B, T, C, NH int }{
		{256, 2, 32, 1}, {256, 4, 32, 1}, {256, 6, 32, 1}, {256, 6, 128, 4}, {32, 6, 128, 4}, {4, 6, 128, 4}, {2, 6, 128, 4}, {256, 8, 32, 1}, {256, 8, 32, 4}, {256, 12, 32, 1}, {256, 12, 128, 4}, {64, 32, 128, 4}, {32, 64, 128, 4}, {16, 128, 128, 4}, {8, 256, 256, 4},
	} {
		for _, path := range []string{"direct", "gemm"} {
			B, T, C, NH := sz.B, sz.T, sz.C, sz.NH
			b.Run(fmt.Sprintf("%s/B%d_T%d_C%d_NH%d", path, B, T, C, NH), func(b *testing.B) {
				r := rng.New(1)
				qkv, g := uniform(r, B*T*3*C, 1), uniform(r, B*T*C, 1)
				out, dqkv := make([]float32, B*T*C), make([]float32, B*T*3*C)
				pre, att := make([]float32, B*NH*T*T), make([]float32, B*NH*T*T)
				dpre, datt := make([]float32, B*NH*T*T), make([]float32, B*NH*T*T)
				withGemmAttention(path == "gemm", func() {
					for b.Loop() {
						AttentionForward(benchThreads, out, pre, att, qkv, B, T, C, NH)
						AttentionBackward(benchThreads, dqkv, dpre, datt, g, qkv, att, B, T, C, NH)
					}
				})
				flops := 2.0 * 2 * 3 * float64(B*T*T*C) // 2 products forward, 4 backward, full T x T
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkLayers times the non-GEMM layers at decoder-like sizes.
func BenchmarkLayers(b *testing.B) {
	r := rng.New(2)
	N, C, V := 256*12, 128, 16
	in, g := uniform(r, N*C, 1), uniform(r, N*C, 1)
	w, bias := uniform(r, C, 1), uniform(r, C, 1)
	out, mean, rstd, din := make([]float32, N*C), make([]float32, N), make([]float32, N), make([]float32, N*C)
	dw, db := make([]float32, C), make([]float32, C)
	b.Run("LayerNorm", func(b *testing.B) {
		for b.Loop() {
			LayerNormForward(benchThreads, out, mean, rstd, in, w, bias, N, C, 1e-6)
			LayerNormBackward(benchThreads, din, dw, db, g, in, w, mean, rstd, N, C)
		}
	})
	logits, targets := uniform(r, N*V, 3), make([]int32, N)
	for i := range targets {
		targets[i] = int32(r.IntN(V))
	}
	losses, probs, dl := make([]float32, N), make([]float32, N*V), make([]float32, N*V)
	b.Run("SoftmaxCrossEntropy", func(b *testing.B) {
		for b.Loop() {
			SoftmaxCrossEntropyForward(benchThreads, losses, probs, logits, targets, nil, N, V)
			SoftmaxCrossEntropyBackward(benchThreads, dl, g, probs, targets, N, V)
		}
	})
	p := uniform(r, 1<<23, 1)
	a := NewAdam(len(p), 1e-3)
	gp := uniform(r, len(p), 1)
	b.Run("Adam8M", func(b *testing.B) {
		for b.Loop() {
			a.Step(benchThreads, p, gp)
		}
	})
}

// BenchmarkKVCacheStep times KVCache.Step as a tree expansion uses it:
// B sequences of one head of width C, T positions stepped one at a time
// (the decoder of the default model: C 32, one head, 7 positions), each
// Keep giving every sequence a new parent. It reports ns per sequence
// and position.
func BenchmarkKVCacheStep(b *testing.B) {
	for _, sz := range []struct{ B, T, C, NH int }{{120, 7, 32, 1}, {120, 7, 128, 4}} {
		B, T, C, NH := sz.B, sz.T, sz.C, sz.NH
		b.Run(fmt.Sprintf("B%d_T%d_C%d_NH%d", B, T, C, NH), func(b *testing.B) {
			r := rng.New(3)
			qkv, out := uniform(r, B*3*C, 1), make([]float32, B*C)
			c := NewKVCache(B, T, C, NH)
			idx := make([]int, B)
			for i := range idx {
				idx[i] = (i * 7) % B
			}
			for b.Loop() {
				c.Restart(B)
				for range T {
					c.Step(1, out, qkv)
					c.Keep(idx)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*B*T), "ns/seq-step")
		})
	}
}
