package decoreg

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"decoreg/dist"
	"decoreg/internal/modelfile"
)

// TestIsotonicEveryHead: for every head, tokenization kind and ensemble
// the isotonic objective supports, Calibrate with CalibrateByIsotonic
// stores a map fitted to the validation PIT values at the NLL temperature
// (the same map as dist.FitRecalibration gives on the PIT values of the
// temperature-only model's distributions), every distribution the model
// makes is recalibrated by it, Evaluate's NLL is the mean of the
// recalibrated distributions' -LogPDF, Predict agrees with the
// distributions, Save and Load keep it, WithTemperature and Members drop
// it, and fitting again gives the same map.
func TestIsotonicEveryHead(t *testing.T) {
	x, y := calibrationData(600, 21)
	xt, yt := calibrationData(60, 22)
	lo, hi := slices.Min(y), slices.Max(y)
	for k := range yt {
		yt[k] = min(max(yt[k], lo+1e-6), hi-1e-6) // inside the range: LogPDF scores what the NLL scores
	}
	for _, cfg := range pitConfigs() {
		cfg.Calibrate, cfg.CalibrateBy = true, CalibrateByIsotonic
		m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		name := string(cfg.Head) + " " + cfg.Vocab
		rc := m.Recalibration()
		info := m.Info()
		if rc == nil || !m.Calibrated() || info.CalibrateBy != CalibrateByIsotonic || info.IsotonicSegments != IsotonicSegments ||
			info.IsotonicWeight != isotonicWeight(info.CalibrateRows) || !(info.ValPITAfter < info.ValPITBefore) {
			t.Fatalf("%s: map %v, info %+v", name, rc, info)
		}
		// The map from the validation rows' PITs at the NLL temperature.
		val := valRows(t, x, y, cfg)
		xv, yv := val.x, val.y
		mt, err := m.WithTemperature(m.Temperature())
		if err != nil {
			t.Fatal(err)
		}
		pit := refPITOf(t, mt, xv, yv)
		want, err := dist.FitRecalibration(pit, IsotonicSegments, IsotonicFloor)
		if err != nil {
			t.Fatal(err)
		}
		_, r1 := rc.Knots()
		_, r2 := want.Knots()
		for j := range r1 {
			if !(math.Abs(r1[j]-r2[j]) <= 1e-12) {
				t.Fatalf("%s: map %v, from the distributions' PITs %v", name, r1, r2)
			}
		}
		// Every distribution is recalibrated; Evaluate's NLL is theirs.
		ds, err := m.Dists(context.Background(), xt, len(yt), dist.TokenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s := 0.0
		for i, d := range ds {
			rd, ok := d.(*dist.Recalibrated)
			if !ok || rd.Recalibration() != rc {
				t.Fatalf("%s: distribution %T", name, d)
			}
			if _, mix := rd.Base().(*dist.Mixture); mix != (cfg.Ensemble > 1) {
				t.Fatalf("%s: base %T", name, rd.Base())
			}
			s -= d.LogPDF(yt[i])
		}
		e, err := m.Evaluate(context.Background(), xt, len(yt), yt, "")
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(e.NLL-s/float64(len(yt))) <= 1e-6) || !math.IsNaN(e.NLLToken) {
			t.Errorf("%s: Evaluate's NLL %v (token %v), the distributions' %v", name, e.NLL, e.NLLToken, s/float64(len(yt)))
		}
		p, err := m.PredictFlat(context.Background(), xt, len(yt), PredictOptions{Outputs: OutMean | OutMedian | OutQuantiles, Levels: []float64{0.05, 0.95}})
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range ds[:5] {
			if p.Mean[i] != d.Mean() || p.Median[i] != d.Median() || p.Quantiles[1][i] != d.Quantile(0.95) {
				t.Errorf("%s row %d: predicted %v %v %v, the distribution's %v %v %v", name, i, p.Mean[i], p.Median[i], p.Quantiles[1][i], d.Mean(), d.Median(), d.Quantile(0.95))
			}
		}
		// Save and Load.
		path := filepath.Join(t.TempDir(), "m.drg")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		l, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		v1, r1 := rc.Knots()
		v2, r2 := l.Recalibration().Knots()
		if !slices.Equal(v1, v2) || !slices.Equal(r1, r2) || l.Temperature() != m.Temperature() || l.Info().CalibrateBy != CalibrateByIsotonic {
			t.Errorf("%s: loaded knots %v -> %v, T %v", name, v2, r2, l.Temperature())
		}
		pl, err := l.PredictFlat(context.Background(), xt, len(yt), PredictOptions{Outputs: OutMean | OutMedian | OutQuantiles, Levels: []float64{0.05, 0.95}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(pl.Mean, p.Mean) || !slices.Equal(pl.Quantiles[0], p.Quantiles[0]) {
			t.Errorf("%s: the loaded model predicts differently", name)
		}
		// Without the map.
		if u, _ := m.WithTemperature(1); u.Recalibration() != nil || u.Calibrated() {
			t.Errorf("%s: WithTemperature(1) keeps the map", name)
		}
		for _, mk := range m.Members() {
			if mk.Recalibration() != nil {
				t.Errorf("%s: a member has the map", name)
			}
		}
		// Fitting again, from the uncalibrated model, gives the same map.
		u, _ := m.WithTemperature(1)
		again, err := u.FitTemperature(context.Background(), xv, len(yv), yv, CalibrateByIsotonic)
		if err != nil {
			t.Fatal(err)
		}
		if _, r3 := again.Recalibration().Knots(); !slices.Equal(r3, r1) || again.Temperature() != m.Temperature() {
			t.Errorf("%s: fitting again gave %v at T %v, not %v at %v", name, r3, again.Temperature(), r1, m.Temperature())
		}
		// Another objective replaces the map.
		if n, err := again.FitTemperature(context.Background(), xv, len(yv), yv, CalibrateByNLL); err != nil || n.Recalibration() != nil || n.Info().IsotonicSegments != 0 {
			t.Errorf("%s: refitting by nll: %v, map %v", name, err, n.Recalibration())
		}
	}
}

// refPITOf is the PIT values of rows x, y under m's distributions.
func refPITOf(t *testing.T, m *Model, x, y []float64) []float64 {
	t.Helper()
	ds, err := m.Dists(context.Background(), x, len(y), dist.TokenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(y))
	for i, d := range ds {
		out[i] = d.CDF(y[i])
	}
	return out
}

// shapeMiscalibrated returns rows y = x + noise with Laplace noise of
// scale b: a model trained on Gaussian noise of the same variance has
// intervals of the wrong shape (its 50% interval too wide, its tails too
// light), which no temperature fixes at every level.
func shapeMiscalibrated(n int, seed uint64, b float64) ([]float64, []float64) {
	r := rand.New(rand.NewPCG(seed, 10))
	x, y := make([]float64, n), make([]float64, n)
	for i := range n {
		x[i] = r.Float64()*2 - 1
		e := r.ExpFloat64() * b
		if r.IntN(2) == 0 {
			e = -e
		}
		y[i] = x[i] + e
	}
	return x, y
}

// TestIsotonicCalibratesCoverage: models trained on y = x + 0.3 N(0, 1),
// scored on targets of another spread (over-dispersed: 0.1; under: 0.6)
// and of another shape (Laplace noise of the same variance): the map
// fitted on 1,000 such rows puts the coverage of central 50% intervals of
// fresh ones within 0.05 of their mass, and of 90% intervals within 0.06
// (the under-dispersed decoder's is 0.958: the first and last of the 10
// segments hold most of its PIT values, and the map is linear inside
// them), for every head.
func TestIsotonicCalibratesCoverage(t *testing.T) {
	x, y := overDispersed(3000, 1, 0.3)
	for _, c := range []struct {
		name string
		data func(n int, seed uint64) ([]float64, []float64)
	}{
		{"over-dispersed", func(n int, seed uint64) ([]float64, []float64) { return overDispersed(n, seed, 0.1) }},
		{"under-dispersed", func(n int, seed uint64) ([]float64, []float64) { return overDispersed(n, seed, 0.6) }},
		{"laplace", func(n int, seed uint64) ([]float64, []float64) { return shapeMiscalibrated(n, seed, 0.3/math.Sqrt2) }},
	} {
		xc, yc := c.data(1000, 2)
		xt, yt := c.data(3000, 3)
		for _, cfg := range []Config{
			{Head: HeadDecoder, Vocab: "normalized:base=4,length=5"},
			{Head: HeadRiemann, Bins: 256},
			{Head: HeadMDN},
		} {
			cfg.EncLayers, cfg.EncWidth, cfg.MaxEpochs, cfg.Threads, cfg.Seed, cfg.LR = 1, 32, 8, 1, 1, 3e-3
			if c.name == "under-dispersed" {
				cfg.TargetMin, cfg.TargetMax = -4, 4 // room for the wider targets
			}
			m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
			if err != nil {
				t.Fatal(err)
			}
			cu, err := m.Calibration(context.Background(), xt, len(yt), yt)
			if err != nil {
				t.Fatal(err)
			}
			mi, err := m.FitTemperature(context.Background(), xc, len(yc), yc, CalibrateByIsotonic)
			if err != nil {
				t.Fatal(err)
			}
			ci, err := mi.Calibration(context.Background(), xt, len(yt), yt)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s: coverage 50%% %.3f -> %.3f, 90%% %.3f -> %.3f (T %.3g); pit_ece %.3f -> %.3f", c.name, cfg.Head,
				cu.Coverage["0.5"], ci.Coverage["0.5"], cu.Coverage["0.9"], ci.Coverage["0.9"], mi.Temperature(), cu.PITError, ci.PITError)
			if !(math.Abs(ci.Coverage["0.9"]-0.9) <= 0.06) || !(math.Abs(ci.Coverage["0.5"]-0.5) <= 0.05) {
				t.Errorf("%s %s: coverage %v after the map", c.name, cfg.Head, ci.Coverage)
			}
		}
	}
}

// TestIsotonicErrors: the isotonic objective is refused, naming the field,
// for non-tree decoders, the pointwise head and too few rows; --calibrate-by
// without --calibrate is ignored by the library (the command line refuses
// it); the fewest rows give a mild map, and a target of two values
// still calibrates.
func TestIsotonicErrors(t *testing.T) {
	for _, c := range []struct {
		cfg   Config
		field string
	}{
		{Config{Calibrate: true, CalibrateBy: CalibrateByIsotonic, Vocab: "hamming:length=6"}, "CalibrateBy"},
		{Config{Calibrate: true, CalibrateBy: CalibrateByIsotonic, Vocab: "normalized:base=4,length=2,repeat=3"}, "CalibrateBy"},
		{Config{Calibrate: true, CalibrateBy: CalibrateByIsotonic, Head: HeadPointwise}, "Calibrate"},
		{Config{Calibrate: true, CalibrateBy: "Isotonic"}, "CalibrateBy"},
		{Config{CalibrateBy: CalibrateByIsotonic, Vocab: "hamming:length=6"}, ""},
		{Config{Calibrate: true, CalibrateBy: CalibrateByIsotonic, Head: HeadRiemann}, ""},
	} {
		err := c.cfg.Validate()
		var ce *ConfigError
		if c.field == "" && err != nil || c.field != "" && (!errors.As(err, &ce) || ce.Field != c.field) {
			t.Errorf("%+v: %v, want field %q", c.cfg, err, c.field)
		}
	}
	x, y := calibrationData(300, 1)
	small := Config{EncLayers: 1, EncWidth: 4, MaxEpochs: 1, Threads: 1}
	cfg := small
	cfg.Head = HeadPointwise
	pw, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg = small
	cfg.Head = HeadMDN
	md, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m    *Model
		rows int
	}{{pw, 100}, {md, 19}} {
		_, err := c.m.FitTemperature(context.Background(), x[:c.rows], c.rows, y[:c.rows], CalibrateByIsotonic)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != "Calibrate" {
			t.Errorf("%s, %d rows: %v, want field Calibrate", c.m.cfg.Head, c.rows, err)
		}
	}
	// Too few validation rows for Calibrate: refused before training.
	cfg = small
	cfg.Head, cfg.Calibrate, cfg.CalibrateBy, cfg.ValFrac = HeadMDN, true, CalibrateByIsotonic, 0.05
	if _, err := FitFlat(context.Background(), x[:200], 200, 1, y[:200], cfg); err == nil {
		t.Error("10 validation rows: no error")
	}
	// 20 rows (the fewest) and a constant target: a mild map, finite scores.
	mi, err := md.FitTemperature(context.Background(), x[:20], 20, y[:20], CalibrateByIsotonic)
	if err != nil {
		t.Fatal(err)
	}
	if w := mi.Info().IsotonicWeight; w != 0.5 {
		t.Errorf("20 rows: identity weight %v, want 0.5", w)
	}
	if v, r := mi.Recalibration().Knots(); slices.ContainsFunc(r, func(f float64) bool { return math.IsNaN(f) }) || len(v) != IsotonicSegments+1 {
		t.Errorf("20 rows: knots %v -> %v", v, r)
	}
	cy := make([]float64, len(y)) // two values: the PIT values pile up
	for i := range cy {
		cy[i] = 1.5 + float64(i%2)
	}
	cfg = small
	cfg.Head, cfg.Vocab, cfg.Calibrate, cfg.CalibrateBy = HeadDecoder, "normalized:base=4,length=3", true, CalibrateByIsotonic
	mc, err := FitFlat(context.Background(), x, len(cy), 1, cy, cfg)
	if err != nil {
		t.Fatal(err)
	}
	e, err := mc.Evaluate(context.Background(), x[:50], 50, cy[:50], "")
	if err != nil || math.IsNaN(e.NLL) || math.IsNaN(e.MSE) {
		t.Errorf("a two-valued target: %v, %+v", err, e)
	}
}

// TestIsotonicEnsembleFile: an ensemble's map is the mixture's, in the
// first member's header; NewEnsemble of calibrated members drops their
// maps; a file whose map is bad is refused as not a model.
func TestIsotonicEnsembleFile(t *testing.T) {
	x, y := calibrationData(400, 3)
	cfg := Config{Head: HeadMDN, Components: 2, EncLayers: 1, EncWidth: 8, MaxEpochs: 1, Threads: 1, Calibrate: true, CalibrateBy: CalibrateByIsotonic}
	a, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Seed = 5
	b, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEnsemble(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if e.Recalibration() != nil {
		t.Error("NewEnsemble kept a member's map")
	}
	hb, err := a.encodeHeader()
	if err != nil {
		t.Fatal(err)
	}
	// A map whose knots decrease, in a file that is otherwise sound.
	bad := bytes.Replace(hb, []byte(`"recalibration":{"v":[0,0.1,`), []byte(`"recalibration":{"v":[0,0.9,`), 1)
	if bytes.Equal(bad, hb) {
		t.Fatal("the header has no map to corrupt")
	}
	dir := t.TempDir()
	for name, h := range map[string][]byte{"good": hb, "bad": bad} {
		path := filepath.Join(dir, name)
		if err := modelfile.WriteFile(path, h, a.params()); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if name == "good" && err != nil || name == "bad" && !errors.Is(err, modelfile.ErrNotModel) {
			t.Errorf("%s map: %v", name, err)
		}
	}
}

// A map of the CDF on a model whose tokenization is not a tree (Hamming)
// is refused on Load, as FitTemperature refuses to fit one; on a tree
// tokenization the same map loads.
func TestHandEditedModel_RecalibrationHamming(t *testing.T) {
	addMap := func(h map[string]any) {
		h["recalibration"] = map[string]any{"v": []any{0, 0.5, 1}, "r": []any{0, 0.4, 1}}
	}
	cfg := tinyDecoder()
	cfg.Vocab = "hamming:length=8"
	header, params := savedModel(t, cfg)
	path := writeModel(t, editHeader(t, header, addMap), params)
	_, err := Load(path)
	var me *ModelError
	if !errors.As(err, &me) || me.Field != "recalibration" || !strings.Contains(err.Error(), "not a tree") {
		t.Errorf("hamming with a map: %v", err)
	}
	header, params = savedModel(t, tinyDecoder())
	if _, err := Load(writeModel(t, editHeader(t, header, addMap), params)); err != nil {
		t.Errorf("tree tokenization with a map: %v", err)
	}
}
