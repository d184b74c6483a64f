package nn

import (
	"math"
	"testing"

	"decoreg/internal/rng"
)

func TestInitLinear(t *testing.T) {
	C, OC := 100, 200
	w, b := make([]float32, OC*C), make([]float32, OC)
	InitLinear(w, b, C, rng.New(18))
	bound := 1 / math.Sqrt(float64(C))
	var s, s2 float64
	for _, v := range append(w, b...) {
		if math.Abs(float64(v)) > bound {
			t.Fatalf("value %v outside ±%v", v, bound)
		}
		s += float64(v)
		s2 += float64(v) * float64(v)
	}
	n := float64(len(w) + len(b))
	if mean := s / n; math.Abs(mean) > 0.01*bound {
		t.Errorf("mean %v", mean)
	}
	if vr := s2 / n; math.Abs(vr/(bound*bound/3)-1) > 0.02 {
		t.Errorf("variance %v, want %v", vr, bound*bound/3)
	}
	w2, b2 := make([]float32, OC*C), make([]float32, OC)
	InitLinear(w2, b2, C, rng.New(18))
	if equalBits(w, w2) >= 0 || equalBits(b, b2) >= 0 {
		t.Error("same seed, different initialisation")
	}
}

func TestInitNormalAndLayerNorm(t *testing.T) {
	x := make([]float32, 50000)
	InitNormal(x, 0.02, rng.New(19))
	var s2 float64
	for _, v := range x {
		s2 += float64(v) * float64(v)
	}
	if sd := math.Sqrt(s2 / float64(len(x))); math.Abs(sd/0.02-1) > 0.02 {
		t.Errorf("std %v, want 0.02", sd)
	}
	w, b := []float32{5, 5}, []float32{5, 5}
	InitLayerNorm(w, b)
	if w[0] != 1 || w[1] != 1 || b[0] != 0 || b[1] != 0 {
		t.Errorf("InitLayerNorm gave %v %v", w, b)
	}
}
