package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"decoreg/vocab"
)

// scaledDec multiplies its Decoder's logits by inv, in float32, as a
// model's temperature does (internal/head's tempDecoder): the independent
// way to build a distribution at temperature 1/inv.
type scaledDec struct {
	Decoder
	inv float32
}

func (d scaledDec) Start(n int) Stepper { return scaledStep{d.Decoder.Start(n), d.inv} }

type scaledStep struct {
	Stepper
	inv float32
}

func (s scaledStep) Step(tokens []int, logits []float32) {
	s.Stepper.Step(tokens, logits)
	for i := range logits {
		logits[i] *= s.inv
	}
}

// TestCDFAt: Token.CDFAt(y)(1/T) is the CDF at y of the distribution whose
// decoder's logits are divided by T, for tree tokenizations with and
// without specials and a bound, at several temperatures and points: inside
// cells, on cell edges, at and beyond the support's edges; and logits
// with +Inf or NaN entries follow CDFs' rules.
func TestCDFAt(t *testing.T) {
	bounded, err := vocab.Bound(parseTok(t, "unnormalized:base=4,exponent=1,mantissa=2"), -3, 5)
	if err != nil {
		t.Fatal(err)
	}
	toks := []vocab.Tokenizer{bounded}
	for _, spec := range append([]string{"normalized:base=3,length=3,special=true", "normalized:base=8,length=2"}, treeSpecs...) {
		toks = append(toks, parseTok(t, spec))
	}
	r := rand.New(rand.NewPCG(3, 3))
	for _, tok := range toks {
		tr := tok.(vocab.Tree)
		lo, hi := tr.Interval(nil)
		f := newFake(t, tok.Size(), 9, 2)
		d := NewToken(f, tok, testAff, TokenOptions{})
		toY := func(u float64) float64 { return testAff.Offset + testAff.Scale*u }
		ys := []float64{toY(lo), toY(hi), toY(lo) - 1, toY(hi) + 1, math.Inf(-1), math.Inf(1)}
		// Cell edges: the edges of the first level's children and of a
		// deep cell.
		for _, c := range tr.Children(nil, nil) {
			clo, chi := tr.Interval([]int{c})
			ys = append(ys, toY(clo), toY(chi))
		}
		for range 20 {
			u := lo + (hi-lo)*r.Float64()
			if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
				u = 4 * r.NormFloat64()
			}
			ys = append(ys, toY(u))
		}
		for _, y := range ys {
			if math.IsNaN(y) {
				continue // a special child's interval
			}
			at := d.CDFAt(y)
			if got, want := at(1), d.CDF(y); !near(got, want, 1e-12) {
				t.Errorf("%s: CDFAt(%v)(1) = %v, CDF %v", tok.Spec(), y, got, want)
			}
			for _, T := range []float64{0.05, 0.3, 0.8, 2.5, 20} {
				ref := NewToken(scaledDec{f, float32(1 / T)}, tok, testAff, TokenOptions{})
				if got, want := at(1/T), ref.CDF(y); !(math.Abs(got-want) <= 2e-5) || got < 0 || got > 1 {
					t.Errorf("%s: T=%v: CDFAt(%v) = %v, CDF at T %v", tok.Spec(), T, y, got, want)
				}
			}
		}
		if !math.IsNaN(d.CDFAt(math.NaN())(1)) {
			t.Errorf("%s: CDFAt(NaN) is not NaN", tok.Spec())
		}
	}
	// Degenerate logits: +Inf shares the mass whatever the temperature,
	// NaN counts as -Inf.
	tok := parseTok(t, "normalized:base=3,length=2")
	for _, l := range [][]float32{{float32(math.Inf(1)), 0, float32(math.Inf(1))}, {float32(math.NaN()), 1, -2}, {float32(math.Inf(-1)), float32(math.Inf(-1)), float32(math.Inf(-1))}} {
		dec := &constDec{l}
		d := NewToken(dec, tok, Affine{0, 1}, TokenOptions{})
		for _, y := range []float64{0.1, 0.5, 0.77, 0.95} {
			for _, T := range []float64{0.2, 1, 4} {
				ref := NewToken(scaledDec{dec, float32(1 / T)}, tok, Affine{0, 1}, TokenOptions{})
				if got, want := d.CDFAt(y)(1/T), ref.CDF(y); !(math.Abs(got-want) <= 1e-6) {
					t.Errorf("logits %v, T=%v: CDFAt(%v) = %v, CDF at T %v", l, T, y, got, want)
				}
			}
		}
	}
}

// TestCDFAtDecodesOnce: CDFAt decodes Len() steps once, none per
// temperature, and refuses non-tree tokenizations.
func TestCDFAtDecodesOnce(t *testing.T) {
	tok := parseTok(t, "normalized:base=4,length=5")
	f := newFake(t, tok.Size(), 2, 1)
	d := NewToken(f, tok, Affine{0, 1}, TokenOptions{})
	f.reset()
	at := d.CDFAt(0.3)
	for T := 0.1; T < 10; T *= 1.5 {
		at(1 / T)
	}
	if f.starts != 1 || f.steps != tok.Len() {
		t.Errorf("%d starts and %d steps, want 1 and %d", f.starts, f.steps, tok.Len())
	}
	h := NewToken(f, parseTok(t, "hamming:length=4"), Affine{0, 1}, TokenOptions{})
	defer func() {
		if recover() == nil {
			t.Error("CDFAt of a Hamming tokenization did not panic")
		}
	}()
	h.CDFAt(0.3)
}
