package synth

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"decoreg/internal/gradcheck"
)

// tnParams are (mean, std) pairs that reach every branch: the paper's
// N(0.5, 0.25²), narrow ones, means below, above and far below [0, 1]
// (Z = 3.7e-51), and stds of 1 and more, where f is nearly uniform.
var tnParams = [][2]float64{
	{0.5, 0.25}, {0.2, 0.1}, {0.9, 0.05}, {-0.3, 0.5}, {1.7, 0.3}, {-3, 0.2}, {0.5, 3}, {0.3, 100},
}

// tnRef is an independent rendering of f and its derivatives for tests:
// Z is the Simpson integral of the normal density over [0, 1].
type tnRef struct{ mu, sd, z float64 }

func newTNRef(mu, sd float64) tnRef {
	phi := func(y float64) float64 { return math.Exp(normLogPDF(y, mu, sd)) }
	return tnRef{mu, sd, gradcheck.Simpson(phi, 0, 1, 200000)}
}

func (r tnRef) f(y float64) float64 { return math.Exp(normLogPDF(y, r.mu, r.sd)) / r.z }

// d1 and d2 are the first and second derivatives of f: -s/σ f and
// (s²-1)/σ² f, s = (y-μ)/σ.
func (r tnRef) d1(y float64) float64 { return -(y - r.mu) / (r.sd * r.sd) * r.f(y) }
func (r tnRef) d2(y float64) float64 {
	s := (y - r.mu) / r.sd
	return (s*s - 1) / (r.sd * r.sd) * r.f(y)
}

func mustTN(t *testing.T, mu, sd float64) TruncNorm {
	t.Helper()
	tn, err := NewTruncNorm(mu, sd)
	if err != nil {
		t.Fatal(err)
	}
	return tn
}

func relErr(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

func TestNewTruncNorm(t *testing.T) {
	for _, c := range [][2]float64{
		{math.NaN(), 0.1}, {math.Inf(1), 0.1}, {math.Inf(-1), 0.1},
		{0.5, 0}, {0.5, -1}, {0.5, math.NaN()}, {0.5, math.Inf(1)},
		{-40, 1}, {1e6, 0.25}, // no representable mass on [0, 1]
		{-38, 1}, {39, 1}, // a subnormal mass: every draw was 0 or 1
	} {
		if _, err := NewTruncNorm(c[0], c[1]); err == nil {
			t.Errorf("NewTruncNorm(%v, %v) accepted", c[0], c[1])
		}
	}
	for _, c := range tnParams {
		if tn, err := NewTruncNorm(c[0], c[1]); err != nil || tn != (TruncNorm{c[0], c[1]}) {
			t.Errorf("NewTruncNorm(%v, %v) = %v, %v", c[0], c[1], tn, err)
		}
	}
	// 37 stds below: accepted, and near 0 the density is the tail's,
	// about 37 exp(-37 y) (the exponential limit of the normal's tail):
	// draws spread over (0, 0.2), not at 0.
	tn := mustTN(t, -37, 1)
	ys := tn.Sample(1000, 1)
	mean := 0.0
	for _, y := range ys {
		mean += y / 1000
	}
	if !(mean > 0.02 && mean < 0.035) {
		t.Errorf("N(-37, 1) on [0, 1]: mean of 1000 draws %v, want about 1/37", mean)
	}
	if l, want := tn.LogPDF(0.01), math.Log(37)-0.37-0.01*0.01/2; math.Abs(l-want) > 0.01 {
		t.Errorf("N(-37, 1) on [0, 1]: LogPDF(0.01) = %v, want about %v", l, want)
	}
}

// TestTruncNormValues checks N(0.5, 0.25²) on [0, 1] against mpmath (30
// digits) and the ends.
func TestTruncNormValues(t *testing.T) {
	tn := mustTN(t, 0.5, 0.25)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"PDF(0.3)", tn.PDF(0.3), 1.214003699755983677},
		{"PDF(0.5)", tn.PDF(0.5), 1 / math.Sqrt(2*math.Pi) / 0.25 / 0.9544997361036415856},
		{"IntSquare", tn.IntSquare(), 1.2327276951638960757},
		{"IntDerivSquare", tn.IntDerivSquare(), 9.4522775795568648091},
		{"CDF(0.5)", tn.CDF(0.5), 0.5},
		// RiskTheory(5, 16384) = 2^-10/12 ∫f'² + 32/16384
		{"RiskTheory(5, 16384)", tn.RiskTheory(5, 16384), 9.4522775795568648091/12/1024 + 1.0/512},
	} {
		if !(relErr(c.got, c.want) <= 1e-14) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	for _, y := range []float64{-1e-300, -1, 1 + 1e-15, 5, math.Inf(1), math.Inf(-1)} {
		if tn.PDF(y) != 0 || !math.IsInf(tn.LogPDF(y), -1) {
			t.Errorf("PDF(%v) = %v, LogPDF = %v; want 0 and -Inf", y, tn.PDF(y), tn.LogPDF(y))
		}
	}
	if c := [...]float64{tn.CDF(-1), tn.CDF(0), tn.CDF(1), tn.CDF(3), tn.Mass(-5, 5), tn.Mass(0.6, 0.4), tn.Mass(2, 3)}; c != [...]float64{0, 0, 1, 1, 1, 0, 0} {
		t.Errorf("CDF(-1, 0, 1, 3), Mass(-5, 5), Mass(0.6, 0.4), Mass(2, 3) = %v", c)
	}
	if !math.IsNaN(tn.PDF(math.NaN())) || !math.IsNaN(tn.CDF(math.NaN())) || !math.IsNaN(tn.Mass(0, math.NaN())) {
		t.Error("NaN in, not NaN out")
	}
	// The paper's Figure: with n = 16384 draws the best k is about 5.
	best := 0
	for k := range 16 {
		if tn.RiskTheory(k, 16384) < tn.RiskTheory(best, 16384) {
			best = k
		}
	}
	if best != 5 {
		t.Errorf("argmin_k RiskTheory(k, 16384) = %d, want 5", best)
	}
}

// TestTruncNormIntegrals checks the density, CDF, Mass and the closed forms
// IntSquare and IntDerivSquare against Simpson integrals of an independent
// rendering of f.
func TestTruncNormIntegrals(t *testing.T) {
	const n = 200000
	for _, c := range tnParams {
		tn, ref := mustTN(t, c[0], c[1]), newTNRef(c[0], c[1])
		if e := relErr(tn.z(), ref.z); !(e <= 1e-12) {
			t.Errorf("%v: Z = %v, integral %v", c, tn.z(), ref.z)
		}
		for _, y := range []float64{0, 0.01, 0.3, 0.5, 0.99, 1} {
			if e := relErr(tn.PDF(y), ref.f(y)); !(e <= 1e-12) {
				t.Errorf("%v: PDF(%v) = %v, want %v", c, y, tn.PDF(y), ref.f(y))
			}
		}
		if mass := gradcheck.Simpson(tn.PDF, 0, 1, 20000); !(math.Abs(mass-1) <= 1e-11) {
			t.Errorf("%v: PDF integrates to %v", c, mass)
		}
		for _, y := range []float64{1e-3, 0.1, 0.25, 0.5, 0.8, 0.999} {
			want := gradcheck.Simpson(ref.f, 0, y, 20000)
			if e := relErr(tn.CDF(y), want); !(e <= 1e-11) {
				t.Errorf("%v: CDF(%v) = %v, integral %v", c, y, tn.CDF(y), want)
			}
			if y >= 0.5 {
				continue
			}
			want = gradcheck.Simpson(ref.f, y, y+0.3, 20000)
			if e := relErr(tn.Mass(y, y+0.3), want); !(e <= 1e-11) {
				t.Errorf("%v: Mass(%v, %v) = %v, integral %v", c, y, y+0.3, tn.Mass(y, y+0.3), want)
			}
		}
		sq := gradcheck.Simpson(func(y float64) float64 { f := ref.f(y); return f * f }, 0, 1, n)
		dsq := gradcheck.Simpson(func(y float64) float64 { d := ref.d1(y); return d * d }, 0, 1, n)
		if e := relErr(tn.IntSquare(), sq); !(e <= 1e-11) {
			t.Errorf("%v: IntSquare %v, integral %v (rel. error %.1e)", c, tn.IntSquare(), sq, e)
		}
		if e := relErr(tn.IntDerivSquare(), dsq); !(e <= 1e-11) {
			t.Errorf("%v: IntDerivSquare %v, integral %v (rel. error %.1e)", c, tn.IntDerivSquare(), dsq, e)
		}
	}
}

// TestTruncNormMassTiny checks Mass over intervals down to 1e-13 wide, where
// a difference of CDFs would keep few digits, against Simpson's rule on
// the interval itself, and Mass's additivity.
func TestTruncNormMassTiny(t *testing.T) {
	for _, c := range tnParams {
		tn := mustTN(t, c[0], c[1])
		for _, y := range []float64{0, 0.1, 0.5, 0.77, 1 - 1e-6} {
			for _, h := range []float64{1e-6, 1e-9, 1e-13} {
				b := y + h
				h := b - y // exact, unlike the h asked for
				want := h / 6 * (tn.PDF(y) + 4*tn.PDF(y+h/2) + tn.PDF(b))
				if e := relErr(tn.Mass(y, b), want); !(e <= 1e-13) {
					t.Errorf("%v: Mass(%v, %v) = %v, want %v (rel. error %.1e)", c, y, b, tn.Mass(y, b), want, e)
				}
			}
		}
		for _, abc := range [][3]float64{{0, 0.3, 1}, {0.1, 0.1 + 1e-7, 0.4}, {0.5, 0.50001, 0.50002}, {0, 1e-3, 2e-3}} {
			a, b, cc := abc[0], abc[1], abc[2]
			if e := relErr(tn.Mass(a, b)+tn.Mass(b, cc), tn.Mass(a, cc)); !(e <= 1e-13) {
				t.Errorf("%v: Mass(%v, %v) + Mass(%v, %v) != Mass(%v, %v) (rel. error %.1e)", c, a, b, b, cc, a, cc, e)
			}
		}
	}
}

// cellMasses returns the exact masses of the 2^k equal cells.
func cellMasses(tn TruncNorm, k int) []float64 {
	n := 1 << k
	p := make([]float64, n)
	for j := range p {
		p[j] = tn.Mass(float64(j)/float64(n), float64(j+1)/float64(n))
	}
	return p
}

// numericMISE integrates (f - f̂)² over [0, 1] by Simpson's rule within each
// cell of the histogram p (2^15 intervals in all).
func numericMISE(ref tnRef, p []float64) float64 {
	n := len(p)
	s := 0.0
	for j, pj := range p {
		g := func(y float64) float64 { d := ref.f(y) - float64(n)*pj; return d * d }
		s += gradcheck.Simpson(g, float64(j)/float64(n), float64(j+1)/float64(n), (1<<15)/n)
	}
	return s
}

// TestTruncNormMISE checks MISE against a numerical integral for a random
// histogram and for the exact cell masses.
func TestTruncNormMISE(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range tnParams {
		tn, ref := mustTN(t, c[0], c[1]), newTNRef(c[0], c[1])
		for _, k := range []int{0, 3, 6} {
			p := make([]float64, 1<<k)
			s := 0.0
			for j := range p {
				p[j] = r.ExpFloat64()
				s += p[j]
			}
			for j := range p {
				p[j] /= s
			}
			if got, want := tn.MISE(p), numericMISE(ref, p); !(relErr(got, want) <= 1e-10) {
				t.Errorf("%v k=%d: MISE of a random histogram %v, integral %v", c, k, got, want)
			}
			m := cellMasses(tn, k)
			if got, want := tn.MISE(m), numericMISE(ref, m); !(relErr(got, want) <= 1e-10) {
				t.Errorf("%v k=%d: MISE of the cell masses %v, integral %v (rel. error %.1e)", c, k, got, want, relErr(got, want))
			}
		}
	}
}

// TestTruncNormBias checks the theorem's bias term: the MISE of the exact
// cell masses at k bits is 2^(-2k)/12 ∫f'² + C ε⁴ + O(ε⁶), ε = 2^-k. The
// ε⁴ coefficient, from Taylor expansion within each cell and the midpoint
// rule's error, is C = -([f' f2]_0^1 + ∫f2²)/360, f2 the second derivative, computed by
// Simpson. Then MISE decreases with k.
func TestTruncNormBias(t *testing.T) {
	for _, c := range [][2]float64{{0.5, 0.25}, {0.2, 0.1}, {-0.3, 0.5}, {1.7, 0.3}, {0.5, 3}} {
		tn, ref := mustTN(t, c[0], c[1]), newTNRef(c[0], c[1])
		d2sq := gradcheck.Simpson(func(y float64) float64 { d := ref.d2(y); return d * d }, 0, 1, 200000)
		c4 := -(ref.d1(1)*ref.d2(1) - ref.d1(0)*ref.d2(0) + d2sq) / 360
		ids := tn.IntDerivSquare()
		for k := 6; k <= 10; k++ {
			eps := math.Ldexp(1, -k)
			bias := eps * eps / 12 * ids
			got := tn.MISE(cellMasses(tn, k))
			if !(relErr(got, bias) <= 0.01) {
				t.Errorf("%v k=%d: MISE %v, bias term %v", c, k, got, bias)
			}
			// The rest is C ε⁴ to within a relative O(ε²).
			rest := (got - bias) / (eps * eps * eps * eps)
			if !(math.Abs(rest-c4) <= 0.005*math.Abs(c4)) {
				t.Errorf("%v k=%d: (MISE - bias)/ε⁴ = %v, want %v", c, k, rest, c4)
			}
			if k == 10 {
				t.Logf("%v: bias term at k=10 %.6e, MISE %.6e, (MISE-bias)/ε⁴ %.4f, C %.4f", c, bias, got, rest, c4)
			}
		}
		// Strictly from k = 2: for f symmetric about ½ the histograms at
		// k = 0 and 1 are the same.
		prev := math.Inf(1)
		for k := 0; k <= 12; k++ {
			m := tn.MISE(cellMasses(tn, k))
			if !(m < prev || k == 1 && m <= prev*(1+1e-12)) || !(m > 0) {
				t.Errorf("%v: MISE at k=%d %v, at k-1 %v", c, k, m, prev)
			}
			prev = m
		}
	}
}

// TestTruncNormSample checks Sample's draws lie in [0, 1] and follow CDF
// (Kolmogorov-Smirnov), that the quantile function inverts CDF, and that
// Sample depends only on its seed.
func TestTruncNormSample(t *testing.T) {
	const n = 20000
	for _, c := range tnParams {
		tn := mustTN(t, c[0], c[1])
		ys := tn.Sample(n, 3)
		for _, y := range ys {
			if !(y >= 0 && y <= 1) {
				t.Fatalf("%v: sample %v outside [0, 1]", c, y)
			}
		}
		if ys2, ys3 := tn.Sample(n, 3), tn.Sample(n, 4); !slices.Equal(ys, ys2) || slices.Equal(ys, ys3) {
			t.Errorf("%v: Sample is not a function of the seed", c)
		}
		slices.Sort(ys)
		ks := 0.0
		for i, y := range ys {
			cdf := tn.CDF(y)
			ks = math.Max(ks, math.Max(math.Abs(cdf-float64(i)/n), math.Abs(cdf-float64(i+1)/n)))
		}
		if !(ks <= 1.95/math.Sqrt(n)) { // alpha = 0.001
			t.Errorf("%v: Kolmogorov-Smirnov statistic %v", c, ks)
		}
		q := tn.quantiler()
		for _, u := range []float64{0, 1e-12, 1e-6, 0.01, 0.3, 0.5, 0.7, 0.99, 1 - 1e-9, 1} {
			if got := tn.CDF(q(u)); !(math.Abs(got-u) <= 1e-12) {
				t.Errorf("%v: CDF(quantile(%v)) = %v", c, u, got)
			}
		}
	}
}

// TestNormUpperQuantile checks Q(z(q)) = q, relative, deep into the tail.
func TestNormUpperQuantile(t *testing.T) {
	for _, q := range []float64{1e-300, 1e-100, 1e-20, 1e-9, 1e-8, 2e-8, 1e-3, 0.1, 0.3, 0.5} {
		z := normUpperQuantile(q)
		if e := relErr(normUpper(z), q); !(e <= 1e-13) {
			t.Errorf("Q(quantile(%v)) = %v (rel. error %.1e)", q, normUpper(z), e)
		}
		if m := normUpperQuantile(1 - q); q >= 1e-3 && !(math.Abs(m+z) <= 1e-13) {
			t.Errorf("quantile(1-%v) = %v, quantile(%v) = %v", q, m, q, z)
		}
	}
	if !math.IsInf(normUpperQuantile(0), 1) || !math.IsInf(normUpperQuantile(1), -1) || !math.IsNaN(normUpperQuantile(math.NaN())) {
		t.Error("quantile at 0, 1 or NaN")
	}
}

// TestGaussLegendre checks the 20-point rule integrates polynomials of
// degree up to 39 exactly.
func TestGaussLegendre(t *testing.T) {
	if !slices.IsSorted(gl20X) || gl20X[0] <= -1 || gl20X[19] >= 1 {
		t.Errorf("nodes %v", gl20X)
	}
	for _, deg := range []int{0, 1, 2, 10, 37, 38, 39} {
		s := 0.0
		for i, x := range gl20X {
			s += gl20W[i] * math.Pow(x, float64(deg))
		}
		want := 0.0
		if deg%2 == 0 {
			want = 2 / float64(deg+1)
		}
		if !(math.Abs(s-want) <= 1e-15) {
			t.Errorf("∫x^%d = %v, want %v", deg, s, want)
		}
	}
}

func TestTruncNormPanics(t *testing.T) {
	tn := mustTN(t, 0.5, 0.25)
	for name, f := range map[string]func(){
		"MISE(nil)":         func() { tn.MISE(nil) },
		"RiskTheory(-1, 1)": func() { tn.RiskTheory(-1, 1) },
		"RiskTheory(3, 0)":  func() { tn.RiskTheory(3, 0) },
		"Sample(-1)":        func() { tn.Sample(-1, 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}
