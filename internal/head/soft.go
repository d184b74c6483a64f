package head

import (
	"errors"
	"fmt"
	"math"

	"decoreg/internal/model"
	"decoreg/vocab"
)

// softTargets writes into q (T, V) the decoder's soft token targets for
// u in [0, 1] under the normalized tokenization tok (T = tok.Length(),
// V = tok.Size()), whose target tokens for u are toks: at each position,
// the distribution over the next digit of y' ~ N(u, sigma^2) truncated to
// the cell of the target prefix toks[:j] (teacher forcing), so that
//
//	q[j][k] = P(y' in child k of the prefix cell) / P(y' in the prefix cell).
//
// Where sigma is small against a cell this is the one-hot target digit;
// where it is large, nearly uniform. Tokens other than digits get 0. A
// position whose Gaussian mass underflows to 0 gets the one-hot target.
// It is the histogram loss of Imani and White (2018, "HL-Gauss"), applied
// to each of the decoder's digits.
func softTargets(q []float32, tok *vocab.Normalized, toks []int32, u, sigma float64) {
	B, T := tok.Base(), tok.Length()
	V := tok.Size()
	clear(q[:T*V])
	lo, w := 0.0, 1.0 // the prefix cell [lo, lo+w)
	var mass [vocab.MaxBase]float64
	for j := range T {
		cw := w / float64(B)
		z0, dz := (lo-u)/sigma, cw/sigma // z of the prefix cell's left edge; a child's width in z
		var sum float64
		for k := range B {
			m := gaussMass(z0+float64(k)*dz, dz)
			mass[k] = m
			sum += m
		}
		row := q[j*V : j*V+B]
		if sum > 0 && !math.IsInf(sum, 0) {
			for k := range B {
				row[k] = float32(mass[k] / sum)
			}
		} else {
			row[toks[j]] = 1
		}
		lo += float64(toks[j]) * cw
		w = cw
	}
}

// gaussMass is P(a <= Z < a+d) for a standard normal Z and d >= 0,
// accurate in both tails and for narrow intervals (d is passed apart from
// a, so that an interval narrower than a's rounding keeps its width).
func gaussMass(a, d float64) float64 {
	b := a + d
	switch {
	case d < 1e-3: // midpoint rule: relative error d^2 |m^2 - 1| / 24
		m := a + 0.5*d
		return math.Exp(-0.5*m*m) / math.Sqrt(2*math.Pi) * d
	case b <= 0: // both in the lower tail: Phi(b) - Phi(a)
		return 0.5 * (math.Erfc(-b/math.Sqrt2) - math.Erfc(-a/math.Sqrt2))
	case a >= 0: // both in the upper tail: S(a) - S(b)
		return 0.5 * (math.Erfc(a/math.Sqrt2) - math.Erfc(b/math.Sqrt2))
	}
	return 1 - 0.5*(math.Erfc(-a/math.Sqrt2)+math.Erfc(b/math.Sqrt2))
}

// ErrSoftTokenization refuses soft targets (model.Config.SoftSigma) for a
// tokenization other than the normalized one.
var ErrSoftTokenization = errors.New("soft targets need the normalized tokenization")

// softTok is c's normalized tokenization when c's decoder trains on soft
// targets, nil when it does not, or ErrSoftTokenization.
func softTok(c *model.Config) (*vocab.Normalized, error) {
	if c.Head != model.Decoder || c.SoftSigma <= 0 {
		return nil, nil
	}
	n, ok := c.Vocab.(*vocab.Normalized)
	if !ok {
		return nil, fmt.Errorf("%w, not %s", ErrSoftTokenization, c.Vocab.Spec())
	}
	return n, nil
}
