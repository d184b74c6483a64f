package dist

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"decoreg/internal/gradcheck"
)

func TestRiemann(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 37
	probs := make([]float64, n)
	for i := range probs {
		probs[i] = r.ExpFloat64()
	}
	probs[5], probs[20] = 0, 0 // empty bins
	aff := Affine{Offset: 10, Scale: 4}
	d := NewRiemann(probs, aff)
	sum := 0.0
	for _, p := range probs {
		sum += p
	}

	// The density integrates to 1 over [Offset, Offset+Scale], bin by bin
	// (each bin's density is constant: a 2-panel Simpson rule inside
	// each bin is exact), and the CDF is the running integral.
	integral, mean := 0.0, 0.0
	for i := range n {
		a := aff.Offset + aff.Scale*float64(i)/float64(n)
		b := aff.Offset + aff.Scale*float64(i+1)/float64(n)
		inner := func(y float64) float64 { return math.Exp(d.LogPDF(y)) }
		eps := 1e-9 * aff.Scale
		integral += gradcheck.Simpson(inner, a+eps, b-eps, 2) * (b - a) / (b - a - 2*eps)
		mean += gradcheck.Simpson(func(y float64) float64 { return y * inner(y) }, a+eps, b-eps, 2) * (b - a) / (b - a - 2*eps)
		if got := d.CDF(b); !(math.Abs(got-integral) <= 1e-12) {
			t.Errorf("CDF(%v) = %v, integral %v", b, got, integral)
		}
		if want := math.Log(probs[i]/sum*float64(n)) - math.Log(aff.Scale); d.LogPDF((a+b)/2) != want && !(math.IsInf(want, -1) && math.IsInf(d.LogPDF((a+b)/2), -1)) {
			t.Errorf("LogPDF in bin %d = %v, want %v", i, d.LogPDF((a+b)/2), want)
		}
	}
	if !(math.Abs(integral-1) <= 1e-9) {
		t.Errorf("density integrates to %v", integral)
	}
	if !(math.Abs(d.Mean()-mean) <= 1e-8) {
		t.Errorf("Mean = %v, numerical integration %v", d.Mean(), mean)
	}
	checkCDF(t, d, aff.Offset-1, aff.Offset+aff.Scale+1)
	if d.CDF(aff.Offset) != 0 || d.CDF(aff.Offset+aff.Scale) != 1 {
		t.Error("CDF not 0 and 1 at the ends")
	}
	for _, y := range []float64{aff.Offset - 1e-9, aff.Offset + aff.Scale + 1e-9} {
		if !math.IsInf(d.LogPDF(y), -1) {
			t.Errorf("LogPDF(%v) = %v outside the bins", y, d.LogPDF(y))
		}
	}
	// The quantile inverts the CDF.
	for _, q := range []float64{0, 1e-6, 0.1, 0.3, 0.5, 0.77, 0.999, 1} {
		y := d.Quantile(q)
		if !(math.Abs(d.CDF(y)-q) <= 1e-12) {
			t.Errorf("CDF(Quantile(%v)) = %v", q, d.CDF(y))
		}
		if q > 0 && q < 1 && !(math.Abs(d.Quantile(d.CDF(y))-y) <= 1e-12) {
			t.Errorf("Quantile(CDF(%v)) = %v", y, d.Quantile(d.CDF(y)))
		}
	}
	if d.Median() != d.Quantile(0.5) {
		t.Error("Median != Quantile(0.5)")
	}
	best := 0
	for i, p := range probs {
		if p > probs[best] {
			best = i
		}
	}
	if want := aff.Offset + aff.Scale*(float64(best)+0.5)/float64(n); d.Mode() != want {
		t.Errorf("Mode = %v, want %v", d.Mode(), want)
	}
	// Samples: by default from the piecewise-uniform density (the CDF's);
	// with Centres, bin centres with the bin probabilities.
	const ns = 50000
	ksCheck(t, d, d.Sample(ns, SampleOptions{}, rand.New(rand.NewPCG(3, 3))))
	vals := d.Sample(ns, SampleOptions{Centres: true}, rand.New(rand.NewPCG(3, 3)))
	counts := make([]int, n)
	p := make([]float64, n)
	for i := range p {
		p[i] = probs[i] / sum
	}
	for _, y := range vals {
		x := (y - aff.Offset) / aff.Scale * float64(n)
		i := int(x)
		if !(math.Abs(x-float64(i)-0.5) <= 1e-9) {
			t.Fatalf("sample %v is not a bin centre", y)
		}
		counts[i]++
	}
	if s, df := chiSquare(counts, p, ns); !chiOK(s, df) {
		t.Errorf("chi-square %v with %d df", s, df)
	}
}

// ksCheck fails t unless the draws vals fit d's CDF: the Kolmogorov-
// Smirnov distance below 1.95/sqrt(n) (its 0.1% critical value).
func ksCheck(t *testing.T, d Distribution, vals []float64) {
	t.Helper()
	vals = slices.Clone(vals)
	slices.Sort(vals)
	n := float64(len(vals))
	ks := 0.0
	for i, v := range vals {
		f := d.CDF(v)
		ks = max(ks, math.Abs(f-float64(i)/n), math.Abs(f-float64(i+1)/n))
	}
	if lim := 1.95 / math.Sqrt(n); !(ks < lim) {
		t.Errorf("draws against the CDF: Kolmogorov-Smirnov distance %.4g, above %.4g", ks, lim)
	}
}

// checkCDF checks that a CDF rises monotonically from 0 to 1 over [a,b].
func checkCDF(t *testing.T, d Distribution, a, b float64) {
	t.Helper()
	prev := d.CDF(a)
	if !(prev <= 1e-12) {
		t.Errorf("CDF(%v) = %v, want 0", a, prev)
	}
	for i := 1; i <= 2000; i++ {
		c := d.CDF(a + (b-a)*float64(i)/2000)
		if c < prev || c > 1 {
			t.Errorf("CDF not monotone in [0,1] at %v: %v after %v", a+(b-a)*float64(i)/2000, c, prev)
			return
		}
		prev = c
	}
	if !(prev >= 1-1e-12) {
		t.Errorf("CDF(%v) = %v, want 1", b, prev)
	}
}

func TestMDN(t *testing.T) {
	w := []float64{0.5, 0.2, 0.3, 1e-3}
	mu := []float64{-0.3, 0.1, 0.25, 0.0}
	sd := []float64{0.05, 0.2, 0.03, 1e-3}
	aff := Affine{Offset: 3, Scale: 2}
	d := NewMDN(w, mu, sd, aff)
	lo, hi := aff.Offset+aff.Scale*(-0.3-12*0.2), aff.Offset+aff.Scale*(0.25+12*0.2)
	pdf := func(y float64) float64 { return math.Exp(d.LogPDF(y)) }
	// Independent density, straight from the formula.
	ref := func(y float64) float64 {
		tt := (y - aff.Offset) / aff.Scale
		s := 0.0
		for i := range w {
			z := (tt - mu[i]) / sd[i]
			s += w[i] / 1.001 * math.Exp(-z*z/2) / (sd[i] * math.Sqrt(2*math.Pi))
		}
		return s / aff.Scale
	}
	for _, y := range []float64{lo, 2.4, 3, 3.2, 3.5, hi} {
		if !(math.Abs(pdf(y)-ref(y)) <= 1e-12*max(1, ref(y))) {
			t.Errorf("pdf(%v) = %v, want %v", y, pdf(y), ref(y))
		}
	}
	const panels = 200000
	if got := gradcheck.Simpson(pdf, lo, hi, panels); !(math.Abs(got-1) <= 1e-9) {
		t.Errorf("density integrates to %v", got)
	}
	if got := gradcheck.Simpson(func(y float64) float64 { return y * pdf(y) }, lo, hi, panels); !(math.Abs(got-d.Mean()) <= 1e-9) {
		t.Errorf("Mean = %v, numerical integration %v", d.Mean(), got)
	}
	for _, y := range []float64{2.5, 3, 3.3, 3.55} {
		if got := gradcheck.Simpson(pdf, lo, y, panels); !(math.Abs(got-d.CDF(y)) <= 1e-9) {
			t.Errorf("CDF(%v) = %v, integral %v", y, d.CDF(y), got)
		}
	}
	checkCDF(t, d, lo, hi)
	for _, q := range []float64{1e-12, 1e-6, 0.01, 0.3, 0.5, 0.5005, 0.9, 1 - 1e-9} {
		y := d.Quantile(q)
		// CDF(y) = q to rounding: the residual over the density must be
		// within 1e-12 of y.
		if e := math.Abs(d.CDF(y)-q) / pdf(y); !(e <= 1e-12*max(1, math.Abs(y))) && !(math.Abs(d.CDF(y)-q) <= 1e-15) {
			t.Errorf("Quantile(%v) = %v: CDF there %v", q, y, d.CDF(y))
		}
	}
	if !math.IsInf(d.Quantile(0), -1) || !math.IsInf(d.Quantile(1), 1) || !math.IsNaN(d.Quantile(2)) {
		t.Error("Quantile at 0, 1, 2")
	}
	// Mode: a fine grid, then golden-section search around the best point.
	bestY, bestP := 0.0, -1.0
	for i := 0; i <= 400000; i++ {
		y := lo + (hi-lo)*float64(i)/400000
		if p := pdf(y); p > bestP {
			bestY, bestP = y, p
		}
	}
	a, b := bestY-(hi-lo)/400000, bestY+(hi-lo)/400000
	g := (math.Sqrt(5) - 1) / 2
	for range 200 {
		c, e := b-g*(b-a), a+g*(b-a)
		if pdf(c) > pdf(e) {
			b = e
		} else {
			a = c
		}
	}
	if m := d.Mode(); !(math.Abs(m-(a+b)/2) <= 1e-6) || pdf(m) < pdf((a+b)/2)*(1-1e-12) {
		t.Errorf("Mode = %v (pdf %v), grid search %v (pdf %v)", m, pdf(m), (a+b)/2, pdf((a+b)/2))
	}
	// Samples: the empirical CDF at a few points within binomial error.
	const ns = 50000
	vals := d.Sample(ns, SampleOptions{}, rand.New(rand.NewPCG(4, 4)))
	slices.Sort(vals)
	for _, y := range []float64{2.5, 3, 3.3, 3.5} {
		c := d.CDF(y)
		k, _ := slices.BinarySearch(vals, y)
		if !(math.Abs(float64(k)/ns-c) <= 5*math.Sqrt(c*(1-c)/ns)) {
			t.Errorf("empirical CDF(%v) = %v, exact %v", y, float64(k)/ns, c)
		}
	}
}

func TestMDNNarrowLogPDF(t *testing.T) {
	// Far in a tail the density underflows; LogPDF must not.
	d := NewMDN([]float64{1, 1}, []float64{0, 1}, []float64{0.01, 0.01}, Affine{0, 1})
	want := -0.5*100*100 + math.Log(0.5/(0.01*math.Sqrt(2*math.Pi)))
	if got := d.LogPDF(-1); !(math.Abs(got-want) <= 1e-9) {
		t.Errorf("LogPDF(-1) = %v, want %v", got, want)
	}
}

func TestPoint(t *testing.T) {
	d := NewPoint(2.5)
	if d.Mean() != 2.5 || d.Median() != 2.5 || d.Mode() != 2.5 || d.Quantile(0.3) != 2.5 {
		t.Error("point summaries")
	}
	if d.CDF(2.4) != 0 || d.CDF(2.5) != 1 || d.CDF(3) != 1 || !math.IsNaN(d.LogPDF(2.5)) {
		t.Error("point CDF or LogPDF")
	}
	if s := d.Sample(3, SampleOptions{}, nil); !slices.Equal(s, []float64{2.5, 2.5, 2.5}) {
		t.Errorf("Sample = %v", s)
	}
}

// betaRef integrates the Beta(a,b) density from 0 to x numerically by
// tanh-sinh quadrature (which copes with the t^(a-1) singularity at 0);
// for x > 1/2 it returns 1 - (the integral of Beta(b,a) up to 1-x), so the
// integration never reaches the singular end at 1.
func betaRef(x, a, b float64) float64 {
	if x > 0.5 {
		return 1 - betaRef(1-x, b, a)
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	lc := lab - la - lb
	// t = x/2 * (1 + tanh(pi/2 sinh s)), s in [-6, 6] with step h.
	const h = 1.0 / 128
	sum := 0.0
	for k := -6 * 128; k <= 6*128; k++ {
		s := float64(k) * h
		g := math.Pi / 2 * math.Sinh(s)
		// 1 + tanh(g) = 2/(1+exp(-2g)), accurate for g very negative
		t := x / (1 + math.Exp(-2*g))
		if t <= 0 || t >= x {
			continue
		}
		w := x / 2 * math.Pi / 2 * math.Cosh(s) / (math.Cosh(g) * math.Cosh(g)) * h
		if w == 0 || math.IsNaN(w) {
			continue
		}
		sum += w * math.Exp(lc+(a-1)*math.Log(t)+(b-1)*math.Log1p(-t))
	}
	return sum
}

func TestBetaCDF(t *testing.T) {
	for _, ab := range [][2]float64{{0.5, 0.5}, {1, 1}, {2, 5}, {0.7, 3}, {10, 10}, {50.5, 450.5}, {3, 0.8}} {
		for _, x := range []float64{1e-3, 0.05, 0.2, 0.5, 0.7, 0.95, 0.999} {
			got, want := BetaCDF(x, ab[0], ab[1]), betaRef(x, ab[0], ab[1])
			if !(math.Abs(got-want) <= 1e-12) {
				t.Errorf("BetaCDF(%v, %v, %v) = %v, numerical integration %v", x, ab[0], ab[1], got, want)
			}
		}
	}
	if BetaCDF(0.3, 1, 1) != 0.3 && !(math.Abs(BetaCDF(0.3, 1, 1)-0.3) <= 1e-15) {
		t.Error("Beta(1,1) is not uniform")
	}
	if BetaCDF(0, 2, 3) != 0 || BetaCDF(1, 2, 3) != 1 || !math.IsNaN(BetaCDF(0.5, 0, 1)) {
		t.Error("BetaCDF edges")
	}
}

func TestHarrellDavis(t *testing.T) {
	// Against the definition with weights from numerical integration.
	x := []float64{3.1, -1, 0.4, 7, 2.2, 2.2, 5.5}
	s := slices.Sorted(slices.Values(x))
	n := len(s)
	for _, q := range []float64{0.1, 0.5, 0.83} {
		a, b := float64(n+1)*q, float64(n+1)*(1-q)
		want := 0.0
		for i := 1; i <= n; i++ {
			want += (betaRef(float64(i)/float64(n), a, b) - betaRef(float64(i-1)/float64(n), a, b)) * s[i-1]
		}
		if got := HarrellDavis(x, q); !(math.Abs(got-want) <= 1e-11) {
			t.Errorf("HarrellDavis(q=%v) = %v, want %v", q, got, want)
		}
	}
	if HarrellDavis(x, 0) != -1 || HarrellDavis(x, 1) != 7 || !math.IsNaN(HarrellDavis(nil, 0.5)) {
		t.Error("HarrellDavis edges")
	}
	if x[0] != 3.1 {
		t.Error("HarrellDavis sorted its input")
	}
	// On 2001 standard normal draws the estimate is near 0.
	r := rand.New(rand.NewPCG(5, 5))
	z := make([]float64, 2001)
	for i := range z {
		z[i] = r.NormFloat64()
	}
	if m := HarrellDavis(z, 0.5); !(math.Abs(m) <= 5*1.2533/math.Sqrt(2001)) {
		t.Errorf("Harrell-Davis median of N(0,1) draws = %v", m)
	}
}

// NewRiemannLogits is NewRiemann of softmax(logits), with the log-density
// of log-softmax: finite where a probability underflows to 0 in float64.
func TestRiemannLogits(t *testing.T) {
	aff := Affine{Offset: -3, Scale: 4}
	z := []float64{0.3, -1.2, 2.5, 0, -0.7}
	p := make([]float64, len(z))
	s := 0.0
	for i, v := range z {
		p[i] = math.Exp(v)
		s += p[i]
	}
	a, b := NewRiemann(p, aff), NewRiemannLogits(z, aff)
	for _, y := range []float64{-3, -2.9, -1, 0, 0.2, 0.99, 1} {
		if d := math.Abs(a.LogPDF(y) - b.LogPDF(y)); !(d <= 1e-12) {
			t.Errorf("LogPDF(%v): %v and %v", y, a.LogPDF(y), b.LogPDF(y))
		}
		if d := math.Abs(a.CDF(y) - b.CDF(y)); !(d <= 1e-12) {
			t.Errorf("CDF(%v): %v and %v", y, a.CDF(y), b.CDF(y))
		}
	}
	if d := math.Abs(a.Mean() - b.Mean()); !(d <= 1e-12) {
		t.Errorf("Mean: %v and %v", a.Mean(), b.Mean())
	}
	if !math.IsInf(b.LogPDF(1.5), -1) || !math.IsInf(b.LogPDF(math.NaN()), -1) {
		t.Errorf("outside the support: %v, %v", b.LogPDF(1.5), b.LogPDF(math.NaN()))
	}
	// A bin 1000 nats below the top one: probability 0, log-density not.
	c := NewRiemannLogits([]float64{0, -1000}, Affine{Offset: 0, Scale: 1})
	want := -1000 + math.Log(2) // log(e^-1000 / (1 + e^-1000) * 2 bins)
	if got := c.LogPDF(0.75); !(math.Abs(got-want) <= 1e-9) {
		t.Errorf("underflowed bin: LogPDF %v, want %v", got, want)
	}
	if got := c.CDF(0.75); got != 1 {
		t.Errorf("underflowed bin: CDF %v, want 1", got)
	}
	for _, bad := range [][]float64{nil, {0, math.NaN()}, {math.Inf(1), 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewRiemannLogits(%v) did not panic", bad)
				}
			}()
			NewRiemannLogits(bad, aff)
		}()
	}
}

// Finite weights whose sum overflows float64 are renormalised by their
// ratios, not refused as "summing to zero".
func TestHugeWeights(t *testing.T) {
	big := math.MaxFloat64
	r := NewRiemann([]float64{big, big, big / 2, 0}, Affine{0, 1})
	if got := r.CDF(0.5); !(math.Abs(got-0.8) <= 1e-15) {
		t.Errorf("Riemann: CDF(0.5) = %v, want 0.8", got)
	}
	m := NewMDN([]float64{big, big}, []float64{-1, 1}, []float64{0.5, 0.5}, Affine{0, 1})
	if got := m.CDF(0); !(math.Abs(got-0.5) <= 1e-15) {
		t.Errorf("MDN: CDF(0) = %v, want 0.5", got)
	}
}

// TestSampleNoneOrNegative: every distribution draws nothing for n = 0 or
// n < 0 (four of them panicked at n < 0, two returned nothing).
func TestSampleNoneOrNegative(t *testing.T) {
	aff := Affine{Offset: 1, Scale: 2}
	tok := parseTok(t, "normalized:base=3,length=2")
	rc, err := NewRecalibration([]float64{0, 0.5, 1}, []float64{0, 0.4, 1})
	if err != nil {
		t.Fatal(err)
	}
	mdn := NewMDN([]float64{1}, []float64{0.5}, []float64{0.1}, aff)
	for _, d := range []Distribution{
		NewPoint(3), NewRiemann([]float64{1, 2, 3}, aff), mdn,
		NewToken(newFake(t, tok.Size(), 1, 1), tok, aff, TokenOptions{}),
		NewMixture([]Distribution{mdn, NewPoint(1)}), NewRecalibrated(mdn, rc),
	} {
		for _, n := range []int{0, -1, math.MinInt} {
			if s := d.Sample(n, SampleOptions{}, rand.New(rand.NewPCG(1, 1))); len(s) != 0 {
				t.Errorf("%T: Sample(%d) drew %d", d, n, len(s))
			}
		}
	}
}

// TestRiemannQuantileEnds: Quantile(1) is the top of the last bin with
// mass and Quantile(0) the bottom of the first, exactly: the bins'
// cumulative sum can reach 1 a few ulp before the last bin, and the top
// quantile of a model trained on [0, 1] was printed 0.9999999999999993
// (review).
func TestRiemannQuantileEnds(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	aff := Affine{Offset: 0, Scale: 1}
	for trial := range 300 {
		n := 2 + r.IntN(200)
		logits := make([]float64, n)
		for i := range logits {
			logits[i] = 3 * r.NormFloat64()
		}
		for _, d := range []*Riemann{NewRiemannLogits(logits, aff), NewRiemann(softmaxRef(logits), aff)} {
			if q0, q1 := d.Quantile(0), d.Quantile(1); q0 != 0 || q1 != 1 {
				t.Fatalf("trial %d, %d bins: Quantile(0), Quantile(1) = %v, %v; want 0, 1", trial, n, q0, q1)
			}
		}
	}
	// Bins without mass at the ends: the support is the bins with mass.
	d := NewRiemann([]float64{0, 0.3, 0.7, 0, 0}, Affine{Offset: 10, Scale: 5})
	if q0, q1 := d.Quantile(0), d.Quantile(1); q0 != 11 || q1 != 13 {
		t.Errorf("Quantile(0), Quantile(1) = %v, %v; want 11, 13", q0, q1)
	}
}

// softmaxRef is softmax in float64, written plainly.
func softmaxRef(z []float64) []float64 {
	m := slices.Max(z)
	out := make([]float64, len(z))
	s := 0.0
	for i, v := range z {
		out[i] = math.Exp(v - m)
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}

// TestMDNQuantileFarComponent: a component far from the others (a mean
// of 1e150 to 4e307, of any weight, zero included) leaves the quantiles
// exact; the bracket around it had not narrowed in 500 halvings, and
// every level's quantile was 1.5e49, whose CDF is 1 (review). The golden
// values are the normal quantile, -sqrt(2) erfcinv(2q), for the near
// component's share of the mass.
func TestMDNQuantileFarComponent(t *testing.T) {
	z := func(q float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*q) }
	for _, far := range []float64{1e150, 1e200, 4e307, -4e307} {
		for _, w := range []float64{0, 1e-300, 1e-20, 0.5} {
			d := NewMDN([]float64{1 - w, w}, []float64{0, far}, []float64{1, 1}, Affine{Scale: 1})
			for _, q := range []float64{0.001, 0.3, 0.999} {
				got := d.Quantile(q)
				var want float64
				switch {
				case w == 0.5 && (far > 0) == (q > 0.5):
					want = far // the far component's half
				case w == 0.5 && far > 0:
					want = z(2 * q)
				case w == 0.5:
					want = z(2*q - 1)
				case far > 0:
					want = z(q / (1 - w))
				default:
					want = z((q - w) / (1 - w))
				}
				if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
					t.Errorf("far %g, weight %g: Quantile(%v) = %v, want %v", far, w, q, got, want)
				}
			}
		}
	}
}
