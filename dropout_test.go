package decoreg

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestDropoutConfig: no dropout by default; a probability outside
// [0, MaxDropout] is a ConfigError naming Dropout, for every head.
func TestDropoutConfig(t *testing.T) {
	if c := DefaultConfig(Config{}); c.Dropout != 0 {
		t.Errorf("default dropout %v", c.Dropout)
	}
	for _, h := range []Head{HeadDecoder, HeadPointwise, HeadRiemann, HeadMDN} {
		for _, p := range []float64{-0.1, MaxDropout + 0.01, 1, math.NaN(), math.Inf(1)} {
			var ce *ConfigError
			if err := (Config{Head: h, Dropout: p}).Validate(); !errors.As(err, &ce) || ce.Field != "Dropout" {
				t.Errorf("%s, dropout %v: %v", h, p, err)
			}
		}
		for _, p := range []float64{0, 0.5, MaxDropout} {
			if err := (Config{Head: h, Dropout: p}).Validate(); err != nil {
				t.Errorf("%s, dropout %v refused: %v", h, p, err)
			}
		}
	}
}

// TestDropout: training with dropout gives another model than without
// (the option is wired to the network), the same seed and thread count
// the same model bit for bit, and the saved file records the probability
// and loads to the same predictions, which do not drop (two calls agree).
func TestDropout(t *testing.T) {
	for _, hc := range headCases {
		t.Run(hc.name, func(t *testing.T) {
			cfg := hc.cfg
			cfg.Threads = 2
			plain := fit(t, cfg, true)
			cfg.Dropout = 0.3
			a, b := fit(t, cfg, true), fit(t, cfg, true)
			pa, pb, pp := a.net.Params(), b.net.Params(), plain.net.Params()
			if diff := sameParams(t, pa, pb, pp); diff < len(pa)/2 {
				t.Errorf("dropout 0.3 changes %d of %d parameters", diff, len(pa))
			}
			path := filepath.Join(t.TempDir(), "m")
			if err := a.Save(path); err != nil {
				t.Fatal(err)
			}
			if keys := strings.Join(headerKeys(t, path), " "); !strings.Contains(keys, "dropout") {
				t.Errorf("header keys %s lack dropout", keys)
			}
			l, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if l.Config() != a.Config() || l.Config().Dropout != 0.3 {
				t.Errorf("loaded config %+v, saved %+v", l.Config(), a.Config())
			}
			x := []float64{-1.5, -0.3, 0, 0.7, 1.9}
			opts := PredictOptions{Outputs: OutMean | OutQuantiles}
			var preds []*Prediction
			for _, m := range []*Model{a, a, l} {
				p, err := m.PredictFlat(context.Background(), x, len(x), opts)
				if err != nil {
					t.Fatal(err)
				}
				preds = append(preds, p)
			}
			for _, p := range preds[1:] {
				for i := range x {
					if p.Mean[i] != preds[0].Mean[i] || p.Quantiles[0][i] != preds[0].Quantiles[0][i] {
						t.Errorf("row %d: predictions %v and %v of the same model", i, p.Mean[i], preds[0].Mean[i])
					}
				}
			}
		})
	}
}
