package nn

import (
	"math"
	"testing"

	"decoreg/internal/rng"
)

// TestAdamVecMatchesGo checks that the vector kernel (where this build has
// one) gives the Go loop's bits, for every length and alignment around the
// vector width, with zero, tiny, huge and non-finite values among the
// inputs (subnormals, and normals whose products are subnormal, among them),
// decoupled decay on and off, and an L2 penalty on and off.
func TestAdamVecMatchesGo(t *testing.T) {
	r := rng.New(31)
	specials := []float32{0, float32(math.Copysign(0, -1)), 1e-30, -1e-38, 3e38, float32(math.Inf(1)), float32(math.NaN()),
		1e-40, -1e-45, 2e-38, -1.3e-38, 1e-20, -3e-19}
	for _, c := range []struct{ decay, wd float32 }{{1, 0}, {1 - 1e-3*0.01, 0}, {1, 0.1}, {1, 1e-40}} {
		decay := c.decay
		for n := 0; n <= 64; n++ {
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
				if n%3 == 0 { // every element from the specials and values near the smallest normal
					tiny := append(specials[:len(specials):len(specials)], 1.176e-38, 1.1754944e-38, -1.2e-38, 1.5e-38, 5e-18, -2e-18, 0.5, 1e-3)
					for i := range n {
						p[off+i] = tiny[r.IntN(len(tiny))]
						g[off+i] = tiny[r.IntN(len(tiny))]
						m[off+i] = tiny[r.IntN(len(tiny))]
						v[off+i] = float32(math.Abs(float64(tiny[r.IntN(len(tiny))])))
					}
				}
				k := adamStep{b1: 0.9, b2: 0.999, eps: 1e-8, decay: decay, wd: c.wd, stepSize: 1e-3 / 0.19, invBc2Sqrt: 1 / 0.0447}
				p2, g2, m2, v2 := clone(p), clone(g), clone(m), clone(v)
				p0, g0, m0, v0 := clone(p), clone(g), clone(m), clone(v)
				k.params, k.grads, k.m, k.v = p[off:], g[off:], m[off:], v[off:]
				k.Run(0, n)
				adamGo(&k, p2[off:], g2[off:], m2[off:], v2[off:])
				for _, c := range []struct {
					name      string
					got, want []float32
				}{{"p", p, p2}, {"m", m, m2}, {"v", v, v2}} {
					if i := equalBitsOrNaN(c.got, c.want); i >= 0 {
						t.Fatalf("decay %v wd %v n %d off %d: %s[%d] = %v (%#x), Go loop %v (%#x); p g m v %v %v %v %v", decay, k.wd, n, off, c.name, i, c.got[i], math.Float32bits(c.got[i]), c.want[i], math.Float32bits(c.want[i]), p0[i], g0[i], m0[i], v0[i])
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

// equalBitsOrNaN is equalBits, except that any NaN equals any other: where
// two operands are NaN, which payload an addition keeps depends on the
// order the compiler gives them.
func equalBitsOrNaN(a, b []float32) int {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) && (a[i] == a[i] || b[i] == b[i]) {
			return i
		}
	}
	return -1
}

// TestAdamFlushesSubnormals checks that moments which decay below the
// smallest normal float32 become zeros (in the vector kernel's elements and
// in the Go loop's tail alike) rather than subnormals, whose arithmetic is
// about a hundred times slower, and that normal moments are untouched.
func TestAdamFlushesSubnormals(t *testing.T) {
	n := 19 // two vectors of 8 and a tail of 3
	a := NewAdam(n, 1e-3)
	p, g := make([]float32, n), make([]float32, n)
	for i := range p {
		p[i] = 1
		a.m[i], a.v[i] = 1e-38, 1.176e-38 // 0.9 and 0.999 times these are subnormal
		if i%2 == 1 {
			a.m[i], a.v[i] = 1e-30, 1e-30
		}
	}
	a.Step(1, p, g)
	for i := range p {
		if i%2 == 0 {
			if a.m[i] != 0 || a.v[i] != 0 || p[i] != 1 {
				t.Errorf("element %d: m %g v %g p %g, want 0 0 1", i, a.m[i], a.v[i], p[i])
			}
		} else if b1, m := float32(0.9), float32(1e-30); a.m[i] != b1*m {
			t.Errorf("element %d: m %g, want %g", i, a.m[i], b1*m)
		}
	}
}

func BenchmarkAdamSubnormal(b *testing.B) {
	n := 86000
	a := NewAdam(n, 5e-4)
	p, g := make([]float32, n), make([]float32, n)
	for i := range p {
		p[i], g[i] = 0.01, 1e-20 // g*g is subnormal
		a.v[i] = 1e-39
	}
	b.SetBytes(int64(n) * 4)
	for b.Loop() {
		a.Step(1, p, g)
	}
}
