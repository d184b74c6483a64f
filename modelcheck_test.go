package decoreg

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"decoreg/internal/modelfile"
)

// savedModel trains a tiny model of cfg for one epoch on two named
// features, saves it, and returns the file's header and parameters.
func savedModel(tb testing.TB, cfg Config) (header []byte, params []float32) {
	tb.Helper()
	const rows = 40
	x := make([]float64, 2*rows)
	y := make([]float64, rows)
	for i := range rows {
		x[2*i], x[2*i+1] = float64(i), float64(i%7)
		y[i] = math.Sin(float64(i)) + float64(i%7)
	}
	cfg.MaxEpochs, cfg.Seed, cfg.Threads = 1, 3, 1
	m, err := FitFlat(context.Background(), x, rows, 2, y, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	if err := m.SetNames([]string{"a", "b"}, "y"); err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(tb.TempDir(), "m.drg")
	if err := m.Save(path); err != nil {
		tb.Fatal(err)
	}
	header, params, err = modelfile.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return header, params
}

// writeModel writes a model file with the given header and parameters and
// a valid checksum (as a hand editor with the format's description would).
func writeModel(tb testing.TB, header []byte, params []float32) string {
	tb.Helper()
	var b bytes.Buffer
	if err := modelfile.Encode(&b, header, params); err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(tb.TempDir(), "edited.drg")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// editHeader decodes a header as generic JSON (numbers kept as written),
// applies edit and encodes it again.
func editHeader(tb testing.TB, header []byte, edit func(h map[string]any)) []byte {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader(header))
	dec.UseNumber()
	var h map[string]any
	if err := dec.Decode(&h); err != nil {
		tb.Fatal(err)
	}
	edit(h)
	out, err := json.Marshal(h)
	if err != nil {
		tb.Fatal(err)
	}
	for _, v := range h {
		if lit, ok := v.(string); ok && strings.HasPrefix(lit, rawMarker) {
			quoted, _ := json.Marshal(lit)
			out = bytes.Replace(out, quoted, []byte(strings.TrimPrefix(lit, rawMarker)), 1)
		}
	}
	return out
}

func tinyDecoder() Config {
	return Config{Head: HeadDecoder, Vocab: "normalized:base=4,length=3", EncLayers: 1, EncWidth: 8, DecWidth: 4, DecHeads: 1}
}

// loadEdited writes a copy of a tiny decoder's model file edited by
// editH (header) and editP (parameters, may be nil), loads it, and checks
// that Load fails with an error that names the file and field and wraps
// want.
func loadEdited(t *testing.T, field string, want error, editH func(h map[string]any), editP func(p []float32) []float32) {
	t.Helper()
	header, params := savedModel(t, tinyDecoder())
	if editH != nil {
		header = editHeader(t, header, editH)
	}
	if editP != nil {
		params = editP(params)
	}
	path := writeModel(t, header, params)
	m, err := Load(path)
	if err == nil {
		t.Fatalf("Load accepted the edited file (model %v)", m != nil)
	}
	msg := err.Error()
	if !errors.Is(err, want) || !strings.Contains(msg, path) || !strings.Contains(msg, field) || strings.Contains(msg, "\n") {
		t.Fatalf("error %q: want one line wrapping %v, naming %s and %q", msg, want, path, field)
	}
	// Every file whose checksum holds and that Load refuses is a bad
	// model (some, as a config Validate refuses or a parameter count the
	// architecture does not have, were not).
	if !errors.Is(err, ErrBadModel) || !errors.Is(err, modelfile.ErrNotModel) {
		t.Fatalf("error %q does not wrap both ErrBadModel and modelfile.ErrNotModel", msg)
	}
}

func setConfig(key string, v any) func(h map[string]any) {
	return func(h map[string]any) { h["config"].(map[string]any)[key] = v }
}

func setIndex(key string, i int, v any) func(h map[string]any) {
	return func(h map[string]any) { h[key].([]any)[i] = v }
}

// raw sets key to a JSON-like literal that encoding/json will not write
// (NaN, 1e999): editHeader puts it in place of the marker string.
func raw(key, literal string) func(h map[string]any) {
	return func(h map[string]any) { h[key] = rawMarker + literal }
}

const rawMarker = "RAW:"

func TestHandEditedModel_YRangeOverflow(t *testing.T) {
	loadEdited(t, "y_max", ErrBadModel, func(h map[string]any) { h["y_min"], h["y_max"] = -1e308, 1e308 }, nil)
}

func TestHandEditedModel_YMaxBelowYMin(t *testing.T) {
	loadEdited(t, "y_max", ErrBadModel, func(h map[string]any) { h["y_min"], h["y_max"] = 2.0, 1.0 }, nil)
}

// A range below float64's normal numbers, which training refuses (eval of
// such a model gave a CRPS of +Inf with a bound of 0); the narrowest
// normal range loads.
func TestHandEditedModel_YRangeSubnormal(t *testing.T) {
	loadEdited(t, "y_max", ErrBadModel, func(h map[string]any) { h["y_min"], h["y_max"] = 0.0, 5e-324 }, nil)
	loadEdited(t, "y_max", ErrBadModel, func(h map[string]any) { h["y_min"], h["y_max"] = 1e-310, 2e-310 }, nil)
	header, params := savedModel(t, tinyDecoder())
	header = editHeader(t, header, func(h map[string]any) { h["y_min"], h["y_max"] = 0.0, 0x1p-1022 })
	if _, err := Load(writeModel(t, header, params)); err != nil {
		t.Errorf("the narrowest normal range: %v", err)
	}
}

func TestHandEditedModel_YMaxInf(t *testing.T) {
	loadEdited(t, "", modelfile.ErrNotModel, raw("y_max", "1e999"), nil) // JSON cannot hold it
}

func TestHandEditedModel_XStdZero(t *testing.T) {
	loadEdited(t, "x_std[1]", ErrBadModel, setIndex("x_std", 1, 0), nil)
}

func TestHandEditedModel_XStdNegative(t *testing.T) {
	loadEdited(t, "x_std[0]", ErrBadModel, setIndex("x_std", 0, -2.5), nil)
}

func TestHandEditedModel_XStdSubnormal(t *testing.T) {
	// Finite and > 0: accepted (standardised features that overflow
	// float32 are the inference's to report); the edit must not panic.
	header, params := savedModel(t, tinyDecoder())
	path := writeModel(t, editHeader(t, header, setIndex("x_std", 0, 5e-324)), params)
	if _, err := Load(path); err != nil {
		t.Fatal(err)
	}
}

func TestHandEditedModel_XStdNaN(t *testing.T) {
	loadEdited(t, "", modelfile.ErrNotModel, raw("x_std", "[NaN, 1]"), nil) // JSON cannot hold it
}

func TestHandEditedModel_XStdCount(t *testing.T) {
	loadEdited(t, "x_std", ErrBadModel, func(h map[string]any) { h["x_std"] = []any{1.0} }, nil)
}

func TestHandEditedModel_XMeanInf(t *testing.T) {
	loadEdited(t, "", modelfile.ErrNotModel, raw("x_mean", "[1e400, 0]"), nil) // JSON cannot hold it
}

func TestHandEditedModel_NoFeatures(t *testing.T) {
	loadEdited(t, "x_mean", ErrBadModel, func(h map[string]any) { h["x_mean"], h["x_std"] = []any{}, []any{} }, nil)
}

func TestHandEditedModel_NaNWeight(t *testing.T) {
	loadEdited(t, "params[3]", ErrBadModel, nil, func(p []float32) []float32 {
		p[3] = float32(math.NaN())
		return p
	})
}

func TestHandEditedModel_InfWeight(t *testing.T) {
	loadEdited(t, "params[", ErrBadModel, nil, func(p []float32) []float32 {
		p[len(p)-1] = float32(math.Inf(-1))
		return p
	})
}

func TestHandEditedModel_WrongParamCount(t *testing.T) {
	// Header and arena agree with each other but not with the architecture.
	header, params := savedModel(t, tinyDecoder())
	params = params[:len(params)-1]
	header = editHeader(t, header, func(h map[string]any) { h["params"] = len(params) })
	path := writeModel(t, header, params)
	if _, err := Load(path); !errors.Is(err, modelfile.ErrNotModel) || !errors.Is(err, ErrBadModel) || !strings.Contains(err.Error(), path) {
		t.Fatalf("err %v", err)
	}
	// The encoder's width edited: the architecture's count is not the
	// file's.
	loadEdited(t, "parameters", ErrBadModel, setConfig("enc_width", 9), nil)
	// The header's count disagrees with the arena.
	loadEdited(t, "params", ErrBadModel, func(h map[string]any) { h["params"] = 12 }, nil)
}

func TestHandEditedModel_UnknownHead(t *testing.T) {
	loadEdited(t, "Head", ErrConfig, setConfig("head", "tree"), nil)
}

func TestHandEditedModel_BadVocab(t *testing.T) {
	loadEdited(t, "Vocab", ErrConfig, setConfig("vocab", "normalized:base=1,length=3"), nil)
	loadEdited(t, "Vocab", ErrConfig, setConfig("vocab", "bogus"), nil)
}

func TestHandEditedModel_BadDecoderShape(t *testing.T) {
	loadEdited(t, "DecWidth", ErrConfig, setConfig("dec_heads", 3), nil)
}

func TestHandEditedModel_FeatureNameCount(t *testing.T) {
	loadEdited(t, "features", ErrBadModel, func(h map[string]any) { h["features"] = []any{"a"} }, nil)
}

func TestHandEditedModel_DuplicateFeatureName(t *testing.T) {
	loadEdited(t, "features[1]", ErrBadModel, func(h map[string]any) { h["features"] = []any{"a", "a"} }, nil)
}

func TestHandEditedModel_TargetIsFeature(t *testing.T) {
	loadEdited(t, "target", ErrBadModel, func(h map[string]any) { h["target"] = "b" }, nil)
}

// TestHandEditedModel_HugeArchitecture: a small file whose config claims
// a wide encoder made Load allocate the whole network (here 4M weights,
// with gradients 32 MB; up to about 2 GB within the config limits) before
// finding that the file holds far fewer parameters.
func TestHandEditedModel_HugeArchitecture(t *testing.T) {
	header, params := savedModel(t, tinyDecoder())
	header = editHeader(t, header, func(h map[string]any) {
		c := h["config"].(map[string]any)
		c["enc_layers"], c["enc_width"] = 2, 2048
	})
	path := writeModel(t, header, params)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Load(path)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, modelfile.ErrNotModel) || !strings.Contains(err.Error(), path) {
		t.Fatalf("err %v", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Fatalf("Load allocated %d bytes for a %d-parameter file", n, len(params))
	}
}

// TestModelCheckAcceptsSaved: every head's saved model passes checkModel
// (the lower bound on the parameter count is below the real count).
func TestModelCheckAcceptsSaved(t *testing.T) {
	for _, cfg := range []Config{tinyDecoder(),
		{Head: HeadDecoder, Vocab: "unnormalized:base=4,exponent=1,mantissa=2,repeat=2", RawTarget: true, EncLayers: 3, EncWidth: 5, DecLayers: 2, DecWidth: 6, DecHeads: 3},
		{Head: HeadDecoder, Vocab: "hamming:length=4", EncLayers: 1, EncWidth: 3, DecWidth: 2, DecHeads: 1},
		{Head: HeadPointwise, EncLayers: 2, EncWidth: 4},
		{Head: HeadRiemann, EncLayers: 1, EncWidth: 4, Bins: 7},
		{Head: HeadMDN, EncLayers: 1, EncWidth: 4, Components: 2},
	} {
		header, params := savedModel(t, cfg)
		if _, err := Load(writeModel(t, header, params)); err != nil {
			t.Errorf("%s %s: %v", cfg.Head, cfg.Vocab, err)
		}
	}
}

func TestHandEditedModel_Temperature(t *testing.T) {
	for _, v := range []any{-1.0, 0.001, 1000.0} {
		loadEdited(t, "temperature", ErrBadModel, func(h map[string]any) { h["temperature"] = v }, nil)
	}
}

func TestHandEditedModel_Quantiles(t *testing.T) {
	header, params := savedModel(t, Config{Head: HeadMDN, EncLayers: 1, EncWidth: 4, MaxEpochs: 1, InputTransform: "quantile"})
	for _, c := range []struct {
		field string
		edit  func(h map[string]any)
	}{
		{"x_quantiles: missing", func(h map[string]any) { delete(h, "x_quantiles") }},
		{"x_quantiles[0][1]", func(h map[string]any) {
			k := h["x_quantiles"].([]any)[0].([]any)
			k[0], k[1] = 5.0, 1.0 // not ascending
		}},
		{"x_quantiles", func(h map[string]any) { h["x_quantiles"] = h["x_quantiles"].([]any)[:0] }},
	} {
		path := writeModel(t, editHeader(t, header, c.edit), params)
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: %v", c.field, err)
		}
	}
	// And knots without the quantile transform.
	h2, p2 := savedModel(t, Config{Head: HeadMDN, EncLayers: 1, EncWidth: 4, MaxEpochs: 1})
	path := writeModel(t, editHeader(t, h2, func(h map[string]any) { h["x_quantiles"] = []any{[]any{1.0}} }), p2)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "x_quantiles: present") {
		t.Errorf("stray knots: %v", err)
	}
}

// A temperature in a pointwise model's file is refused (it has no
// distribution to scale).
func TestHandEditedModel_PointwiseTemperature(t *testing.T) {
	header, params := savedModel(t, Config{Head: HeadPointwise, EncLayers: 1, EncWidth: 4, MaxEpochs: 1})
	path := writeModel(t, editHeader(t, header, func(h map[string]any) { h["temperature"] = 2.0 }), params)
	if _, err := Load(path); !errors.Is(err, ErrBadModel) || !strings.Contains(err.Error(), "temperature") {
		t.Errorf("Load: %v", err)
	}
}

// TestLoadCountsMembersFirst: a header listing many ensemble members ("{}",
// 3 bytes each) is refused by its count before the members are decoded:
// 100,000 of them took 318 MB (a million 2.5 GB) before the count was
// checked after decoding them all (checkHeaderLists counts them now, before
// memberHeaders would). 63 members after the first are read
// (and refused for what they hold, not their count).
func TestLoadCountsMembersFirst(t *testing.T) {
	header, params := savedModel(t, Config{Head: HeadMDN, EncWidth: 8, Components: 2})
	withMembers := func(n int) []byte {
		list := "[" + strings.TrimSuffix(strings.Repeat("{},", n), ",") + "]"
		return editHeader(t, header, func(h map[string]any) { h["members"] = rawMarker + list })
	}
	path := writeModel(t, withMembers(100000), params)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Load(path)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), `members: a list of more than 63 entries`) || !errors.Is(err, ErrBadModel) {
		t.Errorf("100,000 members: %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 32<<20 {
		t.Errorf("100,000 members: Load allocated %d MB before refusing them", got>>20)
	}
	// At the limit the count passes; the empty members are refused.
	if _, err := Load(writeModel(t, withMembers(MaxEnsemble-1), params)); err == nil || strings.Contains(err.Error(), "more than") || !strings.Contains(err.Error(), "bad header of ensemble member 2") {
		t.Errorf("63 members: %v", err)
	}
	// Not a list: the JSON error, not a count.
	for _, bad := range []string{`5`, `{"a":1}`, `[1,`} {
		if _, err := Load(writeModel(t, editHeader(t, header, func(h map[string]any) { h["members"] = rawMarker + bad }), params)); err == nil || !errors.Is(err, ErrBadModel) {
			t.Errorf("members %s: %v", bad, err)
		}
	}
}

// TestLoadRefusesNestedMembers: members of members are refused before
// they are decoded (63 of 63 of 63 took 515 MB; review).
func TestLoadRefusesNestedMembers(t *testing.T) {
	header, params := savedModel(t, Config{Head: HeadMDN, EncWidth: 8, Components: 2})
	list := func(n int, item string) string {
		return "[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]"
	}
	inner := `{"members":` + list(63, `{"members":`+list(63, "{}")+`}`) + `}`
	path := writeModel(t, editHeader(t, header, func(h map[string]any) { h["members"] = rawMarker + list(63, inner) }), params)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Load(path)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "ensemble member 2 holds members of its own") {
		t.Errorf("nested members: %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("nested members: Load allocated %d MB before refusing them", got>>20)
	}
	// Empty or null members of a member are members' headers as written.
	for _, m := range []string{`{"members":null}`, `{"members":[ ]}`} {
		_, err := Load(writeModel(t, editHeader(t, header, func(h map[string]any) { h["members"] = rawMarker + "[" + m + "]" }), params))
		if err == nil || strings.Contains(err.Error(), "holds members") {
			t.Errorf("%s: %v", m, err)
		}
	}
}

// TestHandEditedModel_WeightsOverflow: finite weights that overflow the
// network's float32 arithmetic (every parameter times 1e30) loaded, and
// every row was then refused ("the model, not the row, is at fault"); a
// server reloading the file put it in place of a working model. Load now
// predicts at the training rows' centre first.
func TestHandEditedModel_WeightsOverflow(t *testing.T) {
	loadEdited(t, "params", ErrBadModel, nil, func(p []float32) []float32 {
		for i := range p {
			p[i] *= 1e30
		}
		return p
	})
}

// TestHandEditedModel_ScalingFarFromMedians: a frame model's x_mean or
// x_std edited to 1e300 or 1e-300 loaded, and then every row was refused
// as if the data were at fault ("59.4 is -3e+298 scale units from the
// training centre 1e+300"). A column's median is within one sd of its
// mean; Load checks the scaling against the schema's medians.
func TestHandEditedModel_ScalingFarFromMedians(t *testing.T) {
	m, err := FitFrame(context.Background(), readMixed(t), "price", mixedConfig(HeadMDN))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.drg")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	header, params, err := modelfile.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(writeModel(t, header, params)); err != nil {
		t.Fatalf("the file as saved: %v", err)
	}
	for _, c := range []struct{ key, v string }{{"x_mean", "1e300"}, {"x_std", "1e-300"}} {
		hb := editHeader(t, header, func(h map[string]any) { h[c.key].([]any)[0] = json.Number(c.v) })
		_, err := Load(writeModel(t, hb, params))
		if !errors.Is(err, ErrBadModel) || !strings.Contains(err.Error(), "x_mean[0]") || !strings.Contains(err.Error(), "median") {
			t.Errorf("%s[0] = %s: %v, want the scaling refused against the median", c.key, c.v, err)
		}
	}
}

// TestHandEditedModel_FirstLayerOverflow: first-layer weights of 3e38 load
// when only the training centre is predicted (the weights multiply zeros
// there), and then fail on rows like the training data (a server replaced
// a working model with such a file; review). Load predicts near the centre
// too.
func TestHandEditedModel_FirstLayerOverflow(t *testing.T) {
	loadEdited(t, "params", ErrBadModel, nil, func(p []float32) []float32 {
		for i := range p[:2*8] { // tinyDecoder: 2 features x 8
			p[i] *= 3e38
		}
		return p
	})
}

// TestLoadPointwiseAtFloatMax: a pointwise model trained on targets up to
// float64's largest number predicts +Inf in y units a little beyond the
// training centre; Load's check around the centre refused models train
// had just written (review). Around the centre only the encoders are
// checked now, and training refuses such a range for the pointwise head
// (its predictions for rows like the training data overflowed), though
// not for a decoder whose encoder is pretrained with the pointwise head,
// which loads.
func TestLoadPointwiseAtFloatMax(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const rows = 400
	x, y := make([]float64, 2*rows), make([]float64, rows)
	for i := range rows {
		a, b := r.NormFloat64(), r.NormFloat64()
		x[2*i], x[2*i+1] = a, b
		y[i] = math.MaxFloat64 - max(0.3+0.8*a+0.3*r.NormFloat64(), 0)*1e306 // a third of them at the largest float64
	}
	cfg := Config{Head: HeadPointwise, EncLayers: 2, EncWidth: 32, MaxEpochs: 30, Seed: 1, Threads: 1}
	if _, err := FitFlat(context.Background(), x, rows, 2, y, cfg); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "too wide for the pointwise head") {
		t.Errorf("pointwise: %v", err)
	}
	cfg.Head, cfg.Pretrain, cfg.MaxEpochs = HeadDecoder, PretrainPointwise, 3
	m, err := FitFlat(context.Background(), x, rows, 2, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.drg")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Error(err)
	}
	// A range with room for a width of predictions beyond it trains, and
	// its model loads and predicts for every training row.
	for i := range y {
		y[i] /= 4
	}
	cfg.Head, cfg.Pretrain, cfg.MaxEpochs = HeadPointwise, "", 30
	m, err = FitFlat(context.Background(), x, rows, 2, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	if m, err = Load(path); err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if _, err := m.Dist(x[2*i : 2*i+2]); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
}

// The training record's counts are not negative (show printed a
// hand-edited -5 epochs as it was).
func TestHandEditedModel_NegativeCounts(t *testing.T) {
	for _, f := range []string{"epochs", "rows", "val_rows", "members", "skipped_rows"} {
		loadEdited(t, "train."+f, ErrBadModel, func(h map[string]any) { h["train"].(map[string]any)[f] = -5 }, nil)
	}
}

// ends_cut names the rule of a fixed range's cut ends: one this decoreg
// does not know (a newer one's, or edited) is refused, not read as its own.
func TestHandEditedModel_EndsCutRule(t *testing.T) {
	for _, v := range []int{2, -1} {
		loadEdited(t, "ends_cut", ErrBadModel, func(h map[string]any) { h["ends_cut"] = v }, nil)
	}
}
