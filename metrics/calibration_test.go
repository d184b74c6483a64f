package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestCoverageAndWidth(t *testing.T) {
	lo := []float64{0, 0, 1, -1}
	hi := []float64{1, 1, 2, 1}
	y := []float64{0, 1.5, 1, 1} // in, out, in (closed), in
	if c := Coverage(lo, hi, y); c != 0.75 {
		t.Errorf("Coverage = %v, want 0.75", c)
	}
	if w := MeanWidth(lo, hi); w != 1.25 {
		t.Errorf("MeanWidth = %v, want 1.25", w)
	}
	if !math.IsNaN(Coverage(nil, nil, nil)) || !math.IsNaN(PITError(nil)) {
		t.Error("no rows: want NaN")
	}
}

// Targets drawn from the predictive distribution itself are calibrated by
// construction: central intervals cover their mass and the PIT values are
// uniform. A distorted CDF gives the error its closed form predicts.
func TestCalibratedByConstruction(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 20000
	y := make([]float64, n)
	for i := range y {
		y[i] = r.NormFloat64()*2 + 3 // every row's p(y|x) is N(3, 2²)
	}
	for _, c := range CentralLevels {
		z := math.Sqrt2 * math.Erfinv(c) // the (1+c)/2 quantile of N(0, 1)
		lo, hi := make([]float64, n), make([]float64, n)
		for i := range lo {
			lo[i], hi[i] = 3-2*z, 3+2*z
		}
		if got := Coverage(lo, hi, y); !(math.Abs(got-c) <= 0.015) {
			t.Errorf("coverage of the central %v interval: %v", c, got)
		}
		if w := MeanWidth(lo, hi); !(math.Abs(w-4*z) <= 1e-9) {
			t.Errorf("width %v, want %v", w, 4*z)
		}
	}
	pit := make([]float64, n)
	for i, v := range y {
		pit[i] = 0.5 * math.Erfc(-(v-3)/(2*math.Sqrt2))
	}
	if e := PITError(pit); !(e <= 0.01) {
		t.Errorf("PIT error of the true CDF: %v", e)
	}
	// Reporting G(p) = p² instead of p: P(p² <= q) = sqrt(q), so the error
	// is the mean of |sqrt(q) - q| over the levels.
	want := 0.0
	for _, q := range PITLevels {
		want += math.Sqrt(q) - q
	}
	want /= float64(len(PITLevels))
	for i, p := range pit {
		pit[i] = p * p
	}
	if e := PITError(pit); !(math.Abs(e-want) <= 0.01) {
		t.Errorf("PIT error of a distorted CDF: %v, want %v", e, want)
	}
}

// Means of huge values do not overflow: each term is divided first (a sum
// of two widths of 1.5e308 would be +Inf).
func TestMeanWidthHuge(t *testing.T) {
	if w := MeanWidth([]float64{-1e308, -1e308}, []float64{0.5e308, 0.5e308}); math.IsInf(w, 0) || !(math.Abs(w-1.5e308) <= 1e294) {
		t.Errorf("MeanWidth = %v, want 1.5e308", w)
	}
}

// A NaN input makes the result NaN, as the package promises (Median,
// Coverage and PITError skipped or miscounted NaNs).
func TestNaNInputs(t *testing.T) {
	n := math.NaN()
	b := []float64{0.5, 1, 2, 3}
	for name, v := range map[string]float64{
		"Median first":    Median([]float64{n, 1, 2, 3}),
		"Median last":     Median([]float64{1, 2, n}),
		"Coverage y":      Coverage(b, b, []float64{n, 1, 2, 3}),
		"Coverage lo":     Coverage([]float64{n, 1, 2, 3}, b, b),
		"Coverage hi":     Coverage(b, []float64{0.5, n, 2, 3}, b),
		"PITError":        PITError([]float64{n, 0.5, 0.2}),
		"PITError inside": PITError([]float64{0.1, n}),
	} {
		if !math.IsNaN(v) {
			t.Errorf("%s: %v, want NaN", name, v)
		}
	}
	if v := PITError([]float64{-1, 2}); math.IsNaN(v) || math.Abs(v-4.5/19) > 1e-12 {
		t.Errorf("PIT values beyond [0, 1]: %v, want 4.5/19 (one below and one above every level: the mean of |0.5 - q|)", v)
	}
}
