package data

import "math"

// Standardizer maps each feature to zero mean and unit standard deviation
// with statistics from training data: x' = (x - Mean[j]) / Std[j].
type Standardizer struct {
	Mean []float64 // per feature
	Std  []float64 // per feature; population std (divisor n), 1 for constant features
}

// FitStandardizer computes per-feature means and population standard
// deviations of x, (rows, cols) row-major. A feature whose values are all
// equal gets Std 1, so that it maps to 0. It panics if x is empty or its
// length is not a multiple of cols.
func FitStandardizer(x []float64, cols int) *Standardizer {
	if cols < 1 || len(x) == 0 || len(x)%cols != 0 {
		panic("data: FitStandardizer: x is empty or not (rows, cols)")
	}
	rows := len(x) / cols
	s := &Standardizer{Mean: make([]float64, cols), Std: make([]float64, cols)}
	for j := 0; j < cols; j++ {
		lo, hi, sum := x[j], x[j], 0.0
		for i := 0; i < rows; i++ {
			v := x[i*cols+j]
			sum += v
			lo = math.Min(lo, v)
			hi = math.Max(hi, v)
		}
		if lo == hi { // constant: exact, whatever rounding the sums do
			s.Mean[j], s.Std[j] = lo, 1
			continue
		}
		mean := sum / float64(rows)
		ss := 0.0
		for i := 0; i < rows; i++ {
			d := x[i*cols+j] - mean
			ss += d * d
		}
		if !finite(mean) || !finite(ss) {
			// Values near the top of float64's range: the sum or the sum
			// of squares overflowed although the mean and sd are finite
			// (a population sd is at most half the range). Compute them
			// from the values divided by a power of two near the largest
			// magnitude (only here, so other features keep their bits).
			s.Mean[j], s.Std[j] = scaledMeanStd(x, cols, j, max(math.Abs(lo), math.Abs(hi)))
			continue
		}
		scale := 1.0
		if ss < 1e-280 {
			// Deviations below about 1e-154 square to subnormals or 0: a
			// feature of tiny magnitude looked constant. Scale them by the
			// largest first (only here, so other features keep their bits).
			scale = max(math.Abs(hi-mean), math.Abs(lo-mean))
			ss = 0
			for i := 0; i < rows; i++ {
				d := (x[i*cols+j] - mean) / scale
				ss += d * d
			}
		}
		s.Mean[j] = mean
		s.Std[j] = scale * math.Sqrt(ss/float64(rows))
		if !(s.Std[j] > 0) {
			s.Std[j] = 1
		}
	}
	return s
}

// scaledMeanStd returns the mean and population sd of column j of x,
// (rows, cols) row-major, whose largest magnitude is big (finite, > 0),
// computed on the values divided by a power of two p with big/p in
// [1, 2), which divides them exactly unless they are far smaller, and
// cannot overflow.
func scaledMeanStd(x []float64, cols, j int, big float64) (mean, std float64) {
	rows := len(x) / cols
	_, e := math.Frexp(big) // big = f * 2^e, f in [0.5, 1)
	p := math.Ldexp(1, e-1)
	sum := 0.0
	for i := 0; i < rows; i++ {
		sum += x[i*cols+j] / p
	}
	m := sum / float64(rows)
	ss := 0.0
	for i := 0; i < rows; i++ {
		d := x[i*cols+j]/p - m
		ss += d * d
	}
	std = p * math.Sqrt(ss/float64(rows))
	if !(std > 0) {
		std = 1
	}
	return m * p, std
}

// Apply standardizes x, (rows, len(s.Mean)) row-major, in place. It panics
// if the length of x is not a multiple of the number of features, or s has
// none (the zero Standardizer: use FitStandardizer).
func (s *Standardizer) Apply(x []float64) {
	cols := len(s.Mean)
	if cols == 0 || len(s.Std) != cols {
		panic("data: Standardizer.Apply: no features (use FitStandardizer)")
	}
	if len(x)%cols != 0 {
		panic("data: Standardizer.Apply: len(x) is not a multiple of the feature count")
	}
	for i := 0; i < len(x); i += cols {
		for j := 0; j < cols; j++ {
			x[i+j] = (x[i+j] - s.Mean[j]) / s.Std[j]
		}
	}
}
