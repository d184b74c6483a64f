package head

import (
	"math"

	"decoreg/internal/model"
	"decoreg/internal/vec"
)

// DepthScores holds what a decoder's NLL of some rows at a temperature per
// token depth needs: each scored token's allowed logits and the target's
// index among them, from one teacher-forced pass. Levels are separable
// (the NLL is a sum over them), so each depth's temperature is fitted
// alone.
type DepthScores struct {
	levels int         // tokens scored per row (T, less those SetResolution drops)
	rows   int         // rows scored
	logits [][]float64 // [row*levels+k]: the allowed tokens' logits
	at     []int       // [row*levels+k]: the target's index among them; -1: not allowed
	logW   []float64   // per row: the log width in u of its scored cell
}

// DepthScores runs rows idx of xs (cols features, standardized) through
// the decoder net and keeps what DepthScores.Fit needs; the levels scored
// and the cells' widths are those of RowNLL (after SetResolution). It
// panics for a head without tokens.
func (tg *Targets) DepthScores(net *model.Model, xs []float32, cols int, idx []int) *DepthScores {
	levels := tg.T - tg.dropped
	d := &DepthScores{levels: levels, rows: len(idx), logits: make([][]float64, len(idx)*levels), at: make([]int, len(idx)*levels), logW: make([]float64, len(idx))}
	const chunk = 1024
	b := tg.newBatch(min(chunk, len(idx)), cols, false)
	for lo := 0; lo < len(idx); lo += chunk {
		part := idx[lo:min(lo+chunk, len(idx))]
		tg.Fill(b, xs, cols, part)
		net.VisitLogits(b, true, func(i, k int, logits []float32, mask []bool, target int) {
			if k >= levels {
				return
			}
			n := (lo+i)*levels + k
			var allowed []float64
			at := -1
			for j, v := range logits {
				if mask != nil && !mask[j] {
					continue
				}
				if j == target {
					at = len(allowed)
				}
				allowed = append(allowed, float64(v))
			}
			d.logits[n], d.at[n] = allowed, at
		})
		for k, i := range part {
			if tg.dropped > 0 {
				d.logW[lo+k] = tg.scoredLogW
			} else if tg.LogW != nil {
				d.logW[lo+k] = tg.LogWidthU(i)
			}
		}
	}
	return d
}

// levelNLL is -log P(row r's token at depth k) at temperature 1/inv.
func (d *DepthScores) levelNLL(r, k int, inv float64) float64 {
	n := r*d.levels + k
	l, at := d.logits[n], d.at[n]
	if at < 0 {
		return math.Inf(1)
	}
	m := math.Inf(-1)
	for _, v := range l {
		m = max(m, v)
	}
	z := 0.0
	for _, v := range l {
		z += math.Exp((v - m) * inv)
	}
	return math.Log(z) - (l[at]-m)*inv
}

// RowNLL writes each row's NLL in u units at temperatures ts (one per
// depth) into out (RowNLL's values at temperature 1).
func (d *DepthScores) RowNLL(ts []float64, out []float64) {
	for r := range d.rows {
		s := d.logW[r]
		for k, t := range ts {
			s += d.levelNLL(r, k, 1/t)
		}
		out[r] = s
	}
}

// Levels is the number of token depths scored.
func (d *DepthScores) Levels() int { return d.levels }

// LevelNLL is the rows' mean -log P(token at depth k) under the masked
// softmax of the logits divided by t (+Inf where a target token is not
// allowed, NaN where a logit is).
func (d *DepthScores) LevelNLL(k int, t float64) float64 {
	inv := 1 / t
	s := 0.0
	for r := range d.rows {
		s += d.levelNLL(r, k, inv)
	}
	return s / float64(d.rows)
}

// Fit returns, for each depth, the temperature that minimises its
// LevelNLL, and the rows' mean NLL in u units at those temperatures
// (RowNLL's mean at temperature 1), as the decoreg package's
// CalibrateByDepth fits them for one model: first the one temperature t0
// in [lo, hi] that minimises the rows' NLL (1 unless lower), then each
// depth's in [min(1, t0), hi] (none sharper than both the model and t0),
// by golden-section search on log t; a depth whose search finds nothing
// lower than t0's value keeps t0. NaN where a logit is NaN or there are
// no rows.
func (d *DepthScores) Fit(lo, hi float64) (ts []float64, nllU float64) {
	if d.rows == 0 {
		return nil, math.NaN()
	}
	all := func(logT float64) float64 {
		s := 0.0
		for k := range d.levels {
			s += d.LevelNLL(k, math.Exp(logT))
		}
		return s
	}
	t0 := 1.0
	if best, fb := vec.GoldenMin(all, math.Log(lo), math.Log(hi), 40); fb < all(0) {
		t0 = math.Exp(best)
	}
	lo = min(1, t0)
	ts = make([]float64, d.levels)
	nllU = 0
	for _, w := range d.logW {
		nllU += w / float64(d.rows)
	}
	for k := range d.levels {
		f := func(logT float64) float64 { return d.LevelNLL(k, math.Exp(logT)) }
		best, fb := vec.GoldenMin(f, math.Log(lo), math.Log(hi), 40)
		ts[k] = t0
		f0 := f(math.Log(t0))
		if fb < f0 {
			ts[k], f0 = math.Exp(best), fb
		}
		nllU += f0
	}
	return ts, nllU
}
