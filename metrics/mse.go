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
	return s / float64(len(y))
}

// RelMSE returns MSE(pred, y) divided by the population variance of y
// (divisor n), so that predicting the mean of y scores 1. It is NaN if y is
// empty or constant.
func RelMSE(pred, y []float64) float64 {
	checkLen("RelMSE", pred, y)
	v := PopVariance(y)
	if !(v > 0) {
		return math.NaN()
	}
	return MSE(pred, y) / v
}

// R2 returns the coefficient of determination 1 - sum((y-pred)²) /
// sum((y-mean(y))²): 1 is perfect, 0 is the constant mean predictor, and it
// may be negative. It equals 1 - RelMSE. It is NaN if y is empty or
// constant.
func R2(pred, y []float64) float64 {
	checkLen("R2", pred, y)
	ss := sumSq(y)
	if !(ss > 0) {
		return math.NaN()
	}
	res := 0.0
	for i := range y {
		d := y[i] - pred[i]
		res += d * d
	}
	return 1 - res/ss
}

func checkLen(fn string, a, b []float64) {
	if len(a) != len(b) {
		panic("metrics: " + fn + ": slices of different lengths")
	}
}
