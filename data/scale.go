package data

import (
	"fmt"
	"math"
)

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
		s.Mean[j] = mean
		s.Std[j] = math.Sqrt(ss / float64(rows))
		if !(s.Std[j] > 0) {
			s.Std[j] = 1
		}
	}
	return s
}

// Apply standardizes x, (rows, len(s.Mean)) row-major, in place. It panics
// if the length of x is not a multiple of the number of features.
func (s *Standardizer) Apply(x []float64) {
	cols := len(s.Mean)
	if len(x)%cols != 0 {
		panic("data: Standardizer.Apply: len(x) is not a multiple of the feature count")
	}
	for i := 0; i < len(x); i += cols {
		for j := 0; j < cols; j++ {
			x[i+j] = (x[i+j] - s.Mean[j]) / s.Std[j]
		}
	}
}

// MinMax maps targets to [0, 1] with the training range: u = (y - Min) /
// (Max - Min).
type MinMax struct {
	Min, Max float64
}

// FitMinMax returns the range of y. A constant y is an error wrapping
// ErrConstantTarget; a non-finite value, or a range too wide for float64,
// wraps ErrNonFinite. It panics if y is empty.
func FitMinMax(y []float64) (MinMax, error) {
	if len(y) == 0 {
		panic("data: FitMinMax: no values")
	}
	m := MinMax{Min: y[0], Max: y[0]}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return MinMax{}, fmt.Errorf("%w: target %d is %v", ErrNonFinite, i, v)
		}
		m.Min = math.Min(m.Min, v)
		m.Max = math.Max(m.Max, v)
	}
	if m.Max == m.Min {
		return MinMax{}, fmt.Errorf("%w (%v)", ErrConstantTarget, m.Min)
	}
	if math.IsInf(m.Max-m.Min, 0) {
		return MinMax{}, fmt.Errorf("%w: the target range [%v, %v] overflows float64", ErrNonFinite, m.Min, m.Max)
	}
	return m, nil
}

// Forward returns (y - Min) / (Max - Min): 0 at Min and exactly 1 at Max.
func (m MinMax) Forward(y float64) float64 { return (y - m.Min) / (m.Max - m.Min) }

// Inverse returns Min + u*(Max - Min), the inverse of Forward.
func (m MinMax) Inverse(u float64) float64 { return m.Min + u*(m.Max-m.Min) }

// Clip returns y clamped to [Min, Max] and whether it was outside.
func (m MinMax) Clip(y float64) (float64, bool) {
	switch {
	case y < m.Min:
		return m.Min, true
	case y > m.Max:
		return m.Max, true
	}
	return y, false
}

// LogScale returns log(Max - Min), the term that converts a log-density in
// normalized units to original units: log p(y) = log p(u) - LogScale().
func (m MinMax) LogScale() float64 { return math.Log(m.Max - m.Min) }
