package decoreg

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"decoreg/metrics"
	"decoreg/vocab"
)

// TestMeanTolOneDefault: Predict's mean used decoreg.DefaultMeanTol (1e-3)
// and Dist(x).Mean() dist.DefaultMeanTol (1e-6), so they differed for the
// same row. There is one default now; the two agree exactly for every head.
func TestMeanTolOneDefault(t *testing.T) {
	for _, hc := range headCases {
		t.Run(hc.name, func(t *testing.T) {
			m := fit(t, hc.cfg, true)
			xs := []float64{-1.7, -0.3, 0.4, 1.9}
			p, err := m.PredictFlat(context.Background(), xs, len(xs), PredictOptions{Outputs: OutMean})
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range xs {
				d, err := m.Dist([]float64{x})
				if err != nil {
					t.Fatal(err)
				}
				if got := d.Mean(); got != p.Mean[i] {
					t.Errorf("x = %v: Dist(x).Mean() = %v, Predict's mean %v", x, got, p.Mean[i])
				}
			}
		})
	}
}

// abaloneLike is a target of about 10 (4..16) with a feature that explains
// most of it, like the abalone data where the mean came out as -2.6e7.
func abaloneLike(n int, seed uint64) (x, y []float64) {
	r := rand.New(rand.NewPCG(seed, 3))
	x = make([]float64, n)
	y = make([]float64, n)
	for i := range x {
		x[i] = 4*r.Float64() - 2
		y[i] = math.Round(10 + 2.5*x[i] + r.NormFloat64())
	}
	return x, y
}

// TestP4UnnormalizedPointEstimates: with an unnormalized decoder every
// column Predict writes must be a usable estimate. Before the bound the
// mean was swayed by the mass on absurd exponents (-2.6e7 on abalone-like
// data, NaN with base 2, exponent 10) and the mode was the centre of the
// training range (the tiny zero cell, densest) for every row.
func TestP4UnnormalizedPointEstimates(t *testing.T) {
	xtr, ytr := abaloneLike(400, 1)
	xte, yte := abaloneLike(50, 2)
	for _, c := range []struct {
		spec string
		raw  bool
	}{
		{"unnormalized:base=10,exponent=1,mantissa=4", false},
		{"unnormalized:base=10,exponent=1,mantissa=4", true},
		{"unnormalized:base=2,exponent=10,mantissa=8", false},
	} {
		cfg := small(HeadDecoder, c.spec)
		cfg.RawTarget = c.raw
		cfg.MaxEpochs = 10
		t.Run(c.spec+map[bool]string{false: "", true: "/raw"}[c.raw], func(t *testing.T) {
			m, err := FitFlat(context.Background(), xtr, len(ytr), 1, ytr, cfg)
			if err != nil {
				t.Fatal(err)
			}
			p, err := m.PredictFlat(context.Background(), xte, len(xte), PredictOptions{Outputs: OutMean | OutMedian | OutMode})
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := m.YRange()
			r := hi - lo
			for name, col := range map[string][]float64{"mean": p.Mean, "median": p.Median, "mode": p.Mode} {
				for i, v := range col {
					if !(v >= lo-BoundMargin*r-1e-9 && v <= hi+BoundMargin*r+1e-9) {
						t.Fatalf("%s of row %d is %v, outside the training range [%v, %v] widened by %v", name, i, v, lo, hi, BoundMargin)
					}
				}
			}
			centre := 0
			for _, v := range p.Mode {
				if math.Abs(v-(lo+hi)/2) < 1e-6*r {
					centre++
				}
			}
			if centre == len(p.Mode) {
				t.Errorf("the mode is the centre of the training range for every row")
			}
			mean, med := metrics.MSE(p.Mean, yte), metrics.MSE(p.Median, yte)
			t.Logf("mse mean %.4g, median %.4g, mode %.4g", mean, med, metrics.MSE(p.Mode, yte))
			if mean > 2*med {
				t.Errorf("mse of the mean %v is more than twice the median's %v", mean, med)
			}
		})
	}
}

// TestP4BoundAfterLoad: a loaded model derives the same bound from the y
// range and config it stores, so it predicts exactly what it did.
func TestP4BoundAfterLoad(t *testing.T) {
	m := fit(t, headCases[1].cfg, true)
	b, ok := m.Tokenizer().(*vocab.Bounded)
	if !ok {
		t.Fatalf("the tokenization of an unnormalized decoder is %T, not bounded", m.Tokenizer())
	}
	path := filepath.Join(t.TempDir(), "m.model")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	m2, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	b2, ok := m2.Tokenizer().(*vocab.Bounded)
	if !ok {
		t.Fatalf("loaded: %T", m2.Tokenizer())
	}
	lo, hi := b.Bounds()
	lo2, hi2 := b2.Bounds()
	if lo != lo2 || hi != hi2 || lo != m.units.ToHead(-BoundMargin) || hi != m.units.ToHead(1+BoundMargin) {
		t.Errorf("bounds [%v, %v], after Load [%v, %v]; want ±%v", lo, hi, lo2, hi2, 0.5+BoundMargin)
	}
	xs := []float64{-1, 0, 1}
	all := OutMean | OutMedian | OutMode
	p, _ := m.PredictFlat(context.Background(), xs, 3, PredictOptions{Outputs: all})
	p2, _ := m2.PredictFlat(context.Background(), xs, 3, PredictOptions{Outputs: all})
	for i := range xs {
		if p.Mean[i] != p2.Mean[i] || p.Median[i] != p2.Median[i] || p.Mode[i] != p2.Mode[i] {
			t.Errorf("row %d: %v %v %v, after Load %v %v %v", i, p.Mean[i], p.Median[i], p.Mode[i], p2.Mean[i], p2.Median[i], p2.Mode[i])
		}
	}
}
