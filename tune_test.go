package decoreg

import (
	"context"
	"decoreg/data"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tinyGrid is a quick grid for tests: learning rates and encoder widths.
func tinyGrid(Config) []tuneAxis {
	return []tuneAxis{
		{"lr", []string{"1e-2", "3e-3", "1e-3", "1e-5"}, func(c *Config, v string) { c.LR, _ = strconv.ParseFloat(v, 64) }},
		{"enc_width", []string{"8", "16", "32"}, func(c *Config, v string) { c.EncWidth, _ = strconv.Atoi(v) }},
	}
}

// Tune chooses the trial with the lowest validation loss; successive
// halving trains the best 1/Eta on; the same seed gives the same trials
// and choice; the model carries the history through Save and Load.
func TestTune(t *testing.T) {
	x, y := toyData(400, 1)
	base := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 8, Components: 2, MaxEpochs: 20, Patience: 3, LR: 1e-3, Seed: 3, Threads: 1}
	opts := TuneOptions{Trials: 6, Eta: 3, Rung: 2, Budget: time.Minute, grid: tinyGrid}
	var calls int
	opts.Progress = func(TuneTrial) { calls++ }
	m, rep, err := Tune(context.Background(), x, len(y), 1, y, base, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range rep.Trials {
		t.Logf("%d %-30s loss %.4f epochs %d best %d %s chosen %v", tr.N, tr.Label, tr.ValLoss, tr.Epochs, tr.Best, tr.Status, tr.Chosen)
	}
	if len(rep.Trials) != 6 || rep.Trials[0].Label != "given" || rep.Cut || calls < 6 {
		t.Fatalf("report %+v, %d progress calls", rep, calls)
	}
	best, halved := -1, 0
	for i, tr := range rep.Trials {
		if best < 0 || tr.ValLoss < rep.Trials[best].ValLoss {
			best = i
		}
		if tr.Status == "halved" {
			halved++
			if tr.Epochs != 2 && tr.Epochs != 6 && tr.Epochs != 18 {
				t.Errorf("trial %d halved after %d epochs, want a rung's end (2, 6, 18)", tr.N, tr.Epochs)
			}
		}
		if tr.Chosen != (i == best) && tr.Chosen {
			t.Errorf("trial %d chosen, the argmin is trial %d", tr.N, best+1)
		}
	}
	if !rep.Trials[best].Chosen {
		t.Errorf("the argmin, trial %d, was not chosen: %+v", best+1, rep.Trials)
	}
	if rep.Trials[0].Status == "halved" {
		t.Errorf("the base settings were halved: %+v", rep.Trials[0])
	}
	if halved < 3 {
		t.Errorf("%d trials halved after the first rung, want at least 3 of 6 (Eta 3): %+v", halved, rep.Trials)
	}
	if got := m.Info().BestValLoss; !(math.Abs(got-rep.Trials[best].ValLoss) <= 1e-12) {
		t.Errorf("model's validation loss %v, chosen trial's %v", got, rep.Trials[best].ValLoss)
	}
	if m.Config().LR != rep.Trials[best].Config.LR || m.Config().EncWidth != rep.Trials[best].Config.EncWidth {
		t.Errorf("model config %+v, chosen %+v", m.Config(), rep.Trials[best].Config)
	}
	// The same seed: the same trials, the same model.
	m2, rep2, err := Tune(context.Background(), x, len(y), 1, y, base, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rep.Trials {
		a, b := rep.Trials[i], rep2.Trials[i]
		if a.Label != b.Label || a.ValLoss != b.ValLoss || a.Epochs != b.Epochs || a.Chosen != b.Chosen {
			t.Errorf("trial %d: %+v, then %+v", i+1, a, b)
		}
	}
	if !slices.Equal(m.net.Params(), m2.net.Params()) {
		t.Error("the same seed gave different weights")
	}
	// A re-trained model of the chosen settings matches (the trial is a
	// plain training run of those settings, stopped where it stopped).
	path := filepath.Join(t.TempDir(), "t.model")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if tr := back.Info().Tune; tr == nil || len(tr.Trials) != 6 || tr.Trials[best].ValLoss != rep.Trials[best].ValLoss || !tr.Trials[best].Chosen {
		t.Errorf("loaded trial history %+v", tr)
	}
}

// The chosen trial equals a plain FitFlat of its settings when it ran to
// its end (successive halving only pauses it between rungs).
func TestTuneTrialIsAFit(t *testing.T) {
	x, y := toyData(300, 2)
	base := Config{Head: HeadRiemann, EncLayers: 1, EncWidth: 8, Bins: 16, MaxEpochs: 12, Patience: 100, LR: 1e-3, Seed: 5, Threads: 1}
	m, rep, err := Tune(context.Background(), x, len(y), 1, y, base, TuneOptions{Trials: 3, Rung: 1, Budget: time.Minute, grid: tinyGrid})
	if err != nil {
		t.Fatal(err)
	}
	var chosen TuneTrial
	for _, tr := range rep.Trials {
		if tr.Chosen {
			chosen = tr
		}
	}
	if chosen.Status != "max-epochs" {
		t.Skipf("the chosen trial ended by %q", chosen.Status)
	}
	f, err := FitFlat(context.Background(), x, len(y), 1, y, chosen.Config)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.net.Params(), m.net.Params()) {
		t.Error("the chosen trial's weights differ from a plain fit of its settings")
	}
}

// The budget stops the trials where they are.
func TestTuneBudget(t *testing.T) {
	x, y := toyData(4000, 1)
	base := Config{Head: HeadMDN, EncLayers: 2, EncWidth: 64, MaxEpochs: 300, Patience: 300, BatchSize: 8, Seed: 1, Threads: 1}
	budget := 600 * time.Millisecond
	start := time.Now()
	m, rep, err := Tune(context.Background(), x, len(y), 1, y, base, TuneOptions{Trials: 3, Rung: 1, Budget: budget, grid: tinyGrid})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Cut || took > budget+3*time.Second {
		t.Errorf("cut %v, took %v for a budget of %v", rep.Cut, took, budget)
	}
	n := 0
	for _, tr := range rep.Trials {
		if tr.Status == "budget" {
			n++
		}
	}
	if n == 0 || m == nil {
		t.Errorf("no trial stopped by the budget: %+v", rep.Trials)
	}
	// A trial far costlier than the base, which its speed says cannot
	// finish a first rung in the budget, is skipped, not started.
	wide := func(Config) []tuneAxis {
		return []tuneAxis{{"enc_width", []string{"2048"}, func(c *Config, v string) { c.EncWidth, _ = strconv.Atoi(v) }}}
	}
	small := Config{Head: HeadMDN, EncLayers: 3, EncWidth: 8, MaxEpochs: 2, Patience: 300, Seed: 1, Threads: 1}
	_, rep, err = Tune(context.Background(), x, len(y), 1, y, small, TuneOptions{Trials: 2, Rung: 1, Budget: time.Second, grid: wide})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Trials[1].Status != "skipped" || rep.Trials[1].Epochs != 0 {
		t.Errorf("the 2048-wide trial: %+v, want skipped", rep.Trials[1])
	}
	if rep.Trials[0].Status != "max-epochs" || !rep.Cut {
		t.Errorf("the base trial ended %q (want max-epochs, within the budget) and a trial was skipped at the measured speed, but the report says cut %v", rep.Trials[0].Status, rep.Cut)
	}
	// A first rung longer than MaxEpochs: the speed estimate counts the
	// epochs a trial will train (it counted the rung's, and skipped every
	// trial but the base).
	long := base
	long.MaxEpochs = 4
	_, rep, err = Tune(context.Background(), x, len(y), 1, y, long, TuneOptions{Trials: 3, Rung: math.MaxInt, Budget: time.Minute, grid: tinyGrid})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range rep.Trials {
		if tr.Status == "skipped" || tr.Epochs == 0 {
			t.Errorf("rung MaxInt, 4 epochs: trial %d %q after %d epochs", tr.N, tr.Status, tr.Epochs)
		}
	}
	// Too small a budget for one epoch: an error, no model. The epoch (3,600
	// steps of one row) takes far longer than the budget plus the few
	// milliseconds a busy goroutine can hold back the budget's timer
	// (until it is preempted), which with batches of 8 it did not.
	one := base
	one.BatchSize = 1
	if m, _, err := Tune(context.Background(), x, len(y), 1, y, one, TuneOptions{Trials: 2, Budget: time.Millisecond, grid: tinyGrid}); !errors.Is(err, ErrBudgetTooShort) || m != nil {
		t.Errorf("1 ms budget: %v, %v; want ErrBudgetTooShort", m, err)
	}
}

// With Ensemble the trials are chosen greedily: the best trial first, and
// each one added lowers the validation NLL of the mixture (so the
// ensemble is no worse than the best trial on the validation rows).
func TestTuneEnsemble(t *testing.T) {
	x, y := toyData(400, 1)
	// Two settings as good as the base (other widths: other
	// initialisations), and a useless one (lr 1e-7), which must not join.
	grid := func(Config) []tuneAxis {
		return []tuneAxis{{"width_lr", []string{"17", "18", "x"}, func(c *Config, v string) {
			if v == "x" {
				c.LR = 1e-7
				return
			}
			c.EncWidth, _ = strconv.Atoi(v)
		}}}
	}
	base := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 16, Components: 2, MaxEpochs: 300, Patience: 20, LR: 3e-3, Seed: 3, Threads: 1, Ensemble: 3}
	m, rep, err := Tune(context.Background(), x, len(y), 1, y, base, TuneOptions{Trials: 4, Rung: 300, Budget: time.Minute, grid: grid, EnsembleFrom: EnsembleFromTrials})
	if err != nil {
		t.Fatal(err)
	}
	ms := m.Members()
	if len(ms) < 2 || len(ms) > 3 || rep.Members != len(ms) {
		t.Fatalf("ensemble of %d (report %d): the greedy selection found no trial to add on this data", len(ms), rep.Members)
	}
	best := math.Inf(1)
	chosen := 0
	for _, tr := range rep.Trials {
		best = math.Min(best, tr.ValLoss)
		if tr.Chosen {
			chosen++
			if tr.Config.LR == 1e-7 {
				t.Errorf("the useless trial %d joined the ensemble", tr.N)
			}
		}
	}
	if ms[0].info.BestValLoss != best || chosen != len(ms) {
		t.Errorf("first member's loss %v, the best %v; %d trials marked chosen for %d members", ms[0].info.BestValLoss, best, chosen, len(ms))
	}
	// The mixture's validation NLL: below the best trial's, and each
	// prefix of the members lowers it.
	val := valRows(t, x, y, DefaultConfig(base))
	prefixesLowerNLL(t, ms, val)
	if _, _, err := Tune(context.Background(), x, len(y), 1, y, Config{Head: HeadMDN, Ensemble: 5}, TuneOptions{Trials: 3, EnsembleFrom: EnsembleFromTrials}); err == nil {
		t.Error("an ensemble of 5 from 3 trials was accepted")
	}
}

// The default grid of every head: trial 1 is the base, the others differ
// from it and from each other, and every one passes Validate. Trial 1 is
// labelled "defaults" for the head's defaults (with Tune's moving
// average), and "given" for other settings (it was "defaults" whatever
// they were; helper-135).
func TestTuneGrid(t *testing.T) {
	for _, h := range Heads {
		base := DefaultConfig(Config{Head: h, Seed: 9, Threads: 1, EMA: DefaultTuneEMA, Calibrate: h != HeadPointwise})
		cfgs, labels := tuneConfigs(base, 50, tuneGrid)
		if len(cfgs) != 50 || labels[0] != "defaults" || cfgs[0] != base {
			t.Fatalf("%s: %d configs, first %q", h, len(cfgs), labels[0])
		}
		for _, change := range []func(*Config){
			func(c *Config) { c.MaxEpochs = 7 },
			func(c *Config) { c.InputTransform = data.TransformPLE },
			func(c *Config) { c.EMA = 0 },
		} {
			given := base
			change(&given)
			if _, labels := tuneConfigs(given, 2, tuneGrid); labels[0] != "given" {
				t.Errorf("%s: a base other than the defaults (%+v) is labelled %q", h, given, labels[0])
			}
		}
		for i, c := range cfgs {
			if err := c.Validate(); err != nil {
				t.Errorf("%s trial %d (%s): %v", h, i+1, labels[i], err)
			}
			for j := range i {
				if cfgs[j] == c {
					t.Errorf("%s: trials %d and %d are the same", h, j+1, i+1)
				}
			}
		}
		again, _ := tuneConfigs(base, 50, tuneGrid)
		if !slices.Equal(again, cfgs) {
			t.Errorf("%s: the same seed drew different trials", h)
		}
		if TuneGrid(h) == "" {
			t.Errorf("%s: no grid description", h)
		}
	}
	// Too many large trials for memory: refused before any is made.
	x, y := toyData(50, 1)
	_, _, err := Tune(context.Background(), x, len(y), 1, y, Config{Head: HeadRiemann}, TuneOptions{Trials: 200})
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Field != "Trials" {
		t.Errorf("200 Riemann trials: %v, want a ConfigError naming Trials", err)
	}
}

// A cancelled Tune gives every trial a final status ("cancelled" also for
// one that never started), and its report is not the model's own record:
// changing one leaves the other (and the saved file) as it was.
func TestTuneCancelledAndCopies(t *testing.T) {
	x, y := toyData(4000, 1)
	base := Config{Head: HeadMDN, EncLayers: 2, EncWidth: 64, MaxEpochs: 300, Patience: 300, BatchSize: 8, Seed: 1, Threads: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	m, rep, err := Tune(ctx, x, len(y), 1, y, base, TuneOptions{Trials: 4, Rung: 50, Budget: time.Minute, grid: tinyGrid})
	if !errors.Is(err, context.DeadlineExceeded) || m == nil {
		t.Fatalf("cancelled Tune: %v, %v", m, err)
	}
	for _, tr := range rep.Trials {
		if tr.Status == "" {
			t.Errorf("trial %d has no status after the cancel: %+v", tr.N, tr)
		}
	}
	label := m.Info().Tune.Trials[0].Label
	rep.Trials[0].Label = "changed by the caller"
	m.Info().Tune.Trials[0].Label = "changed through Info"
	if got := m.Info().Tune.Trials[0].Label; got != label {
		t.Errorf("the model's trial history changed: %q", got)
	}
}

// EnsembleFrom seeds: the best trial and Ensemble-1 more seeds of its
// settings, each member k the same weights, bit for bit, as FitFlat's
// member k of those settings (seed Seed+k, the same validation rows); it
// needs no more trials than members; a bad value is refused.
func TestTuneEnsembleFromSeeds(t *testing.T) {
	x, y := toyData(300, 1)
	base := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 8, Components: 2, MaxEpochs: 15, Patience: 3, LR: 3e-3, Seed: 4, Threads: 1, Ensemble: 3}
	var epochs []Progress
	m, rep, err := Tune(context.Background(), x, len(y), 1, y, base, TuneOptions{Trials: 2, Rung: 2, Budget: time.Minute, grid: tinyGrid,
		EnsembleFrom: EnsembleFromSeeds, MemberProgress: func(p Progress) { epochs = append(epochs, p) }})
	if err != nil {
		t.Fatal(err)
	}
	ms := m.Members()
	if len(ms) != 3 || rep.Members != 3 || rep.EnsembleFrom != EnsembleFromSeeds || rep.MembersCut != 0 || !(rep.MemberSeconds > 0) {
		t.Fatalf("%d members; report %+v", len(ms), rep)
	}
	var chosen []TuneTrial
	for _, tr := range rep.Trials {
		if tr.Chosen {
			chosen = append(chosen, tr)
		}
	}
	if len(chosen) != 1 || ms[0].info.BestValLoss != chosen[0].ValLoss {
		t.Fatalf("chosen trials %+v; first member's validation loss %v", chosen, ms[0].info.BestValLoss)
	}
	c := chosen[0].Config
	c.Ensemble = 3
	f, err := FitFlat(context.Background(), x, len(y), 1, y, c)
	if err != nil {
		t.Fatal(err)
	}
	for k := 1; k < 3; k++ {
		if !slices.Equal(f.Members()[k].net.Params(), ms[k].net.Params()) {
			t.Errorf("member %d differs from FitFlat's member %d of the chosen settings", k, k)
		}
		if ms[k].Config().Seed != c.Seed+uint64(k) {
			t.Errorf("member %d: seed %d, want %d", k, ms[k].Config().Seed, c.Seed+uint64(k))
		}
	}
	if len(epochs) == 0 || epochs[0].Member != 1 || epochs[len(epochs)-1].Member != 2 || epochs[0].Members != 3 {
		t.Errorf("member progress: %d calls, first %+v", len(epochs), epochs)
	}
	if _, _, err := Tune(context.Background(), x, len(y), 1, y, base, TuneOptions{Trials: 2, grid: tinyGrid, EnsembleFrom: "members"}); err == nil {
		t.Error("EnsembleFrom \"members\" was accepted")
	}
	// Without Ensemble it is the single best trial.
	one := base
	one.Ensemble = 0
	if m, rep, err := Tune(context.Background(), x, len(y), 1, y, one, TuneOptions{Trials: 2, Rung: 2, Budget: time.Minute, grid: tinyGrid, EnsembleFrom: EnsembleFromSeeds}); err != nil || m.EnsembleSize() != 1 || rep.EnsembleFrom != "" {
		t.Errorf("no ensemble: %v members, report %+v, %v", m.EnsembleSize(), rep, err)
	}
}

// The members' budget stops them where they are (each keeps its best
// epoch), and a cancel while they train keeps the members so far. Here the
// best trial trained for the whole first budget, so the first member gets
// the whole second one (memberShare) and the second is stopped before it
// starts: cut and left out, without an epoch.
func TestTuneSeedsBudgetAndCancel(t *testing.T) {
	x, y := toyData(4000, 1)
	base := Config{Head: HeadMDN, EncLayers: 2, EncWidth: 64, MaxEpochs: 300, Patience: 300, BatchSize: 8, Seed: 1, Threads: 1, Ensemble: 3}
	budget := 800 * time.Millisecond
	start := time.Now()
	trained := map[int]bool{}
	m, rep, err := Tune(context.Background(), x, len(y), 1, y, base, TuneOptions{Trials: 1, Rung: 1, Budget: budget, EnsembleFrom: EnsembleFromSeeds,
		MemberProgress: func(p Progress) { trained[p.Member] = true }})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if !trained[1] || trained[2] {
		t.Errorf("members that trained an epoch: %v, want member 1 only", trained)
	}
	// Member 1 joins only if it lowers the mixture's validation NLL.
	if rep.MembersCut != 2 || took > 2*budget+3*time.Second || m.EnsembleSize()+rep.MembersLeftOut != 3 || rep.MembersLeftOut < 1 || rep.Members != m.EnsembleSize() {
		t.Errorf("members cut %d, left out %d, %d members, took %v for a budget of %v", rep.MembersCut, rep.MembersLeftOut, m.EnsembleSize(), took, budget)
	}
	for k, mk := range m.Members()[1:] {
		if mk.Info().Stopped != "budget" || mk.Info().BestEpoch < 1 {
			t.Errorf("seed member %d: stopped %q at best epoch %d, want \"budget\" after an epoch", k+1, mk.Info().Stopped, mk.Info().BestEpoch)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	small := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 8, Components: 2, MaxEpochs: 50, Patience: 50, Seed: 2, Threads: 1, Ensemble: 4}
	m, _, err = Tune(ctx, x[:400], 400, 1, y[:400], small, TuneOptions{Trials: 1, Budget: time.Minute, EnsembleFrom: EnsembleFromSeeds,
		MemberProgress: func(p Progress) {
			if p.Member == 2 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) || m == nil || m.EnsembleSize() != 3 || m.Info().Stopped != "cancelled" || !strings.Contains(err.Error(), "2 more member(s)") {
		t.Errorf("cancelled in member 3 of 4: %v, %v", m, err)
	}
	// Cancelled once the one trial has ended (by its epochs), before a
	// seed's member starts: the lone trial's model records "cancelled",
	// not why the trial itself stopped.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	small.MaxEpochs = 2
	m, rep, err = Tune(ctx, x[:400], 400, 1, y[:400], small, TuneOptions{Trials: 1, Budget: time.Minute, EnsembleFrom: EnsembleFromSeeds,
		Progress: func(tr TuneTrial) {
			if tr.Status != "" {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) || m == nil || m.EnsembleSize() != 1 || m.Info().Stopped != "cancelled" || rep.Trials[0].Status != "max-epochs" {
		t.Errorf("cancelled before the seeds' members: %v, stopped %q, trial %+v", err, m.Info().Stopped, rep.Trials)
	}
}

// EnsembleFrom all: greedy selection among the trials and the seeds'
// members: the best trial first, each member added lowers the mixture's
// validation NLL, and SeedsChosen counts the seeds among them.
func TestTuneEnsembleFromAll(t *testing.T) {
	x, y := toyData(400, 1)
	base := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 16, Components: 2, MaxEpochs: 300, Patience: 20, LR: 3e-3, Seed: 3, Threads: 1, Ensemble: 4}
	m, rep, err := Tune(context.Background(), x, len(y), 1, y, base, TuneOptions{Trials: 2, Rung: 300, Budget: time.Minute, grid: tinyGrid}) // the default: all
	if err != nil {
		t.Fatal(err)
	}
	ms := m.Members()
	trials := 0
	for _, tr := range rep.Trials {
		if tr.Chosen {
			trials++
		}
	}
	if rep.EnsembleFrom != EnsembleFromAll || rep.Members != len(ms) || trials+rep.SeedsChosen != len(ms) || rep.SeedsChosen+rep.MembersLeftOut != 3 || rep.SeedsChosen == 0 {
		t.Fatalf("%d members, %d trials chosen, report %+v", len(ms), trials, rep)
	}
	val := valRows(t, x, y, DefaultConfig(base))
	prefixesLowerNLL(t, ms, val)
}

// The pointwise head has no likelihood to choose by: with all (the
// default) it takes the best trial and its seeds, counted as chosen seeds;
// a cancel while the seeds train under all still chooses greedily among
// the trials and the seeds so far, and the counts add up.
func TestTuneAllPointwiseAndCancel(t *testing.T) {
	x, y := toyData(300, 1)
	pw := Config{Head: HeadPointwise, EncLayers: 1, EncWidth: 8, MaxEpochs: 10, Patience: 3, LR: 3e-3, Seed: 2, Threads: 1, Ensemble: 3}
	m, rep, err := Tune(context.Background(), x, len(y), 1, y, pw, TuneOptions{Trials: 2, Rung: 2, Budget: time.Minute, grid: tinyGrid})
	if err != nil {
		t.Fatal(err)
	}
	if m.EnsembleSize() != 3 || rep.SeedsChosen != 2 || rep.MembersLeftOut != 0 {
		t.Errorf("pointwise, all: %d members, report %+v", m.EnsembleSize(), rep)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 8, Components: 2, MaxEpochs: 50, Patience: 50, LR: 3e-3, Seed: 2, Threads: 1, Ensemble: 4}
	m, rep, err = Tune(ctx, x, len(y), 1, y, base, TuneOptions{Trials: 2, Rung: 50, Budget: time.Minute, grid: tinyGrid,
		MemberProgress: func(p Progress) {
			if p.Member == 2 && p.Epoch == 3 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) || m == nil {
		t.Fatalf("cancelled: %v, %v", m, err)
	}
	trials := 0
	for _, tr := range rep.Trials {
		if tr.Chosen {
			trials++
		}
	}
	if trials+rep.SeedsChosen != m.EnsembleSize() || rep.SeedsChosen+rep.MembersLeftOut != 2 || m.Info().Stopped != "cancelled" && m.EnsembleSize() > 1 {
		t.Errorf("cancelled under all: %d members, %d trials chosen, report %+v", m.EnsembleSize(), trials, rep)
	}
}

// prefixesLowerNLL checks that each prefix of the members ms lowers the
// mixture's NLL on the validation rows val.
func prefixesLowerNLL(t *testing.T, ms []*Model, val rowsXY) {
	t.Helper()
	prev := math.Inf(1)
	for k := 1; k <= len(ms); k++ {
		e := ms[0]
		if k > 1 {
			var err error
			if e, err = NewEnsemble(ms[:k]...); err != nil {
				t.Fatal(err)
			}
		}
		ev, err := e.Evaluate(context.Background(), val.x, len(val.y), val.y, "")
		if err != nil {
			t.Fatal(err)
		}
		if !(ev.NLL < prev) {
			t.Errorf("the first %d members: validation NLL %v, not below %v", k, ev.NLL, prev)
		}
		prev = ev.NLL
	}
}

// The seeds' members share the second budget equally where each share
// covers the time the best trial took (a quarter more), and otherwise get
// that time in turn while the budget lasts: on parkinsons (5,287 rows,
// one thread) four equal shares of 3 minutes stopped every member at a
// third of the best trial's epochs.
func TestMemberShare(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		left  time.Duration
		n     int
		need  time.Duration
		share time.Duration
	}{
		{180 * s, 4, 0, 45 * s},        // no need known: equal shares
		{180 * s, 4, 30 * s, 45 * s},   // the share covers the need
		{180 * s, 4, 136 * s, 136 * s}, // it does not: the need
		{44 * s, 3, 136 * s, 44 * s},   // nor does what is left: all of it
		{0, 2, 136 * s, 0},
	} {
		if got := memberShare(c.left, c.n, c.need); got != c.share {
			t.Errorf("memberShare(%v, %d, %v) = %v, want %v", c.left, c.n, c.need, got, c.share)
		}
	}
	for _, c := range []struct {
		secs float64
		need time.Duration
	}{{100, 125 * s}, {0, 0}, {math.NaN(), 0}, {-1, 0}, {1e300, math.MaxInt64}} {
		if got := memberNeed(&TuneTrial{Seconds: c.secs}); got != c.need {
			t.Errorf("memberNeed of a %v s trial: %v, want %v", c.secs, got, c.need)
		}
	}
}

// tuneTiny runs Tune with 2 trials of tinyGrid (unless opts has a grid),
// rungs of 40 epochs and a minute's budget, and returns the model, the
// report and, per seeds' member, the Members count of its progress.
func tuneTiny(t *testing.T, x, y []float64, base Config, opts TuneOptions) (*Model, *TuneReport, map[int]int) {
	t.Helper()
	trained := map[int]int{} // member -> Members of its progress
	opts.Trials, opts.Rung, opts.Budget = 2, 40, time.Minute
	if opts.grid == nil {
		opts.grid = tinyGrid
	}
	opts.MemberProgress = func(p Progress) { trained[p.Member] = p.Members }
	m, rep, err := Tune(context.Background(), x, len(y), 1, y, base, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m, rep, trained
}

// Soft seeds: with EnsembleFrom all and a normalized decoder, Ensemble-1
// more seeds' members with SoftSeeds as their soft targets (seeds after
// the plain ones') are trained after the plain ones and offered to the
// greedy selection, which still only adds members that lower the
// mixture's validation NLL; SoftSeedsChosen counts them. SoftSeeds < 0,
// EnsembleFrom seeds and other heads train none; bad values are refused.
func TestTuneSoftSeeds(t *testing.T) {
	x, y := toyData(400, 1)
	base := Config{Head: HeadDecoder, Vocab: "normalized:base=4,length=3", EncLayers: 1, EncWidth: 16, DecWidth: 16, MaxEpochs: 40, Patience: 5, LR: 3e-3, Seed: 3, Threads: 1, Ensemble: 3}
	run := func(opts TuneOptions) (*Model, *TuneReport, map[int]int) {
		t.Helper()
		return tuneTiny(t, x, y, base, opts)
	}
	m, rep, trained := run(TuneOptions{})
	if len(trained) != 4 || trained[4] != 5 || rep.SoftSeeds != DefaultSoftSeeds || rep.SoftSeedsTrained != 2 {
		t.Fatalf("members trained %v, report soft seeds %v; want 1-4 of 5 and %v", trained, rep.SoftSeeds, DefaultSoftSeeds)
	}
	ms := m.Members()
	best := ms[0].Config()
	soft := 0
	for k, mk := range ms {
		c := mk.Config()
		if c.SoftTargets == 0 {
			continue
		}
		soft++
		if c.SoftTargets != DefaultSoftSeeds || c.Seed < best.Seed+3 || c.Seed > best.Seed+4 || k == 0 {
			t.Errorf("member %d: soft targets %v, seed %d (best trial's %d)", k, c.SoftTargets, c.Seed, best.Seed)
		}
	}
	if soft != rep.SoftSeedsChosen || rep.SeedsChosen < soft || rep.SeedsChosen+rep.MembersLeftOut != 4 || rep.Members != len(ms) {
		t.Errorf("%d soft members; report %+v", soft, rep)
	}
	prefixesLowerNLL(t, ms, valRows(t, x, y, DefaultConfig(base)))

	for name, opts := range map[string]TuneOptions{"none": {SoftSeeds: -1}, "seeds": {EnsembleFrom: EnsembleFromSeeds}} {
		m, rep, trained := run(opts)
		if len(trained) != 2 || rep.SoftSeeds != 0 || rep.SoftSeedsChosen != 0 {
			t.Errorf("%s: members trained %v, report %+v", name, trained, rep)
		}
		for _, mk := range m.Members() {
			if mk.Config().SoftTargets != 0 {
				t.Errorf("%s: a soft member", name)
			}
		}
	}
	// The largest ensemble: its 2N-1 seeds' members exceed MaxEnsemble,
	// which once failed every member's settings after the whole search.
	big := base
	big.Ensemble = MaxEnsemble
	counts := map[int]bool{}
	opts := TuneOptions{Trials: 2, Rung: 40, Budget: time.Second, grid: tinyGrid, MemberProgress: func(p Progress) { counts[p.Members] = true }}
	m, rep, err := Tune(context.Background(), x, len(y), 1, y, big, opts)
	if err != nil {
		t.Fatalf("Ensemble %d: %v", MaxEnsemble, err)
	}
	if len(counts) != 1 || !counts[2*MaxEnsemble-1] || m.EnsembleSize() > MaxEnsemble || rep.Members != m.EnsembleSize() {
		t.Errorf("Ensemble %d: progress counts %v, %d members (report %d)", MaxEnsemble, counts, m.EnsembleSize(), rep.Members)
	}
	for k, mk := range m.Members() {
		if c := mk.Config(); c.Ensemble > MaxEnsemble {
			t.Errorf("member %d records Ensemble %d", k, c.Ensemble)
		}
	}
	for _, v := range []float64{math.NaN(), MaxSoftTargets * 1.5} {
		var ce *ConfigError
		if _, _, err := Tune(context.Background(), x, len(y), 1, y, base, TuneOptions{SoftSeeds: v, grid: tinyGrid}); !errors.As(err, &ce) || ce.Field != "SoftSeeds" {
			t.Errorf("SoftSeeds %v: %v", v, err)
		}
	}
}

// TestTuneEMA: Tune's trials and members average their weights at
// DefaultTuneEMA unless TuneOptions.EMA says otherwise, a base Config.EMA
// wins, and decays outside [0, 1) are refused by Tune and by Validate.
func TestTuneEMA(t *testing.T) {
	x, y := toyData(200, 2)
	base := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 8, Components: 2, MaxEpochs: 4, Patience: 2, Seed: 1, Threads: 1, Ensemble: 2}
	for _, c := range []struct {
		base, opt, want float64
	}{{0, 0, DefaultTuneEMA}, {0, -1, 0}, {0, 0.9, 0.9}, {0.5, -1, 0.5}, {0.5, 0.9, 0.5}} {
		b := base
		b.EMA = c.base
		m, rep, err := Tune(context.Background(), x, len(y), 1, y, b, TuneOptions{Trials: 2, Rung: 2, Budget: time.Minute, grid: tinyGrid, EMA: c.opt})
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Config().EMA; got != c.want {
			t.Errorf("base EMA %v, TuneOptions.EMA %v: the model's EMA is %v, want %v", c.base, c.opt, got, c.want)
		}
		for _, tr := range rep.Trials {
			if tr.Config.EMA != c.want {
				t.Errorf("base EMA %v, TuneOptions.EMA %v: trial %d's EMA is %v, want %v", c.base, c.opt, tr.N, tr.Config.EMA, c.want)
			}
		}
		for i, mm := range m.Members() {
			if got := mm.Config().EMA; got != c.want {
				t.Errorf("base EMA %v, TuneOptions.EMA %v: member %d's EMA is %v", c.base, c.opt, i, got)
			}
		}
	}
	var ce *ConfigError
	for _, v := range []float64{1, 1.5, math.NaN()} {
		if _, _, err := Tune(context.Background(), x, len(y), 1, y, base, TuneOptions{EMA: v}); !errors.As(err, &ce) || ce.Field != "EMA" {
			t.Errorf("TuneOptions.EMA %v: %v, want a ConfigError naming EMA", v, err)
		}
	}
	for _, v := range []float64{-0.1, 1, math.NaN(), math.Inf(1)} {
		if err := (Config{EMA: v}).Validate(); !errors.As(err, &ce) || ce.Field != "EMA" {
			t.Errorf("Config.EMA %v: %v, want a ConfigError naming EMA", v, err)
		}
	}
	if err := (Config{EMA: 0.999}).Validate(); err != nil {
		t.Errorf("Config.EMA 0.999: %v", err)
	}
}

// TestTuneLRDrops: Tune's trials and members cut their learning rate on
// plateaus as the base Config says (none by default), out-of-range counts
// and factors are refused by Tune and by Validate, and FitFlat records the
// drops it made.
func TestTuneLRDrops(t *testing.T) {
	x, y := toyData(200, 2)
	base := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 8, Components: 2, MaxEpochs: 4, Patience: 1, Seed: 1, Threads: 1, Ensemble: 2}
	for _, c := range []struct {
		drops        int
		factor, want float64
	}{{0, 0, 0}, {2, 0, DefaultLRDropFactor}, {1, 0.5, 0.5}} {
		b := base
		b.LRDrops, b.LRDropFactor = c.drops, c.factor
		m, rep, err := Tune(context.Background(), x, len(y), 1, y, b, TuneOptions{Trials: 2, Rung: 2, Budget: time.Minute, grid: tinyGrid})
		if err != nil {
			t.Fatal(err)
		}
		check := func(what string, got Config) {
			if got.LRDrops != c.drops || got.LRDropFactor != c.want {
				t.Errorf("base %d drops at %v: %s has %d drops at %v, want %v", c.drops, c.factor, what, got.LRDrops, got.LRDropFactor, c.want)
			}
		}
		check("the model", m.Config())
		for _, tr := range rep.Trials {
			check(fmt.Sprintf("trial %d", tr.N), tr.Config)
		}
		for i, mm := range m.Members() {
			check(fmt.Sprintf("member %d", i), mm.Config())
		}
	}
	var ce *ConfigError
	if _, _, err := Tune(context.Background(), x, len(y), 1, y, Config{Head: HeadMDN, LRDrops: MaxLRDrops + 1}, TuneOptions{}); !errors.As(err, &ce) || ce.Field != "LRDrops" {
		t.Errorf("Tune with LRDrops %d: %v, want a ConfigError naming LRDrops", MaxLRDrops+1, err)
	}
	for _, c := range []struct {
		cfg   Config
		field string
	}{
		{Config{LRDrops: -1}, "LRDrops"},
		{Config{LRDrops: MaxLRDrops + 1}, "LRDrops"},
		{Config{LRDrops: 2, LRDropFactor: 1}, "LRDropFactor"},
		{Config{LRDrops: 2, LRDropFactor: -0.5}, "LRDropFactor"},
		{Config{LRDrops: 2, LRDropFactor: math.NaN()}, "LRDropFactor"},
		{Config{LRDropFactor: 0.5}, "LRDropFactor"},
		{Config{LRDrops: 1, ValFrac: -1}, "LRDrops"},
		{Config{LRDrops: 2, LRDropFactor: 0.99999999}, "LRDropFactor"}, // rounds to 1 in float32
		{Config{LRDrops: 1, LRDropFactor: 1e-50}, "LRDropFactor"},      // rounds to 0
		{Config{LRDrops: 10, LRDropFactor: 1e-5}, "LRDropFactor"},      // 5e-4 * 1e-50 is 0
	} {
		if err := c.cfg.Validate(); !errors.As(err, &ce) || ce.Field != c.field {
			t.Errorf("%+v: %v, want a ConfigError naming %s", c.cfg, err, c.field)
		}
	}
	if err := (Config{LRDrops: MaxLRDrops, LRDropFactor: 0.9}).Validate(); err != nil {
		t.Errorf("LRDrops %d at 0.9: %v", MaxLRDrops, err)
	}
	if c := DefaultConfig(Config{LRDrops: 1}); c.LRDropFactor != DefaultLRDropFactor {
		t.Errorf("DefaultConfig with LRDrops 1: factor %v", c.LRDropFactor)
	}
	if c := DefaultConfig(Config{}); c.LRDropFactor != 0 {
		t.Errorf("DefaultConfig without drops: factor %v, want 0 (the model file unchanged)", c.LRDropFactor)
	}
	// FitFlat makes at most LRDrops drops and records them; with patience
	// 1, a large step and up to 200 epochs the toy run does plateau.
	cfg := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 8, Components: 2, MaxEpochs: 200, Patience: 1, Seed: 1, Threads: 1, LRDrops: 2, LR: 0.05}
	m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if d := m.Info().LRDrops; d < 1 || d > 2 {
		t.Errorf("FitFlat with LRDrops 2: %d drops made (info %+v)", d, m.Info())
	}
}

// TestSeedsRoom: members' seeds are Seed + k; a Seed that leaves no room
// for them is refused (a *ConfigError naming Seed) by Validate and FitFlat
// for Config.Ensemble, and by Tune for every member its ensemble may
// train, soft and ple seeds' included (they wrapped past the largest seed
// to 0, 1, 2 where a plain ensemble was refused; helper-135). Where there
// is room, the ensemble trains and its file loads: the members' own
// settings (Seed + k, Ensemble N) are not checked (helper-137: member 2 of
// 3 at Seed max-2 was refused, and so was the file of such an ensemble).
func TestSeedsRoom(t *testing.T) {
	const top = math.MaxUint64
	isSeed := func(err error) bool {
		var ce *ConfigError
		return errors.As(err, &ce) && ce.Field == "Seed"
	}
	if err := (Config{Ensemble: 3, Seed: top - 1}).Validate(); !isSeed(err) {
		t.Errorf("Ensemble 3 at seed max-1: %v, want a ConfigError naming Seed", err)
	}
	if err := (Config{Ensemble: 3, Seed: top - 2}).Validate(); err != nil {
		t.Errorf("Ensemble 3 at seed max-2: %v", err)
	}
	x, y := toyData(60, 2)
	small := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 8, Components: 2, MaxEpochs: 1, Threads: 1}
	ens := small
	ens.Ensemble, ens.Seed = 3, top-1
	if _, err := FitFlat(context.Background(), x, len(y), 1, y, ens); !isSeed(err) {
		t.Errorf("FitFlat, Ensemble 3 at seed max-1: %v, want a ConfigError naming Seed", err)
	}
	ens.Seed = top - 2
	m, err := FitFlat(context.Background(), x, len(y), 1, y, ens)
	if err != nil {
		t.Fatalf("FitFlat, Ensemble 3 at seed max-2: %v", err)
	}
	if got := m.Members()[2].Config().Seed; got != top {
		t.Errorf("member 3's seed %d, want %d", got, uint64(top))
	}
	reload(t, m) // its members' configs load
	base := Config{Head: HeadDecoder, Vocab: "normalized:base=4,length=3", EncLayers: 1, EncWidth: 8, DecWidth: 8, DecHeads: 1, MaxEpochs: 1, Threads: 1, Ensemble: 2}
	pw := small
	pw.Head, pw.Ensemble = HeadPointwise, 2
	for _, c := range []struct {
		base  Config
		seed  uint64
		ple   int
		from  string
		label string
		ok    bool
	}{
		{base, top - 4, 2, EnsembleFromAll, "2 members, a soft and 2 ple seeds: seeds max-4 .. max", true},
		{base, top - 3, 2, EnsembleFromAll, "the last ple seed would wrap", false},
		{base, top - 1, 0, EnsembleFromAll, "the soft seed would wrap", false},
		{base, top - 1, 0, EnsembleFromSeeds, "no soft seeds from seeds: max-1, max", true},
		{base, top, 2, EnsembleFromTrials, "members from the trials, every one at Seed", true},
		{pw, top - 1, 2, EnsembleFromAll, "pointwise: no soft or ple seeds", true},
	} {
		b := c.base
		b.Seed = c.seed
		_, _, err := Tune(context.Background(), x, len(y), 1, y, b, TuneOptions{Trials: 2, Budget: 5 * time.Second, PLESeeds: c.ple, EnsembleFrom: c.from})
		if c.ok && isSeed(err) || !c.ok && !isSeed(err) {
			t.Errorf("%s: %v", c.label, err)
		}
	}
}
