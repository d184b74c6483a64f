package experiments

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"decoreg"
	"decoreg/metrics"
)

// The tabular experiment is decoreg's own (issue 13): the normalized
// decoder as a user would run it on a table (defaults; --ensemble 5;
// --tune at the default budget, alone and with --ensemble 5; each with
// --calibrate where the validation rows allow it) on the UCI datasets,
// against XGBoost's Kendall's tau on the same splits
// (experiments/xgboost/xgb_uci.py, results in ../xgboost/results.jsonl
// beside this experiment's directory).

// The tabular experiment's groups of runs, each one training: a variant
// group yields one or more scored models.
const (
	tabDefault  = "default"  // FitFlat with the defaults: "default", "default+cal"
	tabEnsemble = "ensemble" // FitFlat with Ensemble 5: "ensemble5", "ensemble5+cal"
	tabTuned    = "tuned"    // Tune with Ensemble 5 from the trials: "tuned", "tuned+ensemble5", "tuned+ensemble5+cal"
	// Tune with Ensemble 5 and EnsembleFrom seeds: "tuned+seeds5",
	// "tuned+seeds5+cal". Its search repeats the "tuned" group's: the
	// same trials and choice unless the budget's timing differs (the
	// report shows both choices).
	tabTunedSeeds = "tuned-seeds"
	// Tune with Ensemble 5 and EnsembleFrom all: "tuned+all5",
	// "tuned+all5+cal".
	tabTunedAll = "tuned-all"
	// tuned-all with StopBy depth (early stopping and the trials, seeds
	// and members compared by the validation NLL calibrated per token
	// depth): "tuned+all5+sd", "tuned+all5+sd+cal", "+iso", "+depth".
	tabTunedAllDepth = "tuned-all-depth"
	// tuned-all with StopBy crps (early stopping, the trials, the seeds'
	// members and the greedy selection by the validation CRPS):
	// "tuned+all5+sc", "tuned+all5+sc+cal", "+iso", "+depth".
	tabTunedAllCRPS = "tuned-all-crps"
)

// tabGroups are the groups of the default plan. tabTunedSeeds is not among
// them (a journal may hold its lines: tabular-v4 ran it on two datasets);
// Options.Groups may choose it.
var tabGroups = []string{tabDefault, tabEnsemble, tabTuned, tabTunedAll}

// TabularGroups are the groups Options.Groups may name.
var TabularGroups = []string{tabDefault, tabEnsemble, tabTuned, tabTunedSeeds, tabTunedAll, tabTunedAllDepth, tabTunedAllCRPS}

// tabVariants are the scored models, in report order.
// A "+iso" variant is the "+cal" one's model calibrated instead by the
// isotonic objective (CalibrateByIsotonic) on the same validation rows;
// journals before 2026-11-27 do not have it. A "+depth" variant is the
// same model calibrated instead by temperatures per token depth
// (CalibrateByDepth) on those rows; journals before 2026-11-28 do not
// have it.
var tabVariants = []string{"default", "default+cal", "default+iso", "default+depth", "ensemble5", "ensemble5+cal", "ensemble5+iso", "ensemble5+depth", "tuned", "tuned+ensemble5", "tuned+ensemble5+cal", "tuned+ensemble5+iso", "tuned+ensemble5+depth", "tuned+seeds5", "tuned+seeds5+cal", "tuned+seeds5+iso", "tuned+seeds5+depth", "tuned+all5", "tuned+all5+cal", "tuned+all5+iso", "tuned+all5+depth", "tuned+all5+sd", "tuned+all5+sd+cal", "tuned+all5+sd+iso", "tuned+all5+sd+depth", "tuned+all5+sc", "tuned+all5+sc+cal", "tuned+all5+sc+iso", "tuned+all5+sc+depth"}

// tabPresent returns the variants of tabVariants that tab (variant ->
// dataset -> scores) holds, in report order.
func tabPresent(tab map[string]map[string]TabScores) []string {
	var out []string
	for _, v := range tabVariants {
		if len(tab[v]) > 0 {
			out = append(out, v)
		}
	}
	return out
}

// tabEnsembleSize is the experiment's --ensemble.
const tabEnsembleSize = 5

// tabCalRows bounds the test rows of the distribution scores (CRPS,
// coverage, PIT): evenly spaced ones of larger test sets. NLL and tau use
// every test row.
const tabCalRows = 500

// TabScores are one model's scores on its test rows.
type TabScores struct {
	NLL         Float `json:"nll"`
	KendallTau  Float `json:"kendall_tau"`
	RelMSE      Float `json:"rel_mse"`
	CRPS        Float `json:"crps"`
	PITError    Float `json:"pit_ece"`
	Coverage90  Float `json:"coverage_90"`
	Width90     Float `json:"width_90"`
	Temperature Float `json:"temperature"`
	// KendallTauMedian is Kendall's tau of the predictive median, beside
	// KendallTau's of the mean (lines since 2026-11-28; not in the
	// report's tables).
	KendallTauMedian *Float `json:"kendall_tau_median,omitempty"`
}

// TabularLine is one group's run on one split.
type TabularLine struct {
	Meta
	Dataset   string               `json:"dataset"`
	Split     int                  `json:"split"`
	Group     string               `json:"group"`
	Config    decoreg.Config       `json:"config"`
	TrainRows int                  `json:"train_rows"`
	TestRows  int                  `json:"test_rows"`
	CalRows   int                  `json:"calibration_rows"` // test rows of the CRPS, coverage and PIT scores
	Budget    float64              `json:"tune_budget_seconds,omitempty"`
	Seconds   float64              `json:"train_seconds"`
	Scores    map[string]TabScores `json:"scores"`
	// Calibrated is false where the validation rows were too few for
	// --calibrate (the "+cal" variants are then missing).
	Calibrated bool `json:"calibrated"`
	// IsoError is why the "+iso" variant is missing where Calibrated, and
	// DepthError why the "+depth" one is.
	IsoError   string `json:"iso_error,omitempty"`
	DepthError string `json:"depth_error,omitempty"`
	// Tuned: the trials, the chosen ones' settings (best first) and
	// whether the budget cut the search (TuneReport.Cut: since 2026-11-27
	// also when it skipped a trial).
	Trials int      `json:"trials,omitempty"`
	Chosen []string `json:"chosen,omitempty"`
	Cut    bool     `json:"cut,omitempty"`
	// Tuned with seeds or all: the wall time of the seeds' members trained
	// after the search, how many its budget stopped early, and how many
	// are in the model.
	MemberSeconds float64 `json:"member_seconds,omitempty"`
	MembersCut    int     `json:"members_cut,omitempty"`
	SeedsChosen   int     `json:"seeds_chosen,omitempty"`
	// With soft seeds (TuneOptions.SoftSeeds): their standard deviation
	// and how many of the seeds chosen are soft.
	SoftSeeds       float64 `json:"soft_seeds,omitempty"`
	SoftSeedsChosen int     `json:"soft_seeds_chosen,omitempty"`
	// With ple seeds (TuneOptions.PLESeeds): how many were planned and
	// how many of the seeds chosen are ple ones.
	PLESeeds       int `json:"ple_seeds,omitempty"`
	PLESeedsChosen int `json:"ple_seeds_chosen,omitempty"`
	// TiedTargets records whether every test target of the split is equal
	// (or there are fewer than two): Kendall's tau and the relative MSE
	// are then undefined (NaN) for every model, which the report does not
	// count as a failure. Nil in lines written before it was recorded
	// (see tabTied).
	TiedTargets *bool  `json:"test_targets_tied,omitempty"`
	Error       string `json:"error,omitempty"`
}

// allEqual reports whether every value of y is equal (true for fewer than
// two values).
func allEqual(y []float64) bool {
	for _, v := range y {
		if v != y[0] {
			return false
		}
	}
	return true
}

// Failed reports whether the run failed on its data.
func (l *TabularLine) Failed() bool { return l.Error != "" }

// TabularTasks returns the runs: dataset x split x group, the groups in
// the order of TabularGroups whatever the order of opts.Groups (a
// duplicate is dropped), so that the plan, and with it each run's --shard,
// depends only on the set of groups. More splits (opts.Seeds) than a
// dataset has are refused: the runs would repeat its splits under other
// keys.
func TabularTasks(opts Options) ([]Task[*TabularLine], error) {
	u, names, splits, err := realSplitPlan("tabular", opts, nil, []string{"yacht"}, 1)
	if err != nil {
		return nil, err
	}
	groups, err := tabPlanGroups(opts.Groups)
	if err != nil {
		return nil, err
	}
	var tasks []Task[*TabularLine]
	for _, ds := range names {
		for sp := range splits {
			for _, g := range groups {
				tasks = append(tasks, Task[*TabularLine]{
					Key: fmt.Sprintf("dataset=%s,split=%d,group=%s", ds, sp, g),
					Run: func(ctx context.Context) (*TabularLine, error) { return runTabular(ctx, u, ds, sp, g, opts) },
				})
			}
		}
	}
	return tasks, nil
}

// tabPlanGroups returns the groups of a plan: those of TabularGroups that
// groups names (each at most once), in its order; tabGroups when groups is
// empty.
func tabPlanGroups(groups []string) ([]string, error) {
	if len(groups) == 0 {
		return tabGroups, nil
	}
	for _, g := range groups {
		if !slices.Contains(TabularGroups, g) {
			return nil, &InputError{fmt.Errorf("tabular: unknown group %q (have %s)", g, strings.Join(TabularGroups, ", "))}
		}
	}
	var out []string
	for _, g := range TabularGroups {
		if slices.Contains(groups, g) {
			out = append(out, g)
		}
	}
	return out, nil
}

func runTabular(ctx context.Context, u *uciData, ds string, split int, group string, opts Options) (*TabularLine, error) {
	tr, te, split, err := u.wrappedSplit(ds, split)
	if err != nil {
		return nil, err
	}
	cfg, err := HeadConfig(DecoderNormalized)
	if err != nil {
		return nil, err
	}
	cfg.Seed, cfg.Threads = uint64(split), opts.Threads
	budget, ens := decoreg.DefaultTuneBudget, tabEnsembleSize
	if opts.Quick {
		cfg.MaxEpochs, budget, ens = 3, 2*time.Second, 2
	}
	// Calibrate where the validation rows allow it.
	cfg.Calibrate = calibratable(tr.Rows, cfg)
	tied := allEqual(te.Y)
	l := &TabularLine{Dataset: ds, Split: split, Group: group, TrainRows: tr.Rows, TestRows: te.Rows,
		Scores: map[string]TabScores{}, Calibrated: cfg.Calibrate, TiedTargets: &tied}
	start := time.Now()
	var m *decoreg.Model
	switch group {
	case tabDefault:
		m, err = decoreg.FitFlat(ctx, tr.X, tr.Rows, tr.Cols, tr.Y, cfg)
	case tabEnsemble:
		cfg.Ensemble = ens
		m, err = decoreg.FitFlat(ctx, tr.X, tr.Rows, tr.Cols, tr.Y, cfg)
	case tabTuned, tabTunedSeeds, tabTunedAll, tabTunedAllDepth, tabTunedAllCRPS:
		cfg.Ensemble = ens
		switch group {
		case tabTunedAllDepth:
			cfg.StopBy = decoreg.StopByDepth
		case tabTunedAllCRPS:
			cfg.StopBy = decoreg.StopByCRPS
		}
		l.Budget = budget.Seconds()
		// Tune's default made explicit, so that the line's config records
		// the weights' moving average its models were trained with (lines
		// written before it, whose configs have no "ema", had none).
		cfg.EMA = decoreg.DefaultTuneEMA
		o := decoreg.TuneOptions{Budget: budget, EnsembleFrom: decoreg.EnsembleFromTrials}
		switch group {
		case tabTunedSeeds:
			o.EnsembleFrom = decoreg.EnsembleFromSeeds
		case tabTunedAll, tabTunedAllDepth, tabTunedAllCRPS:
			o.EnsembleFrom = decoreg.EnsembleFromAll
		}
		var rep *decoreg.TuneReport
		m, rep, err = decoreg.Tune(ctx, tr.X, tr.Rows, tr.Cols, tr.Y, cfg, o)
		if rep != nil {
			l.Trials, l.Cut = len(rep.Trials), rep.Cut
			l.MemberSeconds, l.MembersCut, l.SeedsChosen = rep.MemberSeconds, rep.MembersCut, rep.SeedsChosen
			l.SoftSeeds, l.SoftSeedsChosen = rep.SoftSeeds, rep.SoftSeedsChosen
			l.PLESeeds, l.PLESeedsChosen = rep.PLESeeds, rep.PLESeedsChosen
		}
	default:
		return nil, fmt.Errorf("tabular: unknown group %q", group)
	}
	l.Config = cfg
	l.Seconds = time.Since(start).Seconds()
	if err != nil {
		if ctx.Err() == nil && dataFailure(err) {
			l.Error = err.Error()
			return l, nil
		}
		return nil, err
	}
	// The models to score.
	type scored struct {
		name string
		m    *decoreg.Model
	}
	var todo []scored
	un := m
	if m.Calibrated() {
		if un, err = m.WithTemperature(1); err != nil {
			return nil, err
		}
	}
	// cal adds variant v's "+cal" model, m, and its "+iso" and "+depth"
	// models: un calibrated by the isotonic objective, and by
	// temperatures per token depth, on the validation rows that
	// --calibrate fitted m's temperature on.
	cal := func(v string) error {
		if !cfg.Calibrate {
			return nil
		}
		todo = append(todo, scored{v + "+cal", m})
		xv, yv := calibrationRows(tr.X, tr.Rows, tr.Cols, tr.Y, cfg)
		for _, o := range []struct {
			by, suffix string
			failed     *string
		}{{decoreg.CalibrateByIsotonic, "+iso", &l.IsoError}, {decoreg.CalibrateByDepth, "+depth", &l.DepthError}} {
			mo, err := un.FitTemperature(ctx, xv, len(yv), yv, o.by)
			switch {
			case err == nil:
				todo = append(todo, scored{v + o.suffix, mo})
			case ctx.Err() == nil:
				*o.failed = err.Error() // the other variants are scored
			default:
				return err
			}
		}
		return nil
	}
	switch group {
	case tabDefault:
		todo = append(todo, scored{"default", un})
		err = cal("default")
	case tabEnsemble:
		todo = append(todo, scored{"ensemble5", un})
		err = cal("ensemble5")
	case tabTuned, tabTunedSeeds, tabTunedAll, tabTunedAllDepth, tabTunedAllCRPS:
		if group == tabTuned {
			best, berr := un.Members()[0].WithTemperature(1)
			if berr != nil {
				return nil, berr
			}
			todo = append(todo, scored{"tuned", best}, scored{"tuned+ensemble5", un})
			err = cal("tuned+ensemble5")
		} else {
			v := map[string]string{tabTunedSeeds: "tuned+seeds5", tabTunedAll: "tuned+all5", tabTunedAllDepth: "tuned+all5+sd", tabTunedAllCRPS: "tuned+all5+sc"}[group]
			todo = append(todo, scored{v, un})
			err = cal(v)
		}
		if t := m.Info().Tune; t != nil {
			var chosen []decoreg.TuneTrial
			for _, k := range t.Trials {
				if k.Chosen {
					chosen = append(chosen, k)
				}
			}
			sort.SliceStable(chosen, func(i, j int) bool { return chosen[i].ValLoss < chosen[j].ValLoss })
			for _, k := range chosen {
				l.Chosen = append(l.Chosen, fmt.Sprintf("%d:%s (val %.4f)", k.N, k.Label, k.ValLoss))
			}
		}
	}
	if err != nil {
		return nil, err
	}
	// The distribution scores on at most tabCalRows test rows, evenly
	// spaced (an ensemble's quantiles cost about 50 ms a row).
	cx, cy := te.X, te.Y
	if te.Rows > tabCalRows {
		cx, cy = make([]float64, 0, tabCalRows*te.Cols), make([]float64, 0, tabCalRows)
		for k := range tabCalRows {
			i := k * te.Rows / tabCalRows
			cx = append(cx, te.X[i*te.Cols:(i+1)*te.Cols]...)
			cy = append(cy, te.Y[i])
		}
	}
	l.CalRows = len(cy)
	for _, s := range todo {
		ev, err := s.m.Evaluate(ctx, te.X, te.Rows, te.Y, "mean")
		if err != nil {
			return nil, err
		}
		cal, err := s.m.Calibration(ctx, cx, len(cy), cy)
		if err != nil {
			return nil, err
		}
		pm, err := s.m.PredictFlat(ctx, te.X, te.Rows, decoreg.PredictOptions{Outputs: decoreg.OutMedian})
		if err != nil {
			return nil, err
		}
		tauMedian := Float(metrics.KendallTau(pm.Median, te.Y))
		l.Scores[s.name] = TabScores{NLL: Float(ev.NLL), KendallTau: Float(ev.KendallTau), RelMSE: Float(ev.RelMSE),
			CRPS: Float(cal.CRPS), PITError: Float(cal.PITError), Coverage90: Float(cal.Coverage["0.9"]),
			Width90: Float(cal.IntervalWidth["0.9"]), Temperature: Float(s.m.Temperature()), KendallTauMedian: &tauMedian}
	}
	return l, nil
}

// calibratable reports whether rows training rows leave the validation
// rows Config.Calibrate needs.
func calibratable(rows int, cfg decoreg.Config) bool {
	c := decoreg.DefaultConfig(cfg)
	return int(math.Max(1, math.Round(c.ValFrac*float64(rows)))) >= 20
}

func tabularExperiment() *Experiment {
	e := experiment("tabular", "the normalized decoder on tables: defaults, --ensemble 5, --tune, --calibrate, against XGBoost (decoreg's own)",
		tabPlanScale,
		TabularTasks, func() *TabularLine { return new(TabularLine) },
		func(l *TabularLine) string {
			if l.Error != "" {
				return "FAILED: " + l.Error
			}
			var parts []string
			for _, v := range tabVariants {
				if s, ok := l.Scores[v]; ok {
					parts = append(parts, fmt.Sprintf("%s tau %s nll %s", v, logNum("%.3f", float64(s.KendallTau)), logNum("%.3f", float64(s.NLL))))
				}
			}
			if l.IsoError != "" {
				parts = append(parts, "no +iso variant: "+l.IsoError)
			}
			return strings.Join(parts, "; ")
		},
		TabularReport)
	e.Groups = TabularGroups
	e.JournalScale = true
	e.Reads = func(dir string) []string {
		if p, err := xgbJournal(dir); err == nil {
			return []string{p}
		}
		return nil
	}
	return e
}

// xgbJournal is the XGBoost results that the tabular report of dir reads:
// results.jsonl of the directory xgboost beside dir.
func xgbJournal(dir string) (string, error) {
	abs, err := filepath.Abs(dir) // "." has no parent to look beside
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(abs), "xgboost", "results.jsonl"), nil
}

// tabPlanScale describes the plan o gives (the report describes its
// journal instead: tabScale).
func tabPlanScale(o Options) string {
	groups, err := tabPlanGroups(o.Groups)
	if err != nil {
		return err.Error()
	}
	n := seedsOr(o, 1)
	sp := make([]int, n)
	for i := range sp {
		sp[i] = i
	}
	budget, ens := decoreg.DefaultTuneBudget, tabEnsembleSize
	if o.Quick {
		budget, ens = 2*time.Second, 2
	}
	var ensembles []int
	var budgets []float64
	for _, g := range groups {
		if g != tabDefault {
			ensembles = []int{ens}
		}
		if g != tabDefault && g != tabEnsemble {
			budgets = []float64{budget.Seconds()}
		}
	}
	return tabScaleText(sp, groups, ensembles, budgets, o.Quick)
}

// tabScale describes the runs of the journal's lines (of the groups this
// build knows): the splits, the groups, the --ensemble and --tune budgets
// of the runs that succeeded, and whether they are --quick runs; then how
// many lines failed. The report shows it, not the flags of the command
// that wrote the report.
func tabScale(lines []*TabularLine) string {
	var sp, ens []int
	var groups []string
	var budgets []float64
	quick := false
	failed := 0
	for _, l := range lines {
		quick = quick || strings.HasSuffix(l.Key, quickSuffix)
		if l.Error != "" {
			// Its settings did not run.
			failed++
			continue
		}
		if !slices.Contains(sp, l.Split) {
			sp = append(sp, l.Split)
		}
		if !slices.Contains(groups, l.Group) {
			groups = append(groups, l.Group)
		}
		if l.Group != tabDefault && l.Config.Ensemble > 1 && !slices.Contains(ens, l.Config.Ensemble) {
			ens = append(ens, l.Config.Ensemble)
		}
		if l.Budget > 0 && !slices.Contains(budgets, l.Budget) {
			budgets = append(budgets, l.Budget)
		}
	}
	fails := ""
	if failed > 0 {
		fails = fmt.Sprintf("%d %s failed (FAILED below)", failed, plural(failed, "line"))
	}
	if len(sp) == 0 {
		if failed == 0 {
			return "no runs"
		}
		q := ""
		if quick {
			q = "; --quick"
		}
		return "no run succeeded: " + fails + q
	}
	sort.Ints(sp)
	sort.Ints(ens)
	sort.Float64s(budgets)
	var ordered []string
	for _, g := range TabularGroups {
		if slices.Contains(groups, g) {
			ordered = append(ordered, g)
		}
	}
	s := tabScaleText(sp, ordered, ens, budgets, quick)
	if failed > 0 {
		s += "; besides, " + fails
	}
	return s
}

// plural is word, with an s unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// tabScaleText is the scale of runs of the splits sp (sorted) and the
// groups, with the --ensemble sizes ens and the --tune budgets (seconds).
func tabScaleText(sp []int, groups []string, ens []int, budgets []float64, quick bool) string {
	var settings []string
	if len(ens) > 0 {
		es := make([]string, len(ens))
		for i, e := range ens {
			es[i] = strconv.Itoa(e)
		}
		settings = append(settings, "--ensemble "+strings.Join(es, " and "))
	}
	if len(budgets) > 0 {
		bs := make([]string, len(budgets))
		for i, b := range budgets {
			bs[i] = time.Duration(math.Round(b * 1e9)).String()
		}
		settings = append(settings, "--tune budget "+strings.Join(bs, " and "))
	}
	set := ""
	if len(settings) > 0 {
		set = " (" + strings.Join(settings, ", ") + ")"
	}
	q := ""
	if quick {
		q = "; --quick"
	}
	return fmt.Sprintf("splits %s, the full training part, the normalized decoder: the groups %s%s, each with --calibrate where >= 20 validation rows%s",
		splitRange(sp), strings.Join(groups, ", "), set, q)
}

// splitRange writes the sorted splits sp as "0..2" when they run from
// the first to the last without a gap, else as a list.
func splitRange(sp []int) string {
	switch {
	case len(sp) == 0:
		return "none"
	case len(sp) == 1:
		return strconv.Itoa(sp[0])
	case sp[len(sp)-1]-sp[0] == len(sp)-1:
		return fmt.Sprintf("%d..%d", sp[0], sp[len(sp)-1])
	}
	ss := make([]string, len(sp))
	for i, s := range sp {
		ss[i] = strconv.Itoa(s)
	}
	return strings.Join(ss, ", ")
}

// xgbTau reads the XGBoost baseline's Kendall's tau per dataset and split
// from path (experiments/xgboost/xgb_uci.py's results.jsonl); a missing
// file gives an empty map and found false. Blank lines are skipped; a last
// line cut off (no newline, not a whole object) is left out, and a
// dataset and split on more than one line takes its first line, each with
// a warning to log (nil: none). Errors are *InputErrors naming path.
func xgbTau(path string, log io.Writer) (tau map[string]map[int]float64, found bool, err error) {
	out := map[string]map[int]float64{}
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return out, false, nil
	}
	if err == nil && !fi.Mode().IsRegular() {
		// A FIFO would block the report for ever.
		return nil, true, &InputError{fmt.Errorf("%s, XGBoost's results, is not a regular file", path)}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, true, &InputError{err}
	}
	// Python's json writes an undefined tau as the bare token NaN.
	b = bytes.ReplaceAll(b, []byte(": NaN"), []byte(": null"))
	if n := completeLen(b); n < len(b) {
		if log != nil {
			fmt.Fprintf(log, "warning: %s ends in a partial line (a run cut off), which the report leaves out\n", path)
		}
		b = b[:n]
	}
	var twice []string
	for n, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r struct {
			Dataset string   `json:"dataset"`
			Split   *int     `json:"split"`
			Tau     *float64 `json:"kendall_tau"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, true, &InputError{fmt.Errorf("%s: line %d: %v", path, n+1, err)}
		}
		if r.Dataset == "" || r.Split == nil {
			return nil, true, &InputError{fmt.Errorf("%s: line %d: no \"dataset\" or \"split\"", path, n+1)}
		}
		tau := math.NaN()
		if r.Tau != nil {
			tau = *r.Tau
		}
		if out[r.Dataset] == nil {
			out[r.Dataset] = map[int]float64{}
		}
		if old, ok := out[r.Dataset][*r.Split]; ok {
			if old != tau && !(math.IsNaN(old) && math.IsNaN(tau)) {
				twice = append(twice, fmt.Sprintf("%s split %d", r.Dataset, *r.Split))
			}
			continue
		}
		out[r.Dataset][*r.Split] = tau
	}
	if len(twice) > 0 && log != nil {
		fmt.Fprintf(log, "warning: %s: %d dataset split(s) appear on more than one line with different taus (%s); the report takes each one's first line\n",
			path, len(twice), strings.Join(twice, "; "))
	}
	return out, true, nil
}

// TabularSummary compares one variant with XGBoost and with the defaults
// over the datasets it ran, each dataset's splits averaged first (each
// score over the splits tabRaw.mean says).
type TabularSummary struct {
	Variant  string
	Datasets int
	Runs     int // (dataset, split) pairs
	// MeanTau and XGBMeanTau average, over the datasets compared with
	// XGBoost (XGBDatasets), each dataset's tau over the splits where both
	// the variant's and XGBoost's are defined: the same datasets and
	// splits on both sides. Where XGBoost has no tau of a dataset the
	// variant has one of, MeanTau is the variant's own (over the splits
	// where its tau is defined) and XGBMeanTau is NaN.
	MeanTau     float64
	XGBMeanTau  float64
	TauDatasets int // datasets where the variant's tau is defined on a split (not every one's targets tied)
	XGBDatasets int // datasets compared with XGBoost (0: none)
	BeatsXGB    int // of those, the datasets with a higher mean tau than XGBoost's
	// MeanNLL and DefaultMeanNLL average, over the datasets compared with
	// the defaults (DefaultDatasets), each dataset's NLL over the splits
	// both ran. Where the defaults lack a dataset the variant ran, MeanNLL
	// is the variant's own (over its splits) and DefaultMeanNLL is NaN.
	MeanNLL           float64
	DefaultMeanNLL    float64
	DefaultDatasets   int     // datasets compared with the defaults (0: none)
	LowerNLL          int     // of those, the datasets with a lower NLL than the defaults'
	InBand90          int     // datasets whose 90% interval covers 85-95%
	MeanCoverage90    float64 // over the variant's splits
	MeanCRPSvsDefault float64 // mean over DefaultDatasets of CRPS / the defaults' CRPS - 1 (NaN: none)
}

// tabRaw holds every scored model's scores and the splits whose test
// targets are all equal.
type tabRaw struct {
	s    map[string]map[string]map[int]TabScores // variant, dataset, split
	tied map[string]map[int]bool                 // dataset, split (tabTied)
}

// tabScores gathers the scores of the lines that did not fail, and which
// splits' test targets are all equal (tabTied, from the lines and xgb).
func tabScores(lines []*TabularLine, xgb map[string]map[int]float64) tabRaw {
	r := tabRaw{s: map[string]map[string]map[int]TabScores{}, tied: tabTied(lines, xgb)}
	for _, l := range lines {
		if l.Error != "" {
			continue
		}
		for v, sc := range l.Scores {
			if r.s[v] == nil {
				r.s[v] = map[string]map[int]TabScores{}
			}
			if r.s[v][l.Dataset] == nil {
				r.s[v][l.Dataset] = map[int]TabScores{}
			}
			r.s[v][l.Dataset][l.Split] = sc
		}
	}
	return r
}

// tabTied decides, for each dataset and split of lines, whether its test
// targets are all equal (or fewer than two), where Kendall's tau and the
// relative MSE are undefined (NaN) for every model: as its lines record
// it (TabularLine.TiedTargets). For a split whose lines predate that
// field, from the evidence the journal and XGBoost's results give: no
// model's tau or relative MSE of the split is defined (each is wherever
// the targets vary and the predictions are numbers; a constant prediction
// leaves the relative MSE defined), and XGBoost's tau of the split
// (scored on the same test targets) is not either: NaN, or not in its
// results (or those not found). A NaN tau anywhere else is the model's
// (constant or NaN predictions): a failure, which the means carry.
func tabTied(lines []*TabularLine, xgb map[string]map[int]float64) map[string]map[int]bool {
	type dsSplit struct {
		ds    string
		split int
	}
	recorded := map[dsSplit]*bool{}
	varies := map[dsSplit]bool{} // a model's defined tau or relative MSE: the targets vary
	var keys []dsSplit
	for _, l := range lines {
		k := dsSplit{l.Dataset, l.Split}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
		if l.TiedTargets != nil && (recorded[k] == nil || *l.TiedTargets) {
			recorded[k] = l.TiedTargets
		}
		if l.Error == "" {
			for _, sc := range l.Scores {
				if !math.IsNaN(float64(sc.RelMSE)) || !math.IsNaN(float64(sc.KendallTau)) {
					varies[k] = true
				}
			}
		}
	}
	out := map[string]map[int]bool{}
	for _, k := range keys {
		tied := false
		if t := recorded[k]; t != nil {
			tied = *t
		} else if x, ok := xgb[k.ds][k.split]; !varies[k] && (!ok || math.IsNaN(x)) {
			tied = true
		}
		if tied {
			if out[k.ds] == nil {
				out[k.ds] = map[int]bool{}
			}
			out[k.ds][k.split] = true
		}
	}
	return out
}

// splits returns the splits variant v has of dataset ds, in order.
func (r tabRaw) splits(v, ds string) []int {
	var sp []int
	for s := range r.s[v][ds] {
		sp = append(sp, s)
	}
	sort.Ints(sp)
	return sp
}

// mean averages v's scores of ds over the splits sp (all of which it
// has). Kendall's tau and the relative MSE leave out the splits whose test
// targets are all equal (tabTied: undefined there for every model, so
// every variant and XGBoost leave out the same splits), and are NaN where
// every split is such; any other NaN, a model's failure, is carried into
// the mean.
func (r tabRaw) mean(v, ds string, sp []int) TabScores {
	var a, n [8]float64
	for _, s := range sp {
		sc := r.s[v][ds][s]
		for i, x := range []Float{sc.NLL, sc.KendallTau, sc.RelMSE, sc.CRPS, sc.PITError, sc.Coverage90, sc.Width90, sc.Temperature} {
			if (i == 1 || i == 2) && r.tied[ds][s] {
				continue
			}
			a[i] += float64(x)
			n[i]++
		}
	}
	var m [8]Float
	for i := range m {
		m[i] = Float(math.NaN())
		if n[i] > 0 {
			m[i] = Float(a[i] / n[i])
		}
	}
	return TabScores{NLL: m[0], KendallTau: m[1], RelMSE: m[2], CRPS: m[3], PITError: m[4], Coverage90: m[5], Width90: m[6], Temperature: m[7]}
}

// untied returns the splits of sp whose test targets of ds are not all
// equal: those where tau is defined for a model that does not fail.
func (r tabRaw) untied(ds string, sp []int) []int {
	var out []int
	for _, s := range sp {
		if !r.tied[ds][s] {
			out = append(out, s)
		}
	}
	return out
}

// datasets returns every dataset any variant has, in order.
func (r tabRaw) datasets() []string {
	set := map[string]bool{}
	for _, byDS := range r.s {
		for ds := range byDS {
			set[ds] = true
		}
	}
	names := make([]string, 0, len(set))
	for ds := range set {
		names = append(names, ds)
	}
	sort.Strings(names)
	return names
}

// table averages each variant's runs of a dataset over its splits.
func (r tabRaw) table() map[string]map[string]TabScores {
	out := map[string]map[string]TabScores{}
	for v, byDS := range r.s {
		out[v] = map[string]TabScores{}
		for ds := range byDS {
			out[v][ds] = r.mean(v, ds, r.splits(v, ds))
		}
	}
	return out
}

// xgbMean averages XGBoost's tau of dataset ds over the splits sp (NaN
// splits left out); ok is false when none has a tau.
func xgbMean(xgb map[string]map[int]float64, ds string, sp []int) (float64, bool) {
	var v []float64
	for _, s := range sp {
		if t, ok := xgb[ds][s]; ok && !math.IsNaN(t) {
			v = append(v, t)
		}
	}
	if len(v) == 0 {
		return 0, false
	}
	return metrics.Mean(v), true
}

// xgbSplits returns the splits of sp where XGBoost has a tau of ds (not
// NaN): those a variant is compared with it on.
func xgbSplits(xgb map[string]map[int]float64, ds string, sp []int) []int {
	var out []int
	for _, s := range sp {
		if t, ok := xgb[ds][s]; ok && !math.IsNaN(t) {
			out = append(out, s)
		}
	}
	return out
}

// xgbMeans averages XGBoost's tau per dataset over the splits the lines
// ran (NaN splits left out).
func xgbMeans(lines []*TabularLine, xgb map[string]map[int]float64) map[string]float64 {
	splits := map[string][]int{}
	for _, l := range lines {
		if !slices.Contains(splits[l.Dataset], l.Split) {
			splits[l.Dataset] = append(splits[l.Dataset], l.Split)
		}
	}
	out := map[string]float64{}
	for ds, sp := range splits {
		if m, ok := xgbMean(xgb, ds, sp); ok {
			out[ds] = m
		}
	}
	return out
}

// intersect returns the elements of a that b holds.
func intersect(a, b []int) []int {
	var c []int
	for _, x := range a {
		if slices.Contains(b, x) {
			c = append(c, x)
		}
	}
	return c
}

// SummarizeTabular summarizes each variant against XGBoost (over the
// variant's splits of each dataset where both taus are defined) and the
// defaults (over the splits both ran).
func SummarizeTabular(lines []*TabularLine, xgb map[string]map[int]float64) []TabularSummary {
	r := tabScores(lines, xgb)
	names := r.datasets()
	var out []TabularSummary
	for _, v := range tabVariants {
		if len(r.s[v]) == 0 {
			continue
		}
		s := TabularSummary{Variant: v}
		var ownTaus, taus, xtaus, ownNLLs, nlls, dnlls, covs, crps []float64
		for _, ds := range names {
			sp := r.splits(v, ds)
			if len(sp) == 0 {
				continue
			}
			s.Datasets++
			s.Runs += len(sp)
			own := r.mean(v, ds, sp)
			if def := r.untied(ds, sp); len(def) > 0 {
				ownTaus = append(ownTaus, float64(own.KendallTau))
				if xs := xgbSplits(xgb, ds, def); len(xs) > 0 {
					x, _ := xgbMean(xgb, ds, xs)
					t := float64(r.mean(v, ds, xs).KendallTau)
					taus, xtaus = append(taus, t), append(xtaus, x)
					if beats(t, x) {
						s.BeatsXGB++
					}
				}
			}
			ownNLLs = append(ownNLLs, float64(own.NLL))
			if common := intersect(sp, r.splits("default", ds)); len(common) > 0 {
				vc, d := r.mean(v, ds, common), r.mean("default", ds, common)
				nlls, dnlls = append(nlls, float64(vc.NLL)), append(dnlls, float64(d.NLL))
				if vc.NLL < d.NLL {
					s.LowerNLL++
				}
				crps = append(crps, float64(vc.CRPS)/float64(d.CRPS)-1)
			}
			c := float64(own.Coverage90)
			covs = append(covs, c)
			if c >= 0.85 && c <= 0.95 {
				s.InBand90++
			}
		}
		s.TauDatasets, s.XGBDatasets, s.DefaultDatasets = len(ownTaus), len(taus), len(nlls)
		s.MeanTau, s.XGBMeanTau = metrics.Mean(ownTaus), math.NaN()
		if len(taus) > 0 && len(taus) == len(ownTaus) {
			s.MeanTau, s.XGBMeanTau = metrics.Mean(taus), metrics.Mean(xtaus)
		}
		s.MeanNLL, s.DefaultMeanNLL = metrics.Mean(ownNLLs), math.NaN()
		if len(nlls) > 0 && len(nlls) == len(ownNLLs) {
			s.MeanNLL, s.DefaultMeanNLL = metrics.Mean(nlls), metrics.Mean(dnlls)
		}
		s.MeanCoverage90, s.MeanCRPSvsDefault = metrics.Mean(covs), metrics.Mean(crps)
		out = append(out, s)
	}
	return out
}

// tabCount writes a count of the n datasets compared, "-" where none was,
// and "k of n" where fewer than all the variant's datasets were.
func tabCount(k, n, all int) string {
	switch {
	case n == 0:
		return "-"
	case n < all:
		return fmt.Sprintf("%d of %d", k, n)
	}
	return strconv.Itoa(k)
}

// tabNum formats x with format, "-" where ok is false (nothing compared);
// a NaN (a failed model's score) shows as NaN.
func tabNum(format string, x float64, ok bool) string {
	switch {
	case !ok:
		return "-"
	case math.IsNaN(x):
		return "NaN" // not format's "+NaN%"
	}
	return fmt.Sprintf(format, x)
}

// tabTunedVariant returns the report's tuned ensemble (of the split table
// and the figure) and its description: from all where the journal has it,
// else from the trials, else from seeds; "" where it has none.
func tabTunedVariant(raw tabRaw) (v, label string) {
	for _, c := range []struct{ v, label string }{
		{"tuned+all5", "--tune --ensemble 5 (from all)"},
		{"tuned+ensemble5", "--tune --ensemble 5 --ensemble-from trials"},
		{"tuned+seeds5", "--tune --ensemble 5 --ensemble-from seeds"},
	} {
		if len(raw.s[c.v]) > 0 {
			return c.v, c.label
		}
	}
	return "", ""
}

// TabularReport writes dir/REPORT.md and dir/tabular.png (where there is
// a point to draw; a tabular.png of an earlier report is removed where
// there is none).
func TabularReport(dir string, lines []*TabularLine, info ReportInfo) error {
	xgbPath, err := xgbJournal(dir)
	if err != nil {
		return err
	}
	xgb, xgbFound, err := xgbTau(xgbPath, info.Log)
	if err != nil {
		return err
	}
	// The lines of a group this build does not know (a newer build's) are
	// not reported: the journal's line by group names them.
	all := lines
	lines = slices.DeleteFunc(slices.Clone(lines), func(l *TabularLine) bool { return !slices.Contains(TabularGroups, l.Group) })
	raw := tabScores(lines, xgb)
	tab, names := raw.table(), raw.datasets()
	xm := xgbMeans(lines, xgb)
	var b strings.Builder
	b.WriteString("# The normalized decoder on tables, against XGBoost\n\n" +
		"decoreg's own experiment (issue 13): the normalized decoder as a user would run it on each UCI dataset's split: " +
		"`train` with the defaults, with `--ensemble 5`, and with `--tune` (default budget) `--ensemble 5 --ensemble-from trials` (\"tuned+ensemble5\"), whose best trial " +
		"alone is scored too (\"tuned\"); with `--tune --ensemble 5 --ensemble-from all` (the default; \"tuned+all5\": up to 5 chosen " +
		"greedily among the trials and 4 more seeds of the best trial's settings); and, where the journal has it, with " +
		"`--ensemble-from seeds` (\"tuned+seeds5\": the best trial and those 4 seeds); each group with `--calibrate` where the split leaves at least 20 validation rows " +
		"(\"+cal\"; without it, the scores are at temperature 1), and, in runs since 2026-11-27, the same model calibrated instead by `--calibrate-by isotonic` on the same validation rows (\"+iso\"), and in runs since 2026-11-28 by `--calibrate-by depth` (\"+depth\", temperatures per token depth; the temperature column shows 1 for it). The group tuned-all-depth (\"tuned+all5+sd\") is tuned-all with `--stop-by depth`: early stopping, the trials and the ensemble's members compared by the validation NLL at temperatures per token depth fitted on the validation rows; the group tuned-all-crps (\"tuned+all5+sc\") is tuned-all with `--stop-by crps`: early stopping, the trials and the members compared by the validation CRPS. The tuning's defaults are those of the commit each run records: since 6565638 (2026-11-27) its trials, seeds and selection are compared at `--tune-resolution` 2^-18, before it by their plain validation NLL; since aa3d15a (2026-11-28) every trial and member keeps the moving average of its weights (`--ema 0.99`). Point estimate: the mean. NLL and tau use every test row; " +
		"CRPS, coverage and PIT use at most 500 evenly spaced test rows (an ensemble's exact quantiles cost about 50 ms a row). XGBoost: " +
		"`experiments/xgboost/xgb_uci.py` (Debian's xgboost, 500 trees, learning rate 0.05, depth 6, subsample 0.8, " +
		"colsample 0.8) on the same splits, from `../xgboost/results.jsonl`. Each variant's scores of a dataset are averaged over " +
		"the splits it ran; tau leaves out the splits whose test targets are all equal, where it is undefined for every model " +
		"(as the runs record it; for runs that predate that record, where no model's tau or relative MSE is defined and XGBoost's tau is not either: " +
		"undefined, or not in its results), " +
		"and any other NaN (a failed model) is carried into the means, not left out. " +
		"Against XGBoost, both sides over the variant's splits where both taus are defined, and against the defaults, both over the splits both ran.\n\n")
	fmt.Fprintf(&b, "Scale: %s. Command: `%s`.\n\n%s\n\n", tabScale(lines), info.Command, Provenance(all))
	b.WriteString(tabJournalScale(all))
	if !xgbFound {
		b.WriteString("XGBoost's results (`../xgboost/results.jsonl`) were not found: no variant is compared with XGBoost.\n\n")
	}
	failed := 0
	for _, l := range lines {
		if l.Error != "" {
			failed++
		}
	}
	if failed == len(lines) {
		switch {
		case len(lines) == 0 && len(all) > 0:
			b.WriteString("No line of this journal is of a group this build reports.\n\n")
		case len(lines) == 0:
			b.WriteString("The journal holds no runs.\n\n")
		case len(all) > len(lines):
			fmt.Fprintf(&b, "No run of this journal's known groups succeeded: %d failed %s, see FAILED below.\n\n", failed, plural(failed, "line"))
		default:
			fmt.Fprintf(&b, "No run of this journal succeeded: %d failed %s, see FAILED below.\n\n", failed, plural(failed, "line"))
		}
	}
	for _, l := range lines {
		if l.Error != "" {
			fmt.Fprintf(&b, "- FAILED: %s split %d %s: %s\n", l.Dataset, l.Split, l.Group, l.Error)
		}
	}
	if failed > 0 {
		b.WriteString("\n")
	}
	png := filepath.Join(dir, "tabular.png")
	if failed == len(lines) {
		// Nothing to tabulate or draw.
		if err := writeText(info.Ctx, filepath.Join(dir, "REPORT.md"), b.String()); err != nil {
			return err
		}
		return removeStale(png)
	}
	b.WriteString("## Summary (means over datasets)\n\n" +
		"\"beats XGBoost\": datasets where the variant's tau is higher (by more than 1e-9); \"lower NLL\": datasets where its test NLL is below " +
		"the defaults'; \"90% in band\": datasets whose central 90% interval covers 85-95% of the test rows; CRPS change: " +
		"mean over datasets of CRPS / the defaults' CRPS - 1; \"-\": nothing to compare with (\"k of n\": n datasets compared).\n\n| variant |")
	mdColumns(&b, []string{"datasets", "runs", "mean tau", "XGBoost mean tau", "beats XGBoost", "mean NLL", "defaults' mean NLL", "lower NLL", "90% in band", "mean 90% coverage", "CRPS change"}, "---:")
	for _, s := range SummarizeTabular(lines, xgb) {
		// XGBoost's and the defaults' means where they cover every dataset
		// the variant's mean is over (else it is the variant's own).
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s | %.3f | %s | %s | %d | %.3f | %s |\n", s.Variant, s.Datasets, s.Runs,
			tabNum("%.4f", s.MeanTau, s.TauDatasets > 0), tabNum("%.4f", s.XGBMeanTau, s.XGBDatasets > 0 && s.XGBDatasets == s.TauDatasets),
			tabCount(s.BeatsXGB, s.XGBDatasets, s.TauDatasets),
			s.MeanNLL, tabNum("%.3f", s.DefaultMeanNLL, s.DefaultDatasets > 0 && s.DefaultDatasets == s.Datasets), tabCount(s.LowerNLL, s.DefaultDatasets, s.Datasets),
			s.InBand90, s.MeanCoverage90, tabNum("%+.1f%%", 100*s.MeanCRPSvsDefault, s.DefaultDatasets > 0))
	}
	// The split table's and the figure's (and the issue's) tuned ensemble.
	tv, tl := tabTunedVariant(raw)
	if tv != "" {
		tabSplitTable(&b, raw, xgb, names, tv, tl)
	}
	present := tabPresent(tab)
	b.WriteString("\n## Kendall's tau per dataset\n\nEach variant over the splits it ran; XGBoost over every split the journal holds of the dataset.\n\n| dataset | XGBoost |")
	mdColumns(&b, present, "---:")
	for _, ds := range names {
		x, ok := xm[ds]
		xs := "-"
		if ok {
			xs = fmt.Sprintf("%.3f", x)
		}
		fmt.Fprintf(&b, "| %s | %s |", ds, xs)
		for _, v := range present {
			if s, ok := tab[v][ds]; ok {
				fmt.Fprintf(&b, " %.3f |", float64(s.KendallTau))
			} else {
				b.WriteString(" - |")
			}
		}
		b.WriteString("\n")
	}
	variantTable(&b, "Test NLL per dataset (per unit of y)", tab, names, func(s TabScores) Float { return s.NLL })
	variantTable(&b, "Coverage of the central 90% interval per dataset", tab, names, func(s TabScores) Float { return s.Coverage90 })
	tabTuningTable(&b, lines)

	// The figure: each variant's points over its splits (XGBoost's over
	// the same); the tuned ensemble against the defaults over the splits
	// both ran.
	var dxy, txy, vxy plotter.XYs
	for _, ds := range names {
		dsp := raw.splits("default", ds)
		if xs := xgbSplits(xgb, ds, raw.untied(ds, dsp)); len(xs) > 0 {
			x, _ := xgbMean(xgb, ds, xs)
			if d := raw.mean("default", ds, xs); !math.IsNaN(float64(d.KendallTau)) {
				dxy = append(dxy, plotter.XY{X: x, Y: float64(d.KendallTau)})
			}
		}
		if tv == "" {
			continue
		}
		tsp := raw.splits(tv, ds)
		if common := intersect(tsp, dsp); len(common) > 0 {
			d, t := raw.mean("default", ds, common), raw.mean(tv, ds, common)
			if !math.IsNaN(float64(d.KendallTau)) && !math.IsNaN(float64(t.KendallTau)) {
				vxy = append(vxy, plotter.XY{X: float64(d.KendallTau), Y: float64(t.KendallTau)})
			}
		}
		if xs := xgbSplits(xgb, ds, raw.untied(ds, tsp)); len(xs) > 0 {
			x, _ := xgbMean(xgb, ds, xs)
			if t := raw.mean(tv, ds, xs); !math.IsNaN(float64(t.KendallTau)) {
				txy = append(txy, plotter.XY{X: x, Y: float64(t.KendallTau)})
			}
		}
	}
	var row []*plot.Plot
	var captions []string
	panel := func(title, xl, yl string, a, b plotter.XYs, al, bl string) error {
		p := newPlot(title, xl, yl)
		lo := math.Min(0, math.Min(minXY(a), minXY(b)))
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, 1, lo, 1
		if err := addLine(p, plotter.XYs{{X: lo, Y: lo}, {X: 1, Y: 1}}, headColor("truth"), "equal", true, false); err != nil {
			return err
		}
		if len(a) > 0 {
			if err := addScatter(p, a, headColor("none"), vg.Points(3), al); err != nil {
				return err
			}
		}
		if err := addScatter(p, b, headColor(DecoderNormalized), vg.Points(3), bl); err != nil {
			return err
		}
		p.Legend.Top, p.Legend.Left = true, true
		row = append(row, p)
		return nil
	}
	switch {
	case len(txy) > 0:
		if err := panel("against XGBoost", "XGBoost's tau", "the normalized decoder's tau", dxy, txy, "defaults", tl); err != nil {
			return err
		}
		who := tl
		if len(dxy) > 0 {
			who = fmt.Sprintf("the defaults in grey, %s in colour", tl)
		}
		captions = append(captions, fmt.Sprintf("the decoder's (%s) against XGBoost's, where above the diagonal the decoder ranks better", who))
	case len(dxy) > 0:
		if err := panel("against XGBoost", "XGBoost's tau", "the normalized decoder's tau", nil, dxy, "", "defaults"); err != nil {
			return err
		}
		captions = append(captions, "the decoder's (the defaults) against XGBoost's, where above the diagonal the decoder ranks better")
	}
	if len(vxy) > 0 {
		if err := panel("the tuned ensemble against the defaults", "the defaults' tau", "the tuned ensemble's tau", nil, vxy, "", tl); err != nil {
			return err
		}
		captions = append(captions, tl+" against the defaults")
	}
	if len(row) == 0 {
		// No figure: a report without its caption, then no tabular.png of
		// an earlier report beside it.
		if err := writeText(info.Ctx, filepath.Join(dir, "REPORT.md"), b.String()); err != nil {
			return err
		}
		return removeStale(png)
	}
	if len(captions) == 2 {
		captions[0], captions[1] = "left, "+captions[0], "right, "+captions[1]
	}
	fmt.Fprintf(&b, "\nFigure: [tabular.png](tabular.png): each dataset's Kendall's tau; %s.\n", strings.Join(captions, "; "))
	// The figure first: the report never links a figure of other results.
	if err := writeGrid(ctxOf(info), png, "Kendall's tau on the UCI datasets (one point per dataset)",
		[][]*plot.Plot{row}, vg.Length(len(row))*5*vg.Inch, 5*vg.Inch); err != nil {
		return err
	}
	return writeText(info.Ctx, filepath.Join(dir, "REPORT.md"), b.String())
}

// removeStale removes the file at path (a figure an earlier report wrote)
// if there is one: a regular file or a symbolic link (the link, not its
// target); anything else is left alone.
func removeStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0 {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// tabTuningTable writes the section on the tuned groups' runs: one row per
// dataset and split with a tuned, tuned-seeds or tuned-all line, with the
// columns of the groups the journal holds; a failed line's cells say
// "failed" ("-": no such line).
func tabTuningTable(b *strings.Builder, lines []*TabularLine) {
	type dsSplit struct {
		ds    string
		split int
	}
	secs := map[dsSplit]map[string]string{}          // each group's train seconds, or "failed"
	byGroup := map[string]map[dsSplit]*TabularLine{} // the tuned groups' lines
	has := map[string]bool{}
	var keys []dsSplit // the splits with a tuned group's line, failed or not
	for _, l := range lines {
		k := dsSplit{l.Dataset, l.Split}
		has[l.Group] = true
		if secs[k] == nil {
			secs[k] = map[string]string{}
		}
		secs[k][l.Group] = fmt.Sprintf("%.0f", l.Seconds)
		if l.Error != "" {
			secs[k][l.Group] = "failed"
		}
		if l.Group != tabTuned && l.Group != tabTunedSeeds && l.Group != tabTunedAll && l.Group != tabTunedAllDepth && l.Group != tabTunedAllCRPS {
			continue
		}
		if byGroup[l.Group] == nil {
			byGroup[l.Group] = map[dsSplit]*TabularLine{}
		}
		byGroup[l.Group][k] = l
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return
	}
	slices.SortFunc(keys, func(a, b dsSplit) int {
		if a.ds != b.ds {
			return strings.Compare(a.ds, b.ds)
		}
		return a.split - b.split
	})
	// The train seconds of the groups the journal holds; the seeds' and
	// the best trial's columns of tuned-seeds and tuned-all where it holds
	// them.
	names := map[string]string{tabDefault: "default", tabEnsemble: "ensemble", tabTuned: "tuned", tabTunedSeeds: "tuned from seeds", tabTunedAll: "tuned from all", tabTunedAllDepth: "tuned from all, stopped by depth", tabTunedAllCRPS: "tuned from all, stopped by CRPS"}
	var groups, gnames []string
	for _, g := range TabularGroups {
		if has[g] {
			groups, gnames = append(groups, g), append(gnames, names[g])
		}
	}
	var members []string // tuned-seeds, tuned-all: those the journal holds
	for _, g := range []string{tabTunedAll, tabTunedAllDepth, tabTunedAllCRPS, tabTunedSeeds} {
		if len(byGroup[g]) > 0 {
			members = append(members, g)
		}
	}
	fmt.Fprintf(b, "\n## Tuning: the chosen trials and the time\n\n| dataset | split | trials | budget cut | train seconds (%s) |", strings.Join(gnames, ", "))
	align := "|---|---:|---:|---|---|"
	for _, g := range members {
		fmt.Fprintf(b, " %s: seeds' members chosen, stopped by the budget |", names[g])
		align += "---:|"
	}
	b.WriteString(" chosen (best first) |")
	align += "---|"
	for _, g := range members {
		fmt.Fprintf(b, " %s: best trial |", names[g])
		align += "---|"
	}
	b.WriteString("\n" + align + "\n")
	for _, k := range keys {
		trials, cut, chosen := "-", "-", "-"
		var tchosen []string
		if l, ok := byGroup[tabTuned][k]; ok && l.Error == "" {
			trials, cut, chosen, tchosen = strconv.Itoa(l.Trials), strconv.FormatBool(l.Cut), strings.Join(l.Chosen, "; "), l.Chosen
		} else {
			if ok { // the tuned group's line failed
				trials, cut, chosen = "failed", "failed", "failed"
			}
			// The search of a group from seeds or all repeats the tuned
			// group's: its trials where the journal lacks that line (or
			// it failed); "failed" where every one of them failed.
			for _, g := range members {
				if l, ok := byGroup[g][k]; ok {
					if l.Error == "" {
						trials, cut = strconv.Itoa(l.Trials), strconv.FormatBool(l.Cut)
						break
					}
					trials, cut = "failed", "failed"
				}
			}
		}
		var seeds, best []string
		for _, g := range members {
			s, bt := "-", "-"
			if a, ok := byGroup[g][k]; ok {
				switch {
				case a.Error != "":
					s, bt = "failed", "failed"
				default:
					s = fmt.Sprintf("%d of %d chosen, %d stopped", a.SeedsChosen, a.Config.Ensemble-1, a.MembersCut)
					if a.SoftSeeds > 0 || a.PLESeeds > 0 {
						n := a.Config.Ensemble - 1 + a.PLESeeds
						if a.SoftSeeds > 0 {
							n += a.Config.Ensemble - 1
						}
						s = fmt.Sprintf("%d of %d chosen (%d of them soft, %d ple), %d stopped", a.SeedsChosen, n, a.SoftSeedsChosen, a.PLESeedsChosen, a.MembersCut)
					}
					switch {
					case len(a.Chosen) == 0:
					case len(tchosen) > 0 && a.Chosen[0] == tchosen[0]:
						bt = "the same"
					default:
						bt = a.Chosen[0]
					}
				}
			}
			seeds, best = append(seeds, s), append(best, bt)
		}
		cells := make([]string, len(groups))
		for i, g := range groups {
			cells[i] = "-"
			if v, ok := secs[k][g]; ok {
				cells[i] = v
			}
		}
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s |", k.ds, k.split, trials, cut, strings.Join(cells, ", "))
		for _, s := range seeds {
			fmt.Fprintf(b, " %s |", s)
		}
		fmt.Fprintf(b, " %s |", chosen)
		for _, s := range best {
			fmt.Fprintf(b, " %s |", s)
		}
		b.WriteString("\n")
	}
}

// tabJournalScale describes what the journal holds, group by group: the
// splits and the number of datasets; then the groups this build does not
// know (a newer build's), whose lines the report leaves out, with their
// numbers of lines.
func tabJournalScale(lines []*TabularLine) string {
	sp := map[string]map[int]bool{}
	ds := map[string]map[string]bool{}
	for _, l := range lines {
		if sp[l.Group] == nil {
			sp[l.Group], ds[l.Group] = map[int]bool{}, map[string]bool{}
		}
		sp[l.Group][l.Split] = true
		ds[l.Group][l.Dataset] = true
	}
	var parts []string
	for _, g := range TabularGroups {
		if len(sp[g]) == 0 {
			continue
		}
		var splits []int
		for s := range sp[g] {
			splits = append(splits, s)
		}
		sort.Ints(splits)
		ss := make([]string, len(splits))
		for i, s := range splits {
			ss[i] = strconv.Itoa(s)
		}
		parts = append(parts, fmt.Sprintf("%s: splits %s of %d datasets", g, strings.Join(ss, ", "), len(ds[g])))
	}
	// The groups of a newer build, in the journal's order.
	var unknown []string
	n := map[string]int{}
	for _, l := range lines {
		if !slices.Contains(TabularGroups, l.Group) {
			if n[l.Group] == 0 {
				unknown = append(unknown, l.Group)
			}
			n[l.Group]++
		}
	}
	if len(unknown) > 0 {
		us := make([]string, len(unknown))
		for i, g := range unknown {
			us[i] = fmt.Sprintf("%s (%d %s)", g, n[g], plural(n[g], "line"))
		}
		parts = append(parts, "unknown to this build: "+strings.Join(us, ", ")+", not reported")
	}
	if len(parts) == 0 {
		return ""
	}
	return "The journal holds, by group: " + strings.Join(parts, "; ") + ".\n\n"
}

// tabSplitTable writes the section that checks issue 13's target: variant
// v (described as label) against XGBoost on each dataset, split by split,
// and their means over the splits where both taus are defined (the
// variant's alone, over its splits, where XGBoost has none).
func tabSplitTable(b *strings.Builder, raw tabRaw, xgb map[string]map[int]float64, names []string, v, label string) {
	fmt.Fprintf(b, "\n## %s against XGBoost, split by split\n\n"+
		"Kendall's tau of %s and of XGBoost on each split %s ran; the means over the splits where both are defined; "+
		"\"wins\" where the variant's mean is higher by more than 1e-9 (\"tie\" within it: the same ranking).\n\n"+
		"| dataset | splits | %s, per split | XGBoost, per split | %s, mean | XGBoost, mean | wins |\n|---|---|---|---|---:|---:|---|\n",
		label, label, v, v, v)
	wins, n := 0, 0
	var vm, xm []float64
	for _, ds := range names {
		sp := raw.splits(v, ds)
		if len(sp) == 0 {
			continue
		}
		var ss, vs, xs []string
		for _, s := range sp {
			ss = append(ss, strconv.Itoa(s))
			vs = append(vs, fmt.Sprintf("%.3f", float64(raw.s[v][ds][s].KendallTau)))
			if t, ok := xgb[ds][s]; ok {
				xs = append(xs, fmt.Sprintf("%.3f", t))
			} else {
				xs = append(xs, "-")
			}
		}
		// The means over the splits where both taus are defined (all of
		// them, unless the targets of one are all equal or XGBoost lacks
		// it); a NaN of the variant's elsewhere (a failure) is carried.
		cmp := xgbSplits(xgb, ds, raw.untied(ds, sp))
		if len(cmp) == 0 {
			cmp = sp
		}
		t := float64(raw.mean(v, ds, cmp).KendallTau)
		x, ok := xgbMean(xgb, ds, cmp)
		xstr, win := "-", ""
		if ok {
			xstr = fmt.Sprintf("%.3f", x)
			n++
			vm, xm = append(vm, t), append(xm, x)
			switch {
			case beats(t, x):
				wins++
				win = "yes"
			case !beats(x, t):
				win = "tie"
			}
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %.3f | %s | %s |\n", ds, strings.Join(ss, ", "), strings.Join(vs, ", "), strings.Join(xs, ", "), t, xstr, win)
	}
	if n > 0 {
		fmt.Fprintf(b, "\n%s wins on %d of %d datasets (two thirds: %d); mean tau %.4f against XGBoost's %.4f.\n",
			v, wins, n, (2*n+2)/3, metrics.Mean(vm), metrics.Mean(xm))
	}
}

// variantTable writes a section titled title: a table of one score of
// every variant (columns) per dataset (rows), "-" where a variant has no
// score.
func variantTable(b *strings.Builder, title string, tab map[string]map[string]TabScores, names []string, score func(TabScores) Float) {
	fmt.Fprintf(b, "\n## %s\n\n| dataset |", title)
	present := tabPresent(tab)
	mdColumns(b, present, "---:")
	for _, ds := range names {
		fmt.Fprintf(b, "| %s |", ds)
		for _, v := range present {
			if s, ok := tab[v][ds]; ok {
				fmt.Fprintf(b, " %.3f |", float64(score(s)))
			} else {
				b.WriteString(" - |")
			}
		}
		b.WriteString("\n")
	}
}

// minXY is the smallest X or Y of xy (1 when empty).
func minXY(xy plotter.XYs) float64 {
	m := 1.0
	for _, p := range xy {
		m = math.Min(m, math.Min(p.X, p.Y))
	}
	return m
}

// tauTie is the difference in Kendall's tau below which two scores are the
// same ranking: the smallest step of tau on a test set of up to 40,000
// rows is above 1e-9, and the same pair counts computed in Python and in
// Go differ in the last bit (yacht, split 0: 0.975834938400726 and
// 0.9758349384007261).
const tauTie = 1e-9

// beats reports whether tau t beats tau x by more than tauTie.
func beats(t, x float64) bool { return t > x+tauTie }
