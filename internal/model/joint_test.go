package model

import (
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
