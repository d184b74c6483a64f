package dist

import (
	"fmt"
	"math"
	"slices"
)

// CDFAt returns a function giving CDF(y) under the masked softmax of the
// logits times invT (temperature 1/invT relative to d's own logits), from
// one walk of Len() decoder steps made now down the path of y's cell: the
// path does not depend on the temperature, so a temperature search
// evaluates the CDF at many temperatures without decoding again. The
// semantics are CDFs': special tokens are masked, y at or below the
// support's lower edge gives 0, at or above its upper edge 1, and inside
// y's cell the CDF is interpolated linearly; NaN gives NaN. At invT = 1
// it equals CDF(y) (to rounding). Tree tokenizations only: it panics
// unless Exact().
func (d *Token) CDFAt(y float64) func(invT float64) float64 {
	if d.tree == nil {
		panic(fmt.Sprintf("dist: CDFAt needs a tree tokenization, have %s", d.tok.Spec()))
	}
	t := d.toT(y)
	rlo, rhi := d.tree.Interval(nil)
	switch {
	case math.IsNaN(t):
		return func(float64) float64 { return math.NaN() }
	case t <= rlo:
		return func(float64) float64 { return 0 }
	case t >= rhi:
		return func(float64) float64 { return 1 }
	}
	path, _, err := d.tok.Encode(t)
	if err != nil || len(path) != d.k {
		panic(fmt.Sprintf("dist: %s cannot encode %v inside its range [%v, %v]: %v", d.tok.Spec(), t, rlo, rhi, err))
	}
	// levels[lev] holds the logits of the children the walk offers at
	// level lev, shifted so that the largest is 0 (NaN as -Inf), and the
	// index of the path's child among them; a level whose largest logit
	// is infinite keeps softmaxOver's probabilities, which no temperature
	// changes.
	type level struct {
		l     []float64
		fixed []float64
		at    int
	}
	levels := make([]level, d.k)
	st := d.dec.Start(1)
	defer releaseStepper(st)
	logits := make([]float32, d.v)
	var ch []int
	probs := make([]float64, d.v)
	for lev := range d.k {
		if lev == 0 {
			st.Step(nil, logits)
		} else {
			st.Step(path[lev-1:lev], logits)
		}
		ch = d.next(ch[:0], path[:lev], true)
		j := slices.Index(ch, path[lev])
		if j < 0 {
			panic(fmt.Sprintf("dist: %s encodes %v as %v, not a path of its tree", d.tok.Spec(), t, path))
		}
		m := math.Inf(-1)
		for _, c := range ch {
			if l := float64(logits[c]); l > m {
				m = l
			}
		}
		if math.IsInf(m, 0) {
			levels[lev] = level{fixed: slices.Clone(softmaxOver(probs, logits, ch, 1)), at: j}
			continue
		}
		l := make([]float64, len(ch))
		for i, c := range ch {
			v := float64(logits[c])
			if math.IsNaN(v) {
				v = math.Inf(-1)
			}
			l[i] = v - m
		}
		levels[lev] = level{l: l, at: j}
	}
	c := d.cell(path)
	lo, hi := finite(c.Lo), finite(c.Hi)
	f := 0.0
	if hi > lo {
		f = min(max((t-lo)/(hi-lo), 0), 1)
	} else if t >= hi {
		f = 1
	}
	return func(invT float64) float64 {
		below, mass := 0.0, 1.0
		for _, lv := range levels {
			if lv.fixed != nil {
				for _, p := range lv.fixed[:lv.at] {
					below += mass * p
				}
				mass *= lv.fixed[lv.at]
				continue
			}
			// exp((l - max) * invT): the largest term is exactly 1, so the
			// sum is at least 1 and never underflows.
			var left, s, own float64
			for i, v := range lv.l {
				e := math.Exp(v * invT)
				if i < lv.at {
					left += e
				} else if i == lv.at {
					own = e
				}
				s += e
			}
			below += mass * (left / s)
			mass *= own / s
		}
		return min(below+mass*f, 1)
	}
}
