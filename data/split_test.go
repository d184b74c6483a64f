package data

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func TestValidationSplit(t *testing.T) {
	for _, tc := range []struct {
		n    int
		frac float64
		nv   int
	}{{5, 0.1, 1}, {10, 0.1, 1}, {15, 0.1, 2}, {100, 0.1, 10}, {2, 0.5, 1}, {1000, 0.25, 250}, {7, 0.5, 4}} {
		train, val, err := ValidationSplit(tc.n, tc.frac, 1)
		if err != nil {
			t.Fatalf("n=%d frac=%v: %v", tc.n, tc.frac, err)
		}
		if len(val) != tc.nv || len(train) != tc.n-tc.nv {
			t.Errorf("n=%d frac=%v: %d/%d, want %d validation rows", tc.n, tc.frac, len(train), len(val), tc.nv)
		}
		all := append(append([]int(nil), train...), val...)
		slices.Sort(all)
		for i, v := range all {
			if v != i {
				t.Fatalf("n=%d: not a partition of 0..n-1: %v %v", tc.n, train, val)
			}
		}
		if !slices.IsSorted(train) || !slices.IsSorted(val) {
			t.Errorf("parts not sorted")
		}
	}
	for _, tc := range []struct {
		n    int
		frac float64
	}{{0, 0.1}, {1, 0.5}, {4, 0.1}, {1, 0.9}, {9, 0.95}} {
		if _, _, err := ValidationSplit(tc.n, tc.frac, 1); !errors.Is(err, ErrTooFewRows) {
			t.Errorf("n=%d frac=%v: %v, want ErrTooFewRows", tc.n, tc.frac, err)
		}
	}
	for _, f := range []float64{0, 1, -0.1, 1.5, math.NaN()} {
		if _, _, err := ValidationSplit(100, f, 1); err == nil || errors.Is(err, ErrTooFewRows) {
			t.Errorf("frac=%v: %v", f, err)
		}
	}
}

func TestValidationSplitSeeds(t *testing.T) {
	tr1, v1, _ := ValidationSplit(1000, 0.1, 42)
	tr2, v2, _ := ValidationSplit(1000, 0.1, 42)
	if !slices.Equal(tr1, tr2) || !slices.Equal(v1, v2) {
		t.Error("same seed, different splits")
	}
	_, v3, _ := ValidationSplit(1000, 0.1, 43)
	if slices.Equal(v1, v3) {
		t.Error("different seeds, same split")
	}
	// Each index is a validation row with probability frac: over many
	// seeds the counts are binomial(seeds, 0.3).
	const n, seeds, frac = 10, 4000, 0.3
	count := make([]int, n)
	for s := uint64(0); s < seeds; s++ {
		_, val, _ := ValidationSplit(n, frac, s)
		for _, v := range val {
			count[v]++
		}
	}
	mean, sd := seeds*frac, math.Sqrt(seeds*frac*(1-frac))
	for i, c := range count {
		if math.Abs(float64(c)-mean) > 5*sd {
			t.Errorf("index %d chosen %d times in %d, expected %.0f ± %.0f", i, c, seeds, mean, sd)
		}
	}
}

func TestUniform(t *testing.T) {
	// Lemire's method over a range that is not a power of two: chi-square.
	const n, draws = 7, 70000
	src := newTestPCG()
	var count [n]int
	for i := 0; i < draws; i++ {
		v := uniform(src, n)
		if v >= n {
			t.Fatalf("uniform(%d) = %d", n, v)
		}
		count[v]++
	}
	chi := 0.0
	for _, c := range count {
		d := float64(c) - draws/n
		chi += d * d / (draws / n)
	}
	if chi > 22.5 { // p = 0.001 for 6 degrees of freedom
		t.Errorf("chi-square %v: %v", chi, count)
	}
}
