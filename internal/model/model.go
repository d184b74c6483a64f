package model

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"decoreg/internal/gemm"
	"decoreg/internal/nn"
	"decoreg/internal/par"
	"decoreg/internal/rng"
	"decoreg/vocab"
)

// HeadKind selects the regression head on top of the encoder.
type HeadKind int

// The heads.
const (
	Decoder   HeadKind = iota // causal Transformer over a tokenization
	Pointwise                 // one scalar, squared error
	Riemann                   // softmax over uniform bins (histogram)
	MDN                       // mixture density network
)

// String returns the head's name: "decoder", "pointwise", "riemann", "mdn".
func (k HeadKind) String() string {
	switch k {
	case Decoder:
		return "decoder"
	case Pointwise:
		return "pointwise"
	case Riemann:
		return "riemann"
	case MDN:
		return "mdn"
	}
	return fmt.Sprintf("HeadKind(%d)", int(k))
}

// EncoderKind selects how the features enter the encoder's MLP.
type EncoderKind int

// The encoders.
const (
	MLPEncoder EncoderKind = iota // the features go straight into the MLP
	// PLREncoder embeds each feature with PLR (periodic features, a
	// per-feature Linear, ReLU; Gorishniy et al. 2022, nn.PLRForward)
	// and feeds the In*PLRDim embeddings to the MLP.
	PLREncoder
)

// String returns the encoder's name: "mlp", "plr".
func (k EncoderKind) String() string {
	switch k {
	case MLPEncoder:
		return "mlp"
	case PLREncoder:
		return "plr"
	}
	return fmt.Sprintf("EncoderKind(%d)", int(k))
}

// LNEps is the LayerNorm epsilon of the decoder blocks (as the reference
// code and the PyTorch peer).
const LNEps = 1e-6

// Config is the architecture of a model.
type Config struct {
	In        int // number of input features (x is standardized by the caller)
	EncLayers int // encoder depth: EncLayers x (Linear + ReLU), >= 1
	EncWidth  int // encoder width; phi(x) has EncWidth values
	// Encoder is MLPEncoder (the zero value) or PLREncoder, whose sizes
	// follow: PLRFreqs frequencies K and PLRDim outputs D per feature, the
	// frequencies initialised N(0, PLRSigma^2) truncated to +-3 PLRSigma
	// (as rtdl_num_embeddings). They are ignored for MLPEncoder.
	Encoder  EncoderKind
	PLRFreqs int
	PLRDim   int
	PLRSigma float64
	// Dropout is the probability with which Forward zeroes each output of
	// every layer of the encoder's MLP (after its ReLU, not the PLR embeddings; inverted dropout, the kept ones
	// scaled by 1/(1-Dropout)), in [0, 1). The masks come from
	// Batch.DropSeed. RowLosses, VisitLogits and inference never drop.
	Dropout float64
	// Threads is the number of threads every kernel of this model runs on
	// (0: all cores, runtime.GOMAXPROCS at New). It is per model, not
	// process-wide; Model.Threads reports the resolved count.
	Threads int

	Head HeadKind

	// Decoder head.
	Vocab     vocab.Tokenizer // tokenization: V = Vocab.Size(), T = Vocab.Len()
	DecLayers int             // number of Transformer blocks L, >= 1
	DecWidth  int             // model width d
	DecHeads  int             // attention heads H; d must be a multiple of H
	DFF       int             // feed-forward width; 0 means DecWidth
	// MaskLoss restricts the training softmax at every position to the
	// tokens the tokenization allows after the prefix (renormalised). The
	// zero value trains with the unmasked softmax, as the reference code
	// does; the public API turns it on by default.
	MaskLoss bool
	// AuxMSE, when > 0, adds to the decoder's training loss AuxMSE times
	// the squared error of an auxiliary linear read-out of phi(x) against
	// the target t = u - 0.5 (Batch.Y): a regression signal that shapes
	// the encoder. The read-out is trained with the rest but takes no part
	// in the predictive distribution, RowLosses or inference.
	AuxMSE float64
	// SoftSigma, when > 0, is the standard deviation (in u units) of the
	// Gaussian from which package head builds the decoder's soft token
	// targets (Batch.Soft; their cross-entropy is what Backward then
	// descends). The network itself only checks it: Forward's loss,
	// RowLosses and inference stay the NLL of the target tokens.
	SoftSigma float64

	Bins       int  // Riemann head: number of bins, >= 2
	Components int  // MDN head: number of mixture components M, >= 1
	Sigmoid    bool // Pointwise head: output sigmoid(z) - 0.5 instead of z
}

// Validate reports the first thing wrong with c, or nil.
func (c Config) Validate() error {
	switch {
	case c.In < 1:
		return fmt.Errorf("model: In = %d, need at least 1 input feature", c.In)
	case c.EncLayers < 1:
		return fmt.Errorf("model: EncLayers = %d, need at least 1 encoder layer", c.EncLayers)
	case c.EncWidth < 1:
		return fmt.Errorf("model: EncWidth = %d, need at least 1", c.EncWidth)
	case c.Threads < 0:
		return fmt.Errorf("model: Threads = %d, need 0 (all cores) or more", c.Threads)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return fmt.Errorf("model: Dropout = %v, need a probability in [0, 1)", c.Dropout)
	}
	switch c.Encoder {
	case MLPEncoder:
	case PLREncoder:
		switch {
		case c.PLRFreqs < 1:
			return fmt.Errorf("model: PLRFreqs = %d, need at least 1 frequency", c.PLRFreqs)
		case c.PLRDim < 1:
			return fmt.Errorf("model: PLRDim = %d, need at least 1", c.PLRDim)
		case !(c.PLRSigma > 0) || math.IsInf(c.PLRSigma, 0):
			return fmt.Errorf("model: PLRSigma = %v, need a finite value > 0", c.PLRSigma)
		}
	default:
		return fmt.Errorf("model: unknown encoder kind %d", int(c.Encoder))
	}
	switch c.Head {
	case Decoder:
		switch {
		case c.Vocab == nil:
			return errors.New("model: decoder head without a tokenization (Vocab is nil)")
		case c.Vocab.Size() < 1 || c.Vocab.Len() < 1:
			return fmt.Errorf("model: tokenization %q has %d tokens and length %d", c.Vocab.Spec(), c.Vocab.Size(), c.Vocab.Len())
		case c.DecLayers < 1:
			return fmt.Errorf("model: DecLayers = %d, need at least 1 decoder layer", c.DecLayers)
		case c.DecWidth < 1:
			return fmt.Errorf("model: DecWidth = %d, need at least 1", c.DecWidth)
		case c.DecHeads < 1:
			return fmt.Errorf("model: DecHeads = %d, need at least 1", c.DecHeads)
		case c.DecWidth%c.DecHeads != 0:
			return fmt.Errorf("model: DecWidth %d is not a multiple of DecHeads %d", c.DecWidth, c.DecHeads)
		case c.DFF < 0:
			return fmt.Errorf("model: DFF = %d is negative", c.DFF)
		case !(c.AuxMSE >= 0) || math.IsInf(c.AuxMSE, 0):
			return fmt.Errorf("model: AuxMSE = %v, need a finite value >= 0", c.AuxMSE)
		case !(c.SoftSigma >= 0) || math.IsInf(c.SoftSigma, 0):
			return fmt.Errorf("model: SoftSigma = %v, need a finite value >= 0", c.SoftSigma)
		}
	case Pointwise, Riemann, MDN:
		if c.AuxMSE != 0 {
			return fmt.Errorf("model: AuxMSE = %v is for the decoder head", c.AuxMSE)
		}
		if c.SoftSigma != 0 {
			return fmt.Errorf("model: SoftSigma = %v is for the decoder head", c.SoftSigma)
		}
	}
	switch c.Head {
	case Decoder:
	case Pointwise:
	case Riemann:
		if c.Bins < 2 {
			return fmt.Errorf("model: Bins = %d, the Riemann head needs at least 2 bins", c.Bins)
		}
	case MDN:
		if c.Components < 1 {
			return fmt.Errorf("model: Components = %d, the MDN head needs at least 1 component", c.Components)
		}
	default:
		return fmt.Errorf("model: unknown head kind %d", int(c.Head))
	}
	return nil
}

// Tensor is one named parameter tensor: Params()[Off : Off+Len], row-major
// with the given Shape (Linear weights are (out, in), as in PyTorch).
type Tensor struct {
	Name  string
	Shape []int
	Off   int
	Len   int
}

// linear is a Linear(C, OC) layer's parameters (or gradients).
type linear struct {
	w  []float32     // (OC, C)
	b  []float32     // (OC)
	pw *gemm.PackedB // w packed for inference (Freeze), or nil
}

// infer computes out (N, OC) = in (N, C) · wᵀ + b for the inference
// paths: through the packed weights when the model is frozen.
func (l *linear) infer(threads int, out, in []float32, N, C, OC int) {
	if l.pw != nil {
		nn.LinearForwardPacked(threads, out, in, l.pw, l.b, N, C, OC)
		return
	}
	nn.LinearForward(threads, out, in, l.w, l.b, N, C, OC)
}

// block is one decoder block's parameters (or gradients).
type block struct {
	qkv  linear    // (3d, d), (3d)
	proj linear    // (d, d), (d)
	ln1w []float32 // (d)
	ln1b []float32 // (d)
	fc   linear    // (dff, d), (dff)
	fc2  linear    // (d, dff), (d)
	ln2w []float32 // (d)
	ln2b []float32 // (d)
}

// tensors are named views into one arena (parameters or gradients).
type tensors struct {
	plrFreq []float32 // PLR: (In, K) frequencies
	plrW    []float32 // PLR: (In, D, 2K) per-feature weights
	plrB    []float32 // PLR: (In, D) per-feature biases
	enc     []linear  // EncLayers x Linear: (W, In) (or (W, In*D) after PLR) then (W, W)
	inproj  linear    // decoder: (d, W), (d)
	wte     []float32 // decoder: (V, d)
	wpe     []float32 // decoder: (T, d)
	blocks  []block   // decoder: DecLayers
	out     linear    // decoder (V, d); pointwise (1, W); riemann (Bins, W); mdn (3M, W)
	aux     linear    // decoder with AuxMSE: (1, W), the auxiliary read-out of phi
}

// init kinds of a tensor.
const (
	initLinearW = iota // U(-1/sqrt(fanIn), 1/sqrt(fanIn))
	initLinearB        // U(-1/sqrt(fanIn), 1/sqrt(fanIn))
	initNormal         // N(0, 1)
	initOnes
	initZeros
	initFreq // PLR frequencies: N(0, PLRSigma^2) truncated to +-3 PLRSigma
	initPLRW // PLR weights: as initLinearW (but added to in Backward)
	initPLRB // PLR biases: as initLinearB (but added to in Backward)
)

type entry struct {
	name  string
	shape []int
	init  int
	fanIn int
	dst   func(t *tensors, s []float32)
}

// Model is an encoder and a head with its parameters, gradients and
// training activations.
type Model struct {
	Cfg Config

	// sizes
	w, d, dff, nh, v, t, nout int
	encIn                     int // input width of the MLP: In, or In*PLRDim after PLR

	threads int // Cfg.Threads resolved: the thread count of every kernel call

	table  []entry
	info   []Tensor
	params []float32
	grads  []float32
	p, g   tensors

	a acts // training activations, sized for the largest batch seen
	// scoring serialises RowLosses, RowPrefixLosses and VisitLogits,
	// which run through a: the library's Evaluate and FitTemperature may
	// be called from several goroutines on models that share this network
	// (wrong losses, and panics, helper-122). Forward and Backward, the
	// training pair, belong to the trainer alone.
	scoring sync.Mutex

	scratch struct{ prefix, allowed []int } // for the loss masks

	steppers sync.Pool // released *stepper, for Decoder(...).Start

	// gradsZero records a ZeroGrad not yet carried out: the gradient
	// arena is to be read as zeros.
	gradsZero bool
	// frozen: Freeze packed the inference weights (linear.pw).
	frozen    bool
	addLinear bool // in Backward: add to the Linear layers' gradients (else overwrite)
	// encFrozen: Backward leaves the encoder out (SetEncoderFrozen).
	encFrozen bool
}

// New validates cfg and returns a model whose parameters are initialised
// from seed: every Linear weight and bias uniform in +-1/sqrt(fan_in), the
// token and positional embeddings N(0, 1), LayerNorm gains 1 and biases 0
// (PyTorch's defaults, as the peer); PLR's frequencies N(0, PLRSigma^2)
// truncated to +-3 PLRSigma, its weights and biases uniform in
// +-1/sqrt(2K), as rtdl_num_embeddings. The draws are taken tensor by
// tensor in Tensors order from rng.New(seed).
func New(cfg Config, seed uint64) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Model{Cfg: cfg, w: cfg.EncWidth, encIn: cfg.In, threads: par.Resolve(cfg.Threads)}
	if cfg.Encoder == PLREncoder {
		m.encIn = cfg.In * cfg.PLRDim
	}
	switch cfg.Head {
	case Decoder:
		m.d, m.nh = cfg.DecWidth, cfg.DecHeads
		m.dff = cfg.DFF
		if m.dff == 0 {
			m.dff = m.d
		}
		m.v, m.t = cfg.Vocab.Size(), cfg.Vocab.Len()
		m.nout = m.v
	case Pointwise:
		m.nout = 1
	case Riemann:
		m.nout = cfg.Bins
	case MDN:
		m.nout = 3 * cfg.Components
	}
	m.buildTable()
	n := 0
	for _, e := range m.table {
		n += size(e.shape)
	}
	m.params = make([]float32, n)
	m.grads = make([]float32, n)
	off := 0
	for _, e := range m.table {
		k := size(e.shape)
		e.dst(&m.p, m.params[off:off+k:off+k])
		e.dst(&m.g, m.grads[off:off+k:off+k])
		m.info = append(m.info, Tensor{Name: e.name, Shape: e.shape, Off: off, Len: k})
		off += k
	}
	m.initParams(seed)
	return m, nil
}

func size(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// buildTable lists the parameter tensors in arena order.
func (m *Model) buildTable() {
	cfg := m.Cfg
	add := func(name string, init, fanIn int, dst func(t *tensors, s []float32), shape ...int) {
		m.table = append(m.table, entry{name, shape, init, fanIn, dst})
	}
	addLinear := func(name string, in, out int, l func(t *tensors) *linear) {
		add(name+".w", initLinearW, in, func(t *tensors, s []float32) { l(t).w = s }, out, in)
		add(name+".b", initLinearB, in, func(t *tensors, s []float32) { l(t).b = s }, out)
	}
	if cfg.Encoder == PLREncoder {
		F, K, D := cfg.In, cfg.PLRFreqs, cfg.PLRDim
		add("plr.freq", initFreq, 0, func(t *tensors, s []float32) { t.plrFreq = s }, F, K)
		add("plr.w", initPLRW, 2*K, func(t *tensors, s []float32) { t.plrW = s }, F, D, 2*K)
		add("plr.b", initPLRB, 2*K, func(t *tensors, s []float32) { t.plrB = s }, F, D)
	}
	in := m.encIn
	for i := range cfg.EncLayers {
		addLinear(fmt.Sprintf("enc.%d", i), in, m.w, func(t *tensors) *linear {
			if t.enc == nil {
				t.enc = make([]linear, cfg.EncLayers)
			}
			return &t.enc[i]
		})
		in = m.w
	}
	if cfg.Head == Decoder {
		d := m.d
		addLinear("dec.inproj", m.w, d, func(t *tensors) *linear { return &t.inproj })
		add("dec.wte", initNormal, 0, func(t *tensors, s []float32) { t.wte = s }, m.v, d)
		add("dec.wpe", initNormal, 0, func(t *tensors, s []float32) { t.wpe = s }, m.t, d)
		for l := range cfg.DecLayers {
			blk := func(t *tensors) *block {
				if t.blocks == nil {
					t.blocks = make([]block, cfg.DecLayers)
				}
				return &t.blocks[l]
			}
			pre := fmt.Sprintf("dec.%d.", l)
			addLinear(pre+"qkv", d, 3*d, func(t *tensors) *linear { return &blk(t).qkv })
			addLinear(pre+"proj", d, d, func(t *tensors) *linear { return &blk(t).proj })
			add(pre+"ln1.w", initOnes, 0, func(t *tensors, s []float32) { blk(t).ln1w = s }, d)
			add(pre+"ln1.b", initZeros, 0, func(t *tensors, s []float32) { blk(t).ln1b = s }, d)
			addLinear(pre+"fc", d, m.dff, func(t *tensors) *linear { return &blk(t).fc })
			addLinear(pre+"fc2", m.dff, d, func(t *tensors) *linear { return &blk(t).fc2 })
			add(pre+"ln2.w", initOnes, 0, func(t *tensors, s []float32) { blk(t).ln2w = s }, d)
			add(pre+"ln2.b", initZeros, 0, func(t *tensors, s []float32) { blk(t).ln2b = s }, d)
		}
		addLinear("dec.out", d, m.v, func(t *tensors) *linear { return &t.out })
		if cfg.AuxMSE > 0 { // last: the other tensors' initial values are those without it
			addLinear("dec.aux", m.w, 1, func(t *tensors) *linear { return &t.aux })
		}
		return
	}
	addLinear("head.out", m.w, m.nout, func(t *tensors) *linear { return &t.out })
}

func (m *Model) initParams(seed uint64) {
	r := rng.New(seed)
	for i, e := range m.table {
		s := m.params[m.info[i].Off : m.info[i].Off+m.info[i].Len]
		switch e.init {
		case initLinearW, initLinearB, initPLRW, initPLRB:
			bound := 1 / math.Sqrt(float64(e.fanIn))
			for j := range s {
				s[j] = float32((2*r.Float64() - 1) * bound)
			}
		case initNormal:
			for j := range s {
				s[j] = float32(r.NormFloat64())
			}
		case initFreq:
			sigma := m.Cfg.PLRSigma
			for j := range s {
				v := r.NormFloat64()
				for math.Abs(v) > 3 {
					v = r.NormFloat64()
				}
				s[j] = float32(v * sigma)
			}
		case initOnes:
			for j := range s {
				s[j] = 1
			}
		case initZeros:
			clear(s)
		}
	}
}

// Threads returns the number of threads the model's kernels run on:
// Cfg.Threads as given to New, or all cores (runtime.GOMAXPROCS at New)
// for 0.
func (m *Model) Threads() int { return m.threads }

// Params returns the parameter arena (aliased, not copied).
func (m *Model) Params() []float32 { m.thaw(); return m.params }

// EncoderParams is the number of the encoder's parameters (PLR's and
// the MLP's), which lead the arena: Params()[:EncoderParams()]. Models
// with the same In, EncLayers, EncWidth, Encoder and PLR sizes lay them
// out alike, whatever their heads.
func (m *Model) EncoderParams() int {
	n := 0
	for _, t := range m.info {
		if !strings.HasPrefix(t.Name, "plr.") && !strings.HasPrefix(t.Name, "enc.") {
			break
		}
		n = t.Off + t.Len
	}
	return n
}

// CopyEncoder sets m's encoder parameters to src's (the rest of m is
// left as it is). The two must have the same encoder: In, EncLayers,
// EncWidth, Encoder and, for PLR, PLRFreqs and PLRDim.
func (m *Model) CopyEncoder(src *Model) error {
	a, b := m.Cfg, src.Cfg
	if a.In != b.In || a.EncLayers != b.EncLayers || a.EncWidth != b.EncWidth || a.Encoder != b.Encoder ||
		(a.Encoder == PLREncoder && (a.PLRFreqs != b.PLRFreqs || a.PLRDim != b.PLRDim)) {
		return fmt.Errorf("model: CopyEncoder from a different encoder (%d inputs, %d x %d %v, into %d inputs, %d x %d %v)",
			b.In, b.EncLayers, b.EncWidth, b.Encoder, a.In, a.EncLayers, a.EncWidth, a.Encoder)
	}
	n := m.EncoderParams()
	copy(m.Params()[:n], src.ParamsView()[:n])
	return nil
}

// SetEncoderFrozen(true) makes Backward compute the head's gradients
// only: the encoder's (Grads()[:EncoderParams()]) are not computed, so
// an optimizer must leave those parameters out. Forward is unchanged
// (the encoder's dropout, Cfg.Dropout, still drops in training). false,
// the default, trains the whole network.
func (m *Model) SetEncoderFrozen(frozen bool) { m.encFrozen = frozen }

// ParamsView is Params for callers that only read the parameters (saving
// a model): it leaves Freeze's packs in place. The slice must not be
// written.
func (m *Model) ParamsView() []float32 { return m.params }

// Grads returns the gradient arena (aliased), the same length as Params.
func (m *Model) Grads() []float32 {
	m.thaw()
	m.settleGrads()
	return m.grads
}

// NumParams is len(Params()).
func (m *Model) NumParams() int { return len(m.params) }

// ZeroGrad sets every gradient to zero. It does so lazily: the next
// Backward overwrites the gradients instead of adding to them (which spares
// the weight-gradient multiplies a read of their output), and Grads clears
// the arena if it comes first. Read the gradients through Grads, not
// through a slice kept from before.
func (m *Model) ZeroGrad() { m.thaw(); m.gradsZero = true }

// settleGrads carries out a pending ZeroGrad.
func (m *Model) settleGrads() {
	if m.gradsZero {
		clear(m.grads)
		m.gradsZero = false
	}
}

// Tensors lists the named parameter tensors in arena order. The slice is
// shared; do not modify it.
func (m *Model) Tensors() []Tensor { m.thaw(); return m.info }

// SeqLen is the decoder's sequence length T (0 for other heads).
func (m *Model) SeqLen() int { return m.t }

// VocabSize is the decoder's vocabulary size V (0 for other heads).
func (m *Model) VocabSize() int { return m.v }

// OutWidth is the width of HeadOutputs' rows: 1 (pointwise), Bins
// (riemann), 3M (mdn); V for the decoder.
func (m *Model) OutWidth() int { return m.nout }

// TrainFLOPs is the number of floating-point operations (2 per
// multiply-add) in the matrix products of one training step (Forward and
// Backward) on a batch of B examples: the linear layers' forward
// products, their weight gradients and their input gradients (all but the
// first encoder layer's, whose input needs none), the output head, and
// the decoder's causal attention products (QKᵀ and AV forward, four
// backward, counting the T(T+1)/2 query-key pairs of a causal sequence).
// It is what a step would cost at a matrix multiply's rate: bench train
// divides it by the measured GEMM rate for the step's bound.
func (m *Model) TrainFLOPs(B int) float64 {
	var fwd, din, att float64
	lin := func(rows, in, out int, needIn bool) {
		f := float64(rows) * float64(in) * float64(out)
		fwd += f
		if needIn {
			din += f
		}
	}
	in := m.Cfg.In
	if m.Cfg.Encoder == PLREncoder {
		in = m.encIn
	}
	for l := range len(m.p.enc) {
		lin(B, in, m.w, l > 0 || m.Cfg.Encoder == PLREncoder)
		in = m.w
	}
	if m.Cfg.Head != Decoder {
		lin(B, m.w, m.nout, true)
		return 2 * (2*fwd + din)
	}
	N, d := B*m.t, m.d
	lin(B, m.w, d, true) // inproj
	for range m.Cfg.DecLayers {
		lin(N, d, 3*d, true)
		lin(N, d, d, true)
		lin(N, d, m.dff, true)
		lin(N, m.dff, d, true)
		att += 2 * float64(B) * float64(m.t*(m.t+1)/2) * float64(d)
	}
	lin(N, d, m.v, true)
	return 2 * (2*fwd + din + 3*att)
}

// Freeze packs the weights of the linear layers that inference uses
// (Encode, HeadOutputs, HeadLogits, the decoders and their Steppers) once,
// so that those stop packing them at every call (a tenth to most of a
// small batch's cost); their results are unchanged, bit for bit. Params,
// Tensors, Grads, ZeroGrad, Forward and Backward, through which the
// parameters can change, drop the packs again; RowLosses and VisitLogits,
// which only read them, keep the packs, so inference may run beside them
// (dropping them raced with a prediction reading them). Freeze must not
// run concurrently with anything else on the model; inference may run
// concurrently afterwards, as before.
func (m *Model) Freeze() {
	m.inferLinears(func(l *linear, C, OC int) { l.pw = gemm.PackB(true, OC, C, l.w, C) })
	m.frozen = true
}

// thaw drops Freeze's packs.
func (m *Model) thaw() {
	if m.frozen {
		m.inferLinears(func(l *linear, _, _ int) { l.pw = nil })
		m.frozen = false
	}
}

// inferLinears calls f on every linear layer of the inference paths, with
// its input and output widths.
func (m *Model) inferLinears(f func(l *linear, C, OC int)) {
	in := m.Cfg.In
	if m.Cfg.Encoder == PLREncoder {
		in = m.encIn
	}
	for l := range m.p.enc {
		f(&m.p.enc[l], in, m.w)
		in = m.w
	}
	if m.Cfg.Head != Decoder {
		f(&m.p.out, m.w, m.nout)
		return
	}
	f(&m.p.inproj, m.w, m.d)
	for i := range m.p.blocks {
		b := &m.p.blocks[i]
		f(&b.qkv, m.d, 3*m.d)
		f(&b.proj, m.d, m.d)
		f(&b.fc, m.d, m.dff)
		f(&b.fc2, m.dff, m.d)
	}
	f(&m.p.out, m.d, m.v)
}

// Frozen reports whether Freeze's packs are in place.
func (m *Model) Frozen() bool { return m.frozen }
