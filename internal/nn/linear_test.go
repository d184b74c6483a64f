package nn

import (
	"testing"

	"decoreg/internal/rng"
)

// linear64 is the float64 twin of LinearForward.
func linear64(in, w, b []float64, N, C, OC int) []float64 {
	out := make([]float64, N*OC)
	for i := 0; i < N; i++ {
		for o := 0; o < OC; o++ {
			s := 0.0
			if b != nil {
				s = b[o]
			}
			for c := 0; c < C; c++ {
				s += in[i*C+c] * w[o*C+c]
			}
			out[i*OC+o] = s
		}
	}
	return out
}

func TestLinear(t *testing.T) {
	for _, sz := range []struct {
		N, C, OC int
		bias     bool
		full     bool
	}{{3, 5, 4, true, true}, {1, 1, 1, true, true}, {2, 3, 2, false, true}, {5, 9, 70, true, false}} {
		r := rng.New(1)
		N, C, OC := sz.N, sz.C, sz.OC
		in, w, g := uniform(r, N*C, 1), uniform(r, OC*C, 1), uniform(r, N*OC, 1)
		var b []float32
		if sz.bias {
			b = uniform(r, OC, 1)
		}
		out := uniform(r, N*OC, 1) // garbage that Forward must overwrite
		LinearForward(out, in, w, b, N, C, OC)
		var b64 []float64
		if b != nil {
			b64 = to64(b)
		}
		checkClose(t, "Linear out", out, linear64(to64(in), to64(w), b64, N, C, OC), fwdAtol, fwdRtol)

		din, din0 := prefilled(r, N*C)
		dw, dw0 := prefilled(r, OC*C)
		var db, db0 []float32
		if b != nil {
			db, db0 = prefilled(r, OC)
		}
		LinearBackward(din, dw, db, g, in, w, N, C, OC)
		pick := func(n int) []int {
			if sz.full {
				return nil
			}
			return sample(n, 40)
		}
		checkGrad(t, "Linear din", din, din0, in, pick(N*C), func(x []float64) float64 {
			return weighted(linear64(x, to64(w), b64, N, C, OC), g)
		})
		checkGrad(t, "Linear dw", dw, dw0, w, pick(OC*C), func(x []float64) float64 {
			return weighted(linear64(to64(in), x, b64, N, C, OC), g)
		})
		if b != nil {
			checkGrad(t, "Linear db", db, db0, b, nil, func(x []float64) float64 {
				return weighted(linear64(to64(in), to64(w), x, N, C, OC), g)
			})
		}
		// nil gradients are skipped; the others still accumulate.
		dw2, _ := prefilled(r, OC*C)
		want := append([]float32(nil), dw2...)
		LinearBackward(nil, dw2, nil, g, in, w, N, C, OC)
		LinearBackward(nil, want, nil, g, in, w, N, C, OC)
		if equalBits(dw2, want) >= 0 {
			t.Error("LinearBackward not deterministic")
		}
	}
}

func TestLinearPanics(t *testing.T) {
	mustPanic(t, "short w", func() { LinearForward(make([]float32, 4), make([]float32, 4), make([]float32, 3), nil, 2, 2, 2) })
	mustPanic(t, "short db", func() {
		LinearBackward(nil, nil, make([]float32, 1), make([]float32, 4), make([]float32, 4), make([]float32, 4), 2, 2, 2)
	})
}
