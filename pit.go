package decoreg

import (
	"context"
	"errors"
	"fmt"
	"math"

	"decoreg/dist"
	"decoreg/internal/head"
	"decoreg/metrics"
)

// The objectives of Config.CalibrateBy and Model.FitTemperature.
const (
	// CalibrateByNLL (the default, "" too) fits the temperature that
	// minimises the mean NLL of the calibration rows, by golden-section
	// search on log T.
	CalibrateByNLL = "nll"
	// CalibrateByPIT fits the temperature whose PIT values F_T(y_i) on the
	// calibration rows are closest to uniform: the one that minimises
	// metrics.PITError (eval's pit_ece). A row lies inside the central
	// c-interval when its PIT lies in [(1-c)/2, (1+c)/2], so this aims at
	// the coverage of intervals of every level rather than at the
	// likelihood. The objective is piecewise constant in T: it is searched
	// on a grid (see pitSearch). Decoders need a tree tokenization.
	CalibrateByPIT = "pit"
	// CalibrateByIsotonic fits the temperature by NLL, then recalibrates
	// the CDF (Kuleshov, Fenner and Ermon, ICML 2018): the calibration
	// rows' PIT values p_i = F_T(y_i) give a monotone map R of [0, 1]
	// (dist.FitRecalibration on IsotonicSegments equal segments, mixed with
	// the identity by at least IsotonicFloor), and the predictive
	// distributions become dist.Recalibrated: CDF R(F_T(y)), quantiles
	// F_T⁻¹(R⁻¹(q)), density R'(F_T(y)) p_T(y). A map, unlike a
	// temperature, corrects the shape of miscalibration (intervals too
	// wide in the middle and too narrow in the tails, skewed PITs).
	// Decoders need a tree tokenization.
	CalibrateByIsotonic = "isotonic"
	// CalibrateByDepth fits a decoder's temperatures per token depth by
	// the NLL of the calibration rows: the logits of the k-th token of y
	// (sign, exponent, then ever finer digits) are divided by their own
	// T_k. A decoder trained past the NLL optimum overfits its later,
	// finer digits first; one temperature then widens the coarse digits
	// too, while temperatures per depth widen the fine ones alone. The
	// search starts from the NLL objective's one temperature T for every
	// depth and improves one depth at a time (golden-section search on
	// log T_k over [min(1, T), MaxTemperature], a few sweeps), so the
	// calibration rows' NLL is at most the NLL objective's; no depth is
	// sharper than both the model and T (on a few rows that gains little
	// and costs a rare target whose digit the model gets wrong dearly).
	// Decoder head only; an ensemble shares them (a member with a shorter
	// tokenization uses the first ones).
	CalibrateByDepth = "depth"
)

// The map of CalibrateByIsotonic: IsotonicSegments equal segments of
// [0, 1] and at least IsotonicFloor of the identity (more for fewer than
// 380 rows: dist.RecalibrationPrior), so that R' >= IsotonicFloor.
// Chosen on the UCI sets by the test NLL and interval coverage of a grid
// of both (experiment calibration; see the README).
const (
	IsotonicSegments = 10
	IsotonicFloor    = 0.05
)

// The scores of Config.StopBy.
const (
	// StopByNLL (the default, "" too) early-stops on the validation NLL.
	StopByNLL = "nll"
	// StopByDepth early-stops on the validation NLL at the temperatures
	// per token depth fitted on the validation rows (CalibrateByDepth's,
	// one model's: each depth alone).
	StopByDepth = "depth"
	// StopByCRPS early-stops on the mean CRPS of the validation rows (at
	// most maxCRPSRows of them), in u units: a proper score that, unlike
	// the NLL, weighs how far the predictive mass lies from the target,
	// so that a decoder trains on while its coarser digits improve though
	// its finer ones begin to overfit.
	StopByCRPS = "crps"
)

// CalibrateObjectives lists the calibration objectives (a copy for
// reading: the package does not read it).
var CalibrateObjectives = []string{CalibrateByNLL, CalibrateByPIT, CalibrateByIsotonic, CalibrateByDepth}

// checkCalibrateBy returns a *ConfigError for an unknown objective.
func checkCalibrateBy(by string) error {
	switch by {
	case "", CalibrateByNLL, CalibrateByPIT, CalibrateByIsotonic, CalibrateByDepth:
	default:
		return configErr("CalibrateBy", "unknown calibration objective %q (want nll, pit, isotonic or depth)", by)
	}
	return nil
}

// The grid of the PIT objective's search: pitCoarse log-spaced
// temperatures over [MinTemperature, MaxTemperature] with T = 1 in the
// middle, then pitFine log-spaced ones between the neighbours of the best.
const (
	pitCoarse = 97
	pitFine   = 33
)

// pitCoarseGrid returns the coarse temperatures, increasing; the middle
// one is exactly 1.
func pitCoarseGrid() []float64 {
	half := (pitCoarse - 1) / 2
	l := math.Log(MaxTemperature/MinTemperature) / 2
	out := make([]float64, pitCoarse)
	for k := range out {
		out[k] = min(max(math.Exp(l*float64(k-half)/float64(half)), MinTemperature), MaxTemperature)
	}
	out[0], out[pitCoarse-1] = MinTemperature, MaxTemperature // not a rounding inside
	return out
}

// pitFineGrid returns the fine temperatures between the coarse grid's
// neighbours of its element b, both included.
func pitFineGrid(coarse []float64, b int) []float64 {
	a, c := math.Log(coarse[max(b-1, 0)]), math.Log(coarse[min(b+1, len(coarse)-1)])
	out := make([]float64, pitFine)
	for j := range out {
		out[j] = min(max(math.Exp(a+(c-a)*float64(j)/float64(pitFine-1)), MinTemperature), MaxTemperature)
	}
	return out
}

// pitBetter reports whether temperature t with PIT error f beats bt with
// bf: a lower error, then (ties: the objective is piecewise constant) the
// temperature nearer 1 in log, then the smaller.
func pitBetter(t, f, bt, bf float64) bool {
	if f != bf {
		return f < bf
	}
	at, ab := math.Abs(math.Log(t)), math.Abs(math.Log(bt))
	if at != ab {
		return at < ab
	}
	return t < bt
}

// pitSearch returns the temperature of the coarse and fine grids with the
// lowest metrics.PITError of pits(t) (ties to pitBetter), that error, and
// the error at T = 1. It is deterministic: the same pits give the same T.
func pitSearch(pits func(t float64) ([]float64, error)) (best, fbest, f1 float64, err error) {
	eval := func(t float64) (float64, error) {
		p, err := pits(t)
		if errors.Is(err, head.ErrOutput) {
			// A row's distribution at t is beyond float64 (an MDN
			// widened on a huge target range): never this temperature.
			return math.Inf(1), nil
		}
		if err != nil {
			return math.NaN(), err
		}
		return metrics.PITError(p), nil
	}
	coarse := pitCoarseGrid()
	b := -1
	for k, t := range coarse {
		f, err := eval(t)
		if err != nil {
			return 0, 0, 0, err
		}
		if t == 1 {
			f1 = f
		}
		if b < 0 || pitBetter(t, f, best, fbest) {
			b, best, fbest = k, t, f
		}
	}
	for _, t := range pitFineGrid(coarse, b) {
		f, err := eval(t)
		if err != nil {
			return 0, 0, 0, err
		}
		if pitBetter(t, f, best, fbest) {
			best, fbest = t, f
		}
	}
	return best, fbest, f1, nil
}

// pitObjective returns the function the PIT search evaluates: the PIT
// values F_t(y_i) of rows x with targets y under m's distributions at
// temperature t (an ensemble's mixture: the mean of the members' CDFs),
// as the distributions of m.WithTemperature(t) give them, but without
// running the network again: a decoder member's rows walk the paths of
// their targets' cells once (dist.Token.CDFAt), and a Riemann or MDN
// member's outputs (the Riemann head's raw logits) are kept and only the
// distributions are rebuilt at each t.
func (m *Model) pitObjective(ctx context.Context, x []float64, rows int, y []float64) (func(t float64) ([]float64, error), error) {
	members := m.Members()
	type member struct {
		mk *Model
		at []func(invT float64) float64 // decoder: per row
		rs []head.Row                   // riemann, mdn: per row
	}
	ms := make([]member, len(members))
	for k, mk := range members {
		one := *mk
		one.temp = 1
		ms[k].mk = &one
		switch one.cfg.Head {
		case HeadDecoder:
			ds, err := one.memberDists(ctx, x, rows, dist.TokenOptions{})
			if err != nil {
				return nil, err
			}
			ms[k].at = make([]func(float64) float64, rows)
			for i, d := range ds {
				t := d.(*dist.Token)
				if !t.Exact() {
					return nil, configErr("CalibrateBy", "the pit objective needs a tree tokenization (normalized or unnormalized, without repeat), have %s", t.Tokenizer().Spec())
				}
				ms[k].at[i] = t.CDFAt(y[i])
			}
		case HeadRiemann, HeadMDN:
			rs, err := one.memberRows(ctx, x, rows, dist.TokenOptions{})
			if err != nil {
				return nil, err
			}
			ms[k].rs = rs
		default:
			return nil, configErr("Calibrate", "a %s model has no distribution to calibrate", one.cfg.Head)
		}
	}
	return func(t float64) ([]float64, error) {
		out := make([]float64, rows)
		for _, mm := range ms {
			if mm.at != nil {
				for i, f := range mm.at {
					out[i] += f(1 / t)
				}
				continue
			}
			for i, r := range mm.rs {
				r.Temp = t
				d, err := mm.mk.h.Dist(r)
				if err != nil {
					return nil, mm.mk.overflow(x, i, err)
				}
				out[i] += d.CDF(y[i])
			}
		}
		n := float64(len(ms))
		for i := range out {
			out[i] = min(out[i]/n, 1)
		}
		return out, nil
	}, nil
}

// FitTemperature returns a copy of m, sharing its weights, whose
// temperature is fitted on rows x (rows x Features(), row-major) with
// targets y by objective by (CalibrateByNLL, "" too, CalibrateByPIT,
// CalibrateByIsotonic, which also fits the map of the CDF, or
// CalibrateByDepth, a decoder's temperatures per token depth), as
// Config.Calibrate fits it on the validation rows, from the first 4,000
// rows; at least 20 are needed, and they should be rows the model was not
// trained on, from the same distribution: targets outside the training
// range are clipped to it for the NLL (as Evaluate's), and more than a
// quarter of them among the rows used is an error wrapping ErrBadInput. The copy's Info records the fit (Temperature, CalibrateBy,
// the validation NLL and, for the PIT and isotonic objectives, the PIT
// error, before and after). Fitting again replaces m's temperature and
// map: the search starts from the uncalibrated distributions. A
// pointwise model, an unknown objective, the PIT or isotonic objective
// with a non-tree decoder tokenization, and the depth objective for a
// head other than the decoder are *ConfigErrors. The search stops once ctx
// is done, with an error wrapping ctx.Err() and no model.
func (m *Model) FitTemperature(ctx context.Context, x []float64, rows int, y []float64, by string) (*Model, error) {
	if m == nil || m.net == nil {
		return nil, ErrNotFitted
	}
	if err := checkCalibrateBy(by); err != nil {
		return nil, err
	}
	if !m.h.Density {
		return nil, configErr("Calibrate", "a %s model has no distribution to calibrate", m.cfg.Head)
	}
	if by == CalibrateByDepth && m.cfg.Head != HeadDecoder {
		return nil, configErr("CalibrateBy", "the depth objective needs the decoder head, have %s", m.cfg.Head)
	}
	if len(y) != rows || rows < 0 {
		return nil, fmt.Errorf("%w: %d targets for %d rows", ErrBadInput, len(y), rows)
	}
	if d := m.Features(); !shapeOK(len(x), rows, d) {
		return nil, fmt.Errorf("%w: %d values for %d rows of %d features", ErrBadInput, len(x), rows, d)
	}
	if rows < minCalibrationRows {
		return nil, configErr("Calibrate", "calibration needs at least %d rows, have %d", minCalibrationRows, rows)
	}
	n := min(rows, maxCalibrationRows)
	out := 0
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, dataErr(i, -1, ErrBadInput, "the target is %v", v)
		}
		if i < n && (v < m.units.YMin || v > m.units.YMax) {
			out++
		}
	}
	if 4*out > n {
		// Their NLL is taken at the range's end, as Evaluate's: a
		// temperature fitted to it would fit the clipping.
		return nil, fmt.Errorf("%w: %d of the %d targets it is fitted on lie outside the model's training range [%v, %v]: calibrate on rows like those it was trained on",
			ErrBadInput, out, n, m.units.YMin, m.units.YMax)
	}
	c := *m
	ctx = orBackground(ctx)
	if err := c.fitTemperature(ctx, x[:n*m.Features()], n, y[:n], by); err != nil {
		if serr := stopped(ctx); serr != nil && err == ctx.Err() {
			return nil, serr // as the other methods say it (it was a bare "context canceled")
		}
		return nil, err
	}
	return &c, nil
}
