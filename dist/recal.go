package dist

import (
	"decoreg/internal/vec"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Recalibration is a map R of [0, 1] onto itself that recalibrates a
// predictive CDF F into R(F) (Kuleshov, Fenner and Ermon, "Accurate
// Uncertainties for Deep Learning Using Calibrated Regression", ICML 2018):
// piecewise linear between knots (v_k, r_k), k = 0..K, with v_0 = r_0 = 0,
// v_K = r_K = 1 and both strictly increasing, so that R is invertible and
// its slope R' (constant on each segment [v_k, v_k+1)) is positive and
// bounded. A Recalibration is immutable and safe for concurrent use. A nil
// or zero Recalibration is the identity map (Model.Recalibration returns nil
// for a model without one).
type Recalibration struct {
	v, r  []float64 // knots, strictly increasing from 0 to 1
	slope []float64 // (K) the segments' slopes
	logS  []float64 // their logs
	maxS  float64
}

// MaxRecalibrationKnots is the most segments FitRecalibration fits (as
// TokenOptions.Beam's and Samples's limits, it keeps a bad argument from
// allocating without bound: 1<<40 ran the process out of memory).
const MaxRecalibrationKnots = 1 << 16

// NewRecalibration returns the map through the knots (v[k], r[k]): at
// least two, both strictly increasing from exactly 0 to exactly 1 and
// finite, with every slope in float64's range (1e-320 then 1 is not). The
// slices are copied.
func NewRecalibration(v, r []float64) (*Recalibration, error) {
	if len(v) < 2 || len(v) != len(r) {
		return nil, fmt.Errorf("dist: a recalibration needs at least two knots and as many values as knots, have %d and %d", len(v), len(r))
	}
	if v[0] != 0 || r[0] != 0 || v[len(v)-1] != 1 || r[len(r)-1] != 1 {
		return nil, errors.New("dist: a recalibration's knots must start at (0, 0) and end at (1, 1)")
	}
	c := &Recalibration{v: slices.Clone(v), r: slices.Clone(r), slope: make([]float64, len(v)-1), logS: make([]float64, len(v)-1)}
	for k := range c.slope {
		dv, dr := v[k+1]-v[k], r[k+1]-r[k]
		if !(dv > 0) || !(dr > 0) {
			return nil, fmt.Errorf("dist: a recalibration's knots must increase strictly, have (%v, %v) then (%v, %v)", v[k], r[k], v[k+1], r[k+1])
		}
		c.slope[k] = dr / dv
		if c.slope[k] > math.MaxFloat64 || c.slope[k] < 1/math.MaxFloat64 {
			return nil, fmt.Errorf("dist: a recalibration's slope from (%v, %v) to (%v, %v) is %v, beyond float64's range", v[k], r[k], v[k+1], r[k+1], c.slope[k])
		}
		c.logS[k] = vec.Log(c.slope[k])
		c.maxS = max(c.maxS, c.slope[k])
	}
	return c, nil
}

// RecalibrationPrior is the weight, in rows, that FitRecalibration gives
// the identity map: with n PIT values the identity gets at least
// RecalibrationPrior/(n+RecalibrationPrior) of the map (0.4 for 30 rows,
// 0.05 for 380), so that a few rows cannot make a wild map.
const RecalibrationPrior = 20

// FitRecalibration fits the map R to PIT values pit (F_i(y_i) of held-out
// rows; each in [0, 1]) on knots equally spaced knots segments: at
// v_k = k/knots, R(v_k) = (1-λ) G(v_k) + λ v_k, where G is the PIT values'
// empirical CDF (ties at a knot count half) and λ = max(floor,
// RecalibrationPrior/(n+RecalibrationPrior)) the weight of the identity.
// R is then strictly increasing with slopes between λ and (1-λ) knots + λ,
// so log R' is bounded. knots must be 1 to MaxRecalibrationKnots, floor
// in (0, 1], pit non-empty; the same pit give the same map.
func FitRecalibration(pit []float64, knots int, floor float64) (*Recalibration, error) {
	if knots < 1 || knots > MaxRecalibrationKnots {
		return nil, fmt.Errorf("dist: a recalibration needs 1 to %d segments, have %d", MaxRecalibrationKnots, knots)
	}
	if !(floor > 0 && floor <= 1) {
		return nil, fmt.Errorf("dist: the recalibration's floor must be in (0, 1], have %v", floor)
	}
	n := len(pit)
	if n == 0 {
		return nil, errors.New("dist: no PIT values to fit a recalibration on")
	}
	p := slices.Clone(pit)
	for _, x := range p {
		if !(x >= 0 && x <= 1) {
			return nil, fmt.Errorf("dist: PIT value %v is outside [0, 1]", x)
		}
	}
	slices.Sort(p)
	lambda := max(floor, RecalibrationPrior/(float64(n)+RecalibrationPrior))
	v := make([]float64, knots+1)
	r := make([]float64, knots+1)
	for k := 1; k < knots; k++ {
		v[k] = float64(k) / float64(knots)
		below, _ := slices.BinarySearch(p, v[k]) // p[:below] < v[k]
		at := below
		for at < n && p[at] == v[k] {
			at++
		}
		g := (float64(below) + 0.5*float64(at-below)) / float64(n)
		r[k] = (1-lambda)*g + lambda*v[k]
	}
	v[knots], r[knots] = 1, 1
	return NewRecalibration(v, r)
}

// identity reports whether c is nil or zero: the identity map.
func (c *Recalibration) identity() bool { return c == nil || len(c.slope) == 0 }

// Knots returns copies of the knots: R(v[k]) = r[k].
func (c *Recalibration) Knots() (v, r []float64) {
	if c.identity() {
		return []float64{0, 1}, []float64{0, 1}
	}
	return slices.Clone(c.v), slices.Clone(c.r)
}

// interior returns the map's interior knots in F-space (not a copy).
func (c *Recalibration) interior() []float64 { return c.v[1 : len(c.v)-1] }

// MaxSlope is the largest slope of R.
func (c *Recalibration) MaxSlope() float64 {
	if c.identity() {
		return 1
	}
	return c.maxS
}

// segment returns the k with v_k <= p < v_k+1 (the last segment for p = 1);
// p in [0, 1].
func (c *Recalibration) segment(p float64) int {
	return min(sort.SearchFloat64s(c.v, math.Nextafter(p, math.Inf(1)))-1, len(c.slope)-1)
}

// Map returns R(p), p clamped to [0, 1]; NaN gives NaN.
func (c *Recalibration) Map(p float64) float64 {
	if math.IsNaN(p) {
		return p
	}
	p = min(max(p, 0), 1)
	if c.identity() {
		return p
	}
	k := max(c.segment(p), 0)
	return min(c.r[k]+c.slope[k]*(p-c.v[k]), 1)
}

// Inverse returns R⁻¹(q), q clamped to [0, 1]; NaN gives NaN. It is 0
// and 1 only at 0 and 1: a level inside (0, 1) whose inverse rounds to an
// end is given the nearest float64 inside (a recalibrated quantile at
// 1 - 2^-53 was the base's at 1, +Inf for an MDN).
func (c *Recalibration) Inverse(q float64) float64 {
	if math.IsNaN(q) {
		return q
	}
	q = min(max(q, 0), 1)
	if c.identity() {
		return q
	}
	k := max(min(sort.SearchFloat64s(c.r, math.Nextafter(q, math.Inf(1)))-1, len(c.slope)-1), 0)
	p := min(c.v[k]+(q-c.r[k])/c.slope[k], 1)
	switch {
	case q > 0 && q < 1 && p >= 1:
		return math.Nextafter(1, 0)
	case q > 0 && q < 1 && p <= 0:
		return math.SmallestNonzeroFloat64
	}
	return p
}

// LogSlope returns log R'(p): the slope of the segment [v_k, v_k+1) that
// holds p (the right derivative at a knot; the last segment's at 1), p
// clamped to [0, 1]; NaN gives NaN.
func (c *Recalibration) LogSlope(p float64) float64 {
	if math.IsNaN(p) {
		return p
	}
	if c.identity() {
		return 0
	}
	return c.logS[max(c.segment(min(max(p, 0), 1)), 0)]
}
