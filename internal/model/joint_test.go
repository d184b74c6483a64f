package model

import (
	"math"
	"slices"
	"testing"

	"decoreg/dist"
	"decoreg/internal/rng"
	"decoreg/vocab"
)

var _ dist.JointDecoder = (*decoder)(nil)

// TestStartJoint: a joint Stepper over several inputs' sequences gives
// each sequence the logits, bit for bit, of a Stepper of its own input's
// decoder fed the same tokens, through Keeps that mix the inputs; and it
// refuses a decoder of another model.
func TestStartJoint(t *testing.T) {
	cfgs := map[string]Config{"decoder": tinyConfigs()["decoder"], "decoder-plr": tinyConfigs()["decoder-plr"]}
	// decoreg's default decoder (1 layer, width 32): products large
	// enough for gemm's packed paths once the sequences multiply.
	tok, err := vocab.NewNormalized(8, 6)
	if err != nil {
		t.Fatal(err)
	}
	cfgs["default"] = Config{In: 3, EncLayers: 2, EncWidth: 64, Head: Decoder, Vocab: tok, DecLayers: 1, DecWidth: 32, DecHeads: 1, MaskLoss: true}
	for name, cfg := range cfgs {
		t.Run(name, func(t *testing.T) {
			m, _ := New(cfg, 9)
			r := rng.New(5)
			const rows = 6
			b := randBatch(m, rows, r)
			phi := make([]float32, rows*m.w)
			m.Encode(b.X, rows, phi)
			var decs []dist.Decoder
			for i := range rows {
				decs = append(decs, m.DecoderThreads(phi[i*m.w:(i+1)*m.w], 1))
			}
			st := decs[0].(*decoder).StartJoint(decs)
			T, V := m.t, m.v
			// Sequence s: the input it decodes and its tokens so far.
			in := []int{0, 1, 2, 3, 4, 5}
			toks := make([][]int, rows)
			logits := make([]float32, 400*V)
			own := make([]float32, V)
			var step []int
			for pos := range T {
				n := len(in)
				st.Step(step, logits[:n*V])
				for s := range n {
					o := decs[in[s]].Start(1)
					o.Step(nil, own)
					for _, tk := range toks[s] {
						o.Step([]int{tk}, own)
					}
					for v := range V {
						if logits[s*V+v] != own[v] {
							t.Fatalf("pos %d sequence %d (input %d) token %d: joint %v, own %v", pos, s, in[s], v, logits[s*V+v], own[v])
						}
					}
					o.(interface{ Release() }).Release()
				}
				if pos == T-1 {
					break
				}
				// Keep a mix: drop, duplicate, reorder across inputs,
				// and grow to a few hundred sequences.
				idx := []int{n - 1, 0, 0, n / 2, 1}
				for j := 0; len(idx) < 300 && j < 3*n; j++ {
					idx = append(idx, (j*7)%n)
				}
				ni, nt := make([]int, len(idx)), make([][]int, len(idx))
				step = make([]int, len(idx))
				for i, j := range idx {
					ni[i] = in[j]
					step[i] = r.IntN(V)
					nt[i] = append(append([]int(nil), toks[j]...), step[i])
				}
				st.Keep(idx)
				in, toks = ni, nt
			}
			st.(interface{ Release() }).Release()
			other, _ := New(cfg, 10)
			if decs[0].(*decoder).StartJoint([]dist.Decoder{decs[0], other.Decoder(phi[:m.w])}) != nil {
				t.Error("StartJoint accepted a decoder of another model")
			}
		})
	}
}

// TestTrainFLOPs: the count for a small decoder and a Riemann model,
// added up by hand from the layer shapes.
func TestTrainFLOPs(t *testing.T) {
	tok, err := vocab.NewNormalized(10, 3)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Config{In: 5, EncLayers: 2, EncWidth: 16, Head: Decoder, Vocab: tok, DecLayers: 2, DecWidth: 8, DecHeads: 2, MaskLoss: true}, 0)
	if err != nil {
		t.Fatal(err)
	}
	const B = 4
	// Encoder 5->16->16 (no input gradient for the first), inproj 16->8,
	// per block on B*T = 12 rows: qkv 8->24, proj 8->8, fc 8->8 (the
	// feed-forward width defaults to the width), fc2 8->8; attention
	// 2 products of T(T+1)/2 = 6 pairs x 8 per example forward, 4
	// backward; out 8->10 (base 10 digits, no specials).
	enc := 4.0 * (5*16 + 16*16)
	encIn := 4.0 * 16 * 16
	dec := 4.0*16*8 + 2*12*(8*24+8*8+8*8+8*8) + 12*8*10
	att := 2 * (2 * 4 * 6 * 8.0)
	want := 2 * (2*(enc+dec) + encIn + dec + 3*att)
	if got := m.TrainFLOPs(B); got != want {
		t.Errorf("decoder: TrainFLOPs = %v, want %v", got, want)
	}
	r, err := New(Config{In: 3, EncLayers: 3, EncWidth: 32, Head: Riemann, Bins: 7}, 0)
	if err != nil {
		t.Fatal(err)
	}
	w := 2 * (2*float64(B)*(3*32+32*32+32*32+32*7) + float64(B)*(32*32+32*32+32*7))
	if got := r.TrainFLOPs(B); got != w {
		t.Errorf("riemann: TrainFLOPs = %v, want %v", got, w)
	}
}

// TestFreeze: a frozen model's inference (Encode, HeadOutputs,
// HeadLogits, decoder Steppers, joint ones too) gives the same bits as
// the unfrozen model's, for every tiny configuration and the default
// decoder's widths (packed panels, partial tiles); anything that can
// change the parameters thaws it, and a later Freeze packs the new ones.
func TestFreeze(t *testing.T) {
	cfgs := tinyConfigs()
	tok, err := vocab.NewNormalized(8, 6)
	if err != nil {
		t.Fatal(err)
	}
	cfgs["default"] = Config{In: 3, EncLayers: 2, EncWidth: 256, Head: Decoder, Vocab: tok, DecLayers: 1, DecWidth: 32, DecHeads: 1, MaskLoss: true}
	cfgs["riemann512"] = Config{In: 8, EncLayers: 3, EncWidth: 512, Head: Riemann, Bins: 256}
	for name, cfg := range cfgs {
		t.Run(name, func(t *testing.T) {
			m, err := New(cfg, 3)
			if err != nil {
				t.Fatal(err)
			}
			r := rng.New(6)
			const B = 11
			b := randBatch(m, B, r)
			infer := func() []float32 {
				var out []float32
				phi := make([]float32, B*m.w)
				m.Encode(b.X, B, phi)
				out = append(out, phi...)
				if cfg.Head != Decoder {
					o := make([]float32, B*m.nout)
					m.HeadOutputs(phi, B, o)
					out = append(out, o...)
					if cfg.Head == Riemann {
						m.HeadLogits(phi, B, o)
						out = append(out, o...)
					}
					return out
				}
				var decs []dist.Decoder
				for i := range B {
					decs = append(decs, m.DecoderThreads(phi[i*m.w:(i+1)*m.w], 1))
				}
				st := decs[0].(*decoder).StartJoint(decs)
				logits := make([]float32, 3*B*m.v)
				st.Step(nil, logits[:B*m.v])
				out = append(out, logits[:B*m.v]...)
				idx := make([]int, 3*B)
				toks := make([]int, 3*B)
				for i := range idx {
					idx[i], toks[i] = i%B, i%m.v
				}
				st.Keep(idx)
				st.Step(toks, logits)
				out = append(out, logits...)
				st.(interface{ Release() }).Release()
				return out
			}
			want := infer()
			m.Freeze()
			if !m.Frozen() {
				t.Fatal("Freeze did not freeze")
			}
			got := infer()
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("output %d: frozen %v, unfrozen %v", i, got[i], want[i])
				}
			}
			// A change through Params thaws; the next Freeze sees it.
			for i, p := range m.Params() {
				m.params[i] = p * 1.01
			}
			if m.Frozen() {
				t.Fatal("Params did not thaw")
			}
			want2 := infer()
			m.Freeze()
			got2 := infer()
			for i := range want2 {
				if math.Float32bits(got2[i]) != math.Float32bits(want2[i]) {
					t.Fatalf("after a change, output %d: frozen %v, unfrozen %v", i, got2[i], want2[i])
				}
			}
			for _, thaw := range []func(){func() { m.Grads() }, func() { m.Tensors() }, m.ZeroGrad, func() { m.Forward(b) }} {
				m.Freeze()
				thaw()
				if m.Frozen() {
					t.Fatal("a mutating accessor did not thaw")
				}
			}
			// The read-only passes keep the packs: dropping them raced
			// with inference on models sharing the network (an Evaluate
			// beside a prediction; review), and lost them for good.
			m.Freeze()
			m.RowLosses(b, true, make([]float64, B))
			if cfg.Head == Decoder {
				m.VisitLogits(b, true, func(int, int, []float32, []bool, int) {})
			}
			if !m.Frozen() {
				t.Fatal("RowLosses or VisitLogits thawed")
			}
			if got := infer(); !slices.EqualFunc(got, want2, func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }) {
				t.Fatal("inference after RowLosses differs")
			}
		})
	}
}
