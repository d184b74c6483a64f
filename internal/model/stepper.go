package model

import (
	"fmt"

	"decoreg/dist"
	"decoreg/internal/nn"
)

// decoder is the dist.Decoder of one input: the projected phi(x).
type decoder struct {
	m       *Model
	p       []float32 // (d) inproj(phi(x))
	threads int       // goroutines per step
}

// Decoder returns the key/value-cached decoder of one input whose encoding
// is phiRow (EncWidth values, as Encode writes them). The projection of phi
// is computed once here; every Stepper it starts shares it. It panics for
// heads other than the decoder.
func (m *Model) Decoder(phiRow []float32) dist.Decoder { return m.DecoderThreads(phiRow, 0) }

// DecoderThreads is Decoder whose Steppers use threads goroutines per
// step (0: the model's Threads). Callers that decode many rows in
// parallel pass 1: the steps of one row are too small to share.
func (m *Model) DecoderThreads(phiRow []float32, threads int) dist.Decoder {
	if m.Cfg.Head != Decoder {
		panic("model: Decoder on a " + m.Cfg.Head.String() + " head")
	}
	if len(phiRow) < m.w {
		panic("model: Decoder phiRow shorter than EncWidth")
	}
	if threads <= 0 {
		threads = m.threads
	}
	p := make([]float32, m.d)
	m.p.inproj.infer(threads, p, phiRow, 1, m.w, m.d)
	return &decoder{m: m, p: p, threads: threads}
}

// Start returns a Stepper over n empty sequences. Its buffers come from
// the model's pool of released Steppers when one is there.
func (dc *decoder) Start(n int) dist.Stepper {
	if n < 0 {
		panic("model: Start with n < 0")
	}
	m := dc.m
	s, _ := m.steppers.Get().(*stepper)
	if s == nil {
		s = &stepper{m: m}
		for range m.Cfg.DecLayers {
			s.caches = append(s.caches, nn.NewKVCache(n, m.t, m.d, m.nh))
		}
	} else {
		for _, c := range s.caches {
			c.Restart(n)
		}
	}
	s.p, s.n, s.pos, s.threads = dc.p, n, 0, dc.threads
	s.grow(n)
	return s
}

// StartJoint implements dist.JointDecoder: a Stepper over len(decs)
// sequences, sequence i starting from decs[i]'s projected encoding. It
// returns nil unless every decs[i] is a decoder of this model. Each
// sequence's logits are those of its own decoder's Stepper bit for bit:
// every operation of a step is computed row by row in a fixed order
// (gemm's tiles see the same operations whatever the number of rows).
func (dc *decoder) StartJoint(decs []dist.Decoder) dist.Stepper {
	d := dc.m.d
	p0 := make([]float32, len(decs)*d)
	for i, x := range decs {
		o, ok := x.(*decoder)
		if !ok || o.m != dc.m {
			return nil
		}
		copy(p0[i*d:(i+1)*d], o.p)
	}
	s := dc.Start(len(decs)).(*stepper)
	s.p0 = p0
	return s
}

// JointKey implements dist.JointDecoder: decoders of one model share
// Steppers.
func (dc *decoder) JointKey() any { return dc.m }

// Release hands the Stepper's buffers back to its model for a later
// Start; the Stepper must not be used afterwards. The distributions of
// package dist call it when they are done with a Stepper.
func (s *stepper) Release() {
	s.p, s.p0 = nil, nil
	s.m.steppers.Put(s)
}

// stepper decodes n sequences of one input in lock step. Each Step is one
// incremental pass: the new position's q, k, v, attention against the
// cached keys and values of the earlier positions, and the rest of the
// block on n rows.
type stepper struct {
	m       *Model
	p       []float32 // (d) position 0's input before wpe
	p0      []float32 // (n, d) each sequence's, when they differ (StartJoint)
	n       int       // sequences
	pos     int       // positions consumed so far
	threads int       // goroutines per step
	caches  []*nn.KVCache

	ncap int
	x    []float32 // (n, d) the running row of each sequence
	qkv  []float32 // (n, 3d)
	atty []float32 // (n, d)
	res  []float32 // (n, d)
	ln1  []float32 // (n, d)
	fch  []float32 // (n, dff)
	mean []float32 // (n)
	rstd []float32 // (n)
	tok  []int32   // (n)
}

func (s *stepper) grow(n int) {
	if n <= s.ncap && s.x != nil {
		return
	}
	m := s.m
	d := m.d
	buf := make([]float32, n*(7*d+m.dff+2))
	take := func(k int) []float32 {
		v := buf[:k:k]
		buf = buf[k:]
		return v
	}
	s.x, s.qkv, s.atty, s.res, s.ln1 = take(n*d), take(n*3*d), take(n*d), take(n*d), take(n*d)
	s.fch, s.mean, s.rstd = take(n*m.dff), take(n), take(n)
	s.tok = make([]int32, n)
	s.ncap = n
}

// N is the number of sequences.
func (s *stepper) N() int { return s.n }

// Step appends tokens[i] to sequence i (tokens nil on the first call, which
// consumes position 0) and writes the next-token logits (N, V) into logits.
func (s *stepper) Step(tokens []int, logits []float32) {
	m := s.m
	d, n, V := m.d, s.n, m.v
	if s.pos >= m.t {
		panic(fmt.Sprintf("model: Step past the sequence length %d", m.t))
	}
	if len(logits) < n*V {
		panic("model: Step logits shorter than (N, V)")
	}
	// Position 0 is the same phi(x) in every sequence: run it on one row
	// and broadcast (its k and v still go into every sequence's cache);
	// a joint Stepper's sequences each have their own.
	rows := n
	x := s.x[:n*d]
	if s.pos == 0 {
		if tokens != nil {
			panic("model: the first Step takes nil tokens")
		}
		if s.p0 != nil {
			copy(x, s.p0[:n*d])
		} else {
			rows = min(n, 1)
			copy(x[:rows*d], s.p)
		}
	} else {
		if len(tokens) < n {
			panic("model: Step tokens shorter than N")
		}
		for i, t := range tokens[:n] {
			if t < 0 || t >= V {
				panic(fmt.Sprintf("model: Step token %d outside [0, %d)", t, V))
			}
			s.tok[i] = int32(t)
		}
		nn.EmbeddingForward(s.threads, x, s.tok, m.p.wte, n, d)
	}
	nn.PositionalForward(s.threads, x, m.p.wpe[s.pos*d:], rows, 1, d)
	for l := range s.caches {
		s.block(l, rows)
	}
	m.p.out.infer(s.threads, logits, x, rows, d, V)
	broadcast(logits[:n*V], rows, V)
	s.pos++
}

// broadcast copies row 0 of buf (rows of width w) to every row when
// rows == 1; it does nothing when rows > 1.
func broadcast(buf []float32, rows, w int) {
	if rows != 1 {
		return
	}
	for i := w; i < len(buf); i += w {
		copy(buf[i:i+w], buf[:w])
	}
}

// block runs decoder block l on the new position of every sequence,
// updating s.x in place. Only the first rows rows are computed (rows = 1
// broadcasts row 0 to the cache of every sequence).
func (s *stepper) block(l, rows int) {
	m, p := s.m, &s.m.p.blocks[l]
	d, F := m.d, m.dff
	x := s.x[:rows*d]
	p.qkv.infer(s.threads, s.qkv, x, rows, d, 3*d)
	broadcast(s.qkv[:s.n*3*d], rows, 3*d)
	s.caches[l].Step(s.threads, s.atty, s.qkv)
	res := s.res[:rows*d]
	linearResidual(s.threads, res, x, s.atty, &p.proj, rows, d, d)
	nn.LayerNormForward(s.threads, s.ln1, s.mean, s.rstd, res, p.ln1w, p.ln1b, rows, d, LNEps)
	p.fc.infer(s.threads, s.fch, s.ln1, rows, d, F)
	reluInPlace(s.threads, s.fch[:rows*F])
	linearResidual(s.threads, res, s.ln1, s.fch, &p.fc2, rows, F, d)
	nn.LayerNormForward(s.threads, x, s.mean, s.rstd, res, p.ln2w, p.ln2b, rows, d, LNEps)
}

// Keep reorders the batch: afterwards sequence i is the old sequence
// idx[i]; len(idx) may differ from N.
func (s *stepper) Keep(idx []int) {
	for _, j := range idx {
		if j < 0 || j >= s.n {
			panic(fmt.Sprintf("model: Keep index %d outside [0, %d)", j, s.n))
		}
	}
	for _, c := range s.caches {
		c.Keep(idx)
	}
	s.n = len(idx)
	s.grow(s.n)
}
