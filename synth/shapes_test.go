package synth

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRegIncBeta checks I_x(a, b) against values from mpmath's betainc
// (30 digits) and against closed forms.
func TestRegIncBeta(t *testing.T) {
	// The prefactor x^a (1-x)^b / B(a, b) comes from log-gamma values of
	// size about (a+b) log(a+b), whose rounding sets the tolerance.
	for _, tc := range []struct{ a, b, x, want, tol float64 }{
		{1.25, 0.5, 0.3, 0.11171925939233850346, 1e-14},
		{1.25, 0.5, 0.9, 0.64127717552729500295, 1e-14},
		{1.25, 0.5, 1e-06, 1.4472352981281621364e-8, 1e-14},
		{0.5, 1.25, 0.2, 0.50272724988789385137, 1e-14},
		{2.5, 3.5, 0.4, 0.4869041915261173978, 1e-14},
		{10, 20, 0.3, 0.36400408107194422775, 1e-13},
		{0.1, 0.2, 0.5, 0.67057079610289901353, 1e-14},
		{50, 60, 0.45, 0.46423529143060362867, 1e-12},
		{3, 0.5, 0.999, 0.94074681048405374036, 1e-14},
	} {
		if got := regIncBeta(tc.a, tc.b, tc.x, 1-tc.x); !(math.Abs(got-tc.want) <= tc.tol*tc.want) {
			t.Errorf("I_%v(%v, %v) = %v, want %v", tc.x, tc.a, tc.b, got, tc.want)
		}
	}
	// I_x(½, ½) = 2/π asin(sqrt(x)) = 1 - 2/π asin(sqrt(1-x)), each form
	// on the side where it does not cancel.
	arcsine := func(x, y float64) float64 {
		if x < 0.5 {
			return 2 / math.Pi * math.Asin(math.Sqrt(x))
		}
		return 1 - 2/math.Pi*math.Asin(math.Sqrt(y))
	}
	for _, x := range []float64{1e-300, 1e-9, 0.01, 0.3, 0.5, 0.77, 0.999, 1 - 1e-12} {
		y := 1 - x // exact
		closed := []struct {
			a, b, want float64
		}{
			{1, 1, x},
			{2.5, 1, math.Pow(x, 2.5)},
			{1, 3.5, -math.Expm1(3.5 * math.Log1p(-x))},
			{0.5, 0.5, arcsine(x, y)},
			// I_x(2, 3) = Σ_{j=2}^{4} C(4, j) x^j (1-x)^(4-j)
			{2, 3, 6*x*x*(1-x)*(1-x) + 4*x*x*x*(1-x) + x*x*x*x},
		}
		for _, c := range closed {
			if got := regIncBeta(c.a, c.b, x, y); !(math.Abs(got-c.want) <= 1e-14*c.want+1e-300) {
				t.Errorf("I_%v(%v, %v) = %v, want %v", x, c.a, c.b, got, c.want)
			}
		}
	}
	if regIncBeta(2, 3, 0, 1) != 0 || regIncBeta(2, 3, 1, 0) != 1 || !math.IsNaN(regIncBeta(2, 3, math.NaN(), 0.5)) {
		t.Error("regIncBeta at the ends or NaN")
	}
}

// TestStudentTCDF checks the Student-t CDF against closed forms for ν = 1,
// 2, 3 and against mpmath for ν = 2.5, and the log-density against
// Γ-function values.
func TestStudentTCDF(t *testing.T) {
	zs := []float64{-1e6, -40, -3, -1, -0.1, -1e-9, 0, 1e-9, 0.5, 2, 30, 1e8}
	for _, z := range zs {
		for _, c := range []struct {
			nu, want float64
		}{
			{1, 0.5 + math.Atan(z)/math.Pi},
			{2, 0.5 + z/(2*math.Sqrt(2+z*z))},
			{3, 0.5 + (z/(math.Sqrt(3)*(1+z*z/3))+math.Atan(z/math.Sqrt(3)))/math.Pi},
		} {
			// Absolute: the closed forms cancel in the lower tail.
			if got := studentTCDF(z, c.nu); !(math.Abs(got-c.want) <= 1e-14) {
				t.Errorf("ν=%v: CDF(%v) = %v, want %v", c.nu, z, got, c.want)
			}
		}
	}
	// Lower tails against the upper ones, relative: the CDF is symmetric.
	for _, z := range zs {
		lo, hi := studentTCDF(-math.Abs(z), 2.5), 1-studentTCDF(math.Abs(z), 2.5)
		if !(math.Abs(lo-hi) <= 1e-15) {
			t.Errorf("CDF(-%v) = %v, 1 - CDF(%v) = %v", math.Abs(z), lo, math.Abs(z), hi)
		}
	}
	for _, tc := range []struct{ z, want float64 }{ // mpmath, 30 digits
		{-1000, 2.2747463948307451869e-8},
		{-30, 0.00014553235457869771315},
		{-3, 0.036288047774515921947},
		{-1, 0.20203051363913673318},
		{-0.1, 0.46390327203124478798},
		{0, 0.5},
		{0.5, 0.67115104006514265533},
		{2, 0.92130425212101700669},
		{10, 0.99777925211634628761},
		{1e6, 0.99999999999999928066},
	} {
		if got := studentTCDF(tc.z, 2.5); !(math.Abs(got-tc.want) <= 1e-14*tc.want) {
			t.Errorf("ν=2.5: CDF(%v) = %v, want %v", tc.z, got, tc.want)
		}
	}
	if studentTCDF(math.Inf(-1), 2.5) != 0 || studentTCDF(math.Inf(1), 2.5) != 1 || !math.IsNaN(studentTCDF(math.NaN(), 2.5)) {
		t.Error("CDF at ±Inf or NaN")
	}
	// ν = 1 is the Cauchy density 1/(π(1+z²)); ν = 2: (2+z²)^(-3/2).
	for _, z := range []float64{0, 0.3, -2, 50} {
		if got, want := math.Exp(studentTLogPDF(z, 1)), 1/(math.Pi*(1+z*z)); !(math.Abs(got-want) <= 1e-14*want) {
			t.Errorf("ν=1: pdf(%v) = %v, want %v", z, got, want)
		}
		if got, want := math.Exp(studentTLogPDF(z, 2)), math.Pow(2+z*z, -1.5); !(math.Abs(got-want) <= 1e-14*want) {
			t.Errorf("ν=2: pdf(%v) = %v, want %v", z, got, want)
		}
	}
}

// shapeCumulative integrates g over the real line after the change of
// variable y = m + s sinh(u), u in [-umax, umax], which makes power-law
// tails decay exponentially: composite Simpson with n (even) intervals,
// returning the y of every second node, ys[k] = y(u_2k), and the integral
// up to it, cum[k]; cum[n/2] is the whole integral.
func shapeCumulative(g func(y float64) float64, m, s, umax float64, n int) (ys, cum []float64) {
	h := 2 * umax / float64(n)
	f := func(i int) float64 {
		u := -umax + float64(i)*h
		return g(m+s*math.Sinh(u)) * s * math.Cosh(u)
	}
	ys = []float64{m + s*math.Sinh(-umax)}
	cum = []float64{0}
	f0, acc := f(0), 0.0
	for i := 0; i < n; i += 2 {
		f1, f2 := f(i+1), f(i+2)
		acc += h / 3 * (f0 + 4*f1 + f2)
		ys = append(ys, m+s*math.Sinh(-umax+float64(i+2)*h))
		cum = append(cum, acc)
		f0 = f2
	}
	return ys, cum
}

// shapeProblems returns the two problems of shapes.go with d = 1 and 3,
// with the sinh scale and range that shapeIntegral needs for each.
func shapeProblems() []struct {
	p       Problem
	s, umax float64
	n       int
} {
	type ps = struct {
		p       Problem
		s, umax float64
		n       int
	}
	var out []ps
	for _, d := range []int{1, 3} {
		// studentt: at u = 40, y ≈ 0.1 e^40, the tail mass beyond is 1e-40.
		out = append(out, ps{NewStudentT(d), studentTScale, 40, 16000})
		// modes: the components lie within ±1.3; at u = 4, y ≈ ±27.
		out = append(out, ps{NewModes(d), 1, 4, 16000})
	}
	return out
}

// TestShapesDensity checks each density integrates to 1, its CDF is the
// integral of the density and runs monotonically from 0 to 1, and its Mean
// is the integral of y p(y|x).
func TestShapesDensity(t *testing.T) {
	for _, sp := range shapeProblems() {
		p := sp.p
		for _, x := range testPoints(p) {
			m := p.Mean(x)
			pdf := func(y float64) float64 { return math.Exp(p.LogPDF(x, y)) }
			ys, cum := shapeCumulative(pdf, m, sp.s, sp.umax, sp.n)
			if mass := cum[len(cum)-1]; !(math.Abs(mass-1) <= 1e-10) {
				t.Errorf("%s d=%d x=%v: density integrates to %v", p.Name(), p.Dim(), x, mass)
			}
			_, mcum := shapeCumulative(func(y float64) float64 { return y * pdf(y) }, m, sp.s, sp.umax, sp.n)
			if mean := mcum[len(mcum)-1]; !(math.Abs(mean-m) <= 1e-9) {
				t.Errorf("%s d=%d x=%v: Mean %v, integral %v", p.Name(), p.Dim(), x, m, mean)
			}
			for k := 0; k < len(ys); k += 97 {
				if got := p.CDF(x, ys[k]); !(math.Abs(got-cum[k]) <= 1e-10) {
					t.Errorf("%s d=%d x=%v: CDF(%v) = %v, integral %v", p.Name(), p.Dim(), x, ys[k], got, cum[k])
				}
			}
			prev := 0.0
			for y := -10.0; y <= 10; y += 0.01 {
				c := p.CDF(x, y)
				if c < prev || c > 1 {
					t.Fatalf("%s x=%v: CDF(%v) = %v after %v", p.Name(), x, y, c, prev)
				}
				prev = c
			}
			if lo, hi := p.CDF(x, math.Inf(-1)), p.CDF(x, math.Inf(1)); lo != 0 || hi != 1 {
				t.Errorf("%s x=%v: CDF(-Inf) = %v, CDF(Inf) = %v", p.Name(), x, lo, hi)
			}
			if lo, hi := p.CDF(x, -1e12), p.CDF(x, 1e12); !(lo <= 1e-20) || !(hi >= 1-1e-15) {
				t.Errorf("%s x=%v: CDF(-1e12) = %v, CDF(1e12) = %v", p.Name(), x, lo, hi)
			}
		}
	}
}

// TestShapesLogPDFValues checks the densities at a few points against
// hand-written formulas.
func TestShapesLogPDFValues(t *testing.T) {
	phi := func(z float64) float64 { return math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) }
	// ν = 2.5: Γ(1.75)/(Γ(1.25) sqrt(2.5π)) (1 + z²/2.5)^-1.75.
	g175, _ := math.Lgamma(1.75)
	g125, _ := math.Lgamma(1.25)
	c := math.Exp(g175-g125) / math.Sqrt(2.5*math.Pi)
	tpdf := func(z float64) float64 { return c * math.Pow(1+z*z/2.5, -1.75) / 0.2 }
	sig := func(z float64) float64 { return 1 / (1 + math.Exp(-z)) }
	// modes at t: weights ∝ (1, σ(30(t+⅓)), σ(30(t-⅓))), means -1+0.2t, 0.2t, 1+0.2t.
	modes := func(tt, y float64) float64 {
		a := []float64{1, sig(30 * (tt + 1.0/3)), sig(30 * (tt - 1.0/3))}
		s := a[0] + a[1] + a[2]
		return (a[0]*phi((y+1-0.2*tt)/0.12)/0.12 + a[1]*phi((y-0.2*tt)/0.10)/0.10 + a[2]*phi((y-1-0.2*tt)/0.08)/0.08) / s
	}
	tests := []struct {
		p    Problem
		x    []float64
		y    float64
		want float64
	}{
		{NewStudentT(1), []float64{0}, 0, tpdf(0)},
		{NewStudentT(1), []float64{1}, 0.5, tpdf(0)},
		{NewStudentT(1), []float64{-1}, 3, tpdf(3.5 / 0.2)},
		{NewStudentT(2), []float64{0.4, -0.2}, 100, tpdf((100 - 0.05) / 0.2)},
		{NewModes(1), []float64{0}, 0, modes(0, 0)},
		{NewModes(1), []float64{-0.9}, -1.2, modes(-0.9, -1.2)},
		{NewModes(1), []float64{0.7}, 1.1, modes(0.7, 1.1)},
		{NewModes(2), []float64{0.9, -0.3}, 0.2, modes(0.3, 0.2)},
		{NewModes(1), []float64{1}, 40, 0},
	}
	for _, tc := range tests {
		got := math.Exp(tc.p.LogPDF(tc.x, tc.y))
		if !(math.Abs(got-tc.want) <= 1e-13*tc.want) {
			t.Errorf("%s x=%v: pdf(%v) = %v, want %v", tc.p.Name(), tc.x, tc.y, got, tc.want)
		}
	}
}

// TestModesCount counts the local maxima of the "modes" density on a fine
// grid that reach 5% of the highest (a switched-off component keeps a
// bump of relative height below 3%): one for t < -⅓, two in the middle,
// three for t > ⅓.
func TestModesCount(t *testing.T) {
	p := NewModes(1)
	for _, tc := range []struct {
		t    float64
		want int
	}{{-1, 1}, {-0.6, 1}, {-0.2, 2}, {0, 2}, {0.2, 2}, {0.6, 3}, {1, 3}} {
		x := []float64{tc.t}
		var f []float64
		for y := -3.0; y <= 3; y += 0.001 {
			f = append(f, math.Exp(p.LogPDF(x, y)))
		}
		top := slices.Max(f)
		count := 0
		for i := 1; i+1 < len(f); i++ {
			if f[i] > f[i-1] && f[i] > f[i+1] && f[i] > 0.05*top {
				count++
			}
		}
		if count != tc.want {
			t.Errorf("t=%v: %d modes, want %d", tc.t, count, tc.want)
		}
	}
}

// TestShapesSample checks Sample1's draws against CDF by the
// Kolmogorov-Smirnov statistic, and Sample's determinism and registration.
func TestShapesSample(t *testing.T) {
	const n = 20000
	r := rand.New(rand.NewPCG(3, 4))
	ys := make([]float64, n)
	for _, sp := range shapeProblems() {
		p := sp.p
		for i, x := range testPoints(p) {
			if i%2 == 1 {
				continue
			}
			for i := range ys {
				ys[i] = p.Sample1(x, r)
			}
			slices.Sort(ys)
			ks := 0.0
			for i, y := range ys {
				c := p.CDF(x, y)
				ks = math.Max(ks, math.Max(math.Abs(c-float64(i)/n), math.Abs(c-float64(i+1)/n)))
			}
			if !(ks <= 1.95/math.Sqrt(n)) { // alpha = 0.001
				t.Errorf("%s d=%d x=%v: Kolmogorov-Smirnov statistic %v", p.Name(), p.Dim(), x, ks)
			}
		}
		X, Y := p.Sample(100, 9)
		X2, Y2 := p.Sample(100, 9)
		_, Y3 := p.Sample(100, 10)
		if len(X) != 100*p.Dim() || !slices.Equal(X, X2) || !slices.Equal(Y, Y2) || slices.Equal(Y, Y3) {
			t.Errorf("%s d=%d: Sample is not a function of the seed", p.Name(), p.Dim())
		}
	}
	for _, name := range []string{"modes", "studentt"} {
		if p, err := New(name, 2); err != nil || p.Name() != name || p.Dim() != 2 {
			t.Errorf("New(%q, 2) = %v, %v", name, p, err)
		}
		if !slices.Contains(AllNames(), name) {
			t.Errorf("AllNames() = %v lacks %q", AllNames(), name)
		}
	}
	if !slices.Contains(Names(), "modes") || slices.Contains(Names(), "studentt") {
		t.Errorf("Names() = %v", Names())
	}
}
