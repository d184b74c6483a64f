package nn

import (
	"math"
	"testing"

	"decoreg/internal/rng"
)

// garbage returns n NaNs: a Set variant must not read what it overwrites.
func garbage(n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(math.NaN())
	}
	return s
}

// TestSetVariants checks every ...Set backward against its accumulating
// twin run on a zeroed buffer: the same bits, whatever the overwritten
// buffer held, and the same parameter gradients.
func TestSetVariants(t *testing.T) {
	r := rng.New(60)
	N, C, OC := 7, 12, 9
	dout, in, w := uniform(r, N*OC, 1), uniform(r, N*C, 1), uniform(r, OC*C, 1)
	acc, set := make([]float32, N*C), garbage(N*C)
	dw1, db1, dw2, db2 := make([]float32, OC*C), make([]float32, OC), make([]float32, OC*C), make([]float32, OC)
	LinearBackward(acc, dw1, db1, dout, in, w, N, C, OC)
	LinearBackwardSet(set, dw2, db2, dout, in, w, N, C, OC)
	if equalBits(acc, set) >= 0 || equalBits(dw1, dw2) >= 0 || equalBits(db1, db2) >= 0 {
		t.Error("LinearBackwardSet differs from LinearBackward into zeros")
	}
	set, dw3 := garbage(N*C), garbage(OC*C)
	db3 := make([]float32, OC)
	LinearBackwardMode(set, dw3, db3, dout, in, w, N, C, OC, false, false)
	if equalBits(acc, set) >= 0 || equalBits(dw1, dw3) >= 0 || equalBits(db1, db3) >= 0 {
		t.Error("LinearBackwardMode overwriting differs from LinearBackward into zeros")
	}

	for _, C := range []int{12, 16} { // Go and vector rows
		g, x, lw := uniform(r, N*C, 1), uniform(r, N*C, 2), uniform(r, C, 1)
		out, mean, rstd := make([]float32, N*C), make([]float32, N), make([]float32, N)
		LayerNormForward(out, mean, rstd, x, lw, uniform(r, C, 1), N, C, 1e-6)
		acc, set := make([]float32, N*C), garbage(N*C)
		w1, b1, w2, b2 := make([]float32, C), make([]float32, C), make([]float32, C), make([]float32, C)
		LayerNormBackward(acc, w1, b1, g, x, lw, mean, rstd, N, C)
		LayerNormBackwardSet(set, w2, b2, g, x, lw, mean, rstd, N, C)
		if equalBits(acc, set) >= 0 || equalBits(w1, w2) >= 0 || equalBits(b1, b2) >= 0 {
			t.Errorf("C %d: LayerNormBackwardSet differs from LayerNormBackward into zeros", C)
		}
	}

	for _, useGemm := range []bool{false, true} {
		B, T, C, NH := 3, 5, 16, 2
		qkv, g := uniform(r, B*T*3*C, 1), uniform(r, B*T*C, 1)
		o, pre, att := make([]float32, B*T*C), make([]float32, B*NH*T*T), make([]float32, B*NH*T*T)
		withGemmAttention(useGemm, func() {
			AttentionForward(o, pre, att, qkv, B, T, C, NH)
			acc, set := make([]float32, B*T*3*C), garbage(B*T*3*C)
			AttentionBackward(acc, make([]float32, B*NH*T*T), make([]float32, B*NH*T*T), g, qkv, att, B, T, C, NH)
			AttentionBackwardSet(set, make([]float32, B*NH*T*T), make([]float32, B*NH*T*T), g, qkv, att, B, T, C, NH)
			if i := equalBits(acc, set); i >= 0 {
				t.Errorf("gemm %v: AttentionBackwardSet differs from AttentionBackward into zeros at %d: %v vs %v", useGemm, i, set[i], acc[i])
			}
		})
	}

	V := 6
	logits, tg := uniform(r, N*V, 2), make([]int32, N)
	for i := range tg {
		tg[i] = int32(r.IntN(V))
	}
	losses, probs := make([]float32, N), make([]float32, N*V)
	SoftmaxCrossEntropyForward(losses, probs, logits, tg, nil, N, V)
	dl := uniform(r, N, 1)
	acc, set = make([]float32, N*V), garbage(N*V)
	SoftmaxCrossEntropyBackward(acc, dl, probs, tg, N, V)
	SoftmaxCrossEntropyBackwardSet(set, dl, probs, tg, N, V)
	if equalBits(acc, set) >= 0 {
		t.Error("SoftmaxCrossEntropyBackwardSet differs from SoftmaxCrossEntropyBackward into zeros")
	}
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
		ReLUInPlace(got)
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
		ReLUMask(d, x)
		if i := equalBits(d, wantD); i >= 0 {
			t.Fatalf("n %d: ReLUMask at %v gives %v, want %v", n, x[i], d[i], wantD[i])
		}
	}
}
