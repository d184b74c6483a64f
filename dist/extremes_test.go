package dist

import (
	"math"
	"testing"
)

// TestRecalibratedMeanFarFromZero: the quantile rule's mean of a narrow
// distribution far from 0 (1.7e15 + 0..120, timestamps in microseconds)
// summed y/1024 of each quantile, rounding away their differences: the
// mean fell from 1.7e15 + 60 to 1.7e15 + 23. A uniform base and an
// identity map: the mean is the middle.
func TestRecalibratedMeanFarFromZero(t *testing.T) {
	probs := make([]float64, 32)
	for i := range probs {
		probs[i] = 1.0 / 32
	}
	const off, scale = 1.7e15, 120
	rc, err := NewRecalibration([]float64{0, 1}, []float64{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	d := NewRecalibrated(NewRiemann(probs, Affine{Offset: off, Scale: scale}), rc)
	if got := d.quantileMean(); !(math.Abs(got-(off+scale/2)) <= 0.5) {
		t.Errorf("quantile mean %.1f, want %.1f", got, off+scale/2.0)
	}
}

// TestCRPSWidestCells: a cell wider than the largest float64 (a raw
// target's near its limits) made the CRPS +Inf (its width, then w*(...)
// overflowed) or, for a mixture's overlapping cells, NaN. Uniform on
// [a, b] at its middle: (b - a)/12.
func TestCRPSWidestCells(t *testing.T) {
	const a, b = -1e308, 1e308
	want := b/12 - a/12
	for name, got := range map[string]float64{
		"one cell":          cellsCRPS([]massCell{{a, b, 1}}, 0),
		"overlapping cells": mixedCellsCRPS([]massCell{{a, b, 0.5}, {a, b, 0.5}}, 0),
		"a near-max cell":   cellsCRPS([]massCell{{0, 1.7e308, 1}}, 0.85e308),
	} {
		w := want
		if name == "a near-max cell" {
			w = 1.7e308 / 12
		}
		if !(math.Abs(got-w) <= 1e-12*w) {
			t.Errorf("%s: CRPS %g, want %g", name, got, w)
		}
	}
}
