package model

import (
	"math"
	"testing"
	"time"

	"decoreg/internal/nn"
	"decoreg/internal/rng"
	"decoreg/vocab"
)

// benchConfigs are issue 6's models: 8 features, normalized decoder B=10
// K=6, encoder 3 x width.
var benchConfigs = []struct {
	name                  string
	enc, layers, d, heads int
}{
	{"a", 512, 1, 32, 1},
	{"b", 2048, 1, 32, 1},
	{"c", 512, 3, 128, 4},
}

func benchModel(b *testing.B, enc, layers, d, heads int) *Model {
	tok, err := vocab.NewNormalized(10, 6)
	if err != nil {
		b.Fatal(err)
	}
	m, err := New(Config{In: 8, EncLayers: 3, EncWidth: enc, Head: Decoder, Vocab: tok,
		DecLayers: layers, DecWidth: d, DecHeads: heads, MaskLoss: true}, 0)
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkTrainStep times Forward + Backward + Adam on a batch of 256
// (tokens precomputed, as the peer's throughput.py) and reports steps/s.
func BenchmarkTrainStep(b *testing.B) {
	for _, c := range benchConfigs {
		b.Run(c.name, func(b *testing.B) {
			m := benchModel(b, c.enc, c.layers, c.d, c.heads)
			r := rng.New(1)
			const B = 256
			batch := &Batch{B: B, X: make([]float32, B*8), Tokens: make([]int32, B*6)}
			for i := range batch.X {
				batch.X[i] = float32(r.NormFloat64())
			}
			for i := range B {
				k := r.IntN(1_000_000)
				for j := 5; j >= 0; j-- {
					batch.Tokens[i*6+j] = int32(k % 10)
					k /= 10
				}
			}
			s := benchSteps(b, m, batch, 1e-3)
			b.ReportMetric(float64(b.N*B)/s, "examples/s")
		})
	}
}

// BenchmarkSample draws 1000 samples of one input with config a's model:
// one Encode, one Decoder, Start(1000) and T = 6 Steps, each followed by
// sampling a token per sequence from the softmax of its logits (every
// token is allowed in a Normalized tokenization). Reports samples/s.
func BenchmarkSample(b *testing.B) {
	m := benchModel(b, 512, 1, 32, 1)
	const n = 1000
	T, V := m.SeqLen(), m.VocabSize()
	x := make([]float32, 8)
	r := rng.New(2)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	phi := make([]float32, m.Cfg.EncWidth)
	logits := make([]float32, n*V)
	tokens := make([]int, n)
	p := make([]float64, V)
	sample := func() {
		m.Encode(x, 1, phi)
		st := m.Decoder(phi).Start(n)
		var in []int
		for range T {
			st.Step(in, logits)
			for i := range n {
				row := logits[i*V : (i+1)*V]
				mx := row[0]
				for _, v := range row {
					mx = max(mx, v)
				}
				var s float64
				for j, v := range row {
					p[j] = math.Exp(float64(v - mx))
					s += p[j]
				}
				u := r.Float64() * s
				k := 0
				for k < V-1 && u >= p[k] {
					u -= p[k]
					k++
				}
				tokens[i] = k
			}
			in = tokens
		}
	}
	sample()
	b.ResetTimer()
	t0 := time.Now()
	for range b.N {
		sample()
	}
	b.ReportMetric(float64(b.N*n)/time.Since(t0).Seconds(), "samples/s")
}

// BenchmarkTrainStepUCI times one training step of the UCI table's
// largest runs (keggdirected's decoder: 20 features, encoder 2 x 256,
// unnormalized base 10 with a 1-digit exponent and 4 digits, decoder
// 1 layer x 32, batch 32) on one thread, as `bench uci` runs them.
func BenchmarkTrainStepUCI(b *testing.B) {
	tok, err := vocab.NewUnnormalized(10, 1, 4)
	if err != nil {
		b.Fatal(err)
	}
	m, err := New(Config{In: 20, EncLayers: 2, EncWidth: 256, Head: Decoder, Vocab: tok,
		DecLayers: 1, DecWidth: 32, DecHeads: 1, MaskLoss: true, Threads: 1}, 0)
	if err != nil {
		b.Fatal(err)
	}
	r := rng.New(1)
	const B = 32
	T := m.SeqLen()
	batch := &Batch{B: B, X: make([]float32, B*20), Tokens: make([]int32, B*T)}
	for i := range batch.X {
		batch.X[i] = float32(r.NormFloat64())
	}
	for i := range B {
		toks, _, err := tok.Encode(r.NormFloat64() * 100)
		if err != nil {
			b.Fatal(err)
		}
		for j, t := range toks {
			batch.Tokens[i*T+j] = int32(t)
		}
	}
	batch.Mask = make([]bool, B*T*m.VocabSize()) // precomputed per row, as training does
	Masks(tok, batch.Tokens, B, batch.Mask)
	benchSteps(b, m, batch, 5e-4)
}

// benchSteps times b.N training steps (ZeroGrad, Forward, Backward, an
// Adam step at lr) on batch after 3 untimed ones, reports steps/s and
// returns the seconds taken.
func benchSteps(b *testing.B, m *Model, batch *Batch, lr float32) float64 {
	opt := nn.NewAdam(m.NumParams(), lr)
	step := func() {
		m.ZeroGrad()
		m.Forward(batch)
		m.Backward()
		opt.Step(m.Threads(), m.Params(), m.Grads())
	}
	for range 3 {
		step()
	}
	b.ResetTimer()
	t0 := time.Now()
	for range b.N {
		step()
	}
	s := time.Since(t0).Seconds()
	b.ReportMetric(float64(b.N)/s, "steps/s")
	return s
}
