package decoreg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"decoreg/data"
	"decoreg/internal/gemm"
	imodel "decoreg/internal/model"
	"decoreg/internal/nn"
)

// Errors returned by Fit for data it cannot train on.
var (
	// ErrConstantTarget: every training target has the same value, so the
	// min-max scaling of y is undefined.
	ErrConstantTarget = errors.New("decoreg: the training target is constant")
	// ErrTooFewRows: too few rows to hold out a validation split (at least
	// 2 rows are needed unless Config.ValFrac < 0) or no rows at all.
	ErrTooFewRows = errors.New("decoreg: too few training rows")
	// ErrDiverged: the training loss became NaN or Inf.
	ErrDiverged = errors.New("decoreg: training diverged")
	// ErrBadInput: features or targets are malformed (wrong lengths, NaN
	// or Inf).
	ErrBadInput = errors.New("decoreg: bad input")
)

// Fit trains a model on the rows of X (each of the same length) and their
// targets y. See FitFlat.
func Fit(ctx context.Context, X [][]float64, y []float64, cfg Config) (*Model, error) {
	if len(X) == 0 {
		return nil, fmt.Errorf("%w: no rows", ErrTooFewRows)
	}
	d := len(X[0])
	flat := make([]float64, 0, len(X)*d)
	for i, row := range X {
		if len(row) != d {
			return nil, fmt.Errorf("%w: row %d has %d features, row 0 has %d", ErrBadInput, i, len(row), d)
		}
		flat = append(flat, row...)
	}
	return FitFlat(ctx, flat, len(X), d, y, cfg)
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
// When ctx is cancelled, FitFlat stops at the next mini-batch and returns
// the best model so far together with an error wrapping ctx.Err(); callers
// may save that model. A NaN or Inf loss stops training with ErrDiverged
// and no model.
func FitFlat(ctx context.Context, x []float64, rows, cols int, y []float64, cfg Config) (*Model, error) {
	start := time.Now()
	cfg = DefaultConfig(cfg)
	tok, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	if rows < 1 || cols < 1 {
		return nil, fmt.Errorf("%w: %d rows of %d features", ErrTooFewRows, rows, cols)
	}
	if len(x) != rows*cols || len(y) != rows {
		return nil, fmt.Errorf("%w: %d feature values and %d targets for %d rows of %d features", ErrBadInput, len(x), len(y), rows, cols)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: feature %d of row %d is %v", ErrBadInput, i%cols, i/cols, v)
		}
	}
	if cfg.ValFrac > 0 && rows < 2 {
		return nil, fmt.Errorf("%w: %d row cannot hold out a validation split (need at least 2; or set ValFrac < 0)", ErrTooFewRows, rows)
	}
	m := &Model{cfg: cfg, tok: tok, yMin: math.Inf(1), yMax: math.Inf(-1)}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: target of row %d is %v", ErrBadInput, i, v)
		}
		m.yMin = min(m.yMin, v)
		m.yMax = max(m.yMax, v)
	}
	if !(m.yMax > m.yMin) || math.IsInf(m.yMax-m.yMin, 0) {
		return nil, fmt.Errorf("%w (every one of the %d targets is %v)", ErrConstantTarget, rows, y[0])
	}
	m.tok = m.boundedVocab()
	st := data.FitStandardizer(x, cols)
	m.xMean, m.xStd = st.Mean, st.Std

	// Validation split.
	r := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	perm := r.Perm(rows)
	nVal := 0
	if cfg.ValFrac > 0 {
		nVal = max(1, int(math.Round(cfg.ValFrac*float64(rows))))
		if rows-nVal < 1 {
			return nil, fmt.Errorf("%w: %d rows cannot hold out a validation split (need at least 2; or set ValFrac < 0)", ErrTooFewRows, rows)
		}
	}
	valRows, trainRows := perm[:nVal], perm[nVal:]

	if cfg.Threads > 0 {
		gemm.SetThreads(cfg.Threads)
	}
	threads := gemm.Threads()

	tg, err := m.targets(y)
	if err != nil {
		return nil, err
	}
	net, err := imodel.New(m.netConfig(cols), cfg.Seed)
	if err != nil {
		return nil, &ConfigError{Field: "EncWidth", Err: err}
	}
	m.net = net

	xs := make([]float32, rows*cols)
	m.standardize(xs, x, rows)

	opt := nn.NewAdam(net.NumParams(), float32(cfg.LR))
	opt.WeightDecay = float32(cfg.WeightDecay)
	opt.Decoupled = cfg.AdamW

	bs := min(cfg.BatchSize, len(trainRows))
	batch := tg.newBatch(bs, cols)
	best := append([]float32(nil), net.Params()...)
	bestLoss, bestEpoch, stale := math.Inf(1), 0, 0
	stopped := "max-epochs"
	epoch := 0
	var cancelErr error
train:
	for epoch = 1; epoch <= cfg.MaxEpochs; epoch++ {
		r.Shuffle(len(trainRows), func(i, j int) { trainRows[i], trainRows[j] = trainRows[j], trainRows[i] })
		var sum float64
		var seen int
		for lo := 0; lo < len(trainRows); lo += bs {
			if err := ctx.Err(); err != nil {
				cancelErr = err
				stopped = "cancelled"
				break train
			}
			idx := trainRows[lo:min(lo+bs, len(trainRows))]
			tg.fill(batch, xs, cols, idx)
			net.ZeroGrad()
			loss := net.Forward(batch)
			if math.IsNaN(loss) || math.IsInf(loss, 0) {
				return nil, fmt.Errorf("%w: the loss is %v at epoch %d, batch %d (try a smaller learning rate)", ErrDiverged, loss, epoch, lo/bs+1)
			}
			net.Backward()
			opt.Step(net.Params(), net.Grads())
			sum += loss * float64(len(idx))
			if tg.head == HeadDecoder {
				// Report the decoder's loss as an NLL in u units, like the
				// validation loss: add each row's log cell width.
				for _, i := range idx {
					sum += tg.logW[i] - m.logTPerU()
				}
			}
			seen += len(idx)
		}
		trainLoss := sum / float64(seen)
		valLoss := math.NaN()
		improved := false
		if nVal > 0 {
			valLoss = m.meanLoss(tg, xs, cols, valRows)
			if math.IsNaN(valLoss) {
				return nil, fmt.Errorf("%w: the validation loss is NaN at epoch %d", ErrDiverged, epoch)
			}
			if valLoss < bestLoss {
				bestLoss, bestEpoch, stale, improved = valLoss, epoch, 0, true
				copy(best, net.Params())
			} else {
				stale++
			}
		} else {
			bestEpoch, improved = epoch, true
		}
		if cfg.Progress != nil {
			cfg.Progress(Progress{Epoch: epoch, MaxEpochs: cfg.MaxEpochs, TrainLoss: trainLoss, ValLoss: valLoss, Best: improved, Elapsed: time.Since(start)})
		}
		if nVal > 0 && stale >= cfg.Patience {
			stopped = "early-stopping"
			break
		}
	}
	if epoch > cfg.MaxEpochs {
		epoch = cfg.MaxEpochs
	}
	if nVal > 0 && bestEpoch > 0 {
		copy(net.Params(), best)
	}
	if math.IsInf(bestLoss, 0) {
		bestLoss = 0 // no validation split: nothing to report (JSON has no Inf)
	}
	m.info = TrainInfo{
		Rows: rows, ValRows: nVal, Features: cols, Params: net.NumParams(),
		Epochs: epoch, BestEpoch: bestEpoch, BestValLoss: bestLoss, Stopped: stopped,
		Seconds: since(start), Kernel: gemm.Kernel(), Threads: threads, Version: Version,
		Created: time.Now().UTC().Format(time.RFC3339),
	}
	if cancelErr != nil {
		if bestEpoch == 0 {
			return nil, fmt.Errorf("training cancelled before the first epoch ended: %w", cancelErr)
		}
		return m, fmt.Errorf("training cancelled at epoch %d (keeping epoch %d): %w", epoch, bestEpoch, cancelErr)
	}
	return m, nil
}

// netConfig is the internal network's configuration.
func (m *Model) netConfig(in int) imodel.Config {
	c := m.cfg
	nc := imodel.Config{In: in, EncLayers: c.EncLayers, EncWidth: c.EncWidth}
	switch c.Head {
	case HeadDecoder:
		nc.Head = imodel.Decoder
		nc.Vocab = m.tok
		nc.DecLayers, nc.DecWidth, nc.DecHeads, nc.DFF = c.DecLayers, c.DecWidth, c.DecHeads, c.DecWidth
		nc.MaskLoss = !c.UnmaskedLoss
	case HeadPointwise:
		nc.Head = imodel.Pointwise
		nc.Sigmoid = c.Sigmoid
	case HeadRiemann:
		nc.Head = imodel.Riemann
		nc.Bins = c.Bins
	case HeadMDN:
		nc.Head = imodel.MDN
		nc.Components = c.Components
	}
	return nc
}
