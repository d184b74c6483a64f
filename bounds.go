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
// y_min, y_max and the config only, which model files store, so a loaded
// model gets the same bound.
func (m *Model) boundedVocab() vocab.Tokenizer {
	if m.tok == nil || m.cfg.Head != HeadDecoder || !vocab.IsUnnormalized(m.tok) || m.cfg.Unbounded {
		return m.tok
	}
	lo, hi := m.units.ToHead(-BoundMargin), m.units.ToHead(1+BoundMargin)
	if m.cfg.FixedRange() {
		// The user's range is the target's: no margin, and cells that
		// only touch it at an end are left out (a cell that straddles an
		// end stays, so values reach past it by less than a cell). The
		// bound is the floats next inside the ends, in the arithmetic that
		// encodes targets (HeadOf): the extreme cells hold the ends
		// themselves (vocab.Bounded's cells cover their union's ends);
		// a bound a relative 1e-12 inside them left out every cell of a
		// raw target between 0 and 1e-12 of its range, 0's among them,
		// and a target on an end was refused as beyond the tokenization.
		lo = math.Nextafter(m.units.HeadOf(m.units.YMin), math.Inf(1))
		hi = math.Nextafter(m.units.HeadOf(m.units.YMax), math.Inf(-1))
	}
	b, err := vocab.Bound(m.tok, lo, hi)
	if err != nil { // a range that misses the tokenization's: keep it whole
		return m.tok
	}
	return b
}
