package dist

import (
	"math"
	"math/rand/v2"
)

// Point is the pointwise head's distribution: a point mass at one value.
type Point struct{ v float64 }

var _ Distribution = (*Point)(nil)

// NewPoint returns the point mass at v (in y units).
func NewPoint(v float64) *Point { return &Point{v} }

// Mean returns the value.
func (d *Point) Mean() float64 { return d.v }

// Median returns the value.
func (d *Point) Median() float64 { return d.v }

// Mode returns the value.
func (d *Point) Mode() float64 { return d.v }

// Quantile returns the value for q in [0,1], NaN otherwise.
func (d *Point) Quantile(q float64) float64 {
	if !(q >= 0 && q <= 1) {
		return math.NaN()
	}
	return d.v
}

// CDF is the step function: 0 below the value, 1 from it on (NaN for NaN).
func (d *Point) CDF(y float64) float64 {
	switch {
	case math.IsNaN(y):
		return math.NaN()
	case y < d.v:
		return 0
	}
	return 1
}

// LogPDF is NaN: a point mass has no density.
func (d *Point) LogPDF(float64) float64 { return math.NaN() }

// Sample returns n copies of the value (none when n <= 0); opts and r
// are ignored.
func (d *Point) Sample(n int, _ SampleOptions, _ *rand.Rand) []float64 {
	out := make([]float64, max(n, 0))
	for i := range out {
		out[i] = d.v
	}
	return out
}
