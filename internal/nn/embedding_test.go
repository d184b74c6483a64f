package nn

import (
	"math"
	"testing"

	"decoreg/internal/rng"
)

func embed64(tokens []int32, wte []float64, N, C int) []float64 {
	out := make([]float64, N*C)
	for i := 0; i < N; i++ {
		for j := 0; j < C; j++ {
			out[i*C+j] = wte[int(tokens[i])*C+j]
		}
	}
	return out
}

func TestEmbedding(t *testing.T) {
	for _, sz := range []struct{ N, V, C int }{{7, 5, 3}, {9, 4, 70}} {
		r := rng.New(5)
		N, V, C := sz.N, sz.V, sz.C
		tokens := make([]int32, N)
		for i := range tokens {
			tokens[i] = int32(r.IntN(V - 1)) // token V-1 never used: its gradient stays 0
		}
		tokens[N-1] = tokens[0] // a repeat
		wte, g := uniform(r, V*C, 1), uniform(r, N*C, 1)
		out := uniform(r, N*C, 1)
		EmbeddingForward(2, out, tokens, wte, N, C)
		checkClose(t, "Embedding out", out, embed64(tokens, to64(wte), N, C), 0, 0)
		dwte, dwte0 := prefilled(r, V*C)
		EmbeddingBackward(2, dwte, g, tokens, N, C)
		checkGrad(t, "Embedding dwte", dwte, dwte0, wte, nil, func(x []float64) float64 {
			return weighted(embed64(tokens, x, N, C), g)
		})
	}
	mustPanic(t, "token out of range", func() {
		EmbeddingForward(2, make([]float32, 2), []int32{3}, make([]float32, 6), 1, 2)
	})
	mustPanic(t, "negative token", func() {
		EmbeddingBackward(2, make([]float32, 6), make([]float32, 2), []int32{-1}, 1, 2)
	})
}

func positional64(x, wpe []float64, B, T, C int) []float64 {
	out := make([]float64, B*T*C)
	for b := 0; b < B; b++ {
		for t := 0; t < T; t++ {
			for j := 0; j < C; j++ {
				out[(b*T+t)*C+j] = x[(b*T+t)*C+j] + wpe[t*C+j]
			}
		}
	}
	return out
}

func TestPositional(t *testing.T) {
	// T = 1 is a decoding step (every row adds one row of wpe); C 70
	// has a vector part and a tail where the build has the kernel.
	for _, sz := range []struct{ B, T, Tmax, C int }{{2, 3, 5, 4}, {3, 2, 2, 70}, {5, 1, 3, 70}, {4, 3, 3, 16}} {
		r := rng.New(6)
		B, T, Tmax, C := sz.B, sz.T, sz.Tmax, sz.C
		x, wpe, g := uniform(r, B*T*C, 1), uniform(r, Tmax*C, 1), uniform(r, B*T*C, 1)
		out := append([]float32(nil), x...)
		PositionalForward(2, out, wpe, B, T, C)
		checkClose(t, "Positional out", out, positional64(to64(x), to64(wpe), B, T, C), 0, 1e-7)
		for i := range out { // the float32 sum, bit for bit
			if want := x[i] + wpe[(i/C)%T*C+i%C]; math.Float32bits(out[i]) != math.Float32bits(want) {
				t.Fatalf("B%d T%d C%d: out[%d] = %v, want %v", B, T, C, i, out[i], want)
			}
		}
		dwpe, dwpe0 := prefilled(r, Tmax*C)
		PositionalBackward(2, dwpe, g, B, T, C)
		checkGrad(t, "Positional dwpe", dwpe, dwpe0, wpe, nil, func(w []float64) float64 {
			return weighted(positional64(to64(x), w, B, T, C), g)
		})
	}
}
