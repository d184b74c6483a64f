package dist

import (
	"math"
	"slices"
	"sync"

	"decoreg/vocab"
)

// JointDecoder is a Decoder that can decode the sequences of several
// inputs in one Stepper, so that many rows' small decoder steps become one
// larger step each. decoreg's model decoders are JointDecoders.
type JointDecoder interface {
	Decoder
	// StartJoint returns a Stepper over len(decs) empty sequences,
	// sequence i decoding for decs[i]'s input, or nil when decs cannot
	// share a Stepper (decoders of different models). Every sequence's
	// logits must equal, bit for bit, what a Stepper of its own Decoder
	// gives for the same tokens: the answers of Prepare then do not
	// depend on which rows were prepared together.
	StartJoint(decs []Decoder) Stepper
	// JointKey is equal (==) for decoders that can share a Stepper: a
	// comparable value such as the model's pointer.
	JointKey() any
}

// PrepareRequest asks Prepare for one distribution's summaries: its mean
// (Mean), its quantiles at Levels (levels outside [0, 1] are ignored) and
// its mode (Mode).
type PrepareRequest struct {
	Dist   Distribution // the distribution; only tree Tokens, also inside Mixtures and Recalibrated ones, are prepared
	Mean   bool         // prepare the mean's tree expansion
	Levels []float64    // the quantile levels to prepare, up to what the cache keeps
	Mode   bool         // prepare the mode's beam search
}

// Prepare computes and caches what reqs ask of every tree Token among
// them (and of the tree Tokens inside Mixtures and Recalibrated
// distributions, at the levels those ask of them): the mean's tree
// expansion (see MeanBound), quantiles and the mode's beam search, so
// that Mean, MeanBound, Quantile and Quantiles at those levels (Median at
// 0.5) and Mode then cost nothing. The answers are the same, bit for bit,
// as those the methods compute on their own; what Prepare saves is
// decoder work:
//
//   - the quantile walks and the beam ride along the mean's expansion: a
//     prefix that the expansion feeds to the decoder anyway costs nothing
//     more, and all of them share one Stepper;
//   - rows whose Decoders are JointDecoders of one model share one
//     Stepper, so that each level of the trees is one decoder step for
//     all of them (a step costs a few microseconds beyond its sequences).
//
// Other distributions, and summaries already cached, are left alone.
// Prepare runs on the calling goroutine (each Token's TokenOptions.Threads
// goroutines per step) and is safe to call concurrently with the
// distributions' own methods.
func Prepare(reqs []PrepareRequest) {
	var rows []*jointRow
	var add func(d Distribution, q PrepareRequest)
	add = func(d Distribution, q PrepareRequest) {
		switch d := d.(type) {
		case *Token:
			if d.tree == nil {
				return
			}
			r := &jointRow{d: d, expand: q.Mean && !d.hasLeaves(), mode: q.Mode && !d.hasMode()}
			// Only as many levels as the cache keeps: the rest would be
			// walked again when asked for.
			room := d.quantileRoom()
			seen := make(map[float64]bool, len(q.Levels))
			for _, l := range q.Levels {
				if len(r.qs) >= room {
					break
				}
				if !(l >= 0 && l <= 1) || seen[l] {
					continue
				}
				seen[l] = true
				if _, ok := d.cachedQuantile(l); !ok {
					r.qs = append(r.qs, l)
				}
			}
			if r.expand || len(r.qs) > 0 || r.mode {
				rows = append(rows, r)
			}
		case *Mixture:
			// Its quantiles are found on the components' cells: their
			// expansions are wanted too. Components of one tree need
			// their own quantiles only at 0 and 1 (sharedQuantiles).
			c := q
			c.Mean = q.Mean || len(q.Levels) > 0
			if len(d.comps) > 1 && d.sharedTree() != nil {
				c.Levels = slices.DeleteFunc(slices.Clone(q.Levels), func(l float64) bool { return l != 0 && l != 1 })
			}
			for _, comp := range d.comps {
				add(comp, c)
			}
		case *Recalibrated:
			// What its summaries ask of the base: quantiles at R^-1 of
			// the levels, and at R's knots for the mean and the mode.
			b := PrepareRequest{Mean: q.Mean, Mode: q.Mode}
			for _, l := range q.Levels {
				if l >= 0 && l <= 1 {
					b.Levels = append(b.Levels, d.rc.Inverse(l))
				}
			}
			if q.Mean || q.Mode {
				b.Levels = append(b.Levels, d.rc.interior()...)
			}
			add(d.base, b)
		}
	}
	for _, q := range reqs {
		add(q.Dist, q)
	}
	// Rows that can share a Stepper: the same tokenization and a joint
	// decoder that accepts the others' (StartJoint checks the model).
	type groupKey struct {
		key  any
		spec string
	}
	var order []groupKey
	groups := map[groupKey][]*jointRow{}
	for _, r := range rows {
		jd, ok := r.d.dec.(JointDecoder)
		if !ok {
			runAlone(r)
			continue
		}
		gk := groupKey{jd.JointKey(), r.d.tok.Spec()}
		if _, seen := groups[gk]; !seen {
			order = append(order, gk)
		}
		groups[gk] = append(groups[gk], r)
	}
	for _, gk := range order {
		group := groups[gk]
		if len(group) == 1 {
			runAlone(group[0])
			continue
		}
		decs := make([]Decoder, len(group))
		for i, r := range group {
			decs[i] = r.d.dec
		}
		st := group[0].d.dec.(JointDecoder).StartJoint(decs)
		if st == nil {
			for _, r := range group {
				runAlone(r)
			}
			continue
		}
		func() {
			defer releaseStepper(st)
			runJoint(group, st)
		}()
		for _, r := range group {
			r.store()
		}
	}
}

// runAlone runs r's part of a joint pass through a Stepper of its own.
func runAlone(r *jointRow) {
	st := r.d.dec.Start(1)
	defer releaseStepper(st)
	runJoint([]*jointRow{r}, st)
	r.store()
}

// jointRow is one Token's part of a joint pass: its mean's expansion
// (when expand) and its quantile walks.
type jointRow struct {
	d      *Token
	expand bool
	qs     []float64 // quantile levels to walk

	// The expansion: the frontier (global sequence indices and masses),
	// the leaves so far and what is left of MaxExpand.
	front  []int
	mass   []float64
	leaves []expLeaf
	budget int
	cands  []meanCand

	// The walks: each level's target as a fraction of the current
	// prefix's mass, the query's global sequence, the answers.
	frac []float64
	qseq []int
	out  []float64

	// The mode's beam search (when mode): the beam's entries (parent:
	// their global sequence), the candidates and the answer.
	mode    bool
	beam    []beamEnt
	bc      []beamEnt
	modeVal float64
}

// store caches the row's results in its Token.
func (r *jointRow) store() {
	d := r.d
	if r.expand {
		d.setLeaves(r.leaves)
	}
	if len(r.qs) > 0 {
		d.cacheQuantiles(r.qs, r.out)
	}
	if r.mode {
		d.setMode(r.modeVal)
	}
}

// runJoint runs the level-synchronous pass of rows through st, a Stepper
// over len(rows) empty sequences (sequence i of rows[i]'s input): each
// level is one Step over every row's expansion frontier, walk prefixes and
// beam. A row's expansion is Token.expand's, visit for visit; its walks
// are Quantiles' (quantileChild) and its beam Token.beamMode's, on the
// same logits.
func runJoint(rows []*jointRow, st Stepper) {
	d0 := rows[0].d
	k, v := d0.k, d0.v
	n := len(rows)
	sc := scratchPool.Get().(*jointScratch)
	for len(sc.leaves) < n {
		sc.leaves = append(sc.leaves, nil)
		sc.front = append(sc.front, nil)
		sc.mass = append(sc.mass, nil)
		sc.cands = append(sc.cands, nil)
	}
	for i, r := range rows {
		if r.expand {
			r.front = append(sc.front[i][:0], i)
			r.mass = append(sc.mass[i][:0], 1)
			r.cands = sc.cands[i][:0]
			r.budget = r.d.opts.MaxExpand - 1 // the root is always expanded
			r.leaves = sc.leaves[i][:0]
		}
		if r.mode {
			r.beam = []beamEnt{{i, 0, 0}}
		}
		if len(r.qs) > 0 {
			r.frac = slices.Clone(r.qs)
			r.qseq = make([]int, len(r.qs))
			for j := range r.qseq {
				r.qseq[j] = i
			}
			r.out = make([]float64, len(r.qs))
		}
	}
	l := &level{jointScratch: *sc, k: k, v: v}
	l.pre, l.spare, l.step, l.idx, l.buf = sc.pre[:0], sc.spare[:0], sc.step[:0], sc.idx[:0], sc.buf[:0]
	l.chOff, l.chAll, l.prAll, l.made, l.candLo = sc.chOff[:0], sc.chAll[:0], sc.prAll[:0], sc.made[:0], sc.candLo[:0]
	l.logits = slices.Grow(sc.logits[:0], n*v)[:n*v]
	defer func() {
		// The rows keep exact copies of their leaves; the buffers go back
		// to the pool.
		for i, r := range rows {
			if r.expand {
				sc.leaves[i] = r.leaves[:0]
				r.leaves = slices.Clone(r.leaves)
				sc.front[i], sc.mass[i], sc.cands[i] = r.front[:0], r.mass[:0], r.cands[:0]
				r.front, r.mass, r.cands = nil, nil, nil
			}
		}
		*sc = l.jointScratch
		scratchPool.Put(sc)
	}()
	for l.lev = 0; l.lev < k; l.lev++ {
		if l.lev == 0 {
			st.Step(nil, l.logits[:n*v])
		} else {
			st.Step(l.step, l.logits[:n*v])
		}
		l.children(d0, n)
		l.idx, l.step = l.idx[:0], l.step[:0]
		l.candLo = slices.Grow(l.candLo[:0], n)[:n]
		for g := range l.candLo {
			l.candLo[g] = -1
		}
		for _, r := range rows {
			if r.expand && len(r.front) > 0 {
				r.expandLevel(l)
			}
			l.made, l.madeIdx = l.made[:0], nil // walk sequences are found per row
			r.walkLevel(l)
			if len(r.beam) > 0 {
				r.beamLevel(l)
			}
		}
		if len(l.idx) == 0 {
			break
		}
		next := slices.Grow(l.spare[:0], len(l.idx)*(l.lev+1))
		for s, g := range l.idx {
			next = append(append(next, l.prefix(g)...), l.step[s])
		}
		st.Keep(l.idx)
		l.pre, l.spare, n = next, l.pre, len(l.idx)
		if cap(l.logits) < n*v {
			l.logits = make([]float32, n*v)
		}
		l.logits = l.logits[:n*v]
	}
}

// level is runJoint's state at one level of the trees: the sequences
// stepped (global indices g, their prefixes, children and probabilities)
// and the next level's sequences as they are made (idx: parent, step:
// token). Its buffers are the pooled scratch's.
type level struct {
	jointScratch
	lev, k, v int
	madeIdx   map[int]int // made as a map, once a row's walks are many
}

// prefix returns sequence g's tokens.
func (l *level) prefix(g int) []int { return l.pre[g*l.lev : (g+1)*l.lev] }

// kids returns sequence g's children and their probabilities.
func (l *level) kids(g int) ([]int, []float64) {
	return l.chAll[l.chOff[g]:l.chOff[g+1]], l.prAll[l.chOff[g]:l.chOff[g+1]]
}

// children computes every sequence's children (d's Children, finite) and
// their probabilities from the level's logits, once per sequence.
func (l *level) children(d *Token, n int) {
	v := l.v
	l.chOff, l.chAll = l.chOff[:0], slices.Grow(l.chAll[:0], n*v)
	for g := range n {
		l.chOff = append(l.chOff, len(l.chAll))
		l.chAll = d.next(l.chAll, l.prefix(g), true)
	}
	l.chOff = append(l.chOff, len(l.chAll))
	l.prAll = slices.Grow(l.prAll[:0], len(l.chAll))[:len(l.chAll)]
	softmaxRows(l.prAll, l.logits, v, l.chAll, l.chOff, 1)
}

// add makes a next-level sequence: g's prefix and tok.
func (l *level) add(g, tok int) int {
	l.idx = append(l.idx, g)
	l.step = append(l.step, tok)
	return len(l.idx) - 1
}

// seqFor returns the next level's sequence for prefix g's child tok: the
// expansion's, if it made one, or one an earlier walk or beam entry of
// this row made, or a new one.
func (l *level) seqFor(g, tok int) int {
	if l.candLo[g] >= 0 {
		for s := l.candLo[g]; s < len(l.idx) && l.idx[s] == g; s++ {
			if l.step[s] == tok {
				return s
			}
		}
	}
	if l.madeIdx != nil {
		if s, ok := l.madeIdx[g*l.v+tok]; ok {
			return s
		}
	} else {
		for t := 0; t < len(l.made); t += 3 {
			if l.made[t] == g && l.made[t+1] == tok {
				return l.made[t+2]
			}
		}
	}
	s := l.add(g, tok)
	l.made = append(l.made, g, tok, s)
	switch {
	case l.madeIdx != nil:
		l.madeIdx[g*l.v+tok] = s
	case len(l.made) >= 3*madeScan:
		// Many walks (hundreds of levels): a map instead of the scan.
		l.madeIdx = make(map[int]int, 2*len(l.made)/3)
		for t := 0; t < len(l.made); t += 3 {
			l.madeIdx[l.made[t]*l.v+l.made[t+1]] = l.made[t+2]
		}
	}
	return s
}

// expandLevel is Token.expand's step at level l for r's frontier: the
// children of each frontier prefix become leaves (a complete sequence's
// cell, or a prefix below MeanTol) or candidates, at most the budget of
// them, which become the next frontier.
func (r *jointRow) expandLevel(l *level) {
	d, lev, k := r.d, l.lev, l.k
	tol := d.opts.MeanTol
	r.cands = r.cands[:0]
	r.leaves = slices.Grow(r.leaves, len(r.front)*l.v) // at most every child a leaf
	for fi, g := range r.front {
		p := l.prefix(g)
		ch, pr := l.kids(g)
		ivs := false // ivLo, ivHi hold the children's intervals
		intervals := func() {
			if !ivs {
				l.ivLo, l.ivHi = slices.Grow(l.ivLo[:0], len(ch))[:len(ch)], slices.Grow(l.ivHi[:0], len(ch))[:len(ch)]
				vocab.ChildIntervals(d.tree, p, ch, l.ivLo, l.ivHi)
				ivs = true
			}
		}
		for j, c := range ch {
			m := r.mass[fi] * pr[j]
			crit := m
			if d.byWidth && m != 0 && lev < k-1 {
				intervals()
				crit = m * (l.ivHi[j] - l.ivLo[j])
			}
			switch {
			case m == 0:
			case lev == k-1 || crit < tol:
				// A complete sequence's cell, or a pruned prefix.
				intervals()
				r.leaves = append(r.leaves, expLeaf{l.ivLo[j], l.ivHi[j], m, lev != k-1})
			default:
				r.cands = append(r.cands, meanCand{g, c, 0, m, crit})
			}
		}
	}
	if len(r.cands) > r.budget {
		keep := r.cands[:r.budget]
		for _, c := range pruneCands(r.cands, r.budget) {
			l.buf = append(append(l.buf[:0], l.prefix(c.parent)...), c.tok)
			lo, hi := d.tree.Interval(l.buf)
			r.leaves = append(r.leaves, expLeaf{lo, hi, c.mass, true})
		}
		r.cands = keep
	}
	r.budget -= len(r.cands)
	r.front, r.mass = r.front[:0], r.mass[:0]
	for _, c := range r.cands {
		if len(r.front) == 0 || l.idx[len(l.idx)-1] != c.parent {
			l.candLo[c.parent] = len(l.idx)
		}
		r.front = append(r.front, l.add(c.parent, c.tok))
		r.mass = append(r.mass, c.mass)
	}
}

// walkLevel takes r's quantile walks one level down (Quantiles'
// quantileChild); at the last level it writes their answers.
func (r *jointRow) walkLevel(l *level) {
	d := r.d
	for qi, g := range r.qseq {
		if g < 0 {
			continue
		}
		ch, pr := l.kids(g)
		j := quantileChild(&r.frac[qi], pr)
		if l.lev < l.k-1 {
			r.qseq[qi] = l.seqFor(g, ch[j])
			continue
		}
		l.buf = append(append(l.buf[:0], l.prefix(g)...), ch[j])
		c := d.cell(l.buf)
		r.out[qi] = d.toY(interp(c.Lo, c.Hi, r.frac[qi]))
		r.qseq[qi] = -1
	}
}

// beamLevel is Token.beamMode's step at level l for r's beam; at the last
// level it writes the mode.
func (r *jointRow) beamLevel(l *level) {
	d := r.d
	r.bc = r.bc[:0]
	for bi, e := range r.beam {
		ch, pr := l.kids(e.parent)
		for j, c := range ch {
			if !(pr[j] > 0) {
				continue
			}
			r.bc = append(r.bc, beamEnt{bi, c, e.logp + math.Log(pr[j])})
		}
	}
	sortBeam(r.bc)
	if len(r.bc) > d.opts.Beam {
		r.bc = r.bc[:d.opts.Beam]
	}
	if l.lev == l.k-1 {
		b := r.bc[0]
		l.buf = append(append(l.buf[:0], l.prefix(r.beam[b.parent].parent)...), b.tok)
		r.modeVal = d.toY(finite(d.cell(l.buf).Center))
		r.beam = r.beam[:0]
		return
	}
	nb := make([]beamEnt, len(r.bc))
	for i, c := range r.bc {
		// parent: the sequence of the entry's prefix.
		nb[i] = beamEnt{l.seqFor(r.beam[c.parent].parent, c.tok), 0, c.logp}
	}
	r.beam = nb
}

// jointScratch is runJoint's working memory, pooled (as gemm's packing
// buffers are): a pass allocates little beyond what it returns, the rows'
// leaves and answers, which keeps a server's garbage collector quiet.
type jointScratch struct {
	logits                                                 []float32
	pre, spare, step, idx, buf, chOff, chAll, made, candLo []int
	prAll, ivLo, ivHi                                      []float64
	leaves                                                 [][]expLeaf // per row
	front                                                  [][]int     // per row
	mass                                                   [][]float64 // per row
	cands                                                  [][]meanCand
}

var scratchPool = sync.Pool{New: func() any { return new(jointScratch) }}

// pruneCands sorts cands so that the budget candidates with the largest
// criterion come first, in their original (parent, Children) order, and
// returns the rest, in criterion order, which the expansion treats as
// pruned.
func pruneCands(cands []meanCand, budget int) []meanCand {
	// Largest criterion first; ties in the original order, which the sort
	// restores for the survivors.
	for j := range cands {
		cands[j].order = j
	}
	slices.SortFunc(cands, func(a, b meanCand) int {
		switch {
		case a.crit > b.crit:
			return -1
		case a.crit < b.crit:
			return 1
		}
		return a.order - b.order
	})
	rest := slices.Clone(cands[budget:])
	slices.SortFunc(cands[:budget], func(a, b meanCand) int { return a.order - b.order })
	return rest
}

// quantileChild picks the child of a quantile's walk: the one where the
// children's cumulative probability pr crosses *frac (the target as a
// fraction of the prefix's mass), and rescales *frac to a fraction of that
// child's mass. Every level offers a child of positive probability
// (softmaxOver's largest entry), so the walk never meets a prefix whose
// mass underflowed.
func quantileChild(frac *float64, pr []float64) int {
	cum, last := 0.0, 0
	if *frac >= 1 {
		// The top of the support: the last child with mass, at its top
		// (summing the children's masses would round below 1 and might
		// stop in an earlier child).
		for j, p := range pr {
			if p > 0 {
				last = j
			}
		}
		return last
	}
	for j, p := range pr {
		if !(p > 0) {
			continue
		}
		last = j
		if cum+p >= *frac {
			*frac = min(max((*frac-cum)/p, 0), 1)
			return j
		}
		cum += p
	}
	*frac = 1 // rounding: the target lies past the last mass
	return last
}

// quantCache holds a Token's quantiles computed so far.
type quantCache struct {
	mu     sync.Mutex
	levels []float64
	vals   []float64
}

// cachedQuantile returns the cached quantile at level q.
func (d *Token) cachedQuantile(q float64) (float64, bool) {
	d.qc.mu.Lock()
	defer d.qc.mu.Unlock()
	if i := slices.Index(d.qc.levels, q); i >= 0 {
		return d.qc.vals[i], true
	}
	return 0, false
}

// cacheQuantiles adds quantiles to the cache (at most maxCachedQuantiles
// levels are kept: a caller asking for ever new levels does not grow it).
func (d *Token) cacheQuantiles(levels, vals []float64) {
	d.qc.mu.Lock()
	defer d.qc.mu.Unlock()
	for i, q := range levels {
		if len(d.qc.levels) >= maxCachedQuantiles {
			return
		}
		if !slices.Contains(d.qc.levels, q) {
			d.qc.levels = append(d.qc.levels, q)
			d.qc.vals = append(d.qc.vals, vals[i])
		}
	}
}

const maxCachedQuantiles = 64

// madeScan is the number of walk sequences of a row and level up to which
// runJoint looks them up by a scan rather than a map.
const madeScan = 32

// quantileRoom is how many more levels the quantile cache keeps.
func (d *Token) quantileRoom() int {
	d.qc.mu.Lock()
	defer d.qc.mu.Unlock()
	return maxCachedQuantiles - len(d.qc.levels)
}
