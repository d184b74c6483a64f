package head

import (
	"decoreg/internal/vec"
	"math"

	"decoreg/internal/model"
	"decoreg/vocab"
)

// Targets holds every row's training target in its head's own form.
type Targets struct {
	h     *Head
	c     *model.Config
	units Units
	T, V  int // decoder: sequence length and vocabulary size

	Tokens  []int32   // (rows, T) decoder token sequences
	Mask    []bool    // (rows, T, V) allowed tokens along each sequence (decoder)
	LogW    []float64 // (rows) log width of the row's cell in head units (decoder)
	Y       []float32 // (rows) head-unit targets (pointwise, MDN; a decoder with AuxMSE: u - 0.5)
	Bins    []int32   // (rows) bin indices (Riemann)
	Clipped int       // targets outside the training range, clipped to it
	// Clamped counts the decoder's targets that lie beyond the range its
	// tokenization represents (vocab.Tokenizer.Encode's clamped: a raw
	// target with too few exponent digits), encoded as its extreme cell;
	// FirstClamped is the first of those rows. Training refuses them.
	Clamped, FirstClamped int

	// soft is the normalized tokenization of a decoder trained on soft
	// targets (model.Config.SoftSigma > 0), whose rows' u values are in u;
	// Fill builds each batch's Batch.Soft from them.
	soft      *vocab.Normalized
	u         []float64
	softCache []float32 // (rows, T, V) every row's soft targets, once a training batch asked for them (at most softCacheMax values)

	// dropped is, after SetResolution, the number of trailing tokens whose
	// probability RowNLL leaves out (0: the plain NLL), and scoredLogW the
	// log width in u of the cells of the T-dropped tokens it scores.
	dropped    int
	scoredLogW float64

	allowed []int // scratch
}

// RowError is the error of one row's target.
type RowError struct {
	Row int
	Err error
}

func (e *RowError) Error() string { return e.Err.Error() }
func (e *RowError) Unwrap() error { return e.Err }

// Encode converts targets y to the head's targets for a network with
// configuration c and units s, clipping values outside the training range
// to it (and counting them). An error about a row is a *RowError; soft
// targets with a tokenization other than the normalized one wrap
// errSoftTokenization.
func Encode(c *model.Config, s Units, y []float64) (*Targets, error) {
	h := Of(c)
	tg := &Targets{h: h, c: c, units: s}
	soft, err := softTok(c)
	if err != nil {
		return nil, err
	}
	if soft != nil {
		tg.soft, tg.u = soft, make([]float64, len(y))
	}
	if c.Vocab != nil {
		tg.T, tg.V = c.Vocab.Len(), c.Vocab.Size()
	}
	h.alloc(tg, len(y))
	aux := auxTargets(c)
	if aux {
		tg.Y = make([]float32, len(y))
	}
	for i, v := range y {
		u := s.ToU(v)
		if u < 0 || u > 1 {
			tg.Clipped++
			u = min(max(u, 0), 1)
		}
		if err := h.encode(tg, i, u, s.HeadOf(v)); err != nil {
			return nil, &RowError{Row: i, Err: err}
		}
		if aux {
			tg.Y[i] = float32(u - 0.5) // the auxiliary read-out's target, as the pointwise head's
		}
		if soft != nil {
			tg.u[i] = u
		}
	}
	return tg, nil
}

// auxTargets reports whether c's decoder has an auxiliary squared error,
// whose targets t = u - 0.5 its batches then carry in Y.
func auxTargets(c *model.Config) bool { return c.Head == model.Decoder && c.AuxMSE > 0 }

// LogWidthU is the log width, in u units, of row i's cell (decoder): a
// row's NLL_u is its -log P(sequence) plus LogWidthU.
func (tg *Targets) LogWidthU(i int) float64 { return tg.LogW[i] - tg.units.LogTPerU() }

// NewBatch allocates a training batch of up to n rows of cols features
// (with room for soft targets when the decoder trains on them).
func (tg *Targets) NewBatch(n, cols int) *model.Batch { return tg.newBatch(n, cols, true) }

// newBatch is NewBatch, with room for soft targets only when soft.
func (tg *Targets) newBatch(n, cols int, soft bool) *model.Batch {
	b := &model.Batch{X: make([]float32, n*cols)}
	tg.h.newBatch(tg, b, n)
	if auxTargets(tg.c) {
		b.Y = make([]float32, n)
	}
	if soft && tg.soft != nil {
		b.Soft = make([]float32, n*tg.T*tg.V)
		tv := tg.T * tg.V
		if rows := len(tg.u); tg.softCache == nil && rows*tv <= softCacheMax {
			// A row's soft targets are the same in every epoch.
			tg.softCache = make([]float32, rows*tv)
			for i := range rows {
				tg.softRow(tg.softCache[i*tv:(i+1)*tv], i)
			}
		}
	}
	return b
}

// softCacheMax bounds the values of Targets' cache of soft targets (64 MiB:
// 350,000 rows of the default tokenization; each tuning trial has its own);
// beyond it each batch computes its rows' soft targets again.
const softCacheMax = 1 << 24

// softRow writes row i's soft targets into q (T*V).
func (tg *Targets) softRow(q []float32, i int) {
	softTargets(q, tg.soft, tg.Tokens[i*tg.T:(i+1)*tg.T], tg.u[i], tg.c.SoftSigma)
}

// Fill gathers rows idx of the standardized features xs and of the
// targets into b, and the rows' soft targets when b has room for them.
func (tg *Targets) Fill(b *model.Batch, xs []float32, cols int, idx []int) {
	b.B = len(idx)
	b.X = b.X[:cap(b.X)]
	aux := auxTargets(tg.c)
	if aux {
		b.Y = b.Y[:cap(b.Y)]
	}
	for k, i := range idx {
		copy(b.X[k*cols:(k+1)*cols], xs[i*cols:(i+1)*cols])
		tg.h.fill(tg, b, k, i)
		if aux {
			b.Y[k] = tg.Y[i]
		}
	}
	if aux {
		b.Y = b.Y[:len(idx)]
	}
	b.X = b.X[:len(idx)*cols]
	if b.Tokens != nil {
		b.Tokens = b.Tokens[:cap(b.Tokens)][:len(idx)*tg.T]
		b.Mask = b.Mask[:cap(b.Mask)][:len(idx)*tg.T*tg.V]
	}
	if tg.soft != nil && b.Soft != nil {
		tv := tg.T * tg.V
		b.Soft = b.Soft[:cap(b.Soft)][:len(idx)*tv]
		for k, i := range idx {
			if tg.softCache != nil {
				copy(b.Soft[k*tv:(k+1)*tv], tg.softCache[i*tv:(i+1)*tv])
			} else {
				tg.softRow(b.Soft[k*tv:(k+1)*tv], i)
			}
		}
	}
}

// RowNLL writes each row's loss for rows idx of net into out: the NLL in
// normalized units u for density heads (masked probabilities), the squared
// error in head units for the pointwise head. After SetResolution, a
// decoder's row is scored at that resolution.
func (tg *Targets) RowNLL(net *model.Model, xs []float32, cols int, idx []int, out []float64) {
	const chunk = 1024
	b := tg.newBatch(min(chunk, len(idx)), cols, false) // RowLosses reads no soft targets
	for lo := 0; lo < len(idx); lo += chunk {
		part := idx[lo:min(lo+chunk, len(idx))]
		tg.Fill(b, xs, cols, part)
		o := out[lo : lo+len(part)]
		if tg.dropped > 0 {
			net.RowPrefixLosses(b, true, tg.T-tg.dropped, o)
			for k := range o {
				o[k] += tg.scoredLogW
			}
			continue
		}
		net.RowLosses(b, true, o)
		tg.toU(part, o)
	}
}

// SetResolution makes RowNLL score each row of a decoder of the normalized
// tokenization (base B, T digits) by the density averaged over the
// deepest cell of its target's digits at least minWidth wide in u units:
// -log P(first k digits | x) + log B^-k, with k the largest at most T
// such that B^-k >= minWidth (less a relative 1e-9 for rounding: B^-k
// computed for 1e-3 may come out an ulp narrower). With k = T the score
// is the plain NLL, to the bit. Such a score is at least log(minWidth)
// (the cell's probability is at most 1), so a model cannot lower it by
// resolving a target more finely than minWidth: on targets that sit on a
// few values, whose NLL falls without bound as the cells narrow, models
// of different resolutions are compared by how much probability they put
// near the target rather than by the width of their cells. minWidth <= 0
// restores the plain NLL; other heads and tokenizations ignore it (an
// unnormalized tokenization's cells jump from the exponent's width to the
// mantissa's, so the deepest cell at least minWidth wide can be far wider).
func (tg *Targets) SetResolution(minWidth float64) {
	tg.dropped = 0
	n, ok := tg.c.Vocab.(*vocab.Normalized)
	if !ok || !(minWidth > 0) {
		return
	}
	logB, logMin := math.Log(float64(n.Base())), vec.Log(minWidth)-1e-9
	k := 0
	for k < tg.T && -float64(k+1)*logB >= logMin {
		k++
	}
	tg.dropped, tg.scoredLogW = tg.T-k, -float64(k)*logB
}

// toU converts the network's row losses of rows idx to NLL_u in place (the
// decoder's -log P(sequence) plus its cell's log width).
func (tg *Targets) toU(idx []int, loss []float64) {
	if tg.LogW == nil {
		return
	}
	for k, i := range idx {
		loss[k] += tg.LogWidthU(i)
	}
}

// TokenCE is row i's cross-entropy per token given its NLL_u; it panics
// for heads without tokens (Head.Tokens).
func (tg *Targets) TokenCE(i int, nllU float64) float64 { return tg.h.tokenCE(tg, i, nllU) }
