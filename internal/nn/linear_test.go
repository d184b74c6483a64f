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
		LinearForward(2, out, in, w, b, N, C, OC)
		var b64 []float64
		if b != nil {
			b64 = to64(b)
		}
		checkClose(t, "Linear out", out, linear64(to64(in), to64(w), b64, N, C, OC), fwdAtol, fwdRtol)

		pick := func(n int) []int {
			if sz.full {
				return nil
			}
			return sample(n, 40)
		}
		loss := func(in, w, b []float64) float64 { return weighted(linear64(in, w, b, N, C, OC), g) }
		in64, w64 := to64(in), to64(w)
		for _, add := range []bool{false, true} {
			// Overwritten gradients start as NaNs, added-to ones random.
			din, din0 := garbage(N*C), []float32(nil)
			dw, dw0 := garbage(OC*C), []float32(nil)
			var db, db0 []float32
			if b != nil {
				db = garbage(OC)
			}
			if add {
				din, din0 = prefilled(r, N*C)
				dw, dw0 = prefilled(r, OC*C)
				if b != nil {
					db, db0 = prefilled(r, OC)
				}
			}
			LinearBackward(2, din, dw, db, g, in, w, N, C, OC, add, add)
			check := func(name string, got, before, x []float32, idx []int, loss func([]float64) float64) {
				t.Helper()
				if add {
					checkGrad(t, name+" (added)", got, before, x, idx, loss)
				} else {
					checkSetGrad(t, name, got, x, idx, loss)
				}
			}
			check("Linear din", din, din0, in, pick(N*C), func(x []float64) float64 { return loss(x, w64, b64) })
			check("Linear dw", dw, dw0, w, pick(OC*C), func(x []float64) float64 { return loss(in64, x, b64) })
			if b != nil {
				check("Linear db", db, db0, b, nil, func(x []float64) float64 { return loss(in64, w64, x) })
			}
		}
	}
}

// TestLinearBackwardModes checks that overwriting gives the bits of adding
// into zeros, whatever the overwritten buffers held, for each gradient
// alone and all together, in both combinations of the two flags.
func TestLinearBackwardModes(t *testing.T) {
	r := rng.New(60)
	N, C, OC := 7, 12, 9
	dout, in, w := uniform(r, N*OC, 1), uniform(r, N*C, 1), uniform(r, OC*C, 1)
	din, dw, db := make([]float32, N*C), make([]float32, OC*C), make([]float32, OC)
	LinearBackward(1, din, dw, db, dout, in, w, N, C, OC, true, true)
	for _, mode := range [][2]bool{{false, false}, {false, true}, {true, false}} {
		start := func(n int, add bool) []float32 {
			if add {
				return make([]float32, n)
			}
			return garbage(n)
		}
		din2, dw2, db2 := start(N*C, mode[0]), start(OC*C, mode[1]), start(OC, mode[1])
		LinearBackward(1, din2, dw2, db2, dout, in, w, N, C, OC, mode[0], mode[1])
		if equalBits(din, din2) >= 0 || equalBits(dw, dw2) >= 0 || equalBits(db, db2) >= 0 {
			t.Errorf("addIn %v, addParams %v differs from adding into zeros", mode[0], mode[1])
		}
		alone := [3][]float32{start(N*C, mode[0]), start(OC*C, mode[1]), start(OC, mode[1])}
		LinearBackward(1, alone[0], nil, nil, dout, in, w, N, C, OC, mode[0], mode[1])
		LinearBackward(1, nil, alone[1], nil, dout, in, w, N, C, OC, mode[0], mode[1])
		LinearBackward(1, nil, nil, alone[2], dout, in, w, N, C, OC, mode[0], mode[1])
		if equalBits(din, alone[0]) >= 0 || equalBits(dw, alone[1]) >= 0 || equalBits(db, alone[2]) >= 0 {
			t.Errorf("addIn %v, addParams %v: a gradient alone differs from the full call", mode[0], mode[1])
		}
	}
}

func TestLinearPanics(t *testing.T) {
	mustPanic(t, "short w", func() { LinearForward(1, make([]float32, 4), make([]float32, 4), make([]float32, 3), nil, 2, 2, 2) })
	mustPanic(t, "short db", func() {
		LinearBackward(1, nil, nil, make([]float32, 1), make([]float32, 4), make([]float32, 4), make([]float32, 4), 2, 2, 2, false, true)
	})
}
