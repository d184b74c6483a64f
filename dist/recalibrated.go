package dist

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// Recalibrated is a distribution recalibrated by a Recalibration R: its
// CDF is R(F(y)) with F the base distribution's.
//
//   - CDF(y) = R(F(y)); Quantile(q) = F⁻¹(R⁻¹(q)), the base's own quantile
//     (exact where the base's is; batched by Quantiles); Median is
//     Quantile(0.5).
//   - LogPDF(y) = log R'(F(y)) + the base's LogPDF(y), with R' the slope
//     of the segment [v_k, v_k+1) holding F(y) (Recalibration.LogSlope).
//   - Mean is exact: sum over R's segments of slope_k times the base's
//     partial expectation E[Y 1{Q(v_k) < Y <= Q(v_k+1)}]: in closed form
//     for MDN (per component mu (Φ(β)-Φ(α)) - sd (φ(β)-φ(α))), exact for
//     Riemann's bins and for Point, for a tree Token from the leaves of
//     its mean's expansion (MeanBound) with the same treatment of
//     unexpanded prefixes: one contributes its recalibrated mass times the
//     midpoint of its part of the segment, and the bound (MeanBound) is
//     the sum of that mass times the part's half-width (at most the
//     largest slope times the base's bound); a Mixture's is the average of
//     its components'. A non-tree Token's comes from its draws (bound
//     +Inf); other bases from 1,024 quantiles (midpoint rule, bound +Inf).
//   - Mode is the point of highest recalibrated density (LogPDF) among the
//     base's local modes (an MDN's from each component's mean, a Mixture's
//     components' modes, otherwise its Mode) and the base's quantiles at
//     R's interior knots, where the recalibrated density jumps: the density
//     is the base's times a constant on each segment, so this is the mode
//     whenever those local modes are all of the base's (at a knot, where
//     the density may be highest just below it, the knot itself).
//   - Sample draws by inverse CDF: u uniform, then Quantile(u); opts are
//     ignored (a token head's temperature, top-k and top-p reshape its
//     ancestral sampling, which this does not use), so Riemann draws are
//     uniform inside the bins rather than their centres.
//   - CRPS (see CRPS): exact for bases made of piecewise-uniform cells
//     (Riemann, tree Token, a Mixture of them; the bound is the largest
//     slope times the base's), otherwise an adaptive Gauss-Legendre
//     quadrature of (R(F(t)) - 1{y <= t})² with its error estimate as the
//     bound.
//
// A Recalibrated is safe for concurrent use when its base is.
// The zero value is not usable: build one with NewRecalibrated (a zero value's
// methods panic or answer nonsense).
type Recalibrated struct {
	base Distribution
	rc   *Recalibration

	knotsOnce sync.Once
	knotQ     []float64 // the base's quantiles at R's interior knots

	meanOnce        sync.Once
	mean, meanBound float64

	modeOnce sync.Once
	mode     float64
}

var _ Distribution = (*Recalibrated)(nil)

// NewRecalibrated returns base recalibrated by rc. It panics if either is
// nil. A zero rc (the identity map) is taken as the identity map through
// the knots (0, 0) and (1, 1), which Recalibration then returns.
func NewRecalibrated(base Distribution, rc *Recalibration) *Recalibrated {
	if base == nil || rc == nil {
		panic("dist: NewRecalibrated with a nil base or recalibration")
	}
	if rc.identity() {
		// Its methods work on knots (the zero value's Mean and CRPS
		// panicked: review).
		rc = &Recalibration{v: []float64{0, 1}, r: []float64{0, 1}, slope: []float64{1}, logS: []float64{0}, maxS: 1}
	}
	return &Recalibrated{base: base, rc: rc}
}

// Base returns the distribution before recalibration.
func (d *Recalibrated) Base() Distribution { return d.base }

// Recalibration returns the map.
func (d *Recalibrated) Recalibration() *Recalibration { return d.rc }

// CDF returns R(F(y)).
func (d *Recalibrated) CDF(y float64) float64 { return d.rc.Map(d.base.CDF(y)) }

// CDFs returns CDF of every y, batched through the base where it offers
// that.
func (d *Recalibrated) CDFs(ys []float64) []float64 {
	out := cdfs(d.base, ys)
	for i, f := range out {
		out[i] = d.rc.Map(f)
	}
	return out
}

// Quantile returns F⁻¹(R⁻¹(q)); NaN for q outside [0, 1].
func (d *Recalibrated) Quantile(q float64) float64 { return d.Quantiles([]float64{q})[0] }

// Quantiles returns Quantile of every q in one call of the base's
// Quantiles.
func (d *Recalibrated) Quantiles(qs []float64) []float64 {
	vs := make([]float64, len(qs))
	for i, q := range qs {
		if !(q >= 0 && q <= 1) {
			vs[i] = math.NaN()
			continue
		}
		vs[i] = d.rc.Inverse(q)
	}
	return Quantiles(d.base, vs)
}

// Median returns Quantile(0.5).
func (d *Recalibrated) Median() float64 { return d.Quantile(0.5) }

// LogPDF returns log R'(F(y)) + the base's log density at y.
func (d *Recalibrated) LogPDF(y float64) float64 { return d.LogPDFs([]float64{y})[0] }

// LogPDFs returns LogPDF of every y, batched through the base.
func (d *Recalibrated) LogPDFs(ys []float64) []float64 {
	lp := LogPDFs(d.base, ys)
	fs := cdfs(d.base, ys)
	for i := range lp {
		if math.IsInf(lp[i], -1) {
			continue
		}
		lp[i] += d.rc.LogSlope(fs[i])
	}
	return lp
}

// knotQuantiles returns the base's quantiles at R's interior knots,
// computed once.
func (d *Recalibrated) knotQuantiles() []float64 {
	d.knotsOnce.Do(func() {
		v := d.rc.interior()
		q := Quantiles(d.base, v)
		for k := 1; k < len(q); k++ {
			q[k] = max(q[k], q[k-1]) // monotone against rounding
		}
		d.knotQ = q
	})
	return d.knotQ
}

// Mean returns E[y] under the recalibrated CDF (see Recalibrated).
func (d *Recalibrated) Mean() float64 {
	m, _ := d.MeanBound()
	return m
}

// MeanBound returns the mean and a bound on its error (0 where exact).
func (d *Recalibrated) MeanBound() (mean, bound float64) {
	d.meanOnce.Do(func() {
		if p, ok := d.base.(*Point); ok {
			// R(F) of a step from 0 to 1 is that step: the point itself
			// (its one segment's mass is 1, R's slope there is not, and
			// the bound was +Inf, helper-122).
			d.mean, d.meanBound = p.v, 0
			return
		}
		ys := append(append([]float64{math.Inf(-1)}, d.knotQuantiles()...), math.Inf(1))
		pe, mass, bnd, ok := segMoments(d.base, ys)
		if !ok {
			d.mean, d.meanBound = d.quantileMean(), math.Inf(1)
			return
		}
		var num, den, b float64
		for k, s := range d.rc.slope {
			num += s * pe[k]
			den += s * mass[k]
			b += s * bnd[k]
		}
		if !(math.Abs(den-1) <= 1e-6) {
			// The masses of R's segments under the base add up to 1
			// unless a knot's quantile rounds onto another (a map with a
			// knot at 1e-300 sends almost all the mass into a segment of
			// the base holding none); dividing by their sum would undo the
			// map.
			d.mean, d.meanBound = d.quantileMean(), math.Inf(1)
			return
		}
		d.mean, d.meanBound = num/den, b/den
	})
	return d.mean, d.meanBound
}

// quantileMean is the mean by the midpoint rule over 1,024 levels of the
// quantile function.
func (d *Recalibrated) quantileMean() float64 {
	const n = 1024
	qs := make([]float64, n)
	for i := range qs {
		qs[i] = (float64(i) + 0.5) / n
	}
	ys := d.Quantiles(qs)
	// About the median: the quantiles of a narrow distribution far from
	// 0 (1.7e15 + 0..120) differ from it in digits that y/n added to a
	// running sum of that size rounds away (the mean fell to the lowest
	// quantiles'); where a difference overflows, the plain sum.
	r, s := ys[n/2], 0.0
	for _, y := range ys {
		s += (y - r) / n
	}
	if !math.IsInf(s, 0) && !math.IsNaN(s) {
		return r + s
	}
	s = 0
	for _, y := range ys {
		s += y / n
	}
	return s
}

// Mode returns the point of highest recalibrated density among the
// base's local modes and its quantiles at R's interior knots (ties to the
// first; see Recalibrated).
func (d *Recalibrated) Mode() float64 {
	d.modeOnce.Do(func() {
		modes := localModes(d.base)
		knots := d.knotQuantiles()
		cands := append(slices.Clone(modes), knots...)
		// At a knot the density's supremum, from either side.
		lp := append(d.LogPDFs(modes), LogPDFs(d.base, knots)...)
		for i := range knots {
			lp[len(modes)+i] += max(d.rc.logS[i], d.rc.logS[i+1])
		}
		best := 0
		for k, v := range lp {
			if v > lp[best] {
				best = k
			}
		}
		d.mode = cands[best]
	})
	return d.mode
}

// localModes returns points at which d's density may peak: an MDN's hill
// climbs from its components' means (see MDN.Mode for which), and a Mixture's of
// MDNs as one Gaussian mixture; another Mixture's components' modes;
// otherwise d's mode.
func localModes(d Distribution) []float64 {
	switch d := d.(type) {
	case *MDN:
		starts := d.modeStarts()
		out := make([]float64, len(starts))
		lc := make([]float64, len(d.w))
		for k, i := range starts {
			out[k] = d.toY(d.climb(d.mu[i], lc))
		}
		return out
	case *Mixture:
		if m, ok := d.pooledMDN(); ok {
			return localModes(m)
		}
		var out []float64
		for _, c := range d.comps {
			out = append(out, localModes(c)...)
		}
		return out
	}
	return []float64{d.Mode()}
}

// Sample draws n values by inverse CDF with r (opts are ignored; see
// Recalibrated). It panics if r is nil and n > 0.
func (d *Recalibrated) Sample(n int, _ SampleOptions, r *rand.Rand) []float64 {
	if n <= 0 {
		return nil
	}
	if r == nil {
		panic("dist: Sample with a nil *rand.Rand")
	}
	us := make([]float64, n)
	for i := range us {
		us[i] = r.Float64()
	}
	return d.Quantiles(us)
}

// segMoments returns, for each segment (ys[j], ys[j+1]] of the sorted
// boundaries ys (the first may be -Inf, the last +Inf), d's partial
// expectation E[Y 1{Y in the segment}], the segment's probability, and a
// bound on the error of the partial expectation; ok is false for a
// distribution it does not know.
func segMoments(d Distribution, ys []float64) (pe, mass, bound []float64, ok bool) {
	ns := len(ys) - 1
	pe, mass, bound = make([]float64, ns), make([]float64, ns), make([]float64, ns)
	switch d := d.(type) {
	case *MDN:
		d.segMoments(ys, pe, mass)
		return pe, mass, bound, true
	case *Riemann:
		n := float64(len(d.p))
		cells := make([]segCell, len(d.p))
		for i, p := range d.p {
			cells[i] = segCell{lo: d.toY(float64(i) / n), hi: d.toY(float64(i+1) / n), m: p, f0: d.cum[i]}
		}
		cellSegs(cells, ys, nil, pe, mass, bound)
		return pe, mass, bound, true
	case *Point:
		for j := range ns {
			if d.v > ys[j] && d.v <= ys[j+1] {
				pe[j], mass[j] = d.v, 1
				break
			}
		}
		return pe, mass, bound, true
	case *Token:
		if d.tree == nil {
			est := d.estimates()
			cells := make([]segCell, len(est))
			for i, t := range est {
				y := d.toY(t)
				cells[i] = segCell{lo: y, hi: y, m: 1 / float64(len(est)), f0: float64(i) / float64(len(est))}
			}
			cellSegs(cells, ys, nil, pe, mass, bound)
			for j := range bound {
				bound[j] = math.Inf(1)
			}
			return pe, mass, bound, len(est) > 0
		}
		d.leafCDF(0) // sorts the leaves
		if len(d.sorted) == 0 || !(d.below[len(d.sorted)] > 0) {
			return nil, nil, nil, false
		}
		cells := make([]segCell, len(d.sorted))
		for i, l := range d.sorted {
			cells[i] = segCell{lo: d.toY(finite(l.lo)), hi: d.toY(finite(l.hi)), m: l.m, f0: d.below[i], pruned: l.pruned}
		}
		cellSegs(cells, ys, cdfs(d, ys), pe, mass, bound)
		return pe, mass, bound, true
	case *Mixture:
		for _, c := range d.comps {
			p, m, b, ok := segMoments(c, ys)
			if !ok {
				return nil, nil, nil, false
			}
			for j := range ns {
				pe[j] += p[j] / d.n()
				mass[j] += m[j] / d.n()
				bound[j] += b[j] / d.n()
			}
		}
		return pe, mass, bound, true
	}
	return nil, nil, nil, false
}

// segMoments adds the Gaussian mixture's partial expectations and masses
// over the segments of ys (y units) to pe and mass: per component, with
// α, β the standardized ends, mass Φ(β)-Φ(α) and partial expectation
// mu (Φ(β)-Φ(α)) - sd (φ(β)-φ(α)) in head units.
func (d *MDN) segMoments(ys, pe, mass []float64) {
	z := make([]float64, len(ys))
	for i, w := range d.w {
		for j, y := range ys {
			z[j] = ((y-d.aff.Offset)/d.aff.Scale - d.mu[i]) / d.sd[i]
		}
		for j := range pe {
			a, b := z[j], z[j+1]
			var m float64
			if a > 0 { // both in the upper tail: from the survival function
				m = 0.5*math.Erfc(a/math.Sqrt2) - 0.5*math.Erfc(b/math.Sqrt2)
			} else {
				m = 0.5*math.Erfc(-b/math.Sqrt2) - 0.5*math.Erfc(-a/math.Sqrt2)
			}
			m = max(m, 0)
			t := d.mu[i]*m - d.sd[i]*(stdNormPDF(b)-stdNormPDF(a))
			mass[j] += w * m
			pe[j] += w * (d.aff.Offset*m + d.aff.Scale*t)
		}
	}
}

// stdNormPDF is the standard normal density (0 at ±Inf).
func stdNormPDF(z float64) float64 {
	if math.IsInf(z, 0) {
		return 0
	}
	return math.Exp(-0.5*z*z) / math.Sqrt(2*math.Pi)
}

// segCell is a cell [lo, hi] (y units) holding mass m, with the CDF f0
// at lo; pruned marks an unexpanded prefix, whose mass is not known to be
// uniform inside it.
type segCell struct {
	lo, hi, m, f0 float64
	pruned        bool
}

// cellSegs adds to pe, mass and bound the segments' partial expectations,
// masses and error bounds from cells (sorted by lo, not overlapping): a
// cell's mass is uniform inside it, but a pruned one's share of a segment
// is taken from fy, the exact CDF at the boundaries ys, and it contributes
// that share times the midpoint of the overlap, with the share times the
// overlap's half-width in bound. A cell of zero width is a point mass.
func cellSegs(cells []segCell, ys, fy, pe, mass, bound []float64) {
	ns := len(ys) - 1
	j := 0
	for _, c := range cells {
		if c.m <= 0 {
			continue
		}
		if !(c.hi > c.lo) { // a point mass: in the segment (ys[j], ys[j+1]] holding it
			for j < ns-1 && ys[j+1] < c.lo {
				j++
			}
			pe[j] += c.m * c.lo
			mass[j] += c.m
			continue
		}
		for j < ns-1 && ys[j+1] <= c.lo {
			j++
		}
		for k := j; k < ns; k++ {
			a, b := max(c.lo, ys[k]), min(c.hi, ys[k+1])
			if b > a {
				var m float64
				if c.pruned && fy != nil {
					fa, fb := c.f0, c.f0+c.m
					if ys[k] > c.lo {
						fa = min(max(fy[k], c.f0), c.f0+c.m)
					}
					if ys[k+1] < c.hi {
						fb = min(max(fy[k+1], c.f0), c.f0+c.m)
					}
					m = max(fb-fa, 0)
					bound[k] += m * (0.5*b - 0.5*a)
				} else {
					m = c.m * ((b - a) / (c.hi - c.lo))
				}
				pe[k] += m * (0.5*a + 0.5*b)
				mass[k] += m
			}
			if ys[k+1] >= c.hi {
				break
			}
		}
	}
}

// crps is the recalibrated CRPS at y and a bound on its error (see
// Recalibrated).
func (d *Recalibrated) crps(y float64) (score, bound float64) {
	if math.IsNaN(y) {
		return math.NaN(), math.NaN()
	}
	if cells, b, ok := baseCells(d.base); ok {
		return cellsCRPS(d.recalCells(cells), y), d.rc.maxS * b
	}
	if _, ok := d.base.(*Point); ok {
		return math.NaN(), math.NaN()
	}
	if math.IsInf(y, 0) {
		return math.Inf(1), 0 // as the other heads: an infinite distance to any finite mass
	}
	return d.quadCRPS(y)
}

// recalCells returns cells (sorted, not overlapping, masses summing to 1)
// under R: each cut where its CDF crosses a knot, each piece holding the
// increase of R(F) across it, which is linear there.
func (d *Recalibrated) recalCells(cells []massCell) []massCell {
	out := make([]massCell, 0, len(cells)+len(d.rc.v))
	f := 0.0
	k := 1 // the next interior knot
	for _, c := range cells {
		f1 := min(f+c.m, 1)
		if !(c.hi > c.lo) || !(c.m > 0) {
			out = append(out, massCell{c.lo, c.hi, d.rc.Map(f1) - d.rc.Map(f)})
			f = f1
			continue
		}
		lo, fl := c.lo, f
		for k < len(d.rc.v)-1 && d.rc.v[k] <= f {
			k++
		}
		for k < len(d.rc.v)-1 && d.rc.v[k] < f1 {
			x := min(max(c.lo+(d.rc.v[k]-f)/c.m*(c.hi-c.lo), lo), c.hi)
			out = append(out, massCell{lo, x, d.rc.r[k] - d.rc.Map(fl)})
			lo, fl = x, d.rc.v[k]
			k++
		}
		out = append(out, massCell{lo, c.hi, d.rc.Map(f1) - d.rc.Map(fl)})
		f = f1
	}
	return out
}

// baseCells returns d as piecewise-uniform cells in y units (sorted, not
// overlapping, masses summing to 1) and the bound on the CRPS error of
// taking its unexpanded prefixes as uniform, or ok false when d is not
// made of cells (MDN, Point, a Mixture with one of them).
func baseCells(d Distribution) (cells []massCell, bound float64, ok bool) {
	switch d := d.(type) {
	case *Riemann:
		n := float64(len(d.p))
		cells = make([]massCell, len(d.p))
		for i, p := range d.p {
			cells[i] = massCell{d.toY(float64(i) / n), d.toY(float64(i+1) / n), p}
		}
		return cells, 0, true
	case *Token:
		if d.tree == nil {
			est := d.estimates()
			for _, t := range est {
				y := d.toY(t)
				cells = append(cells, massCell{y, y, 1 / float64(len(est))})
			}
			return cells, math.Inf(1), len(est) > 0
		}
		cells, bound, ok = d.yCells()
		slices.SortStableFunc(cells, func(a, b massCell) int { return cmp.Compare(a.lo, b.lo) })
		return cells, bound, ok
	case *Mixture:
		var all []massCell
		for _, c := range d.comps {
			cs, b, ok := baseCells(c)
			if !ok {
				return nil, 0, false
			}
			for _, x := range cs {
				x.m /= d.n()
				all = append(all, x)
			}
			bound += b / d.n()
		}
		return mixedPieces(all), bound, true
	}
	return nil, 0, false
}

// The adaptive quadrature of quadCRPS: Gauss-Legendre with glNodes nodes
// on a panel, split in two until the halves agree to quadTol of the
// score's scale, at most quadDepth times; the support is cut at the base's
// quantiles quadTail and 1-quadTail.
const (
	quadTol   = 1e-10
	quadDepth = 30
	quadTail  = 1e-12
)

// The 10-point Gauss-Legendre rule on [-1, 1].
var (
	glNodes   = [5]float64{0.1488743389816312, 0.4333953941292472, 0.6794095682990244, 0.8650633666889845, 0.9739065285171717}
	glWeights = [5]float64{0.2955242247147529, 0.2692667193099963, 0.2190863625159820, 0.1494513491505806, 0.0666713443086881}
)

// quadCRPS integrates (R(F(t)) - 1{y <= t})² over t numerically: panels
// between the base's quantiles at quadTail, R's knots and 1-quadTail, y,
// and the points that resolve the base's narrow Gaussian components
// (gaussPoints), on each of which the integrand is smooth; the bound is
// the sum of the panels' error estimates.
func (d *Recalibrated) quadCRPS(y float64) (score, bound float64) {
	ends := Quantiles(d.base, []float64{quadTail, 1 - quadTail})
	pts := append([]float64{ends[0], ends[1], y}, d.knotQuantiles()...)
	lo, hi := min(ends[0], y), max(ends[1], y)
	pts = gaussPoints(pts, d.base, hi-lo)
	pts = slices.DeleteFunc(pts, func(x float64) bool { return !(x >= lo && x <= hi) })
	slices.Sort(pts)
	pts = slices.Compact(pts)
	f := func(ts []float64) []float64 {
		g := d.CDFs(ts)
		for i, t := range ts {
			if t >= y {
				g[i] = 1 - g[i]
			}
			g[i] *= g[i]
		}
		return g
	}
	tol := quadTol * max(hi-lo, math.SmallestNonzeroFloat64)
	for i := 0; i+1 < len(pts); i++ {
		s, e := adaptGL(f, pts[i], pts[i+1], glPanel(f, pts[i], pts[i+1]), tol, quadDepth)
		score += s
		bound += e
	}
	return score, bound
}

// gaussPoints appends to pts, for each Gaussian component of base (an MDN,
// or the MDNs among a Mixture's members) narrower than span/8 in y units,
// its mean and the points 1, 2, 4 and 8 sds either side: quadCRPS's panels
// then resolve it, however narrow. A component of sd 0.01 inside a span of
// 100 fell between a panel's nodes, and the panel's halves agreed on
// missing it (a CRPS 1.9 sds too high, with a bound of 1e-10).
func gaussPoints(pts []float64, base Distribution, span float64) []float64 {
	switch b := base.(type) {
	case *MDN:
		for i, w := range b.w {
			if w == 0 || !(b.sd[i]*b.aff.Scale < span/8) {
				continue
			}
			for _, k := range [...]float64{-8, -4, -2, -1, 0, 1, 2, 4, 8} {
				pts = append(pts, b.toY(b.mu[i]+k*b.sd[i]))
			}
		}
	case *Mixture:
		for _, c := range b.comps {
			pts = gaussPoints(pts, c, span)
		}
	}
	return pts
}

// glPanel is the 10-point Gauss-Legendre integral of f over [a, b].
func glPanel(f func([]float64) []float64, a, b float64) float64 {
	c, h := 0.5*a+0.5*b, 0.5*(b-a)
	ts := make([]float64, 0, 10)
	for _, x := range glNodes {
		ts = append(ts, c-h*x, c+h*x)
	}
	fs := f(ts)
	s := 0.0
	for i, w := range glWeights {
		s += w * (fs[2*i] + fs[2*i+1])
	}
	return h * s
}

// adaptGL integrates f over [a, b] (whole: its glPanel), halving until the two halves' sum
// agrees with the whole to tol; it returns the integral and its error
// estimate.
func adaptGL(f func([]float64) []float64, a, b, whole, tol float64, depth int) (float64, float64) {
	m := 0.5*a + 0.5*b
	left, right := glPanel(f, a, m), glPanel(f, m, b)
	err := math.Abs(left + right - whole)
	if err <= tol || depth == 0 || !(m > a && m < b) {
		return left + right, err
	}
	l, el := adaptGL(f, a, m, left, tol/2, depth-1)
	r, er := adaptGL(f, m, b, right, tol/2, depth-1)
	return l + r, el + er
}
