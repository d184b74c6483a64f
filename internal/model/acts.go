package model

import "decoreg/internal/nn"

// carver hands out consecutive views of one block. In counting mode (buf
// nil) it only adds up the sizes, so one layout function serves both to
// size the block and to carve it.
type carver struct {
	buf []float32
	n   int
}

func (c *carver) take(n int) []float32 {
	if c.buf == nil {
		c.n += n
		return nil
	}
	s := c.buf[c.n : c.n+n : c.n+n]
	c.n += n
	return s
}

// blockActs are what one decoder block's forward keeps for backward.
// N = B*T rows.
type blockActs struct {
	qkv   []float32 // (N, 3d) = [q | k | v]
	att   []float32 // (B, H, T, T) attention weights
	atty  []float32 // (N, d) attention output before the projection
	res1  []float32 // (N, d) x + proj(atty)
	ln1   []float32 // (N, d) LN1(res1)
	mean1 []float32 // (N)
	rstd1 []float32 // (N)
	fch   []float32 // (N, dff) ReLU(fc(ln1))
	res2  []float32 // (N, d) ln1 + fc2(fch)
	ln2   []float32 // (N, d) LN2(res2), the block's output
	mean2 []float32 // (N)
	rstd2 []float32 // (N)
}

// acts are the training activations and their gradients for up to bcap
// rows (B = batch size, N = B*T, W = EncWidth).
type acts struct {
	bcap int
	buf  []float32

	// PLR encoder (F = In features, K frequencies, D outputs each)
	plr      []float32 // (B, F*D) ReLU outputs, the MLP's input
	plrFeat  []float32 // (B, F*2K) periodic features
	dplr     []float32 // (B, F*D)
	plrDFeat []float32 // (B, F*2K) scratch of the backward pass

	enc  [][]float32  // EncLayers x (B, W): ReLU outputs; phi = enc[last]
	denc [2][]float32 // (B, W) ping-pong gradients of encoder outputs

	// decoder head
	p       []float32 // (B, d) projected phi
	dp      []float32 // (B, d)
	x0      []float32 // (B, T, d) block input: [p | wte(t_1..t_{T-1})] + wpe
	blocks  []blockActs
	preatt  []float32    // (B, H, T, T) scratch for every layer
	logits  []float32    // (N, V)
	probs   []float32    // (N, V)
	losses  []float32    // (N) per-position cross-entropy
	dlogits []float32    // (N, V)
	dlosses []float32    // (N)
	dx      [2][]float32 // (N, d) ping-pong gradients of block outputs
	dres    []float32    // (N, d) gradient of res2, then of res1
	dln1    []float32    // (N, d)
	dfch    []float32    // (N, dff)
	datty   []float32    // (N, d)
	dqkv    []float32    // (N, 3d)
	dpreatt []float32    // (B, H, T, T)
	datt    []float32    // (B, H, T, T)
	mask    []bool       // (N, V) allowed-token masks
	tin     []int32      // (B, T) block input tokens: [placeholder 0 | t_1..t_{T-1}]

	// other heads (nout = 1, Bins or 3M)
	hz       []float32 // (B, nout) head Linear output
	hpred    []float32 // (B) pointwise prediction (sigmoid(z)-0.5 or z)
	hprobs   []float32 // (B, Bins) riemann probabilities
	hcache   []float32 // mdn cache
	hlosses  []float32 // (B)
	hdlosses []float32 // (B)
	hdz      []float32 // (B, nout)
	hdpred   []float32 // (B)

	// the batch of the last Forward, for Backward
	ready  bool
	b      int
	x      []float32
	tokens []int32
	soft   []float32 // soft token targets of the last forward (Cfg.SoftSigma > 0), or nil
	y      []float32
	bins   []int32
	lmask  []bool  // mask used by the last forward, or nil
	drop   float64 // the encoder's dropout probability in the last forward (0 outside Forward)
}

// layout carves (or, when counting, measures) every buffer for bc rows.
func (a *acts) layout(m *Model, c *carver, bc int) {
	if m.Cfg.Encoder == PLREncoder {
		F, K := m.Cfg.In, m.Cfg.PLRFreqs
		a.plr = c.take(bc * m.encIn)
		a.plrFeat = c.take(bc * F * 2 * K)
		a.dplr = c.take(bc * m.encIn)
		a.plrDFeat = c.take(bc * F * 2 * K)
	}
	a.enc = a.enc[:0]
	for range m.Cfg.EncLayers {
		a.enc = append(a.enc, c.take(bc*m.w))
	}
	a.denc[0] = c.take(bc * m.w)
	a.denc[1] = c.take(bc * m.w)
	switch m.Cfg.Head {
	case Decoder:
		d, t, v, nh, n := m.d, m.t, m.v, m.nh, bc*m.t
		a.p = c.take(bc * d)
		a.dp = c.take(bc * d)
		a.x0 = c.take(n * d)
		a.blocks = a.blocks[:0]
		for range m.Cfg.DecLayers {
			a.blocks = append(a.blocks, blockActs{
				qkv: c.take(n * 3 * d), att: c.take(bc * nh * t * t), atty: c.take(n * d),
				res1: c.take(n * d), ln1: c.take(n * d), mean1: c.take(n), rstd1: c.take(n),
				fch:  c.take(n * m.dff),
				res2: c.take(n * d), ln2: c.take(n * d), mean2: c.take(n), rstd2: c.take(n),
			})
		}
		a.preatt = c.take(bc * nh * t * t)
		a.logits = c.take(n * v)
		a.probs = c.take(n * v)
		a.losses = c.take(n)
		a.dlogits = c.take(n * v)
		a.dlosses = c.take(n)
		a.dx[0] = c.take(n * d)
		a.dx[1] = c.take(n * d)
		a.dres = c.take(n * d)
		a.dln1 = c.take(n * d)
		a.dfch = c.take(n * m.dff)
		a.datty = c.take(n * d)
		a.dqkv = c.take(n * 3 * d)
		a.dpreatt = c.take(bc * nh * t * t)
		a.datt = c.take(bc * nh * t * t)
		if c.buf != nil {
			a.mask = make([]bool, n*v)
			a.tin = make([]int32, n)
		}
		if m.Cfg.AuxMSE > 0 {
			a.hz = c.take(bc)
			a.hlosses = c.take(bc)
			a.hdlosses = c.take(bc)
			a.hdz = c.take(bc)
		}
	default:
		no := m.nout
		a.hz = c.take(bc * no)
		a.hpred = c.take(bc)
		a.hlosses = c.take(bc)
		a.hdlosses = c.take(bc)
		a.hdz = c.take(bc * no)
		a.hdpred = c.take(bc)
		if m.Cfg.Head == Riemann {
			a.hprobs = c.take(bc * no)
		}
		if m.Cfg.Head == MDN {
			a.hcache = c.take(nn.MDNCacheLen(bc, m.Cfg.Components))
		}
	}
}

// ensure grows the activations to hold at least b rows.
func (m *Model) ensure(b int) {
	a := &m.a
	if b <= a.bcap {
		return
	}
	var c carver
	a.layout(m, &c, b)
	c = carver{buf: make([]float32, c.n)}
	a.layout(m, &c, b)
	a.buf = c.buf
	a.bcap = b
	a.ready = false
}
