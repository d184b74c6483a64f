package decoreg

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"decoreg/internal/train"
)

// valCRPS is the mean CRPS, in u units, of m on the validation rows of
// cfg's split of (x, y) (one feature), at most n of them, by Calibration
// (Predict's quantiles and distributions): a path apart from early
// stopping's score.
func valCRPS(t *testing.T, m *Model, cfg Config, x, y []float64, n int) float64 {
	t.Helper()
	val, _ := train.Split(len(y), DefaultConfig(cfg).ValFrac, cfg.Seed)
	val = val[:min(len(val), n)]
	xv, yv := make([]float64, len(val)), make([]float64, len(val))
	for k, i := range val {
		xv[k], yv[k] = x[i], y[i]
	}
	c, err := m.Calibration(context.Background(), xv, len(yv), yv)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := m.YRange()
	return c.CRPS / (hi - lo)
}

// TestStopByCRPS: early stopping by CRPS keeps the epoch whose validation
// CRPS is lowest and reports it (in u units): Calibration on the same rows
// finds the same value, for the decoder, Riemann and MDN heads. It keeps a
// different epoch than the NLL would; the same seed gives the same model;
// an ensemble's members stop by it too. Configs it cannot serve are
// refused.
func TestStopByCRPS(t *testing.T) {
	x, y := calibrationData(600, 41)
	for _, cfg := range []Config{
		{Head: HeadDecoder, Vocab: "normalized:base=4,length=5", EncLayers: 1, EncWidth: 32},
		{Head: HeadDecoder, Vocab: "unnormalized:base=10,exponent=1,mantissa=2", EncLayers: 1, EncWidth: 32},
		{Head: HeadRiemann, Bins: 64, EncLayers: 1, EncWidth: 32},
		{Head: HeadMDN, Components: 3, EncLayers: 1, EncWidth: 32},
	} {
		cfg.MaxEpochs, cfg.Patience, cfg.Threads, cfg.Seed, cfg.StopBy = 15, 3, 1, 2, StopByCRPS
		if strings.HasPrefix(cfg.Vocab, "unnormalized") {
			cfg.MaxEpochs = 4 // its expansions, which the CRPS walks, are deep
		}
		name := string(cfg.Head) + " " + cfg.Vocab
		m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, want := m.Info().BestValLoss, valCRPS(t, m, cfg, x, y, maxCRPSRows)
		if !(got > 0 && got < 1) || math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s: best validation loss %v, the validation rows' CRPS in u units %v", name, got, want)
		}
		if cfg.Head != HeadDecoder || cfg.Vocab[0] != 'n' {
			continue
		}
		again, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		sameParams(t, m.net.Params(), again.net.Params(), nil)
		plain := cfg
		plain.StopBy = ""
		mp, err := FitFlat(context.Background(), x, len(y), 1, y, plain)
		if err != nil {
			t.Fatal(err)
		}
		// The same training: unless the NLL's kept epoch came after the
		// CRPS stopped, the CRPS's kept one is no worse by the CRPS.
		if got := valCRPS(t, mp, cfg, x, y, maxCRPSRows); mp.Info().BestEpoch <= m.Info().Epochs && !(m.Info().BestValLoss <= got*(1+1e-12)) {
			t.Errorf("the epoch kept by CRPS has validation CRPS %v, above the NLL's epoch's %v", m.Info().BestValLoss, got)
		}
		t.Logf("best epoch by CRPS %d of %d, by NLL %d of %d", m.Info().BestEpoch, m.Info().Epochs, mp.Info().BestEpoch, mp.Info().Epochs)
		ens := cfg
		ens.Ensemble = 2
		me, err := FitFlat(context.Background(), x, len(y), 1, y, ens)
		if err != nil {
			t.Fatal(err)
		}
		for k, mk := range me.Members() {
			if got := valCRPS(t, mk, cfg, x, y, maxCRPSRows); math.Abs(mk.Info().BestValLoss-got) > 1e-9*got {
				t.Errorf("member %d: best validation loss %v, its validation CRPS %v", k, mk.Info().BestValLoss, got)
			}
		}
	}
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Head: HeadPointwise, StopBy: StopByCRPS}, "a head with a distribution"},
		{Config{Head: HeadMDN, StopBy: StopByCRPS, ValFrac: -1}, "validation rows"},
		{Config{Head: HeadDecoder, StopBy: StopByCRPS, Vocab: "hamming:length=7"}, "tree tokenization"},
		{Config{Head: HeadDecoder, StopBy: StopByCRPS, Vocab: "normalized:base=4,length=3,repeat=2"}, "tree tokenization"},
		{Config{Head: HeadDecoder, StopBy: "crsp"}, `unknown early-stopping score "crsp" (want nll, depth or crps)`},
		{Config{Head: HeadDecoder, StopBy: StopByCRPS, Vocab: DefaultUnnormalized, Unbounded: true}, "needs a bounded tokenization"},
		{Config{Head: HeadMDN, StopBy: StopByCRPS, Components: maxCRPSComponents + 1}, "at most 256 components, have 257"},
	} {
		_, err := DefaultConfig(c.cfg).validate()
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != "StopBy" || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v", c.cfg, err)
		}
	}
}

// TestStopByCRPSRows: the score of each epoch takes the first maxCRPSRows
// validation rows when there are more.
func TestStopByCRPSRows(t *testing.T) {
	x, y := calibrationData(3000, 43)
	cfg := Config{Head: HeadDecoder, Vocab: "normalized:base=4,length=4", EncLayers: 1, EncWidth: 16, MaxEpochs: 1, Threads: 1, Seed: 3, ValFrac: 0.5}
	m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	val, _ := train.Split(len(y), cfg.ValFrac, cfg.Seed)
	if len(val) <= maxCRPSRows {
		t.Fatalf("%d validation rows", len(val))
	}
	cfg.StopBy = StopByCRPS
	score := cfg.stopScore(context.Background(), m, x, 1, y)
	got, want, all := score(val), valCRPS(t, m, cfg, x, y, maxCRPSRows), valCRPS(t, m, cfg, x, y, len(val))
	if math.Abs(got-want) > 1e-9*want || got == all {
		t.Errorf("score %v, the first %d rows' CRPS %v, all %d rows' %v", got, maxCRPSRows, want, len(val), all)
	}
	if s := (Config{}).stopScore(context.Background(), m, x, 1, y); s != nil {
		t.Error("a score for StopBy nll")
	}
}

// TestTuneStopByCRPS: Tune compares its trials by the validation CRPS,
// makes the best trial its model, and chooses an ensemble's members by the
// CRPS of their mixture: the ensemble's validation CRPS is no higher than
// its best trial's, and lower when it holds more than one member.
func TestTuneStopByCRPS(t *testing.T) {
	x, y := calibrationData(600, 44)
	for _, ens := range []int{0, 3} {
		cfg := Config{Head: HeadDecoder, Vocab: "normalized:base=4,length=5", EncLayers: 1, EncWidth: 32, MaxEpochs: 10, Patience: 3, Threads: 1, Seed: 4, StopBy: StopByCRPS, Ensemble: ens}
		tm, rep, err := Tune(context.Background(), x, len(y), 1, y, cfg, TuneOptions{Trials: 3, Rung: 1, Budget: time.Minute, grid: tinyGrid, EnsembleFrom: EnsembleFromAll})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Resolution != 0 {
			t.Errorf("resolution %v with StopBy crps", rep.Resolution)
		}
		best := math.Inf(1)
		for _, tr := range rep.Trials {
			if tr.Config.StopBy != StopByCRPS || !(tr.ValLoss > 0 && tr.ValLoss < 1) {
				t.Errorf("trial %d: stop by %q, validation loss %v", tr.N, tr.Config.StopBy, tr.ValLoss)
			}
			best = min(best, tr.ValLoss)
		}
		first := tm.Members()[0]
		if first.Info().BestValLoss != best {
			t.Errorf("ensemble %d: the first member's validation loss %v, the trials' best %v", ens, first.Info().BestValLoss, best)
		}
		got := valCRPS(t, tm, cfg, x, y, maxCRPSRows)
		n := len(tm.Members())
		if got > best*(1+1e-9) || (n > 1 && !(got < best)) {
			t.Errorf("ensemble %d of %d members: validation CRPS %v, the best trial's %v", ens, n, got, best)
		}
		t.Logf("ensemble %d: %d members, validation CRPS %v, best trial %v", ens, n, got, best)
	}
	cfg := Config{Head: HeadDecoder, StopBy: StopByCRPS}
	if _, _, err := Tune(context.Background(), x, len(y), 1, y, cfg, TuneOptions{Resolution: 0.01}); !errors.As(err, new(*ConfigError)) || !strings.Contains(err.Error(), "compared by their CRPS") {
		t.Errorf("Resolution with StopBy crps: %v", err)
	}
}

// TestCRPSGram: the CRPS of a mixture from crpsGram's pairs equals the
// mixture's own CRPS (dist.Mixture, all components at once), averaged over
// the rows, for every subset of three models of one head: decoders, Riemann
// heads (one grid, and two), MDNs. Heads whose mixtures cost much are
// scored on fewer rows.
func TestCRPSGram(t *testing.T) {
	x, y := calibrationData(400, 45)
	for _, cfgs := range [][]Config{
		{{Head: HeadDecoder, Vocab: "normalized:base=4,length=4"}, {Head: HeadDecoder, Vocab: "normalized:base=2,length=6"}, {Head: HeadDecoder, Vocab: "unnormalized:base=10,exponent=1,mantissa=2"}},
		{{Head: HeadRiemann, Bins: 32}, {Head: HeadRiemann, Bins: 32}, {Head: HeadRiemann, Bins: 50}},
		{{Head: HeadMDN, Components: 2}, {Head: HeadMDN, Components: 3}, {Head: HeadMDN, Components: 1}},
	} {
		var models []*Model
		for k, cfg := range cfgs {
			cfg.EncLayers, cfg.EncWidth, cfg.MaxEpochs, cfg.Threads, cfg.Seed = 1, 16, 4, 1, uint64(k)
			m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
			if err != nil {
				t.Fatal(err)
			}
			models = append(models, m)
		}
		xv, yv := x[:150], y[:150]
		g, err := crpsGram(context.Background(), models, xv, yv, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, set := range [][]int{{0}, {1}, {2}, {0, 1}, {1, 2}, {0, 2}, {0, 1, 2}, {2, 0}} {
			var ms []*Model
			for _, k := range set {
				ms = append(ms, models[k])
			}
			mix := ms[0]
			if len(ms) > 1 {
				if mix, err = NewEnsemble(ms...); err != nil {
					t.Fatal(err)
				}
			}
			c, err := mix.Calibration(context.Background(), xv, len(yv), yv)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := models[0].YRange()
			want := c.CRPS / (hi - lo)
			if got := crpsOfSet(g, set); math.Abs(got-want) > 1e-9*want {
				t.Errorf("%s: set %v: from the pairs %v, the mixture's CRPS %v", cfgs[0].Head, set, got, want)
			}
		}
	}
	// The rows scored: all (up to maxCRPSRows) for cheap heads, fewer for
	// costly ones, never fewer than minCRPSGramRows.
	dec := &Model{cfg: Config{Head: HeadDecoder}}
	big := &Model{cfg: Config{Head: HeadMDN, Components: 256}}
	lib := func(m *Model, n int) []*Model {
		out := make([]*Model, n)
		for i := range out {
			out[i] = m
		}
		return out
	}
	if got := crpsGramRows(lib(dec, 20), 5000); got != maxCRPSRows {
		t.Errorf("20 decoders: %d rows", got)
	}
	if got := crpsGramRows(lib(dec, 3), 100); got != 100 {
		t.Errorf("3 decoders, 100 rows: %d rows", got)
	}
	mid := &Model{cfg: Config{Head: HeadMDN, Components: 64}}
	if got := crpsGramRows(lib(mid, 20), 5000); !(got > minCRPSGramRows && got < maxCRPSRows) {
		t.Errorf("20 MDNs of 64 components: %d rows", got)
	}
	if got := crpsGramRows(lib(big, 64), 5000); got != minCRPSGramRows {
		t.Errorf("64 MDNs of 256 components: %d rows", got)
	}
	if got := crpsGramRows(lib(big, 20), 10); got != 10 {
		t.Errorf("20 MDNs of 256 components, 10 rows: %d rows", got)
	}
}

// TestCRPSCancelled: once ctx is done, the score of an epoch is NaN (the
// run reports a cancellation: internal/train's TestScoreDiverges), the
// pairs' scoring stops, and the ensemble choices fall back to what they
// had: the best trial alone, the members without the cut ones.
func TestCRPSCancelled(t *testing.T) {
	x, y := calibrationData(300, 46)
	cfg := Config{Head: HeadDecoder, Vocab: "normalized:base=4,length=4", EncLayers: 1, EncWidth: 16, MaxEpochs: 2, Threads: 1, StopBy: StopByCRPS}
	var models []*Model
	for k := range 2 {
		cfg.Seed = uint64(k)
		m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, m)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	val, _ := train.Split(len(y), DefaultConfig(cfg).ValFrac, cfg.Seed)
	if v := cfg.stopScore(ctx, models[0], x, 1, y)(val); !math.IsNaN(v) {
		t.Errorf("cancelled score %v", v)
	}
	if _, err := crpsGram(ctx, models, x[:50], y[:50], 1); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled pairs: %v", err)
	}
	base := DefaultConfig(cfg)
	set, err := selectMembers(ctx, models, 2, x, len(y), 1, y, base, 0)
	if err != nil || len(set) != 1 || set[0] != 0 {
		t.Errorf("cancelled selection: %v, %v", set, err)
	}
	rep := &TuneReport{}
	ms, err := guardCut(ctx, models[:1], models[1:], x, len(y), 1, y, base, rep)
	if err != nil || len(ms) != 1 || ms[0] != models[0] || rep.MembersLeftOut != 1 {
		t.Errorf("cancelled guard: %d members, %v, %d left out", len(ms), err, rep.MembersLeftOut)
	}
	// Not cancelled, the same choices score the pairs.
	if set, err := selectMembers(context.Background(), models, 2, x, len(y), 1, y, base, 0); err != nil || len(set) < 1 || set[0] != 0 {
		t.Errorf("selection: %v, %v", set, err)
	}
}
