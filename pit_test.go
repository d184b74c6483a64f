package decoreg

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"decoreg/dist"
	"decoreg/metrics"
)

// pitConfigs are small models of every head and tokenization kind the PIT
// objective supports.
func pitConfigs() []Config {
	cs := []Config{
		{Head: HeadDecoder, Vocab: "normalized:base=4,length=4"},
		{Head: HeadDecoder, Vocab: "normalized:base=2,length=6"},
		{Head: HeadDecoder, Vocab: "unnormalized:base=10,exponent=1,mantissa=2"},
		{Head: HeadRiemann, Bins: 32},
		{Head: HeadMDN, Components: 3},
		{Head: HeadDecoder, Vocab: "normalized:base=4,length=3", Ensemble: 2},
		{Head: HeadMDN, Components: 2, Ensemble: 2},
	}
	for i := range cs {
		cs[i].EncLayers, cs[i].EncWidth, cs[i].MaxEpochs, cs[i].Threads, cs[i].Seed = 1, 16, 2, 1, 3
	}
	return cs
}

// refPIT returns the PIT values of rows x with targets y under
// m.WithTemperature(t)'s distributions: the independent path (the network
// runs again, the temperature enters the decoder's logits, the Riemann
// head's logits or the MDN's sds, and ensembles mix).
func refPIT(t *testing.T, m *Model, x, y []float64, temp float64) []float64 {
	t.Helper()
	mt, err := m.WithTemperature(temp)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := mt.Dists(context.Background(), x, len(y), dist.TokenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float64, len(y))
	for i, d := range ds {
		out[i] = d.CDF(y[i])
	}
	return out
}

// TestPITObjectiveMatchesDists: the cached PIT values at temperature t
// equal the CDFs of the distributions built at t, for every head,
// tokenization kind and ensemble the PIT objective supports, at targets
// inside the range, on the edges of cells and bins, at and beyond the
// range's edges.
func TestPITObjectiveMatchesDists(t *testing.T) {
	x, y := calibrationData(600, 11)
	lo, hi := slices.Min(y), slices.Max(y)
	xs, ys := []float64{}, []float64{}
	for j := range 9 { // the edges of the cells of base 2, 4 and 8, and of the bins
		xs = append(xs, float64(j)/4-1)
		ys = append(ys, lo+(hi-lo)*float64(j)/8)
	}
	xs = append(xs, 0, 0.5, -0.5, 1, 0.3)
	ys = append(ys, lo-1, hi+1, hi+100, lo-1e-9, 0.3)
	xv, yv := calibrationData(40, 12)
	xs, ys = append(xs, xv...), append(ys, yv...)
	for _, cfg := range pitConfigs() {
		m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		obj, err := m.pitObjective(context.Background(), xs, len(ys), ys)
		if err != nil {
			t.Fatal(err)
		}
		for _, temp := range []float64{MinTemperature, 0.3, 0.9, 1, 1.7, 6, MaxTemperature} {
			got, err := obj(temp)
			if err != nil {
				t.Fatal(err)
			}
			want := refPIT(t, m, xs, ys, temp)
			for i := range want {
				if !(math.Abs(got[i]-want[i]) <= 2e-5) || !(got[i] >= 0 && got[i] <= 1) {
					t.Errorf("%s %s x%d T=%v: PIT at y=%v is %v, the distribution's CDF %v", cfg.Head, cfg.Vocab, m.EnsembleSize(), temp, ys[i], got[i], want[i])
				}
			}
		}
	}
}

// TestPITSearch: the fitted temperature is the argmin of the PIT error
// over the search's grids (ties nearest 1), checked by brute force through
// the distributions themselves; the search is deterministic; Fit with
// CalibrateBy pit stores the same temperature as FitTemperature on its
// validation rows; the fit survives Save and Load.
func TestPITSearch(t *testing.T) {
	x, y := calibrationData(1200, 21)
	for _, cfg := range []Config{
		{Head: HeadDecoder, Vocab: "normalized:base=4,length=4"},
		{Head: HeadRiemann, Bins: 32},
		{Head: HeadMDN, Ensemble: 2},
	} {
		cfg.EncLayers, cfg.EncWidth, cfg.MaxEpochs, cfg.Threads, cfg.Seed = 1, 16, 2, 1, 5
		cfg.Calibrate, cfg.CalibrateBy = true, CalibrateByPIT
		m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		T, info := m.Temperature(), m.Info()
		val := valRows(t, x, y, cfg)
		if info.CalibrateBy != CalibrateByPIT || info.Temperature != T || info.CalibrateRows != len(val.y) || !(info.ValPITAfter <= info.ValPITBefore) {
			t.Errorf("%s: T %v, info %+v", cfg.Head, T, info)
		}
		// Brute force over the grids, from the cached objective: the same
		// choice exactly.
		obj, err := m.pitObjective(context.Background(), val.x, len(val.y), val.y)
		if err != nil {
			t.Fatal(err)
		}
		errAt := func(temp float64) float64 {
			p, err := obj(temp)
			if err != nil {
				t.Fatal(err)
			}
			return metrics.PITError(p)
		}
		coarse := pitCoarseGrid()
		if len(coarse) != pitCoarse || coarse[0] != MinTemperature || coarse[pitCoarse-1] != MaxTemperature || coarse[pitCoarse/2] != 1 {
			t.Fatalf("coarse grid %v", coarse)
		}
		bt, bf, b := 0.0, math.Inf(1), -1
		for k, temp := range coarse {
			if f := errAt(temp); b < 0 || pitBetter(temp, f, bt, bf) {
				bt, bf, b = temp, f, k
			}
		}
		for _, temp := range pitFineGrid(coarse, b) {
			if f := errAt(temp); pitBetter(temp, f, bt, bf) {
				bt, bf = temp, f
			}
		}
		if bt != T || bf != info.ValPITAfter || errAt(1) != info.ValPITBefore {
			t.Errorf("%s: fitted T %v (error %v), brute force %v (error %v)", cfg.Head, T, info.ValPITAfter, bt, bf)
		}
		// Through the distributions: no coarse temperature does better
		// (up to a row whose PIT sits on a level, by rounding).
		n := float64(len(val.y))
		fT := metrics.PITError(refPIT(t, m, val.x, val.y, T))
		for _, temp := range coarse {
			if f := metrics.PITError(refPIT(t, m, val.x, val.y, temp)); f < fT-2/(19*n) {
				t.Errorf("%s: PIT error %v at T=%v below the fitted T=%v's %v", cfg.Head, f, temp, T, fT)
			}
		}
		// Deterministic, and FitTemperature on the validation rows agrees.
		un, _ := m.WithTemperature(1)
		for range 2 {
			f, err := un.FitTemperature(context.Background(), val.x, len(val.y), val.y, CalibrateByPIT)
			if err != nil || f.Temperature() != T || f.Info().ValPITAfter != info.ValPITAfter || f.Info().ValNLLAfter != info.ValNLLAfter {
				t.Errorf("%s: FitTemperature: %v, %+v; Fit: %v", cfg.Head, err, f.Info(), T)
			}
		}
		if un.Temperature() != 1 {
			t.Errorf("FitTemperature changed its receiver")
		}
		// The NLL objective on the same rows is the other fit.
		fn, err := un.FitTemperature(context.Background(), val.x, len(val.y), val.y, "")
		if err != nil || fn.Info().CalibrateBy != CalibrateByNLL || fn.Info().ValPITAfter != 0 {
			t.Errorf("%s: FitTemperature nll: %v, %+v", cfg.Head, err, fn.Info())
		}
		path := filepath.Join(t.TempDir(), "m.model")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		l, err := Load(path)
		if err != nil || l.Temperature() != T || l.Info().CalibrateBy != CalibrateByPIT || l.Config().CalibrateBy != CalibrateByPIT {
			t.Errorf("%s: loaded %v: T %v, info %+v", cfg.Head, err, l.Temperature(), l.Info())
		}
	}
}

// overDispersed returns rows y = x + sd N(0, 1), x uniform on [-1, 1].
func overDispersed(n int, seed uint64, sd float64) ([]float64, []float64) {
	r := rand.New(rand.NewPCG(seed, 9))
	x, y := make([]float64, n), make([]float64, n)
	for i := range n {
		x[i] = r.Float64()*2 - 1
		y[i] = x[i] + sd*r.NormFloat64()
	}
	return x, y
}

// TestPITCalibratesCoverage: a model trained on y = x + 0.3 noise is too
// wide for targets drawn from y = x + 0.1 noise (its 90% interval covers
// nearly all of them); the temperature the PIT objective fits on 1000 such
// rows brings the coverage of fresh ones to about 0.9, at every level, and
// the PIT error from about 0.15 to below 0.05 (what is left is the shape a
// temperature cannot change: 0.01-0.04 for these models, depending on
// rounding details of their training). The NLL objective's choice on the
// same rows is logged beside it.
func TestPITCalibratesCoverage(t *testing.T) {
	x, y := overDispersed(3000, 1, 0.3)
	xc, yc := overDispersed(1000, 2, 0.1)
	xt, yt := overDispersed(3000, 3, 0.1)
	for _, cfg := range []Config{
		{Head: HeadDecoder, Vocab: "normalized:base=4,length=5"},
		{Head: HeadRiemann, Bins: 256},
		{Head: HeadMDN},
	} {
		cfg.EncLayers, cfg.EncWidth, cfg.MaxEpochs, cfg.Threads, cfg.Seed, cfg.LR = 1, 32, 8, 1, 1, 3e-3
		m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		cu, err := m.Calibration(context.Background(), xt, len(yt), yt)
		if err != nil {
			t.Fatal(err)
		}
		if !(cu.Coverage["0.9"] > 0.97) {
			t.Fatalf("%s: the uncalibrated model covers %v of the sharp targets: not over-dispersed", cfg.Head, cu.Coverage["0.9"])
		}
		mp, err := m.FitTemperature(context.Background(), xc, len(yc), yc, CalibrateByPIT)
		if err != nil {
			t.Fatal(err)
		}
		mn, err := m.FitTemperature(context.Background(), xc, len(yc), yc, CalibrateByNLL)
		if err != nil {
			t.Fatal(err)
		}
		cp, err := mp.Calibration(context.Background(), xt, len(yt), yt)
		if err != nil {
			t.Fatal(err)
		}
		cn, err := mn.Calibration(context.Background(), xt, len(yt), yt)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: 90%% coverage %.3f at T=1, %.3f at the PIT T=%.3f, %.3f at the NLL T=%.3f; pit_ece %.3f, %.3f, %.3f",
			cfg.Head, cu.Coverage["0.9"], cp.Coverage["0.9"], mp.Temperature(), cn.Coverage["0.9"], mn.Temperature(), cu.PITError, cp.PITError, cn.PITError)
		if !(mp.Temperature() < 1) || !(math.Abs(cp.Coverage["0.9"]-0.9) <= 0.04) || !(math.Abs(cp.Coverage["0.5"]-0.5) <= 0.06) || !(cp.PITError < 0.05) {
			t.Errorf("%s: PIT T %v: coverage %v, pit_ece %v", cfg.Head, mp.Temperature(), cp.Coverage, cp.PITError)
		}
		if mp.Info().CalibrateBy != CalibrateByPIT || mn.Info().CalibrateBy != CalibrateByNLL || !(mp.Info().ValPITAfter < mp.Info().ValPITBefore) {
			t.Errorf("%s: infos %+v and %+v", cfg.Head, mp.Info(), mn.Info())
		}
	}
}

// TestCalibrateByErrors: unknown objectives and the PIT objective with a
// non-tree tokenization are *ConfigErrors naming CalibrateBy; without
// Calibrate the objective is ignored (its value still checked);
// FitTemperature refuses pointwise models, too few rows and bad targets.
func TestCalibrateByErrors(t *testing.T) {
	for _, c := range []struct {
		cfg   Config
		field string
	}{
		{Config{Calibrate: true, CalibrateBy: "ece"}, "CalibrateBy"},
		{Config{CalibrateBy: "NLL"}, "CalibrateBy"},
		{Config{Calibrate: true, CalibrateBy: CalibrateByPIT, Vocab: "hamming:length=6"}, "CalibrateBy"},
		{Config{Calibrate: true, CalibrateBy: CalibrateByPIT, Vocab: "normalized:base=4,length=2,repeat=3"}, "CalibrateBy"},
		{Config{Calibrate: true, CalibrateBy: CalibrateByPIT, Head: HeadPointwise}, "Calibrate"},
		{Config{CalibrateBy: CalibrateByPIT, Vocab: "hamming:length=6"}, ""},
		{Config{Calibrate: true, CalibrateBy: CalibrateByPIT, Head: HeadMDN}, ""},
		{Config{Calibrate: true, CalibrateBy: CalibrateByNLL, Vocab: "hamming:length=6"}, ""},
	} {
		err := c.cfg.Validate()
		var ce *ConfigError
		if c.field == "" && err != nil || c.field != "" && (!errors.As(err, &ce) || ce.Field != c.field) {
			t.Errorf("%+v: %v, want field %q", c.cfg, err, c.field)
		}
	}
	x, y := calibrationData(200, 1)
	small := Config{EncLayers: 1, EncWidth: 4, MaxEpochs: 1, Threads: 1}
	fit := func(c Config) *Model {
		m, err := FitFlat(context.Background(), x, len(y), 1, y, c)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	cfg := small
	cfg.Head = HeadPointwise
	pw := fit(cfg)
	cfg = small
	cfg.Head, cfg.Vocab = HeadDecoder, "hamming:length=4"
	hm := fit(cfg)
	cfg = small
	cfg.Head = HeadMDN
	md := fit(cfg)
	nan := slices.Clone(y[:30])
	nan[3] = math.NaN()
	for _, c := range []struct {
		m     *Model
		x, y  []float64
		by    string
		field string
	}{
		{pw, x, y, CalibrateByPIT, "Calibrate"},
		{hm, x, y, CalibrateByPIT, "CalibrateBy"},
		{md, x, y, "ece", "CalibrateBy"},
		{md, x[:10], y[:10], CalibrateByPIT, "Calibrate"},
		{md, x[:30], nan, CalibrateByPIT, ""},
		{md, x[:29], y[:30], CalibrateByPIT, ""},
	} {
		_, err := c.m.FitTemperature(context.Background(), c.x, len(c.y), c.y, c.by)
		var ce *ConfigError
		if c.field != "" && (!errors.As(err, &ce) || ce.Field != c.field) || c.field == "" && !errors.Is(err, ErrBadInput) {
			t.Errorf("%s %s by %q, %d rows: %v, want field %q", c.m.cfg.Head, c.m.cfg.Vocab, c.by, len(c.y), err, c.field)
		}
	}
	if _, err := (&Model{}).FitTemperature(context.Background(), x, len(y), y, ""); !errors.Is(err, ErrNotFitted) {
		t.Errorf("an empty model: %v", err)
	}
	// The NLL objective still takes a Hamming decoder.
	if _, err := hm.FitTemperature(context.Background(), x, len(y), y, CalibrateByNLL); err != nil {
		t.Errorf("hamming, nll: %v", err)
	}
}
