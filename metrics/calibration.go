package metrics

import (
	"math"
	"slices"
)

// CentralLevels are the masses of the central predictive intervals whose
// coverage and width decoreg reports: the interval of level c runs from
// the (1-c)/2 to the (1+c)/2 quantile. It is a copy for reading:
// changing it changes nothing (Central returns the levels).
var CentralLevels = Central()

// Central returns CentralLevels' values, new each call.
func Central() []float64 { return []float64{0.5, 0.8, 0.9, 0.95} }

// PITLevels are the levels at which PITError compares the empirical
// distribution of PIT values with the uniform one: 0.05, 0.10, ..., 0.95.
// It is a copy for reading: changing it changes nothing.
var PITLevels = pitLevels()

// pitLevels returns PITLevels' values, new each call.
func pitLevels() []float64 {
	l := make([]float64, 19)
	for i := range l {
		l[i] = float64(i+1) / 20
	}
	return l
}

// Coverage returns the fraction of the targets y[i] that lie in the
// closed interval [lo[i], hi[i]] (NaN for no rows).
func Coverage(lo, hi, y []float64) float64 {
	checkLen("Coverage", lo, y)
	checkLen("Coverage", hi, y)
	if len(y) == 0 {
		return math.NaN()
	}
	in := 0
	for i, v := range y {
		if math.IsNaN(v) || math.IsNaN(lo[i]) || math.IsNaN(hi[i]) {
			return math.NaN()
		}
		if v >= lo[i] && v <= hi[i] {
			in++
		}
	}
	return float64(in) / float64(len(y))
}

// MeanWidth returns the mean of hi[i] - lo[i] (NaN for no rows).
func MeanWidth(lo, hi []float64) float64 {
	checkLen("MeanWidth", lo, hi)
	if len(lo) == 0 {
		return math.NaN()
	}
	n := float64(len(lo))
	s := 0.0
	for i := range lo {
		s += hi[i]/n - lo[i]/n // each term divided first: no overflow for huge values
	}
	return s
}

// PITError is a calibration error of probability integral transforms
// pit[i] = F_i(y_i), the predictive CDF of row i at its target: the mean
// over the levels q of PITLevels of |(fraction of rows with pit <= q) - q|.
// For calibrated predictions the PIT values are uniform on [0, 1] and the
// error tends to 0 (as 1/sqrt(n)); it is at most 0.5. NaN for no rows or
// a NaN value (one outside [0, 1] counts as below or above every level).
func PITError(pit []float64) float64 {
	if len(pit) == 0 {
		return math.NaN()
	}
	if slices.ContainsFunc(pit, math.IsNaN) {
		return math.NaN()
	}
	s := 0.0
	levels := pitLevels()
	for _, q := range levels {
		below := 0
		for _, p := range pit {
			if p <= q {
				below++
			}
		}
		s += math.Abs(float64(below)/float64(len(pit)) - q)
	}
	return s / float64(len(levels))
}
