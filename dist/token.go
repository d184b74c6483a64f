package dist

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"decoreg/internal/vec"
	"decoreg/vocab"
)

// Defaults of the TokenOptions fields left at zero. DefaultMeanTol and
// DefaultMeanTolNormalized are the defaults of the mean's tree expansion
// (decoreg's Predict and Evaluate use them too): prefixes below the
// threshold are not expanded and contribute their interval's midpoint; the
// error bound this leaves is what MeanBound reports (about 3e-4 of the
// target range for a normalized decoder on decoreg's test problems).
const (
	DefaultMeanTol           = 1e-3 // probability threshold: trees other than Normalized
	DefaultMeanTolNormalized = 5e-6 // probability x share of the range: Normalized
	DefaultMaxExpand         = 4096
	DefaultBeam              = 8
	DefaultSamples           = 1000
)

// TokenOptions tune the summaries of a Token. The zero value uses the
// defaults above.
type TokenOptions struct {
	// MeanTol is the threshold of Mean's tree expansion. For a
	// vocab.Normalized tokenization, whose tree spans the target's range
	// (t in [0, 1]), a prefix is expanded when its probability times its
	// interval's width in t is at least MeanTol (0 means
	// DefaultMeanTolNormalized): twice the most that leaving it
	// unexpanded can add to the error bound, as a share of the range. For
	// other trees (the unnormalized tokenization spans +-B^(B^E), so widths
	// say nothing about y's scale) a prefix is expanded when its
	// probability is at least MeanTol (0 means DefaultMeanTol). A negative
	// value expands every prefix (up to MaxExpand).
	MeanTol float64
	// MaxExpand caps the number of prefixes Mean's expansion feeds to the
	// decoder (each costs one incremental decoder step). 0 means
	// DefaultMaxExpand.
	MaxExpand int
	// Beam is the beam width of Mode. 0 means DefaultBeam.
	Beam int
	// Samples is the number of draws behind the estimates of a non-tree
	// tokenization. 0 means DefaultSamples.
	Samples int
	// Seed seeds those draws, so that the estimates are deterministic.
	Seed uint64
	// HarrellDavis makes the Median of a non-tree tokenization the
	// Harrell-Davis estimate from the draws instead of the sample median.
	HarrellDavis bool
	// Threads is the number of goroutines one decoder step may use, for
	// the decoders that decoreg's heads build (0: the model's Threads).
	// NewToken does not read it. Code that computes many rows'
	// summaries in parallel passes 1: the steps of one row are too
	// small to share among cores.
	Threads int
}

// Token is the predictive distribution of a decoder head for one input x:
// a distribution over the token sequences of a tokenization, read through
// a Decoder, with values mapped to y units by an Affine.
//
// For a vocab.Tree tokenization CDF, Quantile and Median are exact (a tree
// walk of K decoder steps per batch of queries) and Mean is exact up to the
// bound MeanBound reports. For other tokenizations (Hamming, Repeat) Mean,
// Median, Quantile and CDF are estimates from TokenOptions.Samples draws of
// the piecewise-uniform density: each draw is a cell sampled from the head
// (Repeat: the majority-voted cell) and a point uniform within it.
//
// Summaries (Mean, Mode, quantiles up to 64 levels, and the draws behind
// a non-tree tokenization's estimates) are computed once, on first use
// (or by Prepare, for many rows at once), and cached under locks; every
// other call starts its own Stepper. So the methods are safe for
// concurrent use when the Decoder's Start is (decoreg's decoders' are), with
// one *rand.Rand per goroutine for Sample.
// The zero value is not usable: build one with NewToken (a zero value's
// methods panic or answer nonsense).
type Token struct {
	dec     Decoder
	tok     vocab.Tokenizer
	tree    vocab.Tree // nil when tok is not a tree
	aff     Affine
	opts    TokenOptions
	v, k    int
	special []bool // special[t]: t is a NaN/Inf token
	anySpec bool
	byWidth bool // MeanTol weighs a prefix's probability by its width (Normalized)

	meanOnce        sync.Once
	mean, meanBound float64 // y units

	modeMu   sync.Mutex
	modeDone bool
	mode     float64 // y units

	estOnce sync.Once
	est     []float64 // sorted draws in head units (non-tree only)

	leavesMu   sync.Mutex
	leavesDone bool
	leaves     []expLeaf // the mean's expansion (tree only), head units

	qc quantCache // quantiles computed so far (tree only)

	sortedOnce sync.Once
	sorted     []expLeaf // the leaves sorted by lo, masses normalised
	below      []float64 // below[j]: the mass of sorted[:j]
}

// leafCDF returns the CDF at head-unit t from the mean's expansion: exact
// (to rounding) unless t lies inside a prefix that was not expanded, where
// ok is false. Tree tokenizations only.
func (d *Token) leafCDF(t float64) (f float64, ok bool) {
	d.sortedOnce.Do(func() {
		ls := slices.Clone(d.expansion())
		slices.SortStableFunc(ls, func(a, b expLeaf) int { return cmp.Compare(a.lo, b.lo) })
		tot := 0.0
		for _, l := range ls {
			tot += l.m
		}
		d.below = make([]float64, len(ls)+1)
		for j := range ls {
			if tot > 0 {
				ls[j].m /= tot
			}
			d.below[j+1] = d.below[j] + ls[j].m
		}
		d.sorted = ls
	})
	ls := d.sorted
	if len(ls) == 0 || math.IsNaN(t) {
		return 0, false
	}
	// The last leaf starting at or before t.
	j := sort.Search(len(ls), func(j int) bool { return ls[j].lo > t }) - 1
	if j < 0 {
		return 0, t < ls[0].lo
	}
	l := ls[j]
	switch {
	case t >= l.hi && j == len(ls)-1:
		return 1, true // past the last: not the leaves' rounded sum (an ensemble's CDF above its support was 0.9999999999999999)
	case t >= l.hi:
		return min(d.below[j+1], 1), true // between leaves
	case l.pruned:
		return 0, false
	case l.hi > l.lo:
		return min(d.below[j]+l.m*(t-l.lo)/(l.hi-l.lo), 1), true
	}
	return min(d.below[j+1], 1), true
}

// expLeaf is a leaf of the mean's expansion: a cell, or the interval of a
// prefix that was not expanded (pruned), with its probability.
type expLeaf struct {
	lo, hi, m float64
	pruned    bool
}

// expansion returns the leaves of the expansion MeanBound describes, in
// the order expand visits them, computed once: the mean, the CRPS and a
// mixture's quantiles share them.
func (d *Token) expansion() []expLeaf {
	d.leavesMu.Lock()
	defer d.leavesMu.Unlock()
	if !d.leavesDone {
		d.leaves, d.leavesDone = d.expand(), true
	}
	return d.leaves
}

// hasMode reports whether the mode is cached.
func (d *Token) hasMode() bool {
	d.modeMu.Lock()
	defer d.modeMu.Unlock()
	return d.modeDone
}

// setMode caches the mode unless it is cached already.
func (d *Token) setMode(m float64) {
	d.modeMu.Lock()
	defer d.modeMu.Unlock()
	if !d.modeDone {
		d.mode, d.modeDone = m, true
	}
}

// hasLeaves reports whether the expansion is cached.
func (d *Token) hasLeaves() bool {
	d.leavesMu.Lock()
	defer d.leavesMu.Unlock()
	return d.leavesDone
}

// setLeaves caches ls as the expansion unless one is cached already (the
// same, computed concurrently).
func (d *Token) setLeaves(ls []expLeaf) {
	d.leavesMu.Lock()
	defer d.leavesMu.Unlock()
	if !d.leavesDone {
		d.leaves, d.leavesDone = ls, true
	}
}

var _ Distribution = (*Token)(nil)

// NewToken returns the distribution that dec's Steppers define over the
// sequences of tok, in the units given by aff. It panics if dec or tok is
// nil, if aff.Scale is not positive and finite, or if an option is
// negative where that makes no sense.
func NewToken(dec Decoder, tok vocab.Tokenizer, aff Affine, opts TokenOptions) *Token {
	if dec == nil || tok == nil {
		panic("dist: NewToken with nil Decoder or Tokenizer")
	}
	checkAffine(aff)
	if opts.MaxExpand < 0 || opts.Beam < 0 || opts.Samples < 0 {
		panic("dist: negative TokenOptions.MaxExpand, Beam or Samples")
	}
	_, byWidth := tok.(*vocab.Normalized)
	switch {
	case opts.MeanTol == 0 && byWidth:
		opts.MeanTol = DefaultMeanTolNormalized
	case opts.MeanTol == 0:
		opts.MeanTol = DefaultMeanTol
	case opts.MeanTol < 0:
		opts.MeanTol = 0
	}
	if opts.MaxExpand == 0 {
		opts.MaxExpand = DefaultMaxExpand
	}
	if opts.Beam == 0 {
		opts.Beam = DefaultBeam
	}
	if opts.Samples == 0 {
		opts.Samples = DefaultSamples
	}
	d := &Token{dec: dec, tok: tok, aff: aff, opts: opts, v: tok.Size(), k: tok.Len(), byWidth: byWidth}
	if d.v <= 0 || d.k <= 0 {
		panic("dist: tokenizer with empty vocabulary or zero length")
	}
	d.tree, _ = tok.(vocab.Tree)
	d.special = make([]bool, d.v)
	for t := range d.v {
		if vocab.SpecialKind(tok, t) != vocab.Finite {
			d.special[t] = true
			d.anySpec = true
		}
	}
	return d
}

func checkAffine(aff Affine) {
	if !(aff.Scale > 0) || math.IsInf(aff.Scale, 0) || math.IsNaN(aff.Offset) || math.IsInf(aff.Offset, 0) {
		panic("dist: Affine.Scale must be positive and finite, Offset finite")
	}
}

// Exact reports whether Mean, Median, Quantile and CDF are exact tree
// computations (true for vocab.Tree tokenizations) rather than estimates
// from samples.
func (d *Token) Exact() bool { return d.tree != nil }

// Tokenizer returns the tokenization of the head.
func (d *Token) Tokenizer() vocab.Tokenizer { return d.tok }

// toY maps head units to y, saturating at ±MaxFloat64: a value beyond the
// float64 range (cells of an Unnormalized tokenization whose exponents
// exceed it, unbounded; see vocab.Bound) counts at the largest finite one.
func (d *Token) toY(t float64) float64 { return finite(d.aff.Offset + d.aff.Scale*t) }

func (d *Token) toT(y float64) float64 { return (y - d.aff.Offset) / d.aff.Scale }

// next appends to dst the tokens allowed after prefix: for a tree in the
// Children order, otherwise in the Allowed order; special tokens are
// dropped when finite is set.
func (d *Token) next(dst []int, prefix []int, finite bool) []int {
	start := len(dst)
	if finite && d.tree != nil {
		dst = d.tree.Children(dst, prefix)
	} else {
		dst = d.tok.Allowed(dst, prefix)
	}
	if finite && d.anySpec {
		out := dst[:start]
		for _, t := range dst[start:] {
			if !d.special[t] {
				out = append(out, t)
			}
		}
		dst = out
	}
	if len(dst) == start {
		panic(fmt.Sprintf("dist: tokenization %s allows no token after prefix %v", d.tok.Spec(), prefix))
	}
	return dst
}

// softmaxOver writes to p[j] the softmax of row[toks[j]]*invT over toks, in
// float64 (exp by vec.ExpNegInPlace), and returns p[:len(toks)]. A NaN logit
// counts as -Inf; +Inf logits share the mass equally; all -Inf (or NaN)
// logits give a uniform p. So p always sums to 1 and its largest entry is
// positive.
func softmaxOver(p []float64, row []float32, toks []int, invT float64) []float64 {
	p = p[:len(toks)]
	if !softmaxShift(p, row, toks, invT) {
		vec.ExpNegInPlace(p) // exp within 2 ulp, vectorised
		normalize(p)
	}
	return p
}

// softmaxRows is softmaxOver on n rows at once: row i is logits[i*v:(i+1)*v]
// over toks[offs[i]:offs[i+1]], its probabilities written to
// p[offs[i]:offs[i+1]]. One vec.ExpNegInPlace over all rows (a call per
// row of a few tokens costs more than its exps) gives the same bits as
// softmaxOver row by row. It allocates only where a row's largest logit is
// infinite.
func softmaxRows(p []float64, logits []float32, v int, toks, offs []int, invT float64) {
	n := len(offs) - 1
	var done []int // rows whose probabilities softmaxShift wrote
	for i := range n {
		if softmaxShift(p[offs[i]:offs[i+1]], logits[i*v:(i+1)*v], toks[offs[i]:offs[i+1]], invT) {
			done = append(done, i)
		}
	}
	vec.ExpNegInPlace(p[:offs[n]])
	for i := range n {
		if len(done) > 0 && done[0] == i { // the exps overwrote its final probabilities
			done = done[1:]
			softmaxShift(p[offs[i]:offs[i+1]], logits[i*v:(i+1)*v], toks[offs[i]:offs[i+1]], invT)
		} else {
			normalize(p[offs[i]:offs[i+1]])
		}
	}
}

// softmaxShift is softmaxOver up to the exponential: it writes to p
// (len(toks)) the logits over toks less their maximum, times invT, and
// reports false; or, when the maximum is infinite, the final probabilities
// (equal shares of the +Inf logits, or uniform), and reports true.
func softmaxShift(p []float64, row []float32, toks []int, invT float64) (done bool) {
	m := math.Inf(-1)
	for _, t := range toks {
		if l := float64(row[t]); l > m {
			m = l
		}
	}
	if math.IsInf(m, 0) {
		n := 0
		for j, t := range toks {
			p[j] = 0
			if float64(row[t]) == m || math.IsInf(m, -1) {
				p[j] = 1
				n++
			}
		}
		for j := range p {
			p[j] /= float64(n)
		}
		return true
	}
	for j, t := range toks {
		l := float64(row[t])
		if math.IsNaN(l) {
			l = math.Inf(-1)
		}
		p[j] = (l - m) * invT
	}
	return false
}

// normalize divides p by its sum, taken left to right.
func normalize(p []float64) {
	s := 0.0
	for _, e := range p {
		s += e
	}
	for j := range p {
		p[j] /= s
	}
}

// logSoftmaxAt returns log of the softmax probability of token t among
// toks (-Inf when t is not in toks).
func logSoftmaxAt(row []float32, toks []int, t int) float64 {
	m := math.Inf(-1)
	in := false
	for _, u := range toks {
		if l := float64(row[u]); l > m {
			m = l
		}
		in = in || u == t
	}
	if !in {
		return math.Inf(-1)
	}
	if math.IsInf(m, 0) { // as softmaxOver: uniform over the largest
		n := 0
		for _, u := range toks {
			if float64(row[u]) == m || math.IsInf(m, -1) {
				n++
			}
		}
		if float64(row[t]) != m && !math.IsInf(m, -1) {
			return math.Inf(-1)
		}
		return -math.Log(float64(n))
	}
	s := 0.0
	for _, u := range toks {
		if l := float64(row[u]); !math.IsNaN(l) {
			s += math.Exp(l - m)
		}
	}
	if math.IsNaN(float64(row[t])) {
		return math.Inf(-1)
	}
	return float64(row[t]) - m - math.Log(s)
}

// LogProbSeq returns the log probability of the complete sequence tokens
// under the masked softmax (K teacher-forced steps); -Inf if a token is not
// allowed where it stands, or is not a token (outside [0, Size())). It
// panics if len(tokens) != Len().
func (d *Token) LogProbSeq(tokens []int) float64 {
	if len(tokens) != d.k {
		panic(fmt.Sprintf("dist: LogProbSeq: %d tokens, tokenization has %d", len(tokens), d.k))
	}
	return d.logProbSeqs(tokens, 1)[0]
}

// LogProbSeqs returns the log probabilities of n complete sequences,
// stored flat in seqs (n*Len()), as LogProbSeq does for one, in one batched
// pass of Len() decoder steps. It panics if len(seqs) != n*Len().
func (d *Token) LogProbSeqs(seqs []int, n int) []float64 {
	if n < 0 || len(seqs) != n*d.k {
		panic(fmt.Sprintf("dist: LogProbSeqs: %d tokens for %d sequences of %d", len(seqs), n, d.k))
	}
	return d.logProbSeqs(seqs, n)
}

// logProbSeqs returns the log probabilities of n sequences stored flat in
// seqs (n*K), teacher-forced through one Stepper.
func (d *Token) logProbSeqs(seqs []int, n int) []float64 {
	out := make([]float64, n)
	if n == 0 {
		return out
	}
	// A sequence holding an id that is no token scores -Inf; the decoder
	// steps a valid stand-in (token 0) in its place.
	copied := false
	for i, t := range seqs {
		if t < 0 || t >= d.v {
			if !copied {
				seqs, copied = slices.Clone(seqs), true
			}
			out[i/d.k] = math.Inf(-1)
			seqs[i] = 0
		}
	}
	st := d.dec.Start(n)
	defer releaseStepper(st)
	logits := make([]float32, n*d.v)
	step := make([]int, n)
	var allowed []int
	for lev := range d.k {
		if lev == 0 {
			st.Step(nil, logits)
		} else {
			for i := range n {
				step[i] = seqs[i*d.k+lev-1]
			}
			st.Step(step, logits)
		}
		for i := range n {
			if math.IsInf(out[i], -1) {
				continue
			}
			allowed = d.tok.Allowed(allowed[:0], seqs[i*d.k:i*d.k+lev])
			out[i] += logSoftmaxAt(logits[i*d.v:(i+1)*d.v], allowed, seqs[i*d.k+lev])
		}
	}
	return out
}

// LogPDF returns the log density at y: the log probability of the sequence
// of y's cell (K teacher-forced steps), minus the log of the cell's width,
// minus log(Scale). It is -Inf where y is outside the representable range
// (including values an Unnormalized tokenization would clamp, values
// outside a vocab.Bound bound, and values outside [0,1] head units for a
// Normalized one). For a Repeat tokenization
// it uses the probability of the exact repeated sequence, a lower bound of
// the probability of every sequence that decodes to the cell. For a special
// value (NaN, ±Inf) with a special token it is the log probability of that
// sequence, a point mass.
func (d *Token) LogPDF(y float64) float64 { return d.LogPDFs([]float64{y})[0] }

// LogPDFs returns LogPDF of every y, batched through one Stepper.
func (d *Token) LogPDFs(ys []float64) []float64 {
	out := make([]float64, len(ys))
	seqs := make([]int, 0, len(ys)*d.k)
	var idx []int
	var logw []float64
	for i, y := range ys {
		toks, clamped, err := d.tok.Encode(d.toT(y))
		if err != nil || clamped || len(toks) != d.k {
			out[i] = math.Inf(-1)
			continue
		}
		cell, err := d.tok.Decode(toks)
		if err != nil {
			panic(fmt.Sprintf("dist: %s cannot decode its own encoding of %v: %v", d.tok.Spec(), y, err))
		}
		lw := 0.0 // point mass for special cells
		if cell.Kind == vocab.Finite {
			w := cell.Width()
			if !(w > 0) {
				out[i] = math.Inf(-1)
				continue
			}
			lw = vec.Log(w) + math.Log(d.aff.Scale)
		}
		seqs = append(seqs, toks...)
		idx = append(idx, i)
		logw = append(logw, lw)
	}
	lp := d.logProbSeqs(seqs, len(idx))
	for j, i := range idx {
		out[i] = lp[j] - logw[j]
	}
	return out
}

// LogProbSeqAt returns a function giving the log probability of the
// complete sequence tokens under the masked softmax of the logits times
// invT (temperature 1/invT), computed from one teacher-forced pass of Len()
// decoder steps made now: a temperature search evaluates it at many
// temperatures without decoding again. At invT = 1 it equals LogProbSeq
// (to rounding). It panics if len(tokens) != Len().
func (d *Token) LogProbSeqAt(tokens []int) func(invT float64) float64 {
	if len(tokens) != d.k {
		panic(fmt.Sprintf("dist: LogProbSeqAt: %d tokens, tokenization has %d", len(tokens), d.k))
	}
	level := d.LevelLogProbAt(tokens)
	return func(invT float64) float64 {
		s := 0.0
		for lev := range d.k {
			v := level(lev, invT)
			if math.IsInf(v, -1) {
				return v
			}
			s += v
		}
		return s
	}
}

// LevelLogProbAt returns a function giving the log probability of token
// tokens[lev], after tokens[:lev], under the masked softmax of the
// logits at level lev times invT, computed from one teacher-forced pass of
// Len() decoder steps made now. LogProbSeqAt is its sum over the levels at
// one invT; a temperature per level (per token depth) takes the levels
// apart, each its own invT. A token that is not allowed where it stands,
// or is not a token (outside [0, Size())), has log probability -Inf, and
// so have the tokens after one that is not a token. It panics if
// len(tokens) != Len(), and the function it returns panics for lev
// outside [0, Len()).
func (d *Token) LevelLogProbAt(tokens []int) func(lev int, invT float64) float64 {
	if len(tokens) != d.k {
		panic(fmt.Sprintf("dist: LevelLogProbAt: %d tokens, tokenization has %d", len(tokens), d.k))
	}
	bad := slices.IndexFunc(tokens, func(t int) bool { return t < 0 || t >= d.v })
	if bad >= 0 {
		// Stepped from a valid stand-in (token 0); scored -Inf from bad on.
		tokens = slices.Clone(tokens)
		for j := bad; j < d.k; j++ {
			tokens[j] = 0
		}
	}
	st := d.dec.Start(1)
	defer releaseStepper(st)
	logits := make([]float32, d.v)
	type level struct {
		allowed []float64 // the allowed tokens' logits
		at      int       // the index of the sequence's token among them; -1: not allowed
	}
	levels := make([]level, d.k)
	var allowed []int
	for lev := range d.k {
		if lev == 0 {
			st.Step(nil, logits)
		} else {
			st.Step(tokens[lev-1:lev], logits)
		}
		allowed = d.tok.Allowed(allowed[:0], tokens[:lev])
		l := level{allowed: make([]float64, len(allowed)), at: -1}
		for j, u := range allowed {
			l.allowed[j] = float64(logits[u])
			if u == tokens[lev] && (bad < 0 || lev < bad) {
				l.at = j
			}
		}
		levels[lev] = l
	}
	return func(lev int, invT float64) float64 {
		if lev < 0 || lev >= len(levels) {
			panic(fmt.Sprintf("dist: LevelLogProbAt: level %d outside [0, %d)", lev, len(levels)))
		}
		l := levels[lev]
		if l.at < 0 {
			return math.Inf(-1)
		}
		m := math.Inf(-1)
		for _, v := range l.allowed {
			if !math.IsNaN(v) {
				m = max(m, v)
			}
		}
		if math.IsInf(m, 0) || math.IsNaN(l.allowed[l.at]) {
			// Degenerate logits: the plain path's rules.
			row := make([]float32, len(l.allowed))
			toks := make([]int, len(l.allowed))
			for j, v := range l.allowed {
				row[j], toks[j] = float32(v*invT), j
			}
			return logSoftmaxAt(row, toks, l.at)
		}
		z := 0.0
		for _, v := range l.allowed {
			if !math.IsNaN(v) {
				z += math.Exp((v - m) * invT)
			}
		}
		return (l.allowed[l.at]-m)*invT - math.Log(z)
	}
}
