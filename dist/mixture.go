package dist

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// Mixture is the equal-weight mixture of its components, (1/N) sum_k p_k:
// an ensemble's predictive distribution.
//
//   - Mean is the average of the components' means, CDF the average of their
//     CDFs and LogPDF the log of the average of their densities (computed
//     as a log-sum-exp): exact wherever the components' are.
//   - Quantile is found by bisection on the mixture's CDF between the
//     smallest and the largest component quantile at the same level (the
//     mixture's lies between them), to the last representable bits or 200
//     halvings: the least y with CDF(y) >= q, as the components define it.
//   - Mode is the component mode at which the mixture's density is highest
//     (the median for components without a density): the mixture's mode
//     when the components overlap little or agree, an approximation
//     otherwise.
//   - Sample draws each value from a uniformly chosen component.
//   - CRPS (see CRPS): exact from the components' cells or Gaussians.
//
// A Mixture is safe for concurrent use when its components are.
type Mixture struct {
	comps []Distribution

	modeOnce sync.Once
	mode     float64
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
		s += c.Mean()
	}
	return s / d.n()
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
	for i := range out {
		out[i] = min(out[i]/d.n(), 1)
	}
	return out
}

func cdfs(c Distribution, ys []float64) []float64 {
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
		out[i] = logMeanExp(lp)
	}
	return out
}

// logMeanExp returns log((1/n) sum exp(v)): NaN if any v is NaN, -Inf if
// all are -Inf.
func logMeanExp(v []float64) float64 {
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

// Quantile returns the q-quantile (NaN for q outside [0, 1]).
func (d *Mixture) Quantile(q float64) float64 { return d.Quantiles([]float64{q})[0] }

// Quantiles returns the quantiles at levels qs, bisecting all of them
// together so that each step asks every component for its CDF once.
func (d *Mixture) Quantiles(qs []float64) []float64 {
	out := make([]float64, len(qs))
	per := make([][]float64, len(d.comps))
	for k, c := range d.comps {
		per[k] = Quantiles(c, qs)
	}
	lo := make([]float64, len(qs))
	hi := make([]float64, len(qs))
	var open []int // levels still being bisected
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
	mids := make([]float64, 0, len(open))
	for step := 0; step < 200 && len(open) > 0; step++ {
		mids = mids[:0]
		for _, i := range open {
			mids = append(mids, 0.5*lo[i]+0.5*hi[i])
		}
		fs := d.CDFs(mids)
		next := open[:0]
		for j, i := range open {
			m := mids[j]
			if m <= lo[i] || m >= hi[i] { // no representable point between
				continue
			}
			if fs[j] >= qs[i] {
				hi[i] = m
			} else {
				lo[i] = m
			}
			next = append(next, i)
		}
		open = next
	}
	for i, q := range qs {
		if q > 0 && q < 1 && !math.IsNaN(lo[i]) && lo[i] != hi[i] {
			out[i] = hi[i]
		}
	}
	return out
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
// with r; opts go to the components.
func (d *Mixture) Sample(n int, opts SampleOptions, r *rand.Rand) []float64 {
	if n <= 0 {
		return nil
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
	var cells []massCell
	allCells, allMDN := true, true
	var bnd float64
	var w, mu, sd []float64
	var aff Affine
	for k, c := range d.comps {
		switch c := c.(type) {
		case *Point:
			return math.NaN(), math.NaN()
		case *MDN:
			allCells = false
			if k == 0 {
				aff = c.aff
			}
			// Put every component in the first one's head units.
			for i := range c.w {
				w = append(w, c.w[i]/d.n())
				mu = append(mu, (c.toY(c.mu[i])-aff.Offset)/aff.Scale)
				sd = append(sd, c.sd[i]*c.aff.Scale/aff.Scale)
			}
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
		m := &MDN{w: w, mu: mu, sd: sd, aff: aff}
		return aff.Scale * m.crpsT((y-aff.Offset)/aff.Scale), 0
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

// yCells returns the token distribution's cells of the mean's expansion
// in y units with their probability (summing to 1), and the CRPS bound of
// the unexpanded prefixes (see Token.crps); ok is false when there is no
// mass.
func (d *Token) yCells() (cells []massCell, bound float64, ok bool) {
	var tot, bnd float64
	d.expand(func(lo, hi, m float64, pruned bool) {
		lo, hi = finite(lo), finite(hi)
		cells = append(cells, massCell{d.toY(lo), d.toY(hi), m})
		tot += m
		if pruned {
			bnd += 2 * m * (hi - lo)
		}
	})
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
	pts := make([]float64, 0, 2*len(cells))
	for _, c := range cells {
		pts = append(pts, c.lo, c.hi)
	}
	slices.Sort(pts)
	pts = slices.Compact(pts)
	// Density changes at the endpoints: +m/w at lo, -m/w at hi.
	slope := make([]float64, len(pts))
	point := make([]float64, len(pts))
	for _, c := range cells {
		i, _ := slices.BinarySearch(pts, c.lo)
		if !(c.hi > c.lo) {
			point[i] += c.m
			continue
		}
		j, _ := slices.BinarySearch(pts, c.hi)
		s := c.m / (c.hi - c.lo)
		slope[i] += s
		slope[j] -= s
	}
	var pieces []massCell
	dens := 0.0
	for i, p := range pts {
		if point[i] > 0 {
			pieces = append(pieces, massCell{p, p, point[i]})
		}
		dens += slope[i]
		if i+1 < len(pts) {
			if m := max(dens, 0) * (pts[i+1] - p); m > 0 {
				pieces = append(pieces, massCell{p, pts[i+1], m})
			}
		}
	}
	slices.SortStableFunc(pieces, func(a, b massCell) int { return cmp.Compare(a.lo, b.lo) })
	return cellsCRPS(pieces, y)
}
