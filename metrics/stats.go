package metrics

import (
	"math"
	"slices"
)

// Mean returns the arithmetic mean of v, or NaN if v is empty.
func Mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// PopVariance returns the population variance of v, sum((v-mean)²)/n, or
// NaN if v is empty.
func PopVariance(v []float64) float64 {
	return sumSq(v) / float64(len(v))
}

// Std returns the sample standard deviation of v, sqrt(sum((v-mean)²)/(n-1)),
// or NaN if v has fewer than 2 values.
func Std(v []float64) float64 {
	if len(v) < 2 {
		return math.NaN()
	}
	return math.Sqrt(sumSq(v) / float64(len(v)-1))
}

// MeanStd returns the mean and the sample standard deviation (divisor n-1)
// of v, as the paper's tables report mean ± std over splits. With one value
// the std is NaN; with none, both are.
func MeanStd(v []float64) (mean, std float64) {
	return Mean(v), Std(v)
}

// Median returns the median of v (the mean of the middle two for an even
// count; NaN for none); v is not modified.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// sumSq returns sum((v-mean)²) by two passes (NaN for empty v).
func sumSq(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	m := Mean(v)
	s := 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return s
}
