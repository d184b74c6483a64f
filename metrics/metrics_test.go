package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// bruteTauB is tau-b by its definition over all pairs, O(n²).
func bruteTauB(x, y []float64) float64 {
	var s, n0, tx, ty float64
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			dx, dy := sign(x[i]-x[j]), sign(y[i]-y[j])
			s += dx * dy
			n0++
			if dx == 0 {
				tx++
			}
			if dy == 0 {
				ty++
			}
		}
	}
	return s / math.Sqrt((n0-tx)*(n0-ty))
}

func sign(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

func TestKendallTauKnown(t *testing.T) {
	tests := []struct {
		x, y []float64
		want float64
	}{
		// scipy.stats.kendalltau's documented example.
		{[]float64{12, 2, 1, 12, 2}, []float64{1, 4, 7, 1, 0}, -0.47140452079103173},
		// Pairs: (0,1) tied in x, (0,2) and (1,2) concordant: 2/sqrt(2*3).
		{[]float64{1, 1, 2}, []float64{1, 2, 3}, 2 / math.Sqrt(6)},
		// C=5, D=1, no ties, n0=6: 4/6.
		{[]float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}, 4.0 / 6},
		{[]float64{1, 2, 3, 4, 5}, []float64{10, 20, 30, 40, 50}, 1},
		{[]float64{1, 2, 3, 4, 5}, []float64{5, 4, 3, 2, 1}, -1},
		{[]float64{0, 1}, []float64{1, 0}, -1},
		// -0 and +0 are tied.
		{[]float64{math.Copysign(0, -1), 0, 1}, []float64{1, 2, 3}, 2 / math.Sqrt(6)},
	}
	for _, tc := range tests {
		if got := KendallTau(tc.x, tc.y); !near(got, tc.want, 1e-15) {
			t.Errorf("KendallTau(%v, %v) = %v, want %v", tc.x, tc.y, got, tc.want)
		}
	}
}

func TestKendallTauUndefined(t *testing.T) {
	for _, tc := range []struct{ x, y []float64 }{
		{nil, nil},
		{[]float64{1}, []float64{2}},
		{[]float64{1, 1, 1}, []float64{1, 2, 3}},
		{[]float64{1, 2, 3}, []float64{4, 4, 4}},
		{[]float64{1, math.NaN(), 3}, []float64{1, 2, 3}},
		{[]float64{1, 2, 3}, []float64{1, 2, math.NaN()}},
	} {
		if got := KendallTau(tc.x, tc.y); !math.IsNaN(got) {
			t.Errorf("KendallTau(%v, %v) = %v, want NaN", tc.x, tc.y, got)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic for different lengths")
		}
	}()
	KendallTau([]float64{1, 2}, []float64{1})
}

func TestKendallTauBrute(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for _, n := range []int{2, 3, 4, 5, 8, 17, 100, 257, 2000} {
		for _, levels := range []int{2, 3, 10, 0} { // 0: continuous, no ties
			x := make([]float64, n)
			y := make([]float64, n)
			for i := range x {
				if levels == 0 {
					x[i] = r.NormFloat64()
					y[i] = x[i] + r.NormFloat64()
				} else {
					x[i] = float64(r.IntN(levels))
					y[i] = float64(r.IntN(levels)) + 0.5*x[i]
				}
			}
			want := bruteTauB(x, y)
			got := KendallTau(x, y)
			if math.IsNaN(want) != math.IsNaN(got) || !math.IsNaN(want) && !near(got, want, 1e-12) {
				t.Errorf("n=%d levels=%d: %v, brute force %v", n, levels, got, want)
			}
		}
	}
}

func TestMergeCount(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 40; n++ {
		a := make([]float64, n)
		for i := range a {
			a[i] = float64(r.IntN(5))
		}
		var want int64
		for i := range a {
			for j := i + 1; j < n; j++ {
				if a[i] > a[j] {
					want++
				}
			}
		}
		if got := mergeCount(a, make([]float64, n)); got != want {
			t.Errorf("n=%d: %d inversions, want %d", n, got, want)
		}
		for i := 1; i < n; i++ {
			if a[i-1] > a[i] {
				t.Fatalf("n=%d: not sorted: %v", n, a)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	pred := []float64{1, 2, 3, 4}
	y := []float64{2, 2, 5, 3}
	// squared errors 1, 0, 4, 1 -> 6/4; mean y 3, sum of squares 1+1+4+0 = 6
	if got := MSE(pred, y); got != 1.5 {
		t.Errorf("MSE = %v", got)
	}
	if got := RelMSE(pred, y); got != 1 { // 1.5 / 1.5
		t.Errorf("RelMSE = %v", got)
	}
	if got := R2(pred, y); got != 0 {
		t.Errorf("R2 = %v", got)
	}
	if got := R2(y, y); got != 1 {
		t.Errorf("R2 perfect = %v", got)
	}
	if got := RelMSE([]float64{3, 3, 3, 3}, y); got != 1 {
		t.Errorf("RelMSE of the mean = %v", got)
	}
	const_ := []float64{2, 2}
	if !math.IsNaN(RelMSE(const_, const_)) || !math.IsNaN(R2(const_, const_)) || !math.IsNaN(MSE(nil, nil)) {
		t.Error("undefined cases are not NaN")
	}
}

func TestMeanStd(t *testing.T) {
	v := []float64{2, 4, 4, 4, 5, 5, 7, 9}
	m, s := MeanStd(v)
	if m != 5 || !near(s, math.Sqrt(32.0/7), 1e-15) || Std(v) != s || Mean(v) != 5 {
		t.Errorf("MeanStd = %v, %v", m, s)
	}
	if PopVariance(v) != 4 {
		t.Errorf("PopVariance = %v", PopVariance(v))
	}
	m, s = MeanStd([]float64{3})
	if m != 3 || !math.IsNaN(s) {
		t.Errorf("one value: %v %v", m, s)
	}
	m, s = MeanStd(nil)
	if !math.IsNaN(m) || !math.IsNaN(s) || !math.IsNaN(PopVariance(nil)) {
		t.Errorf("no values: %v %v", m, s)
	}
}

func BenchmarkKendallTau100000(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 100000
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = float64(r.IntN(1000))
		y[i] = x[i] + float64(r.IntN(1000))
	}
	for b.Loop() {
		KendallTau(x, y)
	}
}

func TestMedian(t *testing.T) {
	v := []float64{5, 1, 4, 2}
	for _, c := range []struct {
		in   []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {v, 3}, {[]float64{-1, -1, 7}, -1}} {
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if v[0] != 5 || v[1] != 1 {
		t.Errorf("Median sorted its input: %v", v)
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median(nil) is not NaN")
	}
}

// TestP10KendallTauClamped: perfectly (dis)concordant data gave
// 1.0000000000000002 (n0 = 3, 6, ... pairs, where sqrt(a)*sqrt(a) > a in
// float64) or 0.9999999999999998. Tau-b is exactly 1 (or -1) there, also
// with ties and with more pairs than float64 multiplies exactly (n = 20000:
// (n0-n1)(n0-n2) > 2^53), and never outside [-1, 1].
func TestP10KendallTauClamped(t *testing.T) {
	sizes := []int{20000, 70001}
	for n := 3; n <= 60; n++ {
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		x := make([]float64, n)
		rev := make([]float64, n)
		tied := make([]float64, n) // ties in both, concordant
		for i := range x {
			x[i] = float64(i)
			rev[i] = float64(n - i)
			tied[i] = float64(i / 2)
		}
		for _, tc := range []struct {
			name string
			x, y []float64
			want float64
		}{
			{"identical", x, x, 1},
			{"reversed", x, rev, -1},
			{"tied", tied, tied, 1},
		} {
			if got := KendallTau(tc.x, tc.y); got != tc.want {
				t.Errorf("n=%d %s: KendallTau = %v, want exactly %v", n, tc.name, got, tc.want)
			}
		}
	}
}
