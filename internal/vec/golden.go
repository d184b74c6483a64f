package vec

import "math"

// GoldenMin minimises f on [lo, hi] by iters steps of golden-section
// search and returns the better of the two last points and its value (a
// NaN value counts as worse than any other). f should be unimodal there;
// the calibration objectives search log-temperatures with it.
func GoldenMin(f func(float64) float64, lo, hi float64, iters int) (x, fx float64) {
	phi := (math.Sqrt(5) - 1) / 2
	a, b := hi-phi*(hi-lo), lo+phi*(hi-lo)
	fa, fb := f(a), f(b)
	for range iters {
		if fa <= fb || math.IsNaN(fb) {
			hi, b, fb = b, a, fa
			a = hi - phi*(hi-lo)
			fa = f(a)
		} else {
			lo, a, fa = a, b, fb
			b = lo + phi*(hi-lo)
			fb = f(b)
		}
	}
	if fb < fa || math.IsNaN(fa) && !math.IsNaN(fb) {
		return b, fb
	}
	return a, fa
}
