package metrics

import "math"

// MSE returns the mean squared error mean((pred-y)²), or NaN if y is empty.
func MSE(pred, y []float64) float64 {
	checkLen("MSE", pred, y)
	if len(y) == 0 {
		return math.NaN()
	}
	s := 0.0
	for i := range y {
		d := pred[i] - y[i]
		s += d * d
	}
	if m := s / float64(len(y)); !math.IsInf(m, 1) {
		return m
	}
	// The squares or their sum overflowed (errors above about 1e154):
	// the mean of the squares of the values scaled by the largest, scaled
	// back, which is +Inf only where the mean itself exceeds float64 (or
	// a value is infinite).
	big := 0.0
	for i := range y {
		big = max(big, math.Abs(pred[i]), math.Abs(y[i]))
	}
	if math.IsInf(big, 1) {
		return math.Inf(1)
	}
	s = 0
	for i := range y {
		d := pred[i]/big - y[i]/big
		s += d * d
	}
	return s / float64(len(y)) * big * big
}

// RelMSE returns MSE(pred, y) divided by the population variance of y
// (divisor n), so that predicting the mean of y scores 1. It is NaN if y is
// empty or constant, or holds a NaN or an infinity.
func RelMSE(pred, y []float64) float64 {
	checkLen("RelMSE", pred, y)
	v := PopVariance(y)
	if !(v >= tinySquares) {
		if math.IsNaN(v) || constant(y) { // NaN: empty, or a NaN or infinite target
			return math.NaN()
		}
		// Squares below float64's normal range (targets within about
		// 1e-146 of each other): scaled, as for overflow below.
		return scaledRatio(pred, y, true)
	}
	r := MSE(pred, y) / v
	if math.IsInf(v, 1) || math.IsInf(r, 1) || math.IsNaN(r) {
		// Squares beyond float64 (values above about 1e154): the ratio is
		// scale-free, so take it of the values scaled by the largest.
		return scaledRatio(pred, y, true)
	}
	return r
}

// scaledRatio returns mean((pred-y)²)/var(y) (or, with rel false, 1 minus
// it) computed on pred and y divided by their largest magnitude, so that
// no square overflows or underflows; NaN if a prediction or a target is
// NaN (as MSE), and the infinite ratio if a prediction is infinite or the
// targets' variance underflows beside a prediction far beyond them (the
// ratio then exceeds float64).
func scaledRatio(pred, y []float64, rel bool) float64 {
	inf := math.Inf(1)
	if !rel {
		inf = math.Inf(-1)
	}
	big := 0.0
	for i := range y {
		switch {
		case math.IsNaN(pred[i]) || math.IsNaN(y[i]):
			return math.NaN()
		case math.IsInf(pred[i], 0):
			return inf
		}
		big = max(big, math.Abs(pred[i]), math.Abs(y[i]))
	}
	ps, ys := make([]float64, len(y)), make([]float64, len(y))
	for i := range y {
		ps[i], ys[i] = pred[i]/big, y[i]/big
	}
	v := PopVariance(ys)
	if !(v > 0) { // the callers refused a constant y: this is underflow
		return inf
	}
	r := MSE(ps, ys) / v
	if rel {
		return r
	}
	return 1 - r
}

// R2 returns the coefficient of determination 1 - sum((y-pred)²) /
// sum((y-mean(y))²): 1 is perfect, 0 is the constant mean predictor, and it
// may be negative. It equals 1 - RelMSE. It is NaN if y is empty or
// constant, or holds a NaN or an infinity.
func R2(pred, y []float64) float64 {
	checkLen("R2", pred, y)
	ss := sumSq(y)
	if !(ss >= tinySquares) {
		if math.IsNaN(ss) || constant(y) {
			return math.NaN()
		}
		return scaledRatio(pred, y, false) // squares below the normal range, as RelMSE
	}
	res := 0.0
	for i := range y {
		d := y[i] - pred[i]
		res += d * d
	}
	r := 1 - res/ss
	if math.IsInf(ss, 1) || math.IsInf(r, 0) || math.IsNaN(r) {
		return scaledRatio(pred, y, false) // squares beyond float64, as RelMSE
	}
	return r
}

// tinySquares is the least sum or mean of squares RelMSE and R2 take as
// it is: below it the squares of the deviations may have lost precision
// to float64's subnormal range (2^-1022), or underflowed to 0.
const tinySquares = 0x1p-960

// constant reports whether y is empty or holds one value (NaNs aside: a
// NaN differs from every value, and the ratios then come out NaN).
func constant(y []float64) bool {
	for _, v := range y {
		if v != y[0] {
			return false
		}
	}
	return true
}

func checkLen(fn string, a, b []float64) {
	if len(a) != len(b) {
		panic("metrics: " + fn + ": slices of different lengths")
	}
}
