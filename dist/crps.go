package dist

import (
	"cmp"
	"math"
	"slices"
)

// CRPS returns the continuous ranked probability score of d at y,
// the integral over t of (F(t) - 1{y <= t})² with F d's CDF, in the units
// of y (lower is better; for a forecast that is one point it would be the
// absolute error, but a Point, which stands for the pointwise head's
// estimate rather than a distribution, scores NaN, below), and a bound on
// its error:
//
//   - Riemann: exact (bound 0), from the piecewise-uniform bins.
//   - MDN: exact, the closed form for a Gaussian mixture (Grimit et al.
//     2006): sum_i w_i A(y - mu_i, s_i²) - 1/2 sum_ij w_i w_j A(mu_i - mu_j,
//     s_i² + s_j²), A(m, v) = 2 sqrt(v) phi(m/sqrt(v)) + m (2 Phi(m/sqrt(v)) - 1).
//   - Token with a tree tokenization: exact for the piecewise-uniform cells
//     of the expansion of MeanBound (the same prefixes are expanded); a
//     prefix that was not expanded is taken as uniform over its interval,
//     which moves the score by at most 2 × its mass × its width, and the
//     bound is the sum of that over those prefixes (0 when every prefix
//     was expanded, TokenOptions.MeanTol < 0 within MaxExpand).
//   - Token with another tokenization: the score of the seeded draws
//     behind its other estimates; bound +Inf.
//   - Mixture: see Mixture (exact where the components all have cells,
//     Riemann or tree-tokenized Token, or are all MDN; an MDN beside
//     cells is scored from draws, bound +Inf).
//   - Recalibrated: see Recalibrated (exact for Riemann, tree-tokenized
//     Token and mixtures of them; a quadrature otherwise).
//   - Point (the pointwise head, which has no distribution): NaN, NaN.
func CRPS(d Distribution, y float64) (score, bound float64) {
	if _, point := d.(*Point); math.IsInf(y, 0) && !point {
		// Every distribution here has its mass at finite values: the
		// integral of 1 over an infinite half-line (an MDN's closed form
		// and a mixture of them gave NaN).
		return math.Inf(1), 0
	}
	switch d := d.(type) {
	case *Riemann:
		n := len(d.p)
		cells := make([]massCell, n)
		for i, p := range d.p {
			cells[i] = massCell{float64(i) / float64(n), float64(i+1) / float64(n), p}
		}
		return farCells(cells, d.aff, y), 0
	case *MDN:
		return d.aff.Scale * d.crpsT((y-d.aff.Offset)/d.aff.Scale), 0
	case *Token:
		return d.crps(y)
	case *Mixture:
		return d.crps(y)
	case *Recalibrated:
		return d.crps(y)
	}
	return math.NaN(), math.NaN()
}

// massCell is a cell [lo, hi] holding probability mass m uniformly.
type massCell struct{ lo, hi, m float64 }

// cellsCRPS is the CRPS at y of the distribution spreading mass m
// uniformly over each cell (cells sorted by lo, not overlapping, masses
// summing to 1; a cell of zero width is a point mass). The CDF is linear
// across a cell and constant between cells, so each piece integrates in
// closed form.
func cellsCRPS(cells []massCell, y float64) float64 {
	if len(cells) == 0 {
		return math.NaN()
	}
	total := 0.0
	first := cells[0].lo
	if y < first { // F = 0, indicator 1 on [y, first)
		total += first - y
	}
	F, end := 0.0, first
	for _, c := range cells {
		if c.lo > end { // a gap: F constant
			total += segment(end, c.lo, F, F, y)
		}
		total += segment(c.lo, c.hi, F, F+c.m, y)
		F += c.m
		end = max(end, c.hi)
	}
	if y > end { // F = 1 (up to rounding), indicator 0 on [end, y)
		total += (y - end) * F * F
	}
	return total
}

// segment integrates (F(t) - 1{y <= t})² over [a, b], F linear from f0 at
// a to f1 at b.
func segment(a, b, f0, f1, y float64) float64 {
	w := b - a
	if math.IsInf(w, 1) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
		// Wider than the largest float64 (a raw target's cells near its
		// limits): in halves.
		m, fm := a/2+b/2, f0/2+f1/2
		return segment(a, m, f0, fm, y) + segment(m, b, fm, f1, y)
	}
	if !(w > 0) {
		return 0
	}
	sq := func(u, v, w float64) float64 { return w / 3 * (u*u + u*v + v*v) } // the integral of a linear u..v, squared; w/3 first, as w may be near the largest float64
	switch {
	case y >= b:
		return sq(f0, f1, w)
	case y <= a:
		return sq(1-f0, 1-f1, w)
	}
	fy := f0 + (f1-f0)*(y-a)/w
	return sq(f0, fy, y-a) + sq(1-fy, 1-f1, b-y)
}

// crpsT is the CRPS of the mixture in head units at t. The pairs' sds
// are combined by math.Hypot: their squares overflowed beyond about 1e154
// and underflowed below 1e-154 (NaN either way).
func (d *MDN) crpsT(t float64) float64 {
	a := func(m, s float64) float64 { // E|X| for X ~ N(m, s²)
		z := m / s
		return 2*s*math.Exp(-0.5*z*z)/math.Sqrt(2*math.Pi) + m*math.Erf(z/math.Sqrt2)
	}
	// The pairs' term is symmetric in i and j (a(-m, s) = a(m, s)): each
	// pair once, doubled, and the diagonal. It is the cost: K² terms for K
	// components (about 5 s a row at 16,384 on one AMD EPYC Zen 4 core).
	var first, second float64
	for i, wi := range d.w {
		first += wi * a(t-d.mu[i], d.sd[i])
		pairs := 0.0
		for j := i + 1; j < len(d.w); j++ {
			pairs += d.w[j] * a(d.mu[i]-d.mu[j], math.Hypot(d.sd[i], d.sd[j]))
		}
		second += wi * (wi*a(0, math.Hypot(d.sd[i], d.sd[i])) + 2*pairs)
	}
	return first - 0.5*second
}

func (d *Token) crps(y float64) (score, bound float64) {
	t := d.toT(y)
	if d.tree == nil {
		// The draws: CRPS = mean|X - t| - 1/2 mean|X - X'|, the second from
		// the sorted draws in one pass.
		est := d.estimates()
		n := float64(len(est))
		if n == 0 {
			return math.NaN(), math.Inf(1)
		}
		var abs, pair float64
		for i, x := range est {
			abs += math.Abs(x - t)
			pair += (2*float64(i) - n + 1) * x
		}
		return d.aff.Scale * (abs/n - pair/(n*n)), math.Inf(1)
	}
	var cells []massCell
	var tot, bnd float64
	for _, l := range d.expansion() {
		lo, hi, m := finite(l.lo), finite(l.hi), l.m
		cells = append(cells, massCell{lo, hi, m})
		tot += m
		if l.pruned {
			bnd += 2 * m * (hi - lo)
		}
	}
	if !(tot > 0) {
		return math.NaN(), math.NaN()
	}
	for i := range cells {
		cells[i].m /= tot
	}
	slices.SortStableFunc(cells, func(a, b massCell) int { return cmp.Compare(a.lo, b.lo) })
	return farCells(cells, d.aff, y), d.aff.Scale * bnd / tot
}

// farCells is the CRPS, in y units, at y of the cells (in t units, y =
// Offset + Scale t): Scale times cellsCRPS at t. Where y is so far beyond
// them that t overflows (y near float64's largest and a scale below 1:
// +Inf came back), it is the score at the cells' nearer end plus the
// distance from it in y units: beyond the cells F is 0 or 1, so the
// integrand is 1 there.
func farCells(cells []massCell, aff Affine, y float64) float64 {
	t := (y - aff.Offset) / aff.Scale
	if !math.IsInf(t, 0) || math.IsInf(y, 0) || len(cells) == 0 {
		return aff.Scale * cellsCRPS(cells, t)
	}
	e := cells[0].lo
	if t > 0 {
		e = cells[0].hi
		for _, c := range cells {
			e = max(e, c.hi)
		}
	}
	ey := aff.Offset + aff.Scale*e
	return aff.Scale*cellsCRPS(cells, e) + math.Abs(y-ey)
}
