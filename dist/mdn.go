package dist

import (
	"decoreg/internal/vec"
	"math"
	"math/rand/v2"
	"sort"
	"sync"
)

// MDN is a mixture density network's distribution: a mixture of Gaussians
// in head units, sum_i w_i N(mu_i, sd_i^2).
// The zero value is not usable: build one with NewMDN (a zero value's
// methods panic or answer nonsense).
type MDN struct {
	w, mu, sd []float64 // (M) weights summing to 1, means, standard deviations
	logw      []float64 // (M) log w_i
	lsd       []float64 // (M) log sd_i
	cum       []float64 // (M+1) cumulative weights
	aff       Affine

	modeOnce sync.Once
	mode     float64 // y units
}

var _ Distribution = (*MDN)(nil)

// MDNComponentOK reports whether a component of mean mean and standard
// deviation sd (finite, sd > 0) is within NewMDN's bound: |mean| + 64 sd
// at most a quarter of the largest float64, so that the quantiles'
// brackets and the CRPS's differences of means stay finite.
func MDNComponentOK(mean, sd float64) bool {
	return math.Abs(mean)+64*sd <= math.MaxFloat64/4
}

// NewMDN returns the Gaussian mixture with the given weights (renormalised
// to sum to 1), means and standard deviations, in head units; the slices
// are copied. It panics on slices of different or zero length, a negative
// or non-finite weight, weights summing to zero, a non-finite mean, a
// standard deviation that is not positive and finite, a component whose
// |mean| + 64 sd exceeds a quarter of the largest float64 (the quantiles'
// brackets and the CRPS's differences of means would overflow; a trained
// head's float32 outputs are far inside), or a bad aff.
func NewMDN(weights, means, sds []float64, aff Affine) *MDN {
	checkAffine(aff)
	m := len(weights)
	if m == 0 || len(means) != m || len(sds) != m {
		panic("dist: NewMDN with empty or mismatched weights, means and sds")
	}
	s := 0.0
	for i := range m {
		if !(weights[i] >= 0) || math.IsInf(weights[i], 1) {
			panic("dist: NewMDN with a negative or non-finite weight")
		}
		if math.IsNaN(means[i]) || math.IsInf(means[i], 0) || !(sds[i] > 0) || math.IsInf(sds[i], 1) {
			panic("dist: NewMDN with a non-finite mean or a standard deviation not > 0")
		}
		if !MDNComponentOK(means[i], sds[i]) {
			panic("dist: NewMDN with a component whose |mean| + 64 sd exceeds a quarter of the largest float64")
		}
		s += weights[i]
	}
	weights, s = unoverflowed(weights, s)
	if !(s > 0) {
		panic("dist: NewMDN with weights summing to zero")
	}
	d := &MDN{
		w: make([]float64, m), mu: append([]float64(nil), means...), sd: append([]float64(nil), sds...),
		logw: make([]float64, m), lsd: make([]float64, m), cum: make([]float64, m+1), aff: aff,
	}
	for i := range m {
		d.w[i] = weights[i] / s
		d.logw[i] = vec.Log(d.w[i])
		d.lsd[i] = vec.Log(d.sd[i])
		d.cum[i+1] = d.cum[i] + d.w[i]
	}
	return d
}

func (d *MDN) toY(t float64) float64 { return d.aff.Offset + d.aff.Scale*t }

// Mean returns sum_i w_i mu_i in y units.
func (d *MDN) Mean() float64 {
	s := 0.0
	for i, w := range d.w {
		s += w * d.mu[i]
	}
	return d.toY(s)
}

// Median returns Quantile(0.5).
func (d *MDN) Median() float64 { return d.Quantile(0.5) }

const log2Pi = 1.8378770664093453 // log(2*pi)

// logPDFt is the mixture's log density at t in head units (logsumexp).
func (d *MDN) logPDFt(t float64) float64 {
	m := math.Inf(-1)
	for i := range d.w {
		if l := d.logComp(i, t); l > m {
			m = l
		}
	}
	if math.IsInf(m, -1) {
		return m
	}
	s := 0.0
	for i := range d.w {
		s += math.Exp(d.logComp(i, t) - m)
	}
	return m + math.Log(s)
}

// logComp is log(w_i * N(t; mu_i, sd_i^2)).
func (d *MDN) logComp(i int, t float64) float64 {
	z := (t - d.mu[i]) / d.sd[i]
	return d.logw[i] - 0.5*z*z - d.lsd[i] - 0.5*log2Pi
}

// cdfT and sfT are P(T <= t) and P(T > t), each summed from its own tail
// so that both are accurate far out, and divided by the weights' sum as
// rounded (cum's last, summed in the same order), so that both reach 1
// exactly beyond every component (the weights' sum was 1 - 2^-53).
func (d *MDN) cdfT(t float64) float64 {
	s := 0.0
	for i, w := range d.w {
		s += w * 0.5 * math.Erfc(-(t-d.mu[i])/(d.sd[i]*math.Sqrt2))
	}
	return s / d.cum[len(d.w)]
}

func (d *MDN) sfT(t float64) float64 {
	s := 0.0
	for i, w := range d.w {
		s += w * 0.5 * math.Erfc((t-d.mu[i])/(d.sd[i]*math.Sqrt2))
	}
	return s / d.cum[len(d.w)]
}

// CDF returns P(Y <= y) = sum_i w_i Phi((t - mu_i)/sd_i), t in head units.
func (d *MDN) CDF(y float64) float64 {
	return min(d.cdfT((y-d.aff.Offset)/d.aff.Scale), 1)
}

// LogPDF returns the mixture's log density at y (logsumexp over the
// components) minus log(Scale).
func (d *MDN) LogPDF(y float64) float64 {
	return d.logPDFt((y-d.aff.Offset)/d.aff.Scale) - math.Log(d.aff.Scale)
}

// Quantile returns the q-quantile: -Inf at 0, +Inf at 1, NaN outside
// [0,1]. It solves CDF = q by Newton steps safeguarded by bisection on a
// bracket, to 1e-12 relative (absolute below 1, and a billionth of the
// narrowest component's sd where that is smaller: a component of sd 1e-12
// was cut at a fifth of its sd), working on the upper tail (1-q against
// the survival function) for q > 0.5.
func (d *MDN) Quantile(q float64) float64 {
	switch {
	case !(q >= 0 && q <= 1) || len(d.w) == 0: // NaN for the zero MDN too (its bracket never grew)
		return math.NaN()
	case q == 0:
		return math.Inf(-1)
	case q == 1:
		return math.Inf(1)
	}
	// g is increasing in t with its root at the quantile.
	g := func(t float64) float64 { return d.cdfT(t) - q }
	if q > 0.5 {
		g = func(t float64) float64 { return (1 - q) - d.sfT(t) }
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	sdMax, sdMin := 0.0, math.Inf(1)
	for i, w := range d.w {
		if w == 0 {
			continue // no mass: no bound on the quantile
		}
		lo = min(lo, d.mu[i]-8*d.sd[i])
		hi = max(hi, d.mu[i]+8*d.sd[i])
		sdMax = max(sdMax, d.sd[i])
		if w >= 1e-9*min(q, 1-q) {
			// A component of less weight cannot move the quantile by
			// much of its own sd: it does not tighten the stop (one of
			// weight 1e-12 and sd 1e-9 doubled the time of every level).
			sdMin = min(sdMin, d.sd[i])
		}
	}
	for w := sdMax; g(lo) > 0 && !math.IsInf(lo, -1); w *= 2 {
		lo -= w
	}
	for w := sdMax; g(hi) < 0 && !math.IsInf(hi, 1); w *= 2 {
		hi += w
	}
	// Enough steps for bisection alone to narrow the widest bracket NewMDN
	// allows (means up to MaxFloat64/4) to 1e-12 (a bracket of 1e200
	// around a far component of little weight had not narrowed in 500).
	// A Newton step that leaves the bracket, or is not under half the
	// step before the last one, is a bisection instead (as rtsafe does):
	// Newton's steps could bounce between two points on either side of a
	// component's edge until the loop's end, the bracket hardly narrowed
	// (a median with a CDF of 0.49978, above the quantile at a level a
	// hair lower; helper-153).
	t := 0.5*lo + 0.5*hi
	dxOld, dx := hi-lo, hi-lo
	for range 1100 {
		gt := g(t)
		if gt == 0 {
			return d.toY(t)
		}
		if gt < 0 {
			lo = t
		} else {
			hi = t
		}
		tn := t - gt/math.Exp(d.logPDFt(t))
		if !(tn > lo && tn < hi) || 2*math.Abs(tn-t) > dxOld {
			tn = 0.5*lo + 0.5*hi
		}
		dxOld, dx = dx, math.Abs(tn-t)
		// Steps below a few units in the last place of t are rounding.
		// 1e-12 relative (absolute below 1), or a billionth of the
		// narrowest sd where that is smaller: a tighter stop for every
		// component cost fitted heads a third more time (helper-154).
		tol := max(min(1e-12*max(1, math.Abs(t)), 1e-9*sdMin), 4*(math.Nextafter(math.Abs(t), math.Inf(1))-math.Abs(t)))
		if math.Abs(tn-t) <= tol || hi-lo <= tol {
			t = tn
			break
		}
		t = tn
	}
	return d.toY(t)
}

// Mode returns the highest mode of the mixture. From every component's
// mean it climbs (climb): by Newton steps on the density's derivative
// where the density is concave and the step does not lower it, and
// otherwise by the fixed-point (mean-shift) iteration
// t <- sum_i r_i(t) mu_i/sd_i^2 / sum_i r_i(t)/sd_i^2, r_i(t) the
// component densities, which never lowers the density and stops at a
// stationary point (Carreira-Perpinan 2000); then Newton steps polish the
// top while the density rises. The best of the ends wins. With more than MaxModeStarts
// components it starts only from the MaxModeStarts whose own peaks
// (w_i / sd_i) are highest: the result is then the highest mode those
// starts reach, not always the highest of all. Each iteration costs O(M)
// per start (components whose share underflows are skipped), so the
// whole search is O(min(M, MaxModeStarts) × M × iterations); the result is
// cached.
func (d *MDN) Mode() float64 {
	if len(d.w) == 0 {
		return math.NaN() // the zero MDN
	}
	d.modeOnce.Do(func() {
		best, bestLP := d.mu[0], math.Inf(-1)
		lc := make([]float64, len(d.w))
		for _, i := range d.modeStarts() {
			t := d.climb(d.mu[i], lc)
			if lp := d.logPDFt(t); lp > bestLP {
				best, bestLP = t, lp
			}
		}
		d.mode = d.toY(best)
	})
	return d.mode
}

// MaxModeStarts is the most components MDN.Mode starts its search from.
const MaxModeStarts = 256

// modeStarts returns the components Mode starts from: all of them, or the
// MaxModeStarts with the highest log w_i - log sd_i (ties by index), in
// index order.
func (d *MDN) modeStarts() []int {
	idx := make([]int, len(d.w))
	for i := range idx {
		idx[i] = i
	}
	if len(idx) <= MaxModeStarts {
		return idx
	}
	peak := func(i int) float64 { return d.logw[i] - d.lsd[i] }
	sort.SliceStable(idx, func(a, b int) bool { return peak(idx[a]) > peak(idx[b]) })
	idx = idx[:MaxModeStarts]
	sort.Ints(idx)
	return idx
}

// moments returns, at t, sums over components of r_i/sd_i^2,
// r_i mu_i/sd_i^2 and r_i((mu_i-t)^2/sd_i^4 - 1/sd_i^2), with the r_i
// scaled by a common factor, and the log-density logPDFt(t). lc (len M)
// is scratch for the components' log densities; a component whose scaled
// r_i underflows to 0 adds nothing and is skipped.
func (d *MDN) moments(t float64, lc []float64) (a, b, c, lp float64) {
	m := math.Inf(-1)
	for i := range d.w {
		lc[i] = d.logComp(i, t)
		m = max(m, lc[i])
	}
	s := 0.0
	for i := range d.w {
		if lc[i]-m < -746 { // math.Exp gives 0 below about -745.1
			continue
		}
		r := math.Exp(lc[i] - m)
		s += r
		v := d.sd[i] * d.sd[i]
		a += r / v
		b += r * d.mu[i] / v
		u := (d.mu[i] - t) / v
		c += r * (u*u - 1/v)
	}
	if math.IsInf(m, -1) {
		return a, b, c, m
	}
	return a, b, c, m + math.Log(s)
}

// climb returns the local maximum of the density (in t) that a climb from
// t reaches. The density's slope is proportional to b - a*t and its
// second derivative to c (moments):
// each step is Newton's, t - (b - a*t)/c, where the density is concave
// there (c < 0) and the step does not lower it, and otherwise the mean
// shift b/a, which never lowers it. The mean shift alone crawls up a
// flat top (hundreds of steps, each over every component, for an MDN
// sharpened by a low temperature); Newton's steps converge there in a few.
// Up to 20 more Newton steps polish the top while they climb.
func (d *MDN) climb(t float64, lc []float64) float64 {
	a, b, c, lp := d.moments(t, lc)
	for range 1000 {
		var tn, an, bn, cn, lpn float64
		newton := false
		if c < 0 {
			tn = t - (b-a*t)/c
			if tn != t && !math.IsNaN(tn) && !math.IsInf(tn, 0) {
				an, bn, cn, lpn = d.moments(tn, lc)
				newton = lpn >= lp
			}
		}
		if !newton {
			tn = b / a
			an, bn, cn, lpn = d.moments(tn, lc)
		}
		done := math.Abs(tn-t) <= 1e-14*max(1, math.Abs(t))
		t, a, b, c, lp = tn, an, bn, cn, lpn
		if done {
			break
		}
	}
	// Newton's steps while they climb: the stop above is absolute for
	// |t| < 1, coarse for components far narrower than 1.
	for range 20 {
		if !(c < 0) {
			break
		}
		tn := t - (b-a*t)/c
		if tn == t || math.IsNaN(tn) || math.IsInf(tn, 0) {
			break
		}
		an, bn, cn, lpn := d.moments(tn, lc)
		if !(lpn > lp) {
			break
		}
		t, a, b, c, lp = tn, an, bn, cn, lpn
	}
	return t
}

// Sample draws n values: a component by its weight, then a Gaussian
// draw (none when n <= 0); opts is ignored. It panics if r is nil and n > 0.
func (d *MDN) Sample(n int, _ SampleOptions, r *rand.Rand) []float64 {
	if n <= 0 {
		return nil
	}
	if r == nil {
		panic("dist: Sample with a nil *rand.Rand")
	}
	out := make([]float64, max(n, 0))
	last := len(d.w) - 1
	for j := range out {
		u := r.Float64()
		i := sort.Search(last, func(i int) bool { return d.cum[i+1] > u })
		for i > 0 && d.w[i] == 0 {
			i--
		}
		out[j] = d.toY(d.mu[i] + d.sd[i]*r.NormFloat64())
	}
	return out
}

// unoverflowed returns non-negative finite weights v and their sum s as
// they are, or, where the sum overflows, v divided by its largest entry
// and that sum: the ratios, which are all NewMDN and NewRiemann keep.
func unoverflowed(v []float64, s float64) ([]float64, float64) {
	if !math.IsInf(s, 1) {
		return v, s
	}
	top := 0.0
	for _, x := range v {
		top = max(top, x)
	}
	out := make([]float64, len(v))
	s = 0
	for i, x := range v {
		out[i] = x / top
		s += out[i]
	}
	return out, s
}
