package decoreg

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"testing"

	"decoreg/data"
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

// liarSource answers Rows differently each time it is asked, and, where
// write is set, writes 0.25 in its first Fill's rows (up to row first)
// and nothing in the others'.
type liarSource struct {
	answers []int
	asked   int
	write   bool
	first   int // the first Fill's hi
	most    int
}

func (s *liarSource) Rows() int {
	n := s.answers[min(s.asked, len(s.answers)-1)]
	s.asked++
	return n
}
func (s *liarSource) Cols() int { return 1 }
func (s *liarSource) Fill(lo, hi int, x []float64) error {
	s.most = max(s.most, hi-lo)
	if s.write && s.first == 0 {
		s.first = hi
		for i := range x {
			x[i] = 0.25
		}
	}
	return nil
}

// TestRowSourceOdd: a source whose Rows changes between calls is asked
// once a call (EvaluateRows panicked on 3,000 predictions for 1,000
// targets); a Fill that writes nothing gives rows of zeros, not the last
// chunk's values; a typed nil *data.Encoder is bad input, not a nil
// dereference; and OutDist fills its rows a chunk at a time (the table
// was encoded whole, past the memory check EncodeFrame makes).
func TestRowSourceOdd(t *testing.T) {
	ctx := context.Background()
	m := fit(t, small(HeadRiemann, ""), true)
	_, y := toyData(1000, 4)
	lie := &liarSource{answers: []int{1000, 3000}}
	e, err := m.EvaluateRows(ctx, lie, y, "")
	if err != nil || e.N != 1000 {
		t.Errorf("EvaluateRows of a source whose row count changes: %v, %+v", err, e)
	}
	lie = &liarSource{answers: []int{1000, 3000}}
	if p, err := m.PredictRows(ctx, lie, PredictOptions{}); err != nil || len(p.Mean) != 1000 {
		t.Errorf("PredictRows: %v, %d means", err, len(p.Mean))
	}
	// The first chunk written as 0.25, the others not written at all:
	// rows of zeros after it.
	blank := &liarSource{answers: []int{1000}, write: true}
	got, err := m.PredictRows(ctx, blank, PredictOptions{})
	if err != nil || blank.first == 0 || blank.first == 1000 {
		t.Fatalf("%v; the first Fill's rows end at %d: want a chunk", err, blank.first)
	}
	xs := make([]float64, 1000)
	for i := range blank.first {
		xs[i] = 0.25
	}
	want, err := m.PredictFlat(ctx, xs, 1000, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !sameBits(got.Mean, want.Mean) {
		t.Error("a Fill that writes nothing: the rows are not zeros")
	}
	var none *data.Encoder
	if _, err := m.PredictRows(ctx, none, PredictOptions{}); !errors.Is(err, ErrBadInput) {
		t.Errorf("a nil *data.Encoder: %v", err)
	}
	x, _ := toyData(3000, 5)
	src := &spanSource{x: x, rows: 3000, cols: 1, failAt: -1}
	pd, err := m.PredictRows(ctx, src, PredictOptions{Outputs: OutDist | OutMean})
	if err != nil || len(pd.Dist) != 3000 || src.most > 1024 {
		t.Fatalf("OutDist: %v, %d distributions, a Fill of %d rows", err, len(pd.Dist), src.most)
	}
	wd, err := m.PredictFlat(ctx, x, 3000, PredictOptions{Outputs: OutDist | OutMean})
	if err != nil {
		t.Fatal(err)
	}
	for i := range wd.Dist {
		if a, b := pd.Dist[i].Quantile(0.3), wd.Dist[i].Quantile(0.3); math.Float64bits(a) != math.Float64bits(b) || pd.Mean[i] != wd.Mean[i] {
			t.Fatalf("OutDist row %d: quantile %v against %v", i, a, b)
		}
	}
}
