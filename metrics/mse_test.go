package metrics

import (
	"math"
	"testing"
)

// RelMSE and R2 are scale-free, also where the squares overflow float64
// (values above about 1e154: they were +Inf/NaN at 1e160) or underflow it
// (targets near 1e-299 were NaN, as if constant).
func TestRelMSEHugeScale(t *testing.T) {
	pred := []float64{1.2, 1.9, 3.1, 4.4, 4.8}
	y := []float64{1, 2, 3, 4, 5}
	r, r2 := RelMSE(pred, y), R2(pred, y)
	for _, s := range []float64{1e160, 1e300, -1e200, 1e-150, 1e-200, 1e-299, -1e-305} {
		ps, ys := make([]float64, 5), make([]float64, 5)
		for i := range y {
			ps[i], ys[i] = pred[i]*s, y[i]*s
		}
		if got := RelMSE(ps, ys); !(math.Abs(got-r) <= 1e-12) { // NaN fails too
			t.Errorf("scale %v: RelMSE %v, want %v", s, got, r)
		}
		if got := R2(ps, ys); !(math.Abs(got-r2) <= 1e-12) {
			t.Errorf("scale %v: R2 %v, want %v", s, got, r2)
		}
	}
	if got := RelMSE([]float64{math.Inf(1), 1e160}, []float64{1e160, 2e160}); !math.IsInf(got, 1) {
		t.Errorf("an infinite prediction: RelMSE %v, want +Inf", got)
	}
	// One prediction far beyond small targets: the ratio exceeds float64.
	far := []float64{1e200, 2, 3, 4}
	if a, b := RelMSE(far, y[:4]), R2(far, y[:4]); !math.IsInf(a, 1) || !math.IsInf(b, -1) {
		t.Errorf("a prediction of 1e200 for targets 1-4: RelMSE %v, R2 %v, want +Inf and -Inf", a, b)
	}
	if got := RelMSE([]float64{math.NaN(), 1e160}, []float64{1e160, 2e160}); !math.IsNaN(got) {
		t.Errorf("a NaN prediction: RelMSE %v, want NaN", got)
	}
}

// Constant tiny targets, and NaN or infinite ones, give NaN (the
// small-end fallback must not take them for underflow).
func TestRelMSETinyUndefined(t *testing.T) {
	c := []float64{1e-300, 1e-300, 1e-300}
	if a, b := RelMSE([]float64{0, 1, 2}, c), R2([]float64{0, 1, 2}, c); !math.IsNaN(a) || !math.IsNaN(b) {
		t.Errorf("constant tiny targets: RelMSE %v, R2 %v, want NaN", a, b)
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if a, b := RelMSE([]float64{1, 2}, []float64{bad, 1}), R2([]float64{1, 2}, []float64{bad, 1}); !math.IsNaN(a) || !math.IsNaN(b) {
			t.Errorf("a target of %v: RelMSE %v, R2 %v, want NaN", bad, a, b)
		}
	}
}

// MSE is finite where the mean of the squares is, though a square or
// their sum overflows (errors of 1.3e154: +Inf before), and +Inf only
// where the mean itself exceeds float64; NaN stays NaN.
func TestMSEHugeErrors(t *testing.T) {
	for _, c := range []struct {
		pred, y []float64
		want    float64
	}{
		{[]float64{1.3e154, 1.3e154}, []float64{0, 0}, 1.69e308},
		{[]float64{1.3e154, -1.3e154, 0}, []float64{0, 0, 0}, 1.69e308 * 2 / 3},
		{[]float64{1e308, -1e308}, []float64{-1e308, 1e308}, math.Inf(1)},
		{[]float64{math.Inf(1), 1}, []float64{0, 0}, math.Inf(1)},
		{[]float64{2, 3}, []float64{1, 1}, 2.5},
	} {
		got := MSE(c.pred, c.y)
		if !(got == c.want || math.Abs(got-c.want) <= 1e-12*c.want) {
			t.Errorf("MSE(%v, %v) = %v, want %v", c.pred, c.y, got, c.want)
		}
	}
	if got := MSE([]float64{math.NaN(), 1e200}, []float64{0, 0}); !math.IsNaN(got) {
		t.Errorf("a NaN prediction: MSE %v, want NaN", got)
	}
}
