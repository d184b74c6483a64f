// Package gradcheck estimates gradients by central differences, in the
// manner of gonum's diff/fd, for testing hand-written backward passes.
//
// The intended use checks a float32 layer against a float64 twin: write the
// layer's math again in float64 as a scalar function of one input (the loss
// sum_i g_i*out_i for a fixed random g), take its Gradient here, and
// Compare it with what the float32 backward accumulated for dout = g.
// The float64 difference quotient is accurate to about 1e-9, so the
// comparison measures only the float32 rounding of the layer.
package gradcheck

import "math"

// DefaultStep is the central-difference step used when step is 0: about
// the cube root of the float64 epsilon, which balances truncation error
// (step^2 * |third derivative| / 6) against rounding error (eps |f| / step).
const DefaultStep = 6e-6

// Gradient sets dst[i] = (f(x + h e_i) - f(x - h e_i)) / (2h) for every i and
// returns dst; dst is allocated when nil. x is perturbed in place and
// restored exactly. step 0 means DefaultStep.
func Gradient(dst []float64, f func(x []float64) float64, x []float64, step float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(x))
	}
	if len(dst) != len(x) {
		panic("gradcheck: len(dst) != len(x)")
	}
	if step == 0 {
		step = DefaultStep
	}
	for i, xi := range x {
		x[i] = xi + step
		fp := f(x)
		x[i] = xi - step
		fm := f(x)
		x[i] = xi
		dst[i] = (fp - fm) / (2 * step)
	}
	return dst
}

// Compare checks |got[i] - want[i]| <= atol + rtol*|want[i]| for every i.
// It returns the largest |got[i] - want[i]| and the first index that fails
// the test, or -1 when all pass. NaN anywhere fails.
func Compare(got, want []float64, atol, rtol float64) (maxDiff float64, bad int) {
	if len(got) != len(want) {
		panic("gradcheck: len(got) != len(want)")
	}
	bad = -1
	for i := range got {
		d := math.Abs(got[i] - want[i])
		if d > maxDiff || math.IsNaN(d) {
			maxDiff = d
		}
		if !(d <= atol+rtol*math.Abs(want[i])) && bad < 0 {
			bad = i
		}
	}
	return maxDiff, bad
}
