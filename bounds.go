package decoreg

import (
	"math"

	"decoreg/vocab"
)

// BoundMargin widens the training range of an unnormalized decoder's
// tokenization: the decoder may only produce cells that meet
// [y_min - BoundMargin*r, y_max + BoundMargin*r], r = y_max - y_min (in its
// head units), in training and at inference. Without the bound the
// tokenization covers every magnitude up to base^(base^exponent) (beyond
// float64 for some specs), and the little mass a trained model leaves on
// absurd exponents dominates the mean (-2.6e7 for a target of about 10).
const BoundMargin = 0.1

// boundedVocab returns the model's tokenization restricted, for an
// unnormalized decoder, to the cells that meet the training range widened
// by BoundMargin (not widened when Config fixes the target range;
// vocab.Bound), unless Config.Unbounded; other
// tokenizations unchanged. It depends on
// y_min, y_max, the config and m.endsCut only, which model files store, so
// a loaded model gets the same bound. It clears m.endsCut where there is
// no fixed range's bound to cut.
func (m *Model) boundedVocab() vocab.Tokenizer {
	if m.tok == nil || m.cfg.Head != HeadDecoder || !vocab.IsUnnormalized(m.tok) || m.cfg.Unbounded {
		m.endsCut = 0
		return m.tok
	}
	if !m.cfg.FixedRange() {
		m.endsCut = 0
	}
	lo, hi := m.units.ToHead(-BoundMargin), m.units.ToHead(1+BoundMargin)
	if m.cfg.FixedRange() {
		// The user's range is the target's: no margin, and cells that
		// only touch it at an edge are left out. A cell that straddles an
		// edge is cut there (m.endsCut); in files from before it stays
		// whole, so values reach past the range by less than a cell, and
		// the extreme cells hold the range's ends as targets on them are
		// encoded and scored (HeadOf's arithmetic, which can round them
		// beyond the cells' edges: refused, and -Inf, before).
		lo, hi = m.units.ToHead(0), m.units.ToHead(1)
		eps := (hi - lo) * 1e-12
		// HeadOf's rounding: of y - offset (an ulp of the larger), carried
		// through the division, and of the quotient; a few times over.
		a := m.units.Affine()
		big := max(math.Abs(m.units.YMin), math.Abs(m.units.YMax), math.Abs(a.Offset))
		tol := 8 * (ulp(big)/a.Scale + ulp(max(math.Abs(lo), math.Abs(hi))))
		endLo, endHi := m.units.HeadOf(m.units.YMin), m.units.HeadOf(m.units.YMax)
		if m.endsCut == endsCutRule {
			// The extreme cells end at the range's ends as HeadOf gives
			// them (where targets on the ends land; far from 0 that can
			// round inside the range by more than eps: [1e9+0.1, 1e9+0.3]
			// by 3e-7 of it, helper-119): the bound is taken from them,
			// and its extreme cells are cut where an end lies inside them
			// and extended over the strip of cells that it leaves out (a
			// raw range from 0), so that the cells tile [endLo, endHi].
			// The cells kept are those that reach at least w inside
			// [endLo, endHi]: w is 1e-12 of the range, and no less than
			// the rounding tol (8 ulps of y and of the head units), so
			// that an end a rounding beyond a cell's edge takes no sliver
			// of the cell beyond ([1e9+0.1, 1e9+0.3]'s low end: 6e-8 of
			// y, under an ulp, holding a whole token's mass, helper-120),
			// and endHi-w is not endHi (raw [100000, 100005]: the cell
			// from 100005 up was kept whole, helper-120). The cells left
			// out at an end join the extreme one.
			w := min(max((endHi-endLo)*1e-12, tol), (endHi-endLo)/4)
			lo, hi := endLo+w, endHi-w
			// Strictly inside the ends, or the cell beginning at an end
			// (a cell edge) is taken and kept whole beyond it (a raw
			// range an ulp or two wide, where w rounds away, helper-123).
			if !(lo > endLo) {
				lo = math.Nextafter(endLo, math.Inf(1))
			}
			if !(hi < endHi) {
				hi = math.Nextafter(endHi, math.Inf(-1))
			}
			if lo > hi { // one ulp wide: the cell holding an end reaches the other
				lo, hi = endLo, endLo
				if endHi <= 0 {
					lo, hi = endHi, endHi // negative cells hold their upper edge
				}
			}
			if b, err := vocab.BoundCut(m.tok, lo, hi, endLo, endHi, 2*w); err == nil {
				return b
			}
			// Saved without ends_cut, the model loads as a file from
			// before: the same bound as here (it was left unbounded).
			m.endsCut = 0
		}
		b, err := vocab.BoundEnds(m.tok, lo+eps, hi-eps, endLo, endHi, tol)
		if err != nil {
			return m.tok
		}
		return b
	}
	b, err := vocab.Bound(m.tok, lo, hi)
	if err != nil { // a range that misses the tokenization's: keep it whole
		return m.tok
	}
	return b
}

// endsCutRule is the rule of boundedVocab's cut of a fixed range's extreme
// cells, recorded in model files (ends_cut): a change to it that moves any
// cell is a new rule, with the old kept for the files that name it.
const endsCutRule = 1

// ulp is the distance from |x| to the next float64 up.
func ulp(x float64) float64 {
	x = math.Abs(x)
	return math.Nextafter(x, math.Inf(1)) - x
}
