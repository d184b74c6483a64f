package decoreg

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"decoreg/internal/train"
)

// TestCalibrateByDepth: CalibrateByDepth's temperatures, one per token,
// give the fit rows an NLL, scored by Evaluate (the decoder's logits
// scaled as it steps, not the fit's cached ones), equal to the one the fit
// records, no higher than the NLL objective's, and no lower by moving any
// one temperature 5% either way; all depths at one temperature predict as
// that temperature does; Save and Load keep them. For a single decoder and
// an ensemble of two tokenizations of different lengths.
func TestCalibrateByDepth(t *testing.T) {
	x, y := calibrationData(800, 21)
	xc, yc := calibrationData(200, 22) // fit rows, not trained on
	xt, yt := calibrationData(200, 23)
	for _, ens := range []bool{false, true} {
		cfg := Config{Head: HeadDecoder, Vocab: "normalized:base=4,length=4", EncLayers: 1, EncWidth: 16, MaxEpochs: 20, Patience: 20, Threads: 1, Seed: 5}
		m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		depth := 4
		if ens {
			cfg.Vocab, cfg.Seed = "normalized:base=2,length=6", 6
			m2, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if m, err = NewEnsemble(m, m2); err != nil {
				t.Fatal(err)
			}
			depth = 6
		}
		mn, err := m.FitTemperature(context.Background(), xc, len(yc), yc, CalibrateByNLL)
		if err != nil {
			t.Fatal(err)
		}
		md, err := m.FitTemperature(context.Background(), xc, len(yc), yc, CalibrateByDepth)
		if err != nil {
			t.Fatal(err)
		}
		ts := md.DepthTemperatures()
		info := md.Info()
		if len(ts) != depth || md.Temperature() != 1 || info.CalibrateBy != CalibrateByDepth || info.Temperature != 0 ||
			!slices.Equal(info.DepthTemperatures, ts) || !md.Calibrated() || m.DepthTemperatures() != nil {
			t.Fatalf("ensemble %v: temperatures %v (info %v), temperature %v, by %q", ens, ts, info.DepthTemperatures, md.Temperature(), info.CalibrateBy)
		}
		nllU := func(c *Model, x, y []float64) float64 {
			t.Helper()
			e, err := c.Evaluate(context.Background(), x, len(y), y, "mean")
			if err != nil {
				t.Fatal(err)
			}
			return e.NLLU
		}
		got := nllU(md, xc, yc)
		if math.Abs(got-info.ValNLLAfter) > 1e-4 {
			t.Errorf("ensemble %v: Evaluate's NLL_u on the fit rows %v, the fit's %v", ens, got, info.ValNLLAfter)
		}
		if nn := nllU(mn, xc, yc); !(got <= nn+1e-6) || !(info.ValNLLBefore >= got) {
			t.Errorf("ensemble %v: depth NLL_u %v above the NLL objective's %v or T=1's %v", ens, got, nn, info.ValNLLBefore)
		}
		floor := min(1, mn.Temperature())
		for d := range ts {
			if ts[d] < floor*(1-1e-9) {
				t.Errorf("ensemble %v: T_%d %v below min(1, the NLL temperature %v)", ens, d, ts[d], mn.Temperature())
			}
			for _, f := range []float64{1.05, 1 / 1.05} {
				c := *md
				c.depthT = slices.Clone(ts)
				c.depthT[d] = min(max(ts[d]*f, floor), MaxTemperature)
				if v := nllU(&c, xc, yc); v < got-1e-5 {
					t.Errorf("ensemble %v: T_%d %v -> %v lowers the fit rows' NLL_u %v -> %v", ens, d, ts[d], c.depthT[d], got, v)
				}
			}
		}
		t.Logf("ensemble %v: T %v; test NLL_u: 1 %.4f, nll %.4f, depth %.4f", ens, ts, nllU(m, xt, yt), nllU(mn, xt, yt), nllU(md, xt, yt))
		// Every depth at the NLL temperature: that temperature's model.
		c := *md
		c.depthT = slices.Repeat([]float64{mn.Temperature()}, depth)
		opts := PredictOptions{Outputs: OutMean | OutQuantiles | OutDist, Levels: []float64{0.1, 0.9}}
		pc, err := c.PredictFlat(context.Background(), xt[:20], 20, opts)
		if err != nil {
			t.Fatal(err)
		}
		pn, err := mn.PredictFlat(context.Background(), xt[:20], 20, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 20 {
			if math.Abs(pc.Mean[i]-pn.Mean[i]) > 1e-9 || math.Abs(pc.Quantiles[1][i]-pn.Quantiles[1][i]) > 1e-9 ||
				math.Abs(pc.Dist[i].LogPDF(yt[i])-pn.Dist[i].LogPDF(yt[i])) > 1e-9 {
				t.Fatalf("ensemble %v row %d: one temperature at every depth predicts mean %v q90 %v, the temperature %v %v", ens, i, pc.Mean[i], pc.Quantiles[1][i], pn.Mean[i], pn.Quantiles[1][i])
			}
		}
		// Save and Load.
		path := filepath.Join(t.TempDir(), "d.drg")
		if err := md.Save(path); err != nil {
			t.Fatal(err)
		}
		back, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(back.DepthTemperatures(), ts) || back.Info().CalibrateBy != CalibrateByDepth {
			t.Fatalf("ensemble %v: loaded temperatures %v, want %v", ens, back.DepthTemperatures(), ts)
		}
		if v := nllU(back, xt, yt); v != nllU(md, xt, yt) {
			t.Errorf("ensemble %v: loaded NLL_u %v, saved model's %v", ens, v, nllU(md, xt, yt))
		}
		// Another objective, or WithTemperature, replaces them.
		for _, by := range []string{CalibrateByNLL, CalibrateByIsotonic} {
			o, err := md.FitTemperature(context.Background(), xc, len(yc), yc, by)
			if err != nil {
				t.Fatal(err)
			}
			if o.DepthTemperatures() != nil || o.Info().DepthTemperatures != nil || o.Temperature() != mn.Temperature() {
				t.Errorf("ensemble %v: %s after depth: temperatures %v, temperature %v (want %v)", ens, by, o.DepthTemperatures(), o.Temperature(), mn.Temperature())
			}
		}
		if w, err := md.WithTemperature(1); err != nil || w.DepthTemperatures() != nil || w.Calibrated() {
			t.Errorf("ensemble %v: WithTemperature(1) keeps %v (%v)", ens, w.DepthTemperatures(), err)
		}
		// The members share them, each the first ones of its own length, and
		// a member saved alone loads.
		if w, _ := md.WithTemperature(1.5); w.Info().CalibrateBy != "" || w.Info().DepthTemperatures != nil || w.Info().Temperature != 1.5 {
			t.Errorf("ensemble %v: WithTemperature(1.5)'s info: %+v", ens, w.Info())
		}
		for k, mk := range md.Members() {
			n := mk.tok.Len()
			if !slices.Equal(mk.DepthTemperatures(), ts[:n]) {
				t.Errorf("ensemble %v: member %d has %v, want %v", ens, k, mk.DepthTemperatures(), ts[:n])
			}
			p := filepath.Join(t.TempDir(), "member.drg")
			if err := mk.Save(p); err != nil {
				t.Fatal(err)
			}
			if back, err := Load(p); err != nil || !slices.Equal(back.DepthTemperatures(), ts[:n]) {
				t.Errorf("ensemble %v: member %d saved alone: %v (%v)", ens, k, back.DepthTemperatures(), err)
			}
		}
		if ens {
			// The first member's own temperatures per depth stop short of
			// the second's last tokens: the ensemble drops them.
			short, err := md.Members()[0].WithTemperature(1)
			if err != nil {
				t.Fatal(err)
			}
			if short, err = short.FitTemperature(context.Background(), xc, len(yc), yc, CalibrateByDepth); err != nil {
				t.Fatal(err)
			}
			e, err := NewEnsemble(short, md.Members()[1])
			if err != nil {
				t.Fatal(err)
			}
			if e.DepthTemperatures() != nil || e.Calibrated() || e.Info().CalibrateBy != "" {
				t.Errorf("an ensemble of a member calibrated per depth with a longer one: %v, %q", e.DepthTemperatures(), e.Info().CalibrateBy)
			}
			p := filepath.Join(t.TempDir(), "e.drg")
			if err := e.Save(p); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(p); err != nil {
				t.Error(err)
			}
		}
	}
}

// TestCalibrateByDepthLowersTestNLL: a decoder trained far past its best
// epoch (no validation rows, 150 epochs on 300 rows) overfits; temperatures
// per depth fitted on fresh rows lower the NLL of other fresh rows below
// the one temperature's.
func TestCalibrateByDepthLowersTestNLL(t *testing.T) {
	x, y := calibrationData(300, 31)
	xc, yc := calibrationData(1000, 32)
	xt, yt := calibrationData(1000, 33)
	cfg := Config{Head: HeadDecoder, Vocab: "normalized:base=4,length=5", EncLayers: 2, EncWidth: 64, MaxEpochs: 150, ValFrac: -1, Threads: 1, Seed: 1}
	m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	nll := func(c *Model) float64 {
		e, err := c.Evaluate(context.Background(), xt, len(yt), yt, "mean")
		if err != nil {
			t.Fatal(err)
		}
		return e.NLL
	}
	mn, err := m.FitTemperature(context.Background(), xc, len(yc), yc, CalibrateByNLL)
	if err != nil {
		t.Fatal(err)
	}
	md, err := m.FitTemperature(context.Background(), xc, len(yc), yc, CalibrateByDepth)
	if err != nil {
		t.Fatal(err)
	}
	n1, nn, nd := nll(m), nll(mn), nll(md)
	t.Logf("test NLL: T=1 %.4f, one T (%.3f) %.4f, per depth %v %.4f", n1, mn.Temperature(), nn, md.DepthTemperatures(), nd)
	if !(nd < nn-0.01) || !(nn < n1) {
		t.Errorf("test NLL: per depth %v, one temperature %v, none %v: want each lower", nd, nn, n1)
	}
}

// TestCalibrateByDepthRefused: the depth objective is the decoder's alone,
// in a Config and in FitTemperature; a hand-edited file's temperatures per
// depth are checked.
func TestCalibrateByDepthRefused(t *testing.T) {
	for _, h := range []Head{HeadRiemann, HeadMDN} {
		_, err := DefaultConfig(Config{Head: h, Calibrate: true, CalibrateBy: CalibrateByDepth}).validate()
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != "CalibrateBy" || !strings.Contains(err.Error(), "decoder") {
			t.Errorf("%s: Config with the depth objective: %v", h, err)
		}
	}
	x, y := calibrationData(200, 3)
	m, err := FitFlat(context.Background(), x, len(y), 1, y, Config{Head: HeadMDN, EncLayers: 1, EncWidth: 8, MaxEpochs: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.FitTemperature(context.Background(), x, len(y), y, CalibrateByDepth); !errors.As(err, new(*ConfigError)) || !strings.Contains(err.Error(), "decoder") {
		t.Errorf("FitTemperature depth on an MDN: %v", err)
	}
	if _, err := m.FitTemperature(context.Background(), x, len(y), y, "depths"); err == nil || !strings.Contains(err.Error(), "nll, pit, isotonic or depth") {
		t.Errorf("an unknown objective: %v", err)
	}
	depth := func(v ...any) func(h map[string]any) {
		return func(h map[string]any) { h["depth_temperatures"] = v }
	}
	loadEdited(t, "depth_temperatures", ErrBadModel, depth(1.0, 2.0), nil)           // 2 values for 3 tokens
	loadEdited(t, "depth_temperatures", ErrBadModel, depth(1.0, 2.0, 0.01), nil)     // below MinTemperature
	loadEdited(t, "depth_temperatures", ErrBadModel, depth(1.0, 2.0, 21.0), nil)     // above MaxTemperature
	loadEdited(t, "depth_temperatures", ErrBadModel, depth(1.0, 2.0, 3.0, 4.0), nil) // 4 values
	loadEdited(t, "depth_temperatures", ErrBadModel, func(h map[string]any) {        // beside a temperature
		h["depth_temperatures"], h["temperature"] = []any{1.0, 2.0, 3.0}, 2.0
	}, nil)
	loadEdited(t, "depth_temperatures", ErrBadModel, func(h map[string]any) { // beside a map of the CDF
		h["depth_temperatures"], h["recalibration"] = []any{1.0, 2.0, 3.0}, map[string]any{"v": []any{0.0, 1.0}, "r": []any{0.0, 1.0}}
	}, nil)
	header, params := savedModel(t, Config{Head: HeadRiemann, Bins: 8, EncLayers: 1, EncWidth: 8})
	path := writeModel(t, editHeader(t, header, depth(1.0)), params)
	if _, err := Load(path); !errors.Is(err, ErrBadModel) || !strings.Contains(err.Error(), "depth_temperatures") {
		t.Errorf("a Riemann file with temperatures per depth: %v", err)
	}
	// Valid ones load and are used.
	header, params = savedModel(t, tinyDecoder())
	path = writeModel(t, editHeader(t, header, depth(1.0, 2.0, 3.0)), params)
	back, err := Load(path)
	if err != nil || !slices.Equal(back.DepthTemperatures(), []float64{1, 2, 3}) || !back.Calibrated() {
		t.Fatalf("a valid edit: %v, %v", back.DepthTemperatures(), err)
	}
}

// TestStopByDepth: early stopping by depth keeps the epoch whose
// validation NLL, calibrated per depth on the validation rows, is lowest,
// and reports that NLL: CalibrateByDepth fitted afterwards on the same rows
// (the decoder's own stepping, an independent path) finds the same value.
// Tune compares its trials by it. Configs it cannot serve are refused.
func TestStopByDepth(t *testing.T) {
	x, y := calibrationData(600, 41)
	cfg := Config{Head: HeadDecoder, Vocab: "normalized:base=4,length=5", EncLayers: 1, EncWidth: 32, MaxEpochs: 30, Patience: 5, Threads: 1, Seed: 2, StopBy: StopByDepth}
	m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	val, _ := train.Split(len(y), DefaultConfig(cfg).ValFrac, cfg.Seed)
	xv, yv := make([]float64, len(val)), make([]float64, len(val))
	for k, i := range val {
		xv[k], yv[k] = x[i], y[i]
	}
	md, err := m.FitTemperature(context.Background(), xv, len(yv), yv, CalibrateByDepth)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := md.Info().ValNLLAfter, m.Info().BestValLoss; math.Abs(got-want) > 1e-3 {
		t.Errorf("validation NLL calibrated per depth after training %v, early stopping's %v", got, want)
	}
	plain := cfg
	plain.StopBy = ""
	mp, err := FitFlat(context.Background(), x, len(y), 1, y, plain)
	if err != nil {
		t.Fatal(err)
	}
	if !(m.Info().BestValLoss <= mp.Info().BestValLoss) {
		t.Errorf("best validation loss by depth %v above the plain NLL's %v", m.Info().BestValLoss, mp.Info().BestValLoss)
	}
	t.Logf("best epoch by depth %d (val %v), by nll %d (val %v)", m.Info().BestEpoch, m.Info().BestValLoss, mp.Info().BestEpoch, mp.Info().BestValLoss)
	tm, rep, err := Tune(context.Background(), x, len(y), 1, y, cfg, TuneOptions{Trials: 3, Rung: 1, Budget: time.Minute, grid: tinyGrid})
	if err != nil {
		t.Fatal(err)
	}
	best := math.Inf(1)
	for _, tr := range rep.Trials {
		if tr.Config.StopBy != StopByDepth {
			t.Errorf("trial %d: stop by %q", tr.N, tr.Config.StopBy)
		}
		best = min(best, tr.ValLoss)
	}
	if tm.Info().BestValLoss != best {
		t.Errorf("tuned model's validation loss %v, the trials' best %v", tm.Info().BestValLoss, best)
	}
	small := cfg
	small.ValFrac = 0.02 // 12 validation rows
	if _, err := FitFlat(context.Background(), x, len(y), 1, y, small); !errors.As(err, new(*ConfigError)) || !strings.Contains(err.Error(), "at least 20 validation rows, have 12") {
		t.Errorf("12 validation rows: %v", err)
	}
	if _, _, err := Tune(context.Background(), x, len(y), 1, y, small, TuneOptions{Trials: 2, Budget: time.Minute, grid: tinyGrid}); !errors.As(err, new(*ConfigError)) {
		t.Errorf("Tune with 12 validation rows: %v", err)
	}
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Head: HeadRiemann, StopBy: StopByDepth}, "decoder head"},
		{Config{Head: HeadDecoder, StopBy: StopByDepth, ValFrac: -1}, "validation rows"},
		{Config{Head: HeadDecoder, StopBy: "epoch"}, `unknown early-stopping score "epoch"`},
	} {
		_, err := DefaultConfig(c.cfg).validate()
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != "StopBy" || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v", c.cfg, err)
		}
	}
}
