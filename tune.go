package decoreg

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"decoreg/data"
	"decoreg/internal/gemm"
	"decoreg/internal/head"
	"decoreg/internal/jsonfloat"
	"decoreg/internal/train"
	"decoreg/internal/vec"
	"decoreg/vocab"
)

// Tune's defaults.
const (
	DefaultTuneBudget = 3 * time.Minute
	DefaultTuneTrials = 12
	DefaultTuneEta    = 3
	DefaultTuneRung   = 3 // epochs of the first rung
	MaxTuneTrials     = 200
	// maxTuneBytes bounds the memory the trials of one Tune may hold at
	// once (every trial of the first rung keeps its weights, gradients,
	// Adam moments and best weights until the rung ends).
	maxTuneBytes = 8 << 30
)

// TuneOptions control Tune. The zero value takes the defaults.
type TuneOptions struct {
	// Budget bounds Tune's wall time (default DefaultTuneBudget, 3
	// minutes). When it runs out, the trials stop where they are and the
	// best so far is chosen.
	Budget time.Duration
	// Trials is the number of settings tried (default DefaultTuneTrials):
	// the base configuration and Trials-1 drawn from the grid with
	// Config.Seed.
	Trials int
	// Eta is successive halving's factor (default 3): after each rung
	// the best 1/Eta of the trials go on, for Eta times as many epochs.
	Eta int
	// Rung is the number of epochs of the first rung (default 3).
	Rung int
	// Progress, when not nil, is called after each trial's rung.
	Progress func(TuneTrial)
	// EnsembleFrom says where Config.Ensemble's members come from
	// ("": DefaultEnsembleFrom, EnsembleFromAll): EnsembleFromTrials
	// picks up to Ensemble trials by greedy ensemble selection;
	// EnsembleFromSeeds trains Ensemble-1 more
	// models of the best trial's settings after the search, with seeds
	// Seed+1, Seed+2, ... and the same validation rows (as FitFlat's
	// Ensemble does), each to early stopping within a second Budget
	// shared equally among them, or, where an equal share is less than
	// the best trial took (with a quarter more), each given that time
	// in turn while the budget lasts (one it stops keeps its best epoch and
	// joins if it lowers the mixture's validation NLL); EnsembleFromAll
	// trains those and picks up to Ensemble members among the trials and
	// them by greedy ensemble selection. The pointwise head has no
	// likelihood to select by: with it, all is seeds, and every seed's
	// model that finished an epoch joins.
	EnsembleFrom string
	// MemberProgress, when not nil, is called after each epoch of the
	// seeds' members EnsembleFromSeeds and EnsembleFromAll train after
	// the search.
	MemberProgress func(Progress)
	// SoftSeeds is, with EnsembleFromAll and a best trial that is a
	// decoder of the normalized tokenization, the Config.SoftTargets of
	// Ensemble-1 more seeds' members (seeds Seed+Ensemble, ...), trained
	// after the plain ones with what is left of their budget and offered
	// to the greedy ensemble selection with them: members whose per-digit
	// soft targets rank better where they also fit the validation rows
	// better. 0 is DefaultSoftSeeds; a value < 0 trains none.
	SoftSeeds float64
	// PLESeeds is, with EnsembleFromAll and a best trial of another
	// input transform than ple (and another head than pointwise), the
	// number of more seeds' members of the best trial's settings with the
	// ple input transform (Config.InputTransform "ple", at the base's
	// PLEBins or the default), trained after the plain and soft ones with
	// what is left of their budget and offered to the greedy ensemble
	// selection with them; 0, the default, trains none. Where their
	// network on the encoding would be larger than allowed or than memory
	// holds, none are trained and TuneReport.PLESeedsSkipped says why.
	// They are extras, not a grid axis, so that the trials drawn are the
	// same with and without them. On 13 small UCI sets x 4 splits, 4 of
	// them raised the tuned ensembles' mean tau (0.6894 -> 0.6931) and
	// lowered their test NLL, but won fewer set-splits against XGBoost
	// (21 -> 18; tabular-ple-diagnostic): not the default.
	PLESeeds int
	// Resolution is the narrowest cell, as a share of the range of y's
	// scale (u units: the training targets' range, or Config.TargetMin
	// and TargetMax), at which the trials, the seeds' members and the
	// ensembles are compared and early-stopped: a validation row is
	// scored by the density averaged over the deepest cell of its
	// target's tokens at least this wide (head.Targets.SetResolution),
	// its plain NLL where its cells are that wide. For bases 2, 4 and 8
	// at 2^-6k (the default included) that cell is Resolution wide; for
	// other bases and values it is up to a base wider. Without it, on
	// targets that take a few values a trial of a finer tokenization
	// wins by the width of its cells alone (on pol,
	// normalized:base=8,length=8 had a validation NLL 4 nats below the
	// defaults', nearly log 8², and ranked worse). It applies where every
	// trial is a decoder of the normalized tokenization (TuneReport says
	// whether it did); other heads and tokenizations are compared by
	// their plain NLL. 0 is DefaultTuneResolution; a value < 0 compares
	// plain NLLs; a value wider than a trial's first digit's cells is
	// refused.
	Resolution float64
	// EMA is the decay of the weights' moving average (Config.EMA) of
	// every trial and member where the base Config's EMA is 0: 0 is
	// DefaultTuneEMA; a value < 0 keeps the raw weights; a base EMA above
	// 0 is used as it is.
	EMA float64

	grid func(Config) []tuneAxis // tests: a grid in place of tuneGrid
}

// The values of TuneOptions.EnsembleFrom.
const (
	EnsembleFromTrials = "trials"
	EnsembleFromSeeds  = "seeds"
	EnsembleFromAll    = "all"
	// DefaultEnsembleFrom is TuneOptions.EnsembleFrom's default: on the
	// 24 UCI sets (tabular-v4) it won 15 against XGBoost's tau where the
	// trials alone won 11, with a lower test NLL on 16 of them.
	DefaultEnsembleFrom = EnsembleFromAll
	// DefaultSoftSeeds is TuneOptions.SoftSeeds's default: the
	// soft-target standard deviation the --soft-targets pilot chose
	// (README: 0.06 ranked a little higher, at a higher NLL on most sets).
	DefaultSoftSeeds = 0.03
	// DefaultTuneResolution is TuneOptions.Resolution's default: 2^-18,
	// the cells of the default tokenization (normalized:base=8,length=6),
	// the finest but one of the grid's.
	DefaultTuneResolution = 1.0 / (1 << 18)
	// DefaultTuneEMA is TuneOptions.EMA's default: the weights' moving
	// average at 0.99 per step. On 13 small UCI sets x 4 splits it raised
	// the tuned ensembles' mean Kendall's tau (README: tabular-ema).
	DefaultTuneEMA = 0.99
)

// TuneTrial is one trial of Tune.
type TuneTrial struct {
	N       int     `json:"n"`          // 1-based; trial 1 is the base configuration
	Label   string  `json:"label"`      // the grid's settings it changes; for trial 1 "defaults", or "given" where the base configuration is not the head's defaults
	Config  Config  `json:"config"`     // its settings, defaulted; Calibrate, CalibrateBy and Ensemble cleared
	ValLoss float64 `json:"val_loss"`   // best validation NLL in u units (at TuneReport.Resolution; MSE for pointwise; Config.StopBy's score otherwise, e.g. the CRPS in u units); +Inf before an epoch ended
	Epochs  int     `json:"epochs"`     // epochs completed
	Best    int     `json:"best_epoch"` // the epoch whose weights its model keeps (1-based), set once Tune finishes the trial; 0 before that or when no epoch finished
	Seconds float64 `json:"seconds"`    // its training's wall time so far, Config.Pretrain's first stage included
	// Status is how the trial ended: "early-stopping", "max-epochs",
	// "halved" (dropped by successive halving after Epochs epochs),
	// "budget" (stopped when the budget ran out), "skipped" (its first
	// rung would have ended past the first third of the budget, at the
	// speed measured on the trials before it), "refused: ..." (a
	// setting the data or the size limits do not allow), "diverged",
	// "cancelled" (the caller's context ended, before or while it ran),
	// or, while it runs, "" (TuneOptions.Progress: "halving" while it
	// waits at a rung for successive halving's decision).
	Status string `json:"status"`
	Chosen bool   `json:"chosen,omitempty"` // in the returned model
}

// TuneReport is what Tune did, saved with the model (TrainInfo.Tune).
type TuneReport struct {
	Trials  []TuneTrial `json:"trials"`            // every trial, in the order of their N
	Budget  float64     `json:"budget_seconds"`    // TuneOptions.Budget, defaulted, in seconds
	Seconds float64     `json:"seconds"`           // Tune's wall time, the seeds' members and the calibration included
	Eta     int         `json:"eta"`               // TuneOptions.Eta, defaulted
	Rung    int         `json:"first_rung_epochs"` // TuneOptions.Rung, defaulted
	// Cut says the budget ran out before every trial had ended, or a
	// trial was skipped (at the speed measured on this run): the same
	// seed may then choose differently on another run.
	Cut bool `json:"cut,omitempty"`
	// Resolution is TuneOptions.Resolution as used: 0 (plain NLLs) unless
	// every trial is a decoder of the normalized tokenization.
	Resolution float64 `json:"resolution,omitempty"`
	// Members is the number of models in the returned model: 1, or with
	// Config.Ensemble N up to N: trials (EnsembleFromTrials), trials and
	// seeds' members (EnsembleFromAll), or the best trial and seeds'
	// members (EnsembleFromSeeds).
	Members int `json:"members"`
	// EnsembleFrom is TuneOptions.EnsembleFrom where Config.Ensemble >= 2
	// ("trials", "seeds" or "all"), else "".
	EnsembleFrom string `json:"ensemble_from,omitempty"`
	// With EnsembleFromSeeds and EnsembleFromAll: the wall time of the
	// seeds' members trained after the search; how many of them the
	// second budget stopped before early stopping (or before they started,
	// when the members before them took it all); how many were left
	// out of the model (stopped before their first epoch ended, diverged,
	// or not chosen: by the greedy selection of EnsembleFromAll, or,
	// with EnsembleFromSeeds, stopped by the budget and not lowering the
	// mixture's validation NLL); and how many are in it.
	MemberSeconds  float64 `json:"member_seconds,omitempty"`
	MembersCut     int     `json:"members_cut,omitempty"`      // stopped by the second budget
	MembersLeftOut int     `json:"members_left_out,omitempty"` // not in the model
	SeedsChosen    int     `json:"seeds_chosen,omitempty"`     // in the model
	// SoftSeeds is TuneOptions.SoftSeeds where soft seeds' members were
	// planned (the best trial a normalized decoder), SoftSeedsTrained how
	// many were started (each only with the best trial's time left of the
	// second budget; those not started are not counted as cut or left
	// out; those started are counted among the seeds' members above),
	// and SoftSeedsChosen how many of them the model holds.
	SoftSeeds        float64 `json:"soft_seeds,omitempty"`
	SoftSeedsTrained int     `json:"soft_seeds_trained,omitempty"` // started
	SoftSeedsChosen  int     `json:"soft_seeds_chosen,omitempty"`  // in the model (counted in SeedsChosen too)
	// PLESeeds is the number of ple seeds' members planned
	// (TuneOptions.PLESeeds), PLESeedsTrained and PLESeedsChosen as for
	// the soft seeds.
	PLESeeds        int `json:"ple_seeds,omitempty"`
	PLESeedsTrained int `json:"ple_seeds_trained,omitempty"` // started
	PLESeedsChosen  int `json:"ple_seeds_chosen,omitempty"`  // in the model (counted in SeedsChosen too)
	// PLESeedsSkipped says why the ple seeds' members asked for
	// (TuneOptions.PLESeeds > 0) were not planned once the best trial was
	// known: it is ple already, a pointwise head, or their network would
	// be larger than allowed or than memory holds. Empty otherwise.
	PLESeedsSkipped string `json:"ple_seeds_skipped,omitempty"`
}

// clone returns a copy of r that shares nothing with it (nil for nil).
func (r *TuneReport) clone() *TuneReport {
	if r == nil {
		return nil
	}
	c := *r
	c.Trials = slices.Clone(r.Trials)
	return &c
}

// selectMembers picks up to n of models (the first the best trial) for an
// ensemble by greedy ensemble selection (Caruana et al., "Ensemble
// selection from libraries of models", 2004, without replacement):
// starting from models[0], it adds the model that lowers the validation
// score of the equal mixture (mixScorer's: the NLL at resolution res, or
// the CRPS with StopByCRPS) most, while one does. It returns indices into
// models, in the order they were added (0 first).
func selectMembers(ctx context.Context, models []*Model, n int, x []float64, rows, cols int, y []float64, base Config, res float64) ([]int, error) {
	score, err := mixScorer(ctx, models, x, rows, cols, y, base, res)
	if err != nil {
		if ctx.Err() != nil {
			return []int{0}, nil // interrupted while scoring: the best trial alone
		}
		return nil, err
	}
	set := []int{0}
	cur := score(set)
	used := map[int]bool{0: true}
	for len(set) < n {
		best, bestScore := -1, cur
		for k := range models {
			if used[k] {
				continue
			}
			if v := score(append(slices.Clone(set), k)); v < bestScore {
				best, bestScore = k, v
			}
		}
		if best < 0 {
			break // no model lowers the mixture's validation score
		}
		set, cur, used[best] = append(set, best), bestScore, true
	}
	return set, nil
}

// mixScorer returns the validation score of the equal mixture of the
// models a set indexes, which Tune's ensemble choices lower: the mean NLL
// of base's validation rows (valRowNLL, mixtureNLL), or with StopByCRPS
// the mean CRPS of the first of them (up to maxCRPSRows, fewer where the
// heads' CRPS is costly: crpsGram, crpsOfSet). The models were trained on
// the same rows and targets. It returns ctx's error once cancelled (the
// NLL's scores are cheap and not interrupted); its callers then keep what
// they had.
func mixScorer(ctx context.Context, models []*Model, x []float64, rows, cols int, y []float64, base Config, res float64) (func(set []int) float64, error) {
	if base.StopBy != StopByCRPS {
		nll, err := valRowNLL(models, x, rows, cols, y, base, res)
		if err != nil {
			return nil, err
		}
		return func(set []int) float64 { return mixtureNLL(nll, set) }, nil
	}
	val, _ := train.Split(rows, base.ValFrac, base.Seed)
	xv, yv := gatherRows(val[:min(len(val), maxCRPSRows)], x, cols, y)
	g, err := crpsGram(ctx, models, xv, yv, cols)
	if err != nil {
		return nil, err
	}
	return func(set []int) float64 { return crpsOfSet(g, set) }, nil
}

// valRowNLL returns each model's NLL (in u units) on each validation row
// of base's split (at most maxCalibrationRows of them): out[k][i] for
// models[k] and row i, a decoder's at resolution res (Targets.SetResolution;
// 0: none), and with base.StopBy StopByDepth at the temperatures per token
// depth fitted to its own rows. The models were trained on the same rows
// and targets.
func valRowNLL(models []*Model, x []float64, rows, cols int, y []float64, base Config, res float64) ([][]float64, error) {
	val, _ := train.Split(rows, base.ValFrac, base.Seed)
	val = val[:min(len(val), maxCalibrationRows)]
	xv, yv := gatherRows(val, x, cols, y)
	idx := make([]int, len(val))
	for i := range idx {
		idx[i] = i
	}
	nll := make([][]float64, len(models))
	for k, m := range models {
		tg, err := head.Encode(&m.net.Cfg, m.units, yv)
		if err != nil {
			return nil, err
		}
		tg.SetResolution(res)
		w := m.inWidth()
		xs := make([]float32, len(val)*w)
		if err := m.standardize(xs, xv, len(val)); err != nil {
			return nil, err
		}
		nll[k] = make([]float64, len(val))
		if lo, hi := base.depthTemps()[0], base.depthTemps()[1]; hi > 0 && m.cfg.Head == HeadDecoder {
			// Early-stopped by depth: each model at the temperatures per
			// depth that its validation rows give it.
			ds := tg.DepthScores(m.net, xs, w, idx)
			ts, _ := ds.Fit(lo, hi)
			ds.RowNLL(ts, nll[k])
			continue
		}
		tg.RowNLL(m.net, xs, w, idx, nll[k])
	}
	return nll, nil
}

// mixtureNLL is the mean NLL over the validation rows of the equal
// mixture of the models set indexes in nll (valRowNLL's).
func mixtureNLL(nll [][]float64, set []int) float64 {
	n := len(nll[set[0]])
	lp := make([]float64, len(set))
	s := 0.0
	for i := range n {
		for j, k := range set {
			lp[j] = -nll[k][i]
		}
		s -= vec.LogMeanExp(lp)
	}
	return s / float64(n)
}

// tuneAxis is one axis of Tune's grid.
type tuneAxis struct {
	name   string
	values []string
	set    func(c *Config, v string)
}

// tuneGrid returns the axes Tune searches for base's head: the paper's
// grid (DESIGN.md section 6) for the encoder, the learning rate and the
// head's own settings, and the input transforms and encoder kinds (MLP or
// PLR embeddings) of the strongest tabular MLPs.
func tuneGrid(base Config) []tuneAxis {
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	axes := []tuneAxis{
		{"enc_layers", []string{"2", "3", "4", "5"}, func(c *Config, v string) { c.EncLayers = atoi(v) }},
		{"enc_width", []string{"256", "512", "2048"}, func(c *Config, v string) { c.EncWidth = atoi(v) }},
		{"lr", []string{"1e-4", "5e-4"}, func(c *Config, v string) { c.LR, _ = strconv.ParseFloat(v, 64) }},
		// ple is not drawn (the ple seeds' members, TuneOptions.PLESeeds,
		// offer it), so that the draws stay those of the three; the base's
		// bins are for those members.
		{"input_transform", []string{data.TransformStandard, data.TransformRobust, data.TransformQuantile}, func(c *Config, v string) {
			c.InputTransform, c.PLEBins = v, 0
		}},
		{"encoder", []string{EncoderMLP, EncoderPLR}, func(c *Config, v string) { c.Encoder = v }},
	}
	switch base.Head {
	case HeadDecoder:
		var vocabs []string
		tok, _ := vocab.Parse(base.Vocab)
		if vocab.IsUnnormalized(tok) {
			// The paper's grid, less exponent 4 for bases 8 and 10: their
			// smallest cells (8^-4095, 10^-9999) are below float64's, so
			// their zero cell has width 0 and cannot be trained
			// (vocab.Trainable); a target at the middle of the range,
			// which the shifted units map to 0, had an infinite density.
			for _, b := range []int{4, 8, 10} {
				for _, e := range []int{1, 2, 4} {
					for _, m := range []int{2, 4, 8} {
						spec := fmt.Sprintf("unnormalized:base=%d,exponent=%d,mantissa=%d", b, e, m)
						if t, err := vocab.Parse(spec); err == nil && vocab.Trainable(t) == nil {
							vocabs = append(vocabs, spec)
						}
					}
				}
			}
		} else {
			for _, b := range []int{2, 4, 8} {
				for _, k := range []int{4, 6, 8} {
					vocabs = append(vocabs, fmt.Sprintf("normalized:base=%d,length=%d", b, k))
				}
			}
		}
		axes = append(axes,
			tuneAxis{"vocab", vocabs, func(c *Config, v string) { c.Vocab = v }},
			tuneAxis{"decoder", []string{"1x32x1", "3x128x4"}, func(c *Config, v string) {
				if v == "1x32x1" {
					c.DecLayers, c.DecWidth, c.DecHeads = 1, 32, 1
				} else {
					c.DecLayers, c.DecWidth, c.DecHeads = 3, 128, 4
				}
			}})
	case HeadRiemann:
		axes = append(axes, tuneAxis{"bins", []string{"16", "64", "256", "1024", "4096", "16384"}, func(c *Config, v string) { c.Bins = atoi(v) }})
	case HeadMDN:
		axes = append(axes, tuneAxis{"components", []string{"1", "5", "20", "50", "100"}, func(c *Config, v string) { c.Components = atoi(v) }})
	case HeadPointwise:
		axes = append(axes, tuneAxis{"weight_decay", []string{"0", "0.1", "1"}, func(c *Config, v string) {
			c.WeightDecay, _ = strconv.ParseFloat(v, 64)
			if c.WeightDecay == 0 {
				c.AdamW = false // no decay to decouple: the same training, and AdamW alone is refused
			}
		}})
	}
	return axes
}

// TuneGrid describes the grid Tune searches for head h, one axis per
// line ("name: v1, v2, ..."), for help texts: the axes of every head (the
// encoder's) and those of h, none for a head that does not exist.
func TuneGrid(h Head) string {
	var b strings.Builder
	for _, a := range tuneGrid(DefaultConfig(Config{Head: h})) {
		vs := a.values
		if len(vs) > 9 {
			vs = append(slices.Clone(vs[:3]), "... ("+strconv.Itoa(len(a.values))+" values)")
		}
		fmt.Fprintf(&b, "%s: %s\n", a.name, strings.Join(vs, ", "))
	}
	return b.String()
}

// tuneConfigs returns the trials' configurations: base first, then up to
// n-1 other points of the grid in an order drawn with base.Seed.
func tuneConfigs(base Config, n int, grid func(Config) []tuneAxis) (cfgs []Config, labels []string) {
	axes := grid(base)
	size := 1
	for _, a := range axes {
		size *= len(a.values)
	}
	first := base
	if first.InputTransform != data.TransformPLE {
		first.PLEBins = 0 // the base's bins are for the ple seeds' members
	}
	seen := map[string]bool{}
	key := func(c Config) string { return fmt.Sprintf("%+v", c) }
	// Trial 1 is "defaults" where the base is the head's defaults under
	// Tune (the weights' moving average DefaultTuneEMA; its seed, threads,
	// members and calibration aside), else "given": settings the caller chose, which
	// every trial keeps but for the grid's axes.
	def := DefaultConfig(Config{Head: first.Head, EMA: DefaultTuneEMA})
	def.Seed, def.Threads, def.Ensemble = first.Seed, first.Threads, first.Ensemble
	def.Calibrate, def.CalibrateBy = first.Calibrate, first.CalibrateBy
	if first.InputTransform == data.TransformStandard { // "" is standard too
		def.InputTransform = first.InputTransform
	}
	label := "given"
	if key(def) == key(first) {
		label = "defaults"
	}
	cfgs, labels = []Config{first}, []string{label}
	seen[key(first)] = true
	r := rand.New(rand.NewPCG(base.Seed, 0x7e57))
	// Draw without replacement from the grid's index space.
	for _, idx := range r.Perm(size) {
		if len(cfgs) >= n {
			break
		}
		c := base
		var parts []string
		for _, a := range axes {
			v := a.values[idx%len(a.values)]
			idx /= len(a.values)
			a.set(&c, v)
			parts = append(parts, a.name+"="+v)
		}
		c = DefaultConfig(c) // the PLR encoder's sizes
		if seen[key(c)] {
			continue
		}
		seen[key(c)] = true
		cfgs = append(cfgs, c)
		labels = append(labels, strings.Join(parts, " "))
	}
	return cfgs, labels
}

// tuneResolution returns the resolution at which Tune compares the trials
// of configurations cfgs (TuneOptions.Resolution, defaulted; 0 for none):
// res where every trial is a decoder of the normalized tokenization, whose
// cells at each level are equal, else 0, plain NLLs (an unnormalized
// tokenization's cells jump from the exponent's to the mantissa's, so the
// deepest cell at least res wide can be far wider; Hamming and repeated
// tokenizations are not trees of cells). A res wider than a trial's
// first digit's cells, where every row would score 0, is refused.
func tuneResolution(cfgs []Config, res float64) (float64, error) {
	if res == 0 {
		return 0, nil
	}
	maxBase := 0
	for _, c := range cfgs {
		if c.Head != HeadDecoder {
			return 0, nil
		}
		tok, err := vocab.Parse(c.Vocab)
		if err != nil {
			continue // the trial is refused when it starts
		}
		n, ok := tok.(*vocab.Normalized)
		if !ok {
			return 0, nil
		}
		maxBase = max(maxBase, n.Base())
	}
	if maxBase > 0 && res > 1/float64(maxBase) {
		return 0, configErr("Resolution", "%v is wider than the cells of the first digit of a trial's base-%d tokenization, on which every row would score 0: it must be at most 1/%d", res, maxBase, maxBase)
	}
	return res, nil
}

// rowOverhead is the time of a row's training beside its pass, in
// multiply-adds of trialCost: measured (2026-12-06, AMD EPYC Zen 4, one
// thread, testdata/mixed.csv's 288 rows), a 2 x 16 encoder with 256
// Riemann bins (cost about 4,700) trained 3 epochs in 6 ms and a 2 x 2048
// PLR encoder with 4,096 bins (about 13.5 million) in 1.7 s: 285 times as
// long for 2,900 times the multiply-adds, which an overhead of about
// 42,000 reconciles (without it, --tune skipped the large trial of a 20 s
// budget after 7 ms).
const rowOverhead = 40000

// trialCost is a count proportional to the multiply-adds of one row's
// forward pass through c's network for cols features: the encoder once,
// the decoder once per token. The ple input transform's columns are
// counted at their most, PLEBins per feature.
func trialCost(c Config, cols int) float64 {
	head := headSpecs[c.Head].params(c)
	if c.Head == HeadDecoder {
		if tok, err := vocab.Parse(c.Vocab); err == nil {
			head *= float64(tok.Len())
		}
	}
	return c.encParams() + c.inputParams(cols) + head
}

// trialRun is a trial in training.
type trialRun struct {
	t     *TuneTrial
	m     *Model
	run   *train.Run
	start time.Duration // time spent so far
	pre   *PretrainInfo // Config.Pretrain's first stage
}

// Tune chooses settings for rows x (rows x cols) and targets y by
// validation loss: it trains base (defaulted) and Trials-1 configurations
// drawn from the paper's grid (see TuneGrid) with successive halving, all
// on the same validation split (that of base.Seed), and returns the model
// of the trial with the lowest validation loss, or with base.Ensemble >= 2
// an ensemble (NewEnsemble) of up to base.Ensemble members. By default
// (EnsembleFromAll) base.Ensemble-1 more models of the best trial's
// settings are trained after the search, within a second Budget, and the
// members are chosen among the trials and them by greedy ensemble
// selection: from the best trial on, the model that lowers the validation
// NLL of the mixture most is added while one does. EnsembleFromTrials
// chooses among the trials alone, EnsembleFromSeeds takes the best trial
// and its seeds (see TuneOptions.EnsembleFrom). The pointwise head, which
// has no likelihood, takes the best trials by validation loss
// (EnsembleFromTrials) or the best trial and its seeds (the others).
// Every trial and member keeps the moving average of its weights at
// TuneOptions.EMA (default DefaultTuneEMA) unless base.EMA is set (see
// Config.EMA): on the early rungs, with few steps an epoch, the average
// lags the raw weights, and the comparisons are between averages. With
// base.LRDrops, every trial and member cuts its learning rate on
// plateaus (Config.LRDrops): a trial on a plateau at a rung's end goes
// on with the smaller rate on the next rung, and one ends by early
// stopping only at the plateau after its last drop. With base.Pretrain,
// every trial and member is pretrained (Config.Pretrain): a trial's first
// stage runs when the trial starts, inside the budget and counted in its
// time, and a trial whose first stage the budget stops is reported as
// "budget". The model is calibrated when base.Calibrate. The report
// lists every trial; it is also saved in the model (TrainInfo.Tune).
//
// Successive halving: every trial trains for opts.Rung epochs (the base
// first, then the others from the cheapest; one that would end past the
// first third of the budget is skipped, leaving the rest for the best); the best 1/Eta of them (by their
// best validation loss), and always the base, go on to Eta times as many
// epochs in all, and so on, until the trials left have ended by early
// stopping or base.MaxEpochs. A trial keeps its best weights whenever it
// ends. Within the budget, the same data, base and thread count give the
// same trials and the same choice; a budget that runs out stops the
// trials where they are, and a trial skipped at the speed measured may
// train on another run (both set TuneReport.Cut), and the second budget
// stops the seeds' members (TuneReport.MembersCut).
//
// Tune needs validation rows (base.ValFrac not negative). Errors in the
// data are as FitFlat's; a trial whose settings the size limits refuse is
// skipped. When ctx is cancelled Tune returns the best model so far with
// an error wrapping ctx.Err(); a nil ctx is context.Background().
func Tune(ctx context.Context, x []float64, rows, cols int, y []float64, base Config, opts TuneOptions) (*Model, *TuneReport, error) {
	start := time.Now()
	ctx = orBackground(ctx)
	base = DefaultConfig(base)
	if _, err := base.validateTrain(); err != nil {
		return nil, nil, err
	}
	if base.ValFrac < 0 {
		return nil, nil, configErr("ValFrac", "tuning chooses by validation loss: it needs validation rows (ValFrac >= 0)")
	}
	if base.Calibrate {
		if err := checkCalibrationRows(rows, base.ValFrac); err != nil {
			return nil, nil, err
		}
	}
	if err := checkStopRows(rows, base); err != nil {
		return nil, nil, err
	}
	if opts.Budget == 0 {
		opts.Budget = DefaultTuneBudget
	}
	if opts.Trials == 0 {
		opts.Trials = DefaultTuneTrials
	}
	if opts.Eta == 0 {
		opts.Eta = DefaultTuneEta
	}
	if opts.Rung == 0 {
		opts.Rung = DefaultTuneRung
	}
	switch {
	case opts.Budget < 0:
		return nil, nil, configErr("Budget", "must be > 0, have %v", opts.Budget)
	case opts.Trials < 1 || opts.Trials > MaxTuneTrials:
		return nil, nil, configErr("Trials", "must be in [1, %d], have %d", MaxTuneTrials, opts.Trials)
	case opts.Eta < 2:
		return nil, nil, configErr("Eta", "must be at least 2, have %d", opts.Eta)
	case opts.Rung < 1:
		return nil, nil, configErr("Rung", "must be at least 1 epoch, have %d", opts.Rung)
	case opts.EnsembleFrom != "" && opts.EnsembleFrom != EnsembleFromTrials && opts.EnsembleFrom != EnsembleFromSeeds && opts.EnsembleFrom != EnsembleFromAll:
		return nil, nil, configErr("EnsembleFrom", "must be %q, %q or %q, have %q", EnsembleFromTrials, EnsembleFromSeeds, EnsembleFromAll, opts.EnsembleFrom)
	case base.Ensemble > opts.Trials && opts.EnsembleFrom == EnsembleFromTrials:
		return nil, nil, configErr("Ensemble", "an ensemble of the best %d trials needs at least %d trials, have %d", base.Ensemble, base.Ensemble, opts.Trials)
	case math.IsNaN(opts.SoftSeeds) || opts.SoftSeeds > MaxSoftTargets:
		return nil, nil, configErr("SoftSeeds", "the soft seeds' standard deviation must be at most %g (a fraction of the target range; < 0 for none), have %v", float64(MaxSoftTargets), opts.SoftSeeds)
	case math.IsNaN(opts.EMA) || opts.EMA >= 1:
		return nil, nil, configErr("EMA", "the moving average's decay must be below 1 (< 0 for none), have %v", opts.EMA)
	case math.IsNaN(opts.Resolution) || opts.Resolution >= 1:
		return nil, nil, configErr("Resolution", "the comparison's narrowest cell must be below 1 (a share of the target range; < 0 for none), have %v", opts.Resolution)
	}
	if opts.Resolution > 0 && base.StopBy == StopByCRPS {
		return nil, nil, configErr("Resolution", "is the resolution of the NLL comparisons: with StopBy crps the trials and members are compared by their CRPS (leave it 0)")
	}
	if opts.SoftSeeds == 0 {
		opts.SoftSeeds = DefaultSoftSeeds
	}
	if opts.PLESeeds < 0 || opts.PLESeeds > MaxEnsemble {
		return nil, nil, configErr("PLESeeds", "0 (none) to %d ple seeds' members, have %d", MaxEnsemble, opts.PLESeeds)
	}
	if err := seedRoom(base.Seed, seedsPlanned(base, opts)); err != nil {
		// The seeds' members', soft and ple seeds' included.
		return nil, nil, err
	}
	switch {
	case opts.Resolution == 0:
		opts.Resolution = DefaultTuneResolution
	case opts.Resolution < 0:
		opts.Resolution = 0
	}
	if opts.EnsembleFrom == "" {
		opts.EnsembleFrom = DefaultEnsembleFrom
	}
	if base.EMA == 0 {
		switch {
		case opts.EMA == 0:
			base.EMA = DefaultTuneEMA
		case opts.EMA > 0:
			base.EMA = opts.EMA
		}
	}
	rep := &TuneReport{Budget: opts.Budget.Seconds(), Eta: opts.Eta, Rung: opts.Rung}
	if base.Ensemble > 1 {
		rep.EnsembleFrom = opts.EnsembleFrom
	}
	tctx, cancel := context.WithTimeout(ctx, opts.Budget)
	defer cancel()

	grid := opts.grid
	if grid == nil {
		grid = tuneGrid
	}
	cfgs, labels := tuneConfigs(base, opts.Trials, grid)
	var params float64
	encBytes := 0.0 // the ple trials' encodings (float32, held with each trial's run)
	pre := 0.0      // the largest first stage (Config.Pretrain), one at a time
	for _, c := range cfgs {
		pre = max(pre, pretrainBytes(c, cols))
		params += c.approxParams() + c.inputParams(cols)
		if c.InputTransform == data.TransformPLE {
			encBytes += 4 * float64(rows) * float64(c.inputWidth(cols))
		}
	}
	copies, avg := 5.0, "" // weights, gradients, Adam's moments, best weights
	if base.EMA > 0 {
		copies, avg = 6, " and the weights' moving average"
	}
	bytes := copies * 4 * params
	if bytes > maxTuneBytes {
		return nil, nil, configErr("Trials", "the %d trials would hold about %.1f GiB at once (weights, gradients, Adam's moments, best weights%s of each), more than the %d GiB allowed: try fewer trials",
			len(cfgs), bytes/(1<<30), avg, maxTuneBytes>>30)
	}
	if sizesOK(x, rows, cols, y) { // else the first trial says what is wrong
		if err := checkMemory(trainBytesPer(base)*params+16*float64(rows)*float64(cols)+encBytes+pre, fmt.Sprintf("tuning (%d trials held at once)", len(cfgs))); err != nil {
			return nil, nil, err
		}
	}
	res := 0.0 // with StopByCRPS the trials are compared by their CRPS, not an NLL
	if base.StopBy != StopByCRPS {
		var err error
		if res, err = tuneResolution(cfgs, opts.Resolution); err != nil {
			return nil, nil, err
		}
	}
	rep.Resolution = res
	rep.Trials = make([]TuneTrial, len(cfgs))
	var race []*trialRun
	for i, c := range cfgs {
		c.Calibrate, c.CalibrateBy, c.Ensemble = false, "", 0
		rep.Trials[i] = TuneTrial{N: i + 1, Label: labels[i], Config: c, ValLoss: math.Inf(1)}
		race = append(race, &trialRun{t: &rep.Trials[i]})
	}
	report := func(tr *trialRun) {
		if opts.Progress != nil {
			opts.Progress(*tr.t)
		}
	}
	// step trains tr up to upTo epochs in all (making its model first).
	step := func(tr *trialRun, upTo int) error {
		t0 := time.Now()
		defer func() { tr.t.Seconds = (tr.start + time.Since(t0)).Seconds(); tr.start += time.Since(t0) }()
		// refused: settings a trial after the base may have that the
		// checks refuse; the search goes on without the trial.
		refused := func(err error) bool {
			var ce *ConfigError
			return (errors.As(err, &ce) || errors.Is(err, errBeyondTokenization)) && tr.t.N > 1
		}
		// ended is the status of a trial stopped by err: "cancelled",
		// "budget" or "diverged", or "" for an error that ends the search.
		ended := func(err error) string {
			switch {
			case ctx.Err() != nil:
				return "cancelled"
			case tctx.Err() != nil:
				return "budget"
			case errors.Is(err, train.ErrDiverged):
				return "diverged"
			}
			return ""
		}
		if tr.run == nil {
			m, tg, xs, err := prepare(x, rows, cols, y, tr.t.Config, false)
			if err != nil {
				if refused(err) {
					tr.t.Status = "refused: " + err.Error()
					return nil
				}
				return err
			}
			tg.SetResolution(rep.Resolution)
			c := tr.t.Config
			if c.Pretrain != "" {
				// The first stage, within the budget; its time is the trial's.
				if tr.pre, err = pretrainEncoder(tctx, m, x, rows, cols, y, c, c.Seed, 0, &fitOptions{}, time.Now()); err != nil {
					tr.t.ValLoss = math.Inf(1)
					switch st := ended(err); {
					case st != "":
						tr.t.Status = st
					case refused(err):
						tr.t.Status = "refused: " + err.Error()
					default:
						return err
					}
					return nil
				}
			}
			tr.m = m
			tr.run = train.Prepare(m.net, tg, xs, rows, m.inWidth(), train.Settings{
				LR: c.LR, WeightDecay: c.WeightDecay, AdamW: c.AdamW, EMA: c.EMA, BatchSize: c.BatchSize,
				MaxEpochs: c.MaxEpochs, Patience: c.Patience, LRDrops: c.LRDrops, LRDropFactor: c.LRDropFactor, ValFrac: c.ValFrac, Seed: c.Seed,
				DepthTemps: c.depthTemps(), Score: c.stopScore(tctx, m, x, cols, y), FreezeEncoder: c.Pretrain != "",
			})
		}
		stopped, err := tr.run.Continue(tctx, upTo, nil)
		tr.t.ValLoss = tr.run.BestLoss()
		if err == nil {
			tr.t.Status = stopped
			return nil
		}
		st := ended(err)
		if st == "" {
			return err
		}
		tr.t.Status = st
		if st == "diverged" {
			tr.t.ValLoss = math.Inf(1)
		}
		return nil
	}
	// finish ends tr's run, keeping its best weights.
	finish := func(tr *trialRun, status string) {
		if tr.run == nil {
			return
		}
		if tr.t.Status == "" {
			tr.t.Status = status
		}
		res := tr.run.Finish(tr.t.Status)
		tr.m.net.Freeze() // trained: from here it only predicts (as fitMember's models)
		tr.t.Epochs, tr.t.Best = res.Epochs, res.BestEpoch
		tr.m.info = TrainInfo{
			Rows: rows, ValRows: res.ValRows, Features: cols, Params: tr.m.net.NumParams(),
			Epochs: res.Epochs, BestEpoch: res.BestEpoch, BestValLoss: res.BestValLoss, Stopped: res.Stopped, LRDrops: res.LRDrops,
			Seconds: tr.t.Seconds, Kernel: gemm.Kernel(), Threads: tr.m.net.Threads(), Version: Version,
			Created: time.Now().UTC().Format(time.RFC3339), Pretrain: tr.pre,
		}
		tr.run = nil // its optimizer state is no longer needed
	}
	all := slices.Clone(race)
	var failed error
	upTo := opts.Rung
	// The first rung trains the base first, then the others from the
	// cheapest (by a count of the multiply-adds of a row's pass); a trial
	// that the time per unit of cost measured so far says cannot finish
	// its first rung within the first third of the budget is skipped.
	cost := make(map[*trialRun]float64, len(race))
	for _, tr := range race {
		cost[tr] = trialCost(tr.t.Config, cols)
	}
	// The speed estimate counts a row's pass as at least rowOverhead
	// multiply-adds: a small trial spends most of its time beside them
	// (batches, losses, the validation), so its speed per multiply-add
	// made a large trial look several times slower than it is.
	timed := func(tr *trialRun) float64 { return cost[tr] + rowOverhead }
	slices.SortStableFunc(race[1:], func(a, b *trialRun) int { return cmp.Compare(cost[a], cost[b]) })
	var spentSecs, spentCost float64 // over finished first-rung steps
rungs:
	for len(race) > 0 {
		for _, tr := range race {
			if tctx.Err() != nil {
				break rungs
			}
			if tr.t.Status != "" && tr.t.Status != "halving" {
				continue // ended: early stopping, max epochs, refused, diverged, skipped
			}
			first := tr.run == nil
			if first && tr.t.N > 1 && spentCost > 0 {
				// The first rung may take a third of the budget: the
				// rest is for the rungs that train the best further.
				left := opts.Budget.Seconds()/3 - time.Since(start).Seconds()
				if est := spentSecs / spentCost * timed(tr) * float64(min(upTo, tr.t.Config.MaxEpochs)); est > left {
					tr.t.Status = "skipped"
					report(tr)
					continue
				}
			}
			tr.t.Status = ""
			secs0 := tr.t.Seconds
			if err := step(tr, upTo); err != nil {
				failed = err
				break rungs
			}
			if first && tr.run != nil && tr.run.Epochs() > 0 {
				spentSecs += tr.t.Seconds - secs0
				if tr.pre != nil {
					// The speed is the head's epochs': a first stage
					// (Config.Pretrain) is neither counted nor estimated.
					spentSecs -= tr.pre.Seconds
				}
				spentCost += timed(tr) * float64(tr.run.Epochs())
			}
			if tr.t.Status == "" {
				tr.t.Status = "halving" // paused at the rung
			}
			if tr.run != nil {
				tr.t.Epochs = tr.run.Epochs()
			}
			report(tr)
		}
		if tctx.Err() != nil {
			break // the budget ran out or the caller cancelled: no halving
		}
		// Keep the best 1/Eta of the race; trials that have ended stay
		// in it (they compete) but train no more.
		live := race[:0]
		for _, tr := range race {
			if tr.run != nil && tr.t.Status != "diverged" {
				live = append(live, tr)
			} else if tr.run != nil {
				finish(tr, "diverged")
			}
		}
		race = live
		slices.SortStableFunc(race, func(a, b *trialRun) int { return cmp.Compare(a.t.ValLoss, b.t.ValLoss) })
		keep := max(1, (len(race)+opts.Eta-1)/opts.Eta)
		kept := race[:keep:keep]
		for _, tr := range race[keep:] {
			if tr.t.N == 1 && tr.t.Status == "halving" {
				kept = append(kept, tr) // the base settings are never dropped
				continue
			}
			if tr.t.Status == "halving" {
				tr.t.Status = "halved" // trials that ended keep their status
			}
			finish(tr, tr.t.Status)
		}
		race = kept
		running := false
		for _, tr := range race {
			if tr.t.Status == "halving" {
				running = true
			}
		}
		if !running {
			break
		}
		upTo *= opts.Eta
	}
	cut := tctx.Err() != nil && ctx.Err() == nil
	skipped := false
	for _, tr := range all {
		if tr.t.Status == "halving" || tr.t.Status == "" {
			switch {
			case ctx.Err() != nil: // also a trial that had not started
				tr.t.Status = "cancelled"
			case cut:
				tr.t.Status = "budget"
			case tr.run != nil:
				tr.t.Status = "cancelled"
			}
		}
		finish(tr, tr.t.Status)
		// A skip is decided from the speed measured on this run's
		// trials, so another run (another machine, another load) may
		// train that trial: the choice is as reproducible as a cut.
		skipped = skipped || tr.t.Status == "skipped"
	}
	rep.Cut = cut || skipped
	rep.Seconds = time.Since(start).Seconds()
	if failed != nil {
		return nil, rep, failed
	}
	// The best trials that trained at least one epoch.
	var done []*trialRun
	for _, tr := range all {
		if tr.m != nil && tr.t.Best > 0 && !math.IsInf(tr.t.ValLoss, 0) && !math.IsNaN(tr.t.ValLoss) {
			done = append(done, tr)
		}
	}
	if len(done) == 0 {
		err := fmt.Errorf("%w of %v (raise it)", ErrBudgetTooShort, opts.Budget)
		if ctx.Err() != nil {
			err = fmt.Errorf("decoreg: tuning cancelled before a trial finished an epoch: %w", ctx.Err())
		}
		return nil, rep, err
	}
	slices.SortStableFunc(done, func(a, b *trialRun) int { return cmp.Compare(a.t.ValLoss, b.t.ValLoss) })
	members := []*Model{done[0].m}
	done[0].t.Chosen = true
	switch {
	case base.Ensemble > 1 && (opts.EnsembleFrom == EnsembleFromSeeds || opts.EnsembleFrom == EnsembleFromAll):
		seeds, cut, err := trainSeeds(ctx, done[0], x, rows, cols, y, base, opts, rep)
		switch {
		case err != nil:
		case opts.EnsembleFrom == EnsembleFromSeeds || base.Head == HeadPointwise:
			members, err = guardCut(ctx, append(members, seeds...), cut, x, rows, cols, y, base, rep)
			rep.SeedsChosen = len(members) - 1
		default:
			members, err = selectWithSeeds(ctx, done, append(seeds, cut...), x, rows, cols, y, base, rep)
		}
		if err != nil {
			rep.Seconds = time.Since(start).Seconds()
			return nil, rep, err
		}
	case base.Ensemble > 1 && base.Head == HeadPointwise:
		// No likelihood to select by: the best trials by validation MSE.
		for _, tr := range done[1:min(base.Ensemble, len(done))] {
			tr.t.Chosen = true
			members = append(members, tr.m)
		}
	case base.Ensemble > 1 && len(done) > 1:
		picked, err := selectMembers(ctx, trialModels(done), base.Ensemble, x, rows, cols, y, base, rep.Resolution)
		if err != nil {
			return nil, rep, err
		}
		members = members[:0]
		for _, k := range picked {
			done[k].t.Chosen = true
			members = append(members, done[k].m)
		}
	}
	rep.Members = len(members)
	n := len(members)
	m := members[0]
	if n > 1 {
		var err error
		if m, err = NewEnsemble(members...); err != nil {
			return nil, rep, err
		}
	}
	// Whether the training was interrupted; a cancellation during the
	// calibration stops it and leaves the model not calibrated, and one
	// after it stops nothing.
	cancelled := ctx.Err() != nil
	if base.Calibrate && !cancelled {
		val, _ := train.Split(rows, base.ValFrac, base.Seed)
		if err := m.calibrate(ctx, x, cols, y, val, base.CalibrateBy); err != nil {
			if ctx.Err() == nil {
				return nil, rep, err
			}
			rep.Seconds = time.Since(start).Seconds()
			m.info.Seconds = rep.Seconds
			m.info.Tune = rep.clone()
			return m, rep, fmt.Errorf("tuning ended, then %w: %w", ErrCalibrationCancelled, ctx.Err())
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	m.info.Seconds = rep.Seconds
	m.info.Tune = rep.clone() // the caller's report and the model's record are not shared
	if cancelled {
		// Cancelled, whatever stopped the kept trial's own training
		// (early stopping, the budget of a halving round): interrupted
		// while the seeds' members trained, a lone best trial recorded
		// "budget".
		m.info.Stopped = "cancelled"
		if n > 1 {
			return m, rep, fmt.Errorf("decoreg: tuning cancelled (keeping the best trial and %d more member(s) so far): %w", n-1, ctx.Err())
		}
		return m, rep, fmt.Errorf("decoreg: tuning cancelled (keeping the best trial so far): %w", ctx.Err())
	}
	return m, rep, nil
}

// seedsPlanned is the most members (the first included) whose seeds,
// Seed + k, Tune's ensemble may use: none beyond the first from
// EnsembleFromTrials (every trial has Seed); Ensemble from
// EnsembleFromSeeds; and from EnsembleFromAll also Ensemble-1 soft
// seeds' (for a decoder, where the best trial may have a normalized
// tokenization) and the ple seeds' (not for the pointwise head; where
// the best trial's transform is already ple none are trained, which the
// search alone tells, so they are counted).
func seedsPlanned(base Config, opts TuneOptions) int {
	if base.Ensemble <= 1 || opts.EnsembleFrom == EnsembleFromTrials {
		return 1
	}
	n := base.Ensemble
	if opts.EnsembleFrom == "" || opts.EnsembleFrom == EnsembleFromAll {
		if opts.SoftSeeds >= 0 && base.Head == HeadDecoder {
			n += base.Ensemble - 1
		}
		if base.Head != HeadPointwise {
			n += opts.PLESeeds
		}
	}
	return n
}

// trainSeeds trains the seeds' members of EnsembleFromSeeds and
// EnsembleFromAll: base.Ensemble-1 models of best's settings with seeds
// Seed+1, ... (fitMember's member k, holding out the same validation
// rows), within a second opts.Budget, each member in turn given an equal
// share of what is left of it, or, where that share is less than the best
// trial took (memberNeed), that time or all that is left: fewer members,
// each trained to its best epoch, rather than all of them stopped early
// (on large tables every member of equal shares was). It returns those
// that ended by early stopping or their epochs (done) and those the
// budget stopped after an epoch (cut, Stopped "budget", at their best
// epoch); one stopped before its first epoch ended (or before it started),
// or that diverged, is counted in rep.MembersLeftOut. When ctx is cancelled it returns the members so far
// (the last at its best epoch, in done). It records MemberSeconds and
// MembersCut.
func trainSeeds(ctx context.Context, best *trialRun, x []float64, rows, cols int, y []float64, base Config, opts TuneOptions, rep *TuneReport) (done, cut []*Model, err error) {
	c := best.t.Config
	// Members k = 1 .. Ensemble-1 are plain; with soft seeds, members
	// Ensemble .. 2 Ensemble-2 are soft, each in turn given its share of
	// what the plain ones left; then the ple seeds' members.
	total := base.Ensemble
	if softSeeds(best.m, opts) {
		total = 2*base.Ensemble - 1
		rep.SoftSeeds = opts.SoftSeeds
	}
	softEnd := total // the soft members are k < softEnd
	n, skip := pleSeeds(best.m, base, opts)
	if n > 0 {
		if skip = pleSeedsFit(pleSeedConfig(c, base), x, rows, cols); skip != "" {
			n = 0
		}
	}
	total += n
	rep.PLESeeds, rep.PLESeedsSkipped = n, skip
	// Progress.Members counts them all (2N-1 and more may exceed MaxEnsemble); the
	// members' own settings are the best trial's, Ensemble 0 as every
	// trial's.
	o := fitOptions{progress: opts.MemberProgress, resolution: rep.Resolution, members: total}
	mstart := time.Now()
	defer func() { rep.MemberSeconds = time.Since(mstart).Seconds() }()
	need := memberNeed(best.t)
	for k := 1; k < total && ctx.Err() == nil; k++ {
		left := opts.Budget - time.Since(mstart)
		extra := k >= base.Ensemble // soft, or ple from softEnd on
		if extra && (left <= 0 || left < need) {
			// Soft and ple seeds' members are extras: one is started only with
			// the time the best trial took (and a quarter more) left, and
			// those not started are not counted as stopped or left out.
			break
		}
		if left <= 0 {
			// The members before took the budget: the rest are stopped
			// before they start (cut and left out), without preparing them.
			rep.MembersCut += base.Ensemble - k
			rep.MembersLeftOut += base.Ensemble - k
			break
		}
		ck, rest := c, base.Ensemble-k // this member's settings, and the members of its kind from it on
		switch {
		case k >= softEnd:
			ck, rest = pleSeedConfig(c, base), total-k
			rep.PLESeedsTrained++
		case extra:
			ck.SoftTargets, rest = opts.SoftSeeds, softEnd-k
			rep.SoftSeedsTrained++
		}
		mctx, mcancel := context.WithTimeout(ctx, memberShare(left, rest, need))
		mk, err := fitMember(mctx, x, rows, cols, y, ck, k, &o, mstart)
		stopped := mctx.Err() != nil && ctx.Err() == nil
		mcancel()
		switch {
		case err == nil:
			done = append(done, mk)
		case ctx.Err() != nil: // cancelled: its best epoch so far, if any
			if mk != nil {
				done = append(done, mk)
			}
		case stopped:
			rep.MembersCut++
			if mk == nil {
				rep.MembersLeftOut++
				continue
			}
			mk.info.Stopped = "budget"
			cut = append(cut, mk)
		case errors.Is(err, train.ErrDiverged):
			rep.MembersLeftOut++
		default:
			return nil, nil, wrapIn(fmt.Sprintf("ensemble member %d of %d (seed %d)", k+1, total, c.Seed+uint64(k)), "", err)
		}
	}
	return done, cut, nil
}

// softSeeds reports whether trainSeeds trains soft seeds' members for the
// best trial's model best: EnsembleFromAll (whose greedy selection keeps
// only those that lower the mixture's validation NLL), SoftSeeds > 0, and
// a decoder of the normalized tokenization without soft targets of its
// own.
func softSeeds(best *Model, opts TuneOptions) bool {
	c := best.cfg
	if opts.EnsembleFrom != EnsembleFromAll || !(opts.SoftSeeds > 0) || c.Head != HeadDecoder || c.SoftTargets > 0 {
		return false
	}
	_, ok := best.tok.(*vocab.Normalized)
	return ok
}

// pleSeeds is the number of ple seeds' members that trainSeeds trains for
// the best trial's model best (TuneOptions.PLESeeds, if any): with
// EnsembleFromAll, a head with a likelihood to select by, and a best
// trial of another input transform than ple. Where some were asked for
// and none are planned, skip says why.
func pleSeeds(best *Model, base Config, opts TuneOptions) (n int, skip string) {
	c := best.cfg
	switch {
	case opts.EnsembleFrom != EnsembleFromAll || opts.PLESeeds <= 0:
		return 0, ""
	case c.Head == HeadPointwise:
		return 0, "the pointwise head has no likelihood to choose them by"
	case c.InputTransform == data.TransformPLE:
		return 0, "the best trial's input transform is ple already"
	}
	return opts.PLESeeds, ""
}

// pleSeedConfig is the settings of the ple seeds' members of the best
// trial's settings c: c with the ple input transform of base's bins (or
// the default bins).
func pleSeedConfig(c, base Config) Config {
	c.InputTransform, c.PLEBins = data.TransformPLE, base.PLEBins
	return DefaultConfig(c)
}

// pleSeedsFit says why the ple seeds' members of settings ck cannot be
// trained on x ("" where they can): their network, on the fitted
// encoding's columns, would be larger than allowed or than memory holds.
// It is checked before they start, so that a search and the seeds
// trained before them are not lost to a member that fitMember would
// refuse (Tune's checks before the search count the trials only). The
// edges are fitted on every row, a member's on its training rows: the
// widths can differ by a few columns near the limit. The memory check is
// of what is free now, with the trials and members held.
func pleSeedsFit(ck Config, x []float64, rows, cols int) string {
	why := func(err error) string {
		var ce *ConfigError
		if errors.As(err, &ce) {
			return ce.Err.Error()
		}
		return err.Error()
	}
	w := data.PLEWidth(data.FitPLE(x, cols, ck.PLEBins))
	if err := ck.checkSize(cols, w); err != nil {
		return why(err)
	}
	p := ck.approxParams() + ck.inputParamsFor(w)
	if err := checkMemory(trainBytes(ck, p, rows, cols), fmt.Sprintf("a ple seed's member (%.3g parameters)", p)); err != nil {
		return why(err)
	}
	return ""
}

// memberNeed is the time a seed's member of trial t's settings is given
// at least, where the second budget allows: the time t took, a quarter
// more for another seed's path to early stopping. For a trial the first
// budget stopped, it is the time the trial had: a member then trains
// about as long as the trial did.
func memberNeed(t *TuneTrial) time.Duration {
	s := 1.25 * t.Seconds
	switch {
	case !(s > 0): // no time recorded: equal shares
		return 0
	case s >= float64(math.MaxInt64/int64(time.Second)):
		return math.MaxInt64
	}
	return time.Duration(s * float64(time.Second))
}

// memberShare is the time the next of n seed members is given, with left
// of the second budget: an equal share, or where that is less than need,
// need or all that is left. An equal share would then stop every member
// far from its best epoch, each of them useless to the mixture.
func memberShare(left time.Duration, n int, need time.Duration) time.Duration {
	share := left / time.Duration(n)
	if share < need {
		share = min(left, need)
	}
	return share
}

// trialModels returns the models of the trials.
func trialModels(trials []*trialRun) []*Model {
	out := make([]*Model, len(trials))
	for k, tr := range trials {
		out[k] = tr.m
	}
	return out
}

// selectWithSeeds is EnsembleFromAll's choice: up to base.Ensemble of the
// trials done (sorted, the best first) and the seeds' members, by greedy
// ensemble selection from the best trial. It marks the chosen trials and
// counts the seeds' members chosen and left out in rep.
func selectWithSeeds(ctx context.Context, done []*trialRun, seeds []*Model, x []float64, rows, cols int, y []float64, base Config, rep *TuneReport) ([]*Model, error) {
	lib := append(trialModels(done), seeds...)
	picked, err := selectMembers(ctx, lib, base.Ensemble, x, rows, cols, y, base, rep.Resolution)
	if err != nil {
		return nil, err
	}
	var members []*Model
	for _, k := range picked {
		members = append(members, lib[k])
		switch {
		case k < len(done):
			done[k].t.Chosen = true
		case lib[k].cfg.SoftTargets > 0 && done[0].t.Config.SoftTargets == 0:
			rep.SeedsChosen++
			rep.SoftSeedsChosen++
		case lib[k].cfg.InputTransform == data.TransformPLE && done[0].t.Config.InputTransform != data.TransformPLE:
			rep.SeedsChosen++
			rep.PLESeedsChosen++
		default:
			rep.SeedsChosen++
		}
	}
	rep.MembersLeftOut += len(seeds) - rep.SeedsChosen
	return members, nil
}

// guardCut returns members followed by those of cut that lower the
// validation score of the mixture so far (mixScorer's), in order (EnsembleFromSeeds: a
// half-trained model can make the mixture worse), counting the others in
// rep.MembersLeftOut. The pointwise head, without a likelihood, keeps
// them all.
func guardCut(ctx context.Context, members, cut []*Model, x []float64, rows, cols int, y []float64, base Config, rep *TuneReport) ([]*Model, error) {
	if len(cut) == 0 || base.Head == HeadPointwise {
		return append(members, cut...), nil
	}
	score, err := mixScorer(ctx, append(slices.Clone(members), cut...), x, rows, cols, y, base, rep.Resolution)
	if err != nil {
		if ctx.Err() != nil {
			rep.MembersLeftOut += len(cut) // interrupted while scoring them
			return members, nil
		}
		return nil, err
	}
	set := make([]int, len(members))
	for i := range set {
		set[i] = i
	}
	out := members
	cur := score(set)
	for j, mk := range cut {
		k := len(members) + j
		if v := score(append(slices.Clone(set), k)); v < cur {
			set, cur, out = append(set, k), v, append(out, mk)
			continue
		}
		rep.MembersLeftOut++
	}
	return out, nil
}

// tuneTrialJSON is TuneTrial's JSON form: an infinite or NaN ValLoss (a
// trial that did not finish an epoch) is written as "+Inf" or null.
type tuneTrialJSON struct {
	*plainTrial
	ValLoss jsonfloat.Float `json:"val_loss"`
}

type plainTrial TuneTrial // TuneTrial without its methods

// MarshalJSON implements json.Marshaler.
func (t TuneTrial) MarshalJSON() ([]byte, error) {
	return json.Marshal(tuneTrialJSON{(*plainTrial)(&t), jsonfloat.Float(t.ValLoss)})
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *TuneTrial) UnmarshalJSON(b []byte) error {
	j := tuneTrialJSON{(*plainTrial)(t), jsonfloat.Float(math.NaN())}
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	t.ValLoss = float64(j.ValLoss)
	return nil
}
