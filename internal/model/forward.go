package model

import (
	"fmt"

	"decoreg/internal/gemm"
	"decoreg/internal/nn"
)

// Batch is one mini-batch. X is always needed; the target field depends on
// the head.
type Batch struct {
	X      []float32 // (B, In) standardized features
	Tokens []int32   // decoder: (B, T) target tokens t_1..t_T
	Y      []float32 // pointwise, MDN and a decoder with AuxMSE: (B) targets t = u - 0.5
	Bins   []int32   // riemann: (B) bin index of each target, in [0, Bins)
	// Mask optionally holds the decoder's allowed-token masks (B, T, V),
	// as Masks fills them; it is used only when the loss is masked. When
	// nil, the masks are computed from the tokenization.
	Mask []bool
	// Soft, when not nil, holds the decoder's soft token targets (B, T, V)
	// (package head fills it when Cfg.SoftSigma > 0): each position's
	// distribution over the tokens, 0 where the mask excludes a token.
	// Backward then descends the cross-entropy against them instead of the
	// target tokens' NLL; Forward's loss stays the NLL.
	Soft []float32
	B    int // number of rows
	// DropSeed seeds Forward's dropout masks when Cfg.Dropout > 0 (the
	// mask of encoder layer l is nn.DropoutInPlace's with seed
	// DropSeed + l*0x632be59bd9b4e019); a training loop gives each step its own.
	// RowLosses, VisitLogits and inference never drop.
	DropSeed uint64
}

// check panics unless b holds what the model's head needs.
func (m *Model) check(b *Batch) {
	if b.B < 1 {
		panic("model: batch with B < 1")
	}
	if len(b.X) < b.B*m.Cfg.In {
		panic("model: Batch.X shorter than (B, In)")
	}
	switch m.Cfg.Head {
	case Decoder:
		if len(b.Tokens) < b.B*m.t {
			panic("model: Batch.Tokens shorter than (B, T)")
		}
		if b.Mask != nil && len(b.Mask) < b.B*m.t*m.v {
			panic("model: Batch.Mask shorter than (B, T, V)")
		}
		if m.Cfg.AuxMSE > 0 && len(b.Y) < b.B {
			panic("model: Batch.Y shorter than (B) for the decoder's auxiliary loss")
		}
	case Pointwise, MDN:
		if len(b.Y) < b.B {
			panic("model: Batch.Y shorter than (B)")
		}
	case Riemann:
		if len(b.Bins) < b.B {
			panic("model: Batch.Bins shorter than (B)")
		}
		for _, k := range b.Bins[:b.B] {
			if k < 0 || int(k) >= m.Cfg.Bins {
				panic(fmt.Sprintf("model: bin %d outside [0, %d)", k, m.Cfg.Bins))
			}
		}
	}
}

// Forward runs the model on b, keeps the activations for Backward and
// returns the mean loss over the batch: the decoder's cross-entropy summed
// over the T positions (masked when Cfg.MaskLoss), the Riemann and MDN
// negative log-likelihoods, or the pointwise squared error. A decoder's
// auxiliary term (Cfg.AuxMSE) is computed for Backward, which descends it
// too, but is not in the returned loss, which stays the NLL.
func (m *Model) Forward(b *Batch) float64 {
	m.thaw()
	m.check(b)
	if b.Soft != nil && len(b.Soft) < b.B*m.t*m.v {
		panic("model: Batch.Soft shorter than (B, T, V)")
	}
	m.ensure(b.B)
	m.forward(b, 0, b.B, m.Cfg.MaskLoss, true)
	a := &m.a
	var s float64
	if m.Cfg.Head == Decoder {
		for _, l := range a.losses[:b.B*m.t] {
			s += float64(l)
		}
	} else {
		for _, l := range a.hlosses[:b.B] {
			s += float64(l)
		}
	}
	return s / float64(b.B)
}

// RowLosses sets out[i] to the loss of row i of b, as Forward defines it,
// in float64: for the decoder -log P(t_1..t_T | x) in nats (with the
// softmax restricted to the allowed tokens when masked, whatever
// Cfg.MaskLoss says); for the Riemann and MDN heads the negative log
// density of the target in head units (u for Riemann, t = u - 0.5 for
// MDN); for the pointwise head the squared error. It works through b in
// chunks no larger than the training batch (at least 256 rows) and leaves
// no state for Backward.
func (m *Model) RowLosses(b *Batch, masked bool, out []float64) { m.rowLosses(b, masked, m.t, out) }

// RowPrefixLosses is RowLosses for a decoder, with out[i] the loss of the
// first n tokens of row i only, -log P(t_1..t_n | x), 0 <= n <= T (n = T
// gives RowLosses's value to the bit). It panics for another head.
func (m *Model) RowPrefixLosses(b *Batch, masked bool, n int, out []float64) {
	if m.Cfg.Head != Decoder {
		panic("model: RowPrefixLosses of a head without tokens")
	}
	if n < 0 || n > m.t {
		panic("model: RowPrefixLosses n outside [0, T]")
	}
	m.rowLosses(b, masked, n, out)
}

// VisitLogits runs the rows of b through a decoder as RowLosses does
// (teacher-forced, masked as RowLosses with masked) and calls visit for
// each row i and position k, in order, with the position's raw logits (V
// values), its mask (nil: every token allowed) and its target token; the
// slices are valid during the call only. It panics for another head.
func (m *Model) VisitLogits(b *Batch, masked bool, visit func(i, k int, logits []float32, mask []bool, target int)) {
	if m.Cfg.Head != Decoder {
		panic("model: VisitLogits of a head without tokens")
	}
	m.scoring.Lock()
	defer m.scoring.Unlock()
	m.check(b) // the packs stay: the parameters do not change, and inference may use them meanwhile
	chunk := max(m.a.bcap, 256)
	m.ensure(min(chunk, b.B))
	chunk = m.a.bcap
	T, V := m.t, m.v
	for lo := 0; lo < b.B; lo += chunk {
		hi := min(lo+chunk, b.B)
		m.forward(b, lo, hi, masked, false)
		a := &m.a
		for i := range hi - lo {
			for k := range T {
				n := i*T + k
				var mask []bool
				if a.lmask != nil {
					mask = a.lmask[n*V : (n+1)*V]
				}
				visit(lo+i, k, a.logits[n*V:(n+1)*V], mask, int(a.tokens[n]))
			}
		}
	}
	m.a.ready = false
}

// rowLosses is RowLosses, summing the first n positions of a decoder's
// rows.
func (m *Model) rowLosses(b *Batch, masked bool, n int, out []float64) {
	m.scoring.Lock()
	defer m.scoring.Unlock()
	m.check(b) // the packs stay: the parameters do not change, and inference may use them meanwhile
	if len(out) < b.B {
		panic("model: RowLosses out shorter than B")
	}
	chunk := max(m.a.bcap, 256)
	m.ensure(min(chunk, b.B))
	chunk = m.a.bcap
	for lo := 0; lo < b.B; lo += chunk {
		hi := min(lo+chunk, b.B)
		m.forward(b, lo, hi, masked, false)
		a := &m.a
		if m.Cfg.Head == Decoder {
			t := m.t
			for i := range hi - lo {
				var s float64
				for _, l := range a.losses[i*t : i*t+n] {
					s += float64(l)
				}
				out[lo+i] = s
			}
		} else {
			for i := range hi - lo {
				out[lo+i] = float64(a.hlosses[i])
			}
		}
	}
	m.a.ready = false
}

// forward runs rows [lo, hi) of b through the model into m.a.
func (m *Model) forward(b *Batch, lo, hi int, masked, train bool) {
	a, p := &m.a, &m.p
	B := hi - lo
	x := b.X[lo*m.Cfg.In : hi*m.Cfg.In]
	a.drop = 0
	if train {
		a.drop = m.Cfg.Dropout
	}
	phi := m.encode(x, B, b.DropSeed)
	a.ready, a.b, a.x = true, B, x
	switch m.Cfg.Head {
	case Decoder:
		T := m.t
		a.tokens = b.Tokens[lo*T : hi*T]
		a.soft = nil
		if b.Soft != nil { // Forward's (RowLosses reads none)
			a.soft = b.Soft[lo*T*m.v : hi*T*m.v]
		}
		a.lmask = nil
		if masked {
			if b.Mask != nil {
				a.lmask = b.Mask[lo*T*m.v : hi*T*m.v]
			} else {
				a.lmask = a.mask[:B*T*m.v]
				m.scratch.prefix, m.scratch.allowed = fillMasks(m.Cfg.Vocab, a.tokens, B, a.lmask, m.scratch.prefix, m.scratch.allowed)
			}
			if allTrue(a.lmask) {
				a.lmask = nil
			}
		}
		m.decoderForward(phi, B)
		if m.Cfg.AuxMSE > 0 {
			a.y = b.Y[lo:hi]
			nn.LinearForward(m.threads, a.hz, phi, p.aux.w, p.aux.b, B, m.w, 1)
			nn.MSEForward(a.hlosses, a.hz, a.y, B)
		}
	case Pointwise:
		a.y = b.Y[lo:hi]
		nn.LinearForward(m.threads, a.hz, phi, p.out.w, p.out.b, B, m.w, 1)
		pointwisePred(a.hpred[:B], a.hz[:B], m.Cfg.Sigmoid)
		nn.MSEForward(a.hlosses, a.hpred, a.y, B)
	case Riemann:
		a.bins = b.Bins[lo:hi]
		nn.LinearForward(m.threads, a.hz, phi, p.out.w, p.out.b, B, m.w, m.nout)
		nn.HistogramNLLForward(m.threads, a.hlosses, a.hprobs, a.hz, a.bins, B, m.nout)
	case MDN:
		a.y = b.Y[lo:hi]
		nn.LinearForward(m.threads, a.hz, phi, p.out.w, p.out.b, B, m.w, m.nout)
		nn.MDNForward(m.threads, a.hlosses, a.hcache, a.hz, a.y, B, m.Cfg.Components)
	}
}

// encode runs the encoder on x (B, In), writing the PLR embeddings (when
// the encoder has them) into m.a.plr and every layer's ReLU output (after
// dropout when m.a.drop > 0, with seed) into m.a.enc[l] (B, W), and
// returns phi = m.a.enc[last].
func (m *Model) encode(x []float32, B int, seed uint64) []float32 {
	a, p := &m.a, &m.p
	in, C := x, m.Cfg.In
	if m.Cfg.Encoder == PLREncoder {
		out := a.plr[:B*m.encIn]
		nn.PLRForward(m.threads, out, a.plrFeat, x, p.plrFreq, p.plrW, p.plrB, B, m.Cfg.In, m.Cfg.PLRFreqs, m.Cfg.PLRDim)
		reluInPlace(m.threads, out)
		in, C = out, m.encIn
	}
	for l := range p.enc {
		out := a.enc[l][:B*m.w]
		nn.LinearForward(m.threads, out, in, p.enc[l].w, p.enc[l].b, B, C, m.w)
		reluInPlace(m.threads, out)
		nn.DropoutInPlace(m.threads, out, a.drop, dropSeed(seed, l))
		in, C = out, m.w
	}
	return in
}

// dropSeed is the dropout seed of encoder layer l for a batch's seed.
func dropSeed(seed uint64, l int) uint64 { return seed + uint64(l)*0x632be59bd9b4e019 }

// pointwisePred sets pred = sigmoid(z) - 0.5 (or pred = z).
func pointwisePred(pred, z []float32, sigmoid bool) {
	if !sigmoid {
		copy(pred, z)
		return
	}
	for i, v := range z {
		pred[i] = sigmoid32(v) - 0.5
	}
}

// decoderForward runs the decoder head on phi (B, W) with the targets and
// masks already stored in m.a.
func (m *Model) decoderForward(phi []float32, B int) {
	a, p := &m.a, &m.p
	d, T, V := m.d, m.t, m.v
	N := B * T
	// position 0: inproj(phi); positions 1..T-1: wte(t_1..t_{T-1}); + wpe
	nn.LinearForward(m.threads, a.p, phi, p.inproj.w, p.inproj.b, B, m.w, d)
	tin := a.tin[:N]
	for i := range B {
		tin[i*T] = 0 // placeholder row, overwritten by p below
		copy(tin[i*T+1:(i+1)*T], a.tokens[i*T:(i+1)*T-1])
	}
	nn.EmbeddingForward(m.threads, a.x0, tin, p.wte, N, d)
	for i := range B {
		copy(a.x0[i*T*d:i*T*d+d], a.p[i*d:(i+1)*d])
	}
	nn.PositionalForward(m.threads, a.x0, p.wpe, B, T, d)
	x := a.x0[:N*d]
	for l := range a.blocks {
		m.blockForward(l, x, B)
		x = a.blocks[l].ln2[:N*d]
	}
	nn.LinearForward(m.threads, a.logits, x, p.out.w, p.out.b, N, d, V)
	nn.SoftmaxCrossEntropyForward(m.threads, a.losses, a.probs, a.logits, a.tokens, a.lmask, N, V)
}

// blockForward computes one post-LN block on x (B, T, d):
//
//	res1 = x + proj(attn(qkv(x)));  ln1 = LN1(res1)
//	res2 = ln1 + fc2(relu(fc(ln1))); ln2 = LN2(res2)
func (m *Model) blockForward(l int, x []float32, B int) {
	a, p := &m.a.blocks[l], &m.p.blocks[l]
	d, T, N := m.d, m.t, B*m.t
	nn.LinearForward(m.threads, a.qkv, x, p.qkv.w, p.qkv.b, N, d, 3*d)
	nn.AttentionForward(m.threads, a.atty, m.a.preatt, a.att, a.qkv, B, T, d, m.nh)
	linearResidual(m.threads, a.res1, x, a.atty, &p.proj, N, d, d)
	nn.LayerNormForward(m.threads, a.ln1, a.mean1, a.rstd1, a.res1, p.ln1w, p.ln1b, N, d, LNEps)
	nn.LinearForward(m.threads, a.fch, a.ln1, p.fc.w, p.fc.b, N, d, m.dff)
	reluInPlace(m.threads, a.fch[:N*m.dff])
	linearResidual(m.threads, a.res2, a.ln1, a.fch, &p.fc2, N, m.dff, d)
	nn.LayerNormForward(m.threads, a.ln2, a.mean2, a.rstd2, a.res2, p.ln2w, p.ln2b, N, d, LNEps)
}

// Backward accumulates into Grads the gradient of the mean loss of the
// last Forward. It panics if no Forward preceded it.
func (m *Model) Backward() {
	m.thaw()
	a, p, g := &m.a, &m.p, &m.g
	if !a.ready {
		panic("model: Backward without a preceding Forward")
	}
	a.ready = false
	// After ZeroGrad the Linear layers' gradients are overwritten
	// (nn.LinearBackward's addParams false), the others (LayerNorms,
	// embeddings: small, and added to by their backward passes) cleared
	// first.
	m.addLinear = !m.gradsZero
	if m.gradsZero {
		for i, e := range m.table {
			if e.init != initLinearW && e.init != initLinearB {
				clear(m.grads[m.info[i].Off : m.info[i].Off+m.info[i].Len])
			}
		}
		m.gradsZero = false
	}
	B := a.b
	inv := 1 / float32(B)
	dphi := a.denc[0][:B*m.w] // overwritten by the head's backward
	if m.encFrozen {
		dphi = nil // not needed: the encoder is left out
	}
	phi := a.enc[len(a.enc)-1][:B*m.w]
	switch m.Cfg.Head {
	case Decoder:
		m.decoderBackward(dphi, phi, B)
		if m.Cfg.AuxMSE > 0 {
			// The auxiliary read-out's squared error, weighted, added to
			// dphi (overwritten by the decoder's backward above).
			fill(a.hdlosses[:B], float32(m.Cfg.AuxMSE)*inv)
			nn.MSEBackward(a.hdz, a.hdlosses, a.hz, a.y, B)
			nn.LinearBackward(m.threads, dphi, g.aux.w, g.aux.b, a.hdz[:B], phi, p.aux.w, B, m.w, 1, true, m.addLinear)
		}
	case Pointwise:
		fill(a.hdlosses[:B], inv)
		nn.MSEBackward(a.hdpred, a.hdlosses, a.hpred, a.y, B)
		dz := a.hdz[:B]
		if m.Cfg.Sigmoid {
			for i, dp := range a.hdpred[:B] {
				s := a.hpred[i] + 0.5
				dz[i] = dp * s * (1 - s)
			}
		} else {
			copy(dz, a.hdpred[:B])
		}
		nn.LinearBackward(m.threads, dphi, g.out.w, g.out.b, dz, phi, p.out.w, B, m.w, 1, false, m.addLinear)
	case Riemann:
		fill(a.hdlosses[:B], inv)
		nn.HistogramNLLBackward(m.threads, a.hdz, a.hdlosses, a.hprobs, a.bins, B, m.nout)
		nn.LinearBackward(m.threads, dphi, g.out.w, g.out.b, a.hdz, phi, p.out.w, B, m.w, m.nout, false, m.addLinear)
	case MDN:
		fill(a.hdlosses[:B], inv)
		nn.MDNBackward(m.threads, a.hdz, a.hdlosses, a.hcache, a.hz, a.y, B, m.Cfg.Components)
		nn.LinearBackward(m.threads, dphi, g.out.w, g.out.b, a.hdz, phi, p.out.w, B, m.w, m.nout, false, m.addLinear)
	}
	if !m.encFrozen {
		m.encoderBackward(B)
	}
}

// encoderBackward backpropagates the gradient of phi held in a.denc[0].
func (m *Model) encoderBackward(B int) {
	a, p, g := &m.a, &m.p, &m.g
	W := m.w
	cur := 0
	for l := len(p.enc) - 1; l >= 0; l-- {
		dout := a.denc[cur][:B*W]
		reluMask(m.threads, dout, a.enc[l][:B*W])
		nn.DropoutScale(m.threads, dout, a.drop)
		in, C := a.x, m.Cfg.In
		var din []float32
		switch {
		case l > 0:
			in, C = a.enc[l-1][:B*W], W
			din = a.denc[1-cur][:B*W]
		case m.Cfg.Encoder == PLREncoder:
			in, C = a.plr[:B*m.encIn], m.encIn
			din = a.dplr[:B*m.encIn]
		}
		nn.LinearBackward(m.threads, din, g.enc[l].w, g.enc[l].b, dout, in, p.enc[l].w, B, C, W, false, m.addLinear)
		cur = 1 - cur
	}
	if m.Cfg.Encoder == PLREncoder {
		// The PLR gradients are added to (cleared by Backward after ZeroGrad).
		dout := a.dplr[:B*m.encIn]
		reluMask(m.threads, dout, a.plr[:B*m.encIn])
		nn.PLRBackward(m.threads, nil, g.plrFreq, g.plrW, g.plrB, a.plrDFeat, dout, a.plrFeat, a.x, p.plrFreq, p.plrW,
			B, m.Cfg.In, m.Cfg.PLRFreqs, m.Cfg.PLRDim)
	}
}

// decoderBackward backpropagates the decoder head's mean loss, writing the
// gradient of phi (B, W) into dphi.
func (m *Model) decoderBackward(dphi, phi []float32, B int) {
	a, p, g := &m.a, &m.p, &m.g
	d, T, V := m.d, m.t, m.v
	N := B * T
	fill(a.dlosses[:N], 1/float32(B))
	if a.soft != nil {
		nn.SoftCrossEntropyBackward(m.threads, a.dlogits, a.dlosses, a.probs, a.soft, N, V)
	} else {
		nn.SoftmaxCrossEntropyBackward(m.threads, a.dlogits, a.dlosses, a.probs, a.tokens, N, V)
	}
	L := len(a.blocks)
	cur := 0
	dx := a.dx[cur][:N*d]
	nn.LinearBackward(m.threads, dx, g.out.w, g.out.b, a.dlogits, a.blocks[L-1].ln2, p.out.w, N, d, V, false, m.addLinear)
	for l := L - 1; l >= 0; l-- {
		x := a.x0[:N*d]
		if l > 0 {
			x = a.blocks[l-1].ln2[:N*d]
		}
		din := a.dx[1-cur][:N*d]
		m.blockBackward(l, din, a.dx[cur][:N*d], x, B)
		cur = 1 - cur
	}
	dx0 := a.dx[cur][:N*d]
	nn.PositionalBackward(m.threads, g.wpe, dx0, B, T, d)
	for i := range B {
		// position 0 came from p, not from the placeholder token: move its
		// gradient to dp and leave 0 for EmbeddingBackward to add
		row := dx0[i*T*d : i*T*d+d]
		copy(a.dp[i*d:(i+1)*d], row)
		clear(row)
	}
	nn.EmbeddingBackward(m.threads, g.wte, dx0, a.tin[:N], N, d)
	nn.LinearBackward(m.threads, dphi, g.inproj.w, g.inproj.b, a.dp, phi, p.inproj.w, B, m.w, d, false, m.addLinear)
}

// blockBackward sets din (N, d) to the gradient of block l's input x given
// dout, the gradient of its output; it overwrites din.
func (m *Model) blockBackward(l int, din, dout, x []float32, B int) {
	ac, a, p, g := &m.a, &m.a.blocks[l], &m.p.blocks[l], &m.g.blocks[l]
	d, T, N, F := m.d, m.t, B*m.t, m.dff
	// ln2 = LN2(res2)
	dres2 := ac.dres[:N*d]
	nn.LayerNormBackward(m.threads, dres2, g.ln2w, g.ln2b, dout, a.res2, p.ln2w, a.mean2, a.rstd2, N, d)
	// res2 = ln1 + fc2(fch): dln1 = dres2 + fc's input gradient
	dfch := ac.dfch[:N*F]
	nn.LinearBackward(m.threads, dfch, g.fc2.w, g.fc2.b, dres2, a.fch, p.fc2.w, N, F, d, false, m.addLinear)
	reluMask(m.threads, dfch, a.fch[:N*F])
	dln1 := ac.dln1[:N*d]
	copy(dln1, dres2)
	nn.LinearBackward(m.threads, dln1, g.fc.w, g.fc.b, dfch, a.ln1, p.fc.w, N, d, F, true, m.addLinear)
	// ln1 = LN1(res1), res1 = x + proj(atty): din = dres1 + qkv's input gradient
	nn.LayerNormBackward(m.threads, din, g.ln1w, g.ln1b, dln1, a.res1, p.ln1w, a.mean1, a.rstd1, N, d)
	datty := ac.datty[:N*d]
	nn.LinearBackward(m.threads, datty, g.proj.w, g.proj.b, din, a.atty, p.proj.w, N, d, d, false, m.addLinear)
	dqkv := ac.dqkv[:N*3*d]
	nh := m.nh
	nn.AttentionBackward(m.threads, dqkv, ac.dpreatt, ac.datt, datty, a.qkv, a.att, B, T, d, nh)
	nn.LinearBackward(m.threads, din, g.qkv.w, g.qkv.b, dqkv, x, p.qkv.w, N, d, 3*d, true, m.addLinear)
}

// reluInPlace sets s[i] = max(s[i], 0) (a NaN stays NaN), branch-free.
func reluInPlace(threads int, s []float32) { nn.ReLUInPlace(threads, s) }

// reluMask sets dout[i] = 0 where out[i] <= 0 (the ReLU backward, in
// place), branch-free.
func reluMask(threads int, dout, out []float32) { nn.ReLUMask(threads, dout, out) }

// linearResidual computes out = res + in · wᵀ + b: nn.LinearForward with
// the residual added in the same pass that writes the bias.
//
//	out, res (N, OC), in (N, C), w (OC, C), b (OC).
func linearResidual(threads int, out, res, in []float32, l *linear, N, C, OC int) {
	w, b := l.w, l.b
	nn.AddRows(out, res, b, N, OC)
	if l.pw != nil {
		gemm.SgemmPacked(threads, false, N, 1, in, C, l.pw, 1, out, OC)
		return
	}
	gemm.Sgemm(threads, false, true, N, OC, C, 1, in, C, w, C, 1, out, OC)
}

func fill(s []float32, v float32) {
	for i := range s {
		s[i] = v
	}
}

func allTrue(s []bool) bool {
	for _, v := range s {
		if !v {
			return false
		}
	}
	return true
}
