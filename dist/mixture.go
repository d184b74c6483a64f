package dist

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"

	"decoreg/internal/vec"
)

// Mixture is the equal-weight mixture of its components, (1/N) sum_k p_k:
// an ensemble's predictive distribution.
//
//   - Mean is the average of the components' means, CDF the average of their
//     CDFs and LogPDF the log of the average of their densities (computed
//     as a log-sum-exp): exact wherever the components' are.
//   - Quantile is read off the components' cells where they are exact
//     there (Riemann components, and tree Tokens whose mean expansions
//     reach the level). For Tokens of one tree and affine map (an
//     ensemble's seeds) the other levels are found by a walk down the
//     mixture's own tree (sharedTree), exact to rounding. Otherwise it is
//     found by false position (Illinois-safeguarded
//     bisection) on the mixture's CDF between the
//     smallest and the largest component quantile at the same level (the
//     mixture's lies between them) down to a millionth of that bracket,
//     then by linear interpolation of the CDF across what is left: exact
//     (to rounding) where the components' CDFs are linear there, as inside
//     the cells of token and Riemann components; within a millionth of the
//     bracket otherwise; point masses (pointwise components) exactly. A
//     point is taken early when its CDF is within 1e-13 of the level's
//     tail mass (q, or 1-q above 1/2, though not closer than the CDF's
//     rounding near 1): in a gap between members where the CDF equals q
//     to float64's precision (the median of N(0, 1) and N(100, 4) mixed
//     equally), any point of the gap; the exact one lies where the tails'
//     masses, 1e-240 there, balance.
//   - Mode is the component mode at which the mixture's density is highest
//     (the median for components without a density): the mixture's mode
//     when the components overlap little or agree, an approximation
//     otherwise.
//   - Sample draws each value from a uniformly chosen component.
//   - CRPS (see CRPS): exact from the components' cells or Gaussians.
//
// A Mixture is safe for concurrent use when its components are.
// The zero value is not usable: build one with NewMixture (a zero value's
// methods panic or answer nonsense).
type Mixture struct {
	comps []Distribution

	modeOnce sync.Once
	mode     float64

	cellsOnce sync.Once
	cells     *mixCells // nil unless every component is cell-based
}

// mixCells is the CDF of a mixture of cell-based components (Riemann, tree
// Token) as their cells give it: pieces that do not overlap, sorted, with
// the CDF at each piece's start, and the intervals of the token
// components' unexpanded prefixes, inside which it is not exact.
type mixCells struct {
	pieces []massCell
	start  []float64 // CDF at pieces[j].lo
	pruned [][2]float64
}

// cellCDF returns the mixture's mixCells, or nil when a component is not
// cell-based.
func (d *Mixture) cellCDF() *mixCells {
	d.cellsOnce.Do(func() {
		var cells []massCell
		var pruned [][2]float64
		for _, c := range d.comps {
			switch c := c.(type) {
			case *Riemann:
				n := float64(len(c.p))
				for i, p := range c.p {
					cells = append(cells, massCell{c.toY(float64(i) / n), c.toY(float64(i+1) / n), p / d.n()})
				}
			case *Token:
				if c.tree == nil {
					return
				}
				var tot float64
				ls := c.expansion()
				for _, l := range ls {
					tot += l.m
				}
				if !(tot > 0) {
					return
				}
				for _, l := range ls {
					lo, hi := c.toY(finite(l.lo)), c.toY(finite(l.hi))
					cells = append(cells, massCell{lo, hi, l.m / tot / d.n()})
					if l.pruned {
						pruned = append(pruned, [2]float64{lo, hi})
					}
				}
			default:
				return
			}
		}
		pieces := mixedPieces(cells)
		mc := &mixCells{pieces: pieces, start: make([]float64, len(pieces)), pruned: pruned}
		f := 0.0
		for j, p := range pieces {
			mc.start[j] = f
			f += p.m
		}
		d.cells = mc
	})
	return d.cells
}

// quantile inverts the cells' CDF at q (0 < q < 1); ok is false where the
// answer lies inside an unexpanded prefix (or the cells end short of q by
// rounding), where the cells' CDF is not the mixture's.
func (mc *mixCells) quantile(q float64) (x float64, ok bool) {
	j := sort.Search(len(mc.pieces), func(j int) bool { return mc.start[j]+mc.pieces[j].m >= q })
	if j == len(mc.pieces) {
		return 0, false
	}
	p := mc.pieces[j]
	x = p.lo
	if p.hi > p.lo && p.m > 0 {
		x = min(max(p.lo+(q-mc.start[j])/p.m*(p.hi-p.lo), p.lo), p.hi)
	}
	for _, pr := range mc.pruned {
		if x >= pr[0] && x <= pr[1] {
			return 0, false
		}
	}
	return x, true
}

var _ Distribution = (*Mixture)(nil)

// NewMixture returns the equal-weight mixture of comps (copied). It panics
// if comps is empty or holds a nil.
func NewMixture(comps []Distribution) *Mixture {
	if len(comps) == 0 {
		panic("dist: NewMixture with no components")
	}
	for _, c := range comps {
		if c == nil {
			panic("dist: NewMixture with a nil component")
		}
	}
	return &Mixture{comps: slices.Clone(comps)}
}

// Components returns the mixture's components (the slice is shared; do
// not modify it).
func (d *Mixture) Components() []Distribution { return d.comps }

func (d *Mixture) n() float64 { return float64(len(d.comps)) }

// Mean is the average of the components' means.
func (d *Mixture) Mean() float64 {
	s := 0.0
	for _, c := range d.comps {
		s += c.Mean() / d.n() // divided first: a sum of means near MaxFloat64 overflows
	}
	return s
}

// Median is Quantile(0.5).
func (d *Mixture) Median() float64 { return d.Quantile(0.5) }

// CDF is the average of the components' CDFs.
func (d *Mixture) CDF(y float64) float64 { return d.CDFs([]float64{y})[0] }

// CDFs is CDF at each of ys, batched per component where a component
// offers it.
func (d *Mixture) CDFs(ys []float64) []float64 {
	out := make([]float64, len(ys))
	for _, c := range d.comps {
		for i, v := range cdfs(c, ys) {
			out[i] += v
		}
	}
	for i, y := range ys {
		out[i] = min(out[i]/d.n(), 1)
		switch {
		case math.IsInf(y, 1):
			out[i] = 1 // not the members' rounded sum, 0.9999999999999999
		case math.IsInf(y, -1):
			out[i] = 0
		}
	}
	return out
}

func cdfs(c Distribution, ys []float64) []float64 {
	if t, ok := c.(*Token); ok && t.tree != nil {
		// From the cached expansion where it is exact; a tree walk for
		// the points inside unexpanded prefixes.
		out := make([]float64, len(ys))
		var miss []int
		var my []float64
		for i, y := range ys {
			f, ok := t.leafCDF(t.toT(y))
			if !ok {
				miss, my = append(miss, i), append(my, y)
				continue
			}
			out[i] = f
		}
		if len(my) > 0 {
			for j, f := range t.CDFs(my) {
				out[miss[j]] = f
			}
		}
		return out
	}
	if b, ok := c.(interface{ CDFs([]float64) []float64 }); ok {
		return b.CDFs(ys)
	}
	out := make([]float64, len(ys))
	for i, y := range ys {
		out[i] = c.CDF(y)
	}
	return out
}

// LogPDF is log((1/N) sum_k p_k(y)): -Inf outside every component's
// support, NaN when a component has no density.
func (d *Mixture) LogPDF(y float64) float64 { return d.LogPDFs([]float64{y})[0] }

// LogPDFs is LogPDF at each of ys.
func (d *Mixture) LogPDFs(ys []float64) []float64 {
	per := make([][]float64, len(d.comps))
	for k, c := range d.comps {
		per[k] = LogPDFs(c, ys)
	}
	out := make([]float64, len(ys))
	lp := make([]float64, len(d.comps))
	for i := range ys {
		for k := range d.comps {
			lp[k] = per[k][i]
		}
		out[i] = vec.LogMeanExp(lp)
	}
	return out
}

// Quantile returns the q-quantile (NaN for q outside [0, 1]).
func (d *Mixture) Quantile(q float64) float64 { return d.Quantiles([]float64{q})[0] }

// Quantiles returns the quantiles at levels qs (see Mixture): for Tokens
// of one tree, all of them in one walk; otherwise, bisecting all of them
// together so that each step asks every component for its CDF once.
func (d *Mixture) Quantiles(qs []float64) []float64 {
	if ts := d.sharedTree(); ts != nil {
		return d.sharedQuantiles(ts, qs)
	}
	out := make([]float64, len(qs))
	per := make([][]float64, len(d.comps))
	for k, c := range d.comps {
		per[k] = Quantiles(c, qs)
	}
	lo := make([]float64, len(qs))
	hi := make([]float64, len(qs))
	var open []int                 // levels still being bisected
	found := make([]bool, len(qs)) // answered
	for i, q := range qs {
		if !(q >= 0 && q <= 1) {
			out[i] = math.NaN()
			continue
		}
		lo[i], hi[i] = math.Inf(1), math.Inf(-1)
		for k := range d.comps {
			v := per[k][i]
			if math.IsNaN(v) {
				lo[i] = math.NaN()
				break
			}
			lo[i], hi[i] = min(lo[i], v), max(hi[i], v)
		}
		if q > 0 && q < 1 && !math.IsNaN(lo[i]) && lo[i] != hi[i] {
			if mc := d.cellCDF(); mc != nil {
				if x, ok := mc.quantile(q); ok {
					out[i], found[i] = x, true // exact: no unexpanded prefix there
					continue
				}
			}
		}
		switch {
		case math.IsNaN(lo[i]):
			out[i] = math.NaN()
		case q == 0:
			out[i] = lo[i] // the lowest point of any support
		case q == 1:
			out[i] = hi[i]
		case lo[i] == hi[i]:
			out[i] = lo[i]
		default:
			open = append(open, i)
		}
	}
	// Invariant: CDF(hi) >= q (hi is some component's q-quantile and no
	// component's is above it); lo is below the answer or equal to it.
	// Narrow the bracket until the CDF meets q, or the bracket is a
	// millionth of its first width (or no representable point lies
	// between); then interpolate the CDF linearly across it: exact where
	// every component's CDF is linear there, as inside one cell of a
	// token or Riemann component.
	// (flo and fhi are CDF(lo) and CDF(hi).)
	flo := make([]float64, len(qs))
	fhi := make([]float64, len(qs))
	tol := make([]float64, len(qs))
	ends := make([]float64, 0, 2*len(open))
	for _, i := range open {
		ends = append(ends, lo[i], hi[i])
		tol[i] = 1e-6 * (hi[i] - lo[i])
	}
	fs := d.CDFs(ends)
	still := open[:0]
	for j, i := range open {
		flo[i], fhi[i] = fs[2*j], fs[2*j+1]
		if flo[i] >= qs[i] {
			// The lowest component quantile already has mass q below it
			// (an atom there, as a pointwise component's): the answer.
			out[i], found[i] = lo[i], true
			continue
		}
		still = append(still, i)
	}
	open = still
	// Each step tries the false-position point (where the line through
	// (lo, CDF(lo)) and (hi, CDF(hi)) meets q, which is the answer once
	// the CDF is linear across the bracket), and the midpoint instead when
	// the last two steps moved the same end (Illinois' safeguard) or the
	// point falls outside.
	side := make([]int, len(qs))    // the end the last step moved: -1 lo, +1 hi
	bisect := make([]bool, len(qs)) // the next step bisects
	xs := make([]float64, 0, len(open))
	for step := 0; step < 200 && len(open) > 0; step++ {
		xs = xs[:0]
		for _, i := range open {
			x := 0.5*lo[i] + 0.5*hi[i]
			if !bisect[i] && fhi[i] > flo[i] {
				if fp := lo[i] + (qs[i]-flo[i])/(fhi[i]-flo[i])*(hi[i]-lo[i]); fp > lo[i] && fp < hi[i] {
					x = fp
				}
			}
			xs = append(xs, x)
		}
		fs := d.CDFs(xs)
		next := open[:0]
		for j, i := range open {
			x := xs[j]
			if x <= lo[i] || x >= hi[i] { // no representable point between
				continue
			}
			if math.Abs(fs[j]-qs[i]) <= accept(qs[i]) {
				out[i], found[i] = x, true // on the line: the answer
				continue
			}
			s := -1
			if fs[j] >= qs[i] {
				hi[i], fhi[i], s = x, fs[j], 1
			} else {
				lo[i], flo[i] = x, fs[j]
			}
			bisect[i] = s == side[i]
			side[i] = s
			// A bracket that still holds much mass may hold an atom (a
			// point mass, or a cell narrower than it): narrow it to the
			// last bits, where hi is the atom.
			if hi[i]-lo[i] > tol[i] || fhi[i]-flo[i] > 1e-4 {
				next = append(next, i)
			}
		}
		open = next
	}
	for i, q := range qs {
		if !(q > 0 && q < 1) || math.IsNaN(lo[i]) || lo[i] == hi[i] || found[i] {
			continue
		}
		out[i] = hi[i]
		if fhi[i] > flo[i] && flo[i] < q && fhi[i]-flo[i] <= 1e-4 {
			out[i] = min(max(lo[i]+(q-flo[i])/(fhi[i]-flo[i])*(hi[i]-lo[i]), lo[i]), hi[i])
		}
	}
	return out
}

// accept is how close to level q a point's CDF must be to be taken as
// the q-quantile in Mixture.Quantiles: 1e-13 of the tail's mass, q or
// 1-q (an absolute 1e-13 took the point whose CDF is 5e-21 for the level
// 1e-20), and, above 1/2, no less than two units in the last place of
// the CDF there.
func accept(q float64) float64 {
	if q <= 0.5 {
		return 1e-13 * q
	}
	return max(1e-13*(1-q), 0x1p-52)
}

// Mode returns the component mode where the mixture's density is highest
// (ties to the first component); the median when the density is NaN
// (components without one).
func (d *Mixture) Mode() float64 {
	d.modeOnce.Do(func() {
		cands := make([]float64, len(d.comps))
		for k, c := range d.comps {
			cands[k] = c.Mode()
		}
		lp := d.LogPDFs(cands)
		best := -1
		for k, v := range lp {
			if math.IsNaN(v) {
				best = -1
				break
			}
			if best < 0 || v > lp[best] {
				best = k
			}
		}
		if best < 0 {
			d.mode = d.Median()
			return
		}
		d.mode = cands[best]
	})
	return d.mode
}

// Sample draws n values, each from a component chosen uniformly at random
// with r; opts go to the components. It panics if r is nil and n > 0.
func (d *Mixture) Sample(n int, opts SampleOptions, r *rand.Rand) []float64 {
	if n <= 0 {
		return nil
	}
	if r == nil {
		panic("dist: Sample with a nil *rand.Rand")
	}
	pick := make([]int, n)
	count := make([]int, len(d.comps))
	for i := range pick {
		pick[i] = r.IntN(len(d.comps))
		count[pick[i]]++
	}
	draws := make([][]float64, len(d.comps))
	for k, c := range d.comps {
		if count[k] > 0 {
			draws[k] = c.Sample(count[k], opts, r)
		}
	}
	out := make([]float64, n)
	next := make([]int, len(d.comps))
	for i, k := range pick {
		out[i] = draws[k][next[k]]
		next[k]++
	}
	return out
}

// crps is the mixture's CRPS at y and a bound on its error:
//   - components that are all Riemann or tree-tokenized Token: exact from
//     the union of their cells (the mixture's CDF is linear between the
//     cells' endpoints), with bound the average of the components' bounds
//     (an unexpanded prefix's mass is 1/N as large in the mixture);
//   - components that are all MDN: the Gaussian mixture's closed form;
//   - otherwise: from 1,000 seeded draws per component, bound +Inf; NaN,
//     NaN when a component has no distribution (Point).
func (d *Mixture) crps(y float64) (score, bound float64) {
	if math.IsNaN(y) {
		return math.NaN(), math.NaN()
	}
	if p, aff, ok := d.sameBins(); ok {
		// Histograms on one grid: the mixture is the histogram of the
		// averaged probabilities (its cells need no cutting).
		n := len(p)
		cells := make([]massCell, n)
		for i, pi := range p {
			cells[i] = massCell{float64(i) / float64(n), float64(i+1) / float64(n), pi}
		}
		return aff.Scale * cellsCRPS(cells, (y-aff.Offset)/aff.Scale), 0
	}
	var cells []massCell
	allCells, allMDN := true, true
	var bnd float64
	for _, c := range d.comps {
		switch c := c.(type) {
		case *Point:
			return math.NaN(), math.NaN()
		case *MDN:
			allCells = false
			continue
		case *Riemann:
			n := float64(len(c.p))
			for i, p := range c.p {
				cells = append(cells, massCell{c.toY(float64(i) / n), c.toY(float64(i+1) / n), p / d.n()})
			}
			allMDN = false
			continue
		case *Token:
			if c.tree != nil {
				cs, b, ok := c.yCells()
				if ok {
					for _, x := range cs {
						x.m /= d.n()
						cells = append(cells, x)
					}
					bnd += b / d.n()
					allMDN = false
					continue
				}
			}
		}
		allCells, allMDN = false, false
	}
	switch {
	case allCells:
		return mixedCellsCRPS(cells, y), bnd
	case allMDN:
		m, _ := d.pooledMDN()
		return m.aff.Scale * m.crpsT((y-m.aff.Offset)/m.aff.Scale), 0
	}
	// The pooled seeded draws.
	var est []float64
	for k, c := range d.comps {
		r := rand.New(rand.NewPCG(uint64(k)+1, 0x6a09e667f3bcc909))
		est = append(est, c.Sample(1000, SampleOptions{}, r)...)
	}
	slices.Sort(est)
	n := float64(len(est))
	var abs, pair float64
	for i, x := range est {
		abs += math.Abs(x - y)
		pair += (2*float64(i) - n + 1) * x
	}
	return abs/n - pair/(n*n), math.Inf(1)
}

// sameBins returns the averaged bin probabilities of a mixture of Riemann
// components with the same bins (count and affine map), or ok false.
func (d *Mixture) sameBins() (p []float64, aff Affine, ok bool) {
	for k, c := range d.comps {
		r, isR := c.(*Riemann)
		if !isR || k > 0 && (len(r.p) != len(p) || r.aff != aff) {
			return nil, Affine{}, false
		}
		if k == 0 {
			p, aff = make([]float64, len(r.p)), r.aff
		}
		for i, v := range r.p {
			p[i] += v / d.n()
		}
	}
	return p, aff, true
}

// pooledMDN returns a mixture of MDN components as one Gaussian mixture
// in the first component's head units (weights, means and sds only: for
// its CRPS and modes), or ok false when a component is not an MDN.
func (d *Mixture) pooledMDN() (m *MDN, ok bool) {
	m = &MDN{}
	for k, c := range d.comps {
		c, ok := c.(*MDN)
		if !ok {
			return nil, false
		}
		if k == 0 {
			m.aff = c.aff
		}
		for i := range c.w {
			m.w = append(m.w, c.w[i]/d.n())
			m.logw = append(m.logw, c.logw[i]-math.Log(d.n()))
			m.mu = append(m.mu, (c.toY(c.mu[i])-m.aff.Offset)/m.aff.Scale)
			m.sd = append(m.sd, c.sd[i]*c.aff.Scale/m.aff.Scale)
			m.lsd = append(m.lsd, vec.Log(m.sd[len(m.sd)-1]))
		}
	}
	return m, true
}

// yCells returns the token distribution's cells of the mean's expansion
// in y units with their probability (summing to 1), and the CRPS bound of
// the unexpanded prefixes (see Token.crps); ok is false when there is no
// mass.
func (d *Token) yCells() (cells []massCell, bound float64, ok bool) {
	var tot, bnd float64
	for _, l := range d.expansion() {
		lo, hi, m := finite(l.lo), finite(l.hi), l.m
		cells = append(cells, massCell{d.toY(lo), d.toY(hi), m})
		tot += m
		if l.pruned {
			bnd += 4 * m * halfWidth(lo, hi)
		}
	}
	if !(tot > 0) {
		return nil, 0, false
	}
	for i := range cells {
		cells[i].m /= tot
	}
	return cells, d.aff.Scale * bnd / tot, true
}

// mixedCellsCRPS is cellsCRPS for cells that may overlap: the mass is cut
// at every cell's endpoints into pieces that do not, each piece getting
// from every cell covering it the share of the cell's mass its width
// gives; a cell of zero width stays a point mass.
func mixedCellsCRPS(cells []massCell, y float64) float64 {
	return cellsCRPS(mixedPieces(cells), y)
}

// mixedPieces cuts cells that may overlap at every cell's endpoints into
// pieces that do not, sorted: each piece gets from every cell covering it
// the share of the cell's mass its width gives; a cell of zero width stays
// a point mass (a piece of zero width before the pieces starting there).
func mixedPieces(cells []massCell) []massCell {
	pts := make([]float64, 0, 2*len(cells))
	for _, c := range cells {
		pts = append(pts, c.lo, c.hi)
	}
	pts = slices.Compact(sortRuns(pts))
	// The cells starting and ending at each endpoint. A piece's mass is
	// summed over the cells covering it, each giving the share of its mass
	// that the piece's width is of its own: not from a running sum of
	// densities, which a tiny cell's huge one (a raw target's cells near 0,
	// 1e-100 wide) left as rounding error 1e80 times a wide piece (an
	// ensemble's CRPS was 1e178). The cells of one component do not
	// overlap, so at most a cell of each covers a piece.
	point := make([]float64, len(pts))
	// The cells starting at point i are byStart[startAt[i]:startAt[i+1]],
	// and those ending there byEnd[endAt[i]:endAt[i+1]] (counting sort).
	lo, hi := make([]int32, len(cells)), make([]int32, len(cells))
	startAt, endAt := make([]int32, len(pts)+1), make([]int32, len(pts)+1)
	for k, c := range cells {
		i, _ := slices.BinarySearch(pts, c.lo)
		lo[k], hi[k] = int32(i), -1
		if !(c.hi > c.lo) {
			point[i] += c.m
			continue
		}
		j, _ := slices.BinarySearch(pts, c.hi)
		hi[k] = int32(j)
		startAt[i+1]++
		endAt[j+1]++
	}
	for i := range pts {
		startAt[i+1] += startAt[i]
		endAt[i+1] += endAt[i]
	}
	byStart, byEnd := make([]int32, startAt[len(pts)]), make([]int32, endAt[len(pts)])
	fillS, fillE := slices.Clone(startAt[:len(pts)]), slices.Clone(endAt[:len(pts)])
	for k := range cells {
		if hi[k] < 0 {
			continue
		}
		byStart[fillS[lo[k]]] = int32(k)
		fillS[lo[k]]++
		byEnd[fillE[hi[k]]] = int32(k)
		fillE[hi[k]]++
	}
	var pieces []massCell
	var active []int32
	for i, p := range pts {
		if point[i] > 0 {
			pieces = append(pieces, massCell{p, p, point[i]})
		}
		for _, k := range byEnd[endAt[i]:endAt[i+1]] {
			at := slices.Index(active, k)
			active = slices.Delete(active, at, at+1)
		}
		active = append(active, byStart[startAt[i]:startAt[i+1]]...)
		if i+1 < len(pts) && len(active) > 0 {
			w := halfWidth(p, pts[i+1]) // half widths: a cell may be wider than the largest float64
			m := 0.0
			for _, k := range active {
				c := cells[k]
				m += c.m * (w / halfWidth(c.lo, c.hi))
			}
			if m > 0 {
				pieces = append(pieces, massCell{p, pts[i+1], m})
			}
		}
	}
	return pieces
}

// halfWidth is (hi - lo) / 2, finite for finite ends however far apart (a
// raw target's cells near float64's limits are wider than its largest
// number).
func halfWidth(lo, hi float64) float64 { return hi/2 - lo/2 }

// sortRuns sorts x, which is usually a few sorted runs one after another
// (each component's cells in order): by merging the runs, pairwise, when
// there are at most maxRuns of them, else by slices.Sort. It may return a
// new slice.
func sortRuns(x []float64) []float64 {
	const maxRuns = 64
	bounds := []int{0}
	for i, v := range x {
		if v != v { // NaN: slices.Sort's order
			slices.Sort(x)
			return x
		}
		if i > 0 && v < x[i-1] {
			if len(bounds) == maxRuns {
				slices.Sort(x)
				return x
			}
			bounds = append(bounds, i)
		}
	}
	bounds = append(bounds, len(x))
	buf := make([]float64, len(x))
	for len(bounds) > 2 {
		next := bounds[:1]
		for r := 0; r+1 < len(bounds); r += 2 {
			lo, mid := bounds[r], bounds[r+1]
			hi := mid
			if r+2 < len(bounds) {
				hi = bounds[r+2]
			}
			a, b, k := x[lo:mid], x[mid:hi], lo
			for len(a) > 0 && len(b) > 0 {
				if b[0] < a[0] {
					buf[k], b = b[0], b[1:]
				} else {
					buf[k], a = a[0], a[1:]
				}
				k++
			}
			copy(buf[k+copy(buf[k:], a):], b)
			next = append(next, hi)
		}
		x, buf = buf, x
		bounds = next
	}
	return x
}
