package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Curve is a deterministic 1-D regression problem y = F(x), x uniform on
// [Lo, Hi]: one of the functions of the paper's curve-fitting figure, hard
// for a pointwise head through a steep change or a y range of many orders
// of magnitude.
type Curve struct {
	Name, Description string                  // the name CurveByName takes, and a line describing the curve
	Lo, Hi            float64                 // x uniform on [Lo, Hi]
	F                 func(x float64) float64 // the function (finite on [Lo, Hi] for the curves of Curves)
}

// stepAt is where the "step" curve jumps from 0 to 1.
const stepAt = 0.0

// Curves returns the curves, in a fixed order, each F finite on [Lo, Hi]:
//
//	sine      sin(x),        x in [-2π, 2π]:     smooth, two periods
//	highfreq  sin(20x),      x in [-1, 1]:       about 6.4 periods, slope 20
//	step      0 for x < 0, 1 for x >= 0, x in [-1, 1]: a jump at x = 0
//	abs       |x|,           x in [-1, 1]:       a kink at 0
//	exp       exp(x),        x in [0, 20]:       y from 1 to 4.9e8
//	pow10     10^x,          x in [-3, 6]:       y from 1e-3 to 1e6
//	x9        x^9,           x in [-10, 10]:     y from -1e9 to 1e9, flat near 0
//	tan       tan(x),        x in [0, π/2-0.01]: a vertical asymptote, y to 100
func Curves() []Curve {
	return []Curve{
		{"sine", "sin(x): smooth, two periods", -2 * math.Pi, 2 * math.Pi, math.Sin},
		{"highfreq", "sin(20x): high frequency, about 6.4 periods", -1, 1,
			func(x float64) float64 { return math.Sin(20 * x) }},
		{"step", "0 for x < 0, 1 for x >= 0: a discontinuity", -1, 1,
			func(x float64) float64 {
				if x < stepAt {
					return 0
				}
				return 1
			}},
		{"abs", "|x|: a kink", -1, 1, math.Abs},
		{"exp", "exp(x): growth over more than eight orders of magnitude", 0, 20, math.Exp},
		{"pow10", "10^x: y from 1e-3 to 1e6", -3, 6,
			func(x float64) float64 { return math.Pow(10, x) }},
		{"x9", "x^9: y from -1e9 to 1e9, flat near 0", -10, 10,
			func(x float64) float64 { x3 := x * x * x; return x3 * x3 * x3 }},
		{"tan", "tan(x): a vertical asymptote, y up to about 100", 0, math.Pi/2 - 0.01, math.Tan},
	}
}

// CurveByName returns the curve called name; an unknown name is an error
// that lists the names.
func CurveByName(name string) (Curve, error) {
	cs := Curves()
	names := make([]string, len(cs))
	for i, c := range cs {
		if c.Name == name {
			return c, nil
		}
		names[i] = c.Name
	}
	return Curve{}, fmt.Errorf("synth: unknown curve %q (have %s)", name, strings.Join(names, ", "))
}

// Sample draws n points: xs uniform on [Lo, Hi] from a PCG seeded by seed
// (as Problem.Sample), ys = F(xs). It depends only on n and seed. It
// panics if n < 0.
func (c Curve) Sample(n int, seed uint64) (xs, ys []float64) {
	if n < 0 {
		panic("synth: Curve.Sample: n < 0")
	}
	r := rand.New(rand.NewPCG(seed, sampleSeed2))
	xs = make([]float64, n)
	ys = make([]float64, n)
	for i := range xs {
		xs[i] = math.Min(c.Lo+(c.Hi-c.Lo)*r.Float64(), c.Hi) // no rounding past Hi
		ys[i] = c.F(xs[i])
	}
	return xs, ys
}
