package nn

import (
	"math"
	"testing"

	"decoreg/internal/rng"
)

// tinyMLP is x (N, D) -> Linear(D, H) -> ReLU -> LayerNorm(H) -> Linear(H, 1)
// -> MSE, with parameters and gradients in one arena each, as a model in
// the style of llm.c.
type tinyMLP struct {
	threads                         int
	N, D, H                         int
	params, grads                   []float32
	w1, b1, lnw, lnb, w2, b2        []float32 // views into params
	dw1, db1, dlnw, dlnb, dw2, db2  []float32 // views into grads
	h, a, ln, mean, rstd, out, loss []float32 // activations
	dh, da, dln, dout, dloss        []float32 // activation gradients
	opt                             *Adam
}

func carve(arena []float32, off *int, n int) []float32 {
	s := arena[*off : *off+n : *off+n]
	*off += n
	return s
}

func newTinyMLP(threads, N, D, H int, seed uint64) *tinyMLP {
	m := &tinyMLP{threads: threads, N: N, D: D, H: H}
	size := H*D + H + 2*H + H + 1
	m.params, m.grads = make([]float32, size), make([]float32, size)
	var po, gO int
	for _, v := range []struct {
		p, g *[]float32
		n    int
	}{{&m.w1, &m.dw1, H * D}, {&m.b1, &m.db1, H}, {&m.lnw, &m.dlnw, H}, {&m.lnb, &m.dlnb, H}, {&m.w2, &m.dw2, H}, {&m.b2, &m.db2, 1}} {
		*v.p, *v.g = carve(m.params, &po, v.n), carve(m.grads, &gO, v.n)
	}
	// PyTorch's initialisation, as the model's: Linear weights and biases
	// uniform in +-1/sqrt(fan_in), LayerNorm gains 1 and biases 0.
	r := rng.New(seed)
	copy(m.w1, uniform(r, H*D, float32(1/math.Sqrt(float64(D)))))
	copy(m.b1, uniform(r, H, float32(1/math.Sqrt(float64(D)))))
	for i := range m.lnw {
		m.lnw[i] = 1
	}
	copy(m.w2, uniform(r, H, float32(1/math.Sqrt(float64(H)))))
	copy(m.b2, uniform(r, 1, float32(1/math.Sqrt(float64(H)))))
	for _, p := range []*[]float32{&m.h, &m.a, &m.ln, &m.dh, &m.da, &m.dln} {
		*p = make([]float32, N*H)
	}
	m.mean, m.rstd, m.out, m.loss = make([]float32, N), make([]float32, N), make([]float32, N), make([]float32, N)
	m.dout, m.dloss = make([]float32, N), make([]float32, N)
	m.opt = NewAdam(size, 1e-2)
	return m
}

// step runs forward, backward and one Adam step; it returns the mean loss.
func (m *tinyMLP) step(x, y []float32) float64 {
	th, N, D, H := m.threads, m.N, m.D, m.H
	LinearForward(th, m.h, x, m.w1, m.b1, N, D, H)
	copy(m.a, m.h)
	ReLUInPlace(th, m.a)
	LayerNormForward(th, m.ln, m.mean, m.rstd, m.a, m.lnw, m.lnb, N, H, 1e-5)
	LinearForward(th, m.out, m.ln, m.w2, m.b2, N, H, 1)
	MSEForward(m.loss, m.out, y, N)
	var mean float64
	for _, l := range m.loss {
		mean += float64(l) / float64(N)
	}

	clear(m.dlnw) // LayerNormBackward adds to its parameter gradients
	clear(m.dlnb)
	for i := range m.dloss {
		m.dloss[i] = 1 / float32(N)
	}
	MSEBackward(m.dout, m.dloss, m.out, y, N)
	LinearBackward(th, m.dln, m.dw2, m.db2, m.dout, m.ln, m.w2, N, H, 1, false, false)
	LayerNormBackward(th, m.da, m.dlnw, m.dlnb, m.dln, m.a, m.lnw, m.mean, m.rstd, N, H)
	copy(m.dh, m.da)
	ReLUMask(th, m.dh, m.a)
	LinearBackward(th, nil, m.dw1, m.db1, m.dh, x, m.w1, N, D, H, false, false)
	m.opt.Step(th, m.params, m.grads)
	return mean
}

func trainTiny(t *testing.T, seed uint64, threads, steps int) ([]float32, float64, float64) {
	N, D, H := 64, 8, 256
	r := rng.New(seed + 1000)
	x, y := uniform(r, N*D, 1), make([]float32, N)
	for i := range y {
		y[i] = float32(math.Sin(3*float64(x[i*D])) * float64(x[i*D+1]))
	}
	m := newTinyMLP(threads, N, D, H, seed)
	first := m.step(x, y)
	var last float64
	for s := 1; s < steps; s++ {
		last = m.step(x, y)
	}
	return m.params, first, last
}

func TestTrainingDeterministic(t *testing.T) {
	const steps = 30
	p1, first, last := trainTiny(t, 1, 2, steps)
	p2, _, _ := trainTiny(t, 1, 2, steps)
	if i := equalBits(p1, p2); i >= 0 {
		t.Fatalf("same seed and threads: parameter %d differs (%v vs %v)", i, p1[i], p2[i])
	}
	// The layers split work so that each output has one owner: the
	// thread count does not change a bit either.
	for _, th := range []int{1, 3} {
		p3, _, _ := trainTiny(t, 1, th, steps)
		if i := equalBits(p1, p3); i >= 0 {
			t.Fatalf("threads %d vs 2: parameter %d differs (%v vs %v)", th, i, p3[i], p1[i])
		}
	}
	p4, _, _ := trainTiny(t, 2, 2, steps)
	if equalBits(p1, p4) < 0 {
		t.Fatal("seeds 1 and 2 trained to identical parameters")
	}
	if !(last < 0.2*first) {
		t.Errorf("training did not reduce the loss: %v -> %v", first, last)
	}
}
