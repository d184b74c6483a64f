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

// BenchmarkMDNModeSharp2048: the mode of a mixture of 2,048 narrow,
// overlapping components (as an MDN of many components at a low
// temperature gives), from MaxModeStarts climbs.
func BenchmarkMDNModeSharp2048(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	const k = 2048
	w, mu, sd := make([]float64, k), make([]float64, k), make([]float64, k)
	for i := range w {
		w[i] = r.Float64()
		mu[i] = 0.5 + 0.1*r.NormFloat64()
		sd[i] = 0.005 + 0.02*r.Float64()
	}
	aff := Affine{Offset: 0, Scale: 1}
	for b.Loop() {
		NewMDN(w, mu, sd, aff).Mode()
	}
}

// BenchmarkMDNQuantiles: the four default levels and the median of a
// 10-component MDN as a fitted head gives one (sds 0.02 to 0.2).
func BenchmarkMDNQuantiles(b *testing.B) {
	w := []float64{0.3, 0.2, 0.1, 0.05, 0.05, 0.1, 0.05, 0.05, 0.05, 0.05}
	mu := []float64{0.1, 0.2, 0.35, 0.4, 0.5, 0.55, 0.6, 0.7, 0.8, 0.9}
	sd := []float64{0.02, 0.05, 0.2, 0.1, 0.03, 0.08, 0.04, 0.06, 0.1, 0.15}
	d := NewMDN(w, mu, sd, Affine{3, 10})
	levels := []float64{0.05, 0.25, 0.5, 0.75, 0.95}
	for b.Loop() {
		for _, q := range levels {
			d.Quantile(q)
		}
	}
}
