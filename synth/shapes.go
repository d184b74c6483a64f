package synth

import (
	"math"
	"math/rand/v2"
)

// The "studentt" and "modes" problems (see the package documentation).

// NewStudentT returns the "studentt" problem with d features. It panics if
// d < 1.
func NewStudentT(d int) Problem { return &studentT{base{"studentt", checkDim(d)}} }

// NewModes returns the "modes" problem with d features. It panics if d < 1.
func NewModes(d int) Problem { return &modes{base{"modes", checkDim(d)}} }

// AllNames lists every problem New knows, in a fixed order: Names, then the
// heavy-tailed "studentt", which Names leaves out because its tails reach
// far beyond the y range the light-tailed problems share.
func AllNames() []string { return append(Names(), "studentt") }

// studentT: y = m + s T_ν, m = 0.5t.
type studentT struct{ base }

const (
	studentTNu    = 2.5 // degrees of freedom
	studentTScale = 0.2 // s
)

func (p *studentT) loc(x []float64) float64 { return 0.5 * p.t(x) }

func (p *studentT) Sample(n int, seed uint64) (X, Y []float64) { return sample(p, n, seed) }

func (p *studentT) Sample1(x []float64, r *rand.Rand) float64 {
	return p.loc(x) + studentTScale*studentTDraw(studentTNu, r)
}

// studentTLogNorm is log(Γ((ν+1)/2) / (Γ(ν/2) sqrt(νπ)) / s).
var studentTLogNorm = studentTLogPDF(0, studentTNu) - math.Log(studentTScale)

func (p *studentT) LogPDF(x []float64, y float64) float64 {
	z := (y - p.loc(x)) / studentTScale
	return studentTLogNorm - (studentTNu+1)/2*math.Log1p(z*z/studentTNu)
}

func (p *studentT) CDF(x []float64, y float64) float64 {
	return studentTCDF((y-p.loc(x))/studentTScale, studentTNu)
}

func (p *studentT) Mean(x []float64) float64 { return p.loc(x) } // ν > 1

// studentTLogPDF is log of the standard Student-t density with nu degrees
// of freedom:
//
//	Γ((ν+1)/2) / (Γ(ν/2) sqrt(νπ)) (1 + z²/ν)^(-(ν+1)/2).
func studentTLogPDF(z, nu float64) float64 {
	la, _ := math.Lgamma((nu + 1) / 2)
	lb, _ := math.Lgamma(nu / 2)
	return la - lb - 0.5*math.Log(nu*math.Pi) - (nu+1)/2*math.Log1p(z*z/nu)
}

// studentTCDF is P(T <= z) for the standard Student-t with nu degrees of
// freedom: P(|T| > |z|) = I_x(ν/2, 1/2) with x = ν/(ν+z²).
func studentTCDF(z, nu float64) float64 {
	if math.IsNaN(z) {
		return z
	}
	z2 := z * z
	// x = ν/(ν+z²) and 1-x = z²/(ν+z²), each without cancellation; z² = Inf
	// gives x = 0, 1-x = 1 and z = 0 gives x = 1, 1-x = 0.
	tail := 0.5 * regIncBeta(nu/2, 0.5, nu/(nu+z2), 1/(1+nu/z2))
	if z > 0 {
		return 1 - tail
	}
	return tail
}

// studentTDraw draws a standard Student-t with nu degrees of freedom by
// Bailey's polar method: for (U, V) uniform on the unit disc and
// W = U² + V², U sqrt(ν (W^(-2/ν) - 1) / W) is t_ν (Bailey 1994, Math.
// Comp. 62, 779-781).
func studentTDraw(nu float64, r *rand.Rand) float64 {
	for {
		u, v := 2*r.Float64()-1, 2*r.Float64()-1
		if w := u*u + v*v; w > 0 && w < 1 {
			return u * math.Sqrt(nu*(math.Pow(w, -2/nu)-1)/w)
		}
	}
}

// regIncBeta is the regularized incomplete beta function
//
//	I_x(a, b) = ∫_0^x s^(a-1) (1-s)^(b-1) ds / B(a, b),
//
// for a, b > 0, given x and y = 1 - x separately so that callers can pass
// both without cancellation. It sums the continued fraction (betaCF) on
// the side of (a+1)/(a+b+2) where it converges fast, using
// I_x(a, b) = 1 - I_y(b, a) on the other; the result is accurate to a few
// units in 1e-15, relative for values below ½.
func regIncBeta(a, b, x, y float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsNaN(y):
		return math.NaN()
	case x <= 0:
		return 0
	case y <= 0:
		return 1
	}
	lab, _ := math.Lgamma(a + b)
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	// front = x^a y^b / B(a, b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log(y))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, y)/b
}

// betaCF evaluates the continued fraction for the incomplete beta function
//
//	I_x(a, b) = x^a (1-x)^b / (a B(a, b)) · 1/(1+ d_1/(1+ d_2/(1+ ...))),
//	d_2m+1 = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1)),
//	d_2m   = m (b-m) x / ((a+2m-1)(a+2m)),
//
// by the modified Lentz method (Numerical Recipes, §6.4).
func betaCF(a, b, x float64) float64 {
	const (
		tiny = 1e-300
		eps  = 1e-16
	)
	fix := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c := 1.0
	d := 1 / fix(1-(a+b)*x/(a+1))
	h := d
	for m := 1.0; m <= 1000; m++ {
		num := m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m))
		d = 1 / fix(1+num*d)
		c = fix(1 + num/c)
		h *= d * c
		num = -(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1))
		d = 1 / fix(1+num*d)
		c = fix(1 + num/c)
		del := d * c
		h *= del
		if math.Abs(del-1) <= eps {
			break
		}
	}
	return h
}

// modes: Σ_i w_i N(c_i + 0.2t, s_i²), w ∝ (1, σ(30(t+⅓)), σ(30(t-⅓))).
type modes struct{ base }

var (
	modesCenter = [3]float64{-1, 0, 1}
	modesSD     = [3]float64{0.12, 0.10, 0.08}
)

const (
	modesSlope = 0.2 // the means move by 0.2t
	modesSharp = 30  // steepness of the sigmoids that switch modes on
)

// params returns the log weights and means of the three components.
func (p *modes) params(x []float64) (logW, mu [3]float64) {
	t := p.t(x)
	logW = [3]float64{0, logSigmoid(modesSharp * (t + 1.0/3)), logSigmoid(modesSharp * (t - 1.0/3))}
	lse := logAddExp(logAddExp(logW[0], logW[1]), logW[2])
	for i := range logW {
		logW[i] -= lse
		mu[i] = modesCenter[i] + modesSlope*t
	}
	return logW, mu
}

func (p *modes) Sample(n int, seed uint64) (X, Y []float64) { return sample(p, n, seed) }

func (p *modes) Sample1(x []float64, r *rand.Rand) float64 {
	logW, mu := p.params(x)
	u, i := r.Float64(), 0
	for ; i < 2; i++ {
		if u -= math.Exp(logW[i]); u < 0 {
			break
		}
	}
	return mu[i] + modesSD[i]*r.NormFloat64()
}

func (p *modes) LogPDF(x []float64, y float64) float64 {
	logW, mu := p.params(x)
	l := math.Inf(-1)
	for i := range logW {
		l = logAddExp(l, logW[i]+normLogPDF(y, mu[i], modesSD[i]))
	}
	return l
}

// CDF and Mean divide by the sum of the weights as rounded, so that
// CDF(+Inf) is exactly 1.

func (p *modes) CDF(x []float64, y float64) float64 {
	logW, mu := p.params(x)
	var c, s float64
	for i := range logW {
		w := math.Exp(logW[i])
		c += w * normCDF(y, mu[i], modesSD[i])
		s += w
	}
	return c / s
}

func (p *modes) Mean(x []float64) float64 {
	logW, mu := p.params(x)
	var m, s float64
	for i := range logW {
		w := math.Exp(logW[i])
		m += w * mu[i]
		s += w
	}
	return m / s
}
