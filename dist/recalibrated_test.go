package dist

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"decoreg/internal/gradcheck"
)

// The golden map of a small PIT sample, computed by hand: 20 values
// 0.41, 0.42, …, 0.60 on 4 segments with floor 0.05, so the identity's
// weight is max(0.05, 20/(20+20)) = 0.5; G(0.25) = 0, G(0.5) = (9 + 0.5)/20
// (nine below, one tie), G(0.75) = 1.
func TestFitRecalibrationGolden(t *testing.T) {
	pit := make([]float64, 20)
	for i := range pit {
		pit[i] = float64(41+i) / 100
	}
	pit[9] = 0.5 // exactly the knot
	rc, err := FitRecalibration(pit, 4, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	v, r := rc.Knots()
	wantV := []float64{0, 0.25, 0.5, 0.75, 1}
	wantR := []float64{0, 0.125, 0.4875, 0.875, 1}
	for k := range wantV {
		if !(math.Abs(v[k]-wantV[k]) <= 1e-15) || !(math.Abs(r[k]-wantR[k]) <= 1e-15) {
			t.Fatalf("knots %v -> %v, want %v -> %v", v, r, wantV, wantR)
		}
	}
	// Slopes 0.5, 1.45, 1.55, 0.5: R, R⁻¹ and log R' by hand.
	for _, c := range []struct{ p, r, logS float64 }{
		{0, 0, math.Log(0.5)}, {0.1, 0.05, math.Log(0.5)}, {0.25, 0.125, math.Log(1.45)},
		{0.6, 0.4875 + 0.1*1.55, math.Log(1.55)}, {1, 1, math.Log(0.5)}, {-1, 0, math.Log(0.5)}, {2, 1, math.Log(0.5)},
	} {
		if got := rc.Map(c.p); !(math.Abs(got-c.r) <= 1e-12) {
			t.Errorf("R(%v) = %v, want %v", c.p, got, c.r)
		}
		if got := rc.LogSlope(c.p); !(math.Abs(got-c.logS) <= 1e-12) {
			t.Errorf("log R'(%v) = %v, want %v", c.p, got, c.logS)
		}
		if p := min(max(c.p, 0), 1); !(math.Abs(rc.Inverse(c.r)-p) <= 1e-12) {
			t.Errorf("R⁻¹(%v) = %v, want %v", c.r, rc.Inverse(c.r), p)
		}
	}
	if rc.MaxSlope() != 1.55 && !(math.Abs(rc.MaxSlope()-1.55) <= 1e-12) {
		t.Errorf("max slope %v, want 1.55", rc.MaxSlope())
	}
	// Many rows: the floor rules; a uniform sample gives nearly the identity.
	u := make([]float64, 4000)
	for i := range u {
		u[i] = (float64(i) + 0.5) / 4000
	}
	id, err := FitRecalibration(u, 10, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []float64{0.05, 0.33, 0.5, 0.91} {
		if !(math.Abs(id.Map(p)-p) <= 1e-9) {
			t.Errorf("uniform PITs: R(%v) = %v", p, id.Map(p))
		}
	}
	// The same PITs in another order give the same map.
	rev := slices.Clone(pit)
	slices.Reverse(rev)
	rc2, _ := FitRecalibration(rev, 4, 0.05)
	if _, r2 := rc2.Knots(); !slices.Equal(r, r2) {
		t.Errorf("order changed the map: %v against %v", r2, r)
	}
}

func TestRecalibrationErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		err  func() error
	}{
		{"no knots", func() error { _, err := FitRecalibration([]float64{0.5}, 0, 0.1); return err }},
		{"too many knots", func() error { _, err := FitRecalibration([]float64{0.5}, huge(40), 0.1); return err }},
		{"MaxInt knots", func() error { _, err := FitRecalibration([]float64{0.5}, math.MaxInt, 0.1); return err }},
		{"floor 0", func() error { _, err := FitRecalibration([]float64{0.5}, 5, 0); return err }},
		{"floor NaN", func() error { _, err := FitRecalibration([]float64{0.5}, 5, math.NaN()); return err }},
		{"no pit", func() error { _, err := FitRecalibration(nil, 5, 0.1); return err }},
		{"pit NaN", func() error { _, err := FitRecalibration([]float64{math.NaN()}, 5, 0.1); return err }},
		{"pit 2", func() error { _, err := FitRecalibration([]float64{2}, 5, 0.1); return err }},
		{"one knot", func() error { _, err := NewRecalibration([]float64{0}, []float64{0}); return err }},
		{"not from 0", func() error { _, err := NewRecalibration([]float64{0.1, 1}, []float64{0, 1}); return err }},
		{"flat", func() error { _, err := NewRecalibration([]float64{0, 0.5, 1}, []float64{0, 0, 1}); return err }},
		{"NaN", func() error {
			_, err := NewRecalibration([]float64{0, math.NaN(), 1}, []float64{0, 0.5, 1})
			return err
		}},
	} {
		if c.err() == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// testRecal is a strongly non-identity map: slopes 0.2, 1.15, 1.75, 1.1667, 0.25.
func testRecal(t testing.TB) *Recalibration {
	rc, err := NewRecalibration([]float64{0, 0.1, 0.3, 0.5, 0.8, 1}, []float64{0, 0.02, 0.25, 0.6, 0.95, 1})
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

// refMap is R by the test's own linear interpolation of testRecal's knots.
func refMap(p float64) float64 {
	v := []float64{0, 0.1, 0.3, 0.5, 0.8, 1}
	r := []float64{0, 0.02, 0.25, 0.6, 0.95, 1}
	for k := 1; k < len(v); k++ {
		if p <= v[k] {
			return r[k-1] + (r[k]-r[k-1])*(p-v[k-1])/(v[k]-v[k-1])
		}
	}
	return 1
}

// Every head's recalibrated distribution against brute-force numerics
// from its base's CDF: CDF = R(F) by the test's own interpolation,
// quantiles that invert it, a density that is the CDF's derivative and
// integrates to 1, the mean as lo + ∫(1 - G), the CRPS as the integral of
// (G(t) - 1{y <= t})², and samples that follow G.
func TestRecalibratedAgainstNumerics(t *testing.T) {
	rc := testRecal(t)
	r := rand.New(rand.NewPCG(3, 4))
	probs := make([]float64, 23)
	for i := range probs {
		probs[i] = r.ExpFloat64()
	}
	probs[5] = 0
	tok := parseTok(t, treeSpecs[0])
	type tc struct {
		base   Distribution
		lo, hi float64 // the support (or where the tails are negligible)
		exact  bool    // mean and CRPS exact (bound 0)
	}
	mix := testMixtures(t)
	cases := map[string]tc{
		"riemann":       {NewRiemann(probs, Affine{Offset: -1, Scale: 4}), -1, 3, true},
		"mdn":           {NewMDN([]float64{0.3, 0.7}, []float64{-0.4, 0.2}, []float64{0.1, 0.25}, Affine{Offset: 1, Scale: 2}), -4, 5, false},
		"token":         {NewToken(newFake(t, tok.Size(), 11, 1.5), tok, testAff, TokenOptions{MeanTol: -1}), 0, 0, true},
		"token-pruned":  {NewToken(newFake(t, tok.Size(), 11, 1.5), tok, testAff, TokenOptions{MeanTol: 0.05}), 0, 0, false},
		"mixture-token": {mix["token"].d, mix["token"].lo, mix["token"].hi, true},
		"mixture-mdn":   {mix["mdn"].d, mix["mdn"].lo, mix["mdn"].hi, false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if tk, ok := c.base.(*Token); ok {
				c.lo, c.hi = tk.Quantile(0), tk.Quantile(1)
			}
			d := NewRecalibrated(c.base, rc)
			g := func(y float64) float64 { return refMap(c.base.CDF(y)) }
			w := c.hi - c.lo
			// CDF and quantiles.
			for i := range 41 {
				y := c.lo - 0.1*w + 1.2*w*float64(i)/40
				if got, want := d.CDF(y), g(y); !(math.Abs(got-want) <= 1e-12) {
					t.Errorf("CDF(%v) = %v, want %v", y, got, want)
				}
			}
			qs := []float64{0.001, 0.02, 0.1, 0.25, 0.5, 0.6, 0.9, 0.97, 0.999}
			for i, y := range d.Quantiles(qs) {
				if got := g(y); !(math.Abs(got-qs[i]) <= 1e-7) {
					t.Errorf("CDF(Quantile(%v) = %v) = %v", qs[i], y, got)
				}
				if one := d.Quantile(qs[i]); one != y {
					t.Errorf("Quantile(%v) = %v, Quantiles gave %v", qs[i], one, y)
				}
			}
			if m := d.Median(); m != d.Quantile(0.5) {
				t.Errorf("median %v, quantile(0.5) %v", m, d.Quantile(0.5))
			}
			// The density: the CDF's derivative, integrating to 1.
			n := 20000
			h := w / float64(n)
			integral := 0.0
			ys := make([]float64, n)
			for i := range ys {
				ys[i] = c.lo + (float64(i)+0.5)*h
			}
			lps := d.LogPDFs(ys)
			for i, y := range ys {
				integral += math.Exp(lps[i]) * h
				if i%97 == 0 {
					e := 1e-4 * h
					f0, f1 := c.base.CDF(y-e), c.base.CDF(y+e)
					if rc.LogSlope(f0) != rc.LogSlope(f1) {
						continue // a knot inside
					}
					num := (g(y+e) - g(y-e)) / (2 * e)
					if got := math.Exp(lps[i]); !(math.Abs(got-num) <= 1e-5*max(1, num)) {
						t.Errorf("density at %v: %v, numeric %v", y, got, num)
					}
					if one := d.LogPDF(y); one != lps[i] && !(math.Abs(one-lps[i]) <= 1e-12) { // equal infinities agree
						t.Errorf("LogPDF(%v) = %v, LogPDFs gave %v", y, one, lps[i])
					}
				}
			}
			if !(math.Abs(integral-1) <= 2e-3) {
				t.Errorf("the density integrates to %v", integral)
			}
			// The mean: lo + ∫(1 - G) over the support.
			want := c.lo + gradcheck.Simpson(func(y float64) float64 { return 1 - g(y) }, c.lo, c.hi, 200000)
			mean, bound := d.MeanBound()
			if c.exact && (!(bound <= 1e-12) || !(math.Abs(mean-want) <= 1e-6*w)) {
				t.Errorf("mean %v (bound %v), numeric %v", mean, bound, want)
			}
			if !c.exact && !(math.Abs(mean-want) <= bound+1e-6*w) {
				t.Errorf("mean %v, bound %v, numeric %v", mean, bound, want)
			}
			if d.Mean() != mean {
				t.Errorf("Mean %v, MeanBound %v", d.Mean(), mean)
			}
			// The CRPS.
			for _, y := range []float64{c.lo - 0.3*w, c.lo + 0.27*w, c.lo + 0.5*w, c.lo + 0.81*w, c.hi + 0.2*w} {
				want := numericCRPS(g, c.lo, c.hi, y, 200000)
				got, b := CRPS(d, y)
				if !(math.Abs(got-want) <= b+1e-6*w) {
					t.Errorf("CRPS at %v: %v (bound %v), numeric %v", y, got, b, want)
				}
				if _, pruned := c.base.(*Token); c.exact && pruned && b != 0 {
					t.Errorf("CRPS bound %v, want 0", b)
				}
			}
			// Samples follow G.
			s := d.Sample(4000, SampleOptions{Temperature: 0.5}, rand.New(rand.NewPCG(1, 2)))
			for _, y := range d.Quantiles([]float64{0.1, 0.5, 0.9}) {
				below := 0
				for _, x := range s {
					if x <= y {
						below++
					}
				}
				if f := float64(below) / 4000; !(math.Abs(f-g(y)) <= 0.03) {
					t.Errorf("%v of the samples at or below %v, CDF %v", f, y, g(y))
				}
			}
			// The mode: no point of the grid is denser.
			lm := max(d.LogPDF(d.Mode()), d.LogPDF(d.Mode()-1e-9*w)) // a knot's supremum is from the left
			if name == "mdn" || name == "mixture-mdn" {
				for i, y := range ys {
					if !(lps[i] <= lm+1e-9) {
						t.Errorf("density %v at %v above the mode's %v at %v", lps[i], y, lm, d.Mode())
						break
					}
				}
			}
		})
	}
}

// The identity map changes nothing: the same CDF, quantiles, density and
// mean (and its bound) as the base; the zero Recalibration, documented as
// the identity, too (its Mean, Mode and CRPS panicked: review).
func TestRecalibratedIdentity(t *testing.T) {
	id, err := NewRecalibration([]float64{0, 0.5, 1}, []float64{0, 0.5, 1})
	if err != nil {
		t.Fatal(err)
	}
	tok := parseTok(t, treeSpecs[1])
	for name, base := range map[string]Distribution{
		"token-pruned": NewToken(newFake(t, tok.Size(), 5, 1.5), tok, testAff, TokenOptions{MeanTol: 0.02}),
		"mdn":          NewMDN([]float64{0.3, 0.7}, []float64{-0.4, 0.2}, []float64{0.1, 0.25}, Affine{Offset: 1, Scale: 2}),
	} {
		zero := NewRecalibrated(base, &Recalibration{})
		if m, bm := zero.Mean(), base.Mean(); !(math.Abs(m-bm) <= 1e-9*max(1, math.Abs(bm))) {
			t.Errorf("%s, zero map: mean %v, base %v", name, m, bm)
		}
		if m, bm := zero.Mode(), base.Mode(); !(math.Abs(m-bm) <= 1e-6*max(1, math.Abs(bm))) {
			t.Errorf("%s, zero map: mode %v, base %v", name, m, bm)
		}
		c, _ := CRPS(zero, 1.3)
		if bc, _ := CRPS(base, 1.3); !(math.Abs(c-bc) <= 1e-6*max(1, math.Abs(bc))) {
			t.Errorf("%s, zero map: CRPS %v, base %v", name, c, bc)
		}
		d := NewRecalibrated(base, id)
		m, b := d.MeanBound()
		var bm, bb float64
		if tk, ok := base.(*Token); ok {
			bm, bb = tk.MeanBound()
		} else {
			bm = base.Mean()
		}
		if !(math.Abs(m-bm) <= 1e-9*max(1, math.Abs(bm))) || !(math.Abs(b-bb) <= 1e-9*max(1, bb)) {
			t.Errorf("%s: mean %v ± %v, base %v ± %v", name, m, b, bm, bb)
		}
		for _, q := range []float64{0.1, 0.5, 0.77} {
			if d.Quantile(q) != base.Quantile(q) {
				t.Errorf("%s: quantile(%v) %v, base %v", name, q, d.Quantile(q), base.Quantile(q))
			}
		}
	}
}

func TestRecalibratedPoint(t *testing.T) {
	d := NewRecalibrated(NewPoint(2.5), testRecal(t))
	if d.Mean() != 2.5 || d.Median() != 2.5 || d.Quantile(0.9) != 2.5 {
		t.Errorf("point: mean %v, median %v", d.Mean(), d.Median())
	}
	if s, b := CRPS(d, 1); !math.IsNaN(s) || !math.IsNaN(b) {
		t.Errorf("point: CRPS %v, %v; want NaN", s, b)
	}
	// Exact, as the doc says for a Point base (the bound was +Inf).
	if m, b := d.MeanBound(); m != 2.5 || b != 0 {
		t.Errorf("point: MeanBound %v, %v; want 2.5, 0", m, b)
	}
}

// TestRecalibratedMeanExtremeMap: a map sending all but 1e-16 of the mass
// below the base's quantile at 1e-300, which rounds to the bottom of its
// support (so the base puts no mass in that segment): the mean is the
// recalibrated distribution's (at the bottom), not the base's that
// renormalising the segments' masses gave (review: predict's mean stayed
// the uncalibrated model's while every quantile was the bottom).
func TestRecalibratedMeanExtremeMap(t *testing.T) {
	rc, err := NewRecalibration([]float64{0, 1e-300, 1}, []float64{0, 1 - 1e-16, 1})
	if err != nil {
		t.Fatal(err)
	}
	base := NewRiemann([]float64{0.25, 0.25, 0.25, 0.25}, Affine{Offset: 89.5, Scale: 310.5}) // uniform on [89.5, 400]
	d := NewRecalibrated(base, rc)
	if q := d.Quantile(0.5); q != 89.5 {
		t.Fatalf("median %v, want 89.5", q)
	}
	if m := d.Mean(); !(math.Abs(m-89.5) < 0.01) {
		t.Errorf("mean %v, want 89.5 (the base's is %v)", m, base.Mean())
	}
}

// huge is 1<<bits, or math.MaxInt where int is too narrow for it (32-bit
// systems): a count far beyond any limit.
func huge(bits uint) int {
	if bits >= strconv.IntSize-1 {
		return math.MaxInt
	}
	return 1 << bits
}
