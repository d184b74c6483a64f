package dist

import (
	"math"

	"decoreg/vocab"
)

// sharedTree returns the components as Tokens when every one is a Token of
// one tree tokenization with one affine map to y (an ensemble of one
// configuration's seeds, or of trials that differ only in their encoder):
// the mixture is then itself a distribution over that tree's cells, whose
// prefix masses are the averages of the components' prefix masses, and
// treeQuantiles finds its quantiles exactly by one walk down the tree.
// Otherwise nil.
func (d *Mixture) sharedTree() []*Token {
	ts := make([]*Token, len(d.comps))
	for c, comp := range d.comps {
		t, ok := comp.(*Token)
		if !ok || t.tree == nil {
			return nil
		}
		if c > 0 && (t.aff != ts[0].aff || !vocab.Same(t.tok, ts[0].tok)) {
			return nil
		}
		ts[c] = t
	}
	return ts
}

// treeQuantiles returns the mixture's quantiles at levels qs (each in
// (0, 1)) for components ts of one tree (sharedTree): the walk of
// Token.Quantiles on the mixture's own tree, K decoder steps for each
// component, all levels together. At each level of the tree a level's
// walk goes to the child where the mixture's cumulative mass crosses its
// target, the children's mixture masses being the components' child
// probabilities weighted by the components' masses of the walk's prefix;
// inside the final cell, where every component's CDF is linear, it
// interpolates. So the answer is exact to rounding, as a single Token's
// quantile is.
func treeQuantiles(ts []*Token, qs []float64) []float64 {
	n, k, v, nc := len(qs), ts[0].k, ts[0].v, len(ts)
	out := make([]float64, n)
	if n == 0 {
		return out
	}
	sts := make([]Stepper, nc)
	for c, t := range ts {
		sts[c] = t.dec.Start(n)
	}
	defer func() {
		for _, st := range sts {
			releaseStepper(st)
		}
	}()
	logits := make([]float32, nc*n*v)
	// w[c*n+i]: component c's mass of walk i's prefix, relative to the
	// largest component's (rescaled at every level, so that a deep
	// prefix's masses do not underflow together).
	w := make([]float64, nc*n)
	for i := range w {
		w[i] = 1
	}
	frac := append([]float64(nil), qs...)
	prefix := make([]int, n*k)
	step := make([]int, n)
	probs := make([]float64, nc*v)
	mix := make([]float64, v)
	var ch []int
	for lev := range k {
		for c, st := range sts {
			if lev == 0 {
				st.Step(nil, logits[c*n*v:(c+1)*n*v])
			} else {
				st.Step(step, logits[c*n*v:(c+1)*n*v])
			}
		}
		for i := range n {
			ch = ts[0].next(ch[:0], prefix[i*k:i*k+lev], true)
			m := mix[:len(ch)]
			clear(m)
			for c := range nc {
				row := (c*n + i) * v
				pr := softmaxOver(probs[c*v:(c+1)*v], logits[row:row+v], ch, 1)
				for j, p := range pr {
					m[j] += w[c*n+i] * p
				}
			}
			// The children's shares of the prefix's mixture mass (the
			// largest component's w is 1, so the total is at least 1/nc
			// of its positive softmax entry, never 0).
			var tot float64
			for _, p := range m {
				tot += p
			}
			for j := range m {
				m[j] /= tot
			}
			j := quantileChild(&frac[i], m)
			top := 0.0
			for c := range nc {
				w[c*n+i] *= probs[c*v+j]
				top = max(top, w[c*n+i])
			}
			for c := range nc {
				w[c*n+i] /= top
			}
			prefix[i*k+lev] = ch[j]
			step[i] = ch[j]
		}
	}
	for i := range n {
		c := ts[0].cell(prefix[i*k : (i+1)*k])
		out[i] = ts[0].toY(interp(c.Lo, c.Hi, frac[i]))
	}
	return out
}

// sharedQuantiles is Quantiles for components ts of one tree
// (sharedTree): levels 0 and 1 are the ends of the components' supports,
// and a level inside is read off the components' cells where their mean
// expansions reach it (mixCells.quantile), else found by treeQuantiles.
func (d *Mixture) sharedQuantiles(ts []*Token, qs []float64) []float64 {
	if len(ts) == 1 {
		return ts[0].Quantiles(qs) // the same answers, without rescaling
	}
	out := make([]float64, len(qs))
	// The components' mean expansions (computed here if not yet: a row's
	// mean wants them anyway) give most levels; the same route whether or
	// not Prepare computed them, so the answers do not depend on it.
	mc := d.cellCDF()
	var walk []float64
	var at []int
	for i, q := range qs {
		switch {
		case !(q >= 0 && q <= 1):
			out[i] = math.NaN()
		case q == 0 || q == 1:
			x := math.Inf(1)
			if q == 1 {
				x = math.Inf(-1)
			}
			for _, t := range ts {
				if e := t.Quantile(q); q == 0 {
					x = min(x, e)
				} else {
					x = max(x, e)
				}
			}
			out[i] = x
		default:
			if mc != nil {
				if x, ok := mc.quantile(q); ok {
					out[i] = x
					continue
				}
			}
			walk = append(walk, q)
			at = append(at, i)
		}
	}
	for j, x := range treeQuantiles(ts, walk) {
		out[at[j]] = x
	}
	return out
}
