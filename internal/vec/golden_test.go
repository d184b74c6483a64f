package vec

import (
	"math"
	"testing"
)

// TestGoldenMin: the minimum of a parabola and of |x - c| inside the
// interval, and the edge when the minimum lies outside it.
func TestGoldenMin(t *testing.T) {
	for _, c := range []struct {
		f      func(float64) float64
		lo, hi float64
		want   float64
	}{
		{func(x float64) float64 { return (x - 0.3) * (x - 0.3) }, -3, 3, 0.3},
		{func(x float64) float64 { return math.Abs(x + 1.7) }, -3, 3, -1.7},
		{func(x float64) float64 { return x }, -3, 3, -3},
		{func(x float64) float64 { return -x }, -3, 3, 3},
	} {
		x, fx := GoldenMin(c.f, c.lo, c.hi, 60)
		if math.Abs(x-c.want) > 1e-9 || fx != c.f(x) {
			t.Errorf("min at %v (f %v), want %v", x, fx, c.want)
		}
	}
}
