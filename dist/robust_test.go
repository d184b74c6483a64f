package dist

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"decoreg/vocab"
)

// funcDec is a Decoder whose logits are a function of the prefix.
type funcDec struct {
	v      int
	logits func(prefix []int, out []float32)
}

func (f *funcDec) Start(n int) Stepper { return &funcStep{f: f, seqs: make([][]int, n)} }

type funcStep struct {
	f    *funcDec
	seqs [][]int
}

func (s *funcStep) N() int { return len(s.seqs) }

func (s *funcStep) Step(tokens []int, logits []float32) {
	for i := range s.seqs {
		if tokens != nil {
			s.seqs[i] = append(s.seqs[i], tokens[i])
		}
		s.f.logits(s.seqs[i], logits[i*s.f.v:(i+1)*s.f.v])
	}
}

func (s *funcStep) Keep(idx []int) {
	seqs := make([][]int, len(idx))
	for i, j := range idx {
		seqs[i] = append([]int(nil), s.seqs[j]...)
	}
	s.seqs = seqs
}

// checkSane runs every Distribution method and fails on a NaN or infinite
// summary, a CDF outside [0, 1] or not monotone, or quantiles not monotone.
func checkSane(t *testing.T, d Distribution) {
	t.Helper()
	for name, v := range map[string]float64{"Mean": d.Mean(), "Median": d.Median(), "Mode": d.Mode()} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("%s = %v", name, v)
		}
	}
	prev := math.Inf(-1)
	for _, q := range []float64{0, 1e-300, 0.1, 0.5, 0.9, 1 - 1e-16, 1} {
		v := d.Quantile(q)
		if math.IsNaN(v) || math.IsInf(v, 0) || v < prev {
			t.Errorf("Quantile(%v) = %v after %v", q, v, prev)
		}
		prev = v
	}
	prev = 0
	ys := []float64{math.Inf(-1), -1e308, -1, d.Quantile(0), d.Median(), d.Quantile(1), 1, 1e308, math.Inf(1)}
	slices.Sort(ys)
	for _, y := range ys {
		c := d.CDF(y)
		if !(c >= prev-1e-12 && c <= 1) {
			t.Errorf("CDF(%v) = %v after %v", y, c, prev)
		}
		prev = c
	}
	for _, y := range []float64{d.Median(), -1e308, 1e308, 0} {
		if v := d.LogPDF(y); math.IsNaN(v) || math.IsInf(v, 1) {
			t.Errorf("LogPDF(%v) = %v", y, v)
		}
	}
	for _, v := range d.Sample(20, SampleOptions{Temperature: 0.5, TopK: 2, TopP: 0.9}, rand.New(rand.NewPCG(1, 2))) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("Sample gave %v", v)
		}
	}
}

// TestP3QuantileZeroMassPrefix: a path whose probability underflows to 0
// (the last child has probability 2e-9 at each of 50 levels, or e^-700) made
// Quantile(1) panic "a prefix with zero mass in a quantile walk".
func TestP3QuantileZeroMassPrefix(t *testing.T) {
	for _, c := range []struct {
		spec  string
		slope float32
	}{
		{"normalized:base=2,length=50", -20}, {"normalized:base=2,length=50", 20},
		{"normalized:base=36,length=9", -20}, {"normalized:base=36,length=9", 20},
		{"hamming:length=50", -20}, {"hamming:length=50", 20},
	} {
		spec := c.spec
		t.Run(fmt.Sprint(spec, c.slope), func(t *testing.T) {
			tok := parseTok(t, spec)
			dec := &funcDec{v: tok.Size(), logits: func(_ []int, out []float32) {
				for i := range out {
					out[i] = c.slope * float32(i)
				}
			}}
			d := NewToken(dec, tok, Affine{Offset: 1, Scale: 2}, TokenOptions{Samples: 50})
			checkSane(t, d)
			if _, ok := tok.(vocab.Tree); ok {
				if q := d.Quantile(1); q != 3 {
					t.Errorf("Quantile(1) = %v, want 3 (the top of the range)", q)
				}
				if q := d.Quantile(0); q != 1 {
					t.Errorf("Quantile(0) = %v, want 1", q)
				}
			}
		})
	}
}

// TestP3QuantileSubnormalMass: the path of Quantile(0) reaches a subnormal
// mass (probabilities 2e-309 and 7e-15 on the first two levels), then every
// child of that prefix rounds to mass 0: the walk panicked "a prefix with
// zero mass in a quantile walk" (normalized:base=36,length=256 did this
// with any model).
func TestP3QuantileSubnormalMass(t *testing.T) {
	tok := parseTok(t, "normalized:base=36,length=9")
	dec := &funcDec{v: tok.Size(), logits: func(prefix []int, out []float32) {
		clear(out)
		switch len(prefix) {
		case 0:
			out[0] = -707
		case 1:
			out[0] = -29
		}
	}}
	d := NewToken(dec, tok, Affine{Offset: 1, Scale: 2}, TokenOptions{})
	if q := d.Quantile(0); q != 1 {
		t.Errorf("Quantile(0) = %v, want 1", q)
	}
	checkSane(t, d)
}

// TestP3NonFiniteLogits: NaN and ±Inf logits (a float32 overflow in the
// network) give finite summaries, not NaN or a panic.
func TestP3NonFiniteLogits(t *testing.T) {
	tok := parseTok(t, "unnormalized:base=10,exponent=1,mantissa=4")
	for name, fill := range map[string]func(i int) float32{
		"nan":  func(int) float32 { return float32(math.NaN()) },
		"inf":  func(i int) float32 { return float32(math.Inf(1 - 2*(i%2))) },
		"some": func(i int) float32 { return []float32{float32(math.NaN()), 1, float32(math.Inf(-1))}[i%3] },
	} {
		t.Run(name, func(t *testing.T) {
			dec := &funcDec{v: tok.Size(), logits: func(_ []int, out []float32) {
				for i := range out {
					out[i] = fill(i)
				}
			}}
			checkSane(t, NewToken(dec, tok, Affine{Offset: 0, Scale: 1}, TokenOptions{}))
		})
	}
}

// TestP4MeanBeyondFloat64: an Unnormalized tokenization whose exponents
// exceed float64 (cells decoding to ±Inf) gave a NaN mean (Inf - Inf).
func TestP4MeanBeyondFloat64(t *testing.T) {
	tok := parseTok(t, "unnormalized:base=2,exponent=10,mantissa=8")
	dec := &funcDec{v: tok.Size(), logits: func(_ []int, out []float32) { clear(out) }}
	d := NewToken(dec, tok, Affine{Offset: 0, Scale: 1}, TokenOptions{})
	if m := d.Mean(); math.IsNaN(m) {
		t.Errorf("Mean = %v", m)
	}
	checkSane(t, d)
}

// TestP4ModeMostProbable: Mode is the most probable sequence, not the cell
// of highest density, which for Unnormalized is the tiny zero cell under
// almost any model. The decoder favours the tokens of 0.5 (logit 5); the
// zero cell then has probability about 3e-5 but width 2e-9.
func TestP4ModeMostProbable(t *testing.T) {
	tok := parseTok(t, "unnormalized:base=10,exponent=1,mantissa=4")
	target, _, _ := tok.Encode(0.5)
	dec := &funcDec{v: tok.Size(), logits: func(prefix []int, out []float32) {
		clear(out)
		out[target[len(prefix)]] = 5
	}}
	d := NewToken(dec, tok, Affine{Offset: 0, Scale: 1}, TokenOptions{})
	if got, want := d.Mode(), 0.50005; !(math.Abs(got-want) <= 1e-12) {
		t.Errorf("Mode = %v, want %v (the most probable cell [0.5, 0.5001))", got, want)
	}
	checkSane(t, d)
}

// TestMDNModeManyComponents: with more components than MaxModeStarts the
// search starts from the MaxModeStarts highest peaks (w_i / sd_i) and
// still finds a tall narrow component's mode among 5,000 broad ones of
// tiny weight; modeStarts keeps the highest peaks, in index order.
func TestMDNModeManyComponents(t *testing.T) {
	const m = 5000
	w, mu, sd := make([]float64, m), make([]float64, m), make([]float64, m)
	for i := range m {
		w[i], mu[i], sd[i] = 1e-4, float64(i%97)/97-0.5, 0.5+float64(i%13)/13
	}
	w[3217], mu[3217], sd[3217] = 0.2, 0.123, 1e-3
	d := NewMDN(w, mu, sd, Affine{Offset: 10, Scale: 2})
	if got, want := d.Mode(), 10+2*0.123; math.Abs(got-want) > 1e-6 {
		t.Errorf("mode %v, want about %v", got, want)
	}
	starts := d.modeStarts()
	if len(starts) != MaxModeStarts || !sort.IntsAreSorted(starts) || !slices.Contains(starts, 3217) {
		t.Fatalf("%d starts, sorted %v, holding the tall one %v", len(starts), sort.IntsAreSorted(starts), slices.Contains(starts, 3217))
	}
	// every start's peak is at least every other component's
	in := map[int]bool{}
	low := math.Inf(1)
	for _, i := range starts {
		in[i] = true
		low = math.Min(low, d.logw[i]-d.lsd[i])
	}
	for i := range m {
		if !in[i] && d.logw[i]-d.lsd[i] > low {
			t.Fatalf("component %d (peak %v) left out, a start has %v", i, d.logw[i]-d.lsd[i], low)
		}
	}
	small := NewMDN(w[:MaxModeStarts], mu[:MaxModeStarts], sd[:MaxModeStarts], Affine{Scale: 1})
	if len(small.modeStarts()) != MaxModeStarts {
		t.Errorf("%d components: %d starts, want all", MaxModeStarts, len(small.modeStarts()))
	}
}

// TestMisuse: ids that are no token score -Inf (they panicked in the
// decoder's step), a nil *rand.Rand draws nothing when n <= 0 and panics
// with a message otherwise, and a nil or zero Recalibration is the
// identity.
func TestMisuse(t *testing.T) {
	tok, err := vocab.NewNormalized(4, 3)
	if err != nil {
		t.Fatal(err)
	}
	d := NewToken(newFake(t, tok.Size(), 1, 1), tok, testAff, TokenOptions{})
	good := []int{1, 2, 3}
	want := d.LogProbSeq(good)
	if math.IsInf(want, 0) || math.IsNaN(want) {
		t.Fatalf("LogProbSeq(%v) = %v", good, want)
	}
	for _, bad := range [][]int{{4, 0, 0}, {-1, 0, 0}, {1, 2, 99}} {
		if v := d.LogProbSeq(bad); !math.IsInf(v, -1) {
			t.Errorf("LogProbSeq(%v) = %v, want -Inf", bad, v)
		}
		if v := d.LogProbSeqAt(bad)(1.3); !math.IsInf(v, -1) {
			t.Errorf("LogProbSeqAt(%v) = %v, want -Inf", bad, v)
		}
	}
	// In a batch, only the sequence with the bad id is -Inf.
	got := d.LogProbSeqs(append(slices.Clone(good), 1, 7, 0), 2)
	if math.Abs(got[0]-want) > 1e-12 || !math.IsInf(got[1], -1) {
		t.Errorf("LogProbSeqs: %v, want [%v -Inf]", got, want)
	}
	// Per level: the levels before the bad id are as for a good sequence.
	lv, lg := d.LevelLogProbAt([]int{1, 9, 3}), d.LevelLogProbAt(good)
	if lv(0, 1) != lg(0, 1) || !math.IsInf(lv(1, 1), -1) || !math.IsInf(lv(2, 1), -1) {
		t.Errorf("LevelLogProbAt with a bad id: %v %v %v", lv(0, 1), lv(1, 1), lv(2, 1))
	}
	mustPanic(t, "level 3 outside [0, 3)", func() { lg(3, 1) })

	// A nil *rand.Rand.
	mix := NewMixture([]Distribution{d, NewRiemann([]float64{0.5, 0.5}, testAff)})
	for _, s := range []Distribution{d, mix, NewRiemann([]float64{1}, testAff), NewMDN([]float64{1}, []float64{0}, []float64{1}, testAff)} {
		if out := s.Sample(0, SampleOptions{}, nil); len(out) != 0 {
			t.Errorf("%T: Sample(0, nil) = %v", s, out)
		}
		mustPanic(t, "nil *rand.Rand", func() { s.Sample(2, SampleOptions{}, nil) })
	}

	for _, rc := range []*Recalibration{nil, {}} {
		if rc.Map(0.3) != 0.3 || rc.Inverse(1.7) != 1 || rc.LogSlope(0.2) != 0 || rc.MaxSlope() != 1 {
			t.Errorf("%v is not the identity", rc)
		}
		if v, r := rc.Knots(); !slices.Equal(v, []float64{0, 1}) || !slices.Equal(r, []float64{0, 1}) {
			t.Errorf("Knots: %v %v", v, r)
		}
	}
	if _, err := NewRecalibration([]float64{0, 1e-320, 1}, []float64{0, 0.5, 1}); err == nil {
		t.Error("a slope past float64's range was accepted")
	}
	mustPanic(t, "2 quantiles for 3 levels", func() { Monotone([]float64{0.1, 0.2, 0.3}, make([]float64, 2)) })
}

// mustPanic checks that f panics with a message holding want.
func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), want) {
			t.Errorf("panic %v, want one holding %q", r, want)
		}
	}()
	f()
}

// TestMDNModeSharpMixtures: on mixtures of narrow, overlapping components
// (an MDN at a low temperature: flat tops where the mean shift alone
// crawls), Mode's density is the highest found on a fine grid, to a
// relative 1e-9, and the density's slope there is about 0; at the scale
// of 1 and of 1e-12 (where a stop absolute in t would come early).
func TestMDNModeSharpMixtures(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, s := range []float64{1, 1e-12} {
		for trial := range 10 {
			k := 20 + r.IntN(200)
			w, mu, sd := make([]float64, k), make([]float64, k), make([]float64, k)
			for i := range w {
				w[i] = r.Float64()
				mu[i] = s * (0.5 + 0.1*r.NormFloat64())
				sd[i] = s * (0.002 + 0.02*r.Float64())
			}
			d := NewMDN(w, mu, sd, Affine{Scale: 1})
			mode := d.Mode()
			best := math.Inf(-1)
			for i := range 40001 {
				best = max(best, d.LogPDF(s*(0.05+0.9*float64(i)/40000)))
			}
			lp := d.LogPDF(mode)
			if lp < best-1e-9*math.Abs(best) {
				t.Errorf("scale %v, trial %d (%d components): Mode %v has log-density %v, a grid point %v", s, trial, k, mode, lp, best)
			}
			h := 1e-7 * s
			if slope := s * (d.LogPDF(mode+h) - d.LogPDF(mode-h)) / (2 * h); math.Abs(slope) > 1e-3 {
				t.Errorf("scale %v, trial %d: the log-density's slope at Mode %v is %v per unit of the scale", s, trial, mode, slope)
			}
		}
	}
}
