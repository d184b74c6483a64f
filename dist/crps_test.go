package dist

import (
	"decoreg/vocab"
	"math"
	"math/rand/v2"
	"testing"
)

// numericCRPS integrates (F(t) - 1{y <= t})² by the trapezoid rule on
// [lo, y] and [y, hi] (grids that meet at y, where the indicator jumps),
// with F(t) = 0 below lo and 1 above hi.
func numericCRPS(cdf func(float64) float64, lo, hi, y float64, n int) float64 {
	integrate := func(a, b float64, f func(float64) float64) float64 {
		if !(b > a) {
			return 0
		}
		h := (b - a) / float64(n)
		s := 0.5 * (f(a) + f(b))
		for i := 1; i < n; i++ {
			s += f(a + float64(i)*h)
		}
		return s * h
	}
	total := 0.0
	if y < lo {
		total += lo - y
	}
	if y > hi {
		total += y - hi
	}
	total += integrate(lo, min(y, hi), func(t float64) float64 { f := cdf(t); return f * f })
	total += integrate(max(y, lo), hi, func(t float64) float64 { f := 1 - cdf(t); return f * f })
	return total
}

func TestCRPSRiemannAndMDN(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	aff := Affine{Offset: -1, Scale: 4}
	probs := make([]float64, 37)
	for i := range probs {
		probs[i] = r.ExpFloat64()
	}
	probs[3] = 0
	rie := NewRiemann(probs, aff)
	mdn := NewMDN([]float64{0.2, 0.5, 0.3}, []float64{-0.3, 0.1, 0.4}, []float64{0.05, 0.2, 0.1}, aff)
	for _, y := range []float64{-6, -1, 0.3, 1.1, 2.9, 3, 9} {
		got, b := CRPS(rie, y)
		want := numericCRPS(rie.CDF, -1, 3, y, 200000)
		if b != 0 || !(math.Abs(got-want) <= 1e-6) {
			t.Errorf("riemann y=%v: CRPS %v (bound %v), numeric %v", y, got, b, want)
		}
		got, b = CRPS(mdn, y)
		want = numericCRPS(mdn.CDF, -12, 12, y, 400000)
		if b != 0 || !(math.Abs(got-want) <= 1e-6) {
			t.Errorf("mdn y=%v: CRPS %v, numeric %v", y, got, want)
		}
	}
	// One normal: the textbook closed form sigma (z(2Phi(z)-1) + 2phi(z) - 1/sqrt(pi)).
	n := NewMDN([]float64{1}, []float64{0.25}, []float64{0.5}, Affine{Offset: 0, Scale: 1})
	z := (1.0 - 0.25) / 0.5
	want := 0.5 * (z*math.Erf(z/math.Sqrt2) + 2*math.Exp(-z*z/2)/math.Sqrt(2*math.Pi) - 1/math.Sqrt(math.Pi))
	if got, _ := CRPS(n, 1); !(math.Abs(got-want) <= 1e-12) {
		t.Errorf("normal: %v, want %v", got, want)
	}
	if s, b := CRPS(NewPoint(2), 1); !math.IsNaN(s) || !math.IsNaN(b) {
		t.Errorf("point: %v %v, want NaN", s, b)
	}
}

// Token heads: with every prefix expanded the score is the integral of the
// exact CDF; with a threshold it is within the reported bound of it.
func TestCRPSToken(t *testing.T) {
	for _, spec := range treeSpecs {
		t.Run(spec, func(t *testing.T) {
			tok := parseTok(t, spec)
			f := newFake(t, tok.Size(), 21, 1.5)
			full := NewToken(f, tok, testAff, TokenOptions{MeanTol: -1})
			lo, hi := full.tree.Interval(nil)
			ylo, yhi := full.toY(lo), full.toY(hi)
			for _, y := range []float64{ylo - 1, ylo + 0.3*(yhi-ylo), 0.5 * (ylo + yhi), yhi - 0.01, yhi + 2} {
				want := numericCRPS(full.CDF, ylo, yhi, y, 20000)
				got, b := CRPS(full, y)
				if b != 0 || !(math.Abs(got-want) <= 1e-5*(yhi-ylo)) {
					t.Errorf("y=%v: CRPS %v (bound %v), numeric %v", y, got, b, want)
				}
				for _, tol := range []float64{1e-1, 1e-2} {
					pr := NewToken(f, tok, testAff, TokenOptions{MeanTol: tol})
					got, b := CRPS(pr, y)
					if !(b > 0) || !(math.Abs(got-want) <= b+1e-5*(yhi-ylo)) {
						t.Errorf("tol %v, y=%v: CRPS %v, bound %v, exact %v", tol, y, got, b, want)
					}
				}
			}
		})
	}
}

// A non-tree tokenization scores its draws: the CRPS of their empirical
// distribution, against the integral of that step CDF.
func TestCRPSTokenDraws(t *testing.T) {
	tok := parseTok(t, "hamming:length=4")
	f := newFake(t, tok.Size(), 3, 1)
	d := NewToken(f, tok, testAff, TokenOptions{Samples: 300})
	est := d.estimates()
	ecdf := func(y float64) float64 {
		tv := d.toT(y)
		n := 0
		for _, x := range est {
			if x <= tv {
				n++
			}
		}
		return float64(n) / float64(len(est))
	}
	lo, hi := d.toY(est[0]), d.toY(est[len(est)-1])
	for _, y := range []float64{lo - 1, 0.5 * (lo + hi), hi + 1} {
		got, b := CRPS(d, y)
		want := numericCRPS(ecdf, lo, hi, y, 200000)
		if !math.IsInf(b, 1) || !(math.Abs(got-want) <= 1e-3*(hi-lo)) {
			t.Errorf("y=%v: CRPS %v (bound %v), numeric %v", y, got, b, want)
		}
	}
}

// TestCRPSInfinite: at ±Inf every head with a distribution scores +Inf
// (a recalibrated MDN gave NaN).
func TestCRPSInfinite(t *testing.T) {
	aff := Affine{Offset: 1, Scale: 2}
	rc, err := NewRecalibration([]float64{0, 0.5, 1}, []float64{0, 0.3, 1})
	if err != nil {
		t.Fatal(err)
	}
	mdn := NewMDN([]float64{0.4, 0.6}, []float64{0.2, 0.7}, []float64{0.1, 0.05}, aff)
	rie := NewRiemann([]float64{1, 2, 3, 4}, aff)
	for _, d := range []Distribution{mdn, rie, NewRecalibrated(mdn, rc), NewRecalibrated(rie, rc), NewMixture([]Distribution{mdn, rie})} {
		for _, y := range []float64{math.Inf(1), math.Inf(-1)} {
			if s, _ := CRPS(d, y); !math.IsInf(s, 1) {
				t.Errorf("%T: CRPS at %v = %v, want +Inf", d, y, s)
			}
		}
	}
}

// The MDN's CRPS far from unit scale: its pairs' variances overflowed
// (sds of 1e155) or underflowed (1e-200) to NaN. The CRPS scales with the
// distribution, so each is checked against the unit-scale mixture's
// numerical integral times the scale. The zero MDN's Quantile (which
// looped for ever) and Mode are NaN, and components whose brackets would
// overflow are refused.
func TestCRPSMDNExtremeScales(t *testing.T) {
	unit := NewMDN([]float64{1, 2}, []float64{-1, 1.5}, []float64{0.7, 1.3}, Affine{Scale: 1})
	for _, k := range []float64{1e155, 1e-200, 0x1p-1000, 0x1p+900} {
		for _, y := range []float64{0, 1, -3} {
			d := NewMDN([]float64{1, 2}, []float64{-k, 1.5 * k}, []float64{0.7 * k, 1.3 * k}, Affine{Scale: 1})
			got, _ := CRPS(d, y*k)
			want := k * numericCRPS(unit.CDF, -15, 15, y, 200000)
			if !(math.Abs(got-want) <= 1e-6*want) {
				t.Errorf("scale %g, y %g: CRPS %v, want %v", k, y*k, got, want)
			}
		}
	}
	var z MDN
	if !math.IsNaN(z.Quantile(0.5)) || !math.IsNaN(z.Mode()) {
		t.Error("zero MDN: Quantile or Mode not NaN")
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("NewMDN accepted means of ±1e308")
		}
	}()
	NewMDN([]float64{1, 1}, []float64{-1e308, 1e308}, []float64{1, 1}, Affine{Scale: 1})
}

// TestCRPSFarTarget: a target so far beyond the cells that its t = (y -
// Offset)/Scale overflows (a scale below 1, y near float64's largest)
// scores finitely, as the CRPS at a nearer far target plus the distance
// between them (the integrand is 1 beyond the cells); it was +Inf for the
// Riemann head and the tree-tokenized decoder (helper-138).
func TestCRPSFarTarget(t *testing.T) {
	aff := Affine{Offset: 2, Scale: 0.5}
	p := make([]float64, 8)
	for i := range p {
		p[i] = float64(i+1) / 36
	}
	tok, err := vocab.NewNormalized(4, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []Distribution{NewRiemann(p, aff), NewToken(newFake(t, tok.Size(), 3, 1), tok, aff, TokenOptions{})} {
		for _, c := range []struct{ far, near float64 }{
			{math.MaxFloat64, 1e307},
			{1e308, 1e307},
			{-math.MaxFloat64, -1e307},
		} {
			sf, _ := CRPS(d, c.far)
			sn, _ := CRPS(d, c.near)
			want := sn + math.Abs(c.far-c.near)
			if math.IsInf(sf, 0) || math.IsNaN(sf) || math.Abs(sf-want) > 1e-15*want {
				t.Errorf("%T: CRPS at %v = %v, want %v (at %v: %v)", d, c.far, sf, want, c.near, sn)
			}
		}
	}
}
