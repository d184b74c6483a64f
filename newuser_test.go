package decoreg

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"decoreg/data"
	"decoreg/dist"
)

// Faults a new user's hostile test found in the library's options.

// wantConfigField checks that err is a *ConfigError about field whose
// message contains want.
func wantConfigField(t *testing.T, err error, field, want string) {
	t.Helper()
	var ce *ConfigError
	if !errors.As(err, &ce) || !errors.Is(err, ErrConfig) {
		t.Fatalf("got %v, want a *ConfigError about %s", err, field)
	}
	if ce.Field != field || !strings.Contains(ce.Err.Error(), want) {
		t.Fatalf("got field %q, message %q; want field %q, a message with %q", ce.Field, ce.Err, field, want)
	}
}

// AdamW without a weight decay would train exactly as Adam: refused.
func TestAdamWNeedsWeightDecay(t *testing.T) {
	wantConfigField(t, Config{AdamW: true}.Validate(), "AdamW", "weight decay")
	x, y := toyData(40, 1)
	m, err := FitFlat(context.Background(), x, len(y), 1, y, Config{AdamW: true})
	if m != nil {
		t.Error("FitFlat returned a model")
	}
	wantConfigField(t, err, "AdamW", "weight decay")
	_, _, err = Tune(context.Background(), x, len(y), 1, y, Config{AdamW: true}, TuneOptions{})
	wantConfigField(t, err, "AdamW", "weight decay")
	if err := (Config{AdamW: true, WeightDecay: 0.01}).Validate(); err != nil {
		t.Errorf("AdamW with a weight decay: %v", err)
	}
	// A saved model's Config is not held to the training checks.
	if _, err := DefaultConfig(Config{AdamW: true}).validate(); err != nil {
		t.Errorf("the load path refuses AdamW without a weight decay: %v", err)
	}
	// The pointwise grid's weight decay 0 turns AdamW off, so that its
	// trial is not refused.
	base := DefaultConfig(Config{Head: HeadPointwise, AdamW: true, WeightDecay: 0.5})
	var found bool
	for _, a := range tuneGrid(base) {
		if a.name != "weight_decay" {
			continue
		}
		found = true
		for _, v := range a.values {
			c := base
			a.set(&c, v)
			if _, err := c.validateTrain(); err != nil {
				t.Errorf("weight_decay %s: %v", v, err)
			}
			if c.AdamW != (c.WeightDecay > 0) {
				t.Errorf("weight_decay %s: AdamW %v", v, c.AdamW)
			}
		}
	}
	if !found {
		t.Fatal("no weight_decay axis in the pointwise grid")
	}
}

// Tokenizations a model cannot be trained on are refused for training
// (vocab.Trainable) and still load: special tokens, never trained since
// targets are finite (samples drew NaN and ±Inf), and an Unnormalized zero
// cell of width 0 (a target 0 had loss -Inf; the summary said val_loss 0,
// calibration failed to write the model).
func TestUntrainableVocab(t *testing.T) {
	x, y := toyData(40, 1)
	for spec, want := range map[string]string{
		"normalized:base=10,length=3,special=true":   "leave special out",
		"unnormalized:base=10,exponent=3,mantissa=2": "use exponent <= 2 for base 10",
		"unnormalized:base=2,exponent=11,mantissa=4": "use exponent <= 10 for base 2",
	} {
		cfg := Config{Head: HeadDecoder, Vocab: spec, RawTarget: true}
		wantConfigField(t, cfg.Validate(), "Vocab", want)
		m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
		if m != nil {
			t.Error("FitFlat returned a model")
		}
		wantConfigField(t, err, "Vocab", want)
		_, _, err = Tune(context.Background(), x, len(y), 1, y, cfg, TuneOptions{})
		wantConfigField(t, err, "Vocab", want)
		if _, err := DefaultConfig(cfg).validate(); err != nil {
			t.Errorf("the load path refuses %s: %v", spec, err)
		}
	}
	// The unnormalized tune grid holds only trainable tokenizations: the
	// paper's, less exponent 4 for bases 8 and 10.
	var vocabs []string
	for _, a := range tuneGrid(DefaultConfig(Config{Head: HeadDecoder, Vocab: DefaultUnnormalized})) {
		if a.name == "vocab" {
			vocabs = a.values
		}
	}
	if len(vocabs) != 21 || !slices.Contains(vocabs, "unnormalized:base=4,exponent=4,mantissa=8") || !slices.Contains(vocabs, "unnormalized:base=10,exponent=2,mantissa=8") {
		t.Errorf("the unnormalized grid: %q", vocabs)
	}
	for _, v := range vocabs {
		if err := (Config{Head: HeadDecoder, Vocab: v}).Validate(); err != nil {
			t.Errorf("grid value %s: %v", v, err)
		}
	}
}

// A Patience without validation rows would never apply: refused, unless it
// is 0 or DefaultPatience (the command line always passes one).
func TestPatienceNeedsValidation(t *testing.T) {
	wantConfigField(t, Config{ValFrac: -1, Patience: 7}.Validate(), "Patience", "without a validation split")
	for _, c := range []Config{{ValFrac: -1}, {ValFrac: -1, Patience: DefaultPatience}, {Patience: 7}, {ValFrac: 0.2, Patience: 1}} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	x, y := toyData(40, 1)
	cfg := small(HeadMDN, "")
	cfg.ValFrac, cfg.Patience = -1, 10
	m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
	if m != nil {
		t.Error("FitFlat returned a model")
	}
	wantConfigField(t, err, "Patience", "without a validation split")
}

// A nil context is context.Background() in every entry point taking one.
func TestNilContext(t *testing.T) {
	var nilCtx context.Context // nil
	x, y := toyData(60, 1)
	cfg := small(HeadMDN, "")
	cfg.MaxEpochs = 1
	if _, err := FitFlat(nilCtx, x, len(y), 1, y, cfg); err != nil {
		t.Errorf("FitFlat: %v", err)
	}
	X := make([][]float64, len(x))
	for i := range x {
		X[i] = x[i : i+1]
	}
	if _, err := Fit(nilCtx, X, y, cfg); err != nil {
		t.Errorf("Fit: %v", err)
	}
	ens := cfg
	ens.Ensemble = 2
	if _, err := FitFlat(nilCtx, x, len(y), 1, y, ens); err != nil {
		t.Errorf("FitFlat, ensemble: %v", err)
	}
	topts := TuneOptions{Trials: 2, Rung: 1, Budget: time.Minute, grid: tinyGrid}
	if _, _, err := Tune(nilCtx, x, len(y), 1, y, cfg, topts); err != nil {
		t.Errorf("Tune: %v", err)
	}
	f := readMixed(t)
	fcfg := mixedConfig(HeadMDN)
	fcfg.MaxEpochs = 1
	if _, err := FitFrame(nilCtx, f, "price", fcfg); err != nil {
		t.Errorf("FitFrame: %v", err)
	}
	if _, _, err := TuneFrame(nilCtx, f, "price", fcfg, topts); err != nil {
		t.Errorf("TuneFrame: %v", err)
	}
}

// No feature columns is bad input, not too few rows.
func TestNoFeatureColumns(t *testing.T) {
	_, y := toyData(40, 1)
	for _, cols := range []int{0, -1} {
		m, err := FitFlat(context.Background(), nil, len(y), cols, y, small(HeadMDN, ""))
		if m != nil || !errors.Is(err, ErrBadInput) || errors.Is(err, ErrTooFewRows) || !strings.Contains(err.Error(), "no feature columns") {
			t.Errorf("cols %d: got (%v, %v), want ErrBadInput about no feature columns", cols, m, err)
		}
	}
	X := make([][]float64, len(y))
	for i := range X {
		X[i] = []float64{}
	}
	if _, err := Fit(context.Background(), X, y, small(HeadMDN, "")); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "no feature columns") {
		t.Errorf("Fit of empty rows: %v", err)
	}
	// No rows at all is still too few rows.
	if _, err := FitFlat(context.Background(), nil, 0, 0, nil, small(HeadMDN, "")); !errors.Is(err, ErrTooFewRows) {
		t.Errorf("no rows, no columns: %v", err)
	}
}

// EvaluateFrame refuses a target that is one of the model's inputs, with
// and without a schema.
func TestEvaluateFrameTargetIsFeature(t *testing.T) {
	f := readMixed(t)
	cfg := mixedConfig(HeadMDN)
	cfg.MaxEpochs = 1
	m, err := FitFrame(context.Background(), f, "price", cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"rooms", "city"} {
		e, err := m.EvaluateFrame(context.Background(), f, target, "")
		if e != nil || !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), `"`+target+`" is one of the model's feature columns`) {
			t.Errorf("schema model, target %s: got (%v, %v)", target, e, err)
		}
	}
	if _, err := m.EvaluateFrame(context.Background(), f, "price", ""); err != nil {
		t.Errorf("the real target: %v", err)
	}

	// A model of Fit with names.
	x, y := toyData(60, 1)
	m2, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := m2.SetNames([]string{"a"}, "y"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(path, []byte("a,y\n0.5,1\n-1,0.2\n1.5,0.3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := data.ReadFrame(path, data.FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e, err := m2.EvaluateFrame(context.Background(), g, "a", ""); e != nil || !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "feature columns") {
		t.Errorf("named model, target a: got (%v, %v)", e, err)
	}
	if _, err := m2.EvaluateFrame(context.Background(), g, "y", ""); err != nil {
		t.Errorf("named model, target y: %v", err)
	}
}

// An empty, non-nil Levels with OutQuantiles is refused; nil means
// DefaultLevels; without OutQuantiles Levels is not used.
func TestPredictEmptyLevels(t *testing.T) {
	x, y := toyData(60, 1)
	cfg := small(HeadMDN, "")
	cfg.MaxEpochs = 1
	m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.PredictFlat(context.Background(), x[:3], 3, PredictOptions{Outputs: OutQuantiles, Levels: []float64{}})
	if p != nil {
		t.Error("a prediction with no levels")
	}
	wantConfigField(t, err, "Levels", "no quantile levels")
	p, err = m.PredictFlat(context.Background(), x[:3], 3, PredictOptions{Outputs: OutQuantiles})
	if err != nil || !slices.Equal(p.Levels, DefaultLevels) || len(p.Quantiles) != len(DefaultLevels) {
		t.Errorf("nil levels: %v, %v", p, err)
	}
	if _, err := m.PredictFlat(context.Background(), x[:3], 3, PredictOptions{Outputs: OutMean, Levels: []float64{}}); err != nil {
		t.Errorf("empty levels without OutQuantiles: %v", err)
	}
}

// An MDN on targets spread near float64's largest number trained, and
// then no command could use the model (its Gaussians overflowed in y
// units): refused before training, with the range; a range that leaves
// room is trained and gives distributions.
func TestMDNRangeTooWide(t *testing.T) {
	x := make([]float64, 40)
	y := make([]float64, 40)
	for i := range y {
		x[i] = float64(i)
		y[i] = float64(i) / 39 * 1.7e308
	}
	cfg := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 4, MaxEpochs: 1, Threads: 1}
	m, err := FitFlat(context.Background(), x, 40, 1, y, cfg)
	if m != nil || !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "too wide for the mdn head") {
		t.Errorf("range 1.7e308: %v, %v", m, err)
	}
	cfg.TargetMin, cfg.TargetMax = -8e307, 8e307
	if _, err := FitFlat(context.Background(), x, 40, 1, make([]float64, 40), cfg); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "too wide") {
		t.Errorf("fixed range 1.6e308 wide: %v", err)
	}
	cfg.TargetMin, cfg.TargetMax = 0, 0
	for i := range y {
		y[i] /= 6 // about 2.8e307: 5 widths stay finite
	}
	m, err = FitFlat(context.Background(), x, 40, 1, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Dists(context.Background(), x, 40, dist.TokenOptions{}); err != nil {
		t.Errorf("range 2.8e307: %v", err)
	}
}

// Review of the library API (2026-12-06): a frame with two columns of a
// model column's name is refused by PredictFrame and EvaluateFrame (the
// first was used, the other ignored without a word), as is one with the
// target twice; a target name that is not UTF-8 is refused by FitFrame
// (only Save refused it, after the training); a learning rate that is 0
// in float32 is refused (training returned the initial weights); an MDN's
// CRPS at an infinite target is +Inf (it was NaN for some).
func TestFrameAPIReview(t *testing.T) {
	n := 30
	f := &data.Frame{Rows: n, Columns: []data.Column{
		{Name: "a", Kind: data.Numeric, Field: -1, Num: make([]float64, n), Missing: make([]bool, n)},
		{Name: "c", Kind: data.Categorical, Field: -1, Str: make([]string, n), Missing: make([]bool, n)},
		{Name: "y", Kind: data.Numeric, Field: -1, Num: make([]float64, n), Missing: make([]bool, n)},
	}}
	for i := range n {
		f.Columns[0].Num[i], f.Columns[1].Str[i], f.Columns[2].Num[i] = float64(i), []string{"r", "g", "b"}[i%3], float64(i%7)
	}
	cfg := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 4, MaxEpochs: 1, Threads: 1}
	m, err := FitFrame(context.Background(), f, "y", cfg)
	if err != nil {
		t.Fatal(err)
	}
	dup := *f
	dup.Columns = append(slices.Clone(f.Columns), data.Column{Name: "a", Kind: data.Numeric, Field: -1, Num: make([]float64, n), Missing: make([]bool, n)})
	if _, err := m.PredictFrame(context.Background(), &dup, PredictOptions{}); !errors.Is(err, data.ErrDuplicateColumn) {
		t.Errorf("PredictFrame with a twice: %v", err)
	}
	if _, err := m.EvaluateFrame(context.Background(), &dup, "y", ""); !errors.Is(err, data.ErrDuplicateColumn) {
		t.Errorf("EvaluateFrame with a twice: %v", err)
	}
	dupY := *f
	dupY.Columns = append(slices.Clone(f.Columns), f.Columns[2])
	if _, err := m.EvaluateFrame(context.Background(), &dupY, "y", ""); !errors.Is(err, data.ErrDuplicateColumn) {
		t.Errorf("EvaluateFrame with y twice: %v", err)
	}
	bad := *f
	bad.Columns = slices.Clone(f.Columns)
	bad.Columns[2].Name = "\xff"
	if lm, err := FitFrame(context.Background(), &bad, "\xff", cfg); lm != nil || !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "not valid UTF-8") {
		t.Errorf("a target name that is not UTF-8: %v", err)
	}
	if err := (Config{LR: 5e-324}).Validate(); err == nil || !strings.Contains(err.Error(), "0 in float32") {
		t.Errorf("LR 5e-324: %v", err)
	}
	mdn := dist.NewMDN([]float64{1, 0}, []float64{0, 1}, []float64{1, 1}, dist.Affine{Scale: 1})
	mix := dist.NewMixture([]dist.Distribution{mdn, dist.NewMDN([]float64{1}, []float64{2}, []float64{0.5}, dist.Affine{Scale: 1})})
	for _, y := range []float64{math.Inf(1), math.Inf(-1)} {
		for _, d := range []dist.Distribution{mdn, mix} {
			if s, _ := dist.CRPS(d, y); !math.IsInf(s, 1) {
				t.Errorf("%T CRPS at %v: %v", d, y, s)
			}
		}
	}
}
