package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// TruncNorm is the normal N(Mean, Std²) truncated to [0, 1]: the density
// f(y) = φ((y-Mean)/Std) / (Std Z) on [0, 1], 0 elsewhere, with φ the
// standard normal density and Z = P(0 <= N(Mean, Std²) <= 1). It is the
// density of the paper's histogram-risk theorem (Figure "empirical risk":
// Mean 0.5, Std 0.25), whose risk for a 2^k-bin histogram of n draws is
//
//	2^(-2k)/12 ∫_0^1 f'(y)² dy + 2^k/n + O(2^(-4k) + 1/n).
//
// Build one with NewTruncNorm; a literal with Std <= 0, or one whose Z
// underflows, gives NaN or infinite results.
type TruncNorm struct {
	Mean, Std float64 // the untruncated normal's mean and standard deviation
}

// MaxTruncNormStd bounds NewTruncNorm's |mean| and std.
const MaxTruncNormStd = 1e6

// minTruncNormMass is the least mass on [0, 1] NewTruncNorm accepts: the
// inverse CDF subtracts multiples of it from tail probabilities of the same
// size, which near float64's subnormal range (2.2e-308) keep too few bits
// (a mean 38 stds below 0 drew only 0 and 1, with wrong densities).
const minTruncNormMass = 1e-300

// NewTruncNorm returns N(mean, std²) truncated to [0, 1]. A mean that is
// not finite, a std that is not positive and finite, a mean or std larger
// than MaxTruncNormStd, or a normal whose mass on [0, 1] is below
// minTruncNormMass (a mean some 37 stds outside) is an error.
func NewTruncNorm(mean, std float64) (TruncNorm, error) {
	if math.IsNaN(mean) || math.IsInf(mean, 0) {
		return TruncNorm{}, fmt.Errorf("synth: truncated normal mean %v, want finite", mean)
	}
	if !(std > 0) || math.IsInf(std, 1) {
		return TruncNorm{}, fmt.Errorf("synth: truncated normal std %v, want positive and finite", std)
	}
	if std > MaxTruncNormStd || math.Abs(mean) > MaxTruncNormStd {
		// Beyond that the density on [0, 1] is flat to float64 precision and
		// the mass Z ~ 1/std leaves the inverse CDF too few bits.
		return TruncNorm{}, fmt.Errorf("synth: truncated normal mean %v and std %v, want both at most %g in size (a wider one is uniform on [0, 1] to float64 precision)", mean, std, MaxTruncNormStd)
	}
	t := TruncNorm{mean, std}
	if z := t.z(); !(z >= minTruncNormMass) {
		return TruncNorm{}, fmt.Errorf("synth: N(%v, %v²) has no representable mass on [0, 1] (%g, below %g: its draws and densities would lose their precision)", mean, std, z, minTruncNormMass)
	}
	return t, nil
}

// z is the normalizer Z = P(0 <= N(Mean, Std²) <= 1).
func (t TruncNorm) z() float64 { return normalMass(0, 1, t.Mean, t.Std) }

// PDF is the density f(y): 0 outside [0, 1].
func (t TruncNorm) PDF(y float64) float64 { return math.Exp(t.LogPDF(y)) }

// LogPDF is log f(y): -Inf outside [0, 1].
func (t TruncNorm) LogPDF(y float64) float64 {
	if math.IsNaN(y) {
		return y
	}
	if y < 0 || y > 1 {
		return math.Inf(-1)
	}
	return normLogPDF(y, t.Mean, t.Std) - math.Log(t.z())
}

// CDF is P(Y <= y): 0 for y <= 0, 1 for y >= 1.
func (t TruncNorm) CDF(y float64) float64 {
	switch {
	case math.IsNaN(y):
		return y
	case y <= 0:
		return 0
	case y >= 1:
		return 1
	}
	return t.Mass(0, y)
}

// Mass is P(a <= Y < b), 0 if b <= a, from normal tail probabilities
// (erfc, subtracted only where they differ by a factor e or more) or, for
// an interval narrow against the normal's scale and its distance from the
// mean, by 20-point Gauss–Legendre quadrature of the density over [a, b]:
// either way to about 1e-14 relative, however small the interval.
func (t TruncNorm) Mass(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return normalMass(math.Max(a, 0), math.Min(b, 1), t.Mean, t.Std) / t.z()
}

// Sample draws n values by inversion of the CDF, with u from a PCG seeded
// by seed (as Problem.Sample); each lies in [0, 1]. It depends only on n
// and seed. It panics if n < 0.
func (t TruncNorm) Sample(n int, seed uint64) []float64 {
	if n < 0 {
		panic("synth: TruncNorm.Sample: n < 0")
	}
	q := t.quantiler()
	r := rand.New(rand.NewPCG(seed, sampleSeed2))
	ys := make([]float64, n)
	for i := range ys {
		ys[i] = q(r.Float64())
	}
	return ys
}

// quantiler returns the quantile function u -> F^-1(u), 0 <= u <= 1. With
// α = -Mean/Std and β = (1-Mean)/Std it inverts the tail on the side of the
// standard normal where both α and β lie (Q(z) = Q(α) - u (Q(α) - Q(β)) if
// α >= 0, and its mirror if β <= 0), or, when the mean is inside [0, 1], the
// tail that holds the target probability, so that no probability is
// computed as 1 minus a near 1 one.
func (t TruncNorm) quantiler() func(u float64) float64 {
	alpha, beta := -t.Mean/t.Std, (1-t.Mean)/t.Std
	mass := t.z()
	mu, sd := t.Mean, t.Std
	y := func(z float64) float64 { return math.Min(math.Max(mu+sd*z, 0), 1) }
	switch {
	case alpha >= 0: // Q(z) falls from Q(α) to Q(β)
		qa := normUpper(alpha)
		return func(u float64) float64 { return y(normUpperQuantile(qa - u*mass)) }
	case beta <= 0: // Φ(z) = Q(-z) rises from Q(-β) to Q(-α)
		pa := normUpper(-alpha)
		return func(u float64) float64 { return y(-normUpperQuantile(pa + u*mass)) }
	}
	pa, qb := normUpper(-alpha), normUpper(beta)
	return func(u float64) float64 {
		if p := pa + u*mass; p <= 0.5 {
			return y(-normUpperQuantile(p))
		}
		return y(normUpperQuantile(qb + (1-u)*mass))
	}
}

// IntSquare is ∫_0^1 f(y)² dy in closed form:
//
//	∫ f² = ∫_0^1 exp(-(y-μ)²/σ²) dy / (2π σ² Z²) = M / (2 sqrt(π) σ Z²),
//
// with M = P(0 <= N(μ, σ²/2) <= 1).
func (t TruncNorm) IntSquare() float64 {
	z := t.z()
	m := normalMass(0, 1, t.Mean, t.Std/math.Sqrt2)
	return m / (2 * math.Sqrt(math.Pi) * t.Std * z * z)
}

// IntDerivSquare is ∫_0^1 f'(y)² dy in closed form. With f'(y) =
// -(y-μ)/σ² f(y) and s = (y-μ)/σ,
//
//	∫ f'² = J / (2π σ³ Z²),  J = ∫_α^β s² exp(-s²) ds
//	      = (α exp(-α²) - β exp(-β²))/2 + sqrt(π)/2 M,
//
// α = -μ/σ, β = (1-μ)/σ, M as in IntSquare; J is integrated by 20-point
// Gauss–Legendre instead where β - α = 1/σ <= 1 and those terms cancel.
func (t TruncNorm) IntDerivSquare() float64 {
	mu, sd := t.Mean, t.Std
	z := t.z()
	var j float64
	if sd >= 1 {
		// J = ∫_0^1 s² exp(-s²) dy/σ over y, s = (y-μ)/σ.
		for i, x := range gl20X {
			s := (0.5 + 0.5*x - mu) / sd
			j += gl20W[i] * s * s * math.Exp(-s*s)
		}
		j *= 0.5 / sd
	} else {
		alpha, beta := -mu/sd, (1-mu)/sd
		m := normalMass(0, 1, mu, sd/math.Sqrt2)
		j = (alpha*math.Exp(-alpha*alpha)-beta*math.Exp(-beta*beta))/2 + math.Sqrt(math.Pi)/2*m
	}
	return j / (2 * math.Pi * sd * sd * sd * z * z)
}

// MISE returns the integrated squared error over [0, 1] between f and the
// piecewise-constant estimate that puts probability p[j] on the j-th of
// n = len(p) equal cells [j/n, (j+1)/n) (density n p[j] there), exactly:
//
//	IntSquare() - 2 Σ_j n p_j m_j + n Σ_j p_j²,  m_j = Mass(cell j),
//
// summed cell by cell as Σ_j [∫_cell (f - n m_j)² + n (p_j - m_j)²], the
// first term the bias of the exact-mass histogram: by 20-point
// Gauss–Legendre where the cell is narrow against the normal's scale (as
// in Mass), so that the result keeps its digits when f is nearly flat on
// every cell and the closed form would cancel, and as ∫_cell f² - n m_j²
// elsewhere. p need not sum to 1. It panics if p is empty.
func (t TruncNorm) MISE(p []float64) float64 {
	if len(p) == 0 {
		panic("synth: TruncNorm.MISE: no cells")
	}
	mu, sd := t.Mean, t.Std
	n := float64(len(p))
	z := t.z()
	c2 := 1 / (2 * math.Sqrt(math.Pi) * sd * z * z) // ∫_a^b f² = c2 P(a <= N(μ, σ²/2) < b)
	total := 0.0
	for j, pj := range p {
		a, b := float64(j)/n, float64(j+1)/n
		m := normalMass(a, b, mu, sd) / z
		h := n * m // the exact-mass histogram's height on the cell
		var bias float64
		if half, c := (b-a)/2, (a+b)/2; narrowCell(a, b, mu, sd) {
			for i, x := range gl20X {
				d := math.Exp(normLogPDF(c+half*x, mu, sd))/z - h
				bias += gl20W[i] * d * d
			}
			bias *= half
		} else {
			bias = c2*normalMass(a, b, mu, sd/math.Sqrt2) - h*m
		}
		total += bias + n*(pj-m)*(pj-m)
	}
	return total
}

// RiskTheory is the theorem's risk for a 2^k-bin histogram of n draws,
// without its O(2^(-4k) + 1/n) term: 2^(-2k)/12 IntDerivSquare() + 2^k/n.
// It panics if k < 0 or n < 1.
func (t TruncNorm) RiskTheory(k, n int) float64 {
	if k < 0 || n < 1 {
		panic("synth: TruncNorm.RiskTheory: k < 0 or n < 1")
	}
	return math.Ldexp(1, -2*k)/12*t.IntDerivSquare() + math.Ldexp(1, k)/float64(n)
}

// normUpper is Q(z) = P(N(0, 1) > z), accurate in the upper tail.
func normUpper(z float64) float64 { return 0.5 * math.Erfc(z/math.Sqrt2) }

// normalMass is P(a <= N(mu, sd²) < b), 0 if b <= a. Over an interval that
// is narrow against sd and against its distance from mu (in sd units, width
// times max(1, |center|) <= 1) it integrates the density by 20-point
// Gauss–Legendre, exact to rounding there since the density varies by at
// most a factor e; elsewhere it subtracts tail probabilities Q, which then
// differ by a factor e or more, so the difference keeps its digits.
func normalMass(a, b, mu, sd float64) float64 {
	if !(a < b) {
		return 0
	}
	h := (b - a) / 2
	c := a + h
	if narrowCell(a, b, mu, sd) {
		s := 0.0
		for i, x := range gl20X {
			s += gl20W[i] * math.Exp(normLogPDF(c+h*x, mu, sd))
		}
		return s * h
	}
	za, zb := (a-mu)/sd, (b-mu)/sd
	switch {
	case za >= 0:
		return normUpper(za) - normUpper(zb)
	case zb <= 0:
		return normUpper(-zb) - normUpper(-za)
	}
	return 1 - normUpper(-za) - normUpper(zb)
}

// narrowCell reports whether [a, b] is narrow against sd and against its
// center's distance from mu: in sd units, width times max(1, |center|) is
// at most 1, so that the normal density varies by at most a factor e on it
// and 20-point Gauss–Legendre integrates it, or its square, to rounding.
func narrowCell(a, b, mu, sd float64) bool {
	return (b-a)/sd*math.Max(1, math.Abs(a+(b-a)/2-mu)/sd) <= 1
}

// normUpperQuantile returns z with Q(z) = P(N(0, 1) > z) = q, for
// 0 <= q <= 1 (±Inf at the ends), to about 1e-15 relative however deep the
// tail: a starting point from math.Erfinv, or the tail asymptote
// z² ≈ -2 log q - log(-4π log q) where 1 - 2q rounds, then Newton steps on
// log Q(z) - log q.
func normUpperQuantile(q float64) float64 {
	switch {
	case math.IsNaN(q):
		return q
	case q <= 0:
		return math.Inf(1)
	case q >= 1:
		return math.Inf(-1)
	case q > 0.5:
		// Q(z) = q  <=>  Q(-z) = 1-q; only reached for q near ½, where
		// 1-q is exact enough.
		return -normUpperQuantile(1 - q)
	}
	var z float64
	if q > 1e-8 {
		z = math.Sqrt2 * math.Erfinv(1-2*q)
	} else {
		l := -2 * math.Log(q)
		z = math.Sqrt(l - math.Log(2*math.Pi*l))
	}
	lq := math.Log(q)
	for range 50 {
		qz := normUpper(z)
		if qz == 0 {
			break // z past the underflow of Q: keep it
		}
		// g(z) = log Q(z) - log q, g'(z) = -φ(z)/Q(z).
		phi := math.Exp(normLogPDF(z, 0, 1))
		if phi == 0 {
			break
		}
		dz := (math.Log(qz) - lq) * qz / phi
		z += dz
		if math.Abs(dz) <= 1e-15*math.Max(1, math.Abs(z)) {
			break
		}
	}
	return z
}

// gl20X and gl20W are the nodes and weights of 20-point Gauss–Legendre
// quadrature on [-1, 1].
var gl20X, gl20W = gaussLegendre(20)

// gaussLegendre returns the n nodes, ascending, and weights of Gauss–
// Legendre quadrature on [-1, 1]: the roots x_i of the Legendre polynomial
// P_n, by Newton's method from cos(π(i+¾)/(n+½)), and w_i =
// 2 / ((1-x_i²) P_n'(x_i)²).
func gaussLegendre(n int) (x, w []float64) {
	x, w = make([]float64, n), make([]float64, n)
	for i := 0; i < (n+1)/2; i++ {
		r := math.Cos(math.Pi * (float64(i) + 0.75) / (float64(n) + 0.5))
		var dp float64
		for range 100 {
			// P_n(r) by the three-term recurrence, then P_n'(r).
			p0, p1 := 1.0, r
			for j := 2; j <= n; j++ {
				p0, p1 = p1, ((2*float64(j)-1)*r*p1-(float64(j)-1)*p0)/float64(j)
			}
			dp = float64(n) * (r*p1 - p0) / (r*r - 1)
			dr := p1 / dp
			r -= dr
			if math.Abs(dr) <= 1e-16 {
				break
			}
		}
		x[i], x[n-1-i] = -r, r
		w[i] = 2 / ((1 - r*r) * dp * dp)
		w[n-1-i] = w[i]
	}
	return x, w
}
