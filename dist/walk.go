package dist

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"decoreg/vocab"
)

// Mean returns E[y]: for a tree tokenization the tree expansion described
// at MeanBound, otherwise the mean of the seeded draws.
func (d *Token) Mean() float64 {
	m, _ := d.MeanBound()
	return m
}

// MeanBound returns the mean and a bound on its error, both in y units.
//
// For a tree tokenization the mean is that of the piecewise-uniform density:
// the sum over cells of P(cell) times the cell's midpoint. The tree is
// expanded level by level: every prefix that meets TokenOptions.MeanTol
// (for a normalized tokenization: probability times the width of its
// interval in t at least MeanTol; for other trees: probability at least
// MeanTol) is fed to the decoder for its children; a prefix that does not
// is not expanded and contributes its mass times the midpoint of its
// interval, and the sum of mass times half-width over those prefixes is
// the bound (the true conditional mean of a prefix lies inside its
// interval). Because neither a prefix's mass nor its width exceeds its
// parent's, the set of prefixes that meet the threshold is closed under
// taking parents, so this level-synchronous, batched expansion expands
// exactly the prefixes that a best-first search stopping at the threshold
// would. Weighing by width spends the decoder steps where the bound is:
// a deep prefix of probability 1e-3 can move the mean by at most 1e-3
// times its tiny width. At most MaxExpand prefixes are fed to the decoder;
// when a level's candidates would exceed what is left of that cap, those
// with the largest criterion are expanded and the rest are treated as
// pruned (their error is in the bound). Special cells have zero mass (see
// the package doc).
//
// For other tokenizations the mean is the mean of TokenOptions.Samples
// seeded draws and the bound is +Inf: an estimate, without a guarantee.
func (d *Token) MeanBound() (mean, bound float64) {
	d.meanOnce.Do(func() {
		if d.tree == nil {
			est := d.estimates()
			s := 0.0
			for _, v := range est {
				s += v
			}
			d.mean, d.meanBound = d.toY(s/float64(len(est))), math.Inf(1)
			return
		}
		m, b := d.treeMean()
		d.mean, d.meanBound = d.toY(m), b*d.aff.Scale
	})
	return d.mean, d.meanBound
}

type meanCand struct {
	parent, tok, order int
	mass, crit         float64 // crit: what MeanTol is compared with
}

func (d *Token) treeMean() (mean, bound float64) {
	var sum, tot, bnd float64
	for _, l := range d.expansion() {
		lo, hi, m := l.lo, l.hi, l.m
		sum += m * mid(lo, hi)
		tot += m
		if l.pruned {
			bnd += m * (0.5*finite(hi) - 0.5*finite(lo))
		}
	}
	if !(tot > 0) { // every leaf's mass underflowed: no information
		lo, hi := d.tree.Interval(nil)
		return mid(lo, hi), 0.5*finite(hi) - 0.5*finite(lo)
	}
	return sum / tot, bnd / tot
}

// expand runs the expansion described at MeanBound and returns the cells
// it ends at, in the order of the tree: a complete sequence's cell
// (pruned false), or the interval of a prefix that was not expanded
// (pruned true), with its probability m > 0.
func (d *Token) expand() []expLeaf {
	r := &jointRow{d: d, expand: true}
	st := d.dec.Start(1)
	defer releaseStepper(st)
	runJoint([]*jointRow{r}, st)
	return r.leaves
}

// Median returns Quantile(0.5) for a tree tokenization; otherwise the
// median of the seeded draws (Harrell-Davis if TokenOptions.HarrellDavis).
func (d *Token) Median() float64 {
	if d.tree == nil && d.opts.HarrellDavis {
		return d.toY(HarrellDavis(d.estimates(), 0.5))
	}
	return d.Quantile(0.5)
}

// Quantile returns the q-quantile, NaN if q is outside [0,1]. For a tree
// tokenization it is exact: a walk down the tree (K decoder steps) that, at
// each level, accumulates the ordered children's probabilities until the
// target mass is crossed, then interpolates linearly inside the final cell;
// Quantile(0) and Quantile(1) are the edges of the support. Otherwise it
// is the linearly interpolated sample quantile of the seeded draws.
func (d *Token) Quantile(q float64) float64 { return d.Quantiles([]float64{q})[0] }

// Quantiles returns Quantile of every q, walking all of them through one
// Stepper (K decoder steps in all).
func (d *Token) Quantiles(qs []float64) []float64 {
	out := make([]float64, len(qs))
	if d.tree == nil {
		est := d.estimates()
		for i, q := range qs {
			out[i] = d.toY(sampleQuantile(est, q))
		}
		return out
	}
	// Levels not cached yet are walked together, each level once.
	r := &jointRow{d: d}
	pos := map[float64]int{} // level -> index in r.qs
	for i, q := range qs {
		if !(q >= 0 && q <= 1) {
			out[i] = math.NaN()
			continue
		}
		if v, ok := d.cachedQuantile(q); ok {
			out[i] = v
		} else if _, ok := pos[q]; !ok {
			pos[q] = len(r.qs)
			r.qs = append(r.qs, q)
		}
	}
	if len(r.qs) == 0 {
		return out
	}
	st := d.dec.Start(1)
	defer releaseStepper(st)
	runJoint([]*jointRow{r}, st)
	d.cacheQuantiles(r.qs, r.out)
	for i, q := range qs {
		if j, ok := pos[q]; ok {
			out[i] = r.out[j]
		}
	}
	return out
}

// finite clamps x to [-MaxFloat64, MaxFloat64]: cells beyond the float64
// range (an Unnormalized tokenization with more exponents than float64
// holds, not restricted by vocab.Bound) count at the largest finite value.
func finite(x float64) float64 { return min(max(x, -math.MaxFloat64), math.MaxFloat64) }

// interp is lo + f*(hi-lo) for f in [0, 1], finite for any edges.
func interp(lo, hi, f float64) float64 {
	lo, hi = finite(lo), finite(hi)
	// Rounding can put lo*(1-f) + hi*f just outside [lo, hi] (by an ulp
	// of 1e100, found by FuzzAcceptedSpecs), which made quantiles
	// decrease; the clamp keeps them in their cell.
	return min(max(lo*(1-f)+hi*f, lo), hi)
}

// mid is the midpoint of [lo, hi], finite for any edges.
func mid(lo, hi float64) float64 { return 0.5*finite(lo) + 0.5*finite(hi) }

// CDF returns P(Y <= y): for a tree tokenization exactly, by a walk down
// to y's cell (K decoder steps) adding the mass of every cell left of it
// and the linearly interpolated part of its own; otherwise the fraction of
// the seeded draws <= y. NaN gives NaN. It is monotone in y up to rounding
// (the mass left of two neighbouring cells is summed along two paths, so
// it may differ in the last bits).
func (d *Token) CDF(y float64) float64 { return d.CDFs([]float64{y})[0] }

// CDFs returns CDF of every y, walking all of them through one Stepper.
func (d *Token) CDFs(ys []float64) []float64 {
	out := make([]float64, len(ys))
	if d.tree == nil {
		est := d.estimates()
		for i, y := range ys {
			if math.IsNaN(y) {
				out[i] = math.NaN()
				continue
			}
			t := d.toT(y)
			out[i] = float64(sort.Search(len(est), func(j int) bool { return est[j] > t })) / float64(len(est))
		}
		return out
	}
	rlo, rhi := d.tree.Interval(nil)
	var ts []float64
	var idx, path []int
	for i, y := range ys {
		t := d.toT(y)
		switch {
		case math.IsNaN(t):
			out[i] = math.NaN()
			continue
		case t <= rlo:
			out[i] = 0
			continue
		case t >= rhi:
			out[i] = 1
			continue
		}
		toks, _, err := d.tok.Encode(t)
		if err != nil || len(toks) != d.k {
			panic(fmt.Sprintf("dist: %s cannot encode %v inside its range [%v, %v]: %v", d.tok.Spec(), t, rlo, rhi, err))
		}
		ts = append(ts, t)
		idx = append(idx, i)
		path = append(path, toks...)
	}
	n := len(ts)
	if n == 0 {
		return out
	}
	k := d.k
	prefix, below, mass := d.walk(n, func(i, lev int, ch []int) int {
		// The child on the path to ts[i]'s cell.
		j := slices.Index(ch, path[i*k+lev])
		if j < 0 {
			panic(fmt.Sprintf("dist: %s encodes %v as %v, not a path of its tree", d.tok.Spec(), ts[i], path[i*k:(i+1)*k]))
		}
		return j
	})
	for i := range n {
		c := d.cell(prefix[i*k : (i+1)*k])
		lo, hi := finite(c.Lo), finite(c.Hi)
		f := 0.0
		if hi > lo {
			f = min(max((ts[i]-lo)/(hi-lo), 0), 1)
		} else if ts[i] >= hi {
			f = 1
		}
		out[idx[i]] = min(below[i]+mass[i]*f, 1)
	}
	return out
}

// walk descends the tree for n queries at once, one decoder step per level
// for all of them: at each level choose(i, lev, ch) picks query i's child
// (an index into ch, the children its prefix allows). It returns the
// chosen paths (n rows of K tokens) with, for each, the mass of the cells
// left of its cell and the cell's own.
func (d *Token) walk(n int, choose func(i, lev int, ch []int) int) (prefix []int, below, mass []float64) {
	k, v := d.k, d.v
	st := d.dec.Start(n)
	defer releaseStepper(st)
	logits := make([]float32, n*v)
	prefix = make([]int, n*k)
	step := make([]int, n)
	below = make([]float64, n)
	mass = make([]float64, n)
	for i := range mass {
		mass[i] = 1
	}
	var ch []int
	probs := make([]float64, v)
	for lev := range k {
		if lev == 0 {
			st.Step(nil, logits)
		} else {
			st.Step(step, logits)
		}
		for i := range n {
			ch = d.next(ch[:0], prefix[i*k:i*k+lev], true)
			pr := softmaxOver(probs, logits[i*v:(i+1)*v], ch, 1)
			j := choose(i, lev, ch)
			for _, p := range pr[:j] {
				below[i] += mass[i] * p
			}
			mass[i] *= pr[j]
			prefix[i*k+lev] = ch[j]
			step[i] = ch[j]
		}
	}
	return prefix, below, mass
}

type beamEnt struct {
	parent, tok int
	logp        float64
}

// Mode returns the centre of the most probable cell found by a beam search
// of width TokenOptions.Beam over log P(prefix): the most probable token
// sequence (exactly so when Beam is at least the number of sequences), not
// the cell of highest density. The two agree where every cell has the same
// width (Normalized, Hamming); for Unnormalized the cells' widths span many
// orders of magnitude, and the tiny zero cell (or the cells next to it)
// would have the highest density under almost any model. A Repeat
// tokenization's most probable sequence is decoded by majority vote. It
// costs K decoder steps. Special cells are never the mode; a cell beyond the
// float64 range counts at ±MaxFloat64.
func (d *Token) Mode() float64 {
	d.modeMu.Lock()
	defer d.modeMu.Unlock()
	if !d.modeDone {
		d.mode, d.modeDone = d.beamMode(), true
	}
	return d.mode
}

func (d *Token) beamMode() float64 {
	r := &jointRow{d: d, mode: true, beam: []beamEnt{{0, 0, 0}}}
	st := d.dec.Start(1)
	defer releaseStepper(st)
	runJoint([]*jointRow{r}, st)
	return r.modeVal
}

// sortBeam sorts beam candidates by log-probability, largest first, ties
// in their order.
func sortBeam(cands []beamEnt) {
	slices.SortStableFunc(cands, func(a, b beamEnt) int {
		switch {
		case a.logp > b.logp:
			return -1
		case a.logp < b.logp:
			return 1
		}
		return 0
	})
}

// estimates returns the sorted head-unit draws behind the summaries of a
// non-tree tokenization: Samples cells drawn from the head with special
// tokens masked, each with a point uniform inside it.
func (d *Token) estimates() []float64 {
	d.estOnce.Do(func() {
		n := d.opts.Samples
		r := rand.New(rand.NewPCG(d.opts.Seed, 0x9e3779b97f4a7c15))
		seqs := make([]int, n*d.k)
		d.sampleSeqs(seqs, n, SampleOptions{}, r, true)
		est := make([]float64, 0, n)
		for i := range n {
			cell := d.cell(seqs[i*d.k : (i+1)*d.k])
			if cell.Kind != vocab.Finite {
				continue
			}
			est = append(est, interp(cell.Lo, cell.Hi, r.Float64()))
		}
		slices.Sort(est)
		d.est = est
	})
	return d.est
}

// sampleQuantile is the linearly interpolated quantile of sorted x (type 7
// of Hyndman and Fan): x[h] interpolated at h = (n-1)q. NaN for q outside
// [0,1] or empty x.
func sampleQuantile(x []float64, q float64) float64 {
	if !(q >= 0 && q <= 1) || len(x) == 0 {
		return math.NaN()
	}
	h := float64(len(x)-1) * q
	i := int(h)
	if i >= len(x)-1 {
		return x[len(x)-1]
	}
	return x[i] + (h-float64(i))*(x[i+1]-x[i])
}

// cell decodes a complete sequence that the constraints allowed; an error
// is a broken tokenization and panics.
func (d *Token) cell(seq []int) vocab.Cell {
	c, err := d.tok.Decode(seq)
	if err != nil {
		panic(fmt.Sprintf("dist: %s rejects an allowed sequence %v: %v", d.tok.Spec(), seq, err))
	}
	return c
}
