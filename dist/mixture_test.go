package dist

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"decoreg/vocab"
)

// mixtures returns test mixtures of each kind of component with the range
// [lo, hi] holding (nearly) all their mass.
func testMixtures(t *testing.T) map[string]struct {
	d      *Mixture
	lo, hi float64
} {
	r := rand.New(rand.NewPCG(7, 8))
	rie := func(off, scale float64, n int) *Riemann {
		p := make([]float64, n)
		for i := range p {
			p[i] = r.ExpFloat64()
		}
		p[n/3] = 0
		return NewRiemann(p, Affine{Offset: off, Scale: scale})
	}
	tok := parseTok(t, treeSpecs[0])
	out := map[string]struct {
		d      *Mixture
		lo, hi float64
	}{}
	out["riemann"] = struct {
		d      *Mixture
		lo, hi float64
	}{NewMixture([]Distribution{rie(-1, 4, 37), rie(0.5, 1, 11), rie(-3, 2, 5)}), -3, 3}
	out["mdn"] = struct {
		d      *Mixture
		lo, hi float64
	}{NewMixture([]Distribution{
		NewMDN([]float64{0.2, 0.8}, []float64{-0.3, 0.1}, []float64{0.05, 0.2}, Affine{Offset: -1, Scale: 4}),
		NewMDN([]float64{1}, []float64{0.4}, []float64{0.1}, Affine{Offset: 0, Scale: 2}),
	}), -12, 12}
	toks := []Distribution{}
	for seed := range uint64(3) {
		toks = append(toks, NewToken(newFake(t, tok.Size(), 30+seed, 1.5), tok, Affine{Offset: float64(seed) * 0.3, Scale: 2 + float64(seed)}, TokenOptions{MeanTol: -1}))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range toks {
		lo, hi = min(lo, c.Quantile(0)), max(hi, c.Quantile(1))
	}
	out["token"] = struct {
		d      *Mixture
		lo, hi float64
	}{NewMixture(toks), lo, hi}
	// The same with a coarse mean expansion: quantiles that fall inside an
	// unexpanded prefix are found on the exact CDFs.
	pr := []Distribution{}
	for seed := range uint64(3) {
		pr = append(pr, NewToken(newFake(t, tok.Size(), 30+seed, 1.5), tok, Affine{Offset: float64(seed) * 0.3, Scale: 2 + float64(seed)}, TokenOptions{MeanTol: 0.05}))
	}
	out["token-pruned"] = struct {
		d      *Mixture
		lo, hi float64
	}{NewMixture(pr), lo, hi}
	// Components of one tree and affine map (an ensemble's seeds): the
	// mixture walks its own tree (treeQuantiles) where the expansions do
	// not reach.
	for _, tol := range []float64{-1, 0.05} {
		sh := []Distribution{}
		for seed := range uint64(3) {
			sh = append(sh, NewToken(newFake(t, tok.Size(), 40+seed, 1.5), tok, testAff, TokenOptions{MeanTol: tol}))
		}
		name := "token-shared"
		if tol > 0 {
			name += "-pruned"
		}
		lo, hi := sh[0].Quantile(0), sh[0].Quantile(1)
		out[name] = struct {
			d      *Mixture
			lo, hi float64
		}{NewMixture(sh), lo, hi}
	}
	out["mixed"] = struct {
		d      *Mixture
		lo, hi float64
	}{NewMixture([]Distribution{rie(-1, 4, 20), NewMDN([]float64{1}, []float64{0.3}, []float64{0.1}, Affine{Offset: 0, Scale: 1})}), -3, 3}
	return out
}

// The mixture's CDF, density and mean are the averages of its components';
// its quantiles invert its CDF.
func TestMixtureAgainstComponents(t *testing.T) {
	for name, tc := range testMixtures(t) {
		t.Run(name, func(t *testing.T) {
			d := tc.d
			n := float64(len(d.comps))
			var mean float64
			for _, c := range d.comps {
				mean += c.Mean() / n
			}
			if got := d.Mean(); !(math.Abs(got-mean) <= 1e-12*math.Max(1, math.Abs(mean))) {
				t.Errorf("mean %v, want %v", got, mean)
			}
			for i := range 41 {
				y := tc.lo + (tc.hi-tc.lo)*float64(i)/40
				var f, p float64
				for _, c := range d.comps {
					f += c.CDF(y) / n
					p += math.Exp(c.LogPDF(y)) / n
				}
				if got := d.CDF(y); !(math.Abs(got-f) <= 1e-12) {
					t.Errorf("CDF(%v) = %v, want %v", y, got, f)
				}
				got := d.LogPDF(y)
				if p == 0 && !math.IsInf(got, -1) || p > 0 && !(math.Abs(got-math.Log(p)) <= 1e-9) {
					t.Errorf("LogPDF(%v) = %v, want log %v", y, got, p)
				}
			}
			qs := []float64{0, 1e-4, 0.05, 0.25, 0.5, 0.75, 0.95, 0.9999, 1}
			got := d.Quantiles(qs)
			for i, q := range qs {
				x := got[i]
				if i > 0 && x < got[i-1] {
					t.Errorf("quantiles not monotone: %v", got)
				}
				if d.Quantile(q) != x {
					t.Errorf("Quantile(%v) = %v, Quantiles gave %v", q, d.Quantile(q), x)
				}
				if q == 0 || q == 1 {
					continue
				}
				// F(x) = q where F is continuous (these mixtures' CDFs are),
				// to rounding for the piecewise-linear ones and closely for
				// the Gaussians.
				tolF := 1e-9
				if name == "mdn" || name == "mixed" {
					tolF = 1e-7
				}
				if !(math.Abs(d.CDF(x)-q) <= tolF) {
					t.Errorf("q=%v: x=%v, F(x)=%v", q, x, d.CDF(x))
				}
			}
			if got[0] > got[1] || !(d.CDF(got[len(got)-1]) >= 1-1e-9) {
				t.Errorf("ends: Q(0)=%v Q(1)=%v F(Q(1))=%v", got[0], got[len(got)-1], d.CDF(got[len(got)-1]))
			}
			if m := d.Median(); m != d.Quantile(0.5) {
				t.Errorf("median %v != Q(0.5) %v", m, d.Quantile(0.5))
			}
			if q := d.Quantiles([]float64{-0.1, 1.1, math.NaN()}); !math.IsNaN(q[0]) || !math.IsNaN(q[1]) || !math.IsNaN(q[2]) {
				t.Errorf("bad levels: %v, want NaN", q)
			}
			// The mode is one of the components' modes, of the highest
			// mixture density among them.
			mode := d.Mode()
			best := math.Inf(-1)
			found := false
			for _, c := range d.comps {
				best = max(best, d.LogPDF(c.Mode()))
				found = found || c.Mode() == mode
			}
			if !found || d.LogPDF(mode) != best {
				t.Errorf("mode %v (density %v), best component mode density %v", mode, d.LogPDF(mode), best)
			}
		})
	}
}

// CRPS against the integral of (F(t) - 1{y <= t})² of the mixture's CDF.
func TestMixtureCRPS(t *testing.T) {
	for name, tc := range testMixtures(t) {
		t.Run(name, func(t *testing.T) {
			for _, y := range []float64{tc.lo - 1, tc.lo + 0.3*(tc.hi-tc.lo), 0.5 * (tc.lo + tc.hi), tc.hi - 0.01, tc.hi + 2} {
				want := numericCRPS(tc.d.CDF, tc.lo, tc.hi, y, 100000)
				got, b := CRPS(tc.d, y)
				tol := 1e-5 * (tc.hi - tc.lo)
				if name == "mixed" {
					// From draws: bound +Inf, about 2,000 draws' accuracy.
					if !math.IsInf(b, 1) {
						t.Errorf("mixed: bound %v, want +Inf", b)
					}
					tol = 0.05 * want
				} else if strings.HasSuffix(name, "-pruned") {
					// Unexpanded prefixes count as uniform: within the bound.
					if !(b > 0) {
						t.Errorf("y=%v: bound %v, want > 0", y, b)
					}
					tol += b
				} else if b != 0 {
					t.Errorf("y=%v: bound %v, want 0", y, b)
				}
				if !(math.Abs(got-want) <= tol) {
					t.Errorf("y=%v: CRPS %v, numeric %v", y, got, want)
				}
			}
		})
	}
	if s, b := CRPS(NewMixture([]Distribution{NewPoint(1), NewPoint(2)}), 1); !math.IsNaN(s) || !math.IsNaN(b) {
		t.Errorf("points: %v %v, want NaN", s, b)
	}
}

// Draws follow the mixture: their empirical CDF is within the 0.1%
// two-sample Kolmogorov-Smirnov distance of the average of the empirical
// CDFs of many draws from each component (token and Riemann draws are cell
// centres, so the comparison is with the components' draws, not their
// CDFs); the same seed gives the same draws.
func TestMixtureSample(t *testing.T) {
	for name, tc := range testMixtures(t) {
		t.Run(name, func(t *testing.T) {
			const n, m = 4000, 40000
			s := tc.d.Sample(n, SampleOptions{}, rand.New(rand.NewPCG(1, 2)))
			again := tc.d.Sample(n, SampleOptions{}, rand.New(rand.NewPCG(1, 2)))
			if !slices.Equal(s, again) {
				t.Fatal("same seed, different draws")
			}
			ref := make([][]float64, len(tc.d.comps))
			for k, c := range tc.d.comps {
				ref[k] = c.Sample(m, SampleOptions{}, rand.New(rand.NewPCG(uint64(k)+10, 3)))
				slices.Sort(ref[k])
			}
			refCDF := func(x float64) float64 {
				f := 0.0
				for _, r := range ref {
					i, _ := slices.BinarySearch(r, math.Nextafter(x, math.Inf(1)))
					f += float64(i) / m
				}
				return f / float64(len(ref))
			}
			slices.Sort(s)
			ks := 0.0
			for i, x := range s {
				if i+1 < n && s[i+1] == x {
					continue // the empirical CDF's value at x counts all ties
				}
				ks = max(ks, math.Abs(refCDF(x)-float64(i+1)/n))
			}
			if crit := 1.95 * math.Sqrt(1.0/n+1.0/(m*float64(len(ref)))); !(ks <= crit) {
				t.Errorf("KS distance %v > %v", ks, crit)
			}
		})
	}
	if got := NewMixture([]Distribution{NewPoint(1)}).Sample(0, SampleOptions{}, rand.New(rand.NewPCG(1, 2))); len(got) != 0 {
		t.Errorf("Sample(0) = %v", got)
	}
}

// A mixture of point masses (pointwise members) averages their values.
func TestMixturePoints(t *testing.T) {
	d := NewMixture([]Distribution{NewPoint(1), NewPoint(2), NewPoint(6)})
	if d.Mean() != 3 || d.Median() != 2 || !math.IsNaN(d.LogPDF(1)) || d.Mode() != 2 {
		t.Errorf("mean %v median %v logpdf %v mode %v", d.Mean(), d.Median(), d.LogPDF(1), d.Mode())
	}
}

// leafCDF, the CDF from the mean's expansion, equals the tree walk's CDF
// wherever it answers, and refuses inside unexpanded prefixes.
func TestLeafCDF(t *testing.T) {
	for _, spec := range treeSpecs {
		tok := parseTok(t, spec)
		for _, tol := range []float64{-1, 0.05} {
			d := NewToken(newFake(t, tok.Size(), 8, 1.5), tok, testAff, TokenOptions{MeanTol: tol})
			lo, hi := d.tree.Interval(nil)
			answered, refused := 0, 0
			for i := range 501 {
				tv := lo - 0.1 + (hi-lo+0.2)*float64(i)/500
				f, ok := d.leafCDF(tv)
				if !ok {
					refused++
					continue
				}
				answered++
				if want := d.CDF(d.toY(tv)); !(math.Abs(f-want) <= 1e-12) {
					t.Errorf("%s tol %v: t=%v: leafCDF %v, CDF %v", spec, tol, tv, f, want)
				}
			}
			if answered == 0 || (tol < 0) != (refused == 0) {
				t.Errorf("%s tol %v: answered %d, refused %d", spec, tol, answered, refused)
			}
		}
	}
}

// A mixture of point masses: every quantile is one of the points exactly.
func TestMixturePointQuantiles(t *testing.T) {
	pts := []float64{-1.4770458669483661, 0.3, 2.5}
	var comps []Distribution
	for _, v := range pts {
		comps = append(comps, NewPoint(v))
	}
	d := NewMixture(comps)
	for _, c := range []struct{ q, want float64 }{{0.01, pts[0]}, {0.2, pts[0]}, {1.0 / 3, pts[0]}, {0.34, pts[1]}, {0.5, pts[1]}, {0.7, pts[2]}, {0.99, pts[2]}} {
		if got := d.Quantile(c.q); got != c.want {
			t.Errorf("Quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
}

// A mixture's CDF is exactly 1 at +Inf and 0 at -Inf, not its members'
// rounded sum (three MDN members gave 0.9999999999999999).
func TestMixtureCDFInfinities(t *testing.T) {
	var comps []Distribution
	for k := range 3 {
		comps = append(comps, NewMDN([]float64{0.3, 0.7}, []float64{float64(k) * 0.1, 1}, []float64{0.2, 0.7}, Affine{Offset: 1, Scale: 3}))
	}
	m := NewMixture(comps)
	if got := m.CDF(math.Inf(1)); got != 1 {
		t.Errorf("CDF(+Inf) = %v", got)
	}
	if got := m.CDF(math.Inf(-1)); got != 0 {
		t.Errorf("CDF(-Inf) = %v", got)
	}
	if got := m.CDF(math.NaN()); !math.IsNaN(got) {
		t.Errorf("CDF(NaN) = %v", got)
	}
}

// A mixture of Tokens of one tree: its quantiles are those of the averaged
// cells, enumerated by brute force; each walk costs K decoder steps per
// component for all levels together.
func TestMixtureSharedTree(t *testing.T) {
	for _, spec := range treeSpecs {
		tok := parseTok(t, spec)
		for _, tol := range []float64{-1, 0.05, 10} {
			var fakes []*fakeDec
			var comps []Distribution
			for seed := range uint64(4) {
				f := newFake(t, tok.Size(), 60+seed, 2)
				fakes = append(fakes, f)
				comps = append(comps, NewToken(f, tok, testAff, TokenOptions{MeanTol: tol}))
			}
			mixCells := bruteMixture(t, fakes, []vocab.Tokenizer{tok, tok, tok, tok})
			d := NewMixture(comps)
			if d.sharedTree() == nil {
				t.Fatalf("%s: components of one tree not recognised", spec)
			}
			qs := []float64{1e-9, 0.01, 0.05, 0.2, 0.5, 0.77, 0.95, 0.99, 1 - 1e-9}
			got := d.Quantiles(qs)
			for i, q := range qs {
				want := testAff.Offset + testAff.Scale*bfQuantile(mixCells, q)
				if !near(got[i], want, 1e-9*math.Max(1, math.Abs(want))) {
					t.Errorf("%s tol %v: Q(%v) = %v, brute force %v", spec, tol, q, got[i], want)
				}
			}
			// With no expansion (MeanTol 10 expands only the root's
			// children at most) every level is walked: K steps a component.
			if tol == 10 {
				for _, f := range fakes {
					f.reset()
				}
				ts := d.sharedTree()
				treeQuantiles(ts, qs)
				for c, f := range fakes {
					if f.starts != 1 || f.steps != tok.Len() {
						t.Errorf("%s: component %d: %d starts, %d steps for one walk, want 1 and %d", spec, c, f.starts, f.steps, tok.Len())
					}
				}
			}
		}
	}
	// Different affine maps, tokenizations or bounds are not one tree
	// (unnormalized base 4 and normalized base 6 have the same sizes; a
	// Bounded tree's spec is its inner tree's).
	un := parseTok(t, "unnormalized:base=4,exponent=1,mantissa=2")
	norm6 := parseTok(t, "normalized:base=6,length=5")
	bounded, err := vocab.Bound(un, -3, 5)
	if err != nil {
		t.Fatal(err)
	}
	bounded2, err := vocab.Bound(un, -3, 6)
	if err != nil {
		t.Fatal(err)
	}
	if norm6.Size() != un.Size() || norm6.Len() != un.Len() || bounded.Spec() != un.Spec() {
		t.Fatalf("the test's tokenizations no longer alike: sizes %d, %d, lengths %d, %d, specs %q, %q", norm6.Size(), un.Size(), norm6.Len(), un.Len(), bounded.Spec(), un.Spec())
	}
	mk := func(tok vocab.Tokenizer, aff Affine, seed uint64) *Token {
		return NewToken(newFake(t, tok.Size(), seed, 1), tok, aff, TokenOptions{})
	}
	for name, pair := range map[string][2]Distribution{
		"affine":      {mk(un, testAff, 1), mk(un, Affine{Offset: 0, Scale: 1}, 2)},
		"spec":        {mk(un, testAff, 1), mk(norm6, testAff, 2)},
		"bound":       {mk(un, testAff, 1), mk(bounded, testAff, 2)},
		"bounds":      {mk(bounded2, testAff, 1), mk(bounded, testAff, 2)},
		"sizes":       {mk(un, testAff, 1), mk(parseTok(t, treeSpecs[0]), testAff, 2)},
		"not a token": {mk(un, testAff, 1), NewRiemann([]float64{1, 1}, testAff)},
	} {
		if NewMixture(pair[:]).sharedTree() != nil {
			t.Errorf("%s: taken as one tree", name)
		}
	}
	if NewMixture([]Distribution{mk(bounded, testAff, 1), mk(bounded, testAff, 2)}).sharedTree() == nil {
		t.Errorf("one bounded tree not recognised")
	}
	// A bounded and an unbounded component: quantiles by the bisection,
	// against brute force (a walk on one tree gave the median 28.7 for
	// 18.3).
	var comps []Distribution
	var fakes []*fakeDec
	pair := []vocab.Tokenizer{un, bounded}
	for i, tok := range pair {
		fakes = append(fakes, newFake(t, tok.Size(), 70+uint64(i), 2))
		comps = append(comps, NewToken(fakes[i], tok, testAff, TokenOptions{MeanTol: 10}))
	}
	mixed := bruteMixture(t, fakes, pair)
	d := NewMixture(comps)
	for _, q := range []float64{0.01, 0.5, 0.9} {
		want := testAff.Offset + testAff.Scale*bfQuantile(mixed, q)
		if got := d.Quantile(q); !near(got, want, 1e-6*math.Max(1, math.Abs(want))) {
			t.Errorf("bounded and unbounded: Q(%v) = %v, brute force %v", q, got, want)
		}
	}
}

// bruteMixture is the equal mixture of the components fakes[k] under
// toks[k], enumerated by brute force: its finite cells, merged and sorted.
func bruteMixture(t *testing.T, fakes []*fakeDec, toks []vocab.Tokenizer) []bfCell {
	var cells []bfCell
	for k, f := range fakes {
		cs, _ := finiteCells(brute(t, f, toks[k]))
		for _, c := range cs {
			c.p /= float64(len(fakes))
			cells = append(cells, c)
		}
	}
	return mergeCells(cells)
}

// mergeCells sums the masses of equal cells and sorts them by lower edge.
func mergeCells(cells []bfCell) []bfCell {
	m := map[[2]float64]int{}
	var out []bfCell
	for _, c := range cells {
		k := [2]float64{c.lo, c.hi}
		if i, ok := m[k]; ok {
			out[i].p += c.p
			continue
		}
		m[k] = len(out)
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b bfCell) int { return cmp.Compare(a.lo, b.lo) })
	return out
}

// sortRuns sorts like slices.Sort whatever the runs: few, many, empty,
// with ties, infinities and NaNs.
func TestSortRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 2000 {
		var x []float64
		for range r.IntN(80) {
			run := make([]float64, r.IntN(12))
			for i := range run {
				run[i] = float64(r.IntN(20)) - 10
				switch r.IntN(50) {
				case 0:
					run[i] = math.Inf(1)
				case 1:
					run[i] = math.Inf(-1)
				case 2:
					if trial%7 == 0 {
						run[i] = math.NaN()
					}
				}
			}
			if r.IntN(4) > 0 {
				slices.Sort(run)
			}
			x = append(x, run...)
		}
		want := slices.Clone(x)
		slices.Sort(want)
		got := sortRuns(slices.Clone(x))
		if !slices.EqualFunc(got, want, func(a, b float64) bool { return a == b || a != a && b != b }) {
			t.Fatalf("trial %d: sortRuns(%v) = %v, want %v", trial, x, got, want)
		}
	}
}

// The mean of components whose means are near the largest float64 is
// finite (their sum overflowed: a review found an ensemble's mean +Inf
// with every member's finite).
func TestMixtureMeanNoOverflow(t *testing.T) {
	d := NewMixture([]Distribution{NewPoint(1.5e308), NewPoint(1.7e308), NewPoint(-1e308)})
	if got, want := d.Mean(), 2.2e308/3; !(math.Abs(got-want) <= 1e-15*want) {
		t.Errorf("mean %v, want %v", got, want)
	}
}

// Histograms on one grid are mixed by averaging their bins; the CRPS of
// that must equal the cut-pieces path that histograms on different grids
// take (mixedCellsCRPS over every bin of every component), and a numerical
// integral of (F - 1{y <= t})².
func TestMixtureCRPSSameBins(t *testing.T) {
	aff := Affine{Offset: -2, Scale: 5}
	a := NewRiemann([]float64{0.1, 0.2, 0.3, 0.4}, aff)
	b := NewRiemann([]float64{0.5, 0, 0.25, 0.25}, aff)
	m := NewMixture([]Distribution{a, b, a})
	if _, _, ok := m.sameBins(); !ok {
		t.Fatal("one grid not recognised")
	}
	for _, other := range []*Riemann{
		NewRiemann([]float64{0.1, 0.2, 0.3, 0.4}, Affine{Offset: -2, Scale: 4}),
		NewRiemann([]float64{0.1, 0.2, 0.3, 0.4}, Affine{Offset: -1, Scale: 5}),
		NewRiemann([]float64{0.1, 0.2, 0.7}, aff),
		NewRiemann([]float64{0.1, 0.2, 0.3, 0.2, 0.2}, aff),
	} {
		if _, _, ok := NewMixture([]Distribution{a, other}).sameBins(); ok {
			t.Errorf("grids %d bins %+v and %d bins %+v taken as one", len(a.p), a.aff, len(other.p), other.aff)
		}
	}
	if _, _, ok := NewMixture([]Distribution{a, NewMDN([]float64{1}, []float64{0.5}, []float64{0.1}, aff)}).sameBins(); ok {
		t.Error("a histogram and an MDN taken as one grid")
	}
	for _, y := range []float64{-3, -2, -0.7, 0.5, 1.25, 2.9, 3, 4} {
		var cells []massCell
		for _, c := range []*Riemann{a, b, a} {
			n := float64(len(c.p))
			for i, p := range c.p {
				cells = append(cells, massCell{c.toY(float64(i) / n), c.toY(float64(i+1) / n), p / 3})
			}
		}
		got, _ := CRPS(m, y)
		if want := mixedCellsCRPS(cells, y); math.Abs(got-want) > 1e-12 {
			t.Errorf("y %v: %v, cut pieces %v", y, got, want)
		}
		var num float64
		const steps = 200000
		lo, hi := -4.0, 6.0
		dt := (hi - lo) / steps
		for i := range steps {
			x := lo + (float64(i)+0.5)*dt
			h := 0.0
			if y <= x {
				h = 1
			}
			f := m.CDF(x) - h
			num += f * f * dt
		}
		if math.Abs(got-num) > 1e-4 {
			t.Errorf("y %v: %v, integral %v", y, got, num)
		}
	}
}

// TestMixedPiecesTinyCells: cells of very different widths (a raw target's
// cells near 0 are 1e-100 wide, beside cells 1e6 wide) are cut into pieces
// whose masses sum to 1, and the mixture's CRPS lies in [0, E|X - y|]; a
// running sum of densities left rounding error of 1e80 times a wide piece
// (an ensemble's CRPS was 1e178: review).
func TestMixedPiecesTinyCells(t *testing.T) {
	half := func(cs []massCell) []massCell {
		out := slices.Clone(cs)
		for i := range out {
			out[i].m /= 2
		}
		return out
	}
	a := []massCell{{-1e6, -1e-100, 0.3}, {-1e-100, 1e-100, 0.4}, {1e-100, 1e-90, 0.1}, {1e-90, 1e6, 0.2}}
	b := []massCell{{-5, 0, 0.25}, {0, 1e-300, 0.5}, {1e-300, 1e5, 0.25}}
	cells := append(half(a), half(b)...)
	pieces := mixedPieces(cells)
	sum := 0.0
	for _, p := range pieces {
		sum += p.m
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("the pieces' masses sum to %v", sum)
	}
	// E|X - y| of a uniform cell, in closed form.
	absDev := func(lo, hi, y float64) float64 {
		switch {
		case y <= lo:
			return (lo+hi)/2 - y
		case y >= hi:
			return y - (lo+hi)/2
		}
		return ((y-lo)*(y-lo) + (hi-y)*(hi-y)) / (2 * (hi - lo))
	}
	for _, y := range []float64{-2e6, -3, 0, 1e-95, 7, 2e5} {
		e := 0.0
		for _, c := range cells {
			e += c.m * absDev(c.lo, c.hi, y)
		}
		if got := mixedCellsCRPS(cells, y); !(got >= 0 && got <= e*(1+1e-9)) {
			t.Errorf("y = %v: CRPS %v, want it in [0, E|X - y| = %v]", y, got, e)
		}
	}
}

// TestMixtureCDFPastSupport: above every member's support the mixture's
// CDF is 1 exactly, and 0 below (it was the members' rounded cumulative
// sums' mean, 0.9999999999999999: review).
func TestMixtureCDFPastSupport(t *testing.T) {
	for trial := range 40 {
		spec := append(treeSpecs, "normalized:base=10,length=3", "unnormalized:base=10,exponent=1,mantissa=3")[trial%4]
		tok := parseTok(t, spec)
		var comps []Distribution
		for k := range 3 {
			comps = append(comps, NewToken(newFake(t, tok.Size(), uint64(3*trial+k+1), 1.5), tok, testAff, TokenOptions{}))
		}
		m := NewMixture(comps)
		top := max(comps[0].Quantile(1), comps[1].Quantile(1), comps[2].Quantile(1))
		bot := min(comps[0].Quantile(0), comps[1].Quantile(0), comps[2].Quantile(0))
		for _, y := range []float64{top, top + 1, 1e300} {
			if f := m.CDF(y); f != 1 {
				t.Errorf("%s: CDF(%v) = %v above the support (top %v), want 1", spec, y, f, top)
			}
		}
		for _, y := range []float64{bot - 1, -1e300} {
			if f := m.CDF(y); f != 0 {
				t.Errorf("%s: CDF(%v) = %v below the support, want 0", spec, y, f)
			}
		}
	}
}
