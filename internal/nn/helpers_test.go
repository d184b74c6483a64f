package nn

import (
	"math"
	"testing"

	"decoreg/internal/gradcheck"
	"decoreg/internal/rng"
)

// Gradient tests compare what a float32 backward pass computed with the
// central-difference gradient of a float64 twin of the layer, written
// independently in the test, of the scalar loss sum_i g_i*out_i for a
// fixed random g (the dout handed to the backward pass). Gradients that
// the backward pass overwrites start as NaNs (garbage), so that reading
// them would show; gradients that it adds to (the parameter gradients)
// start random, and the test checks the increment (checkGrad).

// Tolerances for float32 layers against float64 references.
const (
	gradAtol = 2e-5
	gradRtol = 2e-4
	fwdAtol  = 1e-5
	fwdRtol  = 1e-5
)

// uniform returns n values uniform in [-scale, scale).
func uniform(r *rng.RNG, n int, scale float32) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = scale * (2*r.Float32() - 1)
	}
	return x
}

func to64(x []float32) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

// weighted returns sum g[i]*out[i].
func weighted(out []float64, g []float32) float64 {
	var s float64
	for i, v := range out {
		s += float64(g[i]) * v
	}
	return s
}

// prefilled returns a random buffer of n values and a copy of it, so that
// a test can check that backward passes accumulate (+=).
func prefilled(r *rng.RNG, n int) (buf, orig []float32) {
	buf = uniform(r, n, 1)
	return buf, append([]float32(nil), buf...)
}

// increment returns after - before in float64.
func increment(after, before []float32) []float64 {
	d := make([]float64, len(after))
	for i := range after {
		d[i] = float64(after[i]) - float64(before[i])
	}
	return d
}

// numGrad is the central-difference gradient of loss at x, restricted to
// the coordinates in idx (all when idx is nil); other entries are NaN.
func numGrad(loss func([]float64) float64, x []float32, idx []int) []float64 {
	full := to64(x)
	if idx == nil {
		return gradcheck.Gradient(nil, loss, full, 0)
	}
	sub := make([]float64, len(idx))
	for k, i := range idx {
		sub[k] = full[i]
	}
	f := func(s []float64) float64 {
		for k, i := range idx {
			full[i] = s[k]
		}
		return loss(full)
	}
	gs := gradcheck.Gradient(nil, f, sub, 0)
	out := make([]float64, len(x))
	for i := range out {
		out[i] = math.NaN()
	}
	for k, i := range idx {
		out[i] = gs[k]
	}
	return out
}

// checkGrad compares the accumulated gradient (after - before) with the
// numerical gradient of loss with respect to x on the coordinates idx (all
// when nil).
func checkGrad(t *testing.T, name string, after, before, x []float32, idx []int, loss func([]float64) float64) {
	t.Helper()
	compareGrad(t, name, increment(after, before), x, idx, loss)
}

// checkSetGrad compares an overwritten gradient with the numerical
// gradient of loss with respect to x on the coordinates idx (all when
// nil).
func checkSetGrad(t *testing.T, name string, got, x []float32, idx []int, loss func([]float64) float64) {
	t.Helper()
	compareGrad(t, name, to64(got), x, idx, loss)
}

func compareGrad(t *testing.T, name string, got []float64, x []float32, idx []int, loss func([]float64) float64) {
	t.Helper()
	want := numGrad(loss, x, idx)
	if idx != nil {
		g, w := make([]float64, len(idx)), make([]float64, len(idx))
		for k, i := range idx {
			g[k], w[k] = got[i], want[i]
		}
		got, want = g, w
	}
	if d, bad := gradcheck.Compare(got, want, gradAtol, gradRtol); bad >= 0 {
		t.Errorf("%s: NOT OK, max |diff| %.3g, first bad index %d: got %.8g, want %.8g", name, d, bad, got[bad], want[bad])
	}
}

// checkClose compares float32 values with a float64 reference.
func checkClose(t *testing.T, name string, got []float32, want []float64, atol, rtol float64) {
	t.Helper()
	if d, bad := gradcheck.Compare(to64(got), want, atol, rtol); bad >= 0 {
		t.Errorf("%s: NOT OK, max |diff| %.3g, first bad index %d: got %.8g, want %.8g", name, d, bad, got[bad], want[bad])
	}
}

// sample returns about k indices spread over [0, n), always including the
// first and last.
func sample(n, k int) []int {
	if n <= k {
		return nil
	}
	idx := []int{}
	for i := 0; i < n; i += n / k {
		idx = append(idx, i)
	}
	if idx[len(idx)-1] != n-1 {
		idx = append(idx, n-1)
	}
	return idx
}

func equalBits(a, b []float32) int {
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	return -1
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", name)
		}
	}()
	f()
}

// garbage returns n NaNs, the starting value of a buffer that a function
// overwrites: it must not read it.
func garbage(n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(math.NaN())
	}
	return s
}
