package decoreg

import (
	"fmt"
	"math"

	imodel "decoreg/internal/model"
)

// targets holds every row's training target in the head's own form.
type targets struct {
	head    Head
	T, V    int
	tokens  []int32   // (rows, T) decoder token sequences
	mask    []bool    // (rows, T, V) allowed tokens along each sequence (decoder)
	logW    []float64 // (rows) log width of the row's cell in head units (decoder)
	y       []float32 // (rows) head-unit targets (pointwise, MDN)
	bins    []int32   // (rows) bin indices (Riemann)
	masked  bool      // train with the allowed-token masks
	clipped int       // targets outside the training range, clipped to it
}

// targets converts y to the head's targets, clipping values outside the
// training range to it (and counting them).
func (m *Model) targets(y []float64) (*targets, error) {
	tg := &targets{head: m.cfg.Head, masked: !m.cfg.UnmaskedLoss}
	n := len(y)
	switch m.cfg.Head {
	case HeadDecoder:
		tg.T, tg.V = m.tok.Len(), m.tok.Size()
		tg.tokens = make([]int32, n*tg.T)
		tg.mask = make([]bool, n*tg.T*tg.V)
		tg.logW = make([]float64, n)
	case HeadPointwise, HeadMDN:
		tg.y = make([]float32, n)
	case HeadRiemann:
		tg.bins = make([]int32, n)
	}
	var allowed []int
	for i, v := range y {
		u := m.toU(v)
		if u < 0 || u > 1 {
			tg.clipped++
			u = min(max(u, 0), 1)
		}
		t := m.uToHead(u)
		switch m.cfg.Head {
		case HeadDecoder:
			toks, _, err := m.tok.Encode(t)
			if err != nil {
				return nil, fmt.Errorf("decoreg: encoding target %v of row %d: %w", v, i, err)
			}
			cell, err := m.tok.Decode(toks)
			if err != nil {
				return nil, fmt.Errorf("decoreg: decoding target %v of row %d: %w", v, i, err)
			}
			tg.logW[i] = math.Log(cell.Width())
			for p, tk := range toks {
				tg.tokens[i*tg.T+p] = int32(tk)
				allowed = m.tok.Allowed(allowed[:0], toks[:p])
				row := tg.mask[(i*tg.T+p)*tg.V : (i*tg.T+p+1)*tg.V]
				for _, a := range allowed {
					row[a] = true
				}
			}
		case HeadPointwise, HeadMDN:
			tg.y[i] = float32(t)
		case HeadRiemann:
			tg.bins[i] = int32(min(int(u*float64(m.cfg.Bins)), m.cfg.Bins-1))
		}
	}
	return tg, nil
}

// newBatch allocates a batch of up to n rows.
func (tg *targets) newBatch(n, cols int) *imodel.Batch {
	b := &imodel.Batch{X: make([]float32, n*cols)}
	switch tg.head {
	case HeadDecoder:
		b.Tokens = make([]int32, n*tg.T)
		b.Mask = make([]bool, n*tg.T*tg.V)
	case HeadPointwise, HeadMDN:
		b.Y = make([]float32, n)
	case HeadRiemann:
		b.Bins = make([]int32, n)
	}
	return b
}

// fill gathers rows idx of xs and of the targets into b.
func (tg *targets) fill(b *imodel.Batch, xs []float32, cols int, idx []int) {
	b.B = len(idx)
	for k, i := range idx {
		copy(b.X[k*cols:(k+1)*cols], xs[i*cols:(i+1)*cols])
		switch tg.head {
		case HeadDecoder:
			copy(b.Tokens[k*tg.T:(k+1)*tg.T], tg.tokens[i*tg.T:(i+1)*tg.T])
			tv := tg.T * tg.V
			copy(b.Mask[k*tv:(k+1)*tv], tg.mask[i*tv:(i+1)*tv])
		case HeadPointwise, HeadMDN:
			b.Y[k] = tg.y[i]
		case HeadRiemann:
			b.Bins[k] = tg.bins[i]
		}
	}
	b.X = b.X[:len(idx)*cols]
	if tg.head == HeadDecoder {
		b.Tokens = b.Tokens[:len(idx)*tg.T]
		b.Mask = b.Mask[:len(idx)*tg.T*tg.V]
	}
}

// rowNLL writes each row's loss for rows idx: the NLL in normalized units u
// for density heads (masked probabilities), the squared error in head units
// for the pointwise head.
func (m *Model) rowNLL(tg *targets, xs []float32, cols int, idx []int, out []float64) {
	const chunk = 1024
	b := tg.newBatch(min(chunk, len(idx)), cols)
	for lo := 0; lo < len(idx); lo += chunk {
		part := idx[lo:min(lo+chunk, len(idx))]
		tg.fill(b, xs, cols, part)
		o := out[lo : lo+len(part)]
		m.net.RowLosses(b, true, o)
		if tg.head == HeadDecoder {
			for k, i := range part {
				o[k] += tg.logW[i] - m.logTPerU()
			}
		}
	}
}

// meanLoss is the mean of rowNLL over rows idx.
func (m *Model) meanLoss(tg *targets, xs []float32, cols int, idx []int) float64 {
	out := make([]float64, len(idx))
	m.rowNLL(tg, xs, cols, idx, out)
	var s float64
	for _, v := range out {
		s += v
	}
	return s / float64(len(idx))
}
