package decoreg

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"decoreg/dist"
	"decoreg/internal/modelfile"
)

// An ensemble's first member is the single model of the same seed; the
// members differ; the predictive distribution is their equal mixture (CDF,
// density and mean are the members' averages); the file round-trips; the
// NLL Evaluate reports is minus the log of the members' average density.
func TestEnsemble(t *testing.T) {
	x, y := toyData(400, 1)
	xt, yt := toyData(100, 2)
	for _, hc := range headCases {
		t.Run(hc.name, func(t *testing.T) {
			single, err := FitFlat(context.Background(), x, len(y), 1, y, hc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			cfg := hc.cfg
			cfg.Ensemble = 3
			m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
			if err != nil {
				t.Fatal(err)
			}
			ms := m.Members()
			if m.EnsembleSize() != 3 || len(ms) != 3 || m.Info().Members != 3 {
				t.Fatalf("size %d, members %d, info %d", m.EnsembleSize(), len(ms), m.Info().Members)
			}
			if !slices.Equal(ms[0].net.Params(), single.net.Params()) {
				t.Error("member 1 differs from the single model of the same seed")
			}
			if slices.Equal(ms[1].net.Params(), ms[0].net.Params()) || ms[1].cfg.Seed != hc.cfg.Seed+1 || ms[2].cfg.Seed != hc.cfg.Seed+2 {
				t.Errorf("members 2 and 3: seeds %d %d, or the same weights as member 1", ms[1].cfg.Seed, ms[2].cfg.Seed)
			}
			for _, mk := range ms {
				if mk.info.ValRows != ms[0].info.ValRows {
					t.Errorf("validation rows %d and %d", mk.info.ValRows, ms[0].info.ValRows)
				}
			}
			ds, err := m.Dists(context.Background(), xt, len(yt), dist.TokenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			per := make([][]dist.Distribution, 3)
			for k, mk := range ms {
				if per[k], err = mk.Dists(context.Background(), xt, len(yt), dist.TokenOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			var want float64
			for i := range 10 {
				var f, p, mean float64
				for k := range 3 {
					f += per[k][i].CDF(yt[i]) / 3
					p += math.Exp(per[k][i].LogPDF(yt[i])) / 3
					mean += per[k][i].Mean() / 3
				}
				if got := ds[i].CDF(yt[i]); !(math.Abs(got-f) <= 1e-12) {
					t.Errorf("row %d: CDF %v, members' average %v", i, got, f)
				}
				if got := ds[i].Mean(); !(math.Abs(got-mean) <= 1e-12) {
					t.Errorf("row %d: mean %v, members' average %v", i, got, mean)
				}
				if got := ds[i].LogPDF(yt[i]); !(math.Abs(got-math.Log(p)) <= 1e-9) {
					t.Errorf("row %d: log density %v, log of the members' average %v", i, got, math.Log(p))
				}
			}
			// The NLL: minus the log of the average density at the clipped
			// target, for every row (the decoders' cells are the members'
			// own, as their training forward scores them).
			for i := range yt {
				var p float64
				for k := range 3 {
					p += math.Exp(per[k][i].LogPDF(m.clipY(yt[i]))) / 3
				}
				want -= math.Log(p) / float64(len(yt))
			}
			e, err := m.Evaluate(context.Background(), xt, len(yt), yt, "")
			if err != nil {
				t.Fatal(err)
			}
			if hc.cfg.Head == HeadRiemann || hc.cfg.Head == HeadMDN {
				if !(math.Abs(e.NLL-want) <= 1e-4*math.Max(1, math.Abs(want))) {
					t.Errorf("NLL %v, want %v", e.NLL, want)
				}
			}
			if math.IsNaN(e.NLL) || (hc.cfg.Head == HeadDecoder && math.IsNaN(e.NLLToken)) {
				t.Errorf("eval %+v", e)
			}
			// Members with the same bins: -log P(bin) of the mixture is
			// the NLL in u units plus log(bins).
			if hc.cfg.Head == HeadRiemann {
				if want := e.NLLU + math.Log(float64(m.Config().Bins)); !(math.Abs(e.NLLToken-want) < 1e-9*math.Max(1, math.Abs(want))) {
					t.Errorf("Riemann ensemble nll_token %v, want nll_u + log(bins) = %v", e.NLLToken, want)
				}
			}
			// The file, with names (set on every member).
			if err := m.SetNames([]string{"x"}, "y"); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "e.model")
			if err := m.Save(path); err != nil {
				t.Fatal(err)
			}
			back, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if f, tn := back.Names(); len(f) != 1 || f[0] != "x" || tn != "y" {
				t.Errorf("loaded names %v %q", f, tn)
			}
			if back.EnsembleSize() != 3 || !reflect.DeepEqual(back.Info(), m.Info()) {
				t.Fatalf("loaded: size %d, info %+v", back.EnsembleSize(), back.Info())
			}
			opts := PredictOptions{Outputs: OutMean | OutMedian | OutMode | OutQuantiles, Levels: []float64{0.05, 0.5, 0.95}}
			p1, err := m.PredictFlat(context.Background(), xt, len(yt), opts)
			if err != nil {
				t.Fatal(err)
			}
			p2, err := back.PredictFlat(context.Background(), xt, len(yt), opts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p1.Mean, p2.Mean) || !slices.Equal(p1.Median, p2.Median) || !slices.Equal(p1.Mode, p2.Mode) || !slices.Equal(p1.Quantiles[2], p2.Quantiles[2]) {
				t.Error("the loaded ensemble predicts differently")
			}
			e2, err := back.Evaluate(context.Background(), xt, len(yt), yt, "")
			if err != nil {
				t.Fatal(err)
			}
			if e2.NLL != e.NLL || e2.KendallTau != e.KendallTau {
				t.Errorf("loaded eval %+v, before %+v", e2, e)
			}
			// Calibration scores the mixture.
			c, err := m.Calibration(context.Background(), xt, len(yt), yt)
			if err != nil {
				t.Fatal(err)
			}
			if math.IsNaN(c.CRPS) || !(c.CRPS > 0) {
				t.Errorf("CRPS %v", c.CRPS)
			}
		})
	}
}

// The pointwise head's ensemble averages the members' predictions.
func TestEnsemblePointwise(t *testing.T) {
	x, y := toyData(300, 1)
	cfg := small(HeadPointwise, "")
	cfg.Ensemble = 2
	m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.PredictFlat(context.Background(), x[:5], 5, PredictOptions{Outputs: OutMean})
	if err != nil {
		t.Fatal(err)
	}
	for k, mk := range m.Members() {
		pk, err := mk.PredictFlat(context.Background(), x[:5], 5, PredictOptions{Outputs: OutMean})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			p.Mean[i] -= pk.Mean[i] / 2
		}
		_ = k
	}
	for i, v := range p.Mean {
		if !(math.Abs(v) <= 1e-12) {
			t.Errorf("row %d: mean differs from the members' average by %v", i, v)
		}
	}
	if e, err := m.Evaluate(context.Background(), x, len(y), y, ""); err != nil || !math.IsNaN(e.NLL) || math.IsNaN(e.MSE) {
		t.Errorf("eval %+v, %v", e, err)
	}
}

// With Calibrate the ensemble gets one temperature, fitted on the shared
// validation rows by the mixture's NLL: no better at 0.9 T, 1.1 T or 1.
func TestEnsembleCalibrate(t *testing.T) {
	x, y := calibrationData(2000, 1)
	cfg := Config{Head: HeadRiemann, EncLayers: 1, EncWidth: 16, MaxEpochs: 2, LR: 1e-4, Seed: 1, Threads: 1, Calibrate: true, Ensemble: 2}
	m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	T := m.Temperature()
	if T == 1 || m.Info().Temperature != T {
		t.Fatalf("temperature %v, info %+v", T, m.Info())
	}
	for _, mk := range m.Members() {
		if mk.Temperature() != T {
			t.Errorf("a member has temperature %v, the ensemble %v", mk.Temperature(), T)
		}
	}
	val := valRows(t, x, y, cfg)
	at := func(t2 float64) float64 { v, _ := m.nllAt(t2, val.x, len(val.y), val.y, nil); return v }
	if f := at(T); !(f <= at(0.9*T)+1e-9 && f <= at(1.1*T)+1e-9 && f <= at(1)) {
		t.Errorf("NLL %v at T=%v, %v at 0.9T, %v at 1.1T, %v at 1", f, T, at(0.9*T), at(1.1*T), at(1))
	}
	un, err := m.WithTemperature(1)
	if err != nil {
		t.Fatal(err)
	}
	e1, _ := un.Evaluate(context.Background(), val.x, len(val.y), val.y, "")
	eT, _ := m.Evaluate(context.Background(), val.x, len(val.y), val.y, "")
	if !(eT.NLL < e1.NLL) {
		t.Errorf("validation NLL %v at T, %v uncalibrated", eT.NLL, e1.NLL)
	}
	path := filepath.Join(t.TempDir(), "c.model")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Temperature() != T || back.Members()[1].Temperature() != T {
		t.Errorf("loaded temperature %v, member 2's %v, want %v", back.Temperature(), back.Members()[1].Temperature(), T)
	}
}

// NewEnsemble refuses members that cannot be mixed.
func TestNewEnsembleErrors(t *testing.T) {
	x, y := toyData(200, 1)
	a := fit(t, small(HeadMDN, ""), false)
	b := fit(t, small(HeadRiemann, ""), false)
	x2 := make([]float64, 0, 2*len(y))
	for _, v := range x {
		x2 = append(x2, v, -v)
	}
	c, err := FitFlat(context.Background(), x2, len(y), 2, y, small(HeadMDN, ""))
	if err != nil {
		t.Fatal(err)
	}
	yShift := slices.Clone(y)
	yShift[0] = 100
	d, err := FitFlat(context.Background(), x, len(y), 1, yShift, small(HeadMDN, ""))
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEnsemble(a, a)
	if err != nil {
		t.Fatal(err)
	}
	for name, members := range map[string][]*Model{
		"none": nil, "other head": {a, b}, "other features": {a, c}, "other range": {a, d},
		"nested": {e, a}, "unfitted": {a, {}}, "nil": {a, nil},
	} {
		if _, err := NewEnsemble(members...); !errors.Is(err, ErrConfig) && !errors.Is(err, ErrNotFitted) {
			t.Errorf("%s: %v, want a config error", name, err)
		}
	}
	// Members are counted from 1, as a model file's are ("the first
	// member's" is member 1).
	if _, err := NewEnsemble(a, a, b); err == nil || !strings.Contains(err.Error(), "member 3: head riemann, the first member's is mdn") {
		t.Errorf("a third member of another head: %v", err)
	}
	if _, err := NewEnsemble(e, a); err == nil || !strings.Contains(err.Error(), "member 1 is itself an ensemble") {
		t.Errorf("a first member that is an ensemble: %v", err)
	}
}

// An ensemble's members are its own: naming the models it was made from,
// or a copy of it, afterwards leaves it as it was, so that its file still
// loads; naming it leaves them as they were.
func TestEnsembleNamesOwn(t *testing.T) {
	a := fit(t, small(HeadMDN, ""), false)
	cfg := small(HeadMDN, "")
	cfg.Seed = 12
	b := fit(t, cfg, false)
	e, err := NewEnsemble(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SetNames([]string{"p"}, "t"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "e.drg")
	load := func(what string) *Model {
		t.Helper()
		if err := e.Save(path); err != nil {
			t.Fatalf("%s: save: %v", what, err)
		}
		l, err := Load(path)
		if err != nil {
			t.Fatalf("%s: load: %v", what, err)
		}
		return l
	}
	if f, _ := load("a member named").Names(); f != nil {
		t.Errorf("a member named after NewEnsemble: the ensemble's names %q, want none", f)
	}
	// A copy of the ensemble, named, leaves the ensemble's members as
	// they were.
	e2, err := e.WithTemperature(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := e2.SetNames([]string{"q"}, "u"); err != nil {
		t.Fatal(err)
	}
	load("a copy named")
	// The ensemble named: its members take the names, the models it was
	// made from keep theirs.
	if err := e.SetNames([]string{"r"}, "v"); err != nil {
		t.Fatal(err)
	}
	if f, tg := load("the ensemble named").Names(); !slices.Equal(f, []string{"r"}) || tg != "v" {
		t.Errorf("loaded names %q, %q; want [r], v", f, tg)
	}
	for k, mk := range e.Members() {
		if f, tg := mk.Names(); !slices.Equal(f, []string{"r"}) || tg != "v" {
			t.Errorf("member %d's names %q, %q; want [r], v", k+1, f, tg)
		}
	}
	if f, tg := a.Names(); f != nil || tg != "" {
		t.Errorf("the first model's names %q, %q after naming the ensemble; want none", f, tg)
	}
	if f, tg := b.Names(); !slices.Equal(f, []string{"p"}) || tg != "t" {
		t.Errorf("the second model's names %q, %q after naming the ensemble; want [p], t", f, tg)
	}
	if f, _ := e2.Names(); !slices.Equal(f, []string{"q"}) {
		t.Errorf("the copy's names %q after naming the ensemble; want [q]", f)
	}
}

// A corrupt ensemble file is refused with a clear error, never a panic:
// member headers whose parameter counts do not add up.
func TestLoadEnsembleCorrupt(t *testing.T) {
	x, y := toyData(200, 1)
	cfg := small(HeadMDN, "")
	cfg.Ensemble = 2
	cfg.MaxEpochs = 1
	m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, edit := range map[string]func(h *fileHeader, p []float32) []float32{
		"short":          func(h *fileHeader, p []float32) []float32 { return p[:len(p)-1] },
		"long":           func(h *fileHeader, p []float32) []float32 { return append(p, 0) },
		"member count":   func(h *fileHeader, p []float32) []float32 { h.Members[0].Params++; return p },
		"first count":    func(h *fileHeader, p []float32) []float32 { h.Params = -1; return p },
		"member temp":    func(h *fileHeader, p []float32) []float32 { h.Members[0].Temperature = 2; return p },
		"nested members": func(h *fileHeader, p []float32) []float32 { h.Members[0].Members = []fileHeader{{}}; return p },
		"member range":   func(h *fileHeader, p []float32) []float32 { h.Members[0].YMax++; return p },
	} {
		h := m.header()
		h.Members = []fileHeader{m.others[0].header()}
		p := edit(&h, m.params())
		hb, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := modelfile.WriteFile(path, hb, p); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(path); !errors.Is(err, modelfile.ErrNotModel) {
			t.Errorf("%s: %v, want ErrNotModel", name, err)
		}
	}
}

// More rows than predictChunk: PredictFlat, Evaluate and Calibration work
// in chunks, and give what they give on the rows' parts.
func TestChunkedPredictions(t *testing.T) {
	x, y := toyData(300, 1)
	xt, yt := toyData(predictChunk+200, 3)
	cfg := small(HeadDecoder, "normalized:base=4,length=3")
	cfg.Ensemble = 2
	m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	scaled, err := m.Members()[0].WithTemperature(1.7)
	if err != nil {
		t.Fatal(err)
	}
	for name, mm := range map[string]*Model{"ensemble": m, "temperature": scaled} {
		n := len(yt)
		p, err := mm.PredictFlat(context.Background(), xt, n, PredictOptions{Outputs: OutMean | OutQuantiles, Levels: []float64{0.1, 0.9}})
		if err != nil {
			t.Fatal(err)
		}
		for _, i := range []int{0, predictChunk - 1, predictChunk, n - 1} {
			d, err := mm.Dist(xt[i : i+1])
			if err != nil {
				t.Fatal(err)
			}
			if p.Mean[i] != d.Mean() || p.Quantiles[1][i] != d.Quantile(0.9) {
				t.Errorf("%s row %d: mean %v, quantile %v; one row: %v, %v", name, i, p.Mean[i], p.Quantiles[1][i], d.Mean(), d.Quantile(0.9))
			}
		}
		e, err := mm.Evaluate(context.Background(), xt, n, yt, "")
		if err != nil {
			t.Fatal(err)
		}
		a, err := mm.Evaluate(context.Background(), xt[:300], 300, yt[:300], "")
		if err != nil {
			t.Fatal(err)
		}
		b, err := mm.Evaluate(context.Background(), xt[300:], n-300, yt[300:], "")
		if err != nil {
			t.Fatal(err)
		}
		if want := (300*a.NLL + float64(n-300)*b.NLL) / float64(n); !(math.Abs(e.NLL-want) <= 1e-9) {
			t.Errorf("%s: NLL %v, from two parts %v", name, e.NLL, want)
		}
		c, err := mm.Calibration(context.Background(), xt, n, yt)
		if err != nil {
			t.Fatal(err)
		}
		ca, _ := mm.Calibration(context.Background(), xt[:300], 300, yt[:300])
		cb, _ := mm.Calibration(context.Background(), xt[300:], n-300, yt[300:])
		if want := (300*ca.CRPS + float64(n-300)*cb.CRPS) / float64(n); !(math.Abs(c.CRPS-want) <= 1e-9) {
			t.Errorf("%s: CRPS %v, from two parts %v", name, c.CRPS, want)
		}
		if want := (300*ca.Coverage["0.9"] + float64(n-300)*cb.Coverage["0.9"]) / float64(n); !(math.Abs(c.Coverage["0.9"]-want) <= 1e-12) {
			t.Errorf("%s: coverage %v, from two parts %v", name, c.Coverage["0.9"], want)
		}
	}
}

// The parameter limit counts the input layer and the PLR embeddings, which
// depend on the number of features: refused before anything is allocated.
func TestSizeLimitWithFeatures(t *testing.T) {
	const cols = 60
	x := make([]float64, 10*cols)
	for i := range x {
		x[i] = float64(i % 7)
	}
	y := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for field, cfg := range map[string]Config{
		"PLRDim":   {Head: HeadMDN, Encoder: EncoderPLR, PLRDim: 16384},
		"EncWidth": {Head: HeadMDN, EncLayers: 1, EncWidth: 16384, MaxEpochs: 1},
	} {
		in := x
		c := cols
		if field == "EncWidth" {
			c = 20000 // 20,000 features x 16,384 wide
			in = make([]float64, 2*c)
			y = y[:2]
		}
		_, err := FitFlat(context.Background(), in, len(in)/c, c, y[:len(in)/c], cfg)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != field {
			t.Errorf("%s: %v, want a ConfigError naming %s", field, err, field)
		}
	}
	cfg := Config{Head: HeadMDN, Encoder: EncoderPLR, PLRSigma: 1e20}
	if err := cfg.Validate(); err == nil {
		t.Error("PLRSigma 1e20 accepted")
	}
}
