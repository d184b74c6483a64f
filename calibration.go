package decoreg

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"sync/atomic"

	"decoreg/dist"
	"decoreg/internal/jsonfloat"
	"decoreg/metrics"
)

// Calibration scores predictive distributions on a labelled set: how well
// p(y|x) as a whole, not only its point estimate, fits the targets. The
// pointwise head, which has no distribution, has NaN scores and nil maps.
// Its JSON form writes NaN as null.
type Calibration struct {
	N int `json:"n,omitempty"` // the rows scored
	// CRPS is the mean continuous ranked probability score (dist.CRPS), in
	// units of y: lower is better, and for a point forecast it would be the
	// mean absolute error. CRPSBound bounds its error (0 where it is exact:
	// Riemann, MDN, and token heads whose expansion reached every cell;
	// +Inf where the score is an estimate from draws: non-tree
	// tokenizations).
	CRPS      float64 `json:"crps"`
	CRPSBound float64 `json:"crps_bound"` // the bound on CRPS's error, in units of y
	// Coverage holds, for each central predictive interval of
	// metrics.CentralLevels (keyed "0.5", "0.8", "0.9", "0.95"; the
	// interval of level c runs from the (1-c)/2 to the (1+c)/2 quantile),
	// the fraction of targets inside it; calibrated predictions cover
	// about c. IntervalWidth is the intervals' mean width in units of y.
	Coverage      map[string]float64 `json:"coverage"`
	IntervalWidth map[string]float64 `json:"interval_width"` // keyed as Coverage
	// PITError is metrics.PITError of the targets' predictive CDF values
	// F_i(y_i): 0 for calibrated predictions, at most 0.5.
	PITError float64 `json:"pit_ece"`
	// PIT holds those values, one per row (for a histogram); not in JSON.
	PIT []float64 `json:"-"`
}

// MarshalJSON implements json.Marshaler.
func (c Calibration) MarshalJSON() ([]byte, error) {
	type plain Calibration
	floats := func(m map[string]float64) map[string]jsonfloat.Float {
		if m == nil {
			return nil
		}
		out := make(map[string]jsonfloat.Float, len(m))
		for k, v := range m {
			out[k] = jsonfloat.Float(v)
		}
		return out
	}
	return json.Marshal(struct {
		plain
		Coverage      map[string]jsonfloat.Float `json:"coverage"`
		IntervalWidth map[string]jsonfloat.Float `json:"interval_width"`
		CRPS          jsonfloat.Float            `json:"crps"`
		CRPSBound     jsonfloat.Float            `json:"crps_bound"`
		PITError      jsonfloat.Float            `json:"pit_ece"`
	}{plain(c), floats(c.Coverage), floats(c.IntervalWidth), jsonfloat.Float(c.CRPS), jsonfloat.Float(c.CRPSBound), jsonfloat.Float(c.PITError)})
}

// Calibration computes the Calibration of the model's predictive
// distributions on rows x with targets y. For a token head it costs about
// as much as Predict's mean (the CRPS walks the same tree expansion). It
// stops between chunks of rows once ctx is done, with an error wrapping
// ctx.Err() (a nil ctx is context.Background()).
func (m *Model) Calibration(ctx context.Context, x []float64, rows int, y []float64) (*Calibration, error) {
	if m == nil || m.net == nil {
		return nil, ErrNotFitted
	}
	return m.calibration(orBackground(ctx), flatRows{x, rows, m.Features()}, y)
}

// CalibrationRows is Calibration for the rows of src, read a chunk of
// rows at a time.
func (m *Model) CalibrationRows(ctx context.Context, src RowSource, y []float64) (*Calibration, error) {
	if m == nil || m.net == nil {
		return nil, ErrNotFitted
	}
	r, err := m.sourceReader(src)
	if err != nil {
		return nil, err
	}
	return m.calibration(orBackground(ctx), r, y)
}

// calibration is Calibration for the rows of r.
func (m *Model) calibration(ctx context.Context, r rowReader, y []float64) (*Calibration, error) {
	rows := r.count()
	if len(y) != rows || rows < 1 {
		return nil, fmt.Errorf("%w: %d targets for %d rows", ErrBadInput, len(y), rows)
	}
	if x, ok := r.flat(); ok && !shapeOK(len(x), rows, m.Features()) {
		return nil, fmt.Errorf("%w: %d values for %d rows of %d features", ErrBadInput, len(x), rows, m.Features())
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, dataErr(i, -1, ErrBadInput, "the target is %v", v)
		}
	}
	if err := stopped(ctx); err != nil {
		return nil, err // as for every head, though the pointwise has nothing to compute
	}
	if _, flat := r.flat(); flat || !m.h.Density {
		// As for every head (the pointwise's NaN scores came back); a
		// source's rows are checked as each chunk is predicted, below.
		if err := checkFiniteRows(ctx, r, m.Features()); err != nil {
			return nil, err
		}
	}
	c := &Calibration{N: rows, CRPS: math.NaN(), CRPSBound: math.NaN(), PITError: math.NaN()}
	if !m.h.Density {
		return c, nil
	}
	central := metrics.Central()
	levels := make([]float64, 0, 2*len(central))
	for _, l := range central {
		levels = append(levels, (1-l)/2, (1+l)/2)
	}
	// In chunks of rows, so that the distributions (and the tree
	// expansions they cache) of only one chunk are held at a time.
	qs := make([][]float64, len(levels))
	for j := range qs {
		qs[j] = make([]float64, rows)
	}
	c.PIT = make([]float64, rows)
	var crps, bound float64
	n := float64(rows)
	chunk := m.rowChunk()
	for lo := 0; lo < rows; lo += chunk {
		if err := stopped(ctx); err != nil {
			return nil, err
		}
		hi := min(lo+chunk, rows)
		xc, err := r.at(lo, hi)
		if err != nil {
			return nil, err
		}
		p, err := m.PredictFlat(ctx, xc, hi-lo, PredictOptions{Outputs: OutQuantiles | OutDist, Levels: levels})
		if err != nil {
			return nil, shiftRow(err, lo)
		}
		for j := range levels {
			copy(qs[j][lo:hi], p.Quantiles[j])
		}
		// The rows' scores in parallel (an MDN's CRPS is quadratic in
		// its components), summed in order.
		ss, bs := make([]float64, hi-lo), make([]float64, hi-lo)
		var quit atomic.Bool
		eachRow(min(m.net.Threads(), hi-lo), hi-lo, func(k int) {
			if quit.Load() || ctx.Err() != nil {
				quit.Store(true)
				return
			}
			i := lo + k
			c.PIT[i] = p.Dist[k].CDF(y[i])
			ss[k], bs[k] = dist.CRPS(p.Dist[k], y[i])
		})
		if err := stopped(ctx); err != nil {
			return nil, err
		}
		for k := range ss {
			crps += ss[k] / n // divided first: no overflow for huge targets
			bound += bs[k] / n
		}
	}
	c.Coverage, c.IntervalWidth = map[string]float64{}, map[string]float64{}
	for k, l := range central {
		key := strconv.FormatFloat(l, 'g', -1, 64)
		lo, hi := qs[2*k], qs[2*k+1]
		c.Coverage[key] = metrics.Coverage(lo, hi, y)
		c.IntervalWidth[key] = metrics.MeanWidth(lo, hi)
	}
	c.PITError = metrics.PITError(c.PIT)
	c.CRPS, c.CRPSBound = crps, bound
	return c, nil
}
