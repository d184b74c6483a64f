package decoreg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"decoreg/data"
	"decoreg/dist"
)

// pleData is a step function of two features (one with a few levels, as
// the UCI tables' coded ones) and a binary feature, which the ple input
// transform encodes as one bin.
func pleData(n int, seed uint64) (x, y []float64) {
	r := rand.New(rand.NewPCG(seed, 1))
	x, y = make([]float64, 3*n), make([]float64, n)
	for i := range n {
		a, b, c := r.NormFloat64(), float64(r.IntN(5)), float64(r.IntN(2))
		x[3*i], x[3*i+1], x[3*i+2] = a, b, c
		y[i] = math.Floor(2*a) + b + 3*c + 0.1*r.NormFloat64()
	}
	return x, y
}

// TestPLE: the network's inputs are the encoding of data.FitPLE's edges,
// each column standardized by its training mean and sd (computed here);
// the model predicts the same after Save and Load; values beyond the
// training range are clipped, not refused.
func TestPLE(t *testing.T) {
	const n = 300
	x, y := pleData(n, 1)
	cfg := Config{Head: HeadDecoder, Vocab: "normalized:base=4,length=4", EncLayers: 1, EncWidth: 16, DecWidth: 8, DecHeads: 1,
		MaxEpochs: 5, Seed: 2, Threads: 1, InputTransform: data.TransformPLE, PLEBins: 8}
	m, err := FitFlat(context.Background(), x, n, 3, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m.Features() != 3 {
		t.Fatalf("Features %d, want 3", m.Features())
	}
	edges := m.xBins
	if len(edges[0]) != 9 || len(edges[1]) < 3 || len(edges[2]) != 2 {
		t.Fatalf("edges %v: want 8 bins for the normal feature, some for the 5 levels, one for the binary one", edges)
	}
	w := data.PLEWidth(edges)
	if m.inWidth() != w || m.net.Cfg.In != w {
		t.Fatalf("network inputs %d (width %d), want %d", m.net.Cfg.In, m.inWidth(), w)
	}
	// The encoding by hand: column by column over the training rows.
	enc := make([]float64, n*w)
	for i := range n {
		c := 0
		for j, e := range edges {
			v := x[3*i+j]
			if e == nil {
				enc[i*w+c] = v
				c++
				continue
			}
			for k := 1; k < len(e); k++ {
				enc[i*w+c] = math.Min(1, math.Max(0, (v-e[k-1])/(e[k]-e[k-1])))
				c++
			}
		}
	}
	xs := make([]float32, n*w)
	if err := m.standardize(xs, x, n); err != nil {
		t.Fatal(err)
	}
	for c := range w {
		var s, ss float64
		for i := range n {
			s += enc[i*w+c]
		}
		mean := s / n
		for i := range n {
			ss += (enc[i*w+c] - mean) * (enc[i*w+c] - mean)
		}
		sd := math.Sqrt(ss / n)
		for i := range n {
			if want := (enc[i*w+c] - mean) / sd; math.Abs(float64(xs[i*w+c])-want) > 1e-5*math.Max(1, math.Abs(want)) {
				t.Fatalf("row %d column %d: input %v, want %v", i, c, xs[i*w+c], want)
			}
		}
	}

	path := filepath.Join(t.TempDir(), "m.drg")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	l, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c := l.Config(); c.InputTransform != data.TransformPLE || c.PLEBins != 8 {
		t.Fatalf("loaded transform %q with %d bins", c.InputTransform, c.PLEBins)
	}
	probe := [][]float64{{0.3, 2, 1}, {-40, 0, 0}, {1e9, 7, 1}, {0, 2.5, 0.5}}
	pm, err := m.Predict(context.Background(), probe, PredictOptions{Outputs: OutMean})
	if err != nil {
		t.Fatal(err)
	}
	pl, err := l.Predict(context.Background(), probe, PredictOptions{Outputs: OutMean})
	if err != nil {
		t.Fatal(err)
	}
	for i := range probe {
		if pm.Mean[i] != pl.Mean[i] || math.IsNaN(pm.Mean[i]) {
			t.Errorf("row %d: mean %v before Save, %v after", i, pm.Mean[i], pl.Mean[i])
		}
	}
	// Beyond the training range every column is clipped: -40 and -1e9
	// give the same inputs, so the same prediction.
	far, err := m.Predict(context.Background(), [][]float64{{-40, 2, 1}, {-1e9, 2, 1}}, PredictOptions{Outputs: OutMean})
	if err != nil {
		t.Fatal(err)
	}
	if far.Mean[0] != far.Mean[1] {
		t.Errorf("clipped rows predict %v and %v", far.Mean[0], far.Mean[1])
	}
	if _, err := m.Predict(context.Background(), [][]float64{{math.NaN(), 2, 1}}, PredictOptions{Outputs: OutMean}); !errors.Is(err, ErrBadInput) {
		t.Errorf("a NaN feature: %v, want ErrBadInput", err)
	}

	// An ensemble of a ple member and a standard one is the mixture of
	// the two, each on its own inputs.
	cfg2 := cfg
	cfg2.InputTransform, cfg2.PLEBins = "", 0
	m2, err := FitFlat(context.Background(), x, n, 3, y, cfg2)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEnsemble(m, m2)
	if err != nil {
		t.Fatal(err)
	}
	xp := []float64{0.3, 2, 1, -1, 4, 0}
	de, err := e.Dists(context.Background(), xp, 2, dist.TokenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := m.Dists(context.Background(), xp, 2, dist.TokenOptions{})
	d2, _ := m2.Dists(context.Background(), xp, 2, dist.TokenOptions{})
	for i := range 2 {
		for _, v := range []float64{0, 1.5, 3} {
			want := math.Log((math.Exp(d1[i].LogPDF(v)) + math.Exp(d2[i].LogPDF(v))) / 2)
			if got := de[i].LogPDF(v); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("row %d, y %v: mixture log-density %v, want %v", i, v, got, want)
			}
		}
	}
}

// TestPLEConfig: bins out of range are refused naming PLEBins; the
// default fills in for ple only; Tune's grid does not draw ple (its ple
// seeds' members offer it), and its trials keep no bins.
func TestPLEConfig(t *testing.T) {
	for _, b := range []int{1, -3, data.MaxPLEBins + 1} {
		err := Config{InputTransform: data.TransformPLE, PLEBins: b}.Validate()
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != "PLEBins" {
			t.Errorf("PLEBins %d: %v, want a ConfigError for PLEBins", b, err)
		}
	}
	if c := DefaultConfig(Config{InputTransform: data.TransformPLE}); c.PLEBins != data.DefaultPLEBins {
		t.Errorf("default bins %d, want %d", c.PLEBins, data.DefaultPLEBins)
	}
	if c := DefaultConfig(Config{}); c.PLEBins != 0 {
		t.Errorf("the standard transform got %d bins", c.PLEBins)
	}
	base := DefaultConfig(Config{Head: HeadDecoder, PLEBins: 5})
	cfgs, _ := tuneConfigs(base, 40, tuneGrid)
	if cfgs[0].PLEBins != 0 {
		t.Errorf("the given settings (standard) keep %d bins", cfgs[0].PLEBins)
	}
	for _, c := range cfgs[1:] {
		if c.InputTransform == data.TransformPLE || c.PLEBins != 0 {
			t.Errorf("a trial drew %q with %d bins", c.InputTransform, c.PLEBins)
		}
	}
}

// TestHandEditedModel_PLE: Load refuses a file whose ple statistics are
// missing, misplaced, or would make the inputs wrong, naming the field.
func TestHandEditedModel_PLE(t *testing.T) {
	cfg := tinyDecoder()
	cfg.InputTransform, cfg.PLEBins = data.TransformPLE, 4
	pleHeader, pleParams := savedModel(t, cfg)
	stdHeader, stdParams := savedModel(t, tinyDecoder())
	for _, tc := range []struct {
		name, field string
		std         bool // edit the standard model's file
		edit        func(h map[string]any)
	}{
		{"missing", "x_bins", false, func(h map[string]any) { delete(h, "x_bins") }},
		{"present for standard", "x_bins", true, func(h map[string]any) { h["x_bins"] = []any{nil, nil} }},
		{"statistics for standard", "x_bin_mean", true, func(h map[string]any) { h["x_bin_std"] = []any{json.Number("1")} }},
		{"count", "x_bins", false, func(h map[string]any) { h["x_bins"] = h["x_bins"].([]any)[:1] }},
		{"descending", "x_bins[0][1]", false, func(h map[string]any) {
			e := h["x_bins"].([]any)[0].([]any)
			e[1] = json.Number("-1e300")
		}},
		{"one edge", "x_bins[0]", false, func(h map[string]any) {
			h["x_bins"].([]any)[0] = []any{json.Number("0")}
		}},
		{"centres", "x_bin_mean", false, func(h map[string]any) { h["x_bin_mean"] = h["x_bin_mean"].([]any)[1:] }},
		{"scale 0", "x_bin_std[0]", false, func(h map[string]any) { h["x_bin_std"].([]any)[0] = json.Number("0") }},
		// So small that a value in [0, 1] standardized overflows float32:
		// every row would be refused.
		{"scale tiny", "x_bin_std[0]", false, func(h map[string]any) { h["x_bin_std"].([]any)[0] = json.Number("1e-320") }},
		// More edges than the config's bins give.
		{"edges beyond ple_bins", "x_bins[0]", false, func(h map[string]any) {
			if n := len(h["x_bins"].([]any)[0].([]any)); n != 5 {
				t.Fatalf("feature 0 has %d edges, want 5", n)
			}
			h["config"].(map[string]any)["ple_bins"] = json.Number("3")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			header, params := pleHeader, pleParams
			if tc.std {
				header, params = stdHeader, stdParams
			}
			path := writeModel(t, editHeader(t, header, tc.edit), params)
			_, err := Load(path)
			if err == nil {
				t.Fatal("Load accepted the edited file")
			}
			if !errors.Is(err, ErrBadModel) || !strings.Contains(err.Error(), tc.field) || !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q: want ErrBadModel naming %s and %q", err, path, tc.field)
			}
		})
	}
	// Unedited, both load.
	for _, h := range [][]byte{pleHeader, stdHeader} {
		params := pleParams
		if bytes.Equal(h, stdHeader) {
			params = stdParams
		}
		if _, err := Load(writeModel(t, h, params)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPLESize: the size check counts the encoding's columns, not the
// bound of PLEBins per feature: 600 features of 4 levels at 256 bins and
// a 2048-wide encoder fit (1,800 columns), where 600 x 256 would not; a
// width that is too large names PLEBins and the columns.
func TestPLESize(t *testing.T) {
	c := DefaultConfig(Config{InputTransform: data.TransformPLE, PLEBins: 256, EncWidth: 2048, EncLayers: 1})
	if c.inputParams(600)+c.approxParams() <= MaxParams {
		t.Fatal("the bound of 600 x 256 columns fits: the case checks nothing")
	}
	if err := c.checkSize(600, 1800); err != nil {
		t.Errorf("1,800 columns refused: %v", err)
	}
	err := c.checkSize(600, 150000)
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Field != "PLEBins" || !strings.Contains(err.Error(), "150000 columns") {
		t.Errorf("150,000 columns: %v, want a ConfigError for PLEBins naming the columns", err)
	}
}

// TestTunePLESeeds: with EnsembleFrom all and PLESeeds K, K ple seeds'
// members of the best trial's settings (seeds after the soft ones') are
// trained last and offered to the greedy selection; PLESeedsChosen counts
// them. PLESeeds 0 (the default), EnsembleFrom seeds, the pointwise head
// and a best trial that is ple already train none; a count below 0 or
// above MaxEnsemble is refused.
func TestTunePLESeeds(t *testing.T) {
	x, y := toyData(400, 1)
	base := Config{Head: HeadDecoder, Vocab: "normalized:base=4,length=3", EncLayers: 1, EncWidth: 16, DecWidth: 16, MaxEpochs: 40, Patience: 5, LR: 3e-3, Seed: 3, Threads: 1, Ensemble: 3, PLEBins: 6}
	m, rep, trained := tuneTiny(t, x, y, base, TuneOptions{PLESeeds: 2})
	// Members 1, 2 plain, 3, 4 soft, 5, 6 ple: 7 in all with the best trial.
	if len(trained) != 6 || trained[6] != 7 || rep.PLESeeds != 2 || rep.PLESeedsTrained != 2 || rep.SoftSeedsTrained != 2 {
		t.Fatalf("members trained %v, report %+v; want 1-6 of 7, 2 ple", trained, rep)
	}
	ms := m.Members()
	best := ms[0].Config()
	ple := 0
	for k, mk := range ms {
		c := mk.Config()
		if c.InputTransform != data.TransformPLE {
			continue
		}
		ple++
		if c.PLEBins != 6 || c.SoftTargets != 0 || c.Seed < best.Seed+5 || c.Seed > best.Seed+6 || k == 0 {
			t.Errorf("member %d: %d bins, soft targets %v, seed %d (best trial's %d)", k, c.PLEBins, c.SoftTargets, c.Seed, best.Seed)
		}
	}
	if ple != rep.PLESeedsChosen || rep.SeedsChosen < ple+rep.SoftSeedsChosen || rep.SeedsChosen+rep.MembersLeftOut != 6 {
		t.Errorf("%d ple members; report %+v", ple, rep)
	}
	prefixesLowerNLL(t, ms, valRows(t, x, y, DefaultConfig(base)))

	pleBase := base
	pleBase.InputTransform = data.TransformPLE
	point := base
	point.Head, point.Vocab, point.DecWidth = HeadPointwise, "", 0
	for name, c := range map[string]struct {
		base Config
		opts TuneOptions
	}{"none": {base, TuneOptions{}}, "seeds": {base, TuneOptions{EnsembleFrom: EnsembleFromSeeds, PLESeeds: 2}},
		"pointwise": {point, TuneOptions{PLESeeds: 2}}, "best ple": {pleBase, TuneOptions{PLESeeds: 2}}} {
		opts := c.opts
		if name == "best ple" {
			// Every trial ple: a grid of the tiny one's settings with ple.
			opts.grid = func(Config) []tuneAxis {
				return []tuneAxis{{"lr", []string{"1e-3", "3e-3"}, func(c *Config, v string) { c.LR, _ = strconv.ParseFloat(v, 64) }}}
			}
		}
		m, rep, _ := tuneTiny(t, x, y, c.base, opts)
		if rep.PLESeeds != 0 || rep.PLESeedsTrained != 0 || rep.PLESeedsChosen != 0 {
			t.Errorf("%s: report %+v", name, rep)
		}
		// Asked for and not planned: the report says why.
		want := map[string]string{"pointwise": "pointwise head", "best ple": "ple already"}[name]
		if (want == "") != (rep.PLESeedsSkipped == "") || !strings.Contains(rep.PLESeedsSkipped, want) {
			t.Errorf("%s: PLESeedsSkipped %q, want %q", name, rep.PLESeedsSkipped, want)
		}
		for _, mk := range m.Members() {
			if mk.Config().InputTransform == data.TransformPLE && name != "best ple" {
				t.Errorf("%s: a ple member", name)
			}
		}
	}
	for _, k := range []int{-1, MaxEnsemble + 1} {
		var ce *ConfigError
		if _, _, err := Tune(context.Background(), x, len(y), 1, y, base, TuneOptions{PLESeeds: k, grid: tinyGrid}); !errors.As(err, &ce) || ce.Field != "PLESeeds" {
			t.Errorf("PLESeeds %d: %v", k, err)
		}
	}
}

// TestPLESeedsFit: ple seeds' members whose network on the fitted
// encoding would be larger than allowed are skipped before they start,
// with the reason (a PLR search of 200 features fits, their encoding at
// 256 bins does not); the size check then blames PLEBins.
func TestPLESeedsFit(t *testing.T) {
	const rows, cols = 300, 200
	x := make([]float64, rows*cols)
	for i := range x {
		x[i] = float64((i*7919)%1009) / 7
	}
	c := DefaultConfig(Config{Encoder: EncoderPLR})
	if err := c.checkSize(cols, cols); err != nil {
		t.Fatalf("the trial's settings: %v", err)
	}
	ck := pleSeedConfig(c, Config{PLEBins: 256})
	if ck.InputTransform != data.TransformPLE || ck.PLEBins != 256 || ck.Encoder != EncoderPLR {
		t.Fatalf("ple seed config %+v", ck)
	}
	if why := pleSeedsFit(ck, x, rows, cols); !strings.Contains(why, "columns of their ple encoding") || !strings.Contains(why, "more than the") {
		t.Errorf("too large: %q", why)
	}
	if why := pleSeedsFit(pleSeedConfig(c, Config{PLEBins: 2}), x, rows, cols); why != "" {
		t.Errorf("2 bins: %q", why)
	}
	if c := pleSeedConfig(c, Config{}); c.PLEBins != data.DefaultPLEBins {
		t.Errorf("default bins: %d", c.PLEBins)
	}
	// The size check blames PLEBins where the network fits without the
	// encoding's columns, the PLR encoder's PLRDim where it does not.
	var ce *ConfigError
	if err := ck.checkSize(cols, 51200); !errors.As(err, &ce) || ce.Field != "PLEBins" {
		t.Errorf("plr, 200 features at 256 bins: %v, want PLEBins blamed", err)
	}
	if err := ck.checkSize(60000, 60000); !errors.As(err, &ce) || ce.Field != "PLRDim" {
		t.Errorf("plr, too large without the encoding: %v, want PLRDim blamed", err)
	}
}
