package nn

import (
	"math"
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

// TestReLU checks ReLUInPlace against a float64 ReLU and ReLUMask, the
// backward pass, against finite differences, on 4 threads.
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
	out := clone(in)
	ReLUInPlace(4, out)
	checkClose(t, "ReLU out", out, relu64(to64(in)), 0, 0)
	din := clone(g)
	ReLUMask(4, din, out)
	checkSetGrad(t, "ReLU din", din, in, nil, func(x []float64) float64 { return weighted(relu64(x), g) })
}

// TestReLUInPlaceAndMask checks both against their scalar rules, for
// lengths around the vector width, with zeros of both signs, NaNs of both
// signs and infinities among the values.
func TestReLUInPlaceAndMask(t *testing.T) {
	r := rng.New(61)
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), -float32(math.NaN()),
		float32(math.Inf(1)), float32(math.Inf(-1)), 1e-45, -1e-45}
	for n := 0; n <= 41; n++ {
		x := uniform(r, n, 1)
		for i := range x {
			if r.IntN(3) == 0 {
				x[i] = specials[r.IntN(len(specials))]
			}
		}
		want := make([]float32, n)
		for i, v := range x {
			want[i] = max(v, 0)
		}
		got := clone(x)
		ReLUInPlace(1, got)
		for i := range got { // NaNs may differ in their payload bits
			if nan := math.IsNaN(float64(want[i])); nan != math.IsNaN(float64(got[i])) || !nan && math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("n %d: ReLUInPlace(%v) = %v, want %v", n, x[i], got[i], want[i])
			}
		}
		d := uniform(r, n, 1)
		wantD := clone(d)
		for i, v := range x {
			if b := int32(math.Float32bits(v)); b <= 0 && b != math.MinInt32 {
				wantD[i] = 0
			}
		}
		ReLUMask(1, d, x)
		if i := equalBits(d, wantD); i >= 0 {
			t.Fatalf("n %d: ReLUMask at %v gives %v, want %v", n, x[i], d[i], wantD[i])
		}
	}
}

// TestAddRows checks AddRows (the vector kernel where the build has one)
// against the scalar rule, bit for bit, for widths below, at and past
// multiples of 8, and in place (out = res).
func TestAddRows(t *testing.T) {
	r := rng.New(4)
	for _, sz := range []struct{ N, OC int }{{0, 8}, {1, 3}, {3, 8}, {5, 21}, {2, 64}, {7, 130}} {
		res, b := uniform(r, sz.N*sz.OC, 3), uniform(r, sz.OC, 3)
		want := make([]float32, sz.N*sz.OC)
		for i := range sz.N {
			for j := range sz.OC {
				want[i*sz.OC+j] = res[i*sz.OC+j] + b[j]
			}
		}
		out := make([]float32, sz.N*sz.OC)
		AddRows(out, res, b, sz.N, sz.OC)
		if i := equalBits(out, want); i >= 0 {
			t.Fatalf("N %d OC %d: out[%d] = %v, want %v", sz.N, sz.OC, i, out[i], want[i])
		}
		AddRows(res, res, b, sz.N, sz.OC)
		if i := equalBits(res, want); i >= 0 {
			t.Fatalf("in place, N %d OC %d: [%d] = %v, want %v", sz.N, sz.OC, i, res[i], want[i])
		}
	}
}
