package decoreg

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"decoreg/internal/head"
	"decoreg/internal/train"
)

// calibrationData returns rows where y = x + small noise: a model trained
// on them too briefly (TestCalibrate) is not yet sharp.
func calibrationData(n int, seed uint64) ([]float64, []float64) {
	r := rand.New(rand.NewPCG(seed, 8))
	x, y := make([]float64, n), make([]float64, n)
	for i := range n {
		x[i] = r.Float64()*2 - 1
		y[i] = x[i] + 0.1*r.NormFloat64()
	}
	return x, y
}

// TestCalibrate: the temperature Calibrate picks minimises the validation
// NLL (no better nearby, no worse than 1), is stored, survives Save and
// Load, and lowers the NLL of fresh data for a model that is too wide;
// Evaluate's NLL uses it. For every head with a density.
func TestCalibrate(t *testing.T) {
	x, y := calibrationData(3000, 1)
	xt, yt := calibrationData(2000, 2)
	for _, h := range []Head{HeadRiemann, HeadMDN, HeadDecoder} {
		cfg := Config{Head: h, EncLayers: 1, EncWidth: 16, MaxEpochs: 2, LR: 1e-4, Seed: 1, Threads: 1, Calibrate: true}
		if h == HeadDecoder {
			cfg.Vocab = "normalized:base=4,length=4"
		}
		m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		T, info := m.Temperature(), m.Info()
		if T == 1 || info.Temperature != T || info.CalibrateRows != 300 || !(info.ValNLLAfter < info.ValNLLBefore) {
			t.Errorf("%s: temperature %v, info %+v", h, T, info)
		}
		// The argmin: no better at 0.9 T or 1.1 T on the same rows.
		val := valRows(t, x, y, cfg)
		tgv, err := head.Encode(&m.net.Cfg, m.units, val.y)
		if err != nil {
			t.Fatal(err)
		}
		at := func(t2 float64) float64 { v, _ := m.nllAt(t2, val.x, len(val.y), val.y, tgv); return v }
		if f := at(T); !(f <= at(0.9*T)+1e-9 && f <= at(1.1*T)+1e-9 && f <= at(1)) {
			t.Errorf("%s: NLL %v at T=%v, %v at 0.9T, %v at 1.1T, %v at 1", h, f, T, at(0.9*T), at(1.1*T), at(1))
		}
		// Fresh data: calibrated NLL below the uncalibrated, through Evaluate.
		un, _ := m.WithTemperature(1)
		ec, err := m.Evaluate(context.Background(), xt, len(yt), yt, "")
		if err != nil {
			t.Fatal(err)
		}
		eu, err := un.Evaluate(context.Background(), xt, len(yt), yt, "")
		if err != nil {
			t.Fatal(err)
		}
		if !(ec.NLL < eu.NLL) {
			t.Errorf("%s: test NLL %v calibrated, %v not", h, ec.NLL, eu.NLL)
		}
		// At T = 1 the distributions' NLL is the training forward's.
		checkNLLPaths(t, un, xt, yt)
		// Saved and loaded.
		path := filepath.Join(t.TempDir(), "m.model")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		l, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		pl, _ := l.Predict(context.Background(), [][]float64{{0.3}}, PredictOptions{Outputs: OutQuantiles, Levels: []float64{0.1, 0.9}})
		pm, _ := m.Predict(context.Background(), [][]float64{{0.3}}, PredictOptions{Outputs: OutQuantiles, Levels: []float64{0.1, 0.9}})
		pu, _ := un.Predict(context.Background(), [][]float64{{0.3}}, PredictOptions{Outputs: OutQuantiles, Levels: []float64{0.1, 0.9}})
		if l.Temperature() != T || pl.Quantiles[0][0] != pm.Quantiles[0][0] || pl.Quantiles[1][0] != pm.Quantiles[1][0] {
			t.Errorf("%s: loaded temperature %v (saved %v), quantiles %v vs %v", h, l.Temperature(), T, pl.Quantiles, pm.Quantiles)
		}
		// A temperature below 1 sharpens, above 1 widens: the 80% interval.
		wm, wu := pm.Quantiles[1][0]-pm.Quantiles[0][0], pu.Quantiles[1][0]-pu.Quantiles[0][0]
		if (T < 1) != (wm < wu) {
			t.Errorf("%s: T %v, interval %v calibrated, %v not", h, T, wm, wu)
		}
	}
}

type rowsXY struct{ x, y []float64 }

// valRows recomputes the calibration rows of a FitFlat run (the first
// rows of its shuffled validation split), as train.Prepare picks them.
func valRows(t *testing.T, x, y []float64, cfg Config) rowsXY {
	t.Helper()
	cfg = DefaultConfig(cfg)
	perm := rand.New(rand.NewPCG(cfg.Seed, 0x5eed)).Perm(len(y))
	val := perm[:train.ValRows(len(y), cfg.ValFrac)]
	var out rowsXY
	for _, i := range val[:min(len(val), maxCalibrationRows)] {
		out.x = append(out.x, x[i])
		out.y = append(out.y, y[i])
	}
	return out
}

func TestCalibrateRefused(t *testing.T) {
	x, y := calibrationData(100, 1)
	for _, cfg := range []Config{
		{Head: HeadPointwise, Calibrate: true},
		{Head: HeadRiemann, Calibrate: true, ValFrac: -1},
		{Head: HeadRiemann, Calibrate: true, ValFrac: 0.05, EncLayers: 1, EncWidth: 4, MaxEpochs: 1}, // 5 validation rows
	} {
		var ce *ConfigError
		if _, err := FitFlat(context.Background(), x, len(y), 1, y, cfg); !errors.As(err, &ce) || ce.Field != "Calibrate" {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
	m, err := FitFlat(context.Background(), x, len(y), 1, y, Config{Head: HeadMDN, EncLayers: 1, EncWidth: 4, MaxEpochs: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []float64{0, -1, math.NaN(), math.Inf(1), 0.01, 21} {
		if _, err := m.WithTemperature(bad); err == nil {
			t.Errorf("WithTemperature(%v) accepted", bad)
		}
	}
	// Targets mostly outside the training range: their NLL is the
	// range's end's, a temperature fitted to it meaningless. A few are
	// clipped as Evaluate clips them.
	lo, hi := m.YRange()
	far := make([]float64, len(y))
	for i, v := range y {
		far[i] = v + 10*(hi-lo)
	}
	if _, err := m.FitTemperature(context.Background(), x, len(y), far, ""); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "100 of the 100 targets it is fitted on lie outside") {
		t.Errorf("targets outside the training range: %v", err)
	}
	copy(far[:75], y)
	if _, err := m.FitTemperature(context.Background(), x, len(y), far, ""); err != nil {
		t.Errorf("a quarter of the targets outside the training range: %v", err)
	}
	// Counted among the rows the fit uses, the first maxCalibrationRows.
	n := maxCalibrationRows + 1000
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range n {
		xs[i], ys[i] = x[i%len(x)], y[i%len(y)]
	}
	for i := maxCalibrationRows; i < n; i++ {
		ys[i] += 10 * (hi - lo) // not used: no fault
	}
	if _, err := m.FitTemperature(context.Background(), xs, n, ys, ""); err != nil {
		t.Errorf("targets outside the range past the rows used: %v", err)
	}
	for i := range n {
		ys[i] = y[i%len(y)]
		if i < maxCalibrationRows {
			ys[i] += 10 * (hi - lo)
		}
	}
	if _, err := m.FitTemperature(context.Background(), xs, n, ys, ""); !errors.Is(err, ErrBadInput) {
		t.Errorf("every row used outside the range: %v", err)
	}
}

// checkNLLPaths: at temperature 1, the NLL scored through the
// distributions (the path a temperature takes) equals the training
// forward's (Evaluate's) on targets y, edges and out-of-range ones too.
func checkNLLPaths(t *testing.T, m *Model, x, y []float64) {
	t.Helper()
	tg, err := head.Encode(&m.net.Cfg, m.units, y)
	if err != nil {
		t.Fatal(err)
	}
	e, err := m.Evaluate(context.Background(), x, len(y), y, "")
	if err != nil {
		t.Fatal(err)
	}
	v, err := m.nllAt(1, x, len(y), y, tg)
	if err != nil || !(math.Abs(v-e.NLL) <= 1e-4*math.Max(1, math.Abs(v))) {
		t.Errorf("%s %s: NLL from the distributions %v (%v), from the forward %v", m.cfg.Head, m.cfg.Vocab, v, err, e.NLL)
	}
}

// The two NLL paths agree on the targets at and beyond the edges of the
// range, where an unnormalized decoder's cells meet (t = +-0.5).
func TestNLLPathsAtEdges(t *testing.T) {
	x, y := calibrationData(400, 5)
	lo, hi := slices.Min(y), slices.Max(y)
	xe := []float64{0, 0.5, -0.5, 1, -1, 0.2}
	ye := []float64{lo, hi, lo - 1, hi + 1, hi + 100, 0.3}
	for _, cfg := range []Config{
		{Head: HeadDecoder, Vocab: "unnormalized:base=10,exponent=1,mantissa=3"},
		{Head: HeadDecoder, Vocab: "normalized:base=4,length=4"},
		{Head: HeadRiemann, Bins: 16},
		{Head: HeadMDN},
	} {
		cfg.EncLayers, cfg.EncWidth, cfg.MaxEpochs, cfg.Threads = 1, 16, 3, 1
		m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		checkNLLPaths(t, m, xe, ye)
	}
}

// countCtx is a context whose Err is context.Canceled from its n+1-th
// call on.
type countCtx struct {
	context.Context
	n, calls int
}

func (c *countCtx) Err() error {
	c.calls++
	if c.calls > c.n {
		return context.Canceled
	}
	return nil
}

// TestCalibrateCancelled: a context done at any point of the calibration
// (after each possible number of checks, the first decoding's rows
// included) stops it with an error wrapping
// context.Canceled and leaves the model as it was, not half calibrated
// (the isotonic objective sets the NLL temperature before fitting its
// map); with enough checks allowed the fit completes as without a context.
func TestCalibrateCancelled(t *testing.T) {
	x, y := calibrationData(400, 5)
	for _, by := range []string{CalibrateByNLL, CalibrateByPIT, CalibrateByIsotonic, CalibrateByDepth} {
		cfg := Config{Head: HeadDecoder, Vocab: "normalized:base=4,length=3", EncLayers: 1, EncWidth: 16, MaxEpochs: 2, Threads: 1, Seed: 3, Ensemble: 2}
		m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		val, _ := train.Split(len(y), DefaultConfig(cfg).ValFrac, cfg.Seed)
		full := *m
		if err := full.calibrate(context.Background(), x, 1, y, val, by); err != nil {
			t.Fatal(err)
		}
		for n := 0; ; n++ {
			c := *m
			ctx := &countCtx{Context: context.Background(), n: n}
			err := c.calibrate(ctx, x, 1, y, val, by)
			if err == nil {
				if n == 0 || c.temp != full.temp || !slices.Equal(c.depthT, full.depthT) || !reflect.DeepEqual(c.info, full.info) {
					t.Errorf("%s: completed after %d checks: temperature %v, want %v", by, n, c.temp, full.temp)
				}
				// The first decoding of the NLL objective (isotonic's
				// starts with it) stops between rows: a check per
				// validation row and member.
				if by != CalibrateByPIT && n < cfg.Ensemble*len(val) {
					t.Errorf("%s: %d checks for %d validation rows of %d members: the first decoding cannot be cancelled", by, n, len(val), cfg.Ensemble)
				}
				break
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: after %d checks: %v", by, n, err)
			}
			if c.temp != m.temp || c.recal != nil || c.depthT != nil || !reflect.DeepEqual(c.info, m.info) {
				t.Errorf("%s: cancelled after %d checks: temperature %v, map %v, info %+v; want the model as it was", by, n, c.temp, c.recal, c.info)
			}
			if n > 1000 {
				t.Fatalf("%s: still cancelled after %d checks", by, n)
			}
		}
	}
}

// TestCalibrationRowsAdvice: too few validation rows for Calibrate or
// StopByDepth named no setting ("raise the validation fraction"); the
// error now gives the fraction that is enough, which is.
func TestCalibrationRowsAdvice(t *testing.T) {
	for _, rows := range []int{21, 39, 150, 1000, 123457} {
		err := checkCalibrationRows(rows, 1e-4)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != "Calibrate" {
			t.Fatalf("%d rows: %v", rows, err)
		}
		msg := err.Error()
		i := strings.Index(msg, "of at least ")
		if i < 0 {
			t.Fatalf("%d rows: %q names no fraction", rows, msg)
		}
		f, perr := strconv.ParseFloat(strings.Fields(msg[i+len("of at least "):])[0], 64)
		if perr != nil || checkCalibrationRows(rows, f) != nil || f > 1 {
			t.Errorf("%d rows: the advised fraction %v (%q) is not enough", rows, f, msg)
		}
		if g := f * 0.97; checkCalibrationRows(rows, g) == nil && rows < 10000 {
			t.Errorf("%d rows: %v is enough too; %v is not the least (%q)", rows, g, f, msg)
		}
	}
	if err := checkCalibrationRows(20, 0.5); err == nil || !strings.Contains(err.Error(), "the data have 20 rows") {
		t.Errorf("20 rows: %v", err)
	}
	if err := checkStopRows(150, Config{StopBy: StopByDepth, ValFrac: 0.1}); err == nil || !strings.Contains(err.Error(), "of at least 0.13 gives 20 of the 150 rows") {
		t.Errorf("stop by depth: %v", err)
	}
}
