package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The quantile transform of its own training values is close to normal
// scores whatever the feature's distribution, is monotone, maps a
// repeated value to one score (its mid rank) and values beyond the
// training range to the clipped extremes.
func TestQuantileTransform(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 5000
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Exp(2 * r.NormFloat64()) // lognormal: very skewed
	}
	knots := FitQuantiles(x, 1)[0]
	if len(knots) != QuantileKnots || !slices.IsSorted(knots) {
		t.Fatalf("%d knots, sorted %v", len(knots), slices.IsSorted(knots))
	}
	var s, ss float64
	z := make([]float64, n)
	for i, v := range x {
		z[i] = QuantileTransform(knots, v)
		s += z[i]
		ss += z[i] * z[i]
	}
	mean := s / n
	sd := math.Sqrt(ss/n - mean*mean)
	if !(math.Abs(mean) <= 0.02) || !(math.Abs(sd-1) <= 0.03) {
		t.Errorf("transformed training values: mean %v, sd %v; want about 0 and 1", mean, sd)
	}
	// Monotone.
	sorted := slices.Clone(x)
	slices.Sort(sorted)
	for i := 1; i < n; i++ {
		if QuantileTransform(knots, sorted[i]) < QuantileTransform(knots, sorted[i-1]) {
			t.Fatalf("not monotone at %v", sorted[i])
		}
	}
	top := math.Sqrt2 * math.Erfinv(1-2*quantileClip)
	if a, b := QuantileTransform(knots, -1), QuantileTransform(knots, 1e300); !(math.Abs(a+top) <= 1e-9) || !(math.Abs(b-top) <= 1e-9) {
		t.Errorf("beyond the range: %v and %v, want -+%v", a, b, top)
	}
	// A feature with three values: each maps to its mid rank's score.
	d := []float64{0, 0, 0, 0, 1, 1, 2, 2, 2, 2}
	k := FitQuantiles(d, 1)[0]
	want := func(r float64) float64 { return math.Sqrt2 * math.Erfinv(2*r-1) }
	for _, c := range []struct{ v, rank float64 }{{0, 1.5 / 9}, {1, 4.5 / 9}, {2, 7.5 / 9}} {
		if got := QuantileTransform(k, c.v); !(math.Abs(got-want(c.rank)) <= 1e-12) {
			t.Errorf("value %v: %v, want the score of rank %v, %v", c.v, got, c.rank, want(c.rank))
		}
	}
	// One knot (one training row): the middle.
	if got := QuantileTransform([]float64{3}, 5); got != 0 {
		t.Errorf("one knot: %v", got)
	}
}

func TestFitRobust(t *testing.T) {
	x := []float64{ // two features: one with an outlier, one constant
		1, 7,
		2, 7,
		3, 7,
		4, 7,
		1e9, 7,
	}
	c, s := FitRobust(x, 2)
	// Feature 0: median 3, quartiles 2 and 4 (interpolated): IQR 2.
	if c[0] != 3 || s[0] != 2 {
		t.Errorf("feature 0: centre %v, scale %v; want 3 and 2", c[0], s[0])
	}
	if c[1] != 7 || s[1] != 1 {
		t.Errorf("constant feature: centre %v, scale %v; want 7 and 1", c[1], s[1])
	}
}

// The knots are ascending for any data: the interpolation between two
// sorted values stays between them, equal ones included (ties of negative
// values once gave a knot one ulp below the one before it, which the model
// file's check then refused).
func TestQuantileKnotsAscending(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		rows := 1 + r.IntN(3000)
		x := make([]float64, rows)
		levels := 1 + r.IntN(40)
		for i := range x {
			// Few distinct values (ties), of mixed signs and magnitudes.
			x[i] = -2571.4 + 0.1*float64(r.IntN(levels))
			if trial%3 == 1 {
				x[i] = float64(r.IntN(levels)-levels/2) * 1e-3 * math.Pi
			}
			if trial%3 == 2 {
				x[i] = r.NormFloat64() * 1e6
			}
		}
		k := FitQuantiles(x, 1)[0]
		for l := 1; l < len(k); l++ {
			if !(k[l] >= k[l-1]) {
				t.Fatalf("trial %d: knot %d = %v below knot %d = %v", trial, l, k[l], l-1, k[l-1])
			}
		}
	}
	// The case that failed: two equal values, a fraction between them.
	s := []float64{-2571.4, -2571.4, -2571.4}
	for _, q := range []float64{0.1, 0.3, 0.37, 0.5, 0.77} {
		if got := sortedQuantile(s, q); got != -2571.4 {
			t.Errorf("q %v of three equal values: %v", q, got)
		}
	}
}

// A NaN value, or a feature without knots (FitQuantiles of no rows),
// gives NaN: it indexed past the knots.
func TestQuantileTransformNaN(t *testing.T) {
	if v := QuantileTransform([]float64{1, 2}, math.NaN()); !math.IsNaN(v) {
		t.Errorf("NaN value: %v", v)
	}
	knots := FitQuantiles(nil, 2)
	if len(knots) != 2 || len(knots[0]) != 0 {
		t.Fatalf("knots of no rows: %v", knots)
	}
	if v := QuantileTransform(knots[0], 1); !math.IsNaN(v) {
		t.Errorf("no knots: %v", v)
	}
	for name, f := range map[string]func(){"FitQuantiles": func() { FitQuantiles([]float64{1}, 0) }, "FitRobust": func() { FitRobust([]float64{1}, 0) }} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "cols must be >= 1") {
					t.Errorf("%s with 0 cols: %v", name, r)
				}
			}()
			f()
		}()
	}
}

// TestTransformMisuse: knots fitted on NaN values map everything to NaN
// (they indexed past the knots), and FitRobust and a zero Standardizer
// panic with their own message.
func TestTransformMisuse(t *testing.T) {
	k := FitQuantiles([]float64{math.NaN(), math.NaN(), 1, 2}, 1)
	for _, v := range []float64{0, 1, 1.5, 3} {
		if got := QuantileTransform(k[0], v); !math.IsNaN(got) {
			t.Errorf("QuantileTransform(%v, %v) = %v, want NaN", k[0], v, got)
		}
	}
	for name, f := range map[string]func(){
		"FitRobust: x is empty":           func() { FitRobust(nil, 1) },
		"FitRobust: x is empty or not":    func() { FitRobust([]float64{1, 2, 3}, 2) },
		"Standardizer.Apply: no features": func() { (&Standardizer{}).Apply([]float64{1}) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), name) {
					t.Errorf("panic %v, want %q", r, name)
				}
			}()
			f()
		}()
	}
}
