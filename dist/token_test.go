package dist

import (
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"sort"
	"testing"

	"decoreg/vocab"
)

// treeSpecs are the tree tokenizations checked exactly against brute force.
var treeSpecs = []string{
	"normalized:base=3,length=4",
	"unnormalized:base=4,exponent=1,mantissa=2",
}

var testAff = Affine{Offset: -2.5, Scale: 3.7}

func TestTokenTreeExact(t *testing.T) {
	for _, spec := range treeSpecs {
		t.Run(spec, func(t *testing.T) {
			tok := parseTok(t, spec)
			k := tok.Len()
			f := newFake(t, tok.Size(), 7, 1.5)
			cells, _ := finiteCells(brute(t, f, tok))
			d := NewToken(f, tok, testAff, TokenOptions{MeanTol: -1, Beam: 1 << 20})
			if !d.Exact() {
				t.Fatal("Exact() = false for a tree tokenization")
			}
			aff := testAff
			toT := func(y float64) float64 { return (y - aff.Offset) / aff.Scale }

			// Quantiles: edges, random levels, and levels that fall exactly
			// on cumulative cell boundaries.
			qs := []float64{0, 1, 0.5, 1e-9, 1 - 1e-9}
			r := rand.New(rand.NewPCG(1, 2))
			for range 40 {
				qs = append(qs, r.Float64())
			}
			cum := 0.0
			for i, c := range cells {
				cum += c.p
				if i%7 == 3 {
					qs = append(qs, cum)
				}
			}
			f.reset()
			got := d.Quantiles(qs)
			if f.starts != 1 || f.steps != k || f.startN[0] != 1 {
				t.Errorf("Quantiles: %d starts, %d steps (N=%v); want 1 start of 1 sequence, %d steps", f.starts, f.steps, f.startN, k)
			}
			for i, q := range qs {
				want := bfQuantile(cells, q)
				switch q {
				case 0:
					want = cells[0].lo
				case 1:
					want = cells[len(cells)-1].hi
				}
				// A level q is known to about 1e-16, which moves the
				// quantile by that much over the density there.
				tol := 1e-12 * max(1, math.Abs(want))
				for _, c := range cells {
					if c.lo <= want && want <= c.hi {
						tol += 1e-14 * (c.hi - c.lo) / c.p
					}
				}
				if !(math.Abs(toT(got[i])-want) <= tol) {
					t.Errorf("Quantile(%v) = %v (t %v), brute force t %v", q, got[i], toT(got[i]), want)
				}
				if e := math.Abs(bfCDF(cells, toT(got[i])) - q); !(e <= 1e-14) {
					t.Errorf("Quantile(%v): brute-force CDF there is off by %v", q, e)
				}
			}
			if m := d.Median(); m != d.Quantile(0.5) {
				t.Errorf("Median %v != Quantile(0.5) %v", m, d.Quantile(0.5))
			}
			if !math.IsNaN(d.Quantile(-0.1)) || !math.IsNaN(d.Quantile(1.1)) || !math.IsNaN(d.Quantile(math.NaN())) {
				t.Error("Quantile outside [0,1] is not NaN")
			}

			// CDFs: random points, cell edges and centres, and beyond.
			lo, hi := cells[0].lo, cells[len(cells)-1].hi
			var ts []float64
			for range 40 {
				ts = append(ts, lo+(hi-lo)*r.Float64())
			}
			for i, c := range cells {
				if i%5 == 0 {
					ts = append(ts, c.lo, c.center, c.hi)
				}
			}
			ts = append(ts, lo-1, hi+1, lo, hi)
			ys := make([]float64, len(ts))
			for i, x := range ts {
				ys[i] = aff.Offset + aff.Scale*x
			}
			f.reset()
			cdf := d.CDFs(ys)
			if f.starts != 1 || f.steps != k {
				t.Errorf("CDFs: %d starts, %d steps; want 1, %d", f.starts, f.steps, k)
			}
			for i := range ys {
				want := bfCDF(cells, toT(ys[i]))
				if !(math.Abs(cdf[i]-want) <= 1e-12) {
					t.Errorf("CDF(%v) = %v, brute force %v", ys[i], cdf[i], want)
				}
			}

			// Mean with full expansion: exact, zero bound.
			m, b := d.MeanBound()
			if want := aff.Offset + aff.Scale*bfMean(cells); !near(m, want, 1e-12) || b != 0 {
				t.Errorf("MeanBound = %v, %v; brute force %v, 0", m, b, want)
			}

			// Mode with an exhaustive beam: the centre of the most probable
			// cell.
			best := -1
			for i, c := range cells {
				if best < 0 || c.p > cells[best].p {
					best = i
				}
			}
			if got, want := d.Mode(), aff.Offset+aff.Scale*cells[best].center; !near(got, want, 1e-12) {
				t.Errorf("Mode = %v, want %v", got, want)
			}
			// The default beam costs K steps too.
			f.reset()
			NewToken(f, tok, aff, TokenOptions{}).Mode()
			if f.starts != 1 || f.steps != k {
				t.Errorf("Mode: %d starts, %d steps; want 1, %d", f.starts, f.steps, k)
			}
		})
	}
}

// TestTokenMeanThreshold checks the pruned expansion: the bound holds, and
// exactly the prefixes that meet MeanTol are fed to the decoder: mass >=
// MeanTol, or for a normalized tokenization mass times the width of the
// prefix's interval >= MeanTol.
func TestTokenMeanThreshold(t *testing.T) {
	for _, spec := range treeSpecs {
		t.Run(spec, func(t *testing.T) {
			tok := parseTok(t, spec)
			f := newFake(t, tok.Size(), 11, 1.5)
			seqs := brute(t, f, tok)
			cells, _ := finiteCells(seqs)
			exact := bfMean(cells)
			for _, tol := range []float64{1e-1, 1e-2, 1e-3} {
				// Prefix masses (depth 1..K-1) by summing sequences; for a
				// normalized tokenization times the prefix's width.
				mass := map[string]float64{}
				width := map[string]float64{}
				_, byWidth := tok.(*vocab.Normalized)
				for _, s := range seqs {
					for dpt := 1; dpt < tok.Len(); dpt++ {
						key := string(rune(dpt)) + fmtInts(s.toks[:dpt])
						mass[key] += s.p
						width[key] = 1
						if lo, hi := tok.(vocab.Tree).Interval(s.toks[:dpt]); byWidth && !math.IsNaN(lo) {
							width[key] = hi - lo
						}
					}
				}
				want := 1
				for key, p := range mass {
					if p*width[key] >= tol {
						want++
					}
				}
				f.reset()
				d := NewToken(f, tok, Affine{0, 1}, TokenOptions{MeanTol: tol})
				m, b := d.MeanBound()
				if f.rows != want {
					t.Errorf("tol %v: %d prefixes expanded, want %d", tol, f.rows, want)
				}
				if !(b > 0) || !(math.Abs(m-exact) <= b+1e-12) {
					t.Errorf("tol %v: mean %v bound %v, exact %v", tol, m, b, exact)
				}
			}
			// A cap on the expansion: still a valid bound.
			f.reset()
			d := NewToken(f, tok, Affine{0, 1}, TokenOptions{MeanTol: -1, MaxExpand: 4})
			m, b := d.MeanBound()
			if f.rows > 4 || !(math.Abs(m-exact) <= b+1e-12) || !(b > 0) {
				t.Errorf("MaxExpand 4: %d rows, mean %v bound %v, exact %v", f.rows, m, b, exact)
			}
		})
	}
}

func fmtInts(x []int) string {
	b := make([]byte, len(x))
	for i, v := range x {
		b[i] = byte('a' + v)
	}
	return string(b)
}

func TestTokenLogPDF(t *testing.T) {
	for _, spec := range append(slices.Clone(treeSpecs), "normalized:base=2,length=2,repeat=3", "hamming:length=4") {
		t.Run(spec, func(t *testing.T) {
			tok := parseTok(t, spec)
			f := newFake(t, tok.Size(), 5, 1.5)
			seqs := brute(t, f, tok)
			aff := testAff
			d := NewToken(f, tok, aff, TokenOptions{})
			// Every encoding sequence (for Repeat: the exact repeated one).
			var ys, want []float64
			r := rand.New(rand.NewPCG(3, 4))
			integral := 0.0
			for _, s := range seqs {
				c := s.cell
				enc, _, err := tok.Encode(c.Center)
				if err != nil || !slices.Equal(enc, s.toks) {
					continue // not the canonical sequence of its cell (Repeat)
				}
				tt := c.Lo + (0.25+0.5*r.Float64())*(c.Hi-c.Lo)
				lw := math.Log(s.p) - math.Log(c.Hi-c.Lo) - math.Log(aff.Scale)
				ys = append(ys, aff.Offset+aff.Scale*tt, aff.Offset+aff.Scale*c.Center)
				want = append(want, lw, lw)
			}
			f.reset()
			got := d.LogPDFs(ys)
			if f.starts != 1 || f.steps != tok.Len() {
				t.Errorf("LogPDFs: %d starts, %d steps; want 1, %d", f.starts, f.steps, tok.Len())
			}
			for i := range ys {
				if !(math.Abs(got[i]-want[i]) <= 1e-12) {
					t.Errorf("LogPDF(%v) = %v, want %v", ys[i], got[i], want[i])
				}
			}
			if got := d.LogPDF(ys[0]); got != d.LogPDFs(ys[:1])[0] {
				t.Errorf("LogPDF %v != LogPDFs %v", got, want[0])
			}
			// The density integrates to 1 over the representable range:
			// midpoint rule per cell, exact for a piecewise-constant density.
			if _, isTree := tok.(vocab.Tree); isTree {
				cells, _ := finiteCells(seqs)
				var mids []float64
				for _, c := range cells {
					mids = append(mids, aff.Offset+aff.Scale*(c.lo+c.hi)/2)
				}
				lp := d.LogPDFs(mids)
				for i, c := range cells {
					integral += math.Exp(lp[i]) * (c.hi - c.lo) * aff.Scale
				}
				if !(math.Abs(integral-1) <= 1e-12) {
					t.Errorf("density integrates to %v", integral)
				}
				// CDF rises monotonically from 0 to 1 and equals the
				// integral of the density.
				lo, hi := cells[0].lo, cells[len(cells)-1].hi
				var grid []float64
				for i := 0; i <= 400; i++ {
					grid = append(grid, aff.Offset+aff.Scale*(lo-0.01*(hi-lo)+1.02*(hi-lo)*float64(i)/400))
				}
				cdf := d.CDFs(grid)
				if cdf[0] != 0 || cdf[len(cdf)-1] != 1 {
					t.Errorf("CDF runs from %v to %v", cdf[0], cdf[len(cdf)-1])
				}
				for i := 1; i < len(cdf); i++ {
					if cdf[i] < cdf[i-1] {
						t.Errorf("CDF decreases at %v: %v < %v", grid[i], cdf[i], cdf[i-1])
					}
				}
				acc := 0.0
				for i, c := range cells {
					acc += math.Exp(lp[i]) * (c.hi - c.lo) * aff.Scale
					if got := d.CDF(aff.Offset + aff.Scale*c.hi); i%9 == 0 && !(math.Abs(got-acc) <= 1e-12) {
						t.Errorf("CDF at %v = %v, integral of the density %v", c.hi, got, acc)
					}
				}
			}
			// Outside the representable range.
			for _, tt := range []float64{-1e9, 1e9, math.NaN()} {
				if got := d.LogPDF(aff.Offset + aff.Scale*tt); !math.IsInf(got, -1) {
					t.Errorf("LogPDF at t=%v = %v, want -Inf", tt, got)
				}
			}
		})
	}
}

// TestTokenSampleQuantiles draws 1e5 samples and compares them with the
// exact cell probabilities (chi-square) and the exact quantiles (binomial
// tolerance), and checks that the batch costs K steps.
func TestTokenSampleQuantiles(t *testing.T) {
	for _, spec := range treeSpecs {
		t.Run(spec, func(t *testing.T) {
			tok := parseTok(t, spec)
			f := newFake(t, tok.Size(), 21, 1.2)
			cells, _ := finiteCells(brute(t, f, tok))
			aff := testAff
			d := NewToken(f, tok, aff, TokenOptions{})
			const n = 100000
			f.reset()
			vals := d.Sample(n, SampleOptions{Centres: true}, rand.New(rand.NewPCG(9, 9)))
			if f.starts != 1 || f.steps != tok.Len() || f.startN[0] != n {
				t.Errorf("Sample: %d starts (N=%v), %d steps; want 1 start of %d, %d steps", f.starts, f.startN, f.steps, n, tok.Len())
			}
			// Chi-square over cells.
			counts := make([]int, len(cells))
			p := make([]float64, len(cells))
			for i, c := range cells {
				p[i] = c.p
			}
			for _, y := range vals {
				tt := (y - aff.Offset) / aff.Scale
				i := sort.Search(len(cells), func(i int) bool { return cells[i].hi > tt }) // first cell ending above
				if i == len(cells) || !near(cells[i].center, tt, 1e-9) {
					t.Fatalf("sample %v (t %v) is not a cell centre", y, tt)
				}
				counts[i]++
			}
			if s, df := chiSquare(counts, p, n); !chiOK(s, df) {
				t.Errorf("chi-square %v with %d df", s, df)
			}
			// Empirical quantiles against exact ones.
			slices.Sort(vals)
			for _, q := range []float64{0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99} {
				e := vals[int(math.Ceil(q*n))-1]
				tol := 5 * math.Sqrt(q*(1-q)/n)
				te := (e - aff.Offset) / aff.Scale
				i := sort.Search(len(cells), func(i int) bool { return cells[i].hi > te })
				c := cells[i]
				qlo, qhi := d.Quantile(max(q-tol, 0)), d.Quantile(min(q+tol, 1))
				clo, chi := aff.Offset+aff.Scale*c.lo, aff.Offset+aff.Scale*c.hi
				if qlo > chi || qhi < clo {
					t.Errorf("q=%v: empirical quantile %v in cell [%v,%v], exact quantiles of q±%.4f [%v,%v]", q, e, clo, chi, tol, qlo, qhi)
				}
				if ex := d.Quantile(q); !(math.Abs(ex-e) <= (qhi-qlo)+(chi-clo)) {
					t.Errorf("q=%v: exact %v vs empirical %v", q, ex, e)
				}
			}
			// By default the draws are the piecewise-uniform density's,
			// within the cells the centres' were drawn from.
			within := d.Sample(n, SampleOptions{}, rand.New(rand.NewPCG(9, 9)))
			ksCheck(t, d, within)
			for _, y := range within[:1000] {
				tt := (y - aff.Offset) / aff.Scale
				i := sort.Search(len(cells), func(i int) bool { return cells[i].hi > tt })
				if i == len(cells) || tt < cells[i].lo {
					t.Fatalf("sample %v (t %v) is in no cell", y, tt)
				}
			}
			// Same seed, same samples; another seed, others.
			a := d.Sample(200, SampleOptions{TopK: 2, Temperature: 0.9}, rand.New(rand.NewPCG(5, 6)))
			b := d.Sample(200, SampleOptions{TopK: 2, Temperature: 0.9}, rand.New(rand.NewPCG(5, 6)))
			c := d.Sample(200, SampleOptions{TopK: 2, Temperature: 0.9}, rand.New(rand.NewPCG(5, 7)))
			if !slices.Equal(a, b) || slices.Equal(a, c) {
				t.Error("samples do not follow the seed")
			}
		})
	}
}

// refFilter is the test's own statement of the sampling filters on one
// step: masked softmax at temperature T, top-k, renormalise, top-p (the
// smallest most-probable set reaching p, at least one token).
func refFilter(logits []float32, allowed []int, o SampleOptions) map[int]float64 {
	T := o.Temperature
	if T == 0 {
		T = 1
	}
	type tp struct {
		t int
		p float64
	}
	var ps []tp
	s := 0.0
	for _, a := range allowed {
		e := math.Exp(float64(logits[a]) / T)
		ps = append(ps, tp{a, e})
		s += e
	}
	for i := range ps {
		ps[i].p /= s
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].p > ps[j].p })
	if o.TopK > 0 && o.TopK < len(ps) {
		ps = ps[:o.TopK]
	}
	s = 0
	for _, x := range ps {
		s += x.p
	}
	for i := range ps {
		ps[i].p /= s
	}
	if o.TopP > 0 && o.TopP < 1 {
		c := 0.0
		for i, x := range ps {
			c += x.p
			if c >= o.TopP {
				ps = ps[:i+1]
				break
			}
		}
		s = 0
		for _, x := range ps {
			s += x.p
		}
		for i := range ps {
			ps[i].p /= s
		}
	}
	out := map[int]float64{}
	for _, x := range ps {
		out[x.t] = x.p
	}
	return out
}

func TestTokenSampleFilters(t *testing.T) {
	tok := parseTok(t, "normalized:base=3,length=4")
	f := newFake(t, tok.Size(), 33, 1.0)
	seqs := brute(t, f, tok)
	d := NewToken(f, tok, Affine{0, 1}, TokenOptions{})
	for _, o := range []SampleOptions{
		{Temperature: 0.6}, {Temperature: 1.7}, {TopK: 1}, {TopK: 2}, {TopP: 0.7},
		{Temperature: 0.8, TopK: 2, TopP: 0.8}, {TopP: 0.3},
	} {
		// Exact filtered probability of every sequence.
		p := make([]float64, len(seqs))
		index := map[string]int{}
		for i, s := range seqs {
			p[i] = 1
			for lev := range s.toks {
				pre := s.toks[:lev]
				p[i] *= refFilter(f.logits(pre), tok.Allowed(nil, pre), o)[s.toks[lev]]
			}
			index[fmtInts(s.toks)] = i
		}
		const n = 40000
		_, got := d.SampleTokens(n, o, rand.New(rand.NewPCG(uint64(o.TopK), 77)))
		counts := make([]int, len(seqs))
		k := tok.Len()
		for i := range n {
			counts[index[fmtInts(got[i*k:(i+1)*k])]]++
		}
		if s, df := chiSquare(counts, p, n); !chiOK(s, df) {
			t.Errorf("%+v: chi-square %v with %d df", o, s, df)
		}
	}
}

// TestTopPBoundary: with four equally likely tokens, top-p 0.5 must keep
// exactly two (0.25+0.25 reaches 0.5); the reference code keeps one.
func TestTopPBoundary(t *testing.T) {
	p := []float64{0.25, 0.25, 0.25, 0.25}
	order := make([]int, 4)
	for _, c := range []struct {
		p    float64
		keep int
	}{{0.25, 1}, {0.2500001, 2}, {0.5, 2}, {0.75, 3}, {0.7500001, 4}, {1, 4}, {0, 4}} {
		if got := filterTop(order, p, 0, c.p); len(got) != c.keep {
			t.Errorf("top-p %v keeps %v, want %d tokens", c.p, got, c.keep)
		}
	}
	if got := filterTop(order, []float64{0.1, 0.2, 0.3, 0.4}, 3, 0.5); !slices.Equal(got, []int{3, 2}) {
		t.Errorf("top-k 3 then top-p 0.5 keeps %v, want [3 2]", got)
	}
	if got := filterTop(order, []float64{0.1, 0.4, 0.4, 0.1}, 2, 0); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("top-k 2 keeps %v, want [1 2]", got)
	}

	// The same boundary through the whole sampler: uniform logits over
	// base 4, top-p 0.5 keeps digits 0 and 1 at every step, so the 8 cells
	// made of those digits get 1/8 each and no other cell appears.
	tok := parseTok(t, "normalized:base=4,length=3")
	f := newFake(t, tok.Size(), 0, 0)
	f.uniform = true
	d := NewToken(f, tok, Affine{0, 1}, TokenOptions{})
	const n = 20000
	_, seqs := d.SampleTokens(n, SampleOptions{TopP: 0.5}, rand.New(rand.NewPCG(1, 1)))
	counts := make([]int, 8)
	for i := range n {
		code := 0
		for _, tk := range seqs[i*3 : i*3+3] {
			if tk > 1 {
				t.Fatalf("top-p 0.5 sampled token %d", tk)
			}
			code = 2*code + tk
		}
		counts[code]++
	}
	if s, df := chiSquare(counts, []float64{.125, .125, .125, .125, .125, .125, .125, .125}, n); !chiOK(s, df) {
		t.Errorf("chi-square %v with %d df: %v", s, df, counts)
	}
}

func TestSampleOptionsValidate(t *testing.T) {
	for _, o := range []SampleOptions{{Temperature: -1}, {Temperature: math.NaN()}, {TopK: -1}, {TopP: 1.5}, {TopP: -0.1}} {
		if o.Validate() == nil {
			t.Errorf("%+v validates", o)
		}
	}
	if err := (SampleOptions{Temperature: 0.5, TopK: 3, TopP: 0.9}).Validate(); err != nil {
		t.Error(err)
	}
}

// TestTokenNonTree checks the sample-based summaries of Hamming and Repeat
// tokenizations against brute force within sampling error.
func TestTokenNonTree(t *testing.T) {
	for _, spec := range []string{"hamming:length=4", "normalized:base=2,length=2,repeat=3"} {
		t.Run(spec, func(t *testing.T) {
			tok := parseTok(t, spec)
			f := newFake(t, tok.Size(), 3, 1.5)
			seqs := brute(t, f, tok)
			cells, _ := finiteCells(seqs)
			const ns = 20000
			d := NewToken(f, tok, Affine{0, 1}, TokenOptions{Samples: ns, Seed: 4, Beam: 1 << 20})
			if d.Exact() {
				t.Fatal("Exact() = true for a non-tree tokenization")
			}
			mean, variance := bfMean(cells), 0.0
			for _, c := range cells {
				w := c.hi - c.lo
				variance += c.p * ((c.lo+c.hi)*(c.lo+c.hi)/4 + w*w/12)
			}
			variance -= mean * mean
			m, b := d.MeanBound()
			if !(math.Abs(m-mean) <= 5*math.Sqrt(variance/ns)) || !math.IsInf(b, 1) {
				t.Errorf("mean %v (bound %v), exact %v, sd of the estimate %v", m, b, mean, math.Sqrt(variance/ns))
			}
			for _, q := range []float64{0.05, 0.3, 0.5, 0.8, 0.97} {
				tol := 5*math.Sqrt(q*(1-q)/ns) + 1e-9
				if got := bfCDF(cells, d.Quantile(q)); !(math.Abs(got-q) <= tol) {
					t.Errorf("Quantile(%v) has exact CDF %v", q, got)
				}
				y := bfQuantile(cells, q)
				if got := d.CDF(y); !(math.Abs(got-q) <= tol) {
					t.Errorf("CDF(%v) = %v, exact %v", y, got, q)
				}
			}
			if got := bfCDF(cells, d.Median()); !(math.Abs(got-0.5) <= 5*math.Sqrt(0.25/ns)) {
				t.Errorf("Median has exact CDF %v", got)
			}
			hd := NewToken(f, tok, Affine{0, 1}, TokenOptions{Samples: ns, Seed: 4, HarrellDavis: true})
			if got := bfCDF(cells, hd.Median()); !(math.Abs(got-0.5) <= 5*math.Sqrt(0.25/ns)) || hd.Median() == d.Median() {
				t.Errorf("Harrell-Davis median %v has exact CDF %v (sample median %v)", hd.Median(), got, d.Median())
			}
			// Deterministic from the seed.
			again := NewToken(f, tok, Affine{0, 1}, TokenOptions{Samples: ns, Seed: 4})
			other := NewToken(f, tok, Affine{0, 1}, TokenOptions{Samples: ns, Seed: 5})
			if again.Mean() != m || other.Mean() == m {
				t.Error("estimates do not follow the seed")
			}
			// Mode with an exhaustive beam: the most probable single
			// sequence.
			best, bestD := 0.0, math.Inf(-1)
			for _, s := range seqs {
				if dd := math.Log(s.p); dd > bestD {
					best, bestD = s.cell.Center, dd
				}
			}
			if got := d.Mode(); got != best {
				t.Errorf("Mode = %v, want %v", got, best)
			}
			// Samples decode (by vote) to cells with the merged
			// probabilities: their centres with Centres, values within
			// them by default.
			const n = 40000
			for _, y := range d.Sample(1000, SampleOptions{}, rand.New(rand.NewPCG(8, 8))) {
				i := sort.Search(len(cells), func(i int) bool { return cells[i].hi > y })
				if i == len(cells) || y < cells[i].lo {
					t.Fatalf("sample %v is in no cell", y)
				}
			}
			vals := d.Sample(n, SampleOptions{Centres: true}, rand.New(rand.NewPCG(8, 8)))
			counts := make([]int, len(cells))
			p := make([]float64, len(cells))
			for i, c := range cells {
				p[i] = c.p
			}
			for _, y := range vals {
				i := sort.Search(len(cells), func(i int) bool { return cells[i].hi > y })
				if i == len(cells) || cells[i].center != y {
					t.Fatalf("sample %v is not a cell centre", y)
				}
				counts[i]++
			}
			if s, df := chiSquare(counts, p, n); !chiOK(s, df) {
				t.Errorf("chi-square %v with %d df", s, df)
			}
		})
	}
}

// TestTokenSpecial: with special tokens the numeric summaries describe the
// head conditioned on a finite value, LogPDF of NaN is the log probability
// of the NaN sequence, and samples include specials at their rate.
func TestTokenSpecial(t *testing.T) {
	tok := parseTok(t, "normalized:base=3,length=3,special=true")
	f := newFake(t, tok.Size(), 13, 1.0)
	seqs := brute(t, f, tok)
	cells, pSpec := finiteCells(seqs)
	if pSpec < 0.05 {
		t.Fatalf("special mass %v too small for the test", pSpec)
	}
	d := NewToken(f, tok, Affine{0, 1}, TokenOptions{MeanTol: -1})
	for _, q := range []float64{0, 0.2, 0.5, 0.9, 1} {
		want := bfQuantile(cells, q)
		if q == 0 {
			want = 0
		} else if q == 1 {
			want = 1
		}
		if got := d.Quantile(q); !near(got, want, 1e-12) {
			t.Errorf("Quantile(%v) = %v, want %v", q, got, want)
		}
		if got := d.CDF(want); !(math.Abs(got-q) <= 1e-12) {
			t.Errorf("CDF(%v) = %v, want %v", want, got, q)
		}
	}
	if got := d.Mean(); !near(got, bfMean(cells), 1e-12) {
		t.Errorf("Mean = %v, want %v", got, bfMean(cells))
	}
	integral := 0.0
	for _, s := range seqs {
		if s.cell.Kind != vocab.Finite {
			v := s.cell.Center
			if got := d.LogPDF(v); !(math.Abs(got-math.Log(s.p)) <= 1e-12) {
				t.Errorf("LogPDF(%v) = %v, want log P = %v", v, got, math.Log(s.p))
			}
			continue
		}
		integral += math.Exp(d.LogPDF(s.cell.Center)) * s.cell.Width()
	}
	if !(math.Abs(integral-(1-pSpec)) <= 1e-12) {
		t.Errorf("density integrates to %v, want 1 - P(special) = %v", integral, 1-pSpec)
	}
	const n = 20000
	vals := d.Sample(n, SampleOptions{}, rand.New(rand.NewPCG(2, 2)))
	special := 0
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			special++
		}
	}
	if sd := math.Sqrt(pSpec * (1 - pSpec) * n); !(math.Abs(float64(special)-pSpec*n) <= 5*sd) {
		t.Errorf("%d special samples, expected %v ± %v", special, pSpec*n, sd)
	}
}

func TestLogProbSeq(t *testing.T) {
	tok := parseTok(t, "unnormalized:base=4,exponent=1,mantissa=2")
	f := newFake(t, tok.Size(), 1, 1.5)
	d := NewToken(f, tok, Affine{0, 1}, TokenOptions{})
	for _, s := range brute(t, f, tok)[:30] {
		if got := d.LogProbSeq(s.toks); !(math.Abs(got-math.Log(s.p)) <= 1e-12) {
			t.Errorf("LogProbSeq(%v) = %v, want %v", s.toks, got, math.Log(s.p))
		}
	}
	// A disallowed sequence (leading zero mantissa off the zero path).
	bad := []int{4, 4, 1, 0, 2}
	if got := d.LogProbSeq(bad); !math.IsInf(got, -1) {
		t.Errorf("LogProbSeq(%v) = %v, want -Inf", bad, got)
	}
}

// constDec is a Decoder that allocates nothing per step: the same logits
// for every prefix.
type constDec struct{ logits []float32 }

type constStep struct {
	d *constDec
	n int
}

func (c *constDec) Start(n int) Stepper { return &constStep{c, n} }
func (s *constStep) N() int             { return s.n }
func (s *constStep) Keep(idx []int)     { s.n = len(idx) }
func (s *constStep) Step(_ []int, l []float32) {
	for i := range s.n {
		copy(l[i*len(s.d.logits):], s.d.logits)
	}
}

// TestSampleAllocs keeps Sample allocation-light: a fixed number of
// allocations per call, independent of n.
func TestSampleAllocs(t *testing.T) {
	// A collection empties the pools the counts rely on (CI under load).
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	tok := parseTok(t, "normalized:base=3,length=4")
	d := NewToken(&constDec{[]float32{0.3, -1, 2}}, tok, Affine{0, 1}, TokenOptions{})
	r := rand.New(rand.NewPCG(1, 1))
	a := testing.AllocsPerRun(5, func() { d.Sample(1000, SampleOptions{TopP: 0.9, TopK: 2}, r) })
	b := testing.AllocsPerRun(5, func() { d.Sample(10, SampleOptions{TopP: 0.9, TopK: 2}, r) })
	if a > 20 || a != b {
		t.Errorf("Sample allocates %v times for n=1000, %v for n=10", a, b)
	}
}

// LogProbSeqAt(seq)(1) is LogProbSeq(seq), and at another temperature it
// is the log probability under a decoder whose logits are scaled.
func TestLogProbSeqAt(t *testing.T) {
	for _, spec := range treeSpecs {
		tok := parseTok(t, spec)
		f := newFake(t, tok.Size(), 4, 1.5)
		d := NewToken(f, tok, testAff, TokenOptions{MeanTol: -1})
		for _, s := range brute(t, f, tok)[:5] {
			at := d.LogProbSeqAt(s.toks)
			if got, want := at(1), d.LogProbSeq(s.toks); !(math.Abs(got-want) <= 1e-9) {
				t.Errorf("%s %v: at T=1 %v, LogProbSeq %v", spec, s.toks, got, want)
			}
			// T = 2 by hand: the masked softmax of logits/2 at each level.
			want := 0.0
			for lev := range s.toks {
				allowed := tok.Allowed(nil, s.toks[:lev])
				lg := f.logits(s.toks[:lev])
				row := make([]float32, len(lg))
				for j, v := range lg {
					row[j] = v / 2
				}
				want += logSoftmaxAt(row, allowed, s.toks[lev])
			}
			if got := at(0.5); !(math.Abs(got-want) <= 1e-6) {
				t.Errorf("%s %v: at T=2 %v, want %v", spec, s.toks, got, want)
			}
		}
	}
}

// TestLevelLogProbAt: each level's log probability at its own temperature
// is the masked softmax of that level's logits divided by it, by hand, and
// the levels at one temperature sum to LogProbSeqAt's.
func TestLevelLogProbAt(t *testing.T) {
	for _, spec := range treeSpecs {
		tok := parseTok(t, spec)
		f := newFake(t, tok.Size(), 4, 1.5)
		d := NewToken(f, tok, testAff, TokenOptions{MeanTol: -1})
		for _, s := range brute(t, f, tok)[:5] {
			lev := d.LevelLogProbAt(s.toks)
			at := d.LogProbSeqAt(s.toks)
			sum := 0.0
			for l := range s.toks {
				sum += lev(l, 0.7)
				temp := float32(0.5 + float64(l)) // T = 0.5, 1.5, 2.5, ...
				allowed := tok.Allowed(nil, s.toks[:l])
				lg := f.logits(s.toks[:l])
				row := make([]float32, len(lg))
				for j, v := range lg {
					row[j] = v / temp
				}
				want := logSoftmaxAt(row, allowed, s.toks[l])
				if got := lev(l, 1/float64(temp)); !(math.Abs(got-want) <= 1e-6) {
					t.Errorf("%s %v level %d at T=%v: %v, want %v", spec, s.toks, l, temp, got, want)
				}
			}
			if want := at(0.7); !(math.Abs(sum-want) <= 1e-9) {
				t.Errorf("%s %v: levels sum to %v at invT 0.7, LogProbSeqAt %v", spec, s.toks, sum, want)
			}
		}
	}
}

// TestSoftmaxRowsMatchesSoftmaxOver: the batched softmax of sampling gives
// softmaxOver's bits row by row, with rows of different allowed sets and
// the special rows (an +Inf logit, all -Inf, a NaN) among ordinary ones.
func TestSoftmaxRowsMatchesSoftmaxOver(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	const v = 5
	logits := []float32{
		0.3, -1, 2, 7, -3,
		inf, 1, inf, 0, 2,
		-inf, -inf, -inf, -inf, -inf,
		1, nan, -2, 0.5, 40,
		-80, 0, 3, 3, 1e-3,
	}
	toks := [][]int{{0, 1, 2, 3, 4}, {0, 1, 2}, {1, 3}, {0, 1, 4}, {2}}
	var all []int
	offs := []int{0}
	for _, tk := range toks {
		all = append(all, tk...)
		offs = append(offs, len(all))
	}
	for _, invT := range []float64{1, 0.25, 3} {
		p := make([]float64, len(all))
		softmaxRows(p, logits, v, all, offs, invT)
		for i, tk := range toks {
			want := softmaxOver(make([]float64, v), logits[i*v:(i+1)*v], tk, invT)
			for j, w := range want {
				if g := p[offs[i]+j]; math.Float64bits(g) != math.Float64bits(w) {
					t.Fatalf("invT %v row %d token %d: softmaxRows %v, softmaxOver %v", invT, i, j, g, w)
				}
			}
		}
	}
}

// A temperature so small that its reciprocal overflows (below about
// 5.6e-309) samples greedily, as TopK 1 does (the fake logits have no ties), for every tokenization kind:
// 1/T = +Inf once made the top logit's weight 0*Inf = NaN, and the last
// allowed token was drawn at every step.
func TestSampleTinyTemperature(t *testing.T) {
	for _, spec := range []string{"normalized:base=3,length=4", "unnormalized:base=2,exponent=2,mantissa=3", "normalized:base=4,length=3,special=true"} {
		tok := parseTok(t, spec)
		f := newFake(t, tok.Size(), 41, 1.0)
		d := NewToken(f, tok, Affine{0, 1}, TokenOptions{})
		greedy := d.Sample(20, SampleOptions{TopK: 1}, rand.New(rand.NewPCG(1, 2)))
		for _, temp := range []float64{5e-324, 1e-310, 1e-300} {
			got := d.Sample(20, SampleOptions{Temperature: temp}, rand.New(rand.NewPCG(1, 2)))
			if !slices.Equal(got, greedy) {
				t.Errorf("%s, temperature %v: %v, want the greedy %v", spec, temp, got[:3], greedy[:3])
			}
		}
	}
}

// crossing is a distribution whose Quantile rounds the wrong way at one
// level: a stand-in for a walk's last ulp.
type crossing struct{ *Riemann }

func (c crossing) Quantile(q float64) float64 {
	if q == 0.5 {
		return math.Nextafter(c.Riemann.Quantile(q), math.Inf(-1)) - 1e-9
	}
	return c.Riemann.Quantile(q)
}

// Quantiles never decrease with the level, in any order of the levels, and
// a Token's quantiles at levels an ulp apart do not cross.
func TestQuantilesMonotone(t *testing.T) {
	d := crossing{NewRiemann([]float64{1, 2, 3, 4}, Affine{0, 1})}
	below := math.Nextafter(0.5, 0)
	for _, qs := range [][]float64{{below, 0.5}, {0.5, below}, {0.9, 0.5, math.NaN(), below, 0.1}} {
		out := Quantiles(d, qs)
		for i := range qs {
			for j := range qs {
				if qs[i] < qs[j] && out[i] > out[j] {
					t.Errorf("levels %v: q(%v) = %v > q(%v) = %v", qs, qs[i], out[i], qs[j], out[j])
				}
			}
			if math.IsNaN(qs[i]) != math.IsNaN(out[i]) {
				t.Errorf("levels %v: level %v gave %v", qs, qs[i], out[i])
			}
		}
	}
	tok := parseTok(t, "normalized:base=8,length=6")
	f := newFake(t, tok.Size(), 9, 2.0)
	tk := NewToken(f, tok, Affine{Offset: 12.5, Scale: 600}, TokenOptions{})
	var qs []float64
	for l := 0.01; l < 1; l += 0.0437 {
		qs = append(qs, l, math.Nextafter(l, 1), math.Nextafter(math.Nextafter(l, 1), 1))
	}
	out := Quantiles(tk, qs)
	for i := 1; i < len(qs); i++ {
		if out[i] < out[i-1] {
			t.Errorf("levels %v and %v: quantiles %v > %v", qs[i-1], qs[i], out[i-1], out[i])
		}
	}
}

// TestCellDraw: a draw lies within its cell, also one reaching past the
// float64 range (it was always drawn at its centre), and with centres is
// the centre, ±MaxFloat64 beyond the range.
func TestCellDraw(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, c := range []vocab.Cell{
		{Lo: 0.25, Hi: 0.5, Center: 0.375},
		{Lo: -3e-300, Hi: 3e-300, Center: 0},
		{Lo: 1e308, Hi: math.Inf(1), Center: 1.5e308},
		{Lo: math.Inf(-1), Hi: -1e308, Center: -1.5e308},
		{Lo: math.Inf(1), Hi: math.Inf(1), Center: math.Inf(1)},
	} {
		clamp := func(v float64) float64 { return min(max(v, -math.MaxFloat64), math.MaxFloat64) }
		lo, hi := clamp(c.Lo), clamp(c.Hi)
		seen := map[float64]bool{}
		for range 200 {
			v := cellDraw(c, false, r)
			if !(v >= lo && v <= hi) {
				t.Fatalf("cell [%v, %v): draw %v", c.Lo, c.Hi, v)
			}
			seen[v] = true
		}
		if lo < hi && len(seen) < 100 {
			t.Errorf("cell [%v, %v): %d distinct draws of 200", c.Lo, c.Hi, len(seen))
		}
		if v := cellDraw(c, true, r); v != clamp(c.Center) {
			t.Errorf("cell [%v, %v): centre %v", c.Lo, c.Hi, v)
		}
	}
}

// TestTokenLogPDFSubnormalCell: a cell narrower than the smallest normal
// float64 (an unnormalized tokenization's cells near 1e-308) had its log
// width from amd64's math.Log, which takes a subnormal for the smallest
// normal number: the log density at 1.2e-308 was 693.08 where its
// probability and width give 697.94.
func TestTokenLogPDFSubnormalCell(t *testing.T) {
	tok := parseTok(t, "unnormalized:base=2,exponent=10,mantissa=8")
	d := NewToken(&constDec{logits: make([]float32, tok.Size())}, tok, Affine{Scale: 1}, TokenOptions{})
	for _, y := range []float64{1.2e-308, -1.2e-308, 2e-308} {
		toks, clamped, err := tok.Encode(y)
		if err != nil || clamped {
			t.Fatalf("Encode(%g): %v, clamped %v", y, err, clamped)
		}
		cell, err := tok.Decode(toks)
		if err != nil {
			t.Fatal(err)
		}
		w := cell.Width()
		if !(w > 0 && w < 0x1p-1022) {
			t.Fatalf("the cell of %g is %g wide: want a subnormal width", y, w)
		}
		want := d.LogProbSeq(toks) - math.Log2(w)*math.Ln2 // log2 is right for subnormals
		if got := d.LogPDF(y); !(math.Abs(got-want) <= 1e-9*math.Abs(want)) {
			t.Errorf("LogPDF(%g) = %.12g, want %.12g (cell %g wide)", y, got, want, w)
		}
	}
}
