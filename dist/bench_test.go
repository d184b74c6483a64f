package dist

import (
	"math/rand/v2"
	"testing"
)

// The benchmarks run on constDec (fixed logits, no model), so they time
// this package's own work per query: masking, softmax, tree bookkeeping
// and the tokenization's Interval/Decode calls.

func benchToken(b *testing.B, spec string, opts TokenOptions) *Token {
	tok := parseTok(b, spec)
	l := make([]float32, tok.Size())
	for i := range l {
		l[i] = float32(i%5) * 0.7
	}
	return NewToken(&constDec{l}, tok, Affine{Offset: 1, Scale: 2}, opts)
}

func BenchmarkTokenQuantiles64Unnormalized10x2x6(b *testing.B) {
	d := benchToken(b, "unnormalized:base=10,exponent=2,mantissa=6", TokenOptions{})
	qs := make([]float64, 64)
	for i := range qs {
		qs[i] = (float64(i) + 0.5) / 64
	}
	for b.Loop() {
		d.Quantiles(qs)
	}
}

func BenchmarkTokenCDFs64Unnormalized10x2x6(b *testing.B) {
	d := benchToken(b, "unnormalized:base=10,exponent=2,mantissa=6", TokenOptions{})
	ys := d.Quantiles([]float64{0.1, 0.3, 0.5, 0.7, 0.9})
	for len(ys) < 64 {
		ys = append(ys, ys[:min(len(ys), 64-len(ys))]...)
	}
	for b.Loop() {
		d.CDFs(ys)
	}
}

func BenchmarkTokenMeanNormalized10x6(b *testing.B) {
	for b.Loop() {
		d := benchToken(b, "normalized:base=10,length=6", TokenOptions{})
		d.MeanBound()
	}
}

func BenchmarkTokenSample1000Normalized10x6(b *testing.B) {
	d := benchToken(b, "normalized:base=10,length=6", TokenOptions{})
	r := rand.New(rand.NewPCG(1, 1))
	for b.Loop() {
		d.Sample(1000, SampleOptions{TopP: 0.9}, r)
	}
}

func BenchmarkTokenLogPDFs64Unnormalized10x2x6(b *testing.B) {
	d := benchToken(b, "unnormalized:base=10,exponent=2,mantissa=6", TokenOptions{})
	ys := make([]float64, 64)
	for i := range ys {
		ys[i] = float64(i)*13.7 - 400
	}
	for b.Loop() {
		d.LogPDFs(ys)
	}
}
