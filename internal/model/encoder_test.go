package model

import (
	"math"
	"strings"
	"testing"

	"decoreg/internal/rng"
)

// TestEncoderParams: the encoder's parameters are the leading plr.* and
// enc.* tensors, as many for every head on one encoder; CopyEncoder
// copies exactly those and refuses another encoder.
func TestEncoderParams(t *testing.T) {
	want := map[string]int{}
	for name, cfg := range tinyConfigs() {
		m, err := New(cfg, 3)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tn := range m.Tensors() {
			if strings.HasPrefix(tn.Name, "plr.") || strings.HasPrefix(tn.Name, "enc.") {
				if tn.Off != n {
					t.Fatalf("%s: encoder tensor %s at %d after %d encoder parameters", name, tn.Name, tn.Off, n)
				}
				n += tn.Len
			}
		}
		if got := m.EncoderParams(); got != n || n == 0 {
			t.Errorf("%s: EncoderParams %d, the tensors hold %d", name, got, n)
		}
		key := cfg.Encoder.String()
		if cfg.Encoder == PLREncoder {
			key += string(rune('0'+cfg.PLRFreqs)) + string(rune('0'+cfg.PLRDim))
		}
		if w, ok := want[key]; ok && w != n {
			t.Errorf("%s: %d encoder parameters, another head on the encoder %s has %d", name, n, key, w)
		}
		want[key] = n

		// Copy into a model of another head and another seed.
		dst := cfg
		dst.Head, dst.Bins, dst.AuxMSE, dst.SoftSigma = Riemann, 4, 0, 0
		d, err := New(dst, 9)
		if err != nil {
			t.Fatal(err)
		}
		before := append([]float32(nil), d.Params()...)
		if err := d.CopyEncoder(m); err != nil {
			t.Fatal(err)
		}
		for i, v := range d.Params() {
			src := before[i]
			if i < n {
				src = m.Params()[i]
			}
			if math.Float32bits(v) != math.Float32bits(src) {
				t.Fatalf("%s: parameter %d is %v after CopyEncoder, want %v", name, i, v, src)
			}
		}
		other := cfg
		other.EncWidth++
		o, _ := New(other, 1)
		if err := o.CopyEncoder(m); err == nil {
			t.Errorf("%s: CopyEncoder into a wider encoder accepted", name)
		}
	}
}

// TestEncoderFrozenBackward: with SetEncoderFrozen, Backward gives the
// head the same gradients, to the bit, as the whole network's backward
// pass (which TestGradients checks against finite differences) and
// leaves the encoder's linear layers' gradients as they were (zero on a
// fresh model); set back to false, the whole network again.
func TestEncoderFrozenBackward(t *testing.T) {
	for name, cfg := range tinyConfigs() {
		if cfg.AuxMSE > 0 {
			continue // the auxiliary read-out trains the encoder only
		}
		full, _ := New(cfg, 5)
		frozen, _ := New(cfg, 5)
		b := randBatch(full, 6, rng.New(12))
		full.ZeroGrad()
		full.Forward(b)
		full.Backward()
		frozen.SetEncoderFrozen(true)
		frozen.ZeroGrad()
		frozen.Forward(b)
		frozen.Backward()
		n := full.EncoderParams()
		g, fg := frozen.Grads(), full.Grads()
		for i := n; i < len(g); i++ {
			if math.Float32bits(g[i]) != math.Float32bits(fg[i]) {
				t.Fatalf("%s: head gradient %d is %v frozen, %v whole", name, i, g[i], fg[i])
			}
		}
		for _, tn := range frozen.Tensors() {
			if strings.HasPrefix(tn.Name, "enc.") {
				for _, v := range g[tn.Off : tn.Off+tn.Len] {
					if v != 0 {
						t.Fatalf("%s: %s has a gradient %v with the encoder frozen", name, tn.Name, v)
					}
				}
			}
		}
		frozen.SetEncoderFrozen(false)
		frozen.ZeroGrad()
		frozen.Forward(b)
		frozen.Backward()
		for i, v := range frozen.Grads() {
			if math.Float32bits(v) != math.Float32bits(fg[i]) {
				t.Fatalf("%s: gradient %d is %v after unfreezing, %v whole", name, i, v, fg[i])
			}
		}
	}
}
