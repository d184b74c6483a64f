package decoreg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"decoreg/dist"
)

// A fixed target range scales y by it, not by the training targets' range:
// the heads' cells lie on its grid and cover values no training row has.
func TestFixedTargetRange(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 400
	x := make([]float64, n)
	y := make([]float64, n)
	for i := range y {
		y[i] = 0.25 + 0.5*r.Float64() // in [0.25, 0.75)
	}
	for _, c := range []Config{
		{Head: HeadRiemann, Bins: 4},
		{Head: HeadDecoder, Vocab: "normalized:base=2,length=2"},
	} {
		c.EncLayers, c.EncWidth, c.MaxEpochs, c.Patience, c.LR, c.Seed, c.Threads = 1, 8, 100, 20, 5e-3, 1, 1
		free, err := FitFlat(context.Background(), x, n, 1, y, c)
		if err != nil {
			t.Fatal(err)
		}
		if lo, hi := free.YRange(); lo < 0.25 || hi > 0.75 {
			t.Fatalf("%s: free range [%v, %v]", c.Head, lo, hi)
		}
		c.TargetMin, c.TargetMax = 0, 1
		m, err := FitFlat(context.Background(), x, n, 1, y, c)
		if err != nil {
			t.Fatal(err)
		}
		if lo, hi := m.YRange(); lo != 0 || hi != 1 {
			t.Errorf("%s: fixed range [0, 1] gave [%v, %v]", c.Head, lo, hi)
		}
		d, err := m.Dist([]float64{0})
		if err != nil {
			t.Fatal(err)
		}
		// Four cells of width 1/4: [0.25, 0.5) and [0.5, 0.75) hold the
		// data, and the CDF at the grid's edges is piecewise linear in
		// between.
		c1, c2, c3 := d.CDF(0.25), d.CDF(0.5), d.CDF(0.75)
		if !(c1 < 0.1 && c3 > 0.9 && c2 > 0.3 && c2 < 0.7) {
			t.Errorf("%s: CDF at 0.25, 0.5, 0.75 = %v, %v, %v", c.Head, c1, c2, c3)
		}
		mid := d.CDF(0.375)
		if !(math.Abs(mid-(c1+c2)/2) <= 1e-9) {
			t.Errorf("%s: CDF(0.375) = %v, not the mean %v of its cell's edges", c.Head, mid, (c1+c2)/2)
		}
	}

	// Targets outside the range are refused, naming the row.
	y[7] = 1.5
	_, err := FitFlat(context.Background(), x, n, 1, y, Config{TargetMin: 0, TargetMax: 1, MaxEpochs: 1})
	var de *DataError
	if !errors.As(err, &de) || de.Row != 7 {
		t.Errorf("a target outside the fixed range: %v", err)
	}
	// A range that is not one is a ConfigError.
	for _, c := range []Config{{TargetMin: 1, TargetMax: 1}, {TargetMin: 2, TargetMax: 1}, {TargetMin: math.Inf(-1), TargetMax: 1},
		{TargetMin: -math.MaxFloat64, TargetMax: math.MaxFloat64}, {TargetMin: math.NaN()}} {
		var ce *ConfigError
		if err := c.Validate(); !errors.As(err, &ce) || (ce.Field != "TargetMin" && ce.Field != "TargetMax") {
			t.Errorf("Validate(%v, %v) = %v", c.TargetMin, c.TargetMax, err)
		}
	}
}

// Config.Unbounded leaves an unnormalized decoder free to put mass far
// outside the training range, as the paper's; by default it cannot.
func TestUnbounded(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 200
	x := make([]float64, n)
	y := make([]float64, n)
	for i := range y {
		x[i] = r.Float64()
		y[i] = 10 + x[i] + 0.1*r.NormFloat64()
	}
	for _, unb := range []bool{false, true} {
		c := Config{Vocab: DefaultUnnormalized, Unbounded: unb, MaxEpochs: 1, EncLayers: 1, EncWidth: 8, Seed: 1, Threads: 1}
		m, err := FitFlat(context.Background(), x, n, 1, y, c)
		if err != nil {
			t.Fatal(err)
		}
		yl, yh := m.YRange()
		rng := yh - yl
		d, err := m.Dist([]float64{0.5})
		if err != nil {
			t.Fatal(err)
		}
		out := d.CDF(yl-0.2*rng) + 1 - d.CDF(yh+0.2*rng)
		if !unb && out != 0 {
			t.Errorf("bounded: mass %v beyond the training range widened by 20%%", out)
		}
		if unb && !(out > 1e-6) {
			t.Errorf("unbounded: mass %v beyond the training range widened by 20%% (an untrained decoder spreads it)", out)
		}
		// A saved model keeps its bound, or its lack of one.
		path := filepath.Join(t.TempDir(), "m.drg")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		l, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		dl, err := l.Dist([]float64{0.5})
		if err != nil {
			t.Fatal(err)
		}
		if got := dl.CDF(yl-0.2*rng) + 1 - dl.CDF(yh+0.2*rng); l.Config().Unbounded != unb || !(math.Abs(got-out) <= 1e-12) {
			t.Errorf("unbounded %v: loaded model's mass outside %v, want %v", unb, got, out)
		}
	}
}

// An unnormalized decoder with a fixed target range is bounded by that
// range itself, not widened by BoundMargin: the user said where y lies.
func TestFixedRangeBound(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	n := 200
	x := make([]float64, n)
	y := make([]float64, n)
	for i := range y {
		x[i], y[i] = r.Float64(), r.Float64()
	}
	c := Config{Vocab: DefaultUnnormalized, TargetMin: 0, TargetMax: 1, MaxEpochs: 1, EncLayers: 1, EncWidth: 8, Seed: 1, Threads: 1}
	m, err := FitFlat(context.Background(), x, n, 1, y, c)
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.Dist([]float64{0.5})
	if err != nil {
		t.Fatal(err)
	}
	if out := d.CDF(-1e-9) + 1 - d.CDF(1+1e-9); !(out <= 1e-12) {
		t.Errorf("mass %v outside the fixed range [0, 1]", out)
	}
	for _, v := range d.Sample(2000, dist.SampleOptions{}, rand.New(rand.NewPCG(1, 1))) {
		if v < -1e-9 || v > 1+1e-9 {
			t.Fatalf("sample %v outside the fixed range [0, 1]", v)
		}
	}
}

// TestFixedRangeEnds: an unnormalized decoder trains on targets on a fixed
// range's ends (seven values, many on the ends), scaled or raw, and scores
// them where its distributions do: Evaluate's NLL is the mean of their
// -LogPDF, finite at the ends; and it puts no mass outside the range. The
// bound leaves a hair inside the ends (cells that only touch the range are
// left out), so such targets were refused as beyond the tokenization
// (helper-110); for [0.1, 0.7] the ends' head units round beyond +-0.5.
// A raw target's cells at 0 are narrower than the bound's 1e-12 of the
// range: a raw range [0, HI] with targets at 0 was refused, saying to
// widen it, until the extreme cells were extended to the ends over the
// cells the bound leaves out (vocab.BoundCut). The cells tile the range:
// its quantiles 0 and 1 are its ends.
func TestFixedRangeEnds(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	n := 300
	x := make([]float64, n)
	k := make([]int, n)
	for i := range k {
		x[i] = r.Float64()
		k[i] = int(max(0, min(6, math.Round(8*x[i]-1+r.NormFloat64()))))
	}
	for _, c := range []struct {
		raw    bool
		lo, hi float64
		vals   []float64
		spec   string // "" for base 10, exponent 2, mantissa 3
	}{
		{false, 0, 6, []float64{0, 1, 2, 3, 4, 5, 6}, ""},
		{true, 1, 7, []float64{1, 2, 3, 4, 5, 6, 7}, ""},
		{false, 0.1, 0.7, []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7}, ""},
		{true, 0.1, 0.7, []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7}, ""},
		{true, 0, 6, []float64{0, 1, 2, 3, 4, 5, 6}, ""}, // 0's cells are narrower than 1e-12 of the range
		// Far from 0 for their width: the ends' head units round 2e-14
		// and 1e-15 beyond +-0.5 (helper-115: refused again by an end
		// tolerance of a few ulps).
		{false, 100.1, 100.7, []float64{100.1, 100.2, 100.3, 100.4, 100.5, 100.6, 100.7}, ""},
		{false, 98.1, 104.7, []float64{98.1, 99.2, 100.3, 101.4, 102.5, 103.6, 104.7}, ""},
		// The cells at 1e-13 are left out by the bound's 1e-12 of the
		// range, and the first kept one, [1e-12, 2e-12), does not hold it
		// (helper-116: it was scored there, a density where the CDF is 0,
		// integrating to 1.17; then refused): the first cell is extended
		// to [1e-13, 2e-12).
		{true, 1e-13, 1, []float64{1e-13, 0.1, 0.2, 0.5, 0.7, 0.9, 1}, "unnormalized:base=10,exponent=2,mantissa=1"},
		// Ends inside cells: base 3 writes neither 1/2 (scaled) nor 6
		// (raw, mantissa 1: the cell [3, 6.75)); the cells across them were
		// kept whole, putting mass beyond the range.
		{false, 0, 6, []float64{0, 1, 2, 3, 4, 5, 6}, "unnormalized:base=3,exponent=2,mantissa=3"},
		{true, 1, 6, []float64{1, 2, 3, 4, 5, 5.5, 6}, "unnormalized:base=3,exponent=2,mantissa=1"},
		// Far from 0 with cells finer than HeadOf's rounding: the high
		// end's head unit rounds 3e-7 inside the range, past the last
		// cell's low edge; cut there, not kept whole (helper-119: 5e-4 of
		// the mass above it).
		{false, 1e9 + 0.1, 1e9 + 0.3, []float64{1e9 + 0.1, 1e9 + 0.13, 1e9 + 0.17, 1e9 + 0.2, 1e9 + 0.23, 1e9 + 0.27, 1e9 + 0.3}, "unnormalized:base=7,exponent=1,mantissa=8"},
		// The low end rounds 3e-7 below the cell edge -0.5: no sliver of
		// the cell below, narrower than an ulp of y, holding a whole
		// token's mass (helper-120: a density of 5e4 at the end).
		{false, 1e9 + 0.1, 1e9 + 0.3, []float64{1e9 + 0.1, 1e9 + 0.13, 1e9 + 0.17, 1e9 + 0.2, 1e9 + 0.23, 1e9 + 0.27, 1e9 + 0.3}, "unnormalized:base=10,exponent=1,mantissa=1"},
		// Raw, far from 0 for its width: 1e-12 of the range is under an
		// ulp of the end, so the bound at HI kept the cell from HI up
		// whole (helper-120: CDF(HI) 0.81).
		{true, 100000, 100005, []float64{100000, 100001, 100002, 100002.5, 100003, 100004, 100005}, "unnormalized:base=10,exponent=1,mantissa=8"},
		// Raw ranges an ulp or two wide whose end is a cell edge: the
		// bound's w rounded away and the cell from the end on was kept
		// whole (helper-123: quantile 1 at 101).
		{true, 99.999999999999986, 100, []float64{99.999999999999986, 99.999999999999986, 99.999999999999986, 100, 100, 100, 100}, "unnormalized:base=10,exponent=1,mantissa=3"},
		{true, -1, -0.99999999999999989, []float64{-1, -1, -1, -0.99999999999999989, -0.99999999999999989, -0.99999999999999989, -0.99999999999999989}, "unnormalized:base=2,exponent=1,mantissa=3"},
		{true, 0.99999999999999978, 1, []float64{0.99999999999999978, 0.99999999999999978, 0.99999999999999989, 0.99999999999999989, 1, 1, 1}, "unnormalized:base=10,exponent=1,mantissa=1"},
		// An end at the tokenization's largest value, which it cannot
		// write (4 for base 2 with one exponent digit): the extreme
		// cell's edge (helper-123: refused as beyond [0, 4]).
		{true, 0, 4, []float64{0, 0.5, 1, 2, 3, 3.5, 4}, "unnormalized:base=2,exponent=1,mantissa=3"},
	} {
		y := make([]float64, n)
		for i := range y {
			y[i] = c.vals[k[i]]
		}
		spec := c.spec
		if spec == "" {
			spec = "unnormalized:base=10,exponent=2,mantissa=3"
		}
		cfg := Config{Vocab: spec, RawTarget: c.raw, TargetMin: c.lo, TargetMax: c.hi,
			MaxEpochs: 2, EncLayers: 1, EncWidth: 16, Seed: 1, Threads: 1}
		name := fmt.Sprintf("%s raw %v [%v, %v]", spec, c.raw, c.lo, c.hi)
		m, err := FitFlat(context.Background(), x, n, 1, y, cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		e, err := m.Evaluate(context.Background(), x[:60], 60, y[:60], "")
		if err != nil {
			t.Fatal(err)
		}
		ds, err := m.Dists(context.Background(), x[:60], 60, dist.TokenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var nll float64
		ends := 0
		for i, d := range ds {
			lp := d.LogPDF(y[i])
			if math.IsInf(lp, 0) || math.IsNaN(lp) {
				t.Fatalf("%s: LogPDF(%v) = %v", name, y[i], lp)
			}
			if y[i] == c.lo || y[i] == c.hi {
				ends++
			}
			nll -= lp / 60
		}
		if ends < 10 || !(math.Abs(float64(e.NLL)-nll) <= 1e-5*math.Max(1, math.Abs(nll))) {
			t.Errorf("%s: NLL %v, mean -LogPDF %v (%d targets on the ends)", name, e.NLL, nll, ends)
		}
		// The density inside the extreme cells is their mass over their
		// (cut) width: the CDF's slope there.
		width := func(y float64) float64 { // of y's cell, in units of y
			r := 1.0
			if !c.raw {
				r = c.hi - c.lo
				y = (y-c.lo)/r - 0.5
			}
			s, _, err := m.Tokenizer().Encode(y)
			if err != nil {
				t.Fatal(err)
			}
			cell, err := m.Tokenizer().Decode(s)
			if err != nil {
				t.Fatal(err)
			}
			return cell.Width() * r
		}
		// No extreme cell is a sliver under a few ulps of y.
		if wl, wh, u := width(c.lo), width(c.hi), min(c.hi-c.lo, 4*(math.Nextafter(max(math.Abs(c.lo), math.Abs(c.hi)), math.Inf(1))-max(math.Abs(c.lo), math.Abs(c.hi)))); !(wl >= u && wh >= u) {
			t.Errorf("%s: the extreme cells are %v and %v wide, under 4 ulps of y (%v)", name, wl, wh, u)
		}
		for _, d := range ds[:3] {
			hl, hh := 1e-3*width(c.lo), 1e-3*width(c.hi)
			for _, e := range [][2]float64{{c.lo, c.lo + hl}, {c.hi - hh, c.hi}} {
				h := e[1] - e[0]
				if !(h > 0) {
					continue // a range of a few ulps: no stretch inside a cell
				}
				mass, pdf := d.CDF(e[1])-d.CDF(e[0]), math.Exp(d.LogPDF((e[0]+e[1])/2))
				if !(math.Abs(mass-pdf*h) <= 1e-6*mass+1e-300) {
					t.Errorf("%s: on [%v, %v] the CDF grows by %v, the density gives %v", name, e[0], e[1], mass, pdf*h)
				}
			}
		}
		// No mass outside the range: not a cell below the low end or above
		// the high one, however little it holds.
		// The ends mapped back to y round: 104.70000000000002, and an ulp
		// of 1e9.
		ulps := max(1e-13*(c.hi-c.lo), 2*(math.Nextafter(c.hi, math.Inf(1))-c.hi))
		for _, d := range ds[:5] {
			q := dist.Quantiles(d, []float64{0, 1})
			if d.CDF(math.Nextafter(c.lo, math.Inf(-1))) != 0 || !(d.CDF(c.hi) >= 1-1e-12) || math.Abs(q[0]-c.lo) > ulps || math.Abs(q[1]-c.hi) > ulps || d.Mode() < c.lo-ulps || d.Mode() > c.hi+ulps {
				t.Errorf("%s: CDF below the range %v, at its top %v; quantiles 0 and 1 %v, mode %v", name, d.CDF(math.Nextafter(c.lo, math.Inf(-1))), d.CDF(c.hi), q, d.Mode())
			}
		}
	}
}

// TestFixedRangeCutFile: a fitted model's file records that its extreme
// cells are cut at the fixed range's ends (ends_cut), and a file without
// it (written before the cut) keeps them whole as it was trained: its
// quantile 1 lies past the range's end, a cut model's on it. Models
// without a fixed range's bound do not record it.
func TestFixedRangeCutFile(t *testing.T) {
	cfg := Config{Head: HeadDecoder, Vocab: "unnormalized:base=3,exponent=1,mantissa=2", TargetMin: -1, TargetMax: 12, EncLayers: 1, EncWidth: 8, DecWidth: 4, DecHeads: 1}
	header, params := savedModel(t, cfg)
	var h map[string]any
	if err := json.Unmarshal(header, &h); err != nil {
		t.Fatal(err)
	}
	if h["ends_cut"] != 1.0 {
		t.Fatalf("a fixed range's unnormalized decoder saved ends_cut %v", h["ends_cut"])
	}
	q1 := func(path string) float64 {
		m, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		d, err := m.Dist([]float64{3, 3})
		if err != nil {
			t.Fatal(err)
		}
		return dist.Quantiles(d, []float64{1})[0]
	}
	if q := q1(writeModel(t, header, params)); math.Abs(q-12) > 1e-12 {
		t.Errorf("cut: quantile 1 %v, want 12", q)
	}
	old := editHeader(t, header, func(h map[string]any) { delete(h, "ends_cut") })
	if q := q1(writeModel(t, old, params)); !(q > 12.01) {
		t.Errorf("a file from before the cut: quantile 1 %v, want the whole cell's edge past 12", q)
	}
	for _, c := range []Config{
		{Head: HeadDecoder, Vocab: "unnormalized:base=3,exponent=1,mantissa=2", EncLayers: 1, EncWidth: 8, DecWidth: 4, DecHeads: 1},
		{Head: HeadDecoder, Vocab: "unnormalized:base=3,exponent=1,mantissa=2", TargetMin: -1, TargetMax: 12, Unbounded: true, EncLayers: 1, EncWidth: 8, DecWidth: 4, DecHeads: 1},
		{Head: HeadDecoder, Vocab: "normalized:base=3,length=3", TargetMin: -1, TargetMax: 12, EncLayers: 1, EncWidth: 8, DecWidth: 4, DecHeads: 1},
	} {
		header, _ := savedModel(t, c)
		if bytes.Contains(header, []byte("ends_cut")) {
			t.Errorf("%s (range [%v, %v], unbounded %v): ends_cut saved", c.Vocab, c.TargetMin, c.TargetMax, c.Unbounded)
		}
	}
}

// A raw target equal to the top of what an unnormalized tokenization
// writes (4 for base 2 with one exponent digit, which it cannot write) is
// refused saying that end is not in the range (it said beyond [-0.5, 4]);
// with a fixed range ending there it trains (TestFixedRangeEnds).
func TestRawTopEndMessage(t *testing.T) {
	x := make([]float64, 40)
	y := make([]float64, 40)
	for i := range y {
		x[i], y[i] = float64(i)/40, []float64{0, 1, 2, 4}[i%4]
	}
	_, err := FitFlat(context.Background(), x, 40, 1, y, Config{Vocab: "unnormalized:base=2,exponent=1,mantissa=3", RawTarget: true, MaxEpochs: 1, EncLayers: 1, EncWidth: 8, Threads: 1})
	if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "4), whose top end is not in it") {
		t.Errorf("%v", err)
	}
}
