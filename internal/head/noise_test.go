package head

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"decoreg/internal/model"
	"decoreg/vocab"
)

// truncNormCDF is the CDF at x of N(mu, sigma^2) truncated to [0, 1], in
// closed form.
func truncNormCDF(x, mu, sigma float64) float64 {
	phi := func(z float64) float64 { return 0.5 * (1 + math.Erf(z/math.Sqrt2)) }
	a, b := phi((0-mu)/sigma), phi((1-mu)/sigma)
	x = min(max(x, 0), 1)
	return (phi((x-mu)/sigma) - a) / (b - a)
}

// TestJitter: the cells of the jittered tokens follow the truncated normal
// around each row's u (Kolmogorov-Smirnov against its closed-form CDF, at
// the middle and both ends of [0, 1]); a tiny sigma moves a target by at
// most one leaf cell; rows keep their masks; the same stream gives the
// same tokens.
func TestJitter(t *testing.T) {
	tok, _ := vocab.Parse("normalized:base=8,length=4,special=true")
	c := &model.Config{Head: model.Decoder, Vocab: tok}
	s := Units{YMin: 0, YMax: 8, Map: U}
	ys := []float64{4, 0, 8, 2} // u = 0.5, 0, 1, 0.25 (an edge of the first digit)
	for _, sigma := range []float64{0.03, 0.3, 5} {
		tg, err := Encode(c, s, ys)
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.SetNoise(sigma, ys); err != nil {
			t.Fatal(err)
		}
		b := tg.NewBatch(4, 1)
		r := rand.New(rand.NewPCG(1, 2))
		const n = 20000
		draws := make([][]float64, len(ys))
		idx := []int{0, 1, 2, 3}
		seq := make([]int, tg.T)
		for range n {
			tg.Fill(b, []float32{0, 0, 0, 0}, 1, idx)
			mask := slices.Clone(b.Mask)
			tg.Jitter(b, idx, r)
			if !slices.Equal(mask, b.Mask) {
				t.Fatal("Jitter changed the masks")
			}
			for k := range idx {
				for p := range seq {
					seq[p] = int(b.Tokens[k*tg.T+p])
				}
				cell, err := tok.Decode(seq)
				if err != nil {
					t.Fatal(err)
				}
				draws[k] = append(draws[k], cell.Lo)
			}
		}
		w := 1 / math.Pow(8, 4)
		for k, y := range ys {
			u := y / 8
			d := draws[k]
			sort.Float64s(d)
			// The cells' left edges lie below the draws by less than a
			// cell: compare the empirical CDF with the truth on both sides.
			var ks float64
			for i, lo := range d {
				f := truncNormCDF(lo, u, sigma)
				g := truncNormCDF(lo+w, u, sigma)
				ks = max(ks, float64(i+1)/n-g, f-float64(i)/n)
			}
			if !(ks <= 0.015) { // 1.63/sqrt(n) = 0.0115 at the 1% level
				t.Errorf("sigma %v, u %v: KS distance %.4f from the truncated normal", sigma, u, ks)
			}
		}
	}

	// A tiny sigma: the same cell, or its neighbour where u is on an edge.
	tg, _ := Encode(c, s, ys)
	if err := tg.SetNoise(1e-12, ys); err != nil {
		t.Fatal(err)
	}
	b := tg.NewBatch(4, 1)
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		idx := []int{0, 1, 2, 3}
		tg.Fill(b, []float32{0, 0, 0, 0}, 1, idx)
		orig := slices.Clone(b.Tokens)
		tg.Jitter(b, idx, r)
		for k := range idx {
			a, z := cellIndex(orig[k*tg.T:(k+1)*tg.T], 8), cellIndex(b.Tokens[k*tg.T:(k+1)*tg.T], 8)
			if a-z > 1 || z-a > 1 {
				t.Fatalf("row %d: sigma 1e-12 moved cell %d to %d", k, a, z)
			}
		}
	}

	// The same stream, the same tokens.
	run := func() []int32 {
		tg, _ := Encode(c, s, ys)
		_ = tg.SetNoise(0.1, ys)
		b := tg.NewBatch(4, 1)
		r := rand.New(rand.NewPCG(5, 6))
		var out []int32
		for range 10 {
			tg.Fill(b, []float32{0, 0, 0, 0}, 1, []int{3, 1, 0, 2})
			tg.Jitter(b, []int{3, 1, 0, 2}, r)
			out = append(out, b.Tokens...)
		}
		return out
	}
	if !slices.Equal(run(), run()) {
		t.Error("the same stream gave other tokens")
	}
}

func cellIndex(toks []int32, base int) int {
	i := 0
	for _, t := range toks {
		i = i*base + int(t)
	}
	return i
}

// TestJitterRefused: target noise needs the decoder and the normalized
// tokenization; without SetNoise, Jitter changes nothing.
func TestJitterRefused(t *testing.T) {
	for _, spec := range []string{"unnormalized:base=10,exponent=1,mantissa=3", "hamming:length=6"} {
		tok, err := vocab.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		c := &model.Config{Head: model.Decoder, Vocab: tok}
		m := U
		if vocab.IsUnnormalized(tok) {
			m = Shifted
		}
		tg, err := Encode(c, Units{YMin: 0, YMax: 8, Map: m}, []float64{2})
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.SetNoise(0.1, []float64{2}); !errors.Is(err, ErrNoiseTokenization) {
			t.Errorf("%s: %v", spec, err)
		}
	}
	c := &model.Config{Head: model.Riemann, Bins: 4}
	tg, _ := Encode(c, Units{YMin: 0, YMax: 8, Map: U}, []float64{2})
	if err := tg.SetNoise(0.1, []float64{2}); !errors.Is(err, ErrNoiseTokenization) {
		t.Errorf("riemann: %v", err)
	}
	tok, _ := vocab.Parse("normalized:base=4,length=2")
	tg, _ = Encode(&model.Config{Head: model.Decoder, Vocab: tok}, Units{YMin: 0, YMax: 8, Map: U}, []float64{2, 5})
	b := tg.NewBatch(2, 1)
	tg.Fill(b, []float32{0, 0}, 1, []int{0, 1})
	before := slices.Clone(b.Tokens)
	tg.Jitter(b, []int{0, 1}, rand.New(rand.NewPCG(1, 1)))
	if !slices.Equal(before, b.Tokens) || tg.Noisy() {
		t.Error("Jitter without SetNoise changed the tokens")
	}
}
