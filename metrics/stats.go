package metrics

import (
	"math"
	"slices"
)

// Mean returns the arithmetic mean of v, or NaN if v is empty. Finite
// values give a finite mean, also where their sum overflows.
func Mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	if m := s / float64(len(v)); !math.IsInf(m, 0) {
		return m
	}
	// Infinite: an infinite value, or a sum past MaxFloat64 of finite
	// ones, which summed as shares do not overflow.
	n := float64(len(v))
	s = 0
	for _, x := range v {
		s += x / n
	}
	return s
}

// PopVariance returns the population variance of v, sum((v-mean)²)/n, or
// NaN if v is empty.
func PopVariance(v []float64) float64 {
	return sumSq(v) / float64(len(v))
}

// Std returns the sample standard deviation of v, sqrt(sum((v-mean)²)/(n-1)),
// or NaN if v has fewer than 2 values; finite values give a finite std
// (their squares' sum may overflow: it is scaled).
func Std(v []float64) float64 {
	if len(v) < 2 {
		return math.NaN()
	}
	if ss := sumSq(v); !math.IsInf(ss, 0) {
		return math.Sqrt(ss / float64(len(v)-1))
	}
	c, s := scaledSumSq(v)
	return c * math.Sqrt(s/float64(len(v)-1))
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
	if slices.ContainsFunc(v, math.IsNaN) {
		return math.NaN() // slices.Sort puts NaNs first, and the middle would skip them
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

// scaledSumSq returns c and s with sum((v-mean)²) = c² s, by two passes,
// c the largest |x| and |mean| (1 for all zeros) so that neither the
// differences nor their squares overflow (NaN for empty v).
func scaledSumSq(v []float64) (c, s float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	m := Mean(v)
	c = math.Abs(m)
	for _, x := range v {
		c = max(c, math.Abs(x))
	}
	if c == 0 || math.IsInf(c, 0) || math.IsNaN(c) {
		// All zeros, or an infinite or NaN value: the plain sum says so.
		for _, x := range v {
			s += (x - m) * (x - m)
		}
		return 1, s
	}
	for _, x := range v {
		d := x/c - m/c
		s += d * d
	}
	return c, s
}
