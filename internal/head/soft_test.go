package head

import (
	"errors"
	"math"
	"slices"
	"testing"

	"decoreg/internal/gradcheck"
	"decoreg/internal/model"
	"decoreg/vocab"
)

// simpsonMass integrates the density of N(u, sigma^2) over [a, b] by
// Simpson's rule (independent of the erfc forms of softTargets).
func simpsonMass(u, sigma, a, b float64) float64 {
	n := 2 * int(math.Ceil(max(1000, 25*(b-a)/sigma))) // steps of sigma/50 or less
	return gradcheck.Simpson(func(x float64) float64 {
		z := (x - u) / sigma
		return math.Exp(-0.5*z*z) / (sigma * math.Sqrt(2*math.Pi))
	}, a, b, n)
}

// TestSoftTargets checks each position's soft targets against the
// Gaussian's mass in each child of the target prefix's cell, integrated
// numerically (or the one-hot target digit where the children are wider
// than softWide sigmas), for targets in the middle and at both ends of [0, 1], with
// and without the special tokens.
func TestSoftTargets(t *testing.T) {
	for _, spec := range []string{"normalized:base=4,length=3", "normalized:base=10,length=2,special=true"} {
		tk, err := vocab.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		tok := tk.(*vocab.Normalized)
		B, T, V := tok.Base(), tok.Length(), tok.Size()
		for _, u := range []float64{0, 0.013, 0.37, 0.5, 0.999, 1} {
			for _, sigma := range []float64{0.002, 0.01, 0.03, 0.1, 0.4} {
				ti, _, err := tok.Encode(u)
				if err != nil {
					t.Fatal(err)
				}
				toks := make([]int32, T)
				for j, v := range ti {
					toks[j] = int32(v)
				}
				q := make([]float32, T*V)
				for j := range q {
					q[j] = 7 // garbage, overwritten
				}
				softTargets(q, tok, toks, u, sigma)
				lo, w := 0.0, 1.0
				for j := range T {
					cw := w / float64(B)
					total := simpsonMass(u, sigma, lo, lo+w)
					var sum float64
					for k := range V {
						got := float64(q[j*V+k])
						want := 0.0
						switch {
						case k >= B:
						case cw > softWide*sigma: // wide children: the target digit
							if k == int(toks[j]) {
								want = 1
							}
						default:
							want = simpsonMass(u, sigma, lo+float64(k)*cw, lo+float64(k+1)*cw) / total
						}
						if !(math.Abs(got-want) <= 2e-6) {
							t.Fatalf("%s u=%v sigma=%v: q[%d][%d] = %v, want %v", spec, u, sigma, j, k, got, want)
						}
						sum += got
					}
					if !(math.Abs(sum-1) <= 1e-5) {
						t.Fatalf("%s u=%v sigma=%v: position %d sums to %v", spec, u, sigma, j, sum)
					}
					lo += float64(toks[j]) * cw
					w = cw
				}
			}
		}
	}
}

// TestSoftTargetsLimits: a sigma far below a cell gives the one-hot
// target digits, one far above it the uniform digit distribution at the
// deep positions, even where a child's width is below u's rounding.
func TestSoftTargetsLimits(t *testing.T) {
	tk, err := vocab.Parse("normalized:base=10,length=15")
	if err != nil {
		t.Fatal(err)
	}
	tok := tk.(*vocab.Normalized)
	T, V := tok.Length(), tok.Size()
	u := 0.123456789
	ti, _, _ := tok.Encode(u)
	toks := make([]int32, T)
	for j, v := range ti {
		toks[j] = int32(v)
	}
	q := make([]float32, T*V)
	softTargets(q, tok, toks, u, 1e-30)
	for j := range 8 {
		for k := range V {
			want := float32(0)
			if k == int(toks[j]) {
				want = 1
			}
			if q[j*V+k] != want {
				t.Fatalf("sigma 1e-30: q[%d][%d] = %v, want %v", j, k, q[j*V+k], want)
			}
		}
	}
	softTargets(q, tok, toks, u, 0.01)
	for j := 5; j < T; j++ { // cells of 1e-6 and below against sigma 0.01
		for k := range V {
			if !(math.Abs(float64(q[j*V+k])-0.1) <= 1e-3) {
				t.Fatalf("sigma 0.01: q[%d][%d] = %v, want 0.1", j, k, q[j*V+k])
			}
		}
	}
}

// TestSoftTargetsOnEdges: a target on the edge of two coarse cells (an
// integer target of a range split in quarters) keeps the one-hot digit
// wherever the cells are wider than softWide sigmas, so that no mass goes
// to the neighbouring coarse cell whatever sigma's size below them; the
// positions that spread mass have children at most softWide sigmas wide
// (so a child's later digits, taught by other rows, move that mass by at
// most that much), and a child more than 6 sigmas from u gets (almost) none.
func TestSoftTargetsOnEdges(t *testing.T) {
	tk, _ := vocab.Parse("normalized:base=4,length=6")
	tok := tk.(*vocab.Normalized)
	T, V := tok.Length(), tok.Size()
	for _, u := range []float64{0.25, 0.5, 0.75} {
		ti, _, _ := tok.Encode(u)
		toks := make([]int32, T)
		for j, v := range ti {
			toks[j] = int32(v)
		}
		for _, sigma := range []float64{1e-9, 1e-4, 0.003, 0.01} {
			q := make([]float32, T*V)
			softTargets(q, tok, toks, u, sigma)
			lo, w := 0.0, 1.0
			for j := range T {
				cw := w / 4
				for k := range V {
					p := q[j*V+k]
					if p == 0 || (p == 1 && k == int(toks[j])) {
						continue
					}
					if !(cw <= 5*sigma) { // softWide, pinned
						t.Fatalf("u=%v sigma=%v: position %d (children %v wide) gives %v to digit %d", u, sigma, j, cw, p, k)
					}
					near := max(lo+float64(k)*cw-u, u-(lo+float64(k+1)*cw), 0)
					if near > 6*sigma && !(p <= 1e-8) {
						t.Fatalf("u=%v sigma=%v: position %d gives %v to digit %d, %v from u", u, sigma, j, p, k, near)
					}
				}
				lo += float64(toks[j]) * cw
				w = cw
			}
		}
	}
}

// TestSoftBatches: Encode keeps the rows' u for soft targets, a training
// batch carries them, RowNLL's batches do not, and a tokenization other
// than the normalized one is refused.
func TestSoftBatches(t *testing.T) {
	tok, _ := vocab.Parse("normalized:base=4,length=2")
	c := &model.Config{Head: model.Decoder, Vocab: tok, SoftSigma: 0.05}
	s := Units{YMin: 0, YMax: 8, Map: U}
	tg, err := Encode(c, s, []float64{2, 7})
	if err != nil {
		t.Fatal(err)
	}
	b := tg.NewBatch(2, 1)
	tg.Fill(b, []float32{0, 1}, 1, []int{1, 0})
	if len(b.Soft) != 2*2*4 {
		t.Fatalf("batch soft targets: %d values, want 16", len(b.Soft))
	}
	want := make([]float32, 8)
	softTargets(want, tok.(*vocab.Normalized), tg.Tokens[0:2], 0.25, 0.05)
	for k, v := range want {
		if b.Soft[8+k] != v {
			t.Fatalf("row 0's soft targets %v, want %v", b.Soft[8:], want)
		}
	}
	// The cache (filled by NewBatch) and the computation per batch agree.
	if tg.softCache == nil {
		t.Fatal("no cache of soft targets")
	}
	cached := slices.Clone(b.Soft)
	tg.softCache = nil
	clear(b.Soft)
	tg.Fill(b, []float32{0, 1}, 1, []int{1, 0})
	if !slices.Equal(cached, b.Soft) {
		t.Fatalf("soft targets from the cache %v, computed %v", cached, b.Soft)
	}
	if rb := tg.newBatch(2, 1, false); rb.Soft != nil {
		t.Fatal("an evaluation batch has room for soft targets")
	}
	un, _ := vocab.Parse("unnormalized:base=10,mantissa=3,exponent=1")
	c = &model.Config{Head: model.Decoder, Vocab: un, SoftSigma: 0.05}
	if _, err := Encode(c, Units{YMin: 0, YMax: 8, Map: Shifted}, []float64{2}); !errors.Is(err, errSoftTokenization) {
		t.Fatalf("unnormalized with soft targets: %v", err)
	}
}
