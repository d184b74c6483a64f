package data

import (
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
