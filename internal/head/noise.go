package head

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"decoreg/internal/model"
	"decoreg/vocab"
)

// ErrNoiseTokenization refuses target noise (SetNoise) for a head other
// than the decoder or a tokenization other than the normalized one.
var ErrNoiseTokenization = errors.New("target noise needs the decoder with the normalized tokenization")

// noise is what Jitter needs: the tokenization, the standard deviation in
// u units, and every row's u (clipped to [0, 1]).
type noise struct {
	tok   *vocab.Normalized
	sigma float64
	u     []float64
}

// SetNoise makes the decoder's training batches noisy (see Jitter): sigma
// > 0 is the noise's standard deviation in u units and y are the targets
// tg was encoded from. It refuses a head other than the decoder or a
// tokenization other than the normalized one (ErrNoiseTokenization).
func (tg *Targets) SetNoise(sigma float64, y []float64) error {
	tok, ok := tg.c.Vocab.(*vocab.Normalized)
	if tg.c.Head != model.Decoder || !ok {
		return ErrNoiseTokenization
	}
	if !(sigma > 0) || len(y)*tg.T != len(tg.Tokens) {
		panic(fmt.Sprintf("head: SetNoise(%v) with %d targets for %d rows", sigma, len(y), len(tg.Tokens)/max(tg.T, 1)))
	}
	n := &noise{tok: tok, sigma: sigma, u: make([]float64, len(y))}
	for i, v := range y {
		n.u[i] = min(max(tg.units.ToU(v), 0), 1)
	}
	tg.noise = n
	return nil
}

// Noisy reports whether SetNoise made the training batches noisy.
func (tg *Targets) Noisy() bool { return tg.noise != nil }

// maxDraws bounds the rejection sampling of one truncated draw; a sigma
// at most 10 accepts at least 4% of the draws, so that reaching the bound
// (then the target is clipped into [0, 1]) has a probability below 1e-11.
const maxDraws = 600

// Jitter replaces the tokens of b's rows, which Fill gathered from rows
// idx, by the tokens of u' ~ N(u, sigma^2) truncated to [0, 1], drawn with
// r for each row's u, when SetNoise was called (else it does nothing).
// Fill's masks stay: the normalized tokenization allows the same tokens
// after every prefix.
func (tg *Targets) Jitter(b *model.Batch, idx []int, r *rand.Rand) {
	n := tg.noise
	if n == nil {
		return
	}
	T := tg.T
	for k, i := range idx {
		u := n.u[i]
		v := u
		for range maxDraws {
			if d := u + n.sigma*r.NormFloat64(); d >= 0 && d <= 1 {
				v = d
				break
			}
		}
		toks, _, err := n.tok.Encode(v)
		if err != nil { // v in [0, 1]: cannot happen
			panic("head: Jitter: " + err.Error())
		}
		for p, t := range toks {
			b.Tokens[k*T+p] = int32(t)
		}
	}
}
