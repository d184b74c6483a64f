package gradcheck

import (
	"fmt"
	"math"
	"testing"
)

func TestGradientOfKnownFunction(t *testing.T) {
	// f(x) = sin(x0)*x1^2 + exp(x2/3) - x0*x2; exact gradient below.
	f := func(x []float64) float64 {
		return math.Sin(x[0])*x[1]*x[1] + math.Exp(x[2]/3) - x[0]*x[2]
	}
	x := []float64{0.3, -1.7, 2.2}
	orig := append([]float64(nil), x...)
	want := []float64{
		math.Cos(x[0])*x[1]*x[1] - x[2],
		2 * math.Sin(x[0]) * x[1],
		math.Exp(x[2]/3)/3 - x[0],
	}
	got := Gradient(nil, f, x, 0)
	if d, bad := Compare(got, want, 1e-9, 1e-9); bad >= 0 {
		t.Fatalf("gradient %v, want %v (max diff %g)", got, want, d)
	}
	for i := range x {
		if x[i] != orig[i] {
			t.Fatalf("x not restored: %v, was %v", x, orig)
		}
	}
}

func TestCompareReportsFirstBad(t *testing.T) {
	d, bad := Compare([]float64{1, 2.5, 3, math.NaN()}, []float64{1, 2, 4, 0}, 0.1, 0)
	if bad != 1 || !math.IsNaN(d) {
		t.Fatalf("Compare = (%v, %d), want (NaN, 1)", d, bad)
	}
	if _, bad := Compare([]float64{1, 2}, []float64{1.05, 2}, 0, 0.1); bad != -1 {
		t.Fatalf("Compare flagged %d within tolerance", bad)
	}
}

func ExampleGradient() {
	f := func(x []float64) float64 { return x[0]*x[0] + 3*x[0]*x[1] }
	g := Gradient(nil, f, []float64{1, 2}, 0)
	fmt.Printf("%.6f %.6f\n", g[0], g[1])
	// Output: 8.000000 3.000000
}

// TestSimpson: exact for cubics, and converging at h^4 on exp.
func TestSimpson(t *testing.T) {
	if got := Simpson(func(x float64) float64 { return x*x*x - 2*x + 1 }, -1, 2, 2); !(math.Abs(got-15.0/4) <= 1e-12) {
		t.Errorf("cubic: %v, want %v", got, 15.0/4)
	}
	want := math.E - 1
	e1 := math.Abs(Simpson(math.Exp, 0, 1, 8) - want)
	e2 := math.Abs(Simpson(math.Exp, 0, 1, 16) - want)
	if !(e2 < e1/12 && e2 > 0) {
		t.Errorf("exp: errors %v and %v at 8 and 16 panels, want a ratio near 16", e1, e2)
	}
}
