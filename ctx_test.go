package decoreg

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"decoreg/data"
	"decoreg/dist"
)

// countingCtx is a live context whose Err turns to context.Canceled after
// its first live calls, counting every call.
type countingCtx struct {
	context.Context
	live  int64
	calls atomic.Int64
}

func (c *countingCtx) Err() error {
	if c.calls.Add(1) > c.live {
		return context.Canceled
	}
	return nil
}

// TestCancelledBeforeWork checks that every Model method that works over
// rows returns an error wrapping context.Canceled, and no result, for a
// context cancelled before the call, for each head and an ensemble.
func TestCancelledBeforeWork(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	x, y := toyData(300, 3)
	ens := small(HeadDecoder, "normalized:base=4,length=3")
	ens.Ensemble = 2
	cases := []struct {
		name string
		cfg  Config
	}{
		{"decoder", small(HeadDecoder, "normalized:base=4,length=3")},
		{"riemann", small(HeadRiemann, "")},
		{"mdn", small(HeadMDN, "")},
		{"pointwise", small(HeadPointwise, "")},
		{"ensemble", ens},
	}
	f := &data.Frame{Rows: len(y), Columns: []data.Column{
		{Name: "x", Kind: data.Numeric, Num: x, Missing: make([]bool, len(y))},
		{Name: "y", Kind: data.Numeric, Num: y, Missing: make([]bool, len(y))}}}
	fx := &data.Frame{Rows: f.Rows, Columns: f.Columns[:1]}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := fit(t, c.cfg, true)
			check := func(what string, res any, err error) {
				t.Helper()
				if !errors.Is(err, context.Canceled) {
					t.Errorf("%s: err %v, want one wrapping context.Canceled", what, err)
				}
				switch r := res.(type) {
				case *Prediction:
					if r != nil {
						t.Errorf("%s: a prediction with the error", what)
					}
				case *Eval:
					if r != nil {
						t.Errorf("%s: an evaluation with the error", what)
					}
				case *Calibration:
					if r != nil {
						t.Errorf("%s: a calibration with the error", what)
					}
				case []dist.Distribution:
					if r != nil {
						t.Errorf("%s: distributions with the error", what)
					}
				}
			}
			p, err := m.PredictFlat(ctx, x, len(y), PredictOptions{})
			check("PredictFlat", p, err)
			p, err = m.PredictFlat(ctx, x, len(y), PredictOptions{Outputs: OutMean | OutDist})
			check("PredictFlat with OutDist", p, err)
			p, err = m.Predict(ctx, [][]float64{{0.1}, {0.2}}, PredictOptions{Outputs: OutQuantiles})
			check("Predict", p, err)
			ds, err := m.Dists(ctx, x, len(y), dist.TokenOptions{})
			check("Dists", ds, err)
			e, err := m.Evaluate(ctx, x, len(y), y, "")
			check("Evaluate", e, err)
			_, err = m.Score(ctx, [][]float64{{0.1}, {0.2}}, []float64{0, 1})
			check("Score", nil, err)
			fp, err := m.PredictFrame(ctx, fx, PredictOptions{})
			check("PredictFrame", fp, err)
			fe, err := m.EvaluateFrame(ctx, f, "y", "")
			check("EvaluateFrame", fe, err)
			cal, err := m.Calibration(ctx, x, len(y), y)
			check("Calibration", cal, err) // the pointwise's NaNs came back (helper-137)
			bad := slices.Clone(x)
			bad[7] = math.NaN()
			var de *DataError
			if _, err := m.Calibration(context.Background(), bad, len(y), y); !errors.As(err, &de) || de.Row != 7 {
				t.Errorf("Calibration of a NaN feature in row 7: %v, want a *DataError naming row 7 (helper-138: the pointwise's NaN scores came back)", err)
			}
			if c.cfg.Head == HeadPointwise {
				return // no distribution to calibrate
			}
			for _, by := range []string{CalibrateByNLL, CalibrateByPIT, CalibrateByIsotonic} {
				mt, err := m.FitTemperature(ctx, x, len(y), y, by)
				check("FitTemperature "+by, nil, err)
				if mt != nil {
					t.Errorf("FitTemperature %s: a model with the error", by)
				}
			}
		})
	}
}

// TestCancelStopsBetweenChunks checks that a context cancelled while
// PredictFlat, Dists, Evaluate and Calibration work stops them soon after
// (the context is not asked again and again while the rows are done), and
// that a live context, and a nil one, give the same answers as
// context.Background().
func TestCancelStopsBetweenChunks(t *testing.T) {
	m := fit(t, small(HeadDecoder, "normalized:base=4,length=3"), true)
	x, y := toyData(3000, 5)
	riemann := fit(t, small(HeadRiemann, ""), true)
	ecfg := small(HeadMDN, "")
	ecfg.Ensemble = 2
	ens := fit(t, ecfg, true)
	xr, _ := toyData(3*distChunk, 6)
	want, err := m.PredictFlat(context.Background(), x, len(y), PredictOptions{Outputs: OutMean | OutQuantiles})
	if err != nil {
		t.Fatal(err)
	}
	var nilCtx context.Context
	got, err := m.PredictFlat(nilCtx, x, len(y), PredictOptions{Outputs: OutMean | OutQuantiles})
	if err != nil || !slices.Equal(got.Mean, want.Mean) || !slices.Equal(got.Quantiles[3], want.Quantiles[3]) {
		t.Fatalf("a nil context: err %v, or answers other than context.Background()'s", err)
	}
	live := &countingCtx{Context: context.Background(), live: 1 << 40}
	got, err = m.PredictFlat(live, x, len(y), PredictOptions{Outputs: OutMean | OutQuantiles})
	if err != nil || !slices.Equal(got.Mean, want.Mean) {
		t.Fatalf("a live context: err %v, or answers other than context.Background()'s", err)
	}
	if live.calls.Load() < 3 {
		t.Fatalf("PredictFlat over %d rows asked its context %d times: it does not look while it works", len(y), live.calls.Load())
	}
	runs := map[string]func(ctx context.Context) error{
		"PredictFlat": func(ctx context.Context) error {
			_, err := m.PredictFlat(ctx, x, len(y), PredictOptions{Outputs: OutMean})
			return err
		},
		"PredictFlat with OutDist": func(ctx context.Context) error {
			_, err := m.PredictFlat(ctx, x, len(y), PredictOptions{Outputs: OutMedian | OutDist})
			return err
		},
		"Dists": func(ctx context.Context) error {
			_, err := m.Dists(ctx, x, len(y), dist.TokenOptions{})
			return err
		},
		"Evaluate": func(ctx context.Context) error {
			_, err := m.Evaluate(ctx, x, len(y), y, "")
			return err
		},
		"Calibration": func(ctx context.Context) error {
			_, err := m.Calibration(ctx, x, len(y), y)
			return err
		},
		// Building the rows' distributions looks too, every distChunk
		// rows (helper-138: a Riemann model's million rows ran 3.7 s past
		// a deadline).
		"Dists of a Riemann model": func(ctx context.Context) error {
			_, err := riemann.Dists(ctx, xr, len(xr), dist.TokenOptions{})
			return err
		},
		"Dists of an ensemble": func(ctx context.Context) error {
			_, err := ens.Dists(ctx, xr, len(xr), dist.TokenOptions{})
			return err
		},
	}
	for name, run := range runs {
		all := &countingCtx{Context: context.Background(), live: 1 << 40}
		if err := run(all); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n := all.calls.Load()
		if n < 3 {
			t.Errorf("%s over %d rows asked its context %d times: it does not look while it works", name, len(y), n)
			continue
		}
		for _, stage := range []int64{1, n / 2, n - 1} {
			c := &countingCtx{Context: context.Background(), live: stage}
			if err := run(c); !errors.Is(err, context.Canceled) {
				t.Errorf("%s, cancelled after %d of its %d looks: err %v, want one wrapping context.Canceled", name, stage, n, err)
			}
			// Once cancelled, the rows left are not worked on: a few
			// more looks at most.
			if k := c.calls.Load(); k > stage+3 {
				t.Errorf("%s, cancelled after %d of its %d looks: %d looks in all; it went on working", name, stage, n, k)
			}
		}
	}
}
