package nn

import (
	"math"

	"decoreg/internal/par"
)

// EmbeddingForward looks up token embeddings: out[i,:] = wte[tokens[i],:].
//
//	out (N, C), tokens (N), wte (V, C) with V = len(wte)/C.
//
// A token outside [0, V) panics.
func EmbeddingForward(threads int, out []float32, tokens []int32, wte []float32, N, C int) {
	needDims("EmbeddingForward", N, C)
	need(out, N*C, "EmbeddingForward out")
	if len(tokens) < N {
		panic("nn: EmbeddingForward tokens shorter than N")
	}
	checkTokens(tokens[:N], vocab(wte, C), "nn: EmbeddingForward token out of range")
	par.For(threads, N, C, embeddingForward{out, wte, tokens, C})
}

type embeddingForward struct {
	out, wte []float32
	tokens   []int32
	C        int
}

func (k embeddingForward) Run(lo, hi int) {
	C := k.C
	for i := lo; i < hi; i++ {
		tok := int(k.tokens[i])
		copy(k.out[i*C:(i+1)*C], k.wte[tok*C:(tok+1)*C])
	}
}

// checkTokens panics with msg unless every token lies in [0, V). Checks
// run before parallel loops so that the panic reaches the caller.
func checkTokens(tokens []int32, V int, msg string) {
	for _, tok := range tokens {
		if tok < 0 || int(tok) >= V {
			panic(msg)
		}
	}
}

func vocab(wte []float32, C int) int {
	if C == 0 {
		return math.MaxInt // no rows to index: every token id is in range
	}
	return len(wte) / C
}

// EmbeddingBackward accumulates dwte[tokens[i],:] += dout[i,:] for i < N,
// in increasing i for every element (the work is split over columns, so a
// token repeated in the batch is summed in a fixed order).
//
//	dwte (V, C), dout (N, C), tokens (N).
func EmbeddingBackward(threads int, dwte, dout []float32, tokens []int32, N, C int) {
	needDims("EmbeddingBackward", N, C)
	need(dout, N*C, "EmbeddingBackward dout")
	if len(tokens) < N {
		panic("nn: EmbeddingBackward tokens shorter than N")
	}
	checkTokens(tokens[:N], vocab(dwte, C), "nn: EmbeddingBackward token out of range")
	par.For(threads, blocks(C), N*colBlock, embeddingBackward{dwte, dout, tokens, N, C})
}

// embeddingBackward owns column blocks lo..hi-1 of dwte.
type embeddingBackward struct {
	dwte, dout []float32
	tokens     []int32
	N, C       int
}

func (k embeddingBackward) Run(lo, hi int) {
	C := k.C
	j0, j1 := lo*colBlock, min(hi*colBlock, C)
	for i := 0; i < k.N; i++ {
		tok := int(k.tokens[i])
		d, g := k.dwte[tok*C+j0:tok*C+j1], k.dout[i*C+j0:i*C+j1]
		for j, v := range g {
			d[j] += v
		}
	}
}

// PositionalForward adds learned positional embeddings IN PLACE:
// out[b,t,:] += wpe[t,:].
//
//	out (B, T, C), wpe (Tmax, C) with Tmax >= T.
func PositionalForward(threads int, out, wpe []float32, B, T, C int) {
	needDims("PositionalForward", B, T, C)
	need(out, B*T*C, "PositionalForward out")
	need(wpe, T*C, "PositionalForward wpe")
	par.For(threads, B*T, C, positionalForward{out, wpe, T, C})
}

type positionalForward struct {
	out, wpe []float32
	T, C     int
}

func (k positionalForward) Run(lo, hi int) {
	C := k.C
	if k.T == 1 {
		// One position (a decoding step): every row adds the same row.
		AddRows(k.out[lo*C:hi*C], k.out[lo*C:hi*C], k.wpe[:C], hi-lo, C)
		return
	}
	for r := lo; r < hi; r++ {
		t := r % k.T
		o := k.out[r*C : (r+1)*C]
		AddRows(o, o, k.wpe[t*C:(t+1)*C], 1, C)
	}
}

// PositionalBackward accumulates dwpe[t,:] += sum over b of dout[b,t,:],
// summed in float64.
//
//	dwpe (Tmax, C) with Tmax >= T, dout (B, T, C).
func PositionalBackward(threads int, dwpe, dout []float32, B, T, C int) {
	needDims("PositionalBackward", B, T, C)
	need(dout, B*T*C, "PositionalBackward dout")
	need(dwpe, T*C, "PositionalBackward dwpe")
	if B == 0 {
		return
	}
	par.For(threads, T, B*C, positionalBackward{dwpe, dout, B, T, C})
}

// positionalBackward owns rows lo..hi-1 of dwpe.
type positionalBackward struct {
	dwpe, dout []float32
	B, T, C    int
}

func (k positionalBackward) Run(lo, hi int) {
	C := k.C
	for t := lo; t < hi; t++ {
		addRowSums(k.dwpe[t*C:(t+1)*C], k.dout[t*C:], k.B, k.T*C, C)
	}
}
