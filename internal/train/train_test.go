package train

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"decoreg/internal/head"
	"decoreg/internal/model"
	"decoreg/vocab"
)

func TestValRows(t *testing.T) {
	for _, c := range []struct {
		rows int
		frac float64
		want int
	}{{10, 0.1, 1}, {10, -1, 0}, {10, 0, 0}, {3, 0.01, 1}, {100, 0.25, 25}, {5, 0.9, 5}} {
		if got := ValRows(c.rows, c.frac); got != c.want {
			t.Errorf("ValRows(%d, %v) = %d, want %d", c.rows, c.frac, got, c.want)
		}
	}
}

// setup makes an MDN run on y = x + noise.
func setup(t *testing.T, s Settings) (*Run, *model.Model) {
	t.Helper()
	const n = 200
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float32, n)
	y := make([]float64, n)
	for i := range xs {
		xs[i] = float32(r.NormFloat64())
		y[i] = float64(xs[i]) + 0.1*r.NormFloat64()
	}
	c := model.Config{In: 1, EncLayers: 1, EncWidth: 8, Head: model.MDN, Components: 2, Threads: 1}
	net, err := model.New(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range y {
		lo, hi = min(lo, v), max(hi, v)
	}
	h := head.Of(&c)
	tg, err := head.Encode(&net.Cfg, h.Units(nil, false, lo, hi), y)
	if err != nil {
		t.Fatal(err)
	}
	return Prepare(net, tg, xs, n, 1, s), net
}

// TestLoop: the loop reports every epoch, stops at MaxEpochs or by
// patience, and leaves the best epoch's weights.
func TestLoop(t *testing.T) {
	s := Settings{LR: 1e-2, BatchSize: 32, MaxEpochs: 6, Patience: 100, ValFrac: 0.2, Seed: 3}
	run, _ := setup(t, s)
	var seen []Epoch
	res, err := run.Loop(context.Background(), func(e Epoch) { seen = append(seen, e) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Epochs != 6 || len(seen) != 6 || res.Stopped != "max-epochs" || res.ValRows != 40 {
		t.Errorf("result %+v, %d epochs reported", res, len(seen))
	}
	best := math.Inf(1)
	for i, e := range seen {
		if e.N != i+1 || math.IsNaN(e.TrainLoss) || math.IsNaN(e.ValLoss) {
			t.Errorf("epoch %+v", e)
		}
		if e.Best != (e.ValLoss < best) {
			t.Errorf("epoch %d: best %v with loss %v (best so far %v)", e.N, e.Best, e.ValLoss, best)
		}
		if e.Best {
			best = e.ValLoss
		}
	}
	if res.BestValLoss != best {
		t.Errorf("best val loss %v, want %v", res.BestValLoss, best)
	}
	// The network holds the best epoch's weights: validating again gives
	// its loss.
	if v, _, _ := run.Validate(); v != best {
		t.Errorf("after the loop the validation loss is %v, want %v", v, best)
	}

	// Patience 1 with a learning rate so large that the loss gets worse.
	s.LR, s.Patience, s.MaxEpochs = 5, 1, 50
	run, _ = setup(t, s)
	res, err = run.Loop(context.Background(), nil)
	if err == nil && (res.Stopped != "early-stopping" || res.Epochs >= 50) {
		t.Errorf("patience 1: %+v", res)
	}
	if err != nil && !errors.Is(err, ErrDiverged) {
		t.Errorf("patience 1: %v", err)
	}
}

// TestLoopCancel: a cancelled loop returns the context's error with the
// best epoch so far; without validation every epoch is the best.
func TestLoopCancel(t *testing.T) {
	s := Settings{LR: 1e-3, BatchSize: 16, MaxEpochs: 100, Patience: 100, ValFrac: -1, Seed: 3}
	run, _ := setup(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	res, err := run.Loop(ctx, func(e Epoch) {
		if !e.Best || !math.IsNaN(e.ValLoss) {
			t.Errorf("no validation: epoch %+v", e)
		}
		if e.N == 2 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || res.Stopped != "cancelled" || res.Epochs != 2 || res.BestEpoch != 2 || res.BestValLoss != 0 {
		t.Errorf("got %+v, %v", res, err)
	}
}

// An infinite or NaN Settings.Score is a divergence, not an epoch that no
// later one beats (which would keep the untrained weights); a finite one
// is the validation loss and picks the epoch kept.
func TestScoreDiverges(t *testing.T) {
	for _, v := range []float64{math.Inf(1), math.Inf(-1), math.NaN()} {
		run, _ := setup(t, Settings{LR: 1e-2, BatchSize: 32, MaxEpochs: 3, Patience: 3, ValFrac: 0.2, Seed: 1,
			Score: func([]int) float64 { return v }})
		if _, err := run.Loop(context.Background(), nil); !errors.Is(err, ErrDiverged) {
			t.Errorf("score %v: %v", v, err)
		}
	}
	// A Score that stops because ctx is done (returning NaN) is a
	// cancellation, keeping the best epoch so far.
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	run, _ := setup(t, Settings{LR: 1e-2, BatchSize: 32, MaxEpochs: 5, Patience: 5, ValFrac: 0.2, Seed: 1,
		Score: func([]int) float64 {
			if calls++; calls == 2 {
				cancel()
				return math.NaN()
			}
			return 1
		}})
	res, err := run.Loop(ctx, nil)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrDiverged) || res.Stopped != "cancelled" || res.BestEpoch != 1 || res.Epochs != 1 {
		t.Errorf("cancelled while scoring: %+v, %v", res, err)
	}
	scores := []float64{3, 1, 2, 5}
	var n, rows int
	run, _ = setup(t, Settings{LR: 1e-2, BatchSize: 32, MaxEpochs: 4, Patience: 10, ValFrac: 0.2, Seed: 1,
		Score: func(val []int) float64 { n, rows = n+1, len(val); return scores[n-1] }})
	res, err = run.Loop(context.Background(), nil)
	if err != nil || res.BestEpoch != 2 || res.BestValLoss != 1 || rows != 40 {
		t.Errorf("scores %v: %+v, %v, %d rows scored", scores, res, err, rows)
	}
}

// TestEMA: with Settings.EMA the run's raw trajectory is the one without
// it, and the weights it keeps are the bias-corrected exponential average
// of the weights after each step, computed here in float64 from the
// trajectory recorded without the average (one step per epoch: the batch
// holds every training row).
func TestEMA(t *testing.T) {
	const steps, d = 12, 0.8
	for _, valFrac := range []float64{0, 0.2} {
		s := Settings{LR: 1e-2, BatchSize: 1000, MaxEpochs: steps, Patience: 100, ValFrac: valFrac, Seed: 5}
		plain, pnet := setup(t, s)
		var traj [][]float32
		for e := 1; e <= steps; e++ {
			if _, err := plain.Continue(context.Background(), e, nil); err != nil {
				t.Fatal(err)
			}
			traj = append(traj, append([]float32(nil), pnet.Params()...))
		}
		s.EMA = d
		run, net := setup(t, s)
		var losses []float64
		// Paused after 5 epochs (as Tune's rungs pause a trial) and resumed.
		if stopped, err := run.Continue(context.Background(), 5, func(e Epoch) { losses = append(losses, e.ValLoss) }); err != nil || stopped != "" {
			t.Fatal(stopped, err)
		}
		stopped, err := run.Continue(context.Background(), steps, func(e Epoch) { losses = append(losses, e.ValLoss) })
		if err != nil || stopped != "max-epochs" {
			t.Fatal(stopped, err)
		}
		// Validating the average left the raw weights as they were.
		if !slices.Equal(net.Params(), traj[steps-1]) {
			t.Errorf("val frac %v: the raw weights after %d steps differ from the run's without the average", valFrac, steps)
		}
		res := run.Finish(stopped)
		keep := steps
		if valFrac > 0 {
			keep = res.BestEpoch
			if keep < 1 || keep > steps {
				t.Fatalf("best epoch %d", keep)
			}
			// The validation losses are the averages': the best one is the
			// loss of the kept weights, and it is not the raw weights'.
			if res.BestValLoss != slices.Min(losses) || res.BestValLoss == plain.BestLoss() {
				t.Errorf("val losses %v, best %v, raw best %v", losses, res.BestValLoss, plain.BestLoss())
			}
		}
		want := make([]float64, len(traj[0]))
		var norm float64
		for s := 1; s <= keep; s++ {
			w := (1 - d) * math.Pow(d, float64(keep-s))
			norm += w
			for i, v := range traj[s-1] {
				want[i] += w * float64(v)
			}
		}
		var worst float64
		for i, v := range net.Params() {
			want := want[i] / norm
			worst = max(worst, math.Abs(float64(v)-want)/(1e-3+math.Abs(want)))
		}
		if worst > 1e-4 {
			t.Errorf("val frac %v: kept weights differ from the average after step %d by %.3g (relative)", valFrac, keep, worst)
		}
	}
}

// TestEMAConstant: a weight that no longer changes stays exactly where it
// is in the average, even at a decay near 1 (an update a avg + b w with a
// and b rounded apart drifted from it).
func TestEMAConstant(t *testing.T) {
	w := []float32{0.1, -3.7e-5, 12345.678, 1e-30, 0.3333333}
	avg := slices.Clone(w)
	for step := 2; step < 20000; step++ {
		c := -math.Expm1(float64(step) * math.Log(0.99999))
		emaStep{avg: avg, w: w, b: float32((1 - 0.99999) / c)}.Run(0, len(w))
	}
	if !slices.Equal(avg, w) {
		t.Errorf("the average of constant weights %v moved to %v", w, avg)
	}
}

// TestLRDrops: on a plateau (Patience epochs without a better validation
// loss) the run multiplies the learning rate by LRDropFactor and goes on
// with the patience started again, LRDrops times, then stops at the next
// plateau; it keeps the best epoch's weights and counts the drops. The
// validation losses are scripted.
func TestLRDrops(t *testing.T) {
	scores := []float64{5, 4, 4.5, 4.5, 3, 3.5, 3.5, 3.5, 3.5, 2, 2, 2}
	for _, c := range []struct {
		drops, maxEpochs   int
		epochs, best, made int
		stopped            string
		lrs                []float32 // the learning rate during each epoch
	}{
		{0, 20, 4, 2, 0, "early-stopping", []float32{1e-2, 1e-2, 1e-2, 1e-2}},
		{1, 20, 7, 5, 1, "early-stopping", []float32{1e-2, 1e-2, 1e-2, 1e-2, 5e-3, 5e-3, 5e-3}},
		{2, 20, 9, 5, 2, "early-stopping", []float32{1e-2, 1e-2, 1e-2, 1e-2, 5e-3, 5e-3, 5e-3, 2.5e-3, 2.5e-3}},
		// MaxEpochs first: the drop made at epoch 4 is counted, the run
		// ends at 6 without another.
		{5, 6, 6, 5, 1, "max-epochs", []float32{1e-2, 1e-2, 1e-2, 1e-2, 5e-3, 5e-3}},
		// A plateau at the last epoch stops the run as without drops: a
		// drop there would train nothing.
		{2, 4, 4, 2, 0, "early-stopping", []float32{1e-2, 1e-2, 1e-2, 1e-2}},
	} {
		n := 0
		var run *Run
		run, _ = setup(t, Settings{LR: 1e-2, BatchSize: 32, MaxEpochs: c.maxEpochs, Patience: 2, ValFrac: 0.2, Seed: 1,
			LRDrops: c.drops, LRDropFactor: 0.5,
			Score: func([]int) float64 { n++; return scores[n-1] }})
		var lrs []float32
		res, err := run.Loop(context.Background(), func(Epoch) { lrs = append(lrs, run.opt.LR) })
		if err != nil || res.Epochs != c.epochs || res.BestEpoch != c.best || res.LRDrops != c.made || res.Stopped != c.stopped ||
			res.BestValLoss != scores[c.best-1] {
			t.Errorf("drops %d, max epochs %d: %+v, %v; want %d epochs, best %d, %d drops, %s", c.drops, c.maxEpochs, res, err, c.epochs, c.best, c.made, c.stopped)
		}
		if !slices.Equal(lrs, c.lrs) {
			t.Errorf("drops %d: learning rates %v, want %v", c.drops, lrs, c.lrs)
		}
	}
	// The steps are the learning rate's: runs that differ only in the
	// factor train alike, to the bit, up to the plateau (epoch 4), and
	// apart from the epoch after it.
	traj := func(factor float64) [][]float32 {
		n := 0
		var run *Run
		var net *model.Model
		run, net = setup(t, Settings{LR: 1e-2, BatchSize: 32, MaxEpochs: 6, Patience: 2, ValFrac: 0.2, Seed: 1,
			LRDrops: 1, LRDropFactor: factor, Score: func([]int) float64 { n++; return scores[n-1] }})
		var out [][]float32
		if _, err := run.Loop(context.Background(), func(Epoch) { out = append(out, slices.Clone(net.Params())) }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := traj(0.5), traj(0.25)
	if len(a) != 6 || len(b) != 6 {
		t.Fatalf("epochs %d and %d", len(a), len(b))
	}
	for e := range a {
		if same := slices.Equal(a[e], b[e]); same != (e < 4) {
			t.Errorf("epoch %d: the weights at factors 0.5 and 0.25 are the same: %v", e+1, same)
		}
	}
}

// TestFreezeEncoder: with FreezeEncoder, training (with weight decay,
// decoupled or not, and the weights' moving average) leaves the
// encoder's parameters as they were, to the bit, and trains the head.
func TestFreezeEncoder(t *testing.T) {
	for _, adamw := range []bool{false, true} {
		s := Settings{LR: 1e-2, WeightDecay: 0.1, AdamW: adamw, EMA: 0.9, BatchSize: 32, MaxEpochs: 3, Patience: 100, ValFrac: 0.2, Seed: 3, FreezeEncoder: true}
		run, net := setup(t, s)
		before := append([]float32(nil), net.Params()...)
		n := net.EncoderParams()
		if _, err := run.Loop(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		changed := 0
		for i, v := range net.Params() {
			switch {
			case i < n && math.Float32bits(v) != math.Float32bits(before[i]):
				t.Fatalf("adamw %v: encoder parameter %d moved from %v to %v", adamw, i, before[i], v)
			case i >= n && v != before[i]:
				changed++
			}
		}
		if changed < (len(before)-n)/2 {
			t.Errorf("adamw %v: %d of the head's %d parameters trained", adamw, changed, len(before)-n)
		}
	}
}

// TestInfiniteDensityDiverges: a validation NLL of -Inf (here the targets
// 0 in the zero cell [-0, 0] of Unnormalized(10, 3, 2), whose width
// underflows float64; decoreg's config checks refuse it, vocab.Trainable)
// is a divergence, not an epoch that no later one beats.
func TestInfiniteDensityDiverges(t *testing.T) {
	tok, err := vocab.NewUnnormalized(10, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	if vocab.Trainable(tok) == nil {
		t.Fatal("Trainable accepts a zero cell of width 0")
	}
	const n = 50
	xs := make([]float32, n)
	y := make([]float64, n) // 0 and 1
	for i := range xs {
		xs[i], y[i] = float32(i)/n, float64(i%2)
	}
	c := model.Config{In: 1, EncLayers: 1, EncWidth: 8, Head: model.Decoder, Vocab: tok, DecLayers: 1, DecWidth: 8, DecHeads: 1, MaskLoss: true, Threads: 1}
	net, err := model.New(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := head.Encode(&net.Cfg, head.Of(&c).Units(tok, true, 0, 1), y)
	if err != nil {
		t.Fatal(err)
	}
	run := Prepare(net, tg, xs, n, 1, Settings{LR: 1e-3, BatchSize: 16, MaxEpochs: 2, Patience: 2, ValFrac: 0.2, Seed: 1})
	res, err := run.Loop(context.Background(), nil)
	if !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "-Inf") {
		t.Errorf("got %+v, %v", res, err)
	}
}
