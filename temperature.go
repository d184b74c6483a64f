package decoreg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"decoreg/dist"
	"decoreg/internal/head"
	"decoreg/internal/train"
	"decoreg/internal/vec"
	"decoreg/metrics"
)

// maxCalibrationRows bounds the validation rows Config.Calibrate scores
// (the first of the shuffled validation split): the search evaluates
// their NLL about 40 times.
const maxCalibrationRows = 4000

// minCalibrationRows is the fewest validation rows Config.Calibrate fits a
// temperature on.
const minCalibrationRows = 20

// checkCalibrationRows refuses Config.Calibrate, before any training, when
// rows with validation fraction valFrac leave fewer than
// minCalibrationRows validation rows.
func checkCalibrationRows(rows int, valFrac float64) error {
	if n := train.ValRows(rows, valFrac); n < minCalibrationRows {
		return configErr("Calibrate", "calibration needs at least %d validation rows, have %d (%s)", minCalibrationRows, n, valFracAdvice(rows))
	}
	return nil
}

// valFracAdvice is how to get minCalibrationRows validation rows out of
// rows: the validation fraction that does (ValFrac, --val-frac), or that
// the data are too few.
func valFracAdvice(rows int) string {
	if rows <= minCalibrationRows {
		return fmt.Sprintf("the data have %d rows, and some must be left to train on", rows)
	}
	// The smallest fraction of three significant digits that rounds to
	// minCalibrationRows rows.
	f := float64(minCalibrationRows-0.5) / float64(rows)
	p := math.Pow(10, 2-math.Floor(math.Log10(f)))
	f = math.Ceil(f*p) / p
	for train.ValRows(rows, f) < minCalibrationRows {
		f += 1 / p
	}
	return fmt.Sprintf("a validation fraction (ValFrac, --val-frac) of at least %s gives %d of the %d rows", strconv.FormatFloat(f, 'g', 3, 64), minCalibrationRows, rows)
}

// checkStopRows refuses StopByDepth, before any training, when rows with
// cfg's validation fraction leave fewer than minCalibrationRows
// validation rows: temperatures fitted on fewer rows than that, and scored
// on the same rows, would choose the epoch by noise.
func checkStopRows(rows int, cfg Config) error {
	if n := train.ValRows(rows, cfg.ValFrac); cfg.StopBy == StopByDepth && n < minCalibrationRows {
		return configErr("StopBy", "early stopping by depth needs at least %d validation rows, have %d (%s)", minCalibrationRows, n, valFracAdvice(rows))
	}
	return nil
}

// calibrate sets m's temperature (or its temperatures per depth, or its
// map) to the one fitted by objective by (Config.CalibrateBy) on the
// validation rows val of x (cols features) and y: the first
// maxCalibrationRows of them. When ctx is done it stops between
// evaluations of the objective, leaves m as it was (not calibrated) and
// returns an error wrapping ctx.Err().
func (m *Model) calibrate(ctx context.Context, x []float64, cols int, y []float64, val []int, by string) error {
	n := min(len(val), maxCalibrationRows) // at least minCalibrationRows: checkCalibrationRows
	xv, yv := gatherRows(val[:n], x, cols, y)
	temp, recal, depthT, info := m.temp, m.recal, m.depthT, m.info
	if err := m.fitTemperature(ctx, xv, n, yv, by); err != nil {
		m.temp, m.recal, m.depthT, m.info = temp, recal, depthT, info
		return fmt.Errorf("calibrating: %w", err)
	}
	return nil
}

// fitTemperature sets m's temperature, and the calibration fields of its
// TrainInfo, to the one objective by fits on rows x with targets y.
//
// ctx is checked before each evaluation of the objective: once it is
// done, fitTemperature returns an error wrapping ctx.Err() (m then may be
// half calibrated; calibrate restores it).
func (m *Model) fitTemperature(ctx context.Context, x []float64, rows int, y []float64, by string) error {
	m.recal, m.depthT = nil, nil
	m.info.clearCalibration()
	if err := ctx.Err(); err != nil {
		return err
	}
	ms, err := m.objectiveMembers(ctx, x, rows, y)
	if err != nil {
		return err
	}
	obj := m.tempObjective(ms, x, rows, y)
	var failed error
	nll := func(t float64) float64 {
		if failed == nil {
			failed = ctx.Err()
		}
		if failed != nil {
			return math.NaN()
		}
		v, err := obj(t)
		if err != nil && failed == nil {
			failed = err
		}
		return v
	}
	lr := m.units.LogRange()
	if by == CalibrateByPIT {
		pits, err := m.pitObjective(ctx, x, rows, y)
		if err != nil {
			return err
		}
		pits = ctxPITs(ctx, pits)
		best, fbest, f1, err := pitSearch(pits)
		if err != nil {
			return err
		}
		n1, nb := nll(1), nll(best)
		if failed != nil {
			return failed
		}
		m.temp = best
		m.info.Temperature, m.info.CalibrateBy, m.info.CalibrateRows = best, CalibrateByPIT, rows
		m.info.ValNLLBefore, m.info.ValNLLAfter = n1-lr, nb-lr
		m.info.ValPITBefore, m.info.ValPITAfter = f1, fbest
		return nil
	}
	lo, hi := math.Log(MinTemperature), math.Log(MaxTemperature)
	phi := (math.Sqrt(5) - 1) / 2
	a, b := hi-phi*(hi-lo), lo+phi*(hi-lo)
	fa, fb := nll(math.Exp(a)), nll(math.Exp(b))
	for range 40 {
		if fa <= fb {
			hi, b, fb = b, a, fa
			a = hi - phi*(hi-lo)
			fa = nll(math.Exp(a))
		} else {
			lo, a, fa = a, b, fb
			b = lo + phi*(hi-lo)
			fb = nll(math.Exp(b))
		}
	}
	if failed != nil {
		return failed
	}
	best, fbest := math.Exp(a), fa
	if fb < fa {
		best, fbest = math.Exp(b), fb
	}
	f1 := nll(1)
	if failed != nil {
		return failed
	}
	if !(fbest < f1) {
		best, fbest = 1, f1
	}
	if by == CalibrateByDepth {
		return m.fitDepth(ctx, ms, rows, best, f1)
	}
	m.temp = best
	m.info.Temperature, m.info.CalibrateBy, m.info.CalibrateRows = best, CalibrateByNLL, rows
	m.info.ValNLLBefore, m.info.ValNLLAfter = f1-lr, fbest-lr
	m.info.ValPITBefore, m.info.ValPITAfter = 0, 0
	if by == CalibrateByIsotonic {
		return m.fitIsotonic(ctx, x, rows, y, fbest-lr)
	}
	return nil
}

// ctxPITs is pits, failing with ctx.Err() once ctx is done.
func ctxPITs(ctx context.Context, pits func(t float64) ([]float64, error)) func(t float64) ([]float64, error) {
	return func(t float64) ([]float64, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return pits(t)
	}
}

// fitIsotonic fits CalibrateByIsotonic's map on rows x with targets y to
// their PIT values under m's temperature (fitted by NLL: nllT is their
// mean NLL there, in u units), and records it in m's TrainInfo: the
// validation NLL after the map (the mean of -log R'(p_i) added), and the
// PIT error at temperature 1 and after the map (in-sample).
func (m *Model) fitIsotonic(ctx context.Context, x []float64, rows int, y []float64, nllT float64) error {
	pits, err := m.pitObjective(ctx, x, rows, y)
	if err != nil {
		return err
	}
	pits = ctxPITs(ctx, pits)
	p1, err := pits(1)
	if err != nil {
		return err
	}
	pt, err := pits(m.Temperature())
	if err != nil {
		return err
	}
	rc, err := dist.FitRecalibration(pt, IsotonicSegments, IsotonicFloor)
	if err != nil {
		return configErr("CalibrateBy", "%v", err)
	}
	after := make([]float64, rows)
	nll := nllT
	for i, p := range pt {
		after[i] = rc.Map(p)
		nll -= rc.LogSlope(p) / float64(rows)
	}
	m.recal = rc
	m.info.CalibrateBy, m.info.ValNLLAfter = CalibrateByIsotonic, nll
	m.info.ValPITBefore, m.info.ValPITAfter = metrics.PITError(p1), metrics.PITError(after)
	m.info.IsotonicSegments, m.info.IsotonicWeight = IsotonicSegments, isotonicWeight(rows)
	return nil
}

// isotonicWeight is the identity's weight in the map fitted on n rows.
func isotonicWeight(n int) float64 {
	return max(IsotonicFloor, dist.RecalibrationPrior/(float64(n)+dist.RecalibrationPrior))
}

// tempObjective returns the function calibrate minimises: the mean NLL
// (per unit of y) of rows x with targets y under m's distributions at
// temperature t, as nllAt computes it (an ensemble's mixture too), but
// with each decoder member's logits along the targets' sequences computed
// once, by objectiveMembers (ms), so that each temperature costs no
// decoding.
func (m *Model) tempObjective(ms []objMember, x []float64, rows int, y []float64) func(t float64) (float64, error) {
	return func(t float64) (float64, error) {
		per := make([][]float64, len(ms))
		for k, mm := range ms {
			if mm.levLP != nil {
				per[k] = make([]float64, rows)
				for i, f := range mm.levLP {
					lp := 0.0
					for lev := range mm.levels {
						lp += f(lev, 1/t)
					}
					per[k][i] = -lp + mm.logW[i]
				}
				continue
			}
			c := *mm.mk
			c.temp = t
			ds, err := c.memberDists(context.Background(), x, rows, dist.TokenOptions{})
			if errors.Is(err, head.ErrOutput) {
				// A row's distribution at t is beyond float64 (an MDN
				// widened on a huge target range): not this temperature.
				return math.Inf(1), nil
			}
			if err != nil {
				return math.NaN(), err
			}
			per[k] = c.nllU(ds, mm.tg, y)
		}
		return m.mixtureNLL(per), nil
	}
}

// objMember is one member of a model in the calibration objectives: an
// uncalibrated copy, its targets' encoding, and for a decoder its logits
// along the targets' sequences (dist.Token.LevelLogProbAt), once.
type objMember struct {
	mk     *Model
	tg     *head.Targets
	levels int                                   // decoder: tokens per sequence
	levLP  []func(lev int, invT float64) float64 // decoder: per row
	logW   []float64                             // decoder: per row, the cell's log width in u
}

// objectiveMembers returns m's members for the calibration objectives on
// rows x with targets y (see objMember). The decoding (a pass of the
// decoder per row and member) stops between rows once ctx is done,
// returning ctx.Err().
func (m *Model) objectiveMembers(ctx context.Context, x []float64, rows int, y []float64) ([]objMember, error) {
	members := m.Members()
	ms := make([]objMember, len(members))
	for k, mk := range members {
		one := *mk
		one.temp, one.depthT = 1, nil
		tg, err := head.Encode(&one.net.Cfg, one.units, y)
		if err != nil {
			return nil, err
		}
		ms[k] = objMember{mk: &one, tg: tg}
		if one.cfg.Head != HeadDecoder {
			continue
		}
		ds, err := one.memberDists(ctx, x, rows, dist.TokenOptions{})
		if err != nil {
			return nil, err
		}
		seq := make([]int, tg.T)
		ms[k].levels = tg.T
		ms[k].levLP = make([]func(int, float64) float64, rows)
		ms[k].logW = make([]float64, rows)
		for i, d := range ds {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			for j := range seq {
				seq[j] = int(tg.Tokens[i*tg.T+j])
			}
			ms[k].levLP[i] = d.(*dist.Token).LevelLogProbAt(seq)
			ms[k].logW[i] = tg.LogWidthU(i)
		}
	}
	return ms, nil
}

// mixtureNLL is the mean NLL per unit of y of the equal mixture of the
// members whose NLLs per row, in u units, per holds (per[k][i]).
func (m *Model) mixtureNLL(per [][]float64) float64 {
	if len(per) == 0 || len(per[0]) == 0 {
		return math.NaN()
	}
	all := make([]int, len(per))
	for k := range all {
		all[k] = k
	}
	return mixtureNLL(per, all) + m.units.LogRange()
}

// depthSweeps bounds CalibrateByDepth's sweeps over the depths (one
// suffices for a single decoder, whose NLL is separable in the depths).
const depthSweeps = 4

// fitDepth sets the decoder m's temperatures per token depth
// (CalibrateByDepth) on the rows whose objective members are ms, starting
// from the NLL objective's temperature t0 at every depth (f1 is their NLL
// at temperature 1, per unit of y), and records the fit in m's TrainInfo.
// ctx is checked before each depth's search.
func (m *Model) fitDepth(ctx context.Context, ms []objMember, rows int, t0, f1 float64) error {
	depth := 0
	for _, mm := range ms {
		if mm.levLP == nil {
			return configErr("CalibrateBy", "the depth objective needs the decoder head, have %s", mm.mk.cfg.Head)
		}
		depth = max(depth, mm.levels)
	}
	// lp[k][i][lev]: member k's log probability of row i's token at lev,
	// at the current temperatures ts.
	ts := make([]float64, depth)
	for d := range ts {
		ts[d] = t0
	}
	lp := make([][][]float64, len(ms))
	per := make([][]float64, len(ms)) // per[k][i]: member k's NLL of row i in u units
	for k, mm := range ms {
		lp[k] = make([][]float64, rows)
		per[k] = make([]float64, rows)
		for i, f := range mm.levLP {
			lp[k][i] = make([]float64, mm.levels)
			s := 0.0
			for lev := range mm.levels {
				lp[k][i][lev] = f(lev, 1/t0)
				s += lp[k][i][lev]
			}
			per[k][i] = -s + mm.logW[i]
		}
	}
	cur := m.mixtureNLL(per)
	// at evaluates the NLL with depth d at temperature t, the others as
	// they are (per is left as it is).
	trial := make([][]float64, len(ms))
	for k := range trial {
		trial[k] = make([]float64, rows)
	}
	at := func(d int, t float64) float64 {
		for k, mm := range ms {
			for i, f := range mm.levLP {
				trial[k][i] = per[k][i]
				if d < mm.levels {
					trial[k][i] += lp[k][i][d] - f(d, 1/t)
				}
			}
		}
		return m.mixtureNLL(trial)
	}
	// No depth sharper than both the model (1) and the one temperature
	// (t0): on the few rows calibration has, sharpening a digit the model
	// is already sure of gains little and costs a rare target whose digit
	// it gets wrong dearly (wine, whose targets sit on six values, lost 9
	// nats of test NLL to temperatures of 0.05 before this floor).
	lo, hi := math.Log(min(1, t0)), math.Log(MaxTemperature)
	for sweep := range depthSweeps {
		start := cur
		for d := range depth {
			if err := ctx.Err(); err != nil {
				return err
			}
			logT, fbest := vec.GoldenMin(func(logT float64) float64 { return at(d, math.Exp(logT)) }, lo, hi, 40)
			best := math.Exp(logT)
			if !(fbest < cur) {
				continue // the search's bracket missed the current value's
			}
			ts[d], cur = best, fbest
			for k, mm := range ms {
				if d >= mm.levels {
					continue
				}
				for i, f := range mm.levLP {
					v := f(d, 1/best)
					per[k][i] += lp[k][i][d] - v
					lp[k][i][d] = v
				}
			}
		}
		if len(ms) == 1 && sweep == 0 || !(cur < start-1e-9) {
			break // separable, or no longer improving
		}
	}
	lr := m.units.LogRange()
	m.temp, m.depthT = 0, ts
	m.info.Temperature, m.info.DepthTemperatures, m.info.CalibrateBy, m.info.CalibrateRows = 0, slices.Clone(ts), CalibrateByDepth, rows
	m.info.ValNLLBefore, m.info.ValNLLAfter = f1-lr, cur-lr
	m.info.ValPITBefore, m.info.ValPITAfter = 0, 0
	return nil
}

// nllAt is the mean NLL (per unit of y) of rows x with targets y (encoded
// as tg) under m's distributions at temperature t.
func (m *Model) nllAt(t float64, x []float64, rows int, y []float64, tg *head.Targets) (float64, error) {
	c := *m
	c.temp, c.recal, c.depthT = t, nil, nil
	ds, err := c.dists(context.Background(), x, rows, dist.TokenOptions{})
	if err != nil {
		return math.NaN(), err
	}
	var nll []float64
	if len(c.others) > 0 {
		if nll, _, err = c.ensembleNLLU(ds, x, rows, y); err != nil {
			return math.NaN(), err
		}
	} else {
		nll = c.nllU(ds, tg, y)
	}
	s := 0.0
	for _, v := range nll {
		s += v
	}
	return s/float64(rows) + c.units.LogRange(), nil
}

// nllU returns each row's NLL in u units under ds, m's distributions of
// the rows (at any temperature), scoring the cell the training forward
// scores (head.RowNLL): for a decoder the token sequence head.Encode gives
// the target (clipped to the range), -log P(sequence) plus the cell's log
// width; for the other heads the log-density at the target clipped to the
// range, a hair inside its edges.
func (m *Model) nllU(ds []dist.Distribution, tg *head.Targets, y []float64) []float64 {
	out := make([]float64, len(ds))
	if m.cfg.Head == HeadDecoder {
		seq := make([]int, tg.T)
		for i, d := range ds {
			for k := range seq {
				seq[k] = int(tg.Tokens[i*tg.T+k])
			}
			out[i] = -d.(*dist.Token).LogProbSeq(seq) + tg.LogWidthU(i)
		}
		return out
	}
	lr := m.units.LogRange()
	for i, d := range ds {
		out[i] = -d.LogPDF(m.clipY(y[i])) - lr
	}
	return out
}

// clipY clips y into the training range, a hair inside its edges (where a
// tokenization's last cell may end open).
func (m *Model) clipY(y float64) float64 {
	lo, hi := m.YRange()
	eps := 1e-9 * (hi - lo)
	return min(max(y, lo+eps), hi-eps)
}
