package nn

import (
	"math"
	"testing"

	"decoreg/internal/rng"
)

// plr64 is the float64 twin of PLRForward, written from the formula:
// out[i, j*D+r] = b[j,r] + sum_l W[j,r,l] cos(2π c_jl x_ij) + W[j,r,K+l] sin(2π c_jl x_ij).
func plr64(in, freq, w, b []float64, N, F, K, D int) []float64 {
	out := make([]float64, N*F*D)
	for i := range N {
		for j := range F {
			for r := range D {
				s := b[j*D+r]
				for l := range K {
					z := 2 * math.Pi * freq[j*K+l] * in[i*F+j]
					s += w[(j*D+r)*2*K+l]*math.Cos(z) + w[(j*D+r)*2*K+K+l]*math.Sin(z)
				}
				out[i*F*D+j*D+r] = s
			}
		}
	}
	return out
}

// TestPLR checks PLRForward against plr64 and every gradient of
// PLRBackward (the input's, overwritten; the frequencies', weights' and
// biases', added to) against finite differences, on shapes that include
// one feature, one frequency and one output.
func TestPLR(t *testing.T) {
	for _, sz := range []struct{ N, F, K, D int }{
		{3, 2, 3, 4}, {1, 1, 1, 1}, {2, 1, 1, 3}, {4, 3, 1, 1}, {2, 1, 5, 1}, {5, 2, 40, 3},
	} {
		N, F, K, D := sz.N, sz.F, sz.K, sz.D
		r := rng.New(uint64(70 + N*1000 + F*100 + K*10 + D))
		in, freq := uniform(r, N*F, 1), uniform(r, F*K, 1)
		w, b := uniform(r, F*D*2*K, 1), uniform(r, F*D, 1)
		g := uniform(r, N*F*D, 1)
		out, feat := garbage(N*F*D), garbage(N*F*2*K)
		PLRForward(2, out, feat, in, freq, w, b, N, F, K, D)
		in64, freq64, w64, b64 := to64(in), to64(freq), to64(w), to64(b)
		checkClose(t, "PLR out", out, plr64(in64, freq64, w64, b64, N, F, K, D), fwdAtol, fwdRtol)

		loss := func(in, freq, w, b []float64) float64 { return weighted(plr64(in, freq, w, b, N, F, K, D), g) }
		din, dfeat := garbage(N*F), garbage(N*F*2*K)
		dfreq, dfreq0 := prefilled(r, F*K)
		dw, dw0 := prefilled(r, F*D*2*K)
		db, db0 := prefilled(r, F*D)
		PLRBackward(2, din, dfreq, dw, db, dfeat, g, feat, in, freq, w, N, F, K, D)
		checkSetGrad(t, "PLR din", din, in, nil, func(x []float64) float64 { return loss(x, freq64, w64, b64) })
		checkGrad(t, "PLR dfreq", dfreq, dfreq0, freq, nil, func(x []float64) float64 { return loss(in64, x, w64, b64) })
		checkGrad(t, "PLR dw", dw, dw0, w, nil, func(x []float64) float64 { return loss(in64, freq64, x, b64) })
		checkGrad(t, "PLR db", db, db0, b, nil, func(x []float64) float64 { return loss(in64, freq64, w64, x) })

		// Each gradient alone gives the bits of the full call.
		alone := [4][]float32{garbage(N * F), make([]float32, F*K), make([]float32, F*D*2*K), make([]float32, F*D)}
		PLRBackward(1, alone[0], nil, nil, nil, garbage(N*F*2*K), g, feat, in, freq, w, N, F, K, D)
		PLRBackward(1, nil, alone[1], nil, nil, garbage(N*F*2*K), g, feat, in, freq, w, N, F, K, D)
		PLRBackward(1, nil, nil, alone[2], nil, nil, g, feat, in, freq, w, N, F, K, D)
		PLRBackward(1, nil, nil, nil, alone[3], nil, g, feat, in, freq, w, N, F, K, D)
		full := [4][]float32{garbage(N * F), make([]float32, F*K), make([]float32, F*D*2*K), make([]float32, F*D)}
		PLRBackward(1, full[0], full[1], full[2], full[3], garbage(N*F*2*K), g, feat, in, freq, w, N, F, K, D)
		for q := range alone {
			if i := equalBits(alone[q], full[q]); i >= 0 {
				t.Errorf("%+v: gradient %d alone differs at %d", sz, q, i)
			}
		}
	}
}

func TestPLRPanics(t *testing.T) {
	N, F, K, D := 2, 2, 3, 2
	ok := func() (out, feat, in, freq, w, b []float32) {
		return make([]float32, N*F*D), make([]float32, N*F*2*K), make([]float32, N*F), make([]float32, F*K), make([]float32, F*D*2*K), make([]float32, F*D)
	}
	out, feat, in, freq, w, b := ok()
	mustPanic(t, "short w", func() { PLRForward(1, out, feat, in, freq, w[:5], b, N, F, K, D) })
	mustPanic(t, "short feat", func() { PLRForward(1, out, feat[:3], in, freq, w, b, N, F, K, D) })
	mustPanic(t, "negative K", func() { PLRForward(1, out, feat, in, freq, w, b, N, F, -1, D) })
	mustPanic(t, "no dfeat", func() {
		PLRBackward(1, make([]float32, N*F), nil, nil, nil, nil, out, feat, in, freq, w, N, F, K, D)
	})
	mustPanic(t, "short dw", func() {
		PLRBackward(1, nil, nil, make([]float32, 3), nil, nil, out, feat, in, freq, w, N, F, K, D)
	})
}

// TestPLRZeroSizes: empty shapes do nothing and do not panic (din is
// zeroed when there are no frequencies: the output does not depend on x).
func TestPLRZeroSizes(t *testing.T) {
	for _, sz := range [][4]int{{0, 2, 3, 2}, {2, 0, 3, 2}, {2, 2, 0, 2}, {2, 2, 3, 0}} {
		N, F, K, D := sz[0], sz[1], sz[2], sz[3]
		r := rng.New(3)
		in, freq, w, b := uniform(r, N*F, 1), uniform(r, F*K, 1), uniform(r, F*D*2*K, 1), uniform(r, F*D, 1)
		out, feat := garbage(N*F*D), garbage(N*F*2*K)
		PLRForward(2, out, feat, in, freq, w, b, N, F, K, D)
		for i, v := range out {
			if v != b[i%(F*D)] {
				t.Errorf("%v: out[%d] = %v, want the bias %v", sz, i, v, b[i%(F*D)])
			}
		}
		din, dfreq, dw, db := garbage(N*F), make([]float32, F*K), make([]float32, F*D*2*K), make([]float32, F*D)
		PLRBackward(2, din, dfreq, dw, db, garbage(N*F*2*K), uniform(r, N*F*D, 1), feat, in, freq, w, N, F, K, D)
		if K == 0 || D == 0 {
			for i, v := range din {
				if v != 0 {
					t.Errorf("%v: din[%d] = %v, want 0", sz, i, v)
				}
			}
		}
	}
}
