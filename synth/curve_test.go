package synth

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestCurveValues checks each curve at hand-computed points.
func TestCurveValues(t *testing.T) {
	for _, tc := range []struct {
		name    string
		x, want float64
	}{
		{"sine", math.Pi / 2, 1},
		{"sine", -math.Pi / 6, -0.5},
		{"sine", 2 * math.Pi, 0},
		{"highfreq", math.Pi / 40, 1},      // sin(π/2)
		{"highfreq", -math.Pi / 120, -0.5}, // sin(-π/6)
		{"step", -1, 0},
		{"step", -1e-300, 0},
		{"step", 0, 1},
		{"step", 1, 1},
		{"abs", -0.3, 0.3},
		{"abs", 0.7, 0.7},
		{"exp", 0, 1},
		{"exp", 20, 485165195.40979027797}, // e^20
		{"pow10", -3, 1e-3},
		{"pow10", 6, 1e6},
		{"pow10", 0.5, math.Sqrt(10)},
		{"x9", -10, -1e9},
		{"x9", 2, 512},
		{"x9", 0.5, 1.0 / 512},
		{"tan", math.Pi / 4, 1},
		{"tan", math.Pi/2 - 0.01, 99.996666644443531638}, // tan of the float64 π/2-0.01 (mpmath)
	} {
		c, err := CurveByName(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.F(tc.x); !(math.Abs(got-tc.want) <= 1e-14*math.Max(1, math.Abs(tc.want))) {
			t.Errorf("%s(%v) = %v, want %v", tc.name, tc.x, got, tc.want)
		}
	}
}

// TestCurves checks the list, the ranges, CurveByName, and Sample: finite
// values in [Lo, Hi], ys = F(xs), x's uniform marginal, determinism.
func TestCurves(t *testing.T) {
	var names []string
	for _, c := range Curves() {
		names = append(names, c.Name)
	}
	want := []string{"sine", "highfreq", "step", "abs", "exp", "pow10", "x9", "tan"}
	if !slices.Equal(names, want) {
		t.Errorf("Curves() names %v, want %v", names, want)
	}
	if _, err := CurveByName("nope"); err == nil || !strings.Contains(err.Error(), "highfreq") {
		t.Errorf("CurveByName(nope) error %v; want one that lists the names", err)
	}
	const n = 20000
	for _, c := range Curves() {
		if got, err := CurveByName(c.Name); err != nil || got.Name != c.Name || got.Lo != c.Lo || got.Hi != c.Hi {
			t.Errorf("CurveByName(%q) = %v, %v", c.Name, got, err)
		}
		if c.Description == "" || !(c.Lo < c.Hi) {
			t.Errorf("%s: description %q, range [%v, %v]", c.Name, c.Description, c.Lo, c.Hi)
		}
		xs, ys := c.Sample(n, 11)
		if len(xs) != n || len(ys) != n {
			t.Fatalf("%s: %d, %d values", c.Name, len(xs), len(ys))
		}
		var mx float64
		for i, x := range xs {
			if !(x >= c.Lo && x <= c.Hi) || math.IsNaN(ys[i]) || math.IsInf(ys[i], 0) || ys[i] != c.F(x) {
				t.Fatalf("%s: x = %v, y = %v outside [%v, %v], not finite or not F(x)", c.Name, x, ys[i], c.Lo, c.Hi)
			}
			mx += (x - c.Lo) / (c.Hi - c.Lo) / n
		}
		if !(math.Abs(mx-0.5) <= 5*math.Sqrt(1.0/12/n)) {
			t.Errorf("%s: mean of (x-Lo)/(Hi-Lo) %v, want 0.5", c.Name, mx)
		}
		for _, x := range []float64{c.Lo, c.Hi} {
			if y := c.F(x); math.IsNaN(y) || math.IsInf(y, 0) {
				t.Errorf("%s(%v) = %v", c.Name, x, y)
			}
		}
		xs2, ys2 := c.Sample(n, 11)
		xs3, _ := c.Sample(n, 12)
		if !slices.Equal(xs, xs2) || !slices.Equal(ys, ys2) || slices.Equal(xs, xs3) {
			t.Errorf("%s: Sample is not a function of the seed", c.Name)
		}
		if xs0, ys0 := c.Sample(0, 1); len(xs0) != 0 || len(ys0) != 0 {
			t.Errorf("%s: Sample(0) gave %d values", c.Name, len(xs0))
		}
	}
	// The hard ranges: y over many orders of magnitude, or up to the
	// asymptote.
	for _, tc := range []struct {
		name     string
		min, max float64
	}{{"exp", 1, 4.8e8}, {"pow10", 1e-3, 1e6}, {"x9", -1e9, 1e9}, {"tan", 0, 99.99}} {
		c, _ := CurveByName(tc.name)
		lo, hi := c.F(c.Lo), c.F(c.Hi)
		if !(math.Abs(lo-tc.min) <= 1e-12*math.Abs(tc.min)) || hi < tc.max {
			t.Errorf("%s: F from %v to %v, want %v to at least %v", tc.name, lo, hi, tc.min, tc.max)
		}
	}
}

// TestCurveStep checks the step jumps from 0 to 1 at x = 0, as documented,
// and takes no other value.
func TestCurveStep(t *testing.T) {
	c, _ := CurveByName("step")
	below := math.Nextafter(stepAt, math.Inf(-1))
	if c.F(below) != 0 || c.F(stepAt) != 1 || stepAt != 0 {
		t.Errorf("step: F(%v) = %v, F(%v) = %v; want the jump from 0 to 1 at 0", below, c.F(below), stepAt, c.F(stepAt))
	}
	xs, ys := c.Sample(10000, 1)
	for i, x := range xs {
		if (x < 0 && ys[i] != 0) || (x >= 0 && ys[i] != 1) {
			t.Fatalf("step(%v) = %v", x, ys[i])
		}
	}
}

// TestCurveSampleNegative checks Sample panics for n < 0.
func TestCurveSampleNegative(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Sample(-1) did not panic")
		}
	}()
	Curves()[0].Sample(-1, 1)
}
