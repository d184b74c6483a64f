package model

import (
	"math/rand/v2"
	"testing"

	"decoreg/dist"
	"decoreg/vocab"
)

// fullPrefix is a dist.Decoder without a key/value cache: every Step re-runs
// the whole teacher-forced forward over the prefixes decoded so far and
// reads the logits at the last position. It is the reference the KV-cached
// Stepper must agree with.
type fullPrefix struct {
	m *Model
	x []float32 // one input row
}

type fullStepper struct {
	f        *fullPrefix
	prefixes [][]int
}

func (f *fullPrefix) Start(n int) dist.Stepper {
	return &fullStepper{f: f, prefixes: make([][]int, n)}
}

func (s *fullStepper) N() int { return len(s.prefixes) }

func (s *fullStepper) Keep(idx []int) {
	next := make([][]int, len(idx))
	for i, j := range idx {
		next[i] = append([]int(nil), s.prefixes[j]...)
	}
	s.prefixes = next
}

func (s *fullStepper) Step(tokens []int, logits []float32) {
	m := s.f.m
	for i := range s.prefixes {
		if tokens != nil {
			s.prefixes[i] = append(s.prefixes[i], tokens[i])
		}
	}
	n, T, V, in := len(s.prefixes), m.t, m.v, m.Cfg.In
	b := &Batch{B: n, X: make([]float32, n*in), Tokens: make([]int32, n*T)}
	for i, p := range s.prefixes {
		copy(b.X[i*in:], s.f.x)
		for j, t := range p {
			b.Tokens[i*T+j] = int32(t) // later positions stay 0: causality makes them irrelevant
		}
	}
	m.ensure(n)
	m.forward(b, 0, n, false, false)
	pos := len(s.prefixes[0])
	for i := range s.prefixes {
		copy(logits[i*V:(i+1)*V], m.a.logits[(i*T+pos)*V:(i*T+pos+1)*V])
	}
}

// TestCachedSamplerEqualsFullPrefix: the KV-cached sampler and the
// full-prefix sampler give the same samples from the same seed.
func TestCachedSamplerEqualsFullPrefix(t *testing.T) {
	for _, spec := range []string{"normalized:base=4,length=5", "unnormalized:base=4,exponent=1,mantissa=3"} {
		tok, err := vocab.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		m, err := New(Config{In: 3, EncLayers: 2, EncWidth: 8, Head: Decoder, Vocab: tok, DecLayers: 2, DecWidth: 8, DecHeads: 2, MaskLoss: true}, 3)
		if err != nil {
			t.Fatal(err)
		}
		x := []float32{0.3, -1.2, 0.7}
		phi := make([]float32, 8)
		m.Encode(x, 1, phi)
		aff := dist.Affine{Offset: 0, Scale: 1}
		cached := dist.NewToken(m.Decoder(phi), tok, aff, dist.TokenOptions{})
		full := dist.NewToken(&fullPrefix{m: m, x: x}, tok, aff, dist.TokenOptions{})
		for _, opts := range []dist.SampleOptions{{}, {Temperature: 0.7, TopK: 3}, {TopP: 0.8}} {
			a := cached.Sample(500, opts, rand.New(rand.NewPCG(5, 6)))
			b := full.Sample(500, opts, rand.New(rand.NewPCG(5, 6)))
			diff := 0
			for i := range a {
				if a[i] != b[i] {
					diff++
				}
			}
			// Logits agree to ~1e-6, so a sample may differ only when its
			// uniform draw falls within that distance of a boundary.
			if diff > 1 {
				t.Errorf("%s %+v: %d of %d samples differ between cached and full-prefix decoding", spec, opts, diff, len(a))
			}
		}
		// Exact quantiles through both decoders agree too.
		qa := cached.Quantiles([]float64{0.1, 0.5, 0.9})
		qb := full.Quantiles([]float64{0.1, 0.5, 0.9})
		for i := range qa {
			if d := qa[i] - qb[i]; !(d <= 1e-4 && d >= -1e-4) {
				t.Errorf("%s: quantile %d: cached %v, full %v", spec, i, qa[i], qb[i])
			}
		}
	}
}
