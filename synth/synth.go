// Package synth provides synthetic regression problems whose conditional
// density p(y|x) is known exactly, for the demo and for tests of the
// regression heads: a model's test NLL can be set beside the true
// density's, and its samples drawn over the true density.
//
// Every problem draws x uniformly from [-1, 1]^d and makes y depend on x
// through t = (x_1 + ... + x_d) / d, the mean of the features (t = x for
// d = 1):
//
//	mixture    y|x = w N(0.5+0.3t, 0.10²) + (1-w) N(-0.5-0.2t, (0.15+0.05t)²),
//	           w = sigmoid(3t): two modes whose weights and means move with x
//	hetero     y|x = N(sin(3t), (0.05 + 0.15(1+t))²): heteroscedastic
//	ring       y|x = ½ N(h, 0.08²) + ½ N(-h, 0.08²), h = sqrt(1-t²): a noisy
//	           circle, bimodal in the middle and unimodal at the ends
//	lognormal  log y|x = N(0.5t, 0.5²): skewed, positive, a long right tail
//	modes      y|x = Σ_i w_i N(c_i + 0.2t, s_i²), c = (-1, 0, 1),
//	           s = (0.12, 0.10, 0.08), w ∝ (1, σ(30(t+⅓)), σ(30(t-⅓))): the
//	           number of modes grows with x, one for t < -⅓, two in the
//	           middle, three for t > ⅓
//	studentt   y|x = 0.5t + 0.2 T, T Student-t with ν = 2.5 degrees of
//	           freedom: heavy tails (density ∝ |y|^-3.5), finite mean and
//	           variance (0.2), no fourth moment
//
// Names lists the first five, whose densities are negligible outside
// [-6, 6] (lognormal: [0, 80]); AllNames adds studentt, whose tails are not.
//
// Beside the problems, Curves lists the deterministic 1-D functions y = f(x)
// of the paper's curve-fitting figure (smooth, high-frequency,
// discontinuous, exponential, vertical asymptote, ...), and TruncNorm is the
// truncated normal of the paper's histogram-risk theorem, with the exact
// integrated squared error of a histogram estimate (MISE) and the theorem's
// risk (RiskTheory).
package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Problem is a regression problem with a known conditional density.
type Problem interface {
	// Name is the problem's name, as accepted by New.
	Name() string
	// Dim is the number of features d.
	Dim() int
	// Sample draws n rows: X, (n, d) row-major, uniform on [-1, 1]^d, and
	// Y, len n, each from p(y|x). It depends only on n and seed.
	Sample(n int, seed uint64) (X, Y []float64)
	// Sample1 draws one y from p(y|x).
	Sample1(x []float64, r *rand.Rand) float64
	// LogPDF is the exact log p(y|x) (-Inf outside the support).
	LogPDF(x []float64, y float64) float64
	// CDF is the exact P(Y <= y | x).
	CDF(x []float64, y float64) float64
	// Mean is the exact E[y|x].
	Mean(x []float64) float64
}

// Names lists the light-tailed problems New knows, in a fixed order;
// AllNames lists them all.
func Names() []string { return []string{"mixture", "hetero", "ring", "lognormal", "modes"} }

// New returns the problem called name with d features. An unknown name,
// or d outside 1 to MaxSourceDim, is an error.
func New(name string, d int) (Problem, error) {
	if d < 1 || d > MaxSourceDim {
		return nil, fmt.Errorf("synth: dimension %d, want 1 to %d", d, MaxSourceDim)
	}
	switch name {
	case "mixture":
		return NewMixture(d), nil
	case "hetero":
		return NewHetero(d), nil
	case "ring":
		return NewRing(d), nil
	case "lognormal":
		return NewLogNormal(d), nil
	case "modes":
		return NewModes(d), nil
	case "studentt":
		return NewStudentT(d), nil
	}
	return nil, fmt.Errorf("synth: unknown problem %q (have %s)", name, strings.Join(AllNames(), ", "))
}

// NewMixture returns the "mixture" problem with d features (see the
// package documentation). It panics if d < 1.
func NewMixture(d int) Problem { return &mixture{base{"mixture", checkDim(d)}} }

// NewHetero returns the "hetero" problem with d features. It panics if d < 1.
func NewHetero(d int) Problem { return &hetero{base{"hetero", checkDim(d)}} }

// NewRing returns the "ring" problem with d features. It panics if d < 1.
func NewRing(d int) Problem { return &ring{base{"ring", checkDim(d)}} }

// NewLogNormal returns the "lognormal" problem with d features. It panics if
// d < 1.
func NewLogNormal(d int) Problem { return &logNormal{base{"lognormal", checkDim(d)}} }

func checkDim(d int) int {
	if d < 1 {
		panic("synth: dimension < 1")
	}
	return d
}

// TrueNLL returns the mean of -p.LogPDF(x_i, y_i) over the rows of X,
// (len(Y), p.Dim()) row-major: the NLL of the true density, in y's units.
// It panics if the sizes disagree.
func TrueNLL(p Problem, X, Y []float64) float64 {
	d := p.Dim()
	if len(X) != len(Y)*d {
		panic("synth: TrueNLL: len(X) != len(Y)*Dim()")
	}
	s := 0.0
	for i, y := range Y {
		s -= p.LogPDF(X[i*d:(i+1)*d], y)
	}
	return s / float64(len(Y))
}

// Quantile returns the q-quantile of p(y|x), 0 < q < 1, by bisection on
// p.CDF to within about 1e-12 relative. It panics if q is outside (0, 1).
func Quantile(p Problem, x []float64, q float64) float64 {
	if !(q > 0 && q < 1) {
		panic("synth: Quantile: q outside (0, 1)")
	}
	m := p.Mean(x)
	lo, hi := m-1, m+1
	for step := 1.0; p.CDF(x, lo) > q; step *= 2 {
		lo -= step
	}
	for step := 1.0; p.CDF(x, hi) < q; step *= 2 {
		hi += step
	}
	for i := 0; i < 200 && hi-lo > 1e-12*math.Max(1, math.Abs(lo)); i++ {
		mid := lo + (hi-lo)/2
		if p.CDF(x, mid) < q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}

// sampleSeed2 is the second PCG seed word used by Sample.
const sampleSeed2 = 0x5eed5eed5eed5eed

// base holds what every problem shares.
type base struct {
	name string
	d    int
}

func (b base) Name() string { return b.name }
func (b base) Dim() int     { return b.d }

// t returns the mean of x, checking its length.
func (b base) t(x []float64) float64 {
	if len(x) != b.d {
		panic(fmt.Sprintf("synth: %s: x has %d values, want %d", b.name, len(x), b.d))
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(b.d)
}

// sample implements Problem.Sample for p.
func sample(p Problem, n int, seed uint64) (X, Y []float64) {
	if n < 0 {
		panic("synth: Sample: n < 0")
	}
	d := p.Dim()
	r := rand.New(rand.NewPCG(seed, sampleSeed2))
	X = make([]float64, n*d)
	Y = make([]float64, n)
	for i := range Y {
		x := X[i*d : (i+1)*d]
		for j := range x {
			x[j] = 2*r.Float64() - 1
		}
		Y[i] = p.Sample1(x, r)
	}
	return X, Y
}

const logSqrt2Pi = 0.91893853320467274178 // log(sqrt(2 pi))

// normLogPDF is log N(y; mu, sd²).
func normLogPDF(y, mu, sd float64) float64 {
	z := (y - mu) / sd
	return -0.5*z*z - math.Log(sd) - logSqrt2Pi
}

// normCDF is P(N(mu, sd²) <= y).
func normCDF(y, mu, sd float64) float64 {
	return 0.5 * math.Erfc(-(y-mu)/(sd*math.Sqrt2))
}

// logAddExp returns log(exp(a) + exp(b)).
func logAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(a, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// logSigmoid returns log(1 / (1 + exp(-z))).
func logSigmoid(z float64) float64 {
	if z >= 0 {
		return -math.Log1p(math.Exp(-z))
	}
	return z - math.Log1p(math.Exp(z))
}

// mixture: w N(mu1, sd1²) + (1-w) N(mu2, sd2²).
type mixture struct{ base }

func (p *mixture) params(x []float64) (logW1, logW2, mu1, sd1, mu2, sd2 float64) {
	t := p.t(x)
	return logSigmoid(3 * t), logSigmoid(-3 * t), 0.5 + 0.3*t, 0.10, -0.5 - 0.2*t, 0.15 + 0.05*t
}

func (p *mixture) Sample(n int, seed uint64) (X, Y []float64) { return sample(p, n, seed) }

func (p *mixture) Sample1(x []float64, r *rand.Rand) float64 {
	lw1, _, mu1, sd1, mu2, sd2 := p.params(x)
	if r.Float64() < math.Exp(lw1) {
		return mu1 + sd1*r.NormFloat64()
	}
	return mu2 + sd2*r.NormFloat64()
}

func (p *mixture) LogPDF(x []float64, y float64) float64 {
	lw1, lw2, mu1, sd1, mu2, sd2 := p.params(x)
	return logAddExp(lw1+normLogPDF(y, mu1, sd1), lw2+normLogPDF(y, mu2, sd2))
}

func (p *mixture) CDF(x []float64, y float64) float64 {
	lw1, lw2, mu1, sd1, mu2, sd2 := p.params(x)
	return math.Exp(lw1)*normCDF(y, mu1, sd1) + math.Exp(lw2)*normCDF(y, mu2, sd2)
}

func (p *mixture) Mean(x []float64) float64 {
	lw1, lw2, mu1, _, mu2, _ := p.params(x)
	return math.Exp(lw1)*mu1 + math.Exp(lw2)*mu2
}

// hetero: N(sin(3t), (0.05 + 0.15(1+t))²).
type hetero struct{ base }

func (p *hetero) params(x []float64) (mu, sd float64) {
	t := p.t(x)
	return math.Sin(3 * t), 0.05 + 0.15*(1+t)
}

func (p *hetero) Sample(n int, seed uint64) (X, Y []float64) { return sample(p, n, seed) }

func (p *hetero) Sample1(x []float64, r *rand.Rand) float64 {
	mu, sd := p.params(x)
	return mu + sd*r.NormFloat64()
}

func (p *hetero) LogPDF(x []float64, y float64) float64 {
	mu, sd := p.params(x)
	return normLogPDF(y, mu, sd)
}

func (p *hetero) CDF(x []float64, y float64) float64 {
	mu, sd := p.params(x)
	return normCDF(y, mu, sd)
}

func (p *hetero) Mean(x []float64) float64 {
	mu, _ := p.params(x)
	return mu
}

// ring: ½ N(h, s²) + ½ N(-h, s²), h = sqrt(1-t²).
type ring struct{ base }

const ringSD = 0.08

func (p *ring) h(x []float64) float64 {
	t := p.t(x)
	return math.Sqrt(math.Max(0, 1-t*t))
}

func (p *ring) Sample(n int, seed uint64) (X, Y []float64) { return sample(p, n, seed) }

func (p *ring) Sample1(x []float64, r *rand.Rand) float64 {
	h := p.h(x)
	if r.Float64() < 0.5 {
		h = -h
	}
	return h + ringSD*r.NormFloat64()
}

func (p *ring) LogPDF(x []float64, y float64) float64 {
	h := p.h(x)
	return logAddExp(normLogPDF(y, h, ringSD), normLogPDF(y, -h, ringSD)) - math.Ln2
}

func (p *ring) CDF(x []float64, y float64) float64 {
	h := p.h(x)
	return 0.5 * (normCDF(y, h, ringSD) + normCDF(y, -h, ringSD))
}

func (p *ring) Mean(x []float64) float64 {
	p.h(x) // checks x
	return 0
}

// logNormal: log y ~ N(0.5t, 0.5²).
type logNormal struct{ base }

const logNormalSD = 0.5

func (p *logNormal) mu(x []float64) float64 { return 0.5 * p.t(x) }

func (p *logNormal) Sample(n int, seed uint64) (X, Y []float64) { return sample(p, n, seed) }

func (p *logNormal) Sample1(x []float64, r *rand.Rand) float64 {
	return math.Exp(p.mu(x) + logNormalSD*r.NormFloat64())
}

func (p *logNormal) LogPDF(x []float64, y float64) float64 {
	mu := p.mu(x)
	if !(y > 0) {
		return math.Inf(-1)
	}
	ly := math.Log(y)
	return normLogPDF(ly, mu, logNormalSD) - ly
}

func (p *logNormal) CDF(x []float64, y float64) float64 {
	mu := p.mu(x)
	if !(y > 0) {
		return 0
	}
	return normCDF(math.Log(y), mu, logNormalSD)
}

func (p *logNormal) Mean(x []float64) float64 {
	return math.Exp(p.mu(x) + logNormalSD*logNormalSD/2)
}
