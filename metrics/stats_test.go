package metrics

import (
	"math"
	"testing"
)

// TestMeanStdHuge: finite values whose sum or squares overflow give a
// finite mean and std (bench report printed ± +Inf for one NLL of 1e308).
func TestMeanStdHuge(t *testing.T) {
	v := []float64{1e308, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	m, s := MeanStd(v)
	// The std of one x among n-1 zeros is x sqrt(1/n).
	if !(math.Abs(m-1e307) <= 1e293) || !(math.Abs(s-1e308*math.Sqrt(0.1)) <= 1e295) {
		t.Errorf("MeanStd = %v, %v", m, s)
	}
	if m := Mean([]float64{math.MaxFloat64, math.MaxFloat64}); m != math.MaxFloat64 {
		t.Errorf("Mean of two MaxFloat64 = %v", m)
	}
	if s := Std([]float64{-math.MaxFloat64 / 2, math.MaxFloat64 / 2}); !(math.Abs(s-math.MaxFloat64/math.Sqrt2) <= 1e295) {
		t.Errorf("Std of ±MaxFloat64/2 = %v, want MaxFloat64/sqrt(2)", s)
	}
	if m := Mean([]float64{math.Inf(1), 1}); !math.IsInf(m, 1) {
		t.Errorf("Mean with +Inf = %v", m)
	}
}
