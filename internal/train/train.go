// Package train is decoreg's training loop: Prepare a run (validation
// split, optimizer, batch buffers), then one Epoch of shuffled Adam steps
// and one Validate at a time, or Loop for the whole early-stopped run.
// Everything that differs by head comes from package head.
package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"decoreg/internal/head"
	"decoreg/internal/model"
	"decoreg/internal/nn"
	"decoreg/internal/par"
	"decoreg/internal/rng"
)

// ErrDiverged is returned when a loss becomes NaN or Inf.
var ErrDiverged = errors.New("decoreg: training diverged")

// Settings are a run's optimisation settings (defaults already applied).
type Settings struct {
	LR, WeightDecay float64
	AdamW           bool // decoupled weight decay
	BatchSize       int
	MaxEpochs       int
	Patience        int     // epochs without a better validation loss before stopping
	ValFrac         float64 // fraction of rows held out; <= 0: none
	Seed            uint64  // shuffles the split and the batches
	// SplitSeed, when OwnSplit is set, shuffles the split instead of Seed,
	// so that runs with different Seeds (an ensemble's members) hold out
	// the same validation rows.
	SplitSeed uint64
	OwnSplit  bool
	// EMA, in (0, 1), is the decay of a moving average of the weights
	// updated after every optimizer step: avg_t = (d c_{t-1} avg_{t-1} +
	// (1-d) w_t) / c_t with c_t = 1 - d^t, the exponential average
	// bias-corrected as Adam's moments are (so the first steps are not
	// pulled to the initial weights). Validation, early stopping and the
	// kept weights are the average's; training steps go on from the raw
	// weights. 0: none.
	EMA float64
	// LRDrops is the number of times the learning rate is multiplied by
	// LRDropFactor, in (0, 1), when early stopping would otherwise stop
	// (Patience epochs without a better validation loss): the patience
	// starts again, from the current weights and Adam's moments, and the
	// run stops at the plateau after the last drop, or at MaxEpochs. The
	// cut scales every step, AdamW's decoupled decay too. 0: none (the run
	// stops at the first plateau).
	LRDrops      int
	LRDropFactor float64
	// DepthTemps, when its upper end is above 0, makes a decoder's
	// validation loss its NLL at the temperatures per token depth fitted
	// on the validation rows themselves within [DepthTemps[0],
	// DepthTemps[1]] (head.DepthScores.Fit, with its floor), so that early stopping
	// keeps the epoch whose distribution is best once calibrated per
	// depth.
	DepthTemps [2]float64
	// Score, when not nil (and DepthTemps unset), is the validation loss
	// in place of the mean NLL: it scores the current weights on the
	// validation rows val (the indices into the rows given to Prepare) and
	// returns a loss to minimise; NaN or an infinity (the network's
	// outputs overflowed) is a divergence, as a NaN NLL is.
	Score func(val []int) float64
	// FreezeEncoder trains the head alone: the encoder's parameters (the
	// leading model.Model.EncoderParams of the arena) keep their values,
	// have no optimizer state and get no gradients computed
	// (model.Model.SetEncoderFrozen, for the run).
	FreezeEncoder bool
}

// Split returns the validation and training rows Prepare holds out and
// trains on for rows rows, validation fraction valFrac and split seed seed
// (Settings.Seed, or SplitSeed with OwnSplit).
func Split(rows int, valFrac float64, seed uint64) (val, train []int) {
	perm := rand.New(rand.NewPCG(seed, 0x5eed)).Perm(rows)
	nVal := ValRows(rows, valFrac)
	return perm[:nVal], perm[nVal:]
}

// ValRows is the number of validation rows held out of rows: none for
// valFrac <= 0, else at least 1.
func ValRows(rows int, valFrac float64) int {
	if valFrac <= 0 {
		return 0
	}
	return max(1, int(math.Round(valFrac*float64(rows))))
}

// Run is one training run.
type Run struct {
	net  *model.Model
	tg   *head.Targets
	xs   []float32 // (rows, cols) standardized features
	cols int
	s    Settings

	r          *rand.Rand
	val, train []int
	opt        *nn.Adam
	bs         int
	batch      *model.Batch

	epoch     int // epochs finished
	best      []float32
	bestLoss  float64
	bestEpoch int
	stale     int
	ended     string // why the run ended ("" while it may go on)

	ema   []float32 // the weights' moving average (Settings.EMA), else nil
	steps int       // optimizer steps taken, for the average's bias correction
	drops int       // learning-rate drops made (Settings.LRDrops)
	// frozen is the number of leading parameters not trained (the
	// encoder's, with Settings.FreezeEncoder), else 0.
	frozen int
}

// Prepare sets up a run of net on the standardized features xs (rows x
// cols) and targets tg: it shuffles the rows with s.Seed, holds out
// ValRows of them for validation, and makes the optimizer. There must be
// at least one training row left (the caller checks ValRows).
func Prepare(net *model.Model, tg *head.Targets, xs []float32, rows, cols int, s Settings) *Run {
	r := rand.New(rand.NewPCG(s.Seed, 0x5eed))
	var perm []int
	if s.OwnSplit {
		perm = rand.New(rand.NewPCG(s.SplitSeed, 0x5eed)).Perm(rows)
	} else {
		perm = r.Perm(rows) // the same stream then shuffles the batches
	}
	nVal := ValRows(rows, s.ValFrac)
	t := &Run{net: net, tg: tg, xs: xs, cols: cols, s: s, r: r, val: perm[:nVal], train: perm[nVal:]}
	if s.FreezeEncoder {
		t.frozen = net.EncoderParams()
		net.SetEncoderFrozen(true)
	}
	t.opt = nn.NewAdam(net.NumParams()-t.frozen, float32(s.LR))
	t.opt.WeightDecay = float32(s.WeightDecay)
	t.opt.Decoupled = s.AdamW
	t.bs = min(s.BatchSize, len(t.train))
	t.batch = tg.NewBatch(t.bs, cols)
	t.best = append([]float32(nil), net.Params()...)
	t.bestLoss = math.Inf(1)
	if s.EMA > 0 {
		t.ema = append([]float32(nil), net.Params()...)
	}
	return t
}

// Val returns the indices of the validation rows (aliased).
func (t *Run) Val() []int { return t.val }

// Epoch runs one epoch: a shuffle of the training rows and one Adam step
// per mini-batch. It returns the epoch's mean training loss (for the
// decoder an NLL in u units, from the training objective's probabilities).
// It stops at the next mini-batch once ctx is cancelled and returns
// ctx.Err(); a NaN or Inf loss gives an error wrapping ErrDiverged.
func (t *Run) Epoch(ctx context.Context) (float64, error) {
	epoch := t.epoch + 1
	rows := t.train
	t.r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	var sum float64
	var seen int
	for lo := 0; lo < len(rows); lo += t.bs {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		idx := rows[lo:min(lo+t.bs, len(rows))]
		t.tg.Fill(t.batch, t.xs, t.cols, idx)
		// Dropout's masks (the model's Cfg.Dropout): one seed per step,
		// from the run's seed, the epoch and the batch, so that the
		// shuffles' stream is the same with or without dropout.
		t.batch.DropSeed = stepSeed(t.s.Seed, epoch, lo/t.bs)
		t.net.ZeroGrad()
		loss := t.net.Forward(t.batch)
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return 0, fmt.Errorf("%w: the loss is %v at epoch %d, batch %d (try a smaller learning rate or weight decay)", ErrDiverged, loss, epoch, lo/t.bs+1)
		}
		t.net.Backward()
		t.opt.Step(t.net.Threads(), t.net.Params()[t.frozen:], t.net.Grads()[t.frozen:])
		t.average()
		sum += loss * float64(len(idx))
		if t.tg.LogW != nil {
			// Report the decoder's loss as an NLL in u units, like the
			// validation loss: add each row's log cell width.
			for _, i := range idx {
				sum += t.tg.LogWidthU(i)
			}
		}
		seen += len(idx)
	}
	t.epoch = epoch
	return sum / float64(seen), nil
}

// average folds the weights after a step into their moving average
// (Settings.EMA), bias-corrected: after step t the average is
// sum_s d^(t-s) (1-d) w_s / (1 - d^t), updated as avg += b (w - avg) with
// b = (1-d) / (1 - d^t) (1 at the first step, where the average is the
// weights).
func (t *Run) average() {
	if t.ema == nil {
		return
	}
	t.steps++
	d := t.s.EMA
	c := -math.Expm1(float64(t.steps) * math.Log(d)) // 1 - d^t
	k := emaStep{avg: t.ema, w: t.net.Params(), b: float32((1 - d) / c)}
	if t.steps == 1 {
		k.b = 1
	}
	par.For(t.net.Threads(), len(k.avg), 4, k)
}

// emaStep is average's element update on chunks of the weights: avg +=
// b (w - avg), which leaves a weight that no longer changes exactly where
// it is (a avg + b w with a and b rounded apart drifts from it, by about
// 1e-3 relative at a decay of 0.99999). The float32 conversion rounds the
// product, so that no build fuses a multiply-add and every build computes
// the same bits.
type emaStep struct {
	avg, w []float32
	b      float32
}

func (k emaStep) Run(lo, hi int) {
	avg, w := k.avg[lo:hi], k.w[lo:hi]
	if k.b == 1 {
		copy(avg, w)
		return
	}
	for i := range avg {
		avg[i] += float32(k.b * (w[i] - avg[i]))
	}
}

// swapAverage exchanges the network's weights with their moving average
// (no copy of the weights is needed to evaluate the average and go on
// training from the raw weights: swap, evaluate, swap back).
func (t *Run) swapAverage() {
	p := t.net.Params()
	for i := range p {
		p[i], t.ema[i] = t.ema[i], p[i]
	}
}

// stepSeed is the dropout seed of batch k of epoch epoch: SplitMix64's
// finalizer chained over the seed, the epoch and the batch, so that no two
// of (seed, epoch, k) share a step seed by a simple relation (seed ^
// epoch<<32 ^ k would give an ensemble's members seed+1, ... the first
// member's step seeds with the batches swapped).
func stepSeed(seed uint64, epoch, k int) uint64 {
	return rng.Mix64(rng.Mix64(rng.Mix64(seed)+uint64(epoch)) + uint64(k))
}

// Validate returns the mean validation loss of the current weights, or
// with Settings.EMA of their moving average (NaN without validation rows),
// and keeps those weights when it is the best so far (best reports that).
// A NaN or -Inf loss gives an error wrapping ErrDiverged.
func (t *Run) Validate() (loss float64, best bool, err error) {
	if len(t.val) == 0 {
		t.bestEpoch = t.epoch
		if t.ema != nil {
			copy(t.best, t.ema) // the weights Finish leaves
		}
		return math.NaN(), true, nil
	}
	if t.ema != nil && t.steps > 0 {
		t.swapAverage()
		defer t.swapAverage()
	}
	switch {
	case t.s.DepthTemps[1] > 0:
		_, loss = t.tg.DepthScores(t.net, t.xs, t.cols, t.val).Fit(t.s.DepthTemps[0], t.s.DepthTemps[1])
	case t.s.Score != nil:
		if loss = t.s.Score(t.val); math.IsInf(loss, 0) {
			loss = math.NaN() // no epoch could be kept by it: diverged
		}
	default:
		out := make([]float64, len(t.val))
		t.tg.RowNLL(t.net, t.xs, t.cols, t.val, out)
		var s float64
		for _, v := range out {
			s += v
		}
		loss = s / float64(len(t.val))
	}
	if math.IsNaN(loss) {
		return loss, false, fmt.Errorf("%w: the validation loss is NaN at epoch %d", ErrDiverged, t.epoch)
	}
	if math.IsInf(loss, -1) {
		// An infinite density: a validation target in a cell of width 0
		// (the config checks refuse tokenizations that have them), or a
		// scale that underflowed. No epoch could be compared with it.
		return loss, false, fmt.Errorf("%w: the validation loss is -Inf at epoch %d (a validation target has an infinite density)", ErrDiverged, t.epoch)
	}
	if loss < t.bestLoss {
		t.bestLoss, t.bestEpoch, t.stale = loss, t.epoch, 0
		copy(t.best, t.net.Params())
		return loss, true, nil
	}
	t.stale++
	return loss, false, nil
}

// Epoch is the report of one finished epoch.
type Epoch struct {
	N         int     // 1-based
	TrainLoss float64 // Run.Epoch's loss
	ValLoss   float64 // Run.Validate's loss (NaN without validation)
	Best      bool    // the best validation loss so far
}

// Result says how a run ended.
type Result struct {
	ValRows     int
	Epochs      int     // epochs completed (a cancelled epoch does not count)
	BestEpoch   int     // the epoch whose weights the network holds (0: none finished)
	BestValLoss float64 // 0 without validation
	Stopped     string  // "early-stopping", "max-epochs" or "cancelled"
	LRDrops     int     // the learning-rate drops made (Settings.LRDrops)
}

// Loop runs epochs until the validation loss has not improved for
// Patience epochs or MaxEpochs are done, calling onEpoch (if not nil) after
// each, and leaves the best weights in the network. When ctx is cancelled
// it returns the result so far with ctx.Err(); on divergence an error
// wrapping ErrDiverged.
func (t *Run) Loop(ctx context.Context, onEpoch func(Epoch)) (Result, error) {
	stopped, err := t.Continue(ctx, t.s.MaxEpochs, onEpoch)
	if err != nil && ctx.Err() == nil {
		return Result{ValRows: len(t.val), Stopped: stopped, Epochs: t.epoch, LRDrops: t.drops}, err
	}
	return t.Finish(stopped), err
}

// Continue runs epochs as Loop does, but pauses once upTo epochs (in all)
// are done, leaving the current weights in the network so that a later
// Continue goes on from them. It returns "" when paused, else why the run
// ended: "early-stopping", "max-epochs" or, with ctx.Err(), "cancelled".
// A run that has ended does nothing more.
func (t *Run) Continue(ctx context.Context, upTo int, onEpoch func(Epoch)) (stopped string, err error) {
	if t.ended != "" {
		return t.ended, nil
	}
	defer func() { t.ended = stopped }()
	for t.epoch < min(upTo, t.s.MaxEpochs) {
		trainLoss, err := t.Epoch(ctx)
		if err != nil {
			if ctx.Err() == nil {
				return "", err
			}
			return "cancelled", err
		}
		valLoss, best, err := t.Validate()
		if err != nil {
			if ctx.Err() != nil {
				// A Score stopped by ctx: not a divergence, and an epoch
				// not validated does not count (its weights are not kept).
				t.epoch--
				return "cancelled", ctx.Err()
			}
			return "", err
		}
		if onEpoch != nil {
			onEpoch(Epoch{N: t.epoch, TrainLoss: trainLoss, ValLoss: valLoss, Best: best})
		}
		if len(t.val) > 0 && t.stale >= t.s.Patience {
			if t.drops < t.s.LRDrops && t.epoch < t.s.MaxEpochs {
				// A plateau: a smaller step, and the patience again.
				t.drops++
				t.opt.LR *= float32(t.s.LRDropFactor)
				t.stale = 0
				continue
			}
			return "early-stopping", nil
		}
	}
	if t.epoch >= t.s.MaxEpochs {
		return "max-epochs", nil
	}
	return "", nil
}

// Epochs is the number of epochs completed.
func (t *Run) Epochs() int { return t.epoch }

// BestLoss is the best validation loss so far (+Inf before the first
// epoch; NaN without validation rows).
func (t *Run) BestLoss() float64 {
	if len(t.val) == 0 {
		return math.NaN()
	}
	return t.bestLoss
}

// Finish ends the run: it puts the best weights in the network and
// returns the result, with stopped as the reason ("cancelled" for a run
// ended early from outside, as Tune's successive halving does).
func (t *Run) Finish(stopped string) Result {
	if stopped == "" {
		stopped = "cancelled"
	}
	t.ended = stopped
	t.net.SetEncoderFrozen(false)
	res := Result{ValRows: len(t.val), Stopped: stopped, Epochs: t.epoch, LRDrops: t.drops}
	if (len(t.val) > 0 || t.ema != nil) && t.bestEpoch > 0 {
		copy(t.net.Params(), t.best)
	}
	res.BestEpoch = t.bestEpoch
	if !math.IsInf(t.bestLoss, 0) {
		res.BestValLoss = t.bestLoss // else no validation: nothing to report
	}
	return res
}
