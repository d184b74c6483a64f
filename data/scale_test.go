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

// A feature of tiny magnitude (below about 1e-154 its squared deviations
// underflow) is standardised like any other, not taken for a constant;
// one of ordinary magnitude keeps the plain formula's bits.
func TestStandardizerTinyFeature(t *testing.T) {
	for _, scale := range []float64{1e-170, 1e-200, 1e-300} {
		x := []float64{-1 * scale, 1 * scale, -1 * scale, 1 * scale, 3 * scale, -3 * scale}
		s := FitStandardizer(x, 1)
		// The values are -+1 four times and -+3 twice: mean 0, variance 22/6.
		want := math.Sqrt(22.0/6) * scale
		if math.Abs(s.Std[0]-want) > 1e-6*want || s.Mean[0] != 0 {
			t.Errorf("scale %v: mean %v std %v, want 0 and %v", scale, s.Mean[0], s.Std[0], want)
		}
	}
	x := []float64{0.5, 1.5, 2.25, -4}
	s := FitStandardizer(x, 1)
	mean := (0.5 + 1.5 + 2.25 - 4) / 4
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	if s.Std[0] != math.Sqrt(ss/4) || s.Mean[0] != mean {
		t.Errorf("ordinary feature: %v %v", s.Mean[0], s.Std[0])
	}
}
