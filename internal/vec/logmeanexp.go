package vec

import "math"

// LogMeanExp returns log((1/n) sum exp(v)), computed about the largest
// value so that nothing overflows: NaN if any v is NaN, the common value
// if every v is -Inf or +Inf is among them. It panics if v is empty.
func LogMeanExp(v []float64) float64 {
	if len(v) == 0 {
		panic("vec: LogMeanExp of no values")
	}
	top := math.Inf(-1)
	for _, x := range v {
		if math.IsNaN(x) {
			return math.NaN()
		}
		top = max(top, x)
	}
	if math.IsInf(top, 0) {
		return top
	}
	s := 0.0
	for _, x := range v {
		s += math.Exp(x - top)
	}
	return top + math.Log(s/float64(len(v)))
}
