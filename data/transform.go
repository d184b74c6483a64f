package data

import (
	"math"
	"slices"
	"sort"
)

// The input transforms of decoreg.Config.InputTransform.
const (
	TransformStandard = "standard" // (x - mean) / sd, the default
	TransformRobust   = "robust"   // (x - median) / IQR (scikit-learn's RobustScaler)
	TransformQuantile = "quantile" // Phi^-1 of the training ECDF (scikit-learn's QuantileTransformer, normal output)
	TransformPLE      = "ple"      // piecewise linear encoding over quantile bins (FitPLE): several columns per feature
)

// Transforms lists the input transforms.
var Transforms = []string{TransformStandard, TransformRobust, TransformQuantile, TransformPLE}

// QuantileKnots is the most knots FitQuantiles keeps per feature
// (scikit-learn's n_quantiles).
const QuantileKnots = 1000

// quantileClip keeps the transformed values finite: the ECDF is clipped to
// [clip, 1 - clip] before Phi^-1 (about +-5.2), as scikit-learn does.
const quantileClip = 1e-7

// FitRobust returns per-feature centres (medians) and scales (the
// interquartile range; for a feature whose IQR is 0 its standard
// deviation, or 1 for a constant feature) of x (rows x cols). It panics
// if cols < 1, or x is empty or its length not a multiple of cols.
func FitRobust(x []float64, cols int) (center, scale []float64) {
	if cols < 1 {
		panic("data: FitRobust: cols must be >= 1")
	}
	if len(x) == 0 || len(x)%cols != 0 {
		panic("data: FitRobust: x is empty or not (rows, cols)")
	}
	rows := len(x) / cols
	st := FitStandardizer(x, cols)
	center, scale = make([]float64, cols), make([]float64, cols)
	col := make([]float64, rows)
	for j := range cols {
		for i := range rows {
			col[i] = x[i*cols+j]
		}
		slices.Sort(col)
		center[j] = sortedQuantile(col, 0.5)
		scale[j] = sortedQuantile(col, 0.75) - sortedQuantile(col, 0.25)
		if !(scale[j] > 0) || math.IsInf(scale[j], 0) {
			scale[j] = st.Std[j]
		}
	}
	return center, scale
}

// FitQuantiles returns, per feature of x (rows x cols), the knots of its
// quantile transform: the training values' quantiles at min(rows,
// QuantileKnots) evenly spaced levels from 0 to 1 (linear interpolation);
// a feature of no rows has none. It panics if cols < 1.
func FitQuantiles(x []float64, cols int) [][]float64 {
	if cols < 1 {
		panic("data: FitQuantiles: cols must be >= 1")
	}
	rows := len(x) / cols
	n := min(rows, QuantileKnots)
	col := make([]float64, rows)
	knots := make([][]float64, cols)
	for j := range cols {
		sortedColumn(col, x, cols, j)
		k := make([]float64, n)
		for l := range n {
			q := 0.0
			if n > 1 {
				q = float64(l) / float64(n-1)
			}
			k[l] = sortedQuantile(col, q)
		}
		knots[j] = k
	}
	return knots
}

// QuantileTransform maps v through the feature's knots: its position
// among them (interpolated between neighbours; the middle of a run of
// equal knots, so that a repeated value maps to its mid rank), as a
// fraction in [0, 1] clipped away from 0 and 1, then through the inverse
// normal CDF. Values beyond the knots map to the clipped extremes; NaN,
// no knots, or knots holding NaN (fitted on NaN values) give NaN.
func QuantileTransform(knots []float64, v float64) float64 {
	n := len(knots)
	var r float64
	switch {
	case n == 0 || math.IsNaN(v) || math.IsNaN(knots[0]) || math.IsNaN(knots[n-1]):
		return math.NaN()
	case n == 1:
		r = 0.5
	case v <= knots[0]:
		if v < knots[0] {
			r = 0
		} else {
			r = float64(sort.SearchFloat64s(knots, math.Nextafter(v, math.Inf(1)))-1) / 2 / float64(n-1)
		}
	case v >= knots[n-1]:
		if v > knots[n-1] {
			r = 1
		} else {
			first := sort.SearchFloat64s(knots, v)
			r = (float64(first) + float64(n-1)) / 2 / float64(n-1)
		}
	default:
		hi := sort.SearchFloat64s(knots, v) // first knot >= v
		if knots[hi] == v {
			last := sort.SearchFloat64s(knots, math.Nextafter(v, math.Inf(1))) - 1
			r = (float64(hi) + float64(last)) / 2 / float64(n-1)
		} else {
			lo := hi - 1
			r = (float64(lo) + (v-knots[lo])/(knots[hi]-knots[lo])) / float64(n-1)
		}
	}
	r = min(max(r, quantileClip), 1-quantileClip)
	return math.Sqrt2 * math.Erfinv(2*r-1)
}

// sortedColumn writes column j of x (rows x cols, rows = len(col)) to col,
// sorted.
func sortedColumn(col, x []float64, cols, j int) {
	for i := range col {
		col[i] = x[i*cols+j]
	}
	slices.Sort(col)
}

// sortedQuantile is the linearly interpolated q-quantile of sorted s.
func sortedQuantile(s []float64, q float64) float64 {
	h := q * float64(len(s)-1)
	i := int(h)
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	f := h - float64(i)
	a, b := s[i], s[i+1]
	if a == b {
		return a
	}
	// a*(1-f) + b*f does not overflow for far-apart values, but its
	// rounding can leave [a, b] (a tie's two copies of -2571.4 gave
	// -2571.4000000000005, and the knots were no longer ascending): clamp.
	return min(max(a*(1-f)+b*f, a), b)
}
