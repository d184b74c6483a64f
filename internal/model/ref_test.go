package model

import (
	"fmt"
	"math"
	"strconv"

	"decoreg/internal/nn"
	"decoreg/vocab"
)

// toyTok is a test tokenization with constraints that depend on the whole
// prefix: after prefix p, token v is allowed when (v + sum(p) + len(p)) % 3
// != 0, so every position has a different, non-trivial allowed set.
// With constrained=false every token is allowed (like a Normalized one).
type toyTok struct {
	v, t        int
	constrained bool
}

func (k toyTok) Spec() string                     { return fmt.Sprintf("toy:v=%d,t=%d", k.v, k.t) }
func (k toyTok) Size() int                        { return k.v }
func (k toyTok) Len() int                         { return k.t }
func (k toyTok) TokenString(t int) string         { return strconv.Itoa(t) }
func (k toyTok) ParseToken(s string) (int, error) { return strconv.Atoi(s) }

func (k toyTok) Encode(v float64) ([]int, bool, error) {
	return nil, false, fmt.Errorf("toy: no Encode")
}

func (k toyTok) Decode(tokens []int) (vocab.Cell, error) {
	return vocab.Cell{}, fmt.Errorf("toy: no Decode")
}

func (k toyTok) Allowed(dst []int, prefix []int) []int {
	s := len(prefix)
	for _, p := range prefix {
		s += p
	}
	for v := range k.v {
		if !k.constrained || (v+s)%3 != 0 {
			dst = append(dst, v)
		}
	}
	return dst
}

// The float64 reference below restates the architecture from the package
// documentation (and the PyTorch peer's model.py) with plain loops, reading
// the parameters through the model's tensor table by name only.

type refParams struct {
	m    *Model
	p    []float64
	offs map[string]Tensor
	// train, with Cfg.Dropout > 0, makes phi drop as Forward does: the
	// masks of batch seed seed, for row row of the batch.
	train bool
	seed  uint64
	row   int
}

func (r refParams) get(name string) []float64 {
	t, ok := r.offs[name]
	if !ok {
		panic("ref: no tensor " + name)
	}
	return r.p[t.Off : t.Off+t.Len]
}

func newRef(m *Model, p []float64) refParams {
	offs := map[string]Tensor{}
	for _, t := range m.Tensors() {
		offs[t.Name] = t
	}
	return refParams{m: m, p: p, offs: offs}
}

// lin returns W x + b for W (out, in).
func (r refParams) lin(name string, x []float64) []float64 {
	w, b := r.get(name+".w"), r.get(name+".b")
	out := make([]float64, len(b))
	for o := range out {
		s := b[o]
		for i, xi := range x {
			s += w[o*len(x)+i] * xi
		}
		out[o] = s
	}
	return out
}

func relu64(x []float64) []float64 {
	for i, v := range x {
		x[i] = math.Max(v, 0)
	}
	return x
}

func (r refParams) layerNorm(name string, x []float64) []float64 {
	w, b := r.get(name+".w"), r.get(name+".b")
	var mean, vr float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		vr += (v - mean) * (v - mean)
	}
	vr /= float64(len(x))
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = (v-mean)/math.Sqrt(vr+LNEps)*w[i] + b[i]
	}
	return out
}

func (r refParams) phi(x []float64) []float64 {
	h := x
	if c := r.m.Cfg; c.Encoder == PLREncoder {
		h = relu64(r.plr(x))
	}
	p := r.m.Cfg.Dropout
	for l := range r.m.Cfg.EncLayers {
		h = relu64(r.lin(fmt.Sprintf("enc.%d", l), h))
		if r.train && p > 0 {
			for j := range h {
				if nn.DropKept(dropSeed(r.seed, l), r.row*len(h)+j, p) {
					h[j] /= 1 - p
				} else {
					h[j] = 0
				}
			}
		}
	}
	return h
}

// plr returns the PLR embeddings of x before their ReLU: for feature j
// and output o, b[j,o] + sum_l w[j,o,l] cos(2π c_jl x_j) + w[j,o,K+l] sin(2π c_jl x_j).
func (r refParams) plr(x []float64) []float64 {
	K, D := r.m.Cfg.PLRFreqs, r.m.Cfg.PLRDim
	c, w, b := r.get("plr.freq"), r.get("plr.w"), r.get("plr.b")
	out := make([]float64, len(x)*D)
	for j, xj := range x {
		for o := range D {
			s := b[j*D+o]
			for l := range K {
				z := 2 * math.Pi * c[j*K+l] * xj
				s += w[(j*D+o)*2*K+l]*math.Cos(z) + w[(j*D+o)*2*K+K+l]*math.Sin(z)
			}
			out[j*D+o] = s
		}
	}
	return out
}

// decoderLogits returns the (T, V) logits of one row.
func (r refParams) decoderLogits(x []float64, tokens []int32) [][]float64 {
	m := r.m
	d, T, V, H := m.d, m.t, m.v, m.nh
	hs := d / H
	X := make([][]float64, T)
	X[0] = r.lin("dec.inproj", r.phi(x))
	wte, wpe := r.get("dec.wte"), r.get("dec.wpe")
	for t := 1; t < T; t++ {
		X[t] = append([]float64(nil), wte[int(tokens[t-1])*d:int(tokens[t-1]+1)*d]...)
	}
	for t := range T {
		for j := range d {
			X[t][j] += wpe[t*d+j]
		}
	}
	for l := range m.Cfg.DecLayers {
		pre := fmt.Sprintf("dec.%d.", l)
		qkv := make([][]float64, T)
		for t := range T {
			qkv[t] = r.lin(pre+"qkv", X[t])
		}
		for t := range T {
			y := make([]float64, d)
			for h := range H {
				q := qkv[t][h*hs : (h+1)*hs]
				sc := make([]float64, t+1)
				mx := math.Inf(-1)
				for t2 := 0; t2 <= t; t2++ {
					k := qkv[t2][d+h*hs : d+(h+1)*hs]
					var s float64
					for i := range hs {
						s += q[i] * k[i]
					}
					sc[t2] = s / math.Sqrt(float64(hs))
					mx = math.Max(mx, sc[t2])
				}
				var z float64
				for t2 := range sc {
					sc[t2] = math.Exp(sc[t2] - mx)
					z += sc[t2]
				}
				for t2 := range sc {
					v := qkv[t2][2*d+h*hs : 2*d+(h+1)*hs]
					for i := range hs {
						y[h*hs+i] += sc[t2] / z * v[i]
					}
				}
			}
			a := r.lin(pre+"proj", y)
			for j := range d {
				a[j] += X[t][j]
			}
			l1 := r.layerNorm(pre+"ln1", a)
			f := r.lin(pre+"fc2", relu64(r.lin(pre+"fc", l1)))
			for j := range d {
				f[j] += l1[j]
			}
			X[t] = r.layerNorm(pre+"ln2", f)
		}
		_ = V
	}
	out := make([][]float64, T)
	for t := range T {
		out[t] = r.lin("dec.out", X[t])
	}
	return out
}

// rowLoss is the reference loss of row i of b.
func (r refParams) rowLoss(b *Batch, i int, masked bool) float64 {
	r.row = i
	m := r.m
	In := m.Cfg.In
	x := make([]float64, In)
	for j := range x {
		x[j] = float64(b.X[i*In+j])
	}
	switch m.Cfg.Head {
	case Decoder:
		T := m.t
		tok := b.Tokens[i*T : (i+1)*T]
		lg := r.decoderLogits(x, tok)
		var loss float64
		var prefix []int
		for t := range T {
			loss -= logSoftmaxAt(lg[t], r.allowed(prefix, masked), int(tok[t]))
			prefix = append(prefix, int(tok[t]))
		}
		return loss
	case Pointwise:
		z := r.lin("head.out", r.phi(x))[0]
		if m.Cfg.Sigmoid {
			z = 1/(1+math.Exp(-z)) - 0.5
		}
		e := z - float64(b.Y[i])
		return e * e
	case Riemann:
		z := r.lin("head.out", r.phi(x))
		all := make([]bool, len(z))
		for j := range all {
			all[j] = true
		}
		return -logSoftmaxAt(z, all, int(b.Bins[i])) - math.Log(float64(m.Cfg.Bins))
	case MDN:
		M := m.Cfg.Components
		z := r.lin("head.out", r.phi(x))
		all := make([]bool, M)
		for j := range all {
			all[j] = true
		}
		y := float64(b.Y[i])
		a := make([]float64, M)
		mx := math.Inf(-1)
		for c := range M {
			raw := z[2*M+c]
			sd := math.Exp(raw) + 1e-6
			if raw > 0 {
				sd = raw + 1 + 1e-6
			}
			zz := (y - z[M+c]) / sd
			a[c] = logSoftmaxAt(z[:M], all, c) - 0.5*zz*zz - math.Log(sd) - 0.5*math.Log(2*math.Pi)
			mx = math.Max(mx, a[c])
		}
		var s float64
		for _, v := range a {
			s += math.Exp(v - mx)
		}
		return -(mx + math.Log(s))
	}
	panic("ref: unknown head")
}

// allowed is the decoder's token mask after prefix: the tokenization's
// allowed tokens when masked, else every token.
func (r refParams) allowed(prefix []int, masked bool) []bool {
	m := r.m
	allowed := make([]bool, m.v)
	if !masked {
		for v := range allowed {
			allowed[v] = true
		}
		return allowed
	}
	for _, v := range m.Cfg.Vocab.Allowed(nil, prefix) {
		allowed[v] = true
	}
	return allowed
}

func logSoftmaxAt(z []float64, allowed []bool, k int) float64 {
	mx := math.Inf(-1)
	for j, v := range z {
		if allowed[j] {
			mx = math.Max(mx, v)
		}
	}
	var s float64
	for j, v := range z {
		if allowed[j] {
			s += math.Exp(v - mx)
		}
	}
	if !allowed[k] {
		return math.Inf(-1)
	}
	return z[k] - mx - math.Log(s)
}

// meanLoss is the reference batch loss: the rows' losses and, for a
// decoder with AuxMSE, AuxMSE times the auxiliary read-out's squared error.
func (r refParams) meanLoss(b *Batch, masked bool) float64 {
	var s float64
	for i := range b.B {
		s += r.rowLoss(b, i, masked) + r.auxLoss(b, i)
	}
	return s / float64(b.B)
}

// objective is the loss Backward descends: meanLoss, with the decoder's
// soft-target cross-entropy in place of the target tokens' NLL when
// Cfg.SoftSigma > 0.
func (r refParams) objective(b *Batch, masked bool) float64 {
	if r.m.Cfg.SoftSigma == 0 {
		return r.meanLoss(b, masked)
	}
	var s float64
	for i := range b.B {
		s += r.softLoss(b, i, masked) + r.auxLoss(b, i)
	}
	return s / float64(b.B)
}

// softLoss is row i's cross-entropy against its soft targets b.Soft,
// -sum_t sum_v q[t,v] log softmax(logits[t])_v, with teacher forcing on
// the target tokens.
func (r refParams) softLoss(b *Batch, i int, masked bool) float64 {
	r.row = i
	m := r.m
	In, T, V := m.Cfg.In, m.t, m.v
	x := make([]float64, In)
	for j := range x {
		x[j] = float64(b.X[i*In+j])
	}
	tok := b.Tokens[i*T : (i+1)*T]
	lg := r.decoderLogits(x, tok)
	var loss float64
	var prefix []int
	for t := range T {
		allowed := r.allowed(prefix, masked)
		for v := range V {
			if q := float64(b.Soft[(i*T+t)*V+v]); q != 0 {
				loss -= q * logSoftmaxAt(lg[t], allowed, v)
			}
		}
		prefix = append(prefix, int(tok[t]))
	}
	return loss
}

// auxLoss is row i's weighted auxiliary squared error (0 without AuxMSE):
// AuxMSE (dec.aux(phi(x)) - y)^2, which RowLosses leaves out.
func (r refParams) auxLoss(b *Batch, i int) float64 {
	r.row = i
	m := r.m
	if m.Cfg.Head != Decoder || m.Cfg.AuxMSE == 0 {
		return 0
	}
	In := m.Cfg.In
	x := make([]float64, In)
	for j := range x {
		x[j] = float64(b.X[i*In+j])
	}
	d := r.lin("dec.aux", r.phi(x))[0] - float64(b.Y[i])
	return m.Cfg.AuxMSE * d * d
}
