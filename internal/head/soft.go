package head

import (
	"errors"
	"fmt"
	"math"

	"decoreg/internal/model"
	"decoreg/vocab"
)

// softWide is how many standard deviations wide a position's children
// may be for it to get soft targets (see softTargets). 5 keeps the first
// digit of the default tokenization (children 1/8 wide) soft at sigma
// 0.03, which gave most of the gain in Kendall's tau on small UCI tables
// (2 lost most of it: README, "train --soft-targets").
const softWide = 5

// softTargets writes into q (T, V) the decoder's soft token targets for
// u in [0, 1] under the normalized tokenization tok (T = tok.Length(),
// V = tok.Size()), whose target tokens for u are toks. At a position
// whose children (the cells of the next digit) are at most softWide*sigma
// wide, the target is the distribution of the next digit of
// y' ~ N(u, sigma^2) truncated to the cell of the target prefix toks[:j]
// (teacher forcing):
//
//	q[j][k] = P(y' in child k of the prefix cell) / P(y' in the prefix cell)
//
// (nearly uniform where the children are much narrower than sigma). A
// position with wider children keeps the one-hot target digit. The
// decoder learns the digits after a prefix only from the rows whose
// targets have that prefix, so the mass given to a neighbouring child
// lands where the decoder, given x, places targets in that child: near u
// where the target is a smooth function of x, anywhere in the child where
// it is not (a target on the edge of two cells, as integer targets often
// are, gives mass to the other cell's far values). Keeping wide children
// one-hot bounds that displacement by softWide*sigma, so that the
// targets tend to the one-hot ones as sigma does (without it, a target on
// a coarse edge gave half its mass to the cell below whatever sigma).
// Tokens other than digits get 0. It is the histogram loss with Gaussian
// smoothing (Imani and White, 2018, "HL-Gauss") applied to each digit.
func softTargets(q []float32, tok *vocab.Normalized, toks []int32, u, sigma float64) {
	B, T := tok.Base(), tok.Length()
	V := tok.Size()
	clear(q[:T*V])
	lo, w := 0.0, 1.0 // the prefix cell [lo, lo+w)
	var mass [vocab.MaxBase]float64
	var tail [vocab.MaxBase + 1]float64
	for j := range T {
		cw := w / float64(B)
		row := q[j*V : j*V+B]
		d := int(toks[j])
		if cw > softWide*sigma {
			row[d] = 1
			lo += float64(d) * cw
			w = cw
			continue
		}
		z0, dz := (lo-u)/sigma, cw/sigma // z of the prefix cell's left edge; a child's width in z
		var sum float64
		if dz < 1e-3 {
			// Children far narrower than sigma: the density at their
			// midpoints (relative error below 1e-7; the prefix cell holds
			// u, so |z| < B*dz there).
			for k := range B {
				m := z0 + (float64(k)+0.5)*dz
				mass[k] = math.Exp(-0.5 * m * m)
				sum += mass[k]
			}
		} else {
			// The tail probability min(Phi(z), 1-Phi(z)) at the B+1 edges,
			// one erfc each, and each child's mass from the two tails on
			// its side(s) of 0, without cancellation in either tail.
			for k := range B + 1 {
				tail[k] = 0.5 * math.Erfc(math.Abs(z0+float64(k)*dz)/math.Sqrt2)
			}
			for k := range B {
				a, b := z0+float64(k)*dz, z0+float64(k+1)*dz
				switch {
				case b <= 0:
					mass[k] = tail[k+1] - tail[k]
				case a >= 0:
					mass[k] = tail[k] - tail[k+1]
				default:
					mass[k] = 1 - tail[k] - tail[k+1]
				}
				sum += mass[k]
			}
		}
		if sum > 0 && !math.IsInf(sum, 0) {
			for k := range B {
				row[k] = float32(mass[k] / sum)
			}
		} else {
			row[d] = 1
		}
		lo += float64(d) * cw
		w = cw
	}
}

// errSoftTokenization refuses soft targets (model.Config.SoftSigma) for a
// tokenization other than the normalized one (decoreg.Config refuses it
// first).
var errSoftTokenization = errors.New("soft targets need the normalized tokenization")

// softTok is c's normalized tokenization when c's decoder trains on soft
// targets, nil when it does not (also when no position's cells are
// narrow enough to get soft targets, below a fifth of the finest cell:
// the training is then the hard one, bit for bit), or
// errSoftTokenization.
func softTok(c *model.Config) (*vocab.Normalized, error) {
	if c.Head != model.Decoder || c.SoftSigma <= 0 {
		return nil, nil
	}
	n, ok := c.Vocab.(*vocab.Normalized)
	if !ok {
		return nil, fmt.Errorf("%w, not %s", errSoftTokenization, c.Vocab.Spec())
	}
	if math.Pow(float64(n.Base()), -float64(n.Length())) > softWide*c.SoftSigma {
		return nil, nil
	}
	return n, nil
}
