// Package head is the one table of decoreg's regression heads: for each
// head, its units, how a target becomes the head's training target and a
// mini-batch, the width of its outputs, how its outputs become a
// distribution, and what its loss is. Code that differs by head asks the
// table instead of switching on the head.
package head

import (
	"decoreg/internal/vec"
	"errors"
	"fmt"
	"math"
	"slices"

	"decoreg/dist"
	"decoreg/internal/model"
	"decoreg/vocab"
)

// Head describes one regression head.
type Head struct {
	Name string         // "decoder", "pointwise", "riemann", "mdn"
	Kind model.HeadKind // the network's head
	// Loss names the training and validation loss: "nll" (the negative
	// log-density in u units) or "mse" (the squared error in head units).
	Loss string
	// Density reports whether the head has a density (and so an NLL).
	Density bool
	// Tokens reports whether its targets are token sequences or bins, so
	// that a cross-entropy per token exists.
	Tokens bool

	unitMap  func(tok vocab.Tokenizer, raw bool) Map
	width    func(c *model.Config) int
	alloc    func(tg *Targets, n int)
	encode   func(tg *Targets, i int, u, t float64) error
	newBatch func(tg *Targets, b *model.Batch, n int)
	fill     func(tg *Targets, b *model.Batch, k, i int)
	tokenCE  func(tg *Targets, i int, nllU float64) float64
	dist     func(r Row) (dist.Distribution, error)
}

// Row is what a distribution is built from: one row's encoding and, for
// heads other than the decoder, its HeadOutputs.
type Row struct {
	Net    *model.Model
	Phi    []float32 // phi(x), EncWidth values
	Out    []float64 // HeadOutputs (nil for the decoder, and for a Riemann row given Logits)
	Affine dist.Affine
	Opts   dist.TokenOptions // decoder only
	// Temp is the model's calibration temperature (0 or 1: none): the
	// decoder's and Riemann's logits are divided by it, the MDN's
	// standard deviations multiplied by it.
	Temp float64
	// DepthTemp, when not nil, holds the decoder's calibration
	// temperatures per token depth: the logits of the k-th token
	// (0-based) are divided by DepthTemp[k], or by its last entry past its
	// end, in place of Temp. Decoder only.
	DepthTemp []float64
	// Logits are the Riemann head's raw logits (model.HeadLogits), used in
	// place of Out when present (Out's float32 probabilities may have
	// underflowed to 0, its log-density then -Inf); a scaled row needs them.
	Logits []float64
}

// scaled reports whether r has a temperature other than 1.
func (r *Row) scaled() bool { return r.Temp > 0 && r.Temp != 1 }

// Dist returns the row's distribution in y units, or an error wrapping
// ErrOutput when the network's outputs are not finite (its float32
// arithmetic overflowed), instead of the panic of the dist constructors.
func (h *Head) Dist(r Row) (dist.Distribution, error) { return h.dist(r) }

// Heads lists every head in a fixed order.
var Heads = []*Head{&decoder, &pointwise, &riemann, &mdn}

// Lookup returns the head named name, or nil.
func Lookup(name string) *Head {
	for _, h := range Heads {
		if h.Name == name {
			return h
		}
	}
	return nil
}

// Of returns the head of a network configuration.
func Of(c *model.Config) *Head {
	for _, h := range Heads {
		if h.Kind == c.Head {
			return h
		}
	}
	panic(fmt.Sprintf("head: unknown head kind %v", c.Head))
}

// Units returns the units of the head with tokenization tok (decoder)
// trained on targets in [yMin, yMax]; raw asks an unnormalized decoder to
// model y itself.
func (h *Head) Units(tok vocab.Tokenizer, raw bool, yMin, yMax float64) Units {
	return Units{YMin: yMin, YMax: yMax, Map: h.unitMap(tok, raw)}
}

// Width is the number of HeadOutputs per row (0 for the decoder, whose
// outputs come from its Decoder).
func (h *Head) Width(c *model.Config) int { return h.width(c) }

// ErrOutput is wrapped by the error of a distribution whose network outputs
// are not finite (float32 overflow inside the network).
var ErrOutput = errors.New("non-finite network outputs")

var decoder = Head{
	Name: "decoder", Kind: model.Decoder, Loss: "nll", Density: true, Tokens: true,
	unitMap: func(tok vocab.Tokenizer, raw bool) Map {
		switch {
		case !vocab.IsUnnormalized(tok):
			return U
		case raw:
			return Raw
		}
		return Shifted
	},
	width: func(*model.Config) int { return 0 },
	alloc: func(tg *Targets, n int) {
		tg.Tokens = make([]int32, n*tg.T)
		tg.Mask = make([]bool, n*tg.T*tg.V)
		tg.LogW = make([]float64, n)
	},
	encode: func(tg *Targets, i int, _, t float64) error {
		tok := tg.c.Vocab
		toks, clamped, err := tok.Encode(t)
		if err != nil {
			return fmt.Errorf("encoding %v: %w", t, err)
		}
		if clamped {
			if tg.Clamped == 0 {
				tg.FirstClamped = i
			}
			tg.Clamped++
		}
		cell, err := tok.Decode(toks)
		if err != nil {
			return fmt.Errorf("decoding the encoding of %v: %w", t, err)
		}
		tg.LogW[i] = vec.Log(cell.Width())
		for p, tk := range toks {
			tg.Tokens[i*tg.T+p] = int32(tk)
			tg.allowed = tok.Allowed(tg.allowed[:0], toks[:p])
			row := tg.Mask[(i*tg.T+p)*tg.V : (i*tg.T+p+1)*tg.V]
			for _, a := range tg.allowed {
				row[a] = true
			}
		}
		return nil
	},
	newBatch: func(tg *Targets, b *model.Batch, n int) {
		b.Tokens = make([]int32, n*tg.T)
		b.Mask = make([]bool, n*tg.T*tg.V)
	},
	fill: func(tg *Targets, b *model.Batch, k, i int) {
		copy(b.Tokens[k*tg.T:(k+1)*tg.T], tg.Tokens[i*tg.T:(i+1)*tg.T])
		tv := tg.T * tg.V
		copy(b.Mask[k*tv:(k+1)*tv], tg.Mask[i*tv:(i+1)*tv])
	},
	dist: func(r Row) (dist.Distribution, error) {
		var dec dist.Decoder = r.Net.DecoderThreads(r.Phi, r.Opts.Threads)
		switch {
		case r.DepthTemp != nil:
			inv := make([]float32, len(r.DepthTemp))
			for k, t := range r.DepthTemp {
				inv[k] = float32(1 / t)
			}
			dec = tempDecoder{dec, inv, r.Net.VocabSize()}
		case r.scaled():
			dec = tempDecoder{dec, []float32{float32(1 / r.Temp)}, r.Net.VocabSize()}
		}
		if err := checkFirstStep(dec, r.Net.VocabSize()); err != nil {
			return nil, err
		}
		return dist.NewToken(dec, r.Net.Cfg.Vocab, r.Affine, r.Opts), nil
	},
	// -log P(sequence) = NLL_u - log(cell width in u), over T tokens.
	tokenCE: func(tg *Targets, i int, nllU float64) float64 {
		return (nllU - tg.LogWidthU(i)) / float64(tg.T)
	},
}

var pointwise = Head{
	Name: "pointwise", Kind: model.Pointwise, Loss: "mse",
	unitMap: func(vocab.Tokenizer, bool) Map { return Shifted },
	width:   func(*model.Config) int { return 1 },
	alloc:   allocY,
	encode:  encodeY,
	newBatch: func(_ *Targets, b *model.Batch, n int) {
		b.Y = make([]float32, n)
	},
	fill: fillY,
	dist: func(r Row) (dist.Distribution, error) {
		a := r.Affine
		v := a.Offset + a.Scale*r.Out[0]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: the prediction is %v", ErrOutput, v)
		}
		return dist.NewPoint(v), nil
	},
}

var riemann = Head{
	Name: "riemann", Kind: model.Riemann, Loss: "nll", Density: true, Tokens: true,
	unitMap: func(vocab.Tokenizer, bool) Map { return U },
	width:   func(c *model.Config) int { return c.Bins },
	alloc:   func(tg *Targets, n int) { tg.Bins = make([]int32, n) },
	encode: func(tg *Targets, i int, u, _ float64) error {
		bins := tg.c.Bins
		tg.Bins[i] = int32(min(int(u*float64(bins)), bins-1))
		return nil
	},
	newBatch: func(_ *Targets, b *model.Batch, n int) { b.Bins = make([]int32, n) },
	fill:     func(tg *Targets, b *model.Batch, k, i int) { b.Bins[k] = tg.Bins[i] },
	// The density is p * n_bins: -log P(bin) = NLL_u + log(n_bins).
	tokenCE: func(tg *Targets, _ int, nllU float64) float64 {
		return nllU + math.Log(float64(tg.c.Bins))
	},
	dist: func(r Row) (dist.Distribution, error) {
		if len(r.Logits) > 0 {
			// softmax(logits/T) in float64: the log-density stays finite
			// where a float32 probability (Out) underflows to 0.
			z := r.Logits
			if r.scaled() {
				z = make([]float64, len(r.Logits))
				for i, v := range r.Logits {
					z[i] = v / r.Temp
				}
			}
			for _, v := range z {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("%w: a logit is %v", ErrOutput, v)
				}
			}
			return dist.NewRiemannLogits(z, r.Affine), nil
		}
		if r.scaled() {
			panic("head: a Riemann row with a temperature needs its logits")
		}
		probs := r.Out
		var s float64
		for _, p := range probs {
			if !(p >= 0) || math.IsInf(p, 1) {
				return nil, fmt.Errorf("%w: a bin probability is %v", ErrOutput, p)
			}
			s += p
		}
		if !(s > 0) || math.IsInf(s, 1) {
			return nil, fmt.Errorf("%w: the bin probabilities sum to %v", ErrOutput, s)
		}
		return dist.NewRiemann(probs, r.Affine), nil
	},
}

var mdn = Head{
	Name: "mdn", Kind: model.MDN, Loss: "nll", Density: true,
	unitMap: func(vocab.Tokenizer, bool) Map { return Shifted },
	width:   func(c *model.Config) int { return 3 * c.Components },
	alloc:   allocY,
	encode:  encodeY,
	newBatch: func(_ *Targets, b *model.Batch, n int) {
		b.Y = make([]float32, n)
	},
	fill: fillY,
	dist: func(r Row) (dist.Distribution, error) {
		k := r.Net.Cfg.Components
		w, mu, sd := r.Out[:k], r.Out[k:2*k], r.Out[2*k:]
		var s float64
		for i := range k {
			if !(w[i] >= 0) || math.IsInf(w[i], 1) || !(sd[i] > 0) || math.IsInf(sd[i], 1) ||
				math.IsNaN(mu[i]) || math.IsInf(mu[i], 0) {
				return nil, fmt.Errorf("%w: component %d has weight %v, mean %v, sd %v", ErrOutput, i, w[i], mu[i], sd[i])
			}
			s += w[i]
		}
		if !(s > 0) || math.IsInf(s, 1) {
			return nil, fmt.Errorf("%w: the mixture weights sum to %v", ErrOutput, s)
		}
		if r.scaled() {
			sd = slices.Clone(sd)
			for i := range sd {
				sd[i] *= r.Temp
			}
		}
		// In y units every component's mean and mean ± one standard
		// deviation must be finite: a far-out input with a huge target
		// range overflowed to +Inf, and an ensemble's mean to NaN. (Its
		// quantiles far out in a tail may still be ±Inf, beyond float64.)
		a := r.Affine
		for i := range k {
			if !dist.MDNComponentOK(mu[i], sd[i]) {
				return nil, fmt.Errorf("%w: component %d's mean %v and sd %v are beyond what the mixture's arithmetic holds", ErrOutput, i, mu[i], sd[i])
			}
			if y, s := a.Offset+a.Scale*mu[i], math.Abs(a.Scale)*sd[i]; math.IsInf(math.Abs(y)+s, 0) || math.IsNaN(y) {
				return nil, fmt.Errorf("%w: component %d's mean %v and sd %v, in y units %v and %v, reach beyond the largest float64 (the mean plus one sd must be finite)", ErrOutput, i, mu[i], sd[i], y, s)
			}
		}
		return dist.NewMDN(w, mu, sd, r.Affine), nil
	},
}

func allocY(tg *Targets, n int) { tg.Y = make([]float32, n) }

func encodeY(tg *Targets, i int, _, t float64) error {
	tg.Y[i] = float32(t)
	return nil
}

func fillY(tg *Targets, b *model.Batch, k, i int) { b.Y[k] = tg.Y[i] }

// checkFirstStep runs the decoder's first step (position 0, phi(x)) and
// returns an error wrapping ErrOutput when its logits are not finite: a
// huge phi(x) overflows the decoder's float32 arithmetic, and the token
// distribution would silently be uniform. The later positions add bounded
// token embeddings to layer-normalized values, so position 0 is where an
// overflow shows.
func checkFirstStep(dec dist.Decoder, V int) error {
	st := dec.Start(1)
	logits := make([]float32, V)
	st.Step(nil, logits)
	if r, ok := st.(interface{ Release() }); ok {
		r.Release()
	}
	for _, v := range logits {
		if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%w: a first-token logit is %v", ErrOutput, v)
		}
	}
	return nil
}

// tempDecoder divides its Decoder's next-token logits by a temperature:
// the k-th token's (0-based) by 1/inv[k], or 1/inv[len(inv)-1] past the
// end of inv (one entry: one temperature for every token).
type tempDecoder struct {
	dist.Decoder
	inv []float32 // 1/temperature, per token depth
	v   int       // vocabulary size
}

func (d tempDecoder) Start(n int) dist.Stepper {
	return &tempStepper{d.Decoder.Start(n), d.inv, d.v, 0}
}

type tempStepper struct {
	dist.Stepper
	inv   []float32
	v     int
	depth int // the depth of the token whose logits the next Step writes
}

func (s *tempStepper) Step(tokens []int, logits []float32) {
	s.Stepper.Step(tokens, logits)
	inv := s.inv[min(s.depth, len(s.inv)-1)]
	s.depth++
	out := logits[:s.N()*s.v]
	for i := range out {
		out[i] *= inv
	}
}

// Release hands the wrapped Stepper's buffers back, when it offers that.
func (s *tempStepper) Release() {
	if r, ok := s.Stepper.(interface{ Release() }); ok {
		r.Release()
	}
}
