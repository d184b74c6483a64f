package decoreg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"decoreg/data"
	"decoreg/internal/gemm"
	"decoreg/internal/head"
	"decoreg/internal/train"
	"decoreg/vocab"
)

// Fit trains a model on the rows of X (each of the same length) and their
// targets y. See FitFlat.
func Fit(ctx context.Context, X [][]float64, y []float64, cfg Config, opts ...FitOption) (*Model, error) {
	if len(X) == 0 {
		return nil, fmt.Errorf("%w: no rows", ErrTooFewRows)
	}
	d := len(X[0])
	flat := make([]float64, 0, len(X)*d)
	for i, row := range X {
		if len(row) != d {
			return nil, dataErr(i, -1, ErrBadInput, "the row has %d features, row 0 has %d", len(row), d)
		}
		flat = append(flat, row...)
	}
	return FitFlat(ctx, flat, len(X), d, y, cfg, opts...)
}

// FitFlat trains a model on rows x (rows x cols, row-major) and targets y.
//
// It standardises x and min-max scales y with the statistics of all the
// given rows, holds out cfg.ValFrac of them (shuffled by cfg.Seed) for early
// stopping, and trains with Adam on shuffled mini-batches until the
// validation loss has not improved for cfg.Patience epochs or cfg.MaxEpochs
// is reached; the best weights are kept. The validation loss is the NLL in
// normalized units (MSE for the pointwise head).
//
// Data it cannot train on gives a *DataError naming the row or column (NaN
// or infinite values, a feature whose mean or spread overflows float64,
// targets whose range y_max - y_min overflows float64, a constant target).
// When ctx is cancelled, FitFlat stops at the next mini-batch and returns
// the best model so far together with an error wrapping ctx.Err(); callers
// may save that model. A nil ctx is context.Background(). A NaN or Inf
// loss stops training with ErrDiverged and no model.
func FitFlat(ctx context.Context, x []float64, rows, cols int, y []float64, cfg Config, opts ...FitOption) (*Model, error) {
	start := time.Now()
	var o fitOptions
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}

	ctx = orBackground(ctx)
	cfg = DefaultConfig(cfg)
	if _, err := cfg.validateTrain(); err != nil {
		return nil, err
	}
	if err := seedRoom(cfg.Seed, cfg.Ensemble); err != nil {
		return nil, err
	}
	if cfg.Calibrate {
		if err := checkCalibrationRows(rows, cfg.ValFrac); err != nil {
			return nil, err
		}
	}
	if err := checkStopRows(rows, cfg); err != nil {
		return nil, err
	}
	if sizesOK(x, rows, cols, y) { // else prepare says what is wrong
		p := cfg.approxParams() + cfg.inputParams(cols)
		if err := checkMemory(trainBytes(cfg, p, rows, cols), fmt.Sprintf("training (%.3g parameters)", p)); err != nil {
			return nil, err
		}
	}
	n := max(cfg.Ensemble, 1)
	var members []*Model
	for k := range n {
		mk, err := fitMember(ctx, x, rows, cols, y, cfg, k, &o, start)
		if mk != nil {
			members = append(members, mk)
		}
		if err != nil {
			if ctx.Err() == nil || len(members) == 0 {
				return nil, err
			}
			if n == 1 {
				return members[0], err
			}
			m, eerr := NewEnsemble(members...)
			if eerr != nil {
				return nil, eerr
			}
			m.info.Seconds = since(start)
			m.info.Stopped = "cancelled"

			return m, wrapIn(fmt.Sprintf("ensemble member %d of %d", k+1, n), fmt.Sprintf(" (keeping %d member(s))", len(members)), err)
		}
	}
	m := members[0]
	if n > 1 {
		var err error
		if m, err = NewEnsemble(members...); err != nil {
			return nil, err
		}
	}
	if cfg.Calibrate {
		val, _ := train.Split(rows, cfg.ValFrac, cfg.Seed)
		if err := m.calibrate(ctx, x, cols, y, val, cfg.CalibrateBy); err != nil {
			if ctx.Err() == nil {
				return nil, err
			}
			// Trained, then cancelled while calibrating: the model, not
			// calibrated.
			m.info.Seconds = since(start)
			return m, &inContext{
				msg:  "decoreg: training ended, then " + strings.TrimPrefix(ErrCalibrationCancelled.Error(), "decoreg: ") + ": " + ctx.Err().Error(),
				errs: []error{ErrCalibrationCancelled, ctx.Err()},
			}
		}
	}
	m.info.Seconds = since(start)
	return m, nil
}

// fitMember trains member k of cfg.Ensemble (k = 0 for a single model)
// with seed cfg.Seed + k, holding out the validation rows of cfg.Seed;
// cfg is defaulted and valid. On cancellation it returns the best model
// so far (nil before the first epoch ended) and an error wrapping
// ctx.Err().
func fitMember(ctx context.Context, x []float64, rows, cols int, y []float64, cfg Config, k int, o *fitOptions, start time.Time) (*Model, error) {
	split := cfg.Seed
	cfg.Seed += uint64(k)
	m, tg, xs, err := prepare(x, rows, cols, y, cfg, o.pretrain)
	if err != nil {
		return nil, err
	}
	tg.SetResolution(o.resolution)
	var pre *PretrainInfo
	if cfg.Pretrain != "" {
		if pre, err = pretrainEncoder(ctx, m, x, rows, cols, y, cfg, split, k, o, start); err != nil {
			return nil, err
		}
	}
	run := train.Prepare(m.net, tg, xs, rows, m.inWidth(), train.Settings{
		LR: cfg.LR, WeightDecay: cfg.WeightDecay, AdamW: cfg.AdamW, EMA: cfg.EMA, BatchSize: cfg.BatchSize,
		MaxEpochs: cfg.MaxEpochs, Patience: cfg.Patience, LRDrops: cfg.LRDrops, LRDropFactor: cfg.LRDropFactor, ValFrac: cfg.ValFrac, Seed: cfg.Seed,
		SplitSeed: split, OwnSplit: k > 0, DepthTemps: cfg.depthTemps(),
		Score: cfg.stopScore(ctx, m, x, cols, y), FreezeEncoder: cfg.Pretrain != "",
	})
	var onEpoch func(train.Epoch)
	if o.progress != nil {
		members := max(cfg.Ensemble, 1)
		if o.members > 0 {
			members = o.members
		}
		onEpoch = func(e train.Epoch) {
			o.progress(Progress{Epoch: e.N, MaxEpochs: cfg.MaxEpochs, TrainLoss: e.TrainLoss, ValLoss: e.ValLoss, Best: e.Best,
				Elapsed: time.Since(start), Member: k, Members: members})
		}
	}
	res, err := run.Loop(ctx, onEpoch)
	if err != nil && ctx.Err() == nil {
		return nil, err
	}
	// Trained (the best epoch's weights restored): from here the model
	// only predicts, so its layers' weights are packed once.
	m.net.Freeze()
	m.info = TrainInfo{
		Rows: rows, ValRows: res.ValRows, Features: cols, Params: m.net.NumParams(),
		Epochs: res.Epochs, BestEpoch: res.BestEpoch, BestValLoss: res.BestValLoss, Stopped: res.Stopped, LRDrops: res.LRDrops,
		Seconds: since(start), Kernel: gemm.Kernel(), Threads: m.net.Threads(), Version: Version,
		Created: time.Now().UTC().Format(time.RFC3339), Pretrain: pre,
	}
	if err != nil {
		if res.BestEpoch == 0 {
			return nil, fmt.Errorf("decoreg: training cancelled before the first epoch ended: %w", err)
		}
		return m, fmt.Errorf("decoreg: training cancelled after %d epoch(s) (keeping epoch %d): %w", res.Epochs, res.BestEpoch, err)
	}
	return m, nil
}

// pretrainConfig is the config of cfg's first stage (Config.Pretrain):
// the pointwise head on cfg's encoder, input transform and training
// settings, without the settings of the other heads, early stopping's
// other scores, calibration or an ensemble.
func pretrainConfig(cfg Config) Config {
	pc := cfg
	pc.Head, pc.Pretrain = HeadPointwise, ""
	pc.Vocab, pc.RawTarget, pc.UnmaskedLoss, pc.AuxMSE, pc.SoftTargets, pc.Unbounded = "", false, false, 0, 0, false
	pc.DecLayers, pc.DecWidth, pc.DecHeads, pc.Bins, pc.Components = 0, 0, 0, 0, 0
	pc.StopBy, pc.Calibrate, pc.CalibrateBy, pc.Ensemble = "", false, "", 0
	return DefaultConfig(pc)
}

// pretrainEncoder is Config.Pretrain's first stage for member k of cfg
// (cfg.Seed the member's, split the validation rows' seed): it trains
// the pointwise head on cfg's encoder as fitMember trains a member, on
// the same validation rows, and copies the trained encoder into m. Its
// progress is reported with Progress.Pretrain, as member k of cfg's
// members, with Elapsed from start. Cancelled, it returns an error
// wrapping ErrPretrainCancelled and ctx.Err(), and no result.
func pretrainEncoder(ctx context.Context, m *Model, x []float64, rows, cols int, y []float64, cfg Config, split uint64, k int, o *fitOptions, start time.Time) (*PretrainInfo, error) {
	pc := pretrainConfig(cfg)
	pc.Seed = split // fitMember adds k
	po := *o
	po.pretrain = true
	if po.members == 0 {
		po.members = max(cfg.Ensemble, 1) // pc has none: the progress counts cfg's members
	}
	if o.progress != nil {
		po.progress = func(p Progress) {
			p.Pretrain = true
			o.progress(p)
		}
	}
	pm, err := fitMember(ctx, x, rows, cols, y, pc, k, &po, start)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: %w", ErrPretrainCancelled, ctx.Err())
		}
		return nil, fmt.Errorf("pretraining the encoder (Config.Pretrain %s): %w", cfg.Pretrain, err)
	}
	if err := m.net.CopyEncoder(pm.net); err != nil {
		return nil, err
	}
	in := pm.info
	return &PretrainInfo{Epochs: in.Epochs, BestEpoch: in.BestEpoch, BestValLoss: in.BestValLoss, Stopped: in.Stopped, Seconds: in.Seconds}, nil
}

// prepare checks a defaulted cfg and the data, and makes the untrained
// model, its training targets and the standardized features.
func prepare(x []float64, rows, cols int, y []float64, cfg Config, pretrain bool) (*Model, *head.Targets, []float32, error) {
	tok, err := cfg.validateTrain()
	if err != nil {
		return nil, nil, nil, err
	}
	if rows < 1 {
		return nil, nil, nil, fmt.Errorf("%w: %d rows of %d features", ErrTooFewRows, rows, cols)
	}
	if cols < 1 {
		return nil, nil, nil, fmt.Errorf("%w: no feature columns (cols is %d): a model needs at least 1 feature", ErrBadInput, cols)
	}
	if nVal := train.ValRows(rows, cfg.ValFrac); nVal > 0 && rows-nVal < 1 {
		return nil, nil, nil, fmt.Errorf("%w: ValFrac %v of %d row(s) holds out %d for validation, leaving none to train on (or set ValFrac < 0)", ErrTooFewRows, cfg.ValFrac, rows, nVal)
	}
	yMin, yMax, err := checkData(x, rows, cols, y, cfg, pretrain)
	if err != nil {
		return nil, nil, nil, err
	}
	if cfg.InputTransform != data.TransformPLE { // ple's width is known once it is fitted
		if err := cfg.checkSize(cols, cols); err != nil {
			return nil, nil, nil, err
		}
	}
	st := data.FitStandardizer(x, cols)
	for j := range cols {
		if math.IsInf(st.Mean[j], 0) || math.IsNaN(st.Mean[j]) || math.IsInf(st.Std[j], 0) || math.IsNaN(st.Std[j]) {
			return nil, nil, nil, dataErr(-1, j, ErrBadInput, "the feature's values span too wide a range: their mean or standard deviation overflows float64 (mean %v, sd %v)", st.Mean[j], st.Std[j])
		}
	}
	center, scale := st.Mean, st.Std
	if cfg.InputTransform == data.TransformRobust {
		center, scale = data.FitRobust(x, cols)
	}
	// A finite mean and sd can still leave x - center beyond float64 (values
	// near both ends of its range around an off-centre mean): the inputs
	// would become infinite.
	lo, hi := make([]float64, cols), make([]float64, cols)
	copy(lo, x[:cols])
	copy(hi, x[:cols])
	for i := 1; i < rows; i++ {
		for j, v := range x[i*cols : (i+1)*cols] {
			lo[j], hi[j] = min(lo[j], v), max(hi[j], v)
		}
	}
	for j := range cols {
		if a, b := (lo[j]-center[j])/scale[j], (hi[j]-center[j])/scale[j]; math.IsInf(a, 0) || math.IsInf(b, 0) {
			return nil, nil, nil, dataErr(-1, j, ErrBadInput, "the feature's values span too wide a range: a value minus their centre (%v) overflows float64", center[j])
		}
	}
	var ple *pleStats
	if cfg.InputTransform == data.TransformPLE {
		if ple, err = fitPLE(x, rows, cols, cfg.PLEBins); err != nil {
			return nil, nil, nil, err
		}
		if err := cfg.checkSize(cols, len(ple.mean)); err != nil {
			return nil, nil, nil, err
		}
	}
	m, err := newModel(cfg, tok, center, scale, ple, yMin, yMax, cfg.Seed, endsCutRule)
	if err != nil {
		return nil, nil, nil, err
	}
	if cfg.InputTransform == data.TransformQuantile {
		m.xKnots = data.FitQuantiles(x, cols)
	}
	tg, err := head.Encode(&m.net.Cfg, m.units, y)
	if err != nil {
		var re *head.RowError
		if errors.As(err, &re) {
			return nil, nil, nil, dataErr(re.Row, -1, ErrBadInput, "target %v: %v", y[re.Row], re.Err)
		}
		return nil, nil, nil, err
	}
	if tg.Clamped > 0 {
		i := tg.FirstClamped
		where := ""
		if tr, ok := m.net.Cfg.Vocab.(vocab.Tree); ok {
			lo, hi := tr.Interval(nil)
			aff := m.units.Affine()
			ylo, yhi := aff.Offset+aff.Scale*lo, aff.Offset+aff.Scale*hi
			where = fmt.Sprintf(", [%v, %v]", ylo, yhi)
			// An unnormalized tokenization's ends need not be its values
			// (the largest it writes is below base^(base^exponent)):
			// "beyond [0, 4]" of 4 read as a contradiction.
			switch y[i] {
			case yhi:
				where = fmt.Sprintf(", [%v, %v), whose top end is not in it", ylo, yhi)
			case ylo:
				where = fmt.Sprintf(", (%v, %v], whose bottom end is not in it", ylo, yhi)
			}
		}
		advice := "give it more exponent digits"
		if cfg.RawTarget {
			advice += ", or train without the raw target (--raw-target, Config.RawTarget) to scale the targets into its range"
		}
		return nil, nil, nil, dataErr(i, -1, errBeyondTokenization, "the target %v lies beyond the range that the tokenization %s represents%s (%d of the %d targets do; it would encode them as its extreme cells): %s",
			y[i], m.net.Cfg.Vocab.Spec(), where, tg.Clamped, rows, advice)
	}
	xs := make([]float32, rows*m.inWidth())
	if err := m.standardize(xs, x, rows); err != nil {
		return nil, nil, nil, err
	}
	return m, tg, xs, nil
}

// checkData checks training rows x (rows x cols, at least one of each)
// and targets y and returns the target range: cfg's fixed range, which
// every target must lie in, or else the targets' min and max.
func checkData(x []float64, rows, cols int, y []float64, cfg Config, pretrain bool) (yMin, yMax float64, err error) {
	if !shapeOK(len(x), rows, cols) || len(y) != rows {
		return 0, 0, fmt.Errorf("%w: %d feature values and %d targets for %d rows of %d features", ErrBadInput, len(x), len(y), rows, cols)
	}
	if err := checkFinite(x, cols); err != nil {
		return 0, 0, err
	}
	yMin, yMax = math.Inf(1), math.Inf(-1)
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, 0, dataErr(i, -1, ErrBadInput, "the target is %v", v)
		}
		yMin, yMax = min(yMin, v), max(yMax, v)
	}
	if cfg.FixedRange() {
		for i, v := range y {
			if v < cfg.TargetMin || v > cfg.TargetMax {
				return 0, 0, dataErr(i, -1, ErrBadInput, "the target %v is outside the fixed range [%v, %v] (Config.TargetMin, TargetMax)", v, cfg.TargetMin, cfg.TargetMax)
			}
		}
		return cfg.TargetMin, cfg.TargetMax, headRange(cfg, cfg.TargetMin, cfg.TargetMax, pretrain)
	}
	if !(yMax > yMin) {
		return 0, 0, dataErr(-1, -1, ErrConstantTarget, "the training target is constant (every one of the %d targets is %v)", rows, y[0])
	}
	if math.IsInf(yMax-yMin, 0) {
		return 0, 0, dataErr(-1, -1, ErrBadInput, "the target's range y_max - y_min = %v - (%v) overflows float64", yMax, yMin)
	}
	if r := yMax - yMin; r < minTargetRange {
		return 0, 0, dataErr(-1, -1, ErrBadInput, "the target's range y_max - y_min = %v is below float64's normal numbers (%v): rescale the target", r, minTargetRange)
	}
	return yMin, yMax, headRange(cfg, yMin, yMax, pretrain)
}

// mdnRangeWidths is how many widths of its target range beyond the range an
// MDN's Gaussians must be able to reach in y units and stay finite: a
// component's mean plus one sd, in units of the range, is up to about 1.5
// for a small network trained a few epochs, less once trained ([0,
// 1.7e308] gave an sd of 0.8 widths, and no usable model; with 1 width, a
// review saw [0, 9e307] fail for a 1 x 4 encoder on 6 of 6 seeds; at 3,
// [0, 4.49e307] predicted for 8 of 8 seeds, 2026-12-06).
const mdnRangeWidths = 3

// pointwiseRangeWidths is the same for the pointwise head's prediction,
// a linear output in units of the range, which stays within a small part
// of a width beyond it once trained: targets with a third of them at
// float64's largest number gave a model whose predictions for training
// rows a little above the centre were +Inf in y units, refused row by
// row as the model's fault (review, 2026-12-07).
const pointwiseRangeWidths = 1

// headRange refuses, for the MDN and pointwise heads, a target range
// [lo, hi] whose predictions could not be expressed in y units:
// max(|lo|, |hi|) plus the head's widths of the range overflows float64.
// Such a model trained, and then its distributions (an MDN on targets
// spread over [0, 1.7e308]: every command that loaded it failed) or its
// predictions for rows like the training data (pointwise) overflowed.
// Other heads keep their distributions within the range's cells or bins;
// the pointwise stage that pretrains an encoder (pretrain) predicts in
// units of the range only.
func headRange(cfg Config, lo, hi float64, pretrain bool) error {
	widths := 0
	switch {
	case cfg.Head == HeadMDN:
		widths = mdnRangeWidths
	case cfg.Head == HeadPointwise && !pretrain:
		widths = pointwiseRangeWidths
	default:
		return nil
	}
	if math.IsInf(max(math.Abs(lo), math.Abs(hi))+float64(widths)*(hi-lo), 0) {
		what, advice := "target range", "rescale the target (divide it by 1e10, say), or use another head"
		if cfg.FixedRange() {
			what, advice = "fixed target range (Config.TargetMin, TargetMax)", "give a narrower one, or rescale the target, or use another head"
		}
		reach := "its Gaussians"
		if cfg.Head == HeadPointwise {
			reach = "its predictions"
		}
		return dataErr(-1, -1, ErrBadInput, "the %s [%v, %v] is too wide for the %s head: %s, in y units, would reach past float64's largest number (%v) within %d width(s) of the range; %s",
			what, lo, hi, cfg.Head, reach, math.MaxFloat64, widths, advice)
	}
	return nil
}

// checkFinite returns a *DataError for the first NaN or infinite feature
// of x (rows of cols values).
func checkFinite(x []float64, cols int) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return dataErr(i/cols, i%cols, ErrBadInput, "the feature is %v", v)
		}
	}
	return nil
}
