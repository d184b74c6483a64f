package decoreg

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"decoreg/dist"
	"decoreg/internal/modelfile"
)

// allHeads are the heads and tokenization kinds under test.
var allHeads = []struct {
	name string
	cfg  Config
}{
	{"decoder-normalized", small(HeadDecoder, "normalized:base=4,length=3")},
	{"decoder-unnormalized", small(HeadDecoder, "unnormalized:base=4,exponent=1,mantissa=2")},
	{"pointwise", small(HeadPointwise, "")},
	{"riemann", small(HeadRiemann, "")},
	{"mdn", small(HeadMDN, "")},
}

// wantDataError checks that err is a *DataError about row and column
// wrapping ErrBadInput.
func wantDataError(t *testing.T, what string, err error, row, column int) {
	t.Helper()
	var de *DataError
	if !errors.As(err, &de) || !errors.Is(err, ErrBadInput) {
		t.Errorf("%s: got %v, want a *DataError wrapping ErrBadInput", what, err)
		return
	}
	if de.Row != row || de.Column != column {
		t.Errorf("%s: row %d, column %d, want row %d, column %d (%v)", what, de.Row, de.Column, row, column, err)
	}
}

// TestP2LargeFiniteFeatures: a huge finite feature in one prediction row
// can overflow the network's float32 arithmetic. Every head and every path
// (Predict, Dist, Dists, Evaluate, Score) then reports a *DataError naming
// the row and the column, and never panics or answers NaN or (the decoder)
// a uniform distribution; a row the network does not overflow on answers
// finite values.
func TestP2LargeFiniteFeatures(t *testing.T) {
	x, y := toyData(300, 1)
	// Two features: column 1 is a noisy copy of column 0.
	x2 := make([]float64, 2*len(x))
	for i, v := range x {
		x2[2*i], x2[2*i+1] = v, 0.5*v+0.1*float64(i%7)
	}
	const all = OutMean | OutMedian | OutMode | OutQuantiles
	for _, hc := range allHeads {
		t.Run(hc.name, func(t *testing.T) {
			m, err := FitFlat(context.Background(), x2, len(y), 2, y, hc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			overflowed := false
			for _, big := range []float64{1e38, -1e38, 3e38, -3e38, 4e37, 1e30, 1e20, 1e300, -1e300} {
				rows := []float64{0.1, 0.2, 0.3, big, -0.5, 0.4} // the big value is row 1, column 1
				p, err := m.PredictFlat(context.Background(), rows, 3, PredictOptions{Outputs: all})
				if err == nil {
					for i := range 3 {
						for _, v := range []float64{p.Mean[i], p.Median[i], p.Mode[i], p.Quantiles[0][i], p.Quantiles[3][i]} {
							if math.IsNaN(v) || math.IsInf(v, 0) {
								t.Errorf("%g: row %d answers %v with no error", big, i, v)
							}
						}
					}
					if !(math.Abs(big) <= 1e200) {
						t.Errorf("%g: no error", big)
					}
					continue
				}
				overflowed = true
				wantDataError(t, "PredictFlat", err, 1, 1)
				_, err = m.Predict(context.Background(), [][]float64{{0.1, 0.2}, {0.3, big}}, PredictOptions{})
				wantDataError(t, "Predict", err, 1, 1)
				_, err = m.Dist([]float64{0.3, big})
				wantDataError(t, "Dist", err, 0, 1)
				_, err = m.Dists(context.Background(), rows, 3, dist.TokenOptions{})
				wantDataError(t, "Dists", err, 1, 1)
				_, err = m.Evaluate(context.Background(), rows, 3, []float64{0, 0.5, 1}, "")
				wantDataError(t, "Evaluate", err, 1, 1)
				_, err = m.Score(context.Background(), [][]float64{{0.3, big}}, []float64{1})
				wantDataError(t, "Score", err, 0, 1)
			}
			if !overflowed {
				t.Error("no value overflowed")
			}
			// A row whose every feature is huge overflows inside the
			// network (not at standardization): the error blames the
			// column furthest from the training data.
			_, err = m.Dist([]float64{3e38, -3.3e38})
			var de *DataError
			if errors.As(err, &de) && (de.Row != 0 || de.Column != 1) {
				t.Errorf("both columns huge: %v, want row 0, column 1", err)
			}
			// Ordinary rows still answer.
			if _, err := m.Dist([]float64{0.3, 0.1}); err != nil {
				t.Errorf("ordinary row: %v", err)
			}
		})
	}
}

// TestP2NetworkOverflow: an overflow inside the network (non-finite head
// outputs or decoder logits from finite standardized inputs) is reported
// for every head, through the check of the head table, not only at
// standardization.
func TestP2NetworkOverflow(t *testing.T) {
	x, y := toyData(200, 1)
	for _, hc := range allHeads {
		m, err := FitFlat(context.Background(), x, len(y), 1, y, hc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		// Scale the first encoder layer's weights so that a value of 1e30
		// overflows float32 (|w| * 1e30 * 1e10 > 3.4e38).
		p := m.net.Params()
		for i := range m.cfg.EncWidth {
			p[i] = 1e10
		}
		_, err = m.Dist([]float64{1e30})
		wantDataError(t, hc.name, err, 0, 0)
		if err != nil && !strings.Contains(err.Error(), "overflow") {
			t.Errorf("%s: %q does not say overflow", hc.name, err)
		}
	}
}

// TestP5WideFeature: a feature spanning +-1e300, whose plain sum of
// squares overflows float64, has a finite sd (data.FitStandardizer then
// scales the values first): it trains and the model saves and loads (it
// used to be refused, and before that to fail to save). Values whose
// distance from their centre overflows are refused up front with a
// *DataError naming the column.
func TestP5WideFeature(t *testing.T) {
	x, y := toyData(50, 1)
	x2 := make([]float64, 2*len(x))
	for _, big := range []float64{1e300, 1e150} {
		for i, v := range x {
			x2[2*i], x2[2*i+1] = v, math.Copysign(big, v)
		}
		for _, hc := range allHeads {
			m, err := FitFlat(context.Background(), x2, len(y), 2, y, hc.cfg)
			if err != nil {
				t.Fatalf("%s, +-%g: %v", hc.name, big, err)
			}
			path := filepath.Join(t.TempDir(), "m")
			if err := m.Save(path); err != nil {
				t.Fatalf("%s, +-%g: save: %v", hc.name, big, err)
			}
			m2, err := Load(path)
			if err != nil {
				t.Fatalf("%s, +-%g: load: %v", hc.name, big, err)
			}
			p, err := m2.PredictFlat(context.Background(), x2[:4], 2, PredictOptions{Outputs: OutMean})
			if err != nil || math.IsNaN(p.Mean[0]) || math.IsNaN(p.Mean[1]) {
				t.Fatalf("%s, +-%g: predict: %v %v", hc.name, big, p, err)
			}
		}
	}
	// Near both ends of float64 around an off-centre mean: x - mean
	// overflows.
	for i := range x {
		x2[2*i+1] = 1.7e308
		if i%3 == 0 {
			x2[2*i+1] = -1.7e308
		}
	}
	for _, hc := range allHeads {
		m, err := FitFlat(context.Background(), x2, len(y), 2, y, hc.cfg)
		wantDataError(t, hc.name, err, -1, 1)
		if m != nil {
			t.Errorf("%s: a model with the error", hc.name)
		}
		if err != nil && !strings.Contains(err.Error(), "column 1") {
			t.Errorf("%s: %q does not name column 1", hc.name, err)
		}
	}
}

// TestP6TargetRangeOverflow: targets of +-1.7e308 are not constant: their
// range y_max - y_min overflows float64, and the error says so.
func TestP6TargetRangeOverflow(t *testing.T) {
	x, _ := toyData(20, 1)
	y := make([]float64, len(x))
	for i := range y {
		y[i] = 1.7e308
		if i%2 == 1 {
			y[i] = -1.7e308
		}
	}
	_, err := FitFlat(context.Background(), x, len(y), 1, y, small(HeadMDN, ""))
	if errors.Is(err, ErrConstantTarget) || !errors.Is(err, ErrBadInput) {
		t.Fatalf("got %v, want ErrBadInput, not ErrConstantTarget", err)
	}
	if !strings.Contains(err.Error(), "y_max - y_min") || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("%q does not say that the range overflows", err)
	}
	var de *DataError
	if !errors.As(err, &de) || de.Row != -1 || de.Column != -1 {
		t.Errorf("got %#v, want a *DataError with row and column -1", err)
	}
	// A constant target is still reported as constant.
	for i := range y {
		y[i] = 1.7e308
	}
	if _, err := FitFlat(context.Background(), x, len(y), 1, y, small(HeadMDN, "")); !errors.Is(err, ErrConstantTarget) {
		t.Errorf("constant: %v", err)
	}
}

// TestSaveNeverFails: Save succeeds for every model Fit returns, also at
// the edges of the accepted configs (a negative ValFrac; -Inf is refused).
func TestSaveNeverFails(t *testing.T) {
	x, y := toyData(60, 1)
	for _, vf := range []float64{-1, -1e300} {
		cfg := small(HeadRiemann, "")
		cfg.ValFrac = vf
		m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Save(filepath.Join(t.TempDir(), "m")); err != nil {
			t.Errorf("ValFrac %v: %v", vf, err)
		}
	}
	cfg := small(HeadRiemann, "")
	cfg.ValFrac = math.Inf(-1)
	var ce *ConfigError
	if _, err := FitFlat(context.Background(), x, len(y), 1, y, cfg); !errors.As(err, &ce) || ce.Field != "ValFrac" {
		t.Errorf("ValFrac -Inf: %v", err)
	}
}

// TestDataErrorText: the error names the row and the column it knows and
// unwraps to its sentinel; Err alone is the reason.
func TestDataErrorText(t *testing.T) {
	for _, c := range []struct {
		e    *DataError
		want string
	}{
		{dataErr(3, 2, ErrBadInput, "the feature is NaN"), "decoreg: row 3, column 2: the feature is NaN"},
		{dataErr(3, -1, ErrBadInput, "the target is NaN"), "decoreg: row 3: the target is NaN"},
		{dataErr(-1, 4, ErrBadInput, "too wide"), "decoreg: column 4: too wide"},
		{dataErr(-1, -1, ErrConstantTarget, "constant"), "decoreg: constant"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
		if c.e.Err.Error() == "" || strings.HasPrefix(c.e.Err.Error(), "decoreg:") {
			t.Errorf("Err %q", c.e.Err)
		}
	}
	if !errors.Is(dataErr(0, 0, ErrConstantTarget, "x"), ErrConstantTarget) {
		t.Error("errors.Is through DataError")
	}
	// Fit's NaN errors name the row and the column.
	x, y := toyData(30, 1)
	x2 := append([]float64(nil), x...)
	x2[7] = math.NaN()
	_, err := FitFlat(context.Background(), x2, len(y), 1, y, small(HeadMDN, ""))
	wantDataError(t, "nan feature", err, 7, 0)
	y2 := append([]float64(nil), y...)
	y2[5] = math.Inf(1)
	_, err = FitFlat(context.Background(), x, len(y), 1, y2, small(HeadMDN, ""))
	wantDataError(t, "inf target", err, 5, -1)
}

// TestOldModelFiles: model files written by decoreg 0.1.0 before Config
// had JSON tags (its SavedConfig) load with every setting, and a model
// saves with the same header keys.
func TestOldModelFiles(t *testing.T) {
	for _, c := range []struct {
		file string
		want Config
	}{
		{"v0.1.0-mdn.model", Config{Head: HeadMDN, EncLayers: 2, EncWidth: 16, Components: 5}},
		{"v0.1.0-decoder-raw.model", Config{Head: HeadDecoder, Vocab: DefaultUnnormalized, RawTarget: true, UnmaskedLoss: true,
			EncLayers: 2, EncWidth: 16, DecLayers: 1, DecWidth: 32, DecHeads: 1}},
	} {
		path := filepath.Join("testdata", c.file)
		m, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		want := DefaultConfig(c.want)
		want.MaxEpochs, want.Threads, want.Seed = 4, 1, 7
		if got := m.Config(); got != want {
			t.Errorf("%s: config\n got %+v\nwant %+v", c.file, got, want)
		}
		if _, err := m.Predict(context.Background(), [][]float64{{0.1, -0.2, 0.3}}, PredictOptions{}); err != nil {
			t.Errorf("%s: %v", c.file, err)
		}
		out := filepath.Join(t.TempDir(), "m")
		if err := m.Save(out); err != nil {
			t.Fatal(err)
		}
		if a, b := headerKeys(t, path), headerKeys(t, out); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: header keys\n old %v\n new %v", c.file, a, b)
		}
	}
}

// headerKeys returns the config keys of a model file's header.
func headerKeys(t *testing.T, path string) []string {
	t.Helper()
	hb, _, err := modelfile.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Config map[string]any `json:"config"`
	}
	if err := json.Unmarshal(hb, &h); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range h.Config {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}

func sortStrings(s []string) {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
}

// TestEvalJSON: NaN metrics encode as null and read back as NaN, as do
// absent ones; finite ones round-trip exactly.
func TestEvalJSON(t *testing.T) {
	e := Eval{N: 3, NLL: math.NaN(), NLLU: 0.1, NLLToken: math.Inf(1), MSE: 2.5, RelMSE: 1.0 / 3, KendallTau: -0.25, Clipped: 1, Point: "median"}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"nll":null`) || !strings.Contains(string(b), `"point":"median"`) {
		t.Errorf("json %s", b)
	}
	var got Eval
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(got.NLL) || !math.IsInf(got.NLLToken, 1) || got.NLLU != 0.1 || got.RelMSE != 1.0/3 || got.N != 3 || got.Clipped != 1 || got.Point != "median" {
		t.Errorf("round trip: %+v", got)
	}
	if err := json.Unmarshal([]byte(`{"n":2,"nll":1.5}`), &got); err != nil || got.NLL != 1.5 || !math.IsNaN(got.NLLToken) {
		t.Errorf("absent numbers: %+v, %v", got, err)
	}
}

// TestConfigJSON: a Config's JSON round-trips every field.
func TestConfigJSON(t *testing.T) {
	c := Config{Head: HeadDecoder, Vocab: "normalized:base=4,length=3", RawTarget: true,
		UnmaskedLoss: true, EncLayers: 3, EncWidth: 5, DecLayers: 2, DecWidth: 8, DecHeads: 2, Bins: 9,
		Components: 4, Sigmoid: true, LR: 0.25, WeightDecay: 0.5, AdamW: true, BatchSize: 7, MaxEpochs: 11,
		Patience: 3, ValFrac: 0.2, Seed: 99, Threads: 1}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var got Config
	if err := json.Unmarshal(b, &got); err != nil || got != c {
		t.Errorf("round trip: %+v, %v (%s)", got, err, b)
	}
}

// TestDefaultLevels: Predict's default quantile levels are DefaultLevels,
// 0.05, 0.25, 0.75 and 0.95 (what the command line writes), and a level
// outside [0, 1] is a *ConfigError naming Levels.
func TestDefaultLevels(t *testing.T) {
	if want := []float64{0.05, 0.25, 0.75, 0.95}; !reflect.DeepEqual(DefaultLevels, want) {
		t.Errorf("DefaultLevels %v, want %v", DefaultLevels, want)
	}
	m := fit(t, small(HeadMDN, ""), false)
	p, err := m.Predict(context.Background(), [][]float64{{0.5}}, PredictOptions{Outputs: OutQuantiles})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Levels, DefaultLevels) || len(p.Quantiles) != len(DefaultLevels) {
		t.Errorf("levels %v, %d quantile rows", p.Levels, len(p.Quantiles))
	}
	for j := 1; j < len(p.Quantiles); j++ {
		if !(p.Quantiles[j][0] > p.Quantiles[j-1][0]) {
			t.Errorf("quantiles not increasing: %v", p.Quantiles)
		}
	}
	var ce *ConfigError
	_, err = m.Predict(context.Background(), [][]float64{{0.5}}, PredictOptions{Outputs: OutQuantiles, Levels: []float64{0.5, 1.5}})
	if !errors.As(err, &ce) || ce.Field != "Levels" || !errors.Is(err, ErrConfig) {
		t.Errorf("level 1.5: %v", err)
	}
	// Bits that are no output were ignored.
	_, err = m.Predict(context.Background(), [][]float64{{0.5}}, PredictOptions{Outputs: OutMean | 1<<20})
	if !errors.As(err, &ce) || ce.Field != "Outputs" {
		t.Errorf("unknown output bit: %v", err)
	}
	_, err = m.Evaluate(context.Background(), []float64{0.5}, 1, []float64{0}, "average")
	if !errors.As(err, &ce) || ce.Field != "Point" {
		t.Errorf("point average: %v", err)
	}
}

// TestTokenOptionsChecked: token options that dist.NewToken refuses with a
// panic are a *ConfigError naming the option.
func TestTokenOptionsChecked(t *testing.T) {
	m := fit(t, small(HeadDecoder, "normalized:base=4,length=3"), false)
	for field, o := range map[string]dist.TokenOptions{
		"Token.Beam":      {Beam: -1},
		"Token.MaxExpand": {MaxExpand: -2},
		"Token.Samples":   {Samples: -3},
		"Token.MeanTol":   {MeanTol: math.NaN()},
	} {
		var ce *ConfigError
		_, err := m.Dists(context.Background(), []float64{0.5}, 1, o)
		if !errors.As(err, &ce) || ce.Field != field {
			t.Errorf("%s: %v", field, err)
		}
		_, err = m.PredictFlat(context.Background(), []float64{0.5}, 1, PredictOptions{Token: o})
		if !errors.As(err, &ce) || ce.Field != field {
			t.Errorf("%s: Predict: %v", field, err)
		}
	}
}

// TestP6LoadRangeOverflow: a model file whose target range overflows
// float64 is refused on loading (it would panic in the distributions).
func TestP6LoadRangeOverflow(t *testing.T) {
	m := fit(t, small(HeadRiemann, ""), false)
	m.units.YMin, m.units.YMax = -1e308, 1e308
	path := filepath.Join(t.TempDir(), "m")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); !errors.Is(err, modelfile.ErrNotModel) {
		t.Errorf("got %v, want ErrNotModel", err)
	}
}

// TestHeadFields: every head lists its own Config fields, each of which
// DefaultConfig leaves alone for the other heads.
func TestHeadFields(t *testing.T) {
	want := map[Head][]string{
		HeadDecoder:   {"Vocab", "RawTarget", "UnmaskedLoss", "Unbounded", "DecLayers", "DecWidth", "DecHeads", "AuxMSE", "SoftTargets"},
		HeadPointwise: {"Sigmoid"},
		HeadRiemann:   {"Bins"},
		HeadMDN:       {"Components"},
	}
	for _, h := range Heads {
		if got := h.Fields(); !reflect.DeepEqual(got, want[h]) {
			t.Errorf("%s: %v, want %v", h, got, want[h])
		}
	}
	if Head("nope").Fields() != nil {
		t.Error("unknown head has fields")
	}
	if c := DefaultConfig(Config{Head: HeadMDN}); c.Bins != 0 || c.DecWidth != 0 || c.Vocab != "" || c.Components != DefaultComponents {
		t.Errorf("mdn defaults: %+v", c)
	}
}

// TestLibraryAttack covers library calls that used to panic: shapes whose
// product overflows, negative row counts, huge token options, nil models,
// NaN targets in Score.
func TestLibraryAttack(t *testing.T) {
	x, y := attackData(60)
	m, err := FitFlat(context.Background(), x, 60, 2, y, Config{Head: HeadMDN, EncLayers: 1, EncWidth: 8, MaxEpochs: 2, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.PredictFlat(context.Background(), []float64{1, 2}, math.MinInt+1, PredictOptions{}); !errors.Is(err, ErrBadInput) {
		t.Errorf("PredictFlat with a negative row count: %v, want ErrBadInput", err)
	}
	if _, err := m.Dists(context.Background(), []float64{1, 2}, -1, dist.TokenOptions{}); !errors.Is(err, ErrBadInput) {
		t.Errorf("Dists with -1 rows: %v, want ErrBadInput", err)
	}
	if _, err := FitFlat(context.Background(), nil, 4, huge(62), []float64{1, 2, 3, 4}, Config{}); !errors.Is(err, ErrBadInput) {
		t.Errorf("FitFlat with 1<<62 columns: %v, want ErrBadInput", err)
	}
	if _, err := m.PredictFlat(context.Background(), []float64{1, 2}, 1, PredictOptions{Token: dist.TokenOptions{Samples: huge(50)}}); !errors.Is(err, ErrConfig) {
		t.Errorf("Samples 1<<50: %v, want ErrConfig", err)
	}
	if _, err := m.Score(context.Background(), [][]float64{{1, 2}, {3, 4}}, []float64{1, math.NaN()}); !errors.Is(err, ErrBadInput) {
		t.Errorf("Score with a NaN target: %v, want ErrBadInput", err)
	}
	if s, err := m.Score(context.Background(), nil, nil); !errors.Is(err, ErrBadInput) {
		t.Errorf("Score with no rows: %v, %v; want ErrBadInput", s, err)
	}
	if s, err := m.Score(context.Background(), [][]float64{{1, 2}, {3, 4}}, []float64{5, 5}); err != nil || !math.IsNaN(s) {
		t.Errorf("Score with equal targets: %v, %v; want NaN (R² divides by their variance)", s, err)
	}
	var nm *Model
	_ = nm.Config()
	_ = nm.Info()
	_ = nm.Tokenizer()
	_ = nm.DefaultPoint()
	if err := nm.SetNames([]string{"a"}, "y"); err != nil {
		t.Fatal(err)
	}
	if err := (&Model{}).SetNames([]string{"a"}, "y"); !errors.Is(err, ErrNotFitted) {
		t.Errorf("SetNames on an unfitted model: %v, want ErrNotFitted", err)
	}
	if f, tg := nm.Names(); f != nil || tg != "" || nm.Features() != 0 {
		t.Errorf("nil model: names %v %q, features %d", f, tg, nm.Features())
	}
	if lo, hi := nm.YRange(); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("nil model YRange: %v %v", lo, hi)
	}
}

func attackData(n int) (x, y []float64) {
	for i := range n {
		a, b := float64(i)/float64(n), float64(i%7)/7
		x = append(x, a, b)
		y = append(y, 2*a+b)
	}
	return x, y
}

// TestRiemannConfidentDensity: a Riemann network so confident that some
// bins' float32 probabilities underflow to 0 (a feature spanning dozens of
// decades under the robust transform) still has a finite log-density at
// every target in its range, the one Evaluate's NLL scores; and its
// calibrated model saves (the uncalibrated validation NLL was +Inf, and
// the header's JSON refused it after training).
func TestRiemannConfidentDensity(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 0))
	const n = 300
	x, y := make([]float64, 2*n), make([]float64, n)
	for i := range n {
		a := r.Float64()
		x[2*i], x[2*i+1] = a, math.Exp(6*r.NormFloat64())
		y[i] = 2*a + 0.1*r.NormFloat64()
	}
	for _, calibrate := range []bool{false, true} {
		cfg := Config{Head: HeadRiemann, InputTransform: "robust", MaxEpochs: 3, Threads: 1, Calibrate: calibrate}
		m, err := FitFlat(context.Background(), x, n, 2, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Save(filepath.Join(t.TempDir(), "m")); err != nil {
			t.Fatalf("calibrate %v: %v", calibrate, err)
		}
		ds, err := m.Dists(context.Background(), x, n, dist.TokenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := m.YRange()
		sum := 0.0
		for i, d := range ds {
			yi := min(max(y[i], lo+1e-9*(hi-lo)), hi-1e-9*(hi-lo))
			lp := d.LogPDF(yi)
			if math.IsInf(lp, 0) || math.IsNaN(lp) {
				t.Fatalf("calibrate %v: row %d: log-density %v at %v in [%v, %v]", calibrate, i, lp, y[i], lo, hi)
			}
			sum -= lp
		}
		ev, err := m.Evaluate(context.Background(), x, n, y, "mean")
		if err != nil {
			t.Fatal(err)
		}
		if got := sum / n; !(math.Abs(got-ev.NLL) <= 1e-6*math.Max(1, math.Abs(got))) {
			t.Errorf("calibrate %v: mean -log-density %v, Evaluate's NLL %v", calibrate, got, ev.NLL)
		}
	}
}

// TestRawTargetBeyondTokenization: a raw target beyond the range the
// unnormalized tokenization represents is refused at training, naming the
// first such row, instead of training a model that encodes every such
// target as the extreme cell (it predicted a median of 1.74 for targets of
// 2e10); a tokenization that covers them trains.
func TestRawTargetBeyondTokenization(t *testing.T) {
	x := make([]float64, 60)
	y := make([]float64, 60)
	for i := range y {
		x[i] = float64(i) / 60
		y[i] = 1e9 * (1 + x[i])
	}
	y[7] = 2e10
	cfg := Config{Head: HeadDecoder, Vocab: "unnormalized:base=10,exponent=1,mantissa=4", RawTarget: true, EncLayers: 1, EncWidth: 8, MaxEpochs: 1, Threads: 1}
	_, err := FitFlat(context.Background(), x, 60, 1, y, cfg)
	var de *DataError
	if !errors.As(err, &de) || !errors.Is(err, ErrBadInput) || de.Row != 7 || !strings.Contains(err.Error(), "beyond the range") || !strings.Contains(err.Error(), "1 of the 60") {
		t.Fatalf("a raw target beyond the tokenization: %v", err)
	}
	y[7] = 1.5e9
	if _, err := FitFlat(context.Background(), x, 60, 1, y, cfg); err != nil {
		t.Fatalf("raw targets inside the tokenization: %v", err)
	}
}

// TestMDNOverflowInY: an MDN whose target range is near float64's and a
// row far outside the training data: its components' means in y units
// are beyond float64, so the row is refused naming its feature (a single
// model predicted +Inf everywhere, an ensemble NaN and zeros), as a
// float32 overflow in the network is.
func TestMDNOverflowInY(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5}
	y := []float64{1e300, -1e300, 1e300, -1e300, 0}
	for _, ens := range []int{0, 2} {
		cfg := Config{Head: HeadMDN, Components: 2, EncLayers: 1, EncWidth: 8, MaxEpochs: 2, Threads: 1, Ensemble: ens}
		m, err := FitFlat(context.Background(), x, 5, 1, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.PredictFlat(context.Background(), []float64{1e10}, 1, PredictOptions{})
		var de *DataError
		if !errors.As(err, &de) || !errors.Is(err, ErrBadInput) || de.Row != 0 || de.Column != 0 || !strings.Contains(err.Error(), "beyond the largest float64") {
			t.Errorf("ensemble %d: a far-out row: %v", ens, err)
		}
		p, err := m.PredictFlat(context.Background(), []float64{3}, 1, PredictOptions{})
		if err != nil || math.IsInf(p.Mean[0], 0) || math.IsNaN(p.Mean[0]) {
			t.Errorf("ensemble %d: a row inside the data: %v, %v", ens, p, err)
		}
	}
}

// TestEvalNLLBeyondFloat32: an MDN asked about a feature far outside its
// training range gives a log-density of about -1e50 to -1e81 at the
// target: finite in float64 (predict's logpdf), beyond what the training
// forward's float32 loss gives (+Inf, or a saturated 1e19). Evaluate's NLL
// is the distributions' own, for a single model and for an ensemble's
// mixture.
func TestEvalNLLBeyondFloat32(t *testing.T) {
	x, y := toyData(200, 1)
	for _, c := range []struct {
		ens  int
		seed uint64
		x    float64
	}{{0, 1, -1e35}, {0, 1, 1e20}, {0, 1, 1e35}, {2, 2, 1e35}, {2, 1, 1e35}} {
		cfg := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 32, MaxEpochs: 5, Threads: 1, Seed: c.seed, Ensemble: c.ens}
		m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		xt, yt := []float64{c.x, x[0]}, []float64{y[0], y[0]}
		p, err := m.PredictFlat(context.Background(), xt, 2, PredictOptions{Outputs: OutDist})
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		for i, d := range p.Dist {
			want -= d.LogPDF(yt[i]) / 2
		}
		if math.IsInf(want, 0) || math.IsNaN(want) || want < 1e30 {
			t.Fatalf("%+v: the setting no longer reaches beyond float32: mean -log p %v", c, want)
		}
		e, err := m.Evaluate(context.Background(), xt, 2, yt, "")
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(e.NLL-want) > 1e-9*want {
			t.Errorf("%+v: Evaluate's NLL %v, the distributions' %v", c, e.NLL, want)
		}
	}
}

// TestCalibrateSkipsOverflowingTemperatures: an MDN on targets near
// float64's range, calibrated: temperatures at which its widened
// components reach beyond float64 are skipped by the search, not an error
// that lost the trained model.
func TestCalibrateSkipsOverflowingTemperatures(t *testing.T) {
	n := 400
	x, y := make([]float64, n), make([]float64, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		x[i] = r.Float64()
		y[i] = 1e307 * (2*x[i] - 1 + 0.3*r.NormFloat64())
	}
	for _, by := range []string{CalibrateByNLL, CalibrateByPIT, CalibrateByIsotonic} {
		cfg := Config{Head: HeadMDN, Components: 2, EncLayers: 1, EncWidth: 8, MaxEpochs: 3, Threads: 1, Calibrate: true, CalibrateBy: by}
		m, err := FitFlat(context.Background(), x, n, 1, y, cfg)
		if err != nil {
			t.Fatalf("%s: calibrating on a huge target range: %v", by, err)
		}
		if tp := m.Temperature(); !(tp > 0 && tp < MaxTemperature) {
			t.Errorf("%s: temperature %v", by, tp)
		}
		// The search met temperatures that overflow: the hottest does.
		hot, err := m.WithTemperature(MaxTemperature)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := hot.Dists(context.Background(), x, n, dist.TokenOptions{}); err == nil {
			t.Errorf("%s: no overflow at temperature %v: the test no longer tests the skipping", by, MaxTemperature)
		}
	}
}

// TestTuneRefusesTrialBeyondTokenization: under Tune with a raw target, a
// drawn trial whose tokenization cannot represent the targets is refused
// like any setting the data does not allow, and the search goes on (it
// ended the whole search).
func TestTuneRefusesTrialBeyondTokenization(t *testing.T) {
	n := 120
	x, y := make([]float64, n), make([]float64, n)
	for i := range n {
		x[i] = float64(i) / float64(n)
		y[i] = 100 + 250*x[i] // up to 350: beyond base 4's [-256, 256]
	}
	base := Config{Head: HeadDecoder, Vocab: "unnormalized:base=10,exponent=1,mantissa=3", RawTarget: true, EncLayers: 1, EncWidth: 8, MaxEpochs: 2, Threads: 1}
	grid := func(Config) []tuneAxis {
		return []tuneAxis{{"vocab", []string{"unnormalized:base=4,exponent=1,mantissa=2"}, func(c *Config, v string) { c.Vocab = v }}}
	}
	_, rep, err := Tune(context.Background(), x, n, 1, y, base, TuneOptions{Trials: 2, Budget: time.Minute, grid: grid})
	if err != nil {
		t.Fatalf("a drawn trial beyond its tokenization ended the search: %v", err)
	}
	if len(rep.Trials) != 2 || !strings.HasPrefix(rep.Trials[1].Status, "refused: ") || !strings.Contains(rep.Trials[1].Status, "beyond the range") {
		t.Errorf("trials %+v", rep.Trials)
	}
}

// TestOverflowBlame: an overflowing prediction for a row like the
// training data blames the model, naming the row only (an MDN on targets
// up to 3e307 at a temperature of 20, whose every prediction overflows
// in y units; one trained on targets up to 1.7e308 did so too, and is
// now refused, headRange); one for an outlying row blames its furthest
// feature.
func TestOverflowBlame(t *testing.T) {
	cfg := small(HeadMDN, "")
	cfg.ValFrac = -1
	if _, err := FitFlat(context.Background(), []float64{1, 2, 4, 5}, 4, 1, []float64{1e308, 0, 3, 1.7e308}, cfg); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "too wide for the mdn head") {
		t.Errorf("targets up to 1.7e308: %v", err)
	}
	m, err := FitFlat(context.Background(), []float64{1, 2, 4, 5}, 4, 1, []float64{2e307, 0, 3, 3e307}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	hot, err := m.WithTemperature(20)
	if err != nil {
		t.Fatal(err)
	}
	_, err = hot.Dist([]float64{2})
	var de *DataError
	if !errors.As(err, &de) || (de.Row != 0 || de.Column != -1 || !strings.Contains(err.Error(), "not the row")) {
		t.Errorf("a training row's prediction: %v", err)
	}
	cause := errors.New("boom")
	if err := m.overflow([]float64{m.xMean[0] + 3*m.xStd[0]}, 0, cause); !errors.As(err, &de) || de.Row != 0 || de.Column != -1 || !strings.Contains(err.Error(), "not the row") || !errors.Is(err, cause) {
		t.Errorf("ordinary row: %v", err)
	}
	if err := m.overflow([]float64{m.xMean[0] + 30*m.xStd[0]}, 0, cause); !errors.As(err, &de) || de.Column != 0 || !strings.Contains(err.Error(), "scale units from the training rows' centre") {
		t.Errorf("outlying row: %v", err)
	}
	// A quantile-transformed or ple-encoded feature reaches the network
	// clipped: however far out, it is not blamed.
	for _, tr := range []string{"quantile", "ple"} {
		cfg := small(HeadMDN, "")
		cfg.ValFrac = -1
		cfg.InputTransform = tr
		m, err := FitFlat(context.Background(), []float64{1, 2, 4, 5}, 4, 1, []float64{1e300, 0, 3, 1.7e300}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.overflow([]float64{1e12}, 0, cause); !errors.As(err, &de) || de.Column != -1 || !strings.Contains(err.Error(), "not the row") {
			t.Errorf("%s: a far-out row: %v", tr, err)
		}
	}
	// Nor a row inside the training range whose top ple bin, nonzero in
	// few training rows, standardizes far out (√(3 × 256) ≈ 28 at 256
	// bins): ple's binned columns never lie outside the training inputs.
	cfg = small(HeadMDN, "")
	cfg.ValFrac, cfg.MaxEpochs = -1, 1
	cfg.InputTransform, cfg.PLEBins = "ple", 256
	const n = 4000
	x, y := make([]float64, n), make([]float64, n)
	for i := range n {
		x[i] = float64(i) / n
		y[i] = float64(i%7) + x[i]
	}
	m, err = FitFlat(context.Background(), x, n, 1, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.overflow([]float64{0.999}, 0, cause); !errors.As(err, &de) || de.Column != -1 || !strings.Contains(err.Error(), "not the row") {
		t.Errorf("ple, 256 bins, a row in the training range: %v", err)
	}
	// Its only feature binned, no input was measured: the message said
	// "within -1 scale units"; and every such error blames the model.
	if err := m.overflow([]float64{0.999}, 0, cause); strings.Contains(err.Error(), "-1 scale units") || !strings.Contains(err.Error(), "ple bins") || !errors.Is(err, ErrModelFault) || !errors.Is(err, ErrBadInput) {
		t.Errorf("ple, every feature binned: %v", err)
	}
}

// A target range below float64's normal numbers is refused: y scaled by
// it lost its precision and values outside it scaled to infinities (the
// CRPS of every head was +Inf for a range of 5e-324 or 1e-310).
func TestSubnormalTargetRange(t *testing.T) {
	x := make([]float64, 40)
	y := make([]float64, 40)
	for i := range x {
		x[i] = float64(i)
		if i%2 == 0 {
			y[i] = 1e-310
		}
	}
	_, err := FitFlat(context.Background(), x, 40, 1, y, small(HeadRiemann, ""))
	if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "below float64's normal numbers") {
		t.Errorf("a range of 1e-310: %v", err)
	}
	cfg := small(HeadRiemann, "")
	cfg.TargetMin, cfg.TargetMax = 0, 1e-310
	var ce *ConfigError
	if err := cfg.Validate(); !errors.As(err, &ce) || ce.Field != "TargetMax" {
		t.Errorf("a fixed range of 1e-310: %v", err)
	}
	// The smallest normal range trains.
	for i := range y {
		y[i] = float64(i%2) * 0x1p-1022
	}
	if _, err := FitFlat(context.Background(), x, 40, 1, y, small(HeadRiemann, "")); err != nil {
		t.Errorf("a range of 2^-1022: %v", err)
	}
}

// TestErrorsWithoutErr: the error types print without their Err (as
// "<nil>") instead of panicking.
func TestErrorsWithoutErr(t *testing.T) {
	for _, e := range []error{&ConfigError{Field: "LR"}, &DataError{Row: 2, Column: -1}, &ModelError{Path: "m", Field: "x"}} {
		if s := e.Error(); !strings.Contains(s, "<nil>") {
			t.Errorf("%T: %q", e, s)
		}
	}
}

// Settings that cannot apply are refused, not saved to be ignored: a
// decoder's RawTarget or Unbounded with a tokenization that is not
// unnormalized, and a negative size of another head or encoder (library
// review). The CLI refused the first already.
func TestConfigInapplicable(t *testing.T) {
	for _, c := range []struct {
		cfg   Config
		field string
	}{
		{Config{Head: HeadDecoder, RawTarget: true}, "RawTarget"},
		{Config{Head: HeadDecoder, Unbounded: true, Vocab: "normalized:base=4,length=3"}, "Unbounded"},
		// Every token valid everywhere: no effect (it was taken: review).
		{Config{Head: HeadDecoder, UnmaskedLoss: true}, "UnmaskedLoss"},
		{Config{Head: HeadDecoder, UnmaskedLoss: true, Vocab: "hamming:length=8"}, "UnmaskedLoss"},
		{Config{Head: HeadMDN, Bins: -3}, "Bins"},
		{Config{Head: HeadRiemann, DecLayers: -1}, "DecLayers"},
		{Config{Head: HeadDecoder, Components: -2}, "Components"},
		{Config{Encoder: EncoderMLP, PLRSigma: -1}, "PLRSigma"},
		{Config{Encoder: EncoderMLP, PLRFrequencies: -1}, "PLRFrequencies"},
	} {
		var ce *ConfigError
		if err := c.cfg.Validate(); !errors.As(err, &ce) || ce.Field != c.field {
			t.Errorf("%+v: %v, want a ConfigError of %s", c.cfg, err, c.field)
		}
	}
	for _, cfg := range []Config{
		{Head: HeadDecoder, RawTarget: true, Unbounded: true, UnmaskedLoss: true, Vocab: "unnormalized:base=10,exponent=1,mantissa=4"},
		{Head: HeadMDN, Bins: 64}, // another head's size, ignored
	} {
		if err := cfg.Validate(); err != nil {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
}

// TestCountFieldsMessage: a batch size, epoch count or patience below 1
// is named alone with its value (the message gave all three: helper-146).
func TestCountFieldsMessage(t *testing.T) {
	x, y := make([]float64, 40), make([]float64, 40)
	for i := range x {
		x[i], y[i] = float64(i), float64(i%5)
	}
	for _, c := range []struct {
		cfg   Config
		field string
		want  string
	}{
		{Config{Head: HeadMDN, BatchSize: -5}, "BatchSize", "the batch size must be >= 1, have -5"},
		{Config{Head: HeadMDN, MaxEpochs: -1}, "MaxEpochs", "the number of epochs must be >= 1, have -1"},
		{Config{Head: HeadMDN, Patience: -2}, "Patience", "the patience must be >= 1, have -2"},
	} {
		_, err := FitFlat(context.Background(), x, 40, 1, y, c.cfg)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != c.field || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.field, err)
		}
	}
}
