package nn

import (
	"math"
	"testing"
)

// TestDropout checks the kept fraction against 1-p (binomial, 6 sigma),
// the kept values' scale, that the mask does not depend on the thread
// count and agrees with DropKept, that seeds differ, and DropoutScale.
func TestDropout(t *testing.T) {
	const n = 1 << 16
	for _, p := range []float64{0, 0.1, 0.5, 0.9} {
		var masks [][]float32
		for _, threads := range []int{1, 2, 3} {
			s := make([]float32, n)
			for i := range s {
				s[i] = 1.5
			}
			DropoutInPlace(threads, s, p, 42)
			masks = append(masks, s)
		}
		kept := 0
		for i, v := range masks[0] {
			for _, o := range masks[1:] {
				if o[i] != v {
					t.Fatalf("p=%v: element %d differs between thread counts", p, i)
				}
			}
			switch {
			case v == 0:
				if DropKept(42, i, p) {
					t.Fatalf("p=%v: element %d dropped, DropKept says kept", p, i)
				}
			case v == float32(1.5*float32(1/(1-p))):
				kept++
				if !DropKept(42, i, p) {
					t.Fatalf("p=%v: element %d kept, DropKept says dropped", p, i)
				}
			default:
				t.Fatalf("p=%v: element %d = %v", p, i, v)
			}
		}
		want := (1 - p) * n
		if sd := math.Sqrt(n * p * (1 - p)); math.Abs(float64(kept)-want) > 6*sd+0.5 {
			t.Errorf("p=%v: kept %d of %d, want about %.0f (sd %.1f)", p, kept, n, want, sd)
		}
	}
	same := 0
	for i := range n {
		if DropKept(1, i, 0.5) == DropKept(2, i, 0.5) {
			same++
		}
	}
	if math.Abs(float64(same)-n/2) > 6*math.Sqrt(n/4) {
		t.Errorf("seeds 1 and 2 agree on %d of %d elements: not independent", same, n)
	}
	// A dropped NaN or Inf is +0 too; a kept one stays what it was.
	bad := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
	for i := range 300 {
		s := []float32{bad[i%3]}
		DropoutInPlace(1, s, 0.5, uint64(i))
		if DropKept(uint64(i), 0, 0.5) {
			if !(math.IsNaN(float64(s[0])) || math.IsInf(float64(s[0]), 0)) {
				t.Fatalf("kept %v became %v", bad[i%3], s[0])
			}
		} else if math.Float32bits(s[0]) != 0 {
			t.Fatalf("dropped %v became %v, want +0", bad[i%3], s[0])
		}
	}
	d := []float32{1, -2, 4}
	DropoutScale(1, d, 0.75)
	if d[0] != 4 || d[1] != -8 || d[2] != 16 {
		t.Errorf("DropoutScale: %v", d)
	}
}
