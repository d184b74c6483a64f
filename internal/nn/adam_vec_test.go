package nn

import (
	"math"
	"testing"

	"decoreg/internal/rng"
)

// TestAdamVecMatchesGo checks that the vector kernel (where this build has
// one) gives the Go loop's bits, for every length and alignment around the
// vector width, with zero, tiny, huge and non-finite values among the
// inputs and decoupled decay on and off.
func TestAdamVecMatchesGo(t *testing.T) {
	r := rng.New(31)
	specials := []float32{0, float32(math.Copysign(0, -1)), 1e-30, -1e-38, 3e38, float32(math.Inf(1)), float32(math.NaN())}
	for _, decay := range []float32{1, 1 - 1e-3*0.01} {
		for n := 0; n <= 40; n++ {
			for off := 0; off < 3; off++ {
				p, g := uniform(r, n+off, 2), uniform(r, n+off, 1)
				m, v := uniform(r, n+off, 0.1), uniform(r, n+off, 0.01)
				for i := range v {
					v[i] = float32(math.Abs(float64(v[i])))
				}
				if n > 0 && n%5 == 0 {
					g[off+r.IntN(n)] = specials[r.IntN(len(specials))]
					p[off+r.IntN(n)] = specials[r.IntN(len(specials))]
				}
				k := adamStep{b1: 0.9, b2: 0.999, eps: 1e-8, decay: decay, stepSize: 1e-3 / 0.19, bc2Sqrt: 0.0447}
				p2, g2, m2, v2 := clone(p), clone(g), clone(m), clone(v)
				k.params, k.grads, k.m, k.v = p[off:], g[off:], m[off:], v[off:]
				k.Run(0, n)
				adamGo(&k, p2[off:], g2[off:], m2[off:], v2[off:])
				for _, c := range []struct {
					name      string
					got, want []float32
				}{{"p", p, p2}, {"m", m, m2}, {"v", v, v2}} {
					if i := equalBits(c.got, c.want); i >= 0 {
						t.Fatalf("decay %v n %d off %d: %s[%d] = %v, Go loop %v", decay, n, off, c.name, i, c.got[i], c.want[i])
					}
				}
			}
		}
	}
}

// TestAdamNoDecayMatchesReference is TestAdamMatchesReference without
// weight decay (the vector kernel's case) on a length that is not a
// multiple of the vector width, with the default hyperparameters.
func TestAdamNoDecayMatchesReference(t *testing.T) {
	r := rng.New(32)
	n, steps := 37, 6
	p := uniform(r, n, 1)
	grads := make([][]float32, steps)
	for s := range grads {
		grads[s] = uniform(r, n, 1)
	}
	want := adam64(to64(p), grads, 0.01, 0.9, 0.999, 1e-8, 0, false)
	a := NewAdam(n, 0.01)
	for _, g := range grads {
		a.Step(2, p, g)
	}
	checkClose(t, "Adam without decay after 6 steps", p, want, 1e-6, 1e-5)
}

func clone(s []float32) []float32 { return append([]float32(nil), s...) }
