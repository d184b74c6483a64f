package nn

import (
	"math"
	"testing"

	"decoreg/internal/rng"
)

func TestAdamFirstStepByHand(t *testing.T) {
	// At t = 1 the bias-corrected moments are g and g^2, so the update is
	// lr * g / (|g| + eps): about lr * sign(g), and nothing where g = 0.
	p := []float32{0.5, -1, 2, 3}
	g := []float32{0.1, -0.2, 0, 1e-9}
	a := NewAdam(4, 0.01)
	a.Step(2, p, g)
	want := []float64{
		0.5 - 0.01*0.1/(0.1+1e-8),
		-1 + 0.01*0.2/(0.2+1e-8),
		2,
		3 - 0.01*1e-9/(1e-9+1e-8), // eps matters for tiny gradients
	}
	checkClose(t, "Adam step 1", p, want, 0, 1e-7)
	mustPanic(t, "Step wrong length", func() { a.Step(2, p[:1], g[:1]) })
}

// adam64 is a float64 reference of torch.optim.Adam / AdamW.
func adam64(p []float64, grads [][]float32, lr, b1, b2, eps, wd float64, decoupled bool) []float64 {
	m, v := make([]float64, len(p)), make([]float64, len(p))
	for step, gs := range grads {
		tt := float64(step + 1)
		for i := range p {
			g := float64(gs[i])
			if decoupled {
				p[i] *= 1 - lr*wd
			} else {
				g += wd * p[i]
			}
			m[i] = b1*m[i] + (1-b1)*g
			v[i] = b2*v[i] + (1-b2)*g*g
			mh := m[i] / (1 - math.Pow(b1, tt))
			vh := v[i] / (1 - math.Pow(b2, tt))
			p[i] -= lr * mh / (math.Sqrt(vh) + eps)
		}
	}
	return p
}

func TestAdamMatchesReference(t *testing.T) {
	for _, decoupled := range []bool{false, true} {
		r := rng.New(16)
		n, steps := 10, 5
		p := uniform(r, n, 1)
		grads := make([][]float32, steps)
		for s := range grads {
			grads[s] = uniform(r, n, 1)
		}
		want := adam64(to64(p), grads, 0.05, 0.8, 0.99, 1e-6, 0.3, decoupled)
		a := NewAdam(n, 0.05)
		a.Beta1, a.Beta2, a.Eps, a.WeightDecay, a.Decoupled = 0.8, 0.99, 1e-6, 0.3, decoupled
		for _, g := range grads {
			a.Step(2, p, g)
		}
		checkClose(t, "Adam after 5 steps", p, want, 1e-6, 1e-5)
	}
}
