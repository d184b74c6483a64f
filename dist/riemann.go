package dist

import (
	"math"
	"math/rand/v2"
	"sort"

	"decoreg/internal/vec"
)

// Riemann is the histogram head's distribution: n uniform bins on [0,1] in
// head units, bin i = [i/n, (i+1)/n) (the last one closed), with density
// p_i * n inside bin i.
// The zero value is not usable: build one with NewRiemann or NewRiemannLogits (a zero value's
// methods panic or answer nonsense).
type Riemann struct {
	p   []float64 // (n) bin probabilities, summing to 1
	cum []float64 // (n+1) cum[i] = p[0] + ... + p[i-1]
	// logp (n), from NewRiemannLogits: log p_i without underflow (a
	// confident network's far bins have p_i = 0 in float64, but a finite
	// log-probability); nil from NewRiemann, where LogPDF takes log p_i.
	logp []float64
	aff  Affine
}

var _ Distribution = (*Riemann)(nil)

// NewRiemann returns the histogram distribution with bin probabilities
// probs (renormalised to sum to 1; probs is copied). It panics if probs is
// empty, has a negative or non-finite entry or sums to zero, or if
// aff.Scale is not positive and finite or aff.Offset is not finite.
func NewRiemann(probs []float64, aff Affine) *Riemann {
	checkAffine(aff)
	if len(probs) == 0 {
		panic("dist: NewRiemann with no bins")
	}
	s := 0.0
	for _, p := range probs {
		if !(p >= 0) || math.IsInf(p, 1) {
			panic("dist: NewRiemann with a negative or non-finite probability")
		}
		s += p
	}
	probs, s = unoverflowed(probs, s)
	if !(s > 0) {
		panic("dist: NewRiemann with probabilities summing to zero")
	}
	d := &Riemann{p: make([]float64, len(probs)), cum: make([]float64, len(probs)+1), aff: aff}
	for i, p := range probs {
		d.p[i] = p / s
		d.cum[i+1] = d.cum[i] + d.p[i]
	}
	return d
}

// NewRiemannLogits returns the histogram distribution whose bin
// probabilities are softmax(logits), computed in float64 from the largest
// logit (logits is not kept). Its log-density is log-softmax's, finite in
// every bin even where a probability underflows to 0. It panics if logits
// is empty or has a non-finite entry, or if aff.Scale is not positive and
// finite or aff.Offset is not finite.
func NewRiemannLogits(logits []float64, aff Affine) *Riemann {
	checkAffine(aff)
	if len(logits) == 0 {
		panic("dist: NewRiemannLogits with no bins")
	}
	top := math.Inf(-1)
	for _, z := range logits {
		if math.IsNaN(z) || math.IsInf(z, 0) {
			panic("dist: NewRiemannLogits with a non-finite logit")
		}
		top = max(top, z)
	}
	n := len(logits)
	d := &Riemann{p: make([]float64, n), cum: make([]float64, n+1), logp: make([]float64, n), aff: aff}
	for i, z := range logits {
		d.p[i] = z - top
	}
	vec.ExpNegInPlace(d.p) // within 2 ulp of math.Exp, vectorised (as the token heads' softmax)
	s := 0.0
	for _, p := range d.p {
		s += p // >= 1: the top bin's term is 1
	}
	ls := math.Log(s)
	for i, z := range logits {
		d.logp[i] = z - top - ls
		d.p[i] /= s
		d.cum[i+1] = d.cum[i] + d.p[i]
	}
	return d
}

func (d *Riemann) n() float64 { return float64(len(d.p)) }

func (d *Riemann) toY(t float64) float64 { return d.aff.Offset + d.aff.Scale*t }

// Mean returns the exact mean, the sum of p_i times bin i's centre.
func (d *Riemann) Mean() float64 {
	s := 0.0
	for i, p := range d.p {
		s += p * (float64(i) + 0.5)
	}
	return d.toY(s / d.n())
}

// Median returns Quantile(0.5).
func (d *Riemann) Median() float64 { return d.Quantile(0.5) }

// Mode returns the centre of the most probable bin (the lowest on ties).
func (d *Riemann) Mode() float64 {
	best := 0
	for i, p := range d.p {
		if p > d.p[best] {
			best = i
		}
	}
	return d.toY((float64(best) + 0.5) / d.n())
}

// Quantile returns the q-quantile of the piecewise-uniform density (NaN
// for q outside [0,1]); Quantile(0) and Quantile(1) are the edges of the
// support.
func (d *Riemann) Quantile(q float64) float64 {
	if !(q >= 0 && q <= 1) {
		return math.NaN()
	}
	n := len(d.p)
	if q == 1 {
		// The support's top edge: the top of the last bin with mass (the
		// search below could stop a rounding short of it, in a bin whose
		// cumulative sum reaches 1 a few ulp early).
		i := n - 1
		for i > 0 && d.p[i] == 0 {
			i--
		}
		return d.toY(float64(i+1) / d.n())
	}
	i := sort.Search(n, func(i int) bool { return d.cum[i+1] >= q })
	for i < n && d.p[i] == 0 {
		i++
	}
	if i >= n { // rounding: q past the last mass
		i = n - 1
		for i > 0 && d.p[i] == 0 {
			i--
		}
	}
	f := min(max((q-d.cum[i])/d.p[i], 0), 1)
	return d.toY((float64(i) + f) / d.n())
}

// CDF returns P(Y <= y), piecewise linear in y.
func (d *Riemann) CDF(y float64) float64 {
	t := (y - d.aff.Offset) / d.aff.Scale
	switch {
	case math.IsNaN(t):
		return math.NaN()
	case t <= 0:
		return 0
	case t >= 1:
		return 1
	}
	x := t * d.n()
	i := min(int(x), len(d.p)-1)
	return min(d.cum[i]+d.p[i]*(x-float64(i)), 1)
}

// LogPDF returns log(p_bin * n) - log(Scale), -Inf outside [0,1] in head
// units and for NaN. From NewRiemannLogits it is finite on [0,1].
func (d *Riemann) LogPDF(y float64) float64 {
	t := (y - d.aff.Offset) / d.aff.Scale
	if !(t >= 0 && t <= 1) {
		return math.Inf(-1)
	}
	i := min(int(t*d.n()), len(d.p)-1)
	if d.logp != nil {
		return d.logp[i] + math.Log(d.n()) - math.Log(d.aff.Scale)
	}
	return vec.Log(d.p[i]*d.n()) - math.Log(d.aff.Scale)
}

// Sample draws n bins and returns a value drawn uniformly within each, in
// y units (with opts.Centres, the bin's centre), like a token head's
// samples (none when n <= 0); opts' other fields are ignored. It panics
// if r is nil and n > 0.
func (d *Riemann) Sample(n int, opts SampleOptions, r *rand.Rand) []float64 {
	if n <= 0 {
		return nil
	}
	if r == nil {
		panic("dist: Sample with a nil *rand.Rand")
	}
	out := make([]float64, max(n, 0))
	last := len(d.p) - 1
	for j := range out {
		u := r.Float64()
		i := sort.Search(last, func(i int) bool { return d.cum[i+1] > u })
		for i > 0 && d.p[i] == 0 { // rounding: u past the last mass
			i--
		}
		f := 0.5
		if !opts.Centres {
			f = r.Float64()
		}
		out[j] = d.toY((float64(i) + f) / d.n())
	}
	return out
}
