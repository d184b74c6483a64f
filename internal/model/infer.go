package model

import (
	"math"

	"decoreg/internal/nn"
)

// encChunk is the number of rows Encode pushes through the encoder at a
// time, which bounds its scratch memory.
const encChunk = 256

// Encode computes phi (B, EncWidth) for the standardized inputs x (B, In).
// It reads only the parameters and may run concurrently with other
// inference calls.
func (m *Model) Encode(x []float32, B int, phi []float32) {
	W, In := m.w, m.Cfg.In
	if len(x) < B*In {
		panic("model: Encode x shorter than (B, In)")
	}
	if len(phi) < B*W {
		panic("model: Encode phi shorter than (B, EncWidth)")
	}
	L := len(m.p.enc)
	var h [2][]float32
	if L > 1 {
		c := min(B, encChunk)
		h[0] = make([]float32, c*W)
		if L > 2 {
			h[1] = make([]float32, c*W)
		}
	}
	plr := m.Cfg.Encoder == PLREncoder
	var pout, pfeat []float32
	if plr {
		c := min(B, encChunk)
		pout, pfeat = make([]float32, c*m.encIn), make([]float32, c*In*2*m.Cfg.PLRFreqs)
	}
	for lo := 0; lo < B; lo += encChunk {
		n := min(encChunk, B-lo)
		in, C := x[lo*In:(lo+n)*In], In
		if plr {
			out := pout[:n*m.encIn]
			nn.PLRForward(m.threads, out, pfeat, in, m.p.plrFreq, m.p.plrW, m.p.plrB, n, In, m.Cfg.PLRFreqs, m.Cfg.PLRDim)
			reluInPlace(m.threads, out)
			in, C = out, m.encIn
		}
		for l := range L {
			out := phi[lo*W : (lo+n)*W]
			if l < L-1 {
				out = h[l%2][:n*W]
			}
			m.p.enc[l].infer(m.threads, out, in, n, C, W)
			reluInPlace(m.threads, out)
			in, C = out, W
		}
	}
}

// HeadOutputs computes the head's outputs from phi (B, EncWidth) into out:
// pointwise (B) predictions in head units (t = u - 0.5); riemann (B, Bins)
// bin probabilities; mdn (B, 3M) rows [weights | means | sds] with the
// weights softmaxed and sd = ELU(raw) + 1 + nn.MDNStdEps. It panics for the
// decoder head (use Decoder).
func (m *Model) HeadOutputs(phi []float32, B int, out []float32) {
	no := m.nout
	if m.Cfg.Head == Decoder {
		panic("model: HeadOutputs on a decoder head")
	}
	if len(phi) < B*m.w {
		panic("model: HeadOutputs phi shorter than (B, EncWidth)")
	}
	if len(out) < B*no {
		panic("model: HeadOutputs out shorter than (B, OutWidth)")
	}
	m.p.out.infer(m.threads, out, phi, B, m.w, no)
	switch m.Cfg.Head {
	case Pointwise:
		if m.Cfg.Sigmoid {
			for i, z := range out[:B] {
				out[i] = sigmoid32(z) - 0.5
			}
		}
	case Riemann:
		for i := range B {
			softmaxInPlace(out[i*no : (i+1)*no])
		}
	case MDN:
		M := m.Cfg.Components
		for i := range B {
			row := out[i*no : (i+1)*no]
			softmaxInPlace(row[:M])
			for j, r := range row[2*M:] {
				row[2*M+j] = mdnSd(r)
			}
		}
	}
}

// HeadLogits computes the Riemann head's raw logits (B, Bins) from phi
// (B, EncWidth) into out: HeadOutputs before its softmax, for callers that
// rescale them (a temperature) without the float32 probabilities'
// underflow. It panics for other heads.
func (m *Model) HeadLogits(phi []float32, B int, out []float32) {
	if m.Cfg.Head != Riemann {
		panic("model: HeadLogits on a " + m.Cfg.Head.String() + " head")
	}
	if len(phi) < B*m.w || len(out) < B*m.nout {
		panic("model: HeadLogits phi or out too short")
	}
	m.p.out.infer(m.threads, out, phi, B, m.w, m.nout)
}

// softmaxInPlace replaces s by softmax(s), with float64 sums.
func softmaxInPlace(s []float32) {
	mx := float32(math.Inf(-1))
	for _, v := range s {
		mx = max(mx, v)
	}
	var sum float64
	for i, v := range s {
		e := math.Exp(float64(v - mx))
		s[i] = float32(e)
		sum += e
	}
	inv := 1 / sum
	for i, v := range s {
		s[i] = float32(float64(v) * inv)
	}
}

// mdnSd is the MDN's standard deviation ELU(raw) + 1 + nn.MDNStdEps.
func mdnSd(raw float32) float32 {
	r := float64(raw)
	if r > 0 {
		return float32(r + 1 + nn.MDNStdEps)
	}
	return float32(math.Exp(r) + nn.MDNStdEps)
}
