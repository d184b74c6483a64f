package decoreg

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"testing"
)

// spanSource is a RowSource of rows held whole that records the most rows
// a Fill asked for, and fails at row failAt (-1: never).
type spanSource struct {
	x          []float64
	rows, cols int
	most       int
	failAt     int
}

var errFill = errors.New("the source broke")

func (s *spanSource) Rows() int { return s.rows }
func (s *spanSource) Cols() int { return s.cols }
func (s *spanSource) Fill(lo, hi int, x []float64) error {
	s.most = max(s.most, hi-lo)
	if s.failAt >= lo && s.failAt < hi {
		return errFill
	}
	copy(x, s.x[lo*s.cols:hi*s.cols])
	return nil
}

// sameBits reports whether a and b hold the same float64s, bit for bit
// (NaNs included).
func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(u, v float64) bool { return math.Float64bits(u) == math.Float64bits(v) })
}

// TestRowSourceMatchesFlat: PredictRows, EvaluateRows and
// CalibrationRows give, bit for bit, what PredictFlat, Evaluate and
// Calibration give on the rows held whole, for every head (the Hamming
// decoder aside: slow), an ensemble, a
// model at a temperature and one recalibrated by its isotonic map, while
// asking the source for a few thousand rows at a time; a source's error is
// returned, wrapped, and a source of another width or none is bad input.
func TestRowSourceMatchesFlat(t *testing.T) {
	ctx := context.Background()
	x, y := toyData(4300, 2) // past Evaluate's 4,096-row chunks
	models := map[string]*Model{}
	for _, hc := range headCases {
		if hc.name == "decoder-hamming" {
			continue // as the others, at 35 ms a row
		}
		models[hc.name] = fit(t, hc.cfg, true)
	}
	models["pointwise"] = fit(t, small(HeadPointwise, ""), true)
	other := small(HeadDecoder, "normalized:base=4,length=3")
	other.Seed = 8
	ens, err := NewEnsemble(models["decoder-normalized"], fit(t, other, true))
	if err != nil {
		t.Fatal(err)
	}
	models["ensemble"] = ens
	if models["temperature"], err = models["decoder-normalized"].WithTemperature(1.4); err != nil {
		t.Fatal(err)
	}
	xv, yv := toyData(300, 3)
	if models["isotonic"], err = models["riemann"].FitTemperature(ctx, xv, len(yv), yv, CalibrateByIsotonic); err != nil {
		t.Fatal(err)
	}
	asJSON := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for name, m := range models {
		t.Run(name, func(t *testing.T) {
			src := &spanSource{x: x, rows: len(y), cols: 1, failAt: -1}
			opts := PredictOptions{Outputs: OutMean | OutMedian | OutMode | OutQuantiles, Levels: []float64{0.1, 0.5, 0.9}}
			if m.Config().Head != HeadPointwise {
				opts.Outputs |= OutLogPDF
				opts.Y = y
			}
			want, err := m.PredictFlat(ctx, x, len(y), opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.PredictRows(ctx, src, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !sameBits(got.Mean, want.Mean) || !sameBits(got.Median, want.Median) || !sameBits(got.Mode, want.Mode) || !sameBits(got.LogPDF, want.LogPDF) {
				t.Error("PredictRows's points or log-densities differ from PredictFlat's")
			}
			for j := range want.Quantiles {
				if !sameBits(got.Quantiles[j], want.Quantiles[j]) {
					t.Errorf("PredictRows's quantiles at %v differ", want.Levels[j])
				}
			}
			e, err := m.Evaluate(ctx, x, len(y), y, "")
			if err != nil {
				t.Fatal(err)
			}
			eg, err := m.EvaluateRows(ctx, src, y, "")
			if err != nil {
				t.Fatal(err)
			}
			if a, b := asJSON(eg), asJSON(e); a != b {
				t.Errorf("EvaluateRows %s, Evaluate %s", a, b)
			}
			c, err := m.Calibration(ctx, x, len(y), y)
			if err != nil {
				t.Fatal(err)
			}
			cg, err := m.CalibrationRows(ctx, src, y)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := asJSON(cg), asJSON(c); a != b {
				t.Errorf("CalibrationRows %s, Calibration %s", a, b)
			}
			if src.most > 4096 {
				t.Errorf("a Fill of %d rows: want a chunk at a time", src.most)
			}
			// A source that fails on row 4200: its error, wrapped.
			bad := &spanSource{x: x, rows: len(y), cols: 1, failAt: 4200}
			if _, err := m.PredictRows(ctx, bad, opts); !errors.Is(err, errFill) {
				t.Errorf("PredictRows of a failing source: %v", err)
			}
			if _, err := m.EvaluateRows(ctx, bad, y, ""); !errors.Is(err, errFill) {
				t.Errorf("EvaluateRows of a failing source: %v", err)
			}
			if _, err := m.CalibrationRows(ctx, bad, y); !errors.Is(err, errFill) {
				t.Errorf("CalibrationRows of a failing source: %v", err)
			}
		})
	}
	m := models["mdn"]
	wide := &spanSource{x: make([]float64, 20), rows: 10, cols: 2, failAt: -1}
	if _, err := m.PredictRows(ctx, wide, PredictOptions{}); !errors.Is(err, ErrBadInput) {
		t.Errorf("a source of 2 features for a model of 1: %v", err)
	}
	if _, err := m.EvaluateRows(ctx, nil, y, ""); !errors.Is(err, ErrBadInput) {
		t.Errorf("no source: %v", err)
	}
	var none *Model
	if _, err := none.CalibrationRows(ctx, wide, y); !errors.Is(err, ErrNotFitted) {
		t.Errorf("a nil model: %v", err)
	}
}
