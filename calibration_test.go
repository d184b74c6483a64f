package decoreg

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestCalibration: on targets that do not depend on x (y ~ N(1, 0.5²)), a
// fitted density head predicts the marginal, so its central intervals
// cover about their mass of fresh targets, their widths are near the
// normal's, the PIT values are near uniform, and the mean CRPS is near the
// normal's expected score sigma/sqrt(pi). The pointwise head reports no
// calibration.
func TestCalibration(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	draw := func(n int) ([]float64, []float64) {
		x, y := make([]float64, n), make([]float64, n)
		for i := range n {
			x[i] = r.Float64()
			y[i] = 1 + 0.5*r.NormFloat64()
		}
		return x, y
	}
	xTr, yTr := draw(4000)
	xTe, yTe := draw(3000)
	for _, h := range []Head{HeadRiemann, HeadMDN, HeadDecoder} {
		cfg := Config{Head: h, EncLayers: 1, EncWidth: 16, MaxEpochs: 8, Seed: 1, Threads: 1, Bins: 32}
		if h == HeadDecoder {
			cfg.Vocab = "normalized:base=4,length=4"
		}
		m, err := FitFlat(context.Background(), xTr, len(yTr), 1, yTr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		e, err := m.Calibration(context.Background(), xTe, len(yTe), yTe)
		if err != nil {
			t.Fatal(err)
		}
		if want := 0.5 / math.Sqrt(math.Pi); !(math.Abs(e.CRPS-want) <= 0.1*want) || !(e.CRPSBound >= 0 && e.CRPSBound < 0.01) {
			t.Errorf("%s: crps %v (bound %v), the normal's %v", h, e.CRPS, e.CRPSBound, want)
		}
		if len(e.PIT) != len(yTe) {
			t.Errorf("%s: %d PIT values", h, len(e.PIT))
		}
		for _, c := range []struct {
			key  string
			mass float64
		}{{"0.5", 0.5}, {"0.8", 0.8}, {"0.9", 0.9}, {"0.95", 0.95}} {
			cov, ok := e.Coverage[c.key]
			if !ok || !(math.Abs(cov-c.mass) <= 0.05) {
				t.Errorf("%s: coverage[%s] = %v", h, c.key, cov)
			}
			want := 2 * 0.5 * math.Sqrt2 * math.Erfinv(c.mass) // the normal's central interval
			if w := e.IntervalWidth[c.key]; !(math.Abs(w-want) <= 0.2*want) {
				t.Errorf("%s: interval_width[%s] = %v, the normal's %v", h, c.key, w, want)
			}
		}
		if !(e.PITError < 0.05) {
			t.Errorf("%s: pit_ece = %v", h, e.PITError)
		}
		b, _ := json.Marshal(e)
		if !strings.Contains(string(b), `"coverage":{"0.5":`) || !strings.Contains(string(b), `"pit_ece":0.`) {
			t.Errorf("%s: JSON %s", h, b)
		}
	}
	m, err := FitFlat(context.Background(), xTr, len(yTr), 1, yTr, Config{Head: HeadPointwise, EncLayers: 1, EncWidth: 8, MaxEpochs: 2, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	e, err := m.Calibration(context.Background(), xTe, len(yTe), yTe)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(e)
	if e.Coverage != nil || !math.IsNaN(e.PITError) || string(b) != `{"n":3000,"coverage":null,"interval_width":null,"crps":null,"crps_bound":null,"pit_ece":null}` {
		t.Errorf("pointwise: %s", b)
	}
	if _, err := m.Calibration(context.Background(), xTe, 2, yTe[:2]); err == nil {
		t.Error("2 targets for 3000 rows of x accepted")
	}
}

// Scores of huge targets stay finite and the JSON valid: means divide each
// term first, and an infinite value would be written as a string.
func TestCalibrationHugeTargets(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const n = 300
	x, y := make([]float64, n), make([]float64, n)
	for i := range n {
		x[i] = r.Float64()
		y[i] = r.Float64() * 1.7e308
	}
	m, err := FitFlat(context.Background(), x, n, 1, y, Config{Head: HeadRiemann, EncLayers: 1, EncWidth: 8, MaxEpochs: 2, Bins: 16})
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.Calibration(context.Background(), x, n, y)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(c)
	if err != nil || math.IsInf(c.CRPS, 0) || math.IsInf(c.IntervalWidth["0.9"], 0) {
		t.Errorf("%v: %s", err, b)
	}
	c.IntervalWidth["0.9"] = math.Inf(1)
	if b, err := json.Marshal(c); err != nil || !strings.Contains(string(b), `"0.9":"+Inf"`) {
		t.Errorf("an infinite width: %v %s", err, b)
	}
}

// TestCalibrationThreadsSameBits: Calibration scores the rows in parallel
// on the model's threads (a loaded model's: every core); the answer is the
// same bits as on one thread, for every head and an ensemble (run with
// -race, it also checks that rows' distributions do not share what they
// compute).
func TestCalibrationThreadsSameBits(t *testing.T) {
	x, y := toyData(700, 9)
	ens := small(HeadMDN, "")
	ens.Ensemble = 2
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"decoder", small(HeadDecoder, "normalized:base=4,length=3")},
		{"unnormalized", small(HeadDecoder, "unnormalized:base=4,exponent=1,mantissa=2")},
		{"riemann", small(HeadRiemann, "")},
		{"mdn", small(HeadMDN, "")},
		{"mdn-ensemble", ens},
	} {
		t.Run(c.name, func(t *testing.T) {
			one := fit(t, c.cfg, true) // Threads 1
			all := reload(t, one)      // every core
			a, err := one.Calibration(context.Background(), x, len(y), y)
			if err != nil {
				t.Fatal(err)
			}
			b, err := all.Calibration(context.Background(), x, len(y), y)
			if err != nil {
				t.Fatal(err)
			}
			if a.CRPS != b.CRPS || a.CRPSBound != b.CRPSBound || a.PITError != b.PITError || !slices.Equal(a.PIT, b.PIT) {
				t.Errorf("one thread: CRPS %v (bound %v), PIT error %v; every core: %v (%v), %v",
					a.CRPS, a.CRPSBound, a.PITError, b.CRPS, b.CRPSBound, b.PITError)
			}
		})
	}
}
