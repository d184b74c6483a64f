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
		if !(math.Abs(mean) <= 1e-9) || !(math.Abs(std-wantStd) <= 1e-9) {
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
		if !(math.Abs(s.Std[0]-want) <= 1e-6*want) || s.Mean[0] != 0 {
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

// Features near the top of float64's range (up to 1.7e308) get a finite
// mean and sd: the plain sums of values and of squared deviations
// overflowed, and training refused them ("span too wide a range", sd
// +Inf). Other features keep the plain formula's bits.
func TestStandardizerHugeFeature(t *testing.T) {
	for _, c := range []struct {
		x         []float64
		mean, std float64
	}{
		{[]float64{1e300, 2e300, 3e300, 4e300}, 2.5e300, math.Sqrt(1.25) * 1e300},
		{[]float64{6e301, 0, 6e301, 0}, 3e301, 3e301},
		{[]float64{1.7e308, -1.7e308}, 0, 1.7e308},
		{[]float64{1.7e308, 1.7e308, 1.6e308, 1.6e308}, 1.65e308, 0.05e308},
	} {
		s := FitStandardizer(c.x, 1)
		if !(math.Abs(s.Mean[0]-c.mean) <= 1e-12*math.Abs(c.std)) || !(math.Abs(s.Std[0]-c.std) <= 1e-12*c.std) {
			t.Errorf("%v: mean %v sd %v, want %v and %v", c.x, s.Mean[0], s.Std[0], c.mean, c.std)
		}
	}
	// Many rows: the plain sum of the values overflows too.
	x := make([]float64, 4000)
	for i := range x {
		x[i] = float64(i%2+1) * 1e305
	}
	if s := FitStandardizer(x, 1); !(math.Abs(s.Mean[0]-1.5e305) <= 1e-12*1.5e305) || !(math.Abs(s.Std[0]-0.5e305) <= 1e-12*0.5e305) {
		t.Errorf("4000 rows of 1e305 and 2e305: mean %v sd %v", s.Mean[0], s.Std[0])
	}
}

// plainStandardizer is FitStandardizer's computation before overflowing
// features got their own (for features of magnitude above about 1e-154).
func plainStandardizer(x []float64) (mean, std float64) {
	sum := 0.0
	for _, v := range x {
		sum += v
	}
	mean = sum / float64(len(x))
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(x)))
}

// Features whose sums do not overflow keep the plain formula's bits
// (committed results depend on them), up to 1e150 in magnitude.
func TestStandardizerBitsKept(t *testing.T) {
	r := rand.New(newTestPCG())
	for _, scale := range []float64{1e-100, 1e-3, 1, 1e6, 1e100, 1e150} {
		x := make([]float64, 997)
		for i := range x {
			x[i] = scale * (r.NormFloat64() + 3)
		}
		s := FitStandardizer(x, 1)
		if m, sd := plainStandardizer(x); s.Mean[0] != m || s.Std[0] != sd {
			t.Errorf("scale %v: mean %v sd %v, the plain formula gives %v and %v", scale, s.Mean[0], s.Std[0], m, sd)
		}
	}
}
