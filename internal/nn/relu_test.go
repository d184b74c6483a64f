package nn

import (
	"testing"

	"decoreg/internal/rng"
)

func relu64(x []float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		if v > 0 {
			y[i] = v
		}
	}
	return y
}

func TestReLU(t *testing.T) {
	r := rng.New(2)
	n := 40
	in := uniform(r, n, 1)
	for i, v := range in { // keep inputs away from the kink at 0
		if v > -0.05 && v < 0.05 {
			in[i] = 0.5
		}
	}
	g := uniform(r, n, 1)
	out := make([]float32, n)
	ReLUForward(out, in)
	checkClose(t, "ReLU out", out, relu64(to64(in)), 0, 0)
	din, din0 := prefilled(r, n)
	ReLUBackward(din, g, out)
	checkGrad(t, "ReLU din", din, din0, in, nil, func(x []float64) float64 { return weighted(relu64(x), g) })

	inPlace := append([]float32(nil), in...)
	ReLUForward(inPlace, inPlace)
	if i := equalBits(inPlace, out); i >= 0 {
		t.Errorf("in-place ReLU differs at %d", i)
	}
	mustPanic(t, "aliased backward", func() { ReLUBackward(g, g, out) })
}
