package vec

import (
	"math"
	"testing"
)

func TestLogMeanExp(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		v    []float64
		want float64
	}{
		{[]float64{0}, 0},
		{[]float64{math.Log(1), math.Log(3)}, math.Log(2)},
		{[]float64{-1000, -1000 + math.Log(3)}, -1000 + math.Log(2)}, // exp underflows without the shift
		{[]float64{1000, 1000}, 1000},                                // exp overflows without the shift
		{[]float64{-inf, math.Log(4)}, math.Log(2)},
		{[]float64{-inf, -inf}, -inf},
		{[]float64{inf, 0}, inf},
	} {
		if got := LogMeanExp(c.v); !(math.Abs(got-c.want) <= 1e-12) && got != c.want {
			t.Errorf("LogMeanExp(%v) = %v, want %v", c.v, got, c.want)
		}
	}
	if got := LogMeanExp([]float64{0, math.NaN()}); !math.IsNaN(got) {
		t.Errorf("with a NaN: %v", got)
	}
}
