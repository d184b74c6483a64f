package vec

import (
	"math"
	"testing"

	"decoreg/internal/rng"
)

// TestExpNeg checks expNeg against math.Exp (within 2 ulp on [-708, 0],
// 0 below, NaN kept) and the vector kernel against expNeg bit for bit.
func TestExpNeg(t *testing.T) {
	r := rng.New(70)
	xs := []float64{0, math.Copysign(0, -1), -1e-300, -0.5 * math.Ln2, -math.Ln2, -1, -10, -87.3, -700, -708,
		-708.0000001, -745, -1000, math.Inf(-1), math.NaN(), -5e-324}
	for range 20000 {
		xs = append(xs, -r.Float64()*30, -r.Float64()*710, -math.Abs(r.NormFloat64()))
	}
	got := append([]float64(nil), xs...)
	ExpNegInPlace(got)
	for _, m := range []int{1, 2, 3, 5, 7} { // short slices and tails
		part := append([]float64(nil), xs[:m]...)
		ExpNegInPlace(part)
		copy(got[:m], part)
	}
	for i, x := range xs {
		g := expNeg(x)
		if math.Float64bits(g) != math.Float64bits(got[i]) && !(math.IsNaN(g) && math.IsNaN(got[i])) {
			t.Fatalf("ExpNegInPlace(%v) = %v, expNeg %v", x, got[i], g)
		}
		want := math.Exp(x)
		switch {
		case math.IsNaN(x):
			if !math.IsNaN(g) {
				t.Fatalf("expNeg(NaN) = %v", g)
			}
		case x < expMinArg:
			if g != 0 {
				t.Fatalf("expNeg(%v) = %v, want 0", x, g)
			}
		default:
			if d := math.Abs(g - want); !(d <= 2*ulp(want)) {
				t.Fatalf("expNeg(%v) = %v, math.Exp %v: %v ulp", x, g, want, d/ulp(want))
			}
		}
	}
}

func ulp(x float64) float64 {
	return math.Nextafter(math.Abs(x), math.Inf(1)) - math.Abs(x)
}

func BenchmarkExpNeg(b *testing.B) {
	x := make([]float64, 1024)
	y := make([]float64, 1024)
	for i := range x {
		x[i] = -float64(i%37) * 0.3
	}
	for b.Loop() {
		copy(y, x)
		ExpNegInPlace(y)
	}
}
