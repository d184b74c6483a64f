package nn

import (
	"math"
	"testing"

	"decoreg/internal/rng"
)

// layerNorm64 is the float64 twin of LayerNormForward; it also returns the
// row means and reciprocal standard deviations.
func layerNorm64(in, w, b []float64, N, C int, eps float64) (out, mean, rstd []float64) {
	out, mean, rstd = make([]float64, N*C), make([]float64, N), make([]float64, N)
	for i := 0; i < N; i++ {
		x := in[i*C : (i+1)*C]
		m := 0.0
		for _, v := range x {
			m += v
		}
		m /= float64(C)
		vr := 0.0
		for _, v := range x {
			vr += (v - m) * (v - m)
		}
		vr /= float64(C)
		rs := 1 / math.Sqrt(vr+eps)
		for j, v := range x {
			out[i*C+j] = (v-m)*rs*w[j] + b[j]
		}
		mean[i], rstd[i] = m, rs
	}
	return out, mean, rstd
}

func TestLayerNorm(t *testing.T) {
	for _, sz := range []struct{ N, C int }{{3, 6}, {1, 2}, {2, 70}} {
		r := rng.New(3)
		N, C := sz.N, sz.C
		const eps = 1e-5
		in, w, b, g := uniform(r, N*C, 2), uniform(r, C, 1), uniform(r, C, 1), uniform(r, N*C, 1)
		for i := range in {
			in[i] += 3 // a row mean away from 0 tests the centring
		}
		out, mean, rstd := make([]float32, N*C), make([]float32, N), make([]float32, N)
		LayerNormForward(2, out, mean, rstd, in, w, b, N, C, eps)
		o64, m64, r64 := layerNorm64(to64(in), to64(w), to64(b), N, C, eps)
		checkClose(t, "LayerNorm out", out, o64, fwdAtol, fwdRtol)
		checkClose(t, "LayerNorm mean", mean, m64, 0, 1e-6)
		checkClose(t, "LayerNorm rstd", rstd, r64, 0, 1e-6)

		din := garbage(N * C) // overwritten
		dw, dw0 := prefilled(r, C)
		db, db0 := prefilled(r, C)
		LayerNormBackward(2, din, dw, db, g, in, w, mean, rstd, N, C)
		loss := func(in, w, b []float64) float64 {
			o, _, _ := layerNorm64(in, w, b, N, C, eps)
			return weighted(o, g)
		}
		in64, w64, b64 := to64(in), to64(w), to64(b)
		checkSetGrad(t, "LayerNorm din", din, in, nil, func(x []float64) float64 { return loss(x, w64, b64) })
		checkGrad(t, "LayerNorm dw", dw, dw0, w, nil, func(x []float64) float64 { return loss(in64, x, b64) })
		checkGrad(t, "LayerNorm db", db, db0, b, nil, func(x []float64) float64 { return loss(in64, w64, x) })

		// Each gradient alone equals its part of the full call.
		din2 := garbage(N * C)
		LayerNormBackward(2, din2, nil, nil, g, in, w, mean, rstd, N, C)
		if i := equalBits(din2, din); i >= 0 {
			t.Errorf("din alone differs at %d", i)
		}
		db2 := make([]float32, C)
		LayerNormBackward(2, nil, nil, db2, g, in, w, mean, rstd, N, C)
		checkClose(t, "LayerNorm db alone", db2, increment(db, db0), 1e-6, 1e-6)
	}
}

func TestLayerNormLargeOffset(t *testing.T) {
	// A row 1e4 + small noise: a one-pass float32 variance would lose it.
	C := 64
	in := make([]float32, C)
	for i := range in {
		in[i] = 1e4 + float32(i%2) // variance 0.25
	}
	w, b := make([]float32, C), make([]float32, C)
	for i := range w {
		w[i] = 1
	}
	out, mean, rstd := make([]float32, C), make([]float32, 1), make([]float32, 1)
	LayerNormForward(1, out, mean, rstd, in, w, b, 1, C, 0)
	if !(math.Abs(float64(rstd[0])-2) <= 1e-5) {
		t.Errorf("rstd %v, want 2", rstd[0])
	}
	if out[0] != -1 || out[1] != 1 {
		t.Errorf("out %v %v, want -1 1", out[0], out[1])
	}
}
