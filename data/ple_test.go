package data

import (
	"math"
	"slices"
	"testing"
)

// FitPLE's edges and PLEEncode's columns against hand computations: the
// quantiles of 0..8 at levels 0, 1/4, ..., 1 are 0, 2, 4, 6, 8; tied
// quantiles merge; a feature of 2 distinct values, or whose merged edges
// leave one bin, gets that bin; a constant one is kept (nil).
func TestFitPLE(t *testing.T) {
	cols := 5
	a := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8}
	b := []float64{0, 0, 0, 0, 0, 1, 2, 3, 4} // 5 values, at most bins+1: each an edge
	c := []float64{5, 7, 5, 7, 5, 7, 5, 7, 5} // two values
	d := []float64{0, 0, 0, 0, 0, 0, 0, 1, 2} // three values: each an edge (the quantiles 0, 0, 0, 0, 2 gave one bin)
	x := make([]float64, 0, 9*cols)
	for i := range a {
		x = append(x, a[i], b[i], c[i], d[i], 3)
	}
	e := FitPLE(x, cols, 4)
	want := [][]float64{{0, 2, 4, 6, 8}, {0, 1, 2, 3, 4}, {5, 7}, {0, 1, 2}, nil}
	for j := range want {
		if !slices.Equal(e[j], want[j]) {
			t.Errorf("feature %d: edges %v, want %v", j, e[j], want[j])
		}
	}
	if w := PLEWidth(e); w != 4+4+1+2+1 {
		t.Errorf("width %d, want 12", w)
	}
	// Two values as many times each: one bin, not the median interpolated
	// between them (two equal columns).
	if e := FitPLE([]float64{1, 2, 1, 2}, 1, 4); !slices.Equal(e[0], []float64{1, 2}) {
		t.Errorf("1, 2, 1, 2 in 4 bins: edges %v, want [1 2]", e[0])
	}
	// Three values in 8 bins: a bin between each two (the quantiles
	// interpolated between them gave 8 columns in two groups of equal ones).
	if e := FitPLE([]float64{1, 2, 3}, 1, 8); !slices.Equal(e[0], []float64{1, 2, 3}) {
		t.Errorf("1, 2, 3 in 8 bins: edges %v, want [1 2 3]", e[0])
	}
	// Mostly one value among more than bins+1: the quantiles merge into
	// one bin.
	if e := FitPLE([]float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3}, 1, 2); !slices.Equal(e[0], []float64{0, 3}) {
		t.Errorf("mostly 0 in 2 bins: edges %v, want [0 3]", e[0])
	}
	// Interpolated quantiles: 0..9 (10 values) at level 1/3 is position 3.
	if e := FitPLE([]float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 3); !slices.Equal(e[0], []float64{0, 3, 6, 9}) {
		t.Errorf("0..9 in 3 bins: edges %v, want [0 3 6 9]", e[0])
	}
	if e := FitPLE([]float64{0, 1, 3, 10}, 1, 2); !slices.Equal(e[0], []float64{0, 2, 10}) {
		t.Errorf("0, 1, 3, 10 in 2 bins: edges %v, want [0 2 10] (the median interpolated)", e[0])
	}
	for _, tc := range []struct {
		v    float64
		want []float64
	}{
		{-1, []float64{0, 0, 0, 0}},
		{0, []float64{0, 0, 0, 0}},
		{3, []float64{1, 0.5, 0, 0}},
		{6, []float64{1, 1, 1, 0}},
		{7.5, []float64{1, 1, 1, 0.75}},
		{8, []float64{1, 1, 1, 1}},
		{1e300, []float64{1, 1, 1, 1}},
		{math.Inf(-1), []float64{0, 0, 0, 0}},
	} {
		got := make([]float64, 4)
		PLEEncode(got, want[0], tc.v)
		if !slices.Equal(got, tc.want) {
			t.Errorf("encode %v: %v, want %v", tc.v, got, tc.want)
		}
	}
	// Edges whose difference overflows: the position within the bin, 2/3.
	got := make([]float64, 2)
	PLEEncode(got, []float64{-math.MaxFloat64, math.MaxFloat64 / 2, math.MaxFloat64}, 0)
	if math.Abs(got[0]-2.0/3) > 1e-15 || got[1] != 0 {
		t.Errorf("encode 0 between -MaxFloat64 and MaxFloat64/2: %v, want [2/3 0]", got)
	}
}
