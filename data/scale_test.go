package data

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func newTestPCG() *rand.PCG { return rand.NewPCG(1, 2) }

func TestStandardizer(t *testing.T) {
	// Column 0 varies, column 1 is constant at 0.1 (whose float sum is not
	// exactly n*0.1), column 2 has a large offset.
	const rows, cols = 1000, 3
	r := rand.New(newTestPCG())
	x := make([]float64, rows*cols)
	for i := 0; i < rows; i++ {
		x[i*cols] = 3 + 2*r.NormFloat64()
		x[i*cols+1] = 0.1
		x[i*cols+2] = 1e6 + r.Float64()
	}
	s := FitStandardizer(x, cols)
	if s.Std[1] != 1 || s.Mean[1] != 0.1 {
		t.Errorf("constant column: mean %v std %v", s.Mean[1], s.Std[1])
	}
	s.Apply(x)
	for j := 0; j < cols; j++ {
		var sum, ss float64
		for i := 0; i < rows; i++ {
			sum += x[i*cols+j]
		}
		mean := sum / rows
		for i := 0; i < rows; i++ {
			ss += (x[i*cols+j] - mean) * (x[i*cols+j] - mean)
		}
		std := math.Sqrt(ss / rows)
		wantStd := 1.0
		if j == 1 {
			wantStd = 0
		}
		if math.Abs(mean) > 1e-9 || math.Abs(std-wantStd) > 1e-9 {
			t.Errorf("column %d after Apply: mean %v std %v", j, mean, std)
		}
	}
	// A hand-computed case: values 1, 3 -> mean 2, population std 1.
	s = FitStandardizer([]float64{1, 3}, 1)
	if s.Mean[0] != 2 || s.Std[0] != 1 {
		t.Errorf("got %+v", s)
	}
}

func TestMinMax(t *testing.T) {
	m, err := FitMinMax([]float64{3, -1, 7, 2})
	if err != nil || m.Min != -1 || m.Max != 7 {
		t.Fatalf("%+v %v", m, err)
	}
	for _, c := range []struct{ y, u float64 }{{-1, 0}, {7, 1}, {3, 0.5}, {1, 0.25}, {15, 2}} {
		if got := m.Forward(c.y); got != c.u {
			t.Errorf("Forward(%v) = %v, want %v", c.y, got, c.u)
		}
		if got := m.Inverse(c.u); got != c.y {
			t.Errorf("Inverse(%v) = %v, want %v", c.u, got, c.y)
		}
	}
	if m.LogScale() != math.Log(8) {
		t.Errorf("LogScale %v", m.LogScale())
	}
	for _, c := range []struct {
		y, want float64
		out     bool
	}{{-2, -1, true}, {8, 7, true}, {0, 0, false}, {7, 7, false}} {
		if got, out := m.Clip(c.y); got != c.want || out != c.out {
			t.Errorf("Clip(%v) = %v %v", c.y, got, out)
		}
	}
	if _, err := FitMinMax([]float64{2, 2, 2}); !errors.Is(err, ErrConstantTarget) {
		t.Errorf("constant: %v", err)
	}
	if _, err := FitMinMax([]float64{1, math.NaN()}); !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN: %v", err)
	}
	if _, err := FitMinMax([]float64{-1e308, 1e308}); !errors.Is(err, ErrNonFinite) {
		t.Errorf("overflowing range: %v", err)
	}
}
