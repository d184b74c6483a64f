package synth

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"decoreg/internal/gradcheck"
)

// yRange is an interval outside which p(y|x) has negligible mass for every
// x in [-1.2, 1.2]^d: the Gaussian problems keep their means within ±1.5
// and sds below 0.4; the log-normal's 1-1e-15 quantile is below 80.
func yRange(p Problem) (float64, float64) {
	if p.Name() == "lognormal" {
		return 0, 80
	}
	return -6, 6
}

// testPoints returns points x for p at several values of t, not all on the
// diagonal.
func testPoints(p Problem) [][]float64 {
	var xs [][]float64
	for _, t := range []float64{-1, -0.7, -0.2, 0, 0.35, 0.9, 1} {
		x := make([]float64, p.Dim())
		for j := range x {
			x[j] = t
		}
		if p.Dim() > 1 {
			x[0] += 0.1
			x[1] -= 0.1
		}
		xs = append(xs, x)
	}
	return xs
}

func allProblems() []Problem {
	var ps []Problem
	for _, d := range []int{1, 3} {
		for _, name := range Names() {
			p, err := New(name, d)
			if err != nil {
				panic(err)
			}
			ps = append(ps, p)
		}
	}
	return ps
}

// moments returns the integral of p(y|x) and its mean, variance and fourth
// central moment by numerical integration of exp(LogPDF).
func moments(p Problem, x []float64) (mass, mean, variance, m4 float64) {
	lo, hi := yRange(p)
	const n = 8000
	pdf := func(y float64) float64 { return math.Exp(p.LogPDF(x, y)) }
	mass = gradcheck.Simpson(pdf, lo, hi, n)
	mean = gradcheck.Simpson(func(y float64) float64 { return y * pdf(y) }, lo, hi, n)
	variance = gradcheck.Simpson(func(y float64) float64 { return (y - mean) * (y - mean) * pdf(y) }, lo, hi, n)
	m4 = gradcheck.Simpson(func(y float64) float64 { d := y - mean; return d * d * d * d * pdf(y) }, lo, hi, n)
	return
}

func TestDensity(t *testing.T) {
	for _, p := range allProblems() {
		lo, hi := yRange(p)
		for _, x := range testPoints(p) {
			mass, mean, _, _ := moments(p, x)
			if !(math.Abs(mass-1) <= 1e-8) {
				t.Errorf("%s d=%d x=%v: density integrates to %v", p.Name(), p.Dim(), x, mass)
			}
			if m := p.Mean(x); !(math.Abs(m-mean) <= 1e-8) {
				t.Errorf("%s d=%d x=%v: Mean %v, integral %v", p.Name(), p.Dim(), x, m, mean)
			}
			pdf := func(y float64) float64 { return math.Exp(p.LogPDF(x, y)) }
			for _, y := range []float64{-1, -0.5, 0, 0.3, 0.6, 1, 2.5} {
				want := 0.0
				if y > lo {
					want = gradcheck.Simpson(pdf, lo, y, 8000)
				}
				if got := p.CDF(x, y); !(math.Abs(got-want) <= 1e-8) {
					t.Errorf("%s d=%d x=%v: CDF(%v) = %v, integral %v", p.Name(), p.Dim(), x, y, got, want)
				}
			}
			if c := p.CDF(x, hi); !(math.Abs(c-1) <= 1e-12) {
				t.Errorf("%s: CDF(%v) = %v", p.Name(), hi, c)
			}
			for _, q := range []float64{0.001, 0.1, 0.5, 0.9, 0.999} {
				y := Quantile(p, x, q)
				if c := p.CDF(x, y); !(math.Abs(c-q) <= 1e-9) {
					t.Errorf("%s x=%v: CDF(Quantile(%v)) = %v", p.Name(), x, q, c)
				}
			}
		}
	}
}

// TestLogPDFValues checks a few densities against hand-written formulas.
func TestLogPDFValues(t *testing.T) {
	phi := func(z float64) float64 { return math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) }
	x0 := []float64{0}
	tests := []struct {
		p    Problem
		x    []float64
		y    float64
		want float64 // the density
	}{
		// t=0: weights 1/2, N(0.5, 0.1²) and N(-0.5, 0.15²).
		{NewMixture(1), x0, 0, 0.5*phi(5)/0.1 + 0.5*phi(0.5/0.15)/0.15},
		// t=1: weight sigmoid(3) on N(0.8, 0.1²), the rest on N(-0.7, 0.2²).
		{NewMixture(1), []float64{1}, 0.75, phi(0.5)/0.1/(1+math.Exp(-3)) + phi(1.45/0.2)/0.2/(1+math.Exp(3))},
		// d=2, x=(0.5,-0.5): t=0.
		{NewMixture(2), []float64{0.5, -0.5}, 0, 0.5*phi(5)/0.1 + 0.5*phi(0.5/0.15)/0.15},
		{NewHetero(1), x0, 0.1, phi(0.5) / 0.2},
		{NewHetero(1), []float64{-1}, math.Sin(-3), phi(0) / 0.05},
		{NewRing(1), []float64{1}, 0, phi(0) / 0.08},
		{NewRing(1), x0, 1, 0.5 * (phi(0) + phi(2/0.08)) / 0.08},
		{NewLogNormal(1), x0, 1, phi(0) / 0.5},
		{NewLogNormal(1), []float64{1}, math.E, phi(1) / 0.5 / math.E},
		{NewLogNormal(1), x0, 0, 0},
		{NewLogNormal(1), x0, -1, 0},
	}
	for _, tc := range tests {
		got := math.Exp(tc.p.LogPDF(tc.x, tc.y))
		if !(math.Abs(got-tc.want) <= 1e-14*math.Max(1, tc.want)) {
			t.Errorf("%s x=%v: pdf(%v) = %v, want %v", tc.p.Name(), tc.x, tc.y, got, tc.want)
		}
	}
}

// TestSample1 checks draws of Sample1 against the density: the sample
// mean and variance against integrals of exp(LogPDF), and a
// Kolmogorov-Smirnov test against CDF.
func TestSample1(t *testing.T) {
	const n = 20000
	r := rand.New(rand.NewPCG(1, 2))
	ys := make([]float64, n)
	for _, p := range allProblems() {
		for _, x := range testPoints(p)[1:6] {
			_, mean, variance, m4 := moments(p, x)
			var s, ss float64
			for i := range ys {
				ys[i] = p.Sample1(x, r)
				s += ys[i]
			}
			sm := s / n
			for _, y := range ys {
				ss += (y - sm) * (y - sm)
			}
			sv := ss / (n - 1)
			if se := math.Sqrt(variance / n); !(math.Abs(sm-mean) <= 5*se) {
				t.Errorf("%s d=%d x=%v: sample mean %v, density's %v (se %v)", p.Name(), p.Dim(), x, sm, mean, se)
			}
			if se := math.Sqrt((m4 - variance*variance) / n); !(math.Abs(sv-variance) <= 5*se) {
				t.Errorf("%s d=%d x=%v: sample variance %v, density's %v (se %v)", p.Name(), p.Dim(), x, sv, variance, se)
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
	}
}

// TestSampleAndTrueNLL checks Sample's shape, determinism and x marginal,
// and that TrueNLL of a large sample is near the expected conditional
// entropy E_x[-∫ p log p dy], computed by integration (d = 1).
func TestSampleAndTrueNLL(t *testing.T) {
	for _, name := range Names() {
		p, _ := New(name, 1)
		const n = 20000
		X, Y := p.Sample(n, 5)
		if len(X) != n || len(Y) != n {
			t.Fatalf("%s: %d, %d values", name, len(X), len(Y))
		}
		X2, Y2 := p.Sample(n, 5)
		X3, _ := p.Sample(n, 6)
		if !slices.Equal(X, X2) || !slices.Equal(Y, Y2) || slices.Equal(X, X3) {
			t.Errorf("%s: Sample is not a function of the seed", name)
		}
		var mx, vx float64
		for _, x := range X {
			if x < -1 || x > 1 {
				t.Fatalf("%s: x = %v outside [-1, 1]", name, x)
			}
			mx += x / n
			vx += x * x / n
		}
		if !(math.Abs(mx) <= 5*math.Sqrt(1.0/3/n)) || !(math.Abs(vx-1.0/3) <= 0.02) {
			t.Errorf("%s: x mean %v, mean square %v; want 0 and 1/3", name, mx, vx)
		}

		nll := TrueNLL(p, X, Y)
		var s2 float64
		for i := range Y {
			l := -p.LogPDF(X[i:i+1], Y[i])
			s2 += (l - nll) * (l - nll)
		}
		se := math.Sqrt(s2/(n-1)) / math.Sqrt(n)
		lo, hi := yRange(p)
		const grid = 200
		h := 0.0
		for k := 0; k < grid; k++ {
			x := []float64{-1 + (float64(k)+0.5)*2/grid}
			h += gradcheck.Simpson(func(y float64) float64 {
				lp := p.LogPDF(x, y)
				if math.IsInf(lp, -1) {
					return 0
				}
				return -math.Exp(lp) * lp
			}, lo, hi, 4000) / grid
		}
		if !(math.Abs(nll-h) <= 5*se) {
			t.Errorf("%s: TrueNLL %v, expected conditional entropy %v (se %v)", name, nll, h, se)
		}
		t.Logf("%s: TrueNLL of %d samples %.4f, E[H(y|x)] %.4f", name, n, nll, h)
	}
}

func TestNew(t *testing.T) {
	for _, name := range Names() {
		p, err := New(name, 4)
		if err != nil || p.Name() != name || p.Dim() != 4 {
			t.Errorf("New(%q, 4) = %v, %v", name, p, err)
		}
	}
	if _, err := New("nope", 1); err == nil {
		t.Error("unknown name accepted")
	}
	if _, err := New("mixture", 0); err == nil {
		t.Error("d = 0 accepted")
	}
	defer func() {
		if recover() == nil {
			t.Error("wrong x length did not panic")
		}
	}()
	NewHetero(2).LogPDF([]float64{0}, 0)
}

// UniformBox refuses sizes whose product overflows (1<<32 × 1<<32 gave
// an empty slice) or that are negative.
func TestUniformBoxSizes(t *testing.T) {
	for _, c := range [][2]int{{huge(32), huge(32)}, {-1, 2}, {2, -1}} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("UniformBox(%d, %d) accepted", c[0], c[1])
				}
			}()
			UniformBox(c[0], c[1], 0, 1, 1)
		}()
	}
	if x := UniformBox(3, 0, 0, 1, 1); len(x) != 0 {
		t.Errorf("3 x 0: %d values", len(x))
	}
}

// New refuses dimensions beyond MaxSourceDim (1<<40 was accepted, and a
// draw then needed n × 2^40 values).
func TestNewDimension(t *testing.T) {
	for _, d := range []int{0, MaxSourceDim + 1, huge(40)} {
		if _, err := New("mixture", d); err == nil {
			t.Errorf("dimension %d accepted", d)
		}
	}
	if _, err := New("mixture", MaxSourceDim); err != nil {
		t.Errorf("dimension %d: %v", MaxSourceDim, err)
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
