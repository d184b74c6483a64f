package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"decoreg/dist"
	"decoreg/vocab"
)

// FuzzAcceptedSpecs builds a random-weight decoder (nothing trained; the
// weights scaled by up to 1e30, so that logits overflow float32) for every
// spec vocab.Parse accepts, optionally bounded as decoreg bounds an
// unnormalized decoder, and runs every dist.Distribution method on it: no
// panic, finite summaries, a CDF in [0, 1] and monotone (up to rounding),
// monotone
// quantiles, LogPDF never NaN or +Inf, samples finite unless the
// tokenization has special tokens. `go test` runs the seed corpus only;
// `go test -fuzz FuzzAcceptedSpecs ./internal/model` explores.
func FuzzAcceptedSpecs(f *testing.F) {
	for _, s := range []string{
		// P3: rejected by Parse now.
		"normalized:base=36,length=256", "hamming:length=62", "normalized:base=2,length=60,repeat=3,special=true",
		"normalized:base=10,length=17",
		// The limits.
		"normalized:base=10,length=15", "normalized:base=2,length=50", "normalized:base=36,length=9,special=true",
		"hamming:length=50", "unnormalized:base=10,exponent=2,mantissa=15",
		// P4: cells beyond float64 (exponents up to 1023, 9999).
		"unnormalized:base=2,exponent=10,mantissa=8", "unnormalized:base=10,exponent=4,mantissa=4,special=true",
		"unnormalized:base=10,exponent=1,mantissa=4", "unnormalized:base=8,exponent=2,mantissa=2,repeat=3",
		"normalized:base=2,length=8,repeat=30", "hamming:length=5,repeat=3,special=true",
	} {
		for i, scale := range []float32{1, 30, 1e30} {
			f.Add(s, uint64(i), scale, 0.7, i%2 == 0)
		}
	}
	f.Fuzz(func(t *testing.T, spec string, seed uint64, scale float32, x float64, bounded bool) {
		tok, err := vocab.Parse(spec)
		if err != nil {
			return
		}
		if bounded && vocab.IsUnnormalized(tok) {
			if tok, err = vocab.Bound(tok, -0.6, 0.6); err != nil {
				t.Fatalf("Bound(%s, -0.6, 0.6): %v", spec, err)
			}
		}
		m, err := New(Config{In: 2, EncLayers: 1, EncWidth: 8, Head: Decoder, Vocab: tok,
			DecLayers: 1, DecWidth: 8, DecHeads: 2, MaskLoss: true}, seed)
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		for i := range m.Params() {
			m.Params()[i] *= scale
		}
		phi := make([]float32, 8)
		m.Encode([]float32{float32(x), float32(-x)}, 1, phi)
		aff := dist.Affine{Offset: 3, Scale: 2}
		d := dist.NewToken(m.Decoder(phi), tok, aff, dist.TokenOptions{Samples: 64, Seed: seed})
		checkDist(t, d, tok)
	})
}

func checkDist(t *testing.T, d *dist.Token, tok vocab.Tokenizer) {
	t.Helper()
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	mean, bound := d.MeanBound()
	if bad(mean) || math.IsNaN(bound) || bound < 0 {
		t.Errorf("MeanBound = %v, %v", mean, bound)
	}
	if v := d.Median(); bad(v) {
		t.Errorf("Median = %v", v)
	}
	if v := d.Mode(); bad(v) {
		t.Errorf("Mode = %v", v)
	}
	qs := d.Quantiles([]float64{0, 1e-300, 0.01, 0.25, 0.5, 0.75, 0.99, 1 - 1e-16, 1})
	for i, v := range qs {
		if bad(v) || i > 0 && v < qs[i-1] {
			t.Errorf("Quantiles = %v", qs)
			break
		}
	}
	if v := d.Quantile(-0.1); !math.IsNaN(v) {
		t.Errorf("Quantile(-0.1) = %v", v)
	}
	ys := append(slices.Clone(qs), math.Inf(-1), -math.MaxFloat64, -1e300, -1, 0, 1, 3, 5, 1e300, math.MaxFloat64, math.Inf(1), mean)
	slices.Sort(ys)
	cdf := d.CDFs(ys)
	for i, c := range cdf {
		// Monotone up to rounding: the mass left of neighbouring cells is
		// summed along different paths.
		if !(c >= 0 && c <= 1) || i > 0 && c < cdf[i-1]-1e-12 {
			t.Errorf("CDF(%v) = %v after %v", ys[i], c, cdf[max(i-1, 0)])
		}
	}
	if c := d.CDF(math.NaN()); !math.IsNaN(c) {
		t.Errorf("CDF(NaN) = %v", c)
	}
	for i, v := range d.LogPDFs(append(ys, math.NaN())) {
		if math.IsNaN(v) || math.IsInf(v, 1) {
			t.Errorf("LogPDF(%v) = %v", append(ys, math.NaN())[i], v)
		}
	}
	special := false
	for tk := range tok.Size() {
		special = special || vocab.SpecialKind(tok, tk) != vocab.Finite
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, o := range []dist.SampleOptions{{}, {Temperature: 0.3}, {Temperature: 3, TopK: 2}, {TopP: 0.5}, {TopK: 1, TopP: 0.9}} {
		for _, v := range d.Sample(8, o, r) {
			if bad(v) && !special {
				t.Errorf("Sample(%+v) gave %v", o, v)
			}
		}
	}
}
