package dist

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"decoreg/vocab"
)

// Validate reports whether the options are usable: Temperature finite and
// >= 0, TopK >= 0 and 0 <= TopP <= 1, none NaN.
func (o SampleOptions) Validate() error {
	switch {
	case !(o.Temperature >= 0) || math.IsInf(o.Temperature, 1):
		return fmt.Errorf("dist: sampling temperature %v is not a finite number >= 0", o.Temperature)
	case o.TopK < 0:
		return fmt.Errorf("dist: top-k %d is negative", o.TopK)
	case !(o.TopP >= 0 && o.TopP <= 1):
		return fmt.Errorf("dist: top-p %v is outside [0, 1]", o.TopP)
	}
	return nil
}

// Sample draws n values: n token sequences sampled ancestrally in one
// batch through one Stepper (K decoder steps in all, the Stepper's
// key/value cache carrying the prefixes), each a value drawn uniformly
// within its sequence's cell in y units (with opts.Centres, the cell's
// centre; a Repeat tokenization decodes by majority vote; a cell reaching
// beyond the float64 range is cut at ±MaxFloat64, before the Affine),
// after all the sequences are drawn. At
// every step the logits are masked to the allowed tokens, then divided by
// the temperature, renormalised (float64 softmax), cut to the TopK most
// probable tokens (ties: the lower token first), renormalised, and cut to
// the smallest set of most probable tokens whose mass reaches TopP (at
// least one token). It draws none when n <= 0, and panics if opts fails
// Validate, or r is nil and n > 0.
func (d *Token) Sample(n int, opts SampleOptions, r *rand.Rand) []float64 {
	vals, _ := d.SampleTokens(n, opts, r)
	return vals
}

// SampleTokens is Sample that also returns the sampled sequences, flat
// (n*Len(), row-major).
func (d *Token) SampleTokens(n int, opts SampleOptions, r *rand.Rand) (values []float64, seqs []int) {
	if err := opts.Validate(); err != nil {
		panic(err.Error())
	}
	n = max(n, 0)
	seqs = make([]int, n*d.k)
	values = make([]float64, n)
	if n == 0 {
		return values, seqs
	}
	if r == nil {
		panic("dist: Sample with a nil *rand.Rand")
	}
	d.sampleSeqs(seqs, n, opts, r, false)
	for i := range n {
		cell := d.cell(seqs[i*d.k : (i+1)*d.k])
		values[i] = cell.Center
		if cell.Kind == vocab.Finite {
			values[i] = d.toY(cellDraw(cell, opts.Centres, r))
		}
	}
	return values, seqs
}

// cellDraw returns, in head units, a value drawn uniformly within the
// finite cell c with r, or with centres its centre. A cell reaching past
// the float64 range draws within its finite part, as its CDF spreads it;
// the centre of one beyond it is ±MaxFloat64.
func cellDraw(c vocab.Cell, centres bool, r *rand.Rand) float64 {
	if centres {
		return finite(c.Center)
	}
	return interp(c.Lo, c.Hi, r.Float64())
}

// sampleSeqs fills seqs (n*K) with n sequences sampled through one
// Stepper; finite masks the special tokens.
func (d *Token) sampleSeqs(seqs []int, n int, opts SampleOptions, r *rand.Rand, finite bool) {
	k, v := d.k, d.v
	invT := 1.0
	if opts.Temperature > 0 {
		// Below about 5.6e-309, 1/T overflows; MaxFloat64 keeps the top
		// logit's (l-m)*invT at 0 (Inf made it 0*Inf = NaN, and the last
		// token was drawn) and every other one's at -Inf: greedy (tokens
		// tied at the top logit are drawn among evenly).
		invT = min(1/opts.Temperature, math.MaxFloat64)
	}
	st := d.dec.Start(n)
	defer releaseStepper(st)
	logits := make([]float32, n*v)
	step := make([]int, n)
	allowed := make([]int, 0, n*v) // each row's allowed tokens, row i at offs[i]:offs[i+1]
	offs := make([]int, n+1)
	probs := make([]float64, n*v)
	order := make([]int, v)
	for lev := range k {
		if lev == 0 {
			st.Step(nil, logits)
		} else {
			st.Step(step, logits)
		}
		allowed = allowed[:0]
		for i := range n {
			allowed = d.next(allowed, seqs[i*k:i*k+lev], finite)
			offs[i+1] = len(allowed)
		}
		softmaxRows(probs, logits, v, allowed, offs, invT)
		for i := range n {
			toks, p := allowed[offs[i]:offs[i+1]], probs[offs[i]:offs[i+1]]
			keep := filterTop(order, p, opts.TopK, opts.TopP)
			t := toks[keep[drawIndex(p, keep, r)]]
			seqs[i*k+lev] = t
			step[i] = t
		}
	}
}

// filterTop returns the indices into p (a probability vector) that top-k
// and then top-p keep, in decreasing order of probability (ties: lower
// index first); order is scratch of len >= len(p). With neither filter
// active it returns 0..len(p)-1 in index order.
func filterTop(order []int, p []float64, topK int, topP float64) []int {
	order = order[:len(p)]
	for j := range order {
		order[j] = j
	}
	kAct := topK > 0 && topK < len(p)
	pAct := topP > 0 && topP < 1
	if !kAct && !pAct {
		return order
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case p[a] > p[b]:
			return -1
		case p[a] < p[b]:
			return 1
		}
		return 0
	})
	if kAct {
		order = order[:topK]
	}
	if pAct {
		s := 0.0
		for _, j := range order {
			s += p[j]
		}
		target, c := topP*s, 0.0
		for m, j := range order {
			c += p[j]
			if c >= target {
				order = order[:m+1]
				break
			}
		}
	}
	return order
}

// drawIndex draws a position m of keep with probability p[keep[m]] / sum.
func drawIndex(p []float64, keep []int, r *rand.Rand) int {
	s := 0.0
	for _, j := range keep {
		s += p[j]
	}
	u := r.Float64() * s
	last := 0
	for m, j := range keep {
		if p[j] <= 0 {
			continue
		}
		last = m
		u -= p[j]
		if u < 0 {
			return m
		}
	}
	return last
}
