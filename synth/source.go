package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Source is a synthetic data set: one of the problems of the paper's
// experiments, named by a spec such as "bbob:function=Sphere,dim=5",
// "curve:name=tan", "density:name=ring" or "truncnorm:mean=0.5,std=0.25"
// (see ParseSource and Sources).
type Source interface {
	// Spec is the source's canonical spec (every parameter given).
	Spec() string
	// Dim is the number of x columns (0 for truncnorm).
	Dim() int
	// Draw returns n rows: X, (n, Dim()) row-major, from the source's
	// input distribution, and their targets Y. It depends only on n and
	// seed.
	Draw(n int, seed uint64) (X, Y []float64)
	// HasDensity reports whether the truth has a density (LogPDF).
	HasDensity() bool
	// LogPDF is the true log p(y|x); NaN where HasDensity is false.
	LogPDF(x []float64, y float64) float64
}

// SourceInfo describes one kind of source for a listing.
type SourceInfo struct {
	Spec, Description string // a spec (with dim=D where the user picks it) and a line describing the source
}

// MaxSourceDim caps the dim of BBOB and density sources, to keep a drawn
// row's size bounded.
const MaxSourceDim = 1000

// Sources lists every source ParseSource knows, one entry per problem
// (BBOB functions with dim=D left to the user), in a fixed order.
func Sources() []SourceInfo {
	var out []SourceInfo
	for _, n := range BBOBNames() {
		out = append(out, SourceInfo{"bbob:function=" + n + ",dim=D", BBOBDescription(n) + "; x uniform on [-5, 5]^D"})
	}
	for _, c := range Curves() {
		out = append(out, SourceInfo{"curve:name=" + c.Name, fmt.Sprintf("%s; x uniform on [%.6g, %.6g]", c.Description, c.Lo, c.Hi)})
	}
	for _, n := range AllNames() {
		out = append(out, SourceInfo{"density:name=" + n + ",dim=1", densityDescriptions[n] + "; x uniform on [-1, 1]^dim, exact logpdf"})
	}
	out = append(out, SourceInfo{"truncnorm:mean=0.5,std=0.25", "N(mean, std²) truncated to [0, 1], the paper's risk theorem; no x columns, exact logpdf"})
	return out
}

var densityDescriptions = map[string]string{
	"mixture":   "two Gaussian modes whose weights and means move with x",
	"hetero":    "heteroscedastic: N(sin 3t, (0.05 + 0.15(1+t))²)",
	"ring":      "a noisy circle y = ±sqrt(1 - t²): bimodal in the middle, unimodal at the ends",
	"lognormal": "skewed: log y ~ N(0.5t, 0.5²)",
	"modes":     "the number of modes changes with x: one, two, then three",
	"studentt":  "heavy-tailed: 0.5t + 0.2 T(2.5)",
}

// ParseSource parses a source spec: KIND:KEY=VALUE,... with
//
//	bbob:function=NAME,dim=D       (both required; NAME as in BBOBNames)
//	curve:name=NAME                (NAME as in Curves)
//	density:name=NAME[,dim=D]      (NAME as in AllNames; dim 1 by default)
//	truncnorm[:mean=M,std=S]       (0.5 and 0.25 by default)
//
// An unknown kind or key, a repeated key, a missing required key or a bad
// value is an error that says which.
func ParseSource(spec string) (Source, error) {
	kind, rest, _ := strings.Cut(strings.TrimSpace(spec), ":")
	kind = strings.TrimSpace(kind)
	kv := map[string]string{}
	if strings.TrimSpace(rest) != "" {
		for _, f := range strings.Split(rest, ",") {
			k, v, ok := strings.Cut(f, "=")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if !ok || k == "" {
				return nil, fmt.Errorf("synth: %q: want KEY=VALUE, have %q", spec, f)
			}
			if _, dup := kv[k]; dup {
				return nil, fmt.Errorf("synth: %q: %s given twice", spec, k)
			}
			kv[k] = v
		}
	}
	allow := func(keys ...string) error {
		for k := range kv {
			ok := false
			for _, a := range keys {
				ok = ok || k == a
			}
			if !ok {
				return fmt.Errorf("synth: %q: unknown key %q for %s (want %s)", spec, k, kind, strings.Join(keys, ", "))
			}
		}
		return nil
	}
	need := func(k string) (string, error) {
		v, ok := kv[k]
		if !ok || v == "" {
			return "", fmt.Errorf("synth: %q: %s needs %s=", spec, kind, k)
		}
		return v, nil
	}
	dim := func(def int) (int, error) {
		v, ok := kv["dim"]
		if !ok {
			if def > 0 {
				return def, nil
			}
			return 0, fmt.Errorf("synth: %q: %s needs dim=", spec, kind)
		}
		d, err := strconv.Atoi(v)
		if err != nil || d < 1 || d > MaxSourceDim {
			return 0, fmt.Errorf("synth: %q: dim must be an integer from 1 to %d, have %q", spec, MaxSourceDim, v)
		}
		return d, nil
	}
	switch kind {
	case "bbob":
		if err := allow("function", "dim"); err != nil {
			return nil, err
		}
		name, err := need("function")
		if err != nil {
			return nil, err
		}
		d, err := dim(0)
		if err != nil {
			return nil, err
		}
		f, err := NewBBOB(name, d)
		if err != nil {
			return nil, err
		}
		return bbobSource{f}, nil
	case "curve":
		if err := allow("name"); err != nil {
			return nil, err
		}
		name, err := need("name")
		if err != nil {
			return nil, err
		}
		c, err := CurveByName(name)
		if err != nil {
			return nil, err
		}
		return curveSource{c}, nil
	case "density":
		if err := allow("name", "dim"); err != nil {
			return nil, err
		}
		name, err := need("name")
		if err != nil {
			return nil, err
		}
		d, err := dim(1)
		if err != nil {
			return nil, err
		}
		p, err := New(name, d)
		if err != nil {
			return nil, err
		}
		return densitySource{p}, nil
	case "truncnorm":
		if err := allow("mean", "std"); err != nil {
			return nil, err
		}
		mean, std := 0.5, 0.25
		for k, p := range map[string]*float64{"mean": &mean, "std": &std} {
			if v, ok := kv[k]; ok {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
					return nil, fmt.Errorf("synth: %q: %s must be a finite number, have %q", spec, k, v)
				}
				*p = f
			}
		}
		t, err := NewTruncNorm(mean, std)
		if err != nil {
			return nil, err
		}
		return truncSource{t}, nil
	}
	return nil, fmt.Errorf("synth: %q: unknown kind %q (want bbob, curve, density or truncnorm)", spec, kind)
}

type bbobSource struct{ f *BBOB }

func (s bbobSource) Spec() string {
	return fmt.Sprintf("bbob:function=%s,dim=%d", s.f.Name(), s.f.Dim())
}
func (s bbobSource) Dim() int                              { return s.f.Dim() }
func (s bbobSource) HasDensity() bool                      { return false }
func (s bbobSource) LogPDF(_ []float64, _ float64) float64 { return math.NaN() }
func (s bbobSource) Draw(n int, seed uint64) (X, Y []float64) {
	d := s.f.Dim()
	X = UniformBox(n, d, -5, 5, seed)
	Y = make([]float64, n)
	for i := range Y {
		Y[i] = s.f.Eval(X[i*d : (i+1)*d])
	}
	return X, Y
}

type curveSource struct{ c Curve }

func (s curveSource) Spec() string                             { return "curve:name=" + s.c.Name }
func (s curveSource) Dim() int                                 { return 1 }
func (s curveSource) HasDensity() bool                         { return false }
func (s curveSource) LogPDF(_ []float64, _ float64) float64    { return math.NaN() }
func (s curveSource) Draw(n int, seed uint64) (X, Y []float64) { return s.c.Sample(n, seed) }

type densitySource struct{ p Problem }

func (s densitySource) Spec() string {
	return fmt.Sprintf("density:name=%s,dim=%d", s.p.Name(), s.p.Dim())
}
func (s densitySource) Dim() int                                 { return s.p.Dim() }
func (s densitySource) HasDensity() bool                         { return true }
func (s densitySource) LogPDF(x []float64, y float64) float64    { return s.p.LogPDF(x, y) }
func (s densitySource) Draw(n int, seed uint64) (X, Y []float64) { return s.p.Sample(n, seed) }

type truncSource struct{ t TruncNorm }

func (s truncSource) Spec() string {
	return "truncnorm:mean=" + strconv.FormatFloat(s.t.Mean, 'g', -1, 64) + ",std=" + strconv.FormatFloat(s.t.Std, 'g', -1, 64)
}
func (s truncSource) Dim() int                              { return 0 }
func (s truncSource) HasDensity() bool                      { return true }
func (s truncSource) LogPDF(_ []float64, y float64) float64 { return s.t.LogPDF(y) }
func (s truncSource) Draw(n int, seed uint64) (X, Y []float64) {
	return nil, s.t.Sample(n, seed)
}

// UniformBox draws n rows of d values uniform on [lo, hi] from a PCG
// seeded by seed, row by row. It panics if n or d is negative or n×d
// overflows int.
func UniformBox(n, d int, lo, hi float64, seed uint64) []float64 {
	if n < 0 || d < 0 || d > 0 && n > math.MaxInt/d {
		panic(fmt.Sprintf("synth: UniformBox: %d rows of %d values", n, d))
	}
	r := newRand(seed)
	x := make([]float64, n*d)
	for i := range x {
		x[i] = lo + (hi-lo)*r.Float64()
	}
	return x
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, sampleSeed2)) }
