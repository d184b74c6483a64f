package synth

// BBOB-style benchmark functions, following the definitions of Google
// Vizier's vizier/_src/benchmarks/experimenters/synthetic/bbob.py (read at
// commit 116788b565e90a541c670c814414dcc85ca1fe61), with vizier's default
// rotation seed 0.
//
// What seed 0 means there: vizier's rotation helper _R(dim, seed, ...)
// returns the identity matrix whenever seed == 0, so every rotation R and Q
// of these definitions is the identity, and no random number is drawn at
// all. Gallagher's "Me" variants place their local optima on a fixed
// deterministic grid (not at random), so they need no generator either.
// With identity rotations each matrix product of the Python code is exact
// (a diagonal matrix times a vector), so the code below works coordinate by
// coordinate and reproduces vizier's arithmetic step by step, in the same
// order: the same powers, the same summation order (numpy's pairwise
// summation where vizier calls np.sum, left-to-right where it uses Python's
// sum or a loop).
//
// Vizier's definitions differ from the COCO/BBOB reference in places, and
// the quirks are kept on purpose:
//   - no function is shifted: most optima are at the origin (RosenbrockRotated
//     at x_i = 0.5/max(1, sqrt(D)/8), AttractiveSector at (1,-1,1,...),
//     Schwefel at 4.2096874633/2·(-1,1,-1,...), Lunacek at x_i = 1.25);
//   - LinearSlope has no clipping: f(x) = Σ 10^(i/(D-1)) (5 - x_i), linear
//     everywhere, 0 at (5,...,5);
//   - StepEllipsoidal rounds to integers only where z > 0.5 (not |z| > 0.5);
//   - GriewankRosenbrock adds 1 (not 0.5) so that its optimum is the origin;
//   - Schwefel's z-hat uses 2|x_opt| in the coupling term;
//   - NegativeSphere is 100 + Σ z_i² - 2 z_0² (not -Sphere);
//   - Tosz(0) = 0; BuecheRastrigin's s_i tests the sign of x_i.

import (
	"fmt"
	"math"
	"strings"
)

// MaxBBOBDim bounds the dimension NewBBOB accepts (Gallagher101Me stores
// 2·101·D numbers).
const MaxBBOBDim = 1000

type bbobKind int

const (
	bkSphere bbobKind = iota
	bkEllipsoidal
	bkRastrigin
	bkBuecheRastrigin
	bkLinearSlope
	bkAttractiveSector
	bkStepEllipsoidal
	bkRosenbrockRotated
	bkDiscus
	bkBentCigar
	bkSharpRidge
	bkDifferentPowers
	bkWeierstrass
	bkSchaffersF7
	bkSchaffersF7IllConditioned
	bkGriewankRosenbrock
	bkSchwefel
	bkKatsuura
	bkLunacek
	bkGallagher101Me
	bkGallagher21Me
	bkNegativeSphere
	bkNegativeMinDifference
	bkFonsecaFleming
	bkCount
)

type bbobSpec struct {
	name   string
	minDim int
	desc   string
}

// bbobSpecs is indexed by bbobKind. minDim is 2 for the functions built from
// consecutive pairs (z_i, z_{i+1}), for which vizier divides by D-1 or
// returns a constant for D = 1, and for Lunacek, whose s = 1 -
// 1/(2·sqrt(D+20) - 8.2) is negative for D = 1 (vizier's value is complex).
var bbobSpecs = [bkCount]bbobSpec{
	{"Sphere", 1, "sphere: sum of x_i^2; separable, unimodal; minimum 0 at the origin"},
	{"Ellipsoidal", 1, "separable ellipsoid on Tosz(x), conditioning 1e6; minimum 0 at the origin"},
	{"Rastrigin", 1, "Rastrigin on Tasy(Tosz(x)) with conditioning 10; ~10^D local minima; minimum 0 at the origin"},
	{"BuecheRastrigin", 1, "Bueche-Rastrigin: skewed separable Rastrigin plus 100*Fpen; minimum 0 at the origin"},
	{"LinearSlope", 1, "linear slope sum 10^(i/(D-1))*(5-x_i), unclipped; minimum 0 at (5,...,5) on the box"},
	{"AttractiveSector", 1, "attractive sector, highly asymmetric around (1,-1,1,...), where it is 0"},
	{"StepEllipsoidal", 1, "step ellipsoid: plateaus of a rounded conditioned ellipsoid plus Fpen; minimum 0 at the origin"},
	{"RosenbrockRotated", 2, "Rosenbrock on max(1,sqrt(D)/8)*x+0.5; minimum 0 at x_i = 0.5/max(1,sqrt(D)/8)"},
	{"Discus", 1, "discus on Tosz(x): 1e6*z_0^2 + sum z_i^2; minimum 0 at the origin"},
	{"BentCigar", 1, "bent cigar on Tasy(x): z_0^2 + 1e6*sum z_i^2; minimum 0 at the origin"},
	{"SharpRidge", 1, "sharp ridge: z_0^2 + 100*sqrt(sum z_i^2), non-differentiable ridge; minimum 0 at the origin"},
	{"DifferentPowers", 1, "different powers: sqrt(sum |x_i|^(2+4i/(D-1))); minimum 0 at the origin"},
	{"Weierstrass", 1, "Weierstrass: rugged, continuous nowhere-differentiable, plus Fpen; minimum 0 at the origin"},
	{"SchaffersF7", 2, "Schaffers F7 on Tasy(x), conditioning 10, plus Fpen; minimum 0 at the origin"},
	{"SchaffersF7IllConditioned", 2, "Schaffers F7 on Tasy(x), conditioning 1000, plus Fpen; minimum 0 at the origin"},
	{"GriewankRosenbrock", 2, "composite Griewank-Rosenbrock F8F2 on max(1,sqrt(D)/8)*x+1; minimum 0 at the origin"},
	{"Schwefel", 1, "Schwefel x*sin(sqrt|x|) with coupling and conditioning; minimum ~0 at 2.10484373165*(-1,1,-1,...)"},
	{"Katsuura", 1, "Katsuura: highly rugged, repetitive product of digit sums, plus Fpen; minimum 0 at the origin"},
	{"Lunacek", 2, "Lunacek bi-Rastrigin: double funnel plus Rastrigin plus 1e4*Fpen; minimum 0 at x_i = 1.25"},
	{"Gallagher101Me", 1, "Gallagher with 101 Gaussian peaks on a fixed grid (vizier's variant); minimum 0 at the origin"},
	{"Gallagher21Me", 1, "Gallagher with 21 Gaussian peaks on a fixed grid (vizier's variant); minimum 0 at the origin"},
	{"NegativeSphere", 1, "100 + sum x_i^2 - 2*x_0^2: a saddle, concave in x_0; on [-5,5]^D minimum 75 at (+-5,0,...,0)"},
	{"NegativeMinDifference", 2, "10 - min_i(x_{i+1}-x_i) + 1e-8*sum x_i: rewards spread-out increasing coordinates"},
	{"FonsecaFleming", 1, "1 - exp(-sum x_i^2), flat away from the origin; minimum 0 at the origin"},
}

// BBOBNames returns the 24 function names, in vizier's benchmark order
// (a fresh slice).
func BBOBNames() []string {
	out := make([]string, len(bbobSpecs))
	for i, s := range bbobSpecs {
		out[i] = s.name
	}
	return out
}

// BBOBDescription returns a one-line description of the named function
// ("" if unknown).
func BBOBDescription(name string) string {
	k, ok := bbobLookup(name)
	if !ok {
		return ""
	}
	return bbobSpecs[k].desc
}

func bbobLookup(name string) (bbobKind, bool) {
	for i, s := range bbobSpecs {
		if s.name == name {
			return bbobKind(i), true
		}
	}
	return 0, false
}

// BBOB is one function in a fixed dimension. It is immutable after NewBBOB
// and safe for concurrent use.
type BBOB struct {
	name string
	dim  int
	kind bbobKind

	lam []float64 // diagonal of vizier's LambdaAlpha(alpha, D), alpha per function
	w   []float64 // per-coordinate weight or exponent (see NewBBOB)
	t   []float64 // Tasy's i/(D-1) (1 for D = 1)
	c   float64   // a per-function scalar (see NewBBOB)
	c2  float64   // a second scalar (Lunacek's mu1)

	// Gallagher: nOpt optima, each with dim coordinates and dim diagonal
	// entries of its conditioning matrix, and a peak height.
	nOpt int
	gOpt []float64
	gC   []float64
	gW   []float64
}

// NewBBOB returns the named function (exact name, as in BBOBNames) in dim
// dimensions. An unknown name, dim < 1, dim > MaxBBOBDim, and dim < 2 for
// the functions built on consecutive pairs of coordinates
// (RosenbrockRotated, SchaffersF7, SchaffersF7IllConditioned,
// GriewankRosenbrock, NegativeMinDifference) and for Lunacek (complex for
// D = 1 in vizier) are errors.
func NewBBOB(name string, dim int) (*BBOB, error) {
	k, ok := bbobLookup(name)
	if !ok {
		return nil, fmt.Errorf("synth: unknown BBOB function %q (known: %s)", name, strings.Join(BBOBNames(), ", "))
	}
	spec := bbobSpecs[k]
	if dim < spec.minDim {
		return nil, fmt.Errorf("synth: BBOB %s needs dim >= %d, got %d", name, spec.minDim, dim)
	}
	if dim > MaxBBOBDim {
		return nil, fmt.Errorf("synth: BBOB %s: dim %d exceeds the limit MaxBBOBDim = %d", name, dim, MaxBBOBDim)
	}
	f := &BBOB{name: name, dim: dim, kind: k}
	d := float64(dim)
	switch k {
	case bkRastrigin, bkAttractiveSector, bkStepEllipsoidal, bkSharpRidge, bkSchaffersF7, bkSchwefel:
		f.lam = lambdaAlpha(10, dim)
	case bkSchaffersF7IllConditioned:
		f.lam = lambdaAlpha(1000, dim)
	case bkWeierstrass:
		f.lam = lambdaAlpha(1.0/100.0, dim)
	case bkKatsuura, bkLunacek:
		f.lam = lambdaAlpha(100, dim)
	}
	switch k {
	case bkRastrigin, bkBentCigar, bkSchaffersF7, bkSchaffersF7IllConditioned:
		f.t = make([]float64, dim)
		for i := range f.t {
			f.t[i] = 1
			if dim > 1 {
				f.t[i] = float64(i) / (d - 1.0)
			}
		}
	}
	switch k {
	case bkEllipsoidal: // 10**(6.0*i/(dim-1)), 10**6.0 for D = 1
		f.w = powers(dim, func(i int) float64 { return 6.0 * float64(i) / float64(dim-1) }, 6.0)
	case bkLinearSlope: // 10**(i/float(dim-1)), 10**1 for D = 1
		f.w = powers(dim, func(i int) float64 { return float64(i) / float64(dim-1) }, 1)
	case bkStepEllipsoidal: // 10.0**(2.0*i/(dim-1.0)), 10**2.0 for D = 1
		f.w = powers(dim, func(i int) float64 { return 2.0 * float64(i) / (d - 1.0) }, 2.0)
	case bkBuecheRastrigin: // SIndex before the factor 10: 10**(0.5*(i/(dim-1.0)))
		f.w = powers(dim, func(i int) float64 { return 0.5 * (float64(i) / (d - 1.0)) }, 0.5)
	case bkDifferentPowers: // exponents 2 + 4*i/(dim-1), 6 for D = 1
		f.w = make([]float64, dim)
		for i := range f.w {
			f.w[i] = 6
			if dim > 1 {
				f.w[i] = 2 + float64(4*i)/float64(dim-1)
			}
		}
	case bkRosenbrockRotated, bkGriewankRosenbrock:
		f.c = math.Max(1.0, math.Sqrt(d)/8.0)
	case bkKatsuura:
		f.c = 10.0 / math.Pow(d, 1.2) // the exponent 10/D^1.2
		f.c2 = 10.0 / float64(dim*dim)
	case bkLunacek:
		const mu0 = 2.5
		f.c = 1.0 - 1.0/(2.0*math.Sqrt(d+20.0)-8.2) // s
		f.c2 = -math.Sqrt((mu0*mu0 - 1) / f.c)      // mu1
	case bkGallagher101Me:
		f.initGallagher(101)
	case bkGallagher21Me:
		f.initGallagher(21)
	}
	return f, nil
}

// Name returns the function's name.
func (f *BBOB) Name() string { return f.name }

// Dim returns the function's dimension.
func (f *BBOB) Dim() int { return f.dim }

// Eval returns f(x). It panics if len(x) != f.Dim().
func (f *BBOB) Eval(x []float64) float64 {
	if len(x) != f.dim {
		panic(fmt.Sprintf("synth: BBOB %s: Eval got %d coordinates, want %d", f.name, len(x), f.dim))
	}
	switch f.kind {
	case bkSphere:
		return npSum(mapSlice(x, func(_ int, v float64) float64 { return v * v }))
	case bkEllipsoidal:
		s := 0.0
		for i, v := range x {
			z := tosz(v)
			s += f.w[i] * z * z
		}
		return s
	case bkRastrigin:
		return f.rastrigin(x)
	case bkBuecheRastrigin:
		return f.buecheRastrigin(x)
	case bkLinearSlope:
		s := 0.0
		for i, v := range x {
			s += f.w[i] * (5.0 - v)
		}
		return s
	case bkAttractiveSector:
		return f.attractiveSector(x)
	case bkStepEllipsoidal:
		return f.stepEllipsoidal(x)
	case bkRosenbrockRotated:
		return f.rosenbrock(x)
	case bkDiscus:
		z0 := tosz(x[0])
		rest := 0.0
		for _, v := range x[1:] {
			z := tosz(v)
			rest += z * z
		}
		return 1e6*z0*z0 + rest
	case bkBentCigar:
		z := mapSlice(x, func(i int, v float64) float64 { return tasy(v, 0.5, f.t[i]) })
		for i := 1; i < len(z); i++ {
			z[i] *= z[i]
		}
		return z[0]*z[0] + 1e6*npSum(z[1:])
	case bkSharpRidge:
		z0 := f.lam[0] * x[0]
		sq := make([]float64, f.dim-1)
		for i := range sq {
			z := f.lam[i+1] * x[i+1]
			sq[i] = z * z
		}
		return z0*z0 + 100*math.Sqrt(npSum(sq))
	case bkDifferentPowers:
		s := 0.0
		for i, v := range x {
			s += math.Pow(math.Abs(v), f.w[i])
		}
		return math.Sqrt(s)
	case bkWeierstrass:
		return f.weierstrass(x)
	case bkSchaffersF7, bkSchaffersF7IllConditioned:
		return f.schaffers(x)
	case bkGriewankRosenbrock:
		return f.griewankRosenbrock(x)
	case bkSchwefel:
		return f.schwefel(x)
	case bkKatsuura:
		return f.katsuura(x)
	case bkLunacek:
		return f.lunacek(x)
	case bkGallagher101Me, bkGallagher21Me:
		return f.gallagher(x)
	case bkNegativeSphere:
		s := npSum(mapSlice(x, func(_ int, v float64) float64 { return v * v }))
		return 100 + s - 2*(x[0]*x[0])
	case bkNegativeMinDifference:
		md := 10000.0
		for i := 0; i+1 < len(x); i++ {
			if d := x[i+1] - x[i]; d < md {
				md = d
			}
		}
		sx := 0.0
		for _, v := range x {
			sx += v
		}
		return 10.0 - md + 1e-8*sx
	case bkFonsecaFleming:
		return 1.0 - math.Exp(-npSum(mapSlice(x, func(_ int, v float64) float64 { return v * v })))
	}
	panic("synth: unreachable BBOB kind")
}

func (f *BBOB) rastrigin(x []float64) float64 {
	twoPi := 2 * math.Pi
	z := mapSlice(x, func(i int, v float64) float64 { return f.lam[i] * tasy(tosz(v), 0.2, f.t[i]) })
	cs := mapSlice(z, func(_ int, v float64) float64 { return math.Cos(twoPi * v) })
	sq := mapSlice(z, func(_ int, v float64) float64 { return v * v })
	return 10*(float64(f.dim)-npSum(cs)) + npSum(sq)
}

func (f *BBOB) buecheRastrigin(x []float64) float64 {
	twoPi := 2 * math.Pi
	l := mapSlice(x, func(i int, v float64) float64 {
		s := f.w[i]
		if i%2 == 0 && v > 0 {
			s *= 10
		}
		return s * tosz(v)
	})
	cs := mapSlice(l, func(_ int, v float64) float64 { return math.Cos(twoPi * v) })
	sq := mapSlice(l, func(_ int, v float64) float64 { return v * v })
	term1 := 10 * (float64(f.dim) - npSum(cs))
	return term1 + npSum(sq) + 100*fpen(x, 1)
}

func (f *BBOB) attractiveSector(x []float64) float64 {
	r := 0.0
	for i, v := range x {
		xo := 1.0
		if i%2 == 1 {
			xo = -1
		}
		z := f.lam[i] * (v - xo)
		s := 1.0
		if z*xo > 0 {
			s = 100
		}
		sz := s * z
		r += sz * sz
	}
	return math.Pow(tosz(r), 0.9)
}

func (f *BBOB) stepEllipsoidal(x []float64) float64 {
	s := 0.0
	for i, v := range x {
		zh := f.lam[i] * v
		var zt float64
		if zh > 0.5 {
			zt = math.Floor(0.5 + zh)
		} else {
			zt = math.Floor(0.5+float64(10*zh)) / 10
		}
		s += f.w[i] * (zt * zt)
	}
	value := math.Abs(f.lam[0]*x[0]) / 1000
	if s > value {
		value = s
	}
	return 0.1*value + fpen(x, 1)
}

func (f *BBOB) rosenbrock(x []float64) float64 {
	s := 0.0
	for i := 0; i+1 < len(x); i++ {
		zi := f.c*x[i] + 0.5
		zn := f.c*x[i+1] + 0.5
		a := zi*zi - zn
		b := zi - 1
		s += 100.0*(a*a) + b*b
	}
	return s
}

func (f *BBOB) weierstrass(x []float64) float64 {
	s := 0.0
	for i, v := range x {
		z := f.lam[i] * tosz(v)
		for k := range weierK {
			s += weierHalf[k] * math.Cos(weierArg[k]*(z+0.5))
		}
	}
	d := float64(f.dim)
	return 10*math.Pow(s/d-weierF0, 3) + 10*fpen(x, 1)/d
}

func (f *BBOB) schaffers(x []float64) float64 {
	z := mapSlice(x, func(i int, v float64) float64 { return f.lam[i] * tasy(v, 0.5, f.t[i]) })
	s := 0.0
	for i := 0; i+1 < len(z); i++ {
		si := math.Sqrt(z[i]*z[i] + z[i+1]*z[i+1])
		a := math.Sqrt(si)
		sn := math.Sin(50 * math.Pow(si, 0.2))
		s += a + a*(sn*sn)
	}
	m := s / (float64(f.dim) - 1.0)
	return m*m + 10*fpen(x, 1)
}

func (f *BBOB) griewankRosenbrock(x []float64) float64 {
	total := 0.0
	for i := 0; i+1 < len(x); i++ {
		zi := f.c*x[i] + 1
		zn := f.c*x[i+1] + 1
		a := zi*zi - zn
		b := zi - 1
		si := 100.0*(a*a) + b*b
		total += si/4000.0 - math.Cos(si)
	}
	return (10.0*total)/float64(f.dim-1) + 10
}

// schwefelXOpt is vizier's 4.2096874633/2; its x_opt is schwefelXOpt times
// (-1, 1, -1, 1, ...).
const schwefelXOpt = 4.2096874633 / 2.0

func (f *BBOB) schwefel(x []float64) float64 {
	twoA := 2 * float64(schwefelXOpt) // 2*|x_opt_i|
	total := 0.0
	pen := 0.0
	prevHat := 0.0
	for i, v := range x {
		b := 1.0
		if i%2 == 0 {
			b = -1
		}
		xh := 2.0 * (b * v)
		zh := xh
		if i > 0 {
			zh = xh + 0.25*(prevHat-twoA)
		}
		prevHat = xh
		z := 100 * (f.lam[i]*(zh-twoA) + twoA)
		total += z * math.Sin(math.Sqrt(math.Abs(z)))
		if p := math.Abs(z/100) - 5.0; p > 0 {
			pen += p * p
		}
	}
	return -(total / (100.0 * float64(f.dim))) + 4.189828872724339 + 100*pen
}

func (f *BBOB) katsuura(x []float64) float64 {
	prod := 1.0
	for i, v := range x {
		z := f.lam[i] * v
		s := 0.0
		p := 1.0
		for j := 1; j <= 32; j++ {
			p *= 2
			t := p * z
			s += math.Abs(t-math.RoundToEven(t)) / p
		}
		prod *= math.Pow(1+float64(i+1)*s, f.c)
	}
	return f.c2*prod - f.c2 + fpen(x, 1)
}

func (f *BBOB) lunacek(x []float64) float64 {
	const mu0 = 2.5
	twoPi := 2 * math.Pi
	s, mu1 := f.c, f.c2
	s1, s2, s3 := 0.0, 0.0, 0.0
	for i, v := range x {
		xh := 2 * v
		a := xh - mu0
		s1 += a * a
		b := xh - mu1
		s2 += b * b
		s3 += math.Cos(twoPi * (f.lam[i] * a))
	}
	d := float64(f.dim)
	m := d + s*s2
	if !(m < s1) {
		m = s1
	}
	return m + 10.0*(d-s3) + 1e4*fpen(x, 1)
}

// initGallagher precomputes vizier's Gallagher*Me optima (optimum 0 at the
// origin, the others on the grid -5 + 10*(i*D+j+1)/(D*n+2)), the diagonals of
// their conditioning matrices and their peak heights.
func (f *BBOB) initGallagher(n int) {
	dim := f.dim
	f.nOpt = n
	f.gOpt = make([]float64, n*dim)
	f.gC = make([]float64, n*dim)
	f.gW = make([]float64, n)
	for i := 0; i < n-1; i++ {
		for j := 0; j < dim; j++ {
			alpha := float64(i*dim+j+1) / float64(dim*n+2)
			f.gOpt[(i+1)*dim+j] = -5 + 10*alpha
		}
	}
	copy(f.gC[:dim], lambdaAlpha(1000, dim))
	for i := 0; i < n-1; i++ {
		alpha := math.Pow(1000.0, 2.0*float64(i)/float64(n-2))
		la := lambdaAlpha(alpha, dim)
		q := math.Pow(alpha, 0.25)
		for j := range la {
			f.gC[(i+1)*dim+j] = la[j] / q
		}
	}
	f.gW[0] = 10
	for i := 1; i < n; i++ {
		f.gW[i] = 1.1 + 8.0*(float64(i)-1.0)/(float64(n)-2.0)
	}
}

func (f *BBOB) gallagher(x []float64) float64 {
	dim := f.dim
	maxValue := -1.0
	for i := 0; i < f.nOpt; i++ {
		o := f.gOpt[i*dim : (i+1)*dim]
		c := f.gC[i*dim : (i+1)*dim]
		e := 0.0
		for j, v := range x {
			d := v - o[j]
			e += d * (c[j] * d)
		}
		if v := f.gW[i] * math.Exp(-e/(2.0*float64(dim))); v > maxValue {
			maxValue = v
		}
	}
	t := tosz(10.0 - maxValue)
	return t*t + fpen(x, 1)
}

// Weierstrass constants: 0.5^k, 2π·3^k and f0 = Σ 0.5^k cos(π·3^k), k < 12,
// computed with float64 roundings as vizier does.
const weierK = 12

var weierHalf, weierArg, weierF0 = weierConsts()

func weierConsts() (half, arg [weierK]float64, f0 float64) {
	pi := math.Pi
	twoPi := 2 * pi
	p3 := 1.0
	for k := 0; k < weierK; k++ {
		half[k] = math.Ldexp(1, -k)
		arg[k] = twoPi * p3
		f0 += half[k] * math.Cos(pi*p3)
		p3 *= 3
	}
	return half, arg, f0
}

// lambdaAlpha returns the diagonal of vizier's LambdaAlpha(alpha, dim):
// alpha**(0.5*(i/(dim-1))), alpha**0.5 for dim = 1.
func lambdaAlpha(alpha float64, dim int) []float64 {
	out := make([]float64, dim)
	for i := range out {
		e := 0.5
		if dim > 1 {
			e = 0.5 * (float64(i) / float64(dim-1))
		}
		out[i] = math.Pow(alpha, e)
	}
	return out
}

// powers returns 10**e(i) for i < dim, or 10**e1 for dim = 1.
func powers(dim int, e func(int) float64, e1 float64) []float64 {
	out := make([]float64, dim)
	for i := range out {
		if dim > 1 {
			out[i] = math.Pow(10, e(i))
		} else {
			out[i] = math.Pow(10, e1)
		}
	}
	return out
}

// tosz is BBOB's oscillation transform T_osz, as vizier writes it (0 at 0).
func tosz(v float64) float64 {
	if v == 0 {
		return 0
	}
	xc := math.Log(math.Abs(v))
	c1, c2 := 5.5, 3.1
	if v > 0 {
		c1, c2 = 10.0, 7.9
	}
	r := math.Exp(xc + 0.049*(math.Sin(c1*xc)+math.Sin(c2*xc)))
	switch {
	case v > 0:
		return r
	case v < 0:
		return -r
	}
	return v // NaN
}

// tasy is BBOB's asymmetry transform T_asy for one coordinate, t = i/(D-1).
func tasy(v, beta, t float64) float64 {
	if v > 0 {
		return math.Pow(v, 1+beta*t*math.Sqrt(v))
	}
	return v
}

// fpen is vizier's Fpen(v/scale): Σ max(0, |v_i|-5)², summed left to right.
func fpen(v []float64, scale float64) float64 {
	s := 0.0
	for _, x := range v {
		if p := math.Abs(x/scale) - 5.0; p > 0 {
			s += p * p
		}
	}
	return s
}

func mapSlice(x []float64, fn func(int, float64) float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = fn(i, v)
	}
	return out
}

// npSum is np.sum of a float64 vector: numpy's pairwise summation (blocks of
// 128, eight accumulators), added to the reduction's initial 0.
func npSum(a []float64) float64 {
	return 0 + pairwiseSum(a)
}

func pairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		res := 0.0
		for _, v := range a {
			res += v
		}
		return res
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for k := range r {
				r[k] += a[i+k]
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += a[i]
		}
		return res
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwiseSum(a[:n2]) + pairwiseSum(a[n2:])
	}
}
