package experiments

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
)

// tabGroups are the groups of the default plan. tabTunedSeeds is not among
// them (a journal may hold its lines: tabular-v4 ran it on two datasets);
// Options.Groups may choose it.
var tabGroups = []string{tabDefault, tabEnsemble, tabTuned, tabTunedAll}

// TabularGroups are the groups Options.Groups may name.
var TabularGroups = []string{tabDefault, tabEnsemble, tabTuned, tabTunedSeeds, tabTunedAll}

// tabVariants are the scored models, in report order.
var tabVariants = []string{"default", "default+cal", "ensemble5", "ensemble5+cal", "tuned", "tuned+ensemble5", "tuned+ensemble5+cal", "tuned+seeds5", "tuned+seeds5+cal", "tuned+all5", "tuned+all5+cal"}

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
	// Tuned: the trials, the chosen ones' settings (best first) and
	// whether the budget cut the search.
	Trials int      `json:"trials,omitempty"`
	Chosen []string `json:"chosen,omitempty"`
	Cut    bool     `json:"cut,omitempty"`
	// Tuned with seeds or all: the wall time of the seeds' members trained
	// after the search, how many its budget stopped early, and how many
	// are in the model.
	MemberSeconds float64 `json:"member_seconds,omitempty"`
	MembersCut    int     `json:"members_cut,omitempty"`
	SeedsChosen   int     `json:"seeds_chosen,omitempty"`
	Error         string  `json:"error,omitempty"`
}

// Failed reports whether the run failed on its data.
func (l *TabularLine) Failed() bool { return l.Error != "" }

// TabularTasks returns the runs: dataset x split x group.
func TabularTasks(opts Options) ([]Task[*TabularLine], error) {
	u, names, splits, err := realPlan(opts, nil, []string{"yacht"}, 1)
	if err != nil {
		return nil, err
	}
	groups := tabGroups
	if len(opts.Groups) > 0 {
		for _, g := range opts.Groups {
			if !slices.Contains(TabularGroups, g) {
				return nil, &InputError{fmt.Errorf("tabular: unknown group %q (have %s)", g, strings.Join(TabularGroups, ", "))}
			}
		}
		groups = opts.Groups
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
	l := &TabularLine{Dataset: ds, Split: split, Group: group, TrainRows: tr.Rows, TestRows: te.Rows,
		Scores: map[string]TabScores{}, Calibrated: cfg.Calibrate}
	start := time.Now()
	var m *decoreg.Model
	switch group {
	case tabDefault:
		m, err = decoreg.FitFlat(ctx, tr.X, tr.Rows, tr.Cols, tr.Y, cfg)
	case tabEnsemble:
		cfg.Ensemble = ens
		m, err = decoreg.FitFlat(ctx, tr.X, tr.Rows, tr.Cols, tr.Y, cfg)
	case tabTuned, tabTunedSeeds, tabTunedAll:
		cfg.Ensemble = ens
		l.Budget = budget.Seconds()
		o := decoreg.TuneOptions{Budget: budget, EnsembleFrom: decoreg.EnsembleFromTrials}
		switch group {
		case tabTunedSeeds:
			o.EnsembleFrom = decoreg.EnsembleFromSeeds
		case tabTunedAll:
			o.EnsembleFrom = decoreg.EnsembleFromAll
		}
		var rep *decoreg.TuneReport
		m, rep, err = decoreg.Tune(ctx, tr.X, tr.Rows, tr.Cols, tr.Y, cfg, o)
		if rep != nil {
			l.Trials, l.Cut = len(rep.Trials), rep.Cut
			l.MemberSeconds, l.MembersCut, l.SeedsChosen = rep.MemberSeconds, rep.MembersCut, rep.SeedsChosen
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
	if m.Temperature() != 1 {
		if un, err = m.WithTemperature(1); err != nil {
			return nil, err
		}
	}
	switch group {
	case tabDefault:
		todo = append(todo, scored{"default", un})
		if cfg.Calibrate {
			todo = append(todo, scored{"default+cal", m})
		}
	case tabEnsemble:
		todo = append(todo, scored{"ensemble5", un})
		if cfg.Calibrate {
			todo = append(todo, scored{"ensemble5+cal", m})
		}
	case tabTuned, tabTunedSeeds, tabTunedAll:
		if group == tabTuned {
			best, err := un.Members()[0].WithTemperature(1)
			if err != nil {
				return nil, err
			}
			todo = append(todo, scored{"tuned", best}, scored{"tuned+ensemble5", un})
			if cfg.Calibrate {
				todo = append(todo, scored{"tuned+ensemble5+cal", m})
			}
		} else {
			v := "tuned+seeds5"
			if group == tabTunedAll {
				v = "tuned+all5"
			}
			todo = append(todo, scored{v, un})
			if cfg.Calibrate {
				todo = append(todo, scored{v + "+cal", m})
			}
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
		ev, err := s.m.Evaluate(te.X, te.Rows, te.Y, "mean")
		if err != nil {
			return nil, err
		}
		cal, err := s.m.Calibration(cx, len(cy), cy)
		if err != nil {
			return nil, err
		}
		l.Scores[s.name] = TabScores{NLL: Float(ev.NLL), KendallTau: Float(ev.KendallTau), RelMSE: Float(ev.RelMSE),
			CRPS: Float(cal.CRPS), PITError: Float(cal.PITError), Coverage90: Float(cal.Coverage["0.9"]),
			Width90: Float(cal.IntervalWidth["0.9"]), Temperature: Float(s.m.Temperature())}
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
		func(o Options) string {
			s := seedsOr(o, 1)
			if len(o.Groups) > 0 {
				return fmt.Sprintf("splits 0..%d, the full training part, the normalized decoder: the groups %s (--tune budget %v, --ensemble %d)%s",
					s-1, strings.Join(o.Groups, ", "), decoreg.DefaultTuneBudget, tabEnsembleSize, quickNote(o))
			}
			return fmt.Sprintf("splits 0..%d, the full training part, the normalized decoder: defaults, --ensemble %d, --tune (budget %v) with --ensemble %d from the trials and (the default) from all, each with --calibrate where >= 20 validation rows%s",
				s-1, tabEnsembleSize, decoreg.DefaultTuneBudget, tabEnsembleSize, quickNote(o))
		},
		TabularTasks, func() *TabularLine { return new(TabularLine) },
		func(l *TabularLine) string {
			if l.Error != "" {
				return "FAILED: " + l.Error
			}
			var parts []string
			for _, v := range tabVariants {
				if s, ok := l.Scores[v]; ok {
					parts = append(parts, fmt.Sprintf("%s tau %.3f nll %.3f", v, float64(s.KendallTau), float64(s.NLL)))
				}
			}
			return strings.Join(parts, "; ")
		},
		TabularReport)
	e.Groups = TabularGroups
	return e
}

// xgbTau reads the XGBoost baseline's Kendall's tau per dataset and split
// from path (experiments/xgboost/xgb_uci.py's results.jsonl); a missing
// file gives an empty map.
func xgbTau(path string) (map[string]map[int]float64, error) {
	out := map[string]map[int]float64{}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var r struct {
			Dataset string   `json:"dataset"`
			Split   int      `json:"split"`
			Tau     *float64 `json:"kendall_tau"`
		}
		// Python's json writes an undefined tau as the bare token NaN.
		line := strings.ReplaceAll(sc.Text(), ": NaN", ": null")
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("%s: line %d: %v", path, n, err)
		}
		if out[r.Dataset] == nil {
			out[r.Dataset] = map[int]float64{}
		}
		if r.Tau != nil {
			out[r.Dataset][r.Split] = *r.Tau
		} else {
			out[r.Dataset][r.Split] = math.NaN()
		}
	}
	return out, sc.Err()
}

// TabularSummary compares one variant with XGBoost and with the defaults
// over the datasets both have, each dataset's splits averaged first: the
// variant's splits for XGBoost, and for the defaults the splits both ran.
type TabularSummary struct {
	Variant           string
	Datasets          int
	Runs              int // (dataset, split) pairs
	MeanTau           float64
	XGBMeanTau        float64 // over the same datasets and splits
	BeatsXGB          int     // datasets with a higher mean tau than XGBoost's
	MeanNLL           float64
	DefaultMeanNLL    float64 // the defaults' mean NLL over the same datasets and splits
	LowerNLL          int     // datasets with a lower NLL than the defaults
	InBand90          int     // datasets whose 90% interval covers 85-95%
	MeanCoverage90    float64
	MeanCRPSvsDefault float64 // mean over datasets of CRPS / the defaults' CRPS - 1
}

// tabRaw holds every scored model: variant, dataset, split.
type tabRaw map[string]map[string]map[int]TabScores

// tabScores gathers the scores of the lines that did not fail.
func tabScores(lines []*TabularLine) tabRaw {
	r := tabRaw{}
	for _, l := range lines {
		if l.Error != "" {
			continue
		}
		for v, sc := range l.Scores {
			if r[v] == nil {
				r[v] = map[string]map[int]TabScores{}
			}
			if r[v][l.Dataset] == nil {
				r[v][l.Dataset] = map[int]TabScores{}
			}
			r[v][l.Dataset][l.Split] = sc
		}
	}
	return r
}

// splits returns the splits variant v has of dataset ds, in order.
func (r tabRaw) splits(v, ds string) []int {
	var sp []int
	for s := range r[v][ds] {
		sp = append(sp, s)
	}
	sort.Ints(sp)
	return sp
}

// mean averages v's scores of ds over the splits sp (all of which it
// has), each score over the splits where it is defined (not NaN: tau is
// undefined where every test target is equal); NaN where it is defined on
// none.
func (r tabRaw) mean(v, ds string, sp []int) TabScores {
	var a, n [8]float64
	for _, s := range sp {
		sc := r[v][ds][s]
		for i, x := range []Float{sc.NLL, sc.KendallTau, sc.RelMSE, sc.CRPS, sc.PITError, sc.Coverage90, sc.Width90, sc.Temperature} {
			if !math.IsNaN(float64(x)) {
				a[i] += float64(x)
				n[i]++
			}
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

// tauSplits returns the splits of sp where v's tau of ds is defined.
func (r tabRaw) tauSplits(v, ds string, sp []int) []int {
	var out []int
	for _, s := range sp {
		if !math.IsNaN(float64(r[v][ds][s].KendallTau)) {
			out = append(out, s)
		}
	}
	return out
}

// datasets returns every dataset any variant has, in order.
func (r tabRaw) datasets() []string {
	set := map[string]bool{}
	for _, byDS := range r {
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
	for v, byDS := range r {
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
// variant's splits of each dataset) and the defaults (over the splits both
// ran).
func SummarizeTabular(lines []*TabularLine, xgb map[string]map[int]float64) []TabularSummary {
	r := tabScores(lines)
	names := r.datasets()
	var out []TabularSummary
	for _, v := range tabVariants {
		if len(r[v]) == 0 {
			continue
		}
		s := TabularSummary{Variant: v}
		var taus, xtaus, nlls, dnlls, covs, crps []float64
		for _, ds := range names {
			sp := r.splits(v, ds)
			if len(sp) == 0 {
				continue
			}
			sc := r.mean(v, ds, sp)
			if math.IsNaN(float64(sc.KendallTau)) {
				continue
			}
			s.Datasets++
			s.Runs += len(sp)
			taus = append(taus, float64(sc.KendallTau))
			if xs := xgbSplits(xgb, ds, r.tauSplits(v, ds, sp)); len(xs) > 0 {
				x, _ := xgbMean(xgb, ds, xs)
				xtaus = append(xtaus, x)
				if float64(r.mean(v, ds, xs).KendallTau) > x {
					s.BeatsXGB++
				}
			}
			if common := intersect(sp, r.splits("default", ds)); len(common) > 0 {
				vc, d := r.mean(v, ds, common), r.mean("default", ds, common)
				nlls = append(nlls, float64(vc.NLL))
				dnlls = append(dnlls, float64(d.NLL))
				if vc.NLL < d.NLL {
					s.LowerNLL++
				}
				crps = append(crps, float64(vc.CRPS)/float64(d.CRPS)-1)
			}
			c := float64(sc.Coverage90)
			covs = append(covs, c)
			if c >= 0.85 && c <= 0.95 {
				s.InBand90++
			}
		}
		s.MeanTau, s.XGBMeanTau = metrics.Mean(taus), math.NaN()
		if len(xtaus) == len(taus) {
			s.XGBMeanTau = metrics.Mean(xtaus)
		}
		s.MeanNLL, s.DefaultMeanNLL = metrics.Mean(nlls), metrics.Mean(dnlls)
		s.MeanCoverage90, s.MeanCRPSvsDefault = metrics.Mean(covs), metrics.Mean(crps)
		out = append(out, s)
	}
	return out
}

// TabularReport writes dir/REPORT.md and dir/tabular.png.
func TabularReport(dir string, lines []*TabularLine, info ReportInfo) error {
	xgbPath := filepath.Join(filepath.Dir(filepath.Clean(dir)), "xgboost", "results.jsonl")
	xgb, err := xgbTau(xgbPath)
	if err != nil {
		return err
	}
	raw := tabScores(lines)
	tab, names := raw.table(), raw.datasets()
	xm := xgbMeans(lines, xgb)
	var b strings.Builder
	b.WriteString("# The normalized decoder on tables, against XGBoost\n\n" +
		"decoreg's own experiment (issue 13): the normalized decoder as a user would run it on each UCI dataset's split: " +
		"`train` with the defaults, with `--ensemble 5`, and with `--tune` (default budget) `--ensemble 5 --ensemble-from trials` (\"tuned+ensemble5\"), whose best trial " +
		"alone is scored too (\"tuned\"); with `--tune --ensemble 5 --ensemble-from all` (the default; \"tuned+all5\": up to 5 chosen " +
		"greedily among the trials and 4 more seeds of the best trial's settings); and, where the journal has it, with " +
		"`--ensemble-from seeds` (\"tuned+seeds5\": the best trial and those 4 seeds); each group with `--calibrate` where the split leaves at least 20 validation rows " +
		"(\"+cal\"; without it, the scores are at temperature 1). Point estimate: the mean. NLL and tau use every test row; " +
		"CRPS, coverage and PIT use at most 500 evenly spaced test rows (an ensemble's exact quantiles cost about 50 ms a row). XGBoost: " +
		"`experiments/xgboost/xgb_uci.py` (Debian's xgboost, 500 trees, learning rate 0.05, depth 6, subsample 0.8, " +
		"colsample 0.8) on the same splits, from `../xgboost/results.jsonl`. Each variant's scores of a dataset are averaged over " +
		"the splits it ran (each score over the splits where it is defined: tau is not where every test target is equal); " +
		"against XGBoost, both sides over the variant's splits where both taus are defined, and against the defaults, both over the splits both ran.\n\n")
	fmt.Fprintf(&b, "Scale: %s. Command: `%s`.\n\n%s\n\n", info.Scale, info.Command, Provenance(lines))
	b.WriteString(tabJournalScale(lines))
	failed := 0
	for _, l := range lines {
		if l.Error != "" {
			failed++
			fmt.Fprintf(&b, "- FAILED: %s split %d %s: %s\n", l.Dataset, l.Split, l.Group, l.Error)
		}
	}
	if failed > 0 {
		b.WriteString("\n")
	}
	b.WriteString("## Summary (means over datasets)\n\n" +
		"\"beats XGBoost\": datasets where the variant's tau is higher; \"lower NLL\": datasets where its test NLL is below " +
		"the defaults'; \"90% in band\": datasets whose central 90% interval covers 85-95% of the test rows; CRPS change: " +
		"mean over datasets of CRPS / the defaults' CRPS - 1.\n\n| variant |")
	mdColumns(&b, []string{"datasets", "runs", "mean tau", "XGBoost mean tau", "beats XGBoost", "mean NLL", "defaults' mean NLL", "lower NLL", "90% in band", "mean 90% coverage", "CRPS change"}, "---:")
	for _, s := range SummarizeTabular(lines, xgb) {
		fmt.Fprintf(&b, "| %s | %d | %d | %.4f | %.4f | %d | %.3f | %.3f | %d | %d | %.3f | %+.1f%% |\n", s.Variant, s.Datasets, s.Runs, s.MeanTau, s.XGBMeanTau,
			s.BeatsXGB, s.MeanNLL, s.DefaultMeanNLL, s.LowerNLL, s.InBand90, s.MeanCoverage90, 100*s.MeanCRPSvsDefault)
	}
	// The figure's (and the issue's) tuned ensemble: from all where the
	// journal has it.
	tv, tl := "tuned+ensemble5", "--tune --ensemble 5 --ensemble-from trials"
	if len(tab["tuned+all5"]) > 0 {
		tv, tl = "tuned+all5", "--tune --ensemble 5 (from all)"
	}
	if len(raw[tv]) > 0 {
		tabSplitTable(&b, raw, xgb, names, tv, tl)
	}
	b.WriteString("\n## Kendall's tau per dataset\n\nEach variant over the splits it ran; XGBoost over every split the journal holds of the dataset.\n\n| dataset | XGBoost |")
	mdColumns(&b, tabVariants, "---:")
	for _, ds := range names {
		x, ok := xm[ds]
		xs := "-"
		if ok {
			xs = fmt.Sprintf("%.3f", x)
		}
		fmt.Fprintf(&b, "| %s | %s |", ds, xs)
		for _, v := range tabVariants {
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
	b.WriteString("\n## Tuning: the chosen trials and the time\n\n| dataset | split | trials | budget cut | train seconds (default, ensemble, tuned, tuned from all) | tuned from all: seeds' members chosen, stopped by the budget | chosen (best first) | tuned from all: best trial |\n|---|---:|---:|---|---|---:|---|---|\n")
	secs := map[string]map[int]map[string]float64{}
	for _, l := range lines {
		if secs[l.Dataset] == nil {
			secs[l.Dataset] = map[int]map[string]float64{}
		}
		if secs[l.Dataset][l.Split] == nil {
			secs[l.Dataset][l.Split] = map[string]float64{}
		}
		secs[l.Dataset][l.Split][l.Group] = l.Seconds
	}
	type dsSplit struct {
		ds    string
		split int
	}
	all := map[dsSplit]*TabularLine{} // the tuned-all lines
	for _, l := range lines {
		if l.Group == tabTunedAll {
			all[dsSplit{l.Dataset, l.Split}] = l
		}
	}
	tuned := map[dsSplit]*TabularLine{} // the tuned (from trials) lines
	var keys []dsSplit                  // the splits with a tuned or tuned-all line
	for _, l := range lines {
		if l.Error != "" || (l.Group != tabTuned && l.Group != tabTunedAll) {
			continue
		}
		k := dsSplit{l.Dataset, l.Split}
		if l.Group == tabTuned {
			tuned[k] = l
		}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b dsSplit) int {
		if a.ds != b.ds {
			return strings.Compare(a.ds, b.ds)
		}
		return a.split - b.split
	})
	cell := func(v float64, ok bool) string {
		if !ok {
			return "-"
		}
		return fmt.Sprintf("%.0f", v)
	}
	for _, k := range keys {
		s := secs[k.ds][k.split]
		trials, cut, chosen := "-", "-", "-"
		var tchosen []string
		if l, ok := tuned[k]; ok {
			trials, cut, chosen, tchosen = strconv.Itoa(l.Trials), strconv.FormatBool(l.Cut), strings.Join(l.Chosen, "; "), l.Chosen
		}
		allSeeds, allBest := "-", "-"
		if a, ok := all[k]; ok {
			allSeeds = fmt.Sprintf("%d of %d chosen, %d stopped", a.SeedsChosen, tabEnsembleSize-1, a.MembersCut)
			switch {
			case a.Error != "" || len(a.Chosen) == 0:
			case len(tchosen) > 0 && a.Chosen[0] == tchosen[0]:
				allBest = "the same"
			default:
				allBest = a.Chosen[0]
			}
			if _, ok := tuned[k]; !ok {
				trials, cut = strconv.Itoa(a.Trials), strconv.FormatBool(a.Cut)
			}
		}
		d, okd := s[tabDefault]
		e, oke := s[tabEnsemble]
		t, okt := s[tabTuned]
		a, oka := s[tabTunedAll]
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s, %s, %s, %s | %s | %s | %s |\n", k.ds, k.split, trials, cut,
			cell(d, okd), cell(e, oke), cell(t, okt), cell(a, oka), allSeeds, chosen, allBest)
	}
	fmt.Fprintf(&b, "\nFigure: [tabular.png](tabular.png): each dataset's Kendall's tau; left, the decoder's (the defaults in "+
		"grey, %s in colour) against XGBoost's, where above the diagonal the decoder ranks better; right, "+
		"%s against the defaults.\n", tl, tl)
	if err := writeText(info.Ctx, filepath.Join(dir, "REPORT.md"), b.String()); err != nil {
		return err
	}
	// Each variant's points over its splits (XGBoost's over the same);
	// the tuned ensemble against the defaults over the splits both ran.
	var dxy, txy, vxy plotter.XYs
	for _, ds := range names {
		dsp, tsp := raw.splits("default", ds), raw.splits(tv, ds)
		if common := intersect(tsp, dsp); len(common) > 0 {
			d, t := raw.mean("default", ds, common), raw.mean(tv, ds, common)
			if !math.IsNaN(float64(d.KendallTau)) && !math.IsNaN(float64(t.KendallTau)) {
				vxy = append(vxy, plotter.XY{X: float64(d.KendallTau), Y: float64(t.KendallTau)})
			}
		}
		if xs := xgbSplits(xgb, ds, raw.tauSplits("default", ds, dsp)); len(xs) > 0 {
			x, _ := xgbMean(xgb, ds, xs)
			if d := raw.mean("default", ds, xs); !math.IsNaN(float64(d.KendallTau)) {
				dxy = append(dxy, plotter.XY{X: x, Y: float64(d.KendallTau)})
			}
		}
		if xs := xgbSplits(xgb, ds, raw.tauSplits(tv, ds, tsp)); len(xs) > 0 {
			x, _ := xgbMean(xgb, ds, xs)
			if t := raw.mean(tv, ds, xs); !math.IsNaN(float64(t.KendallTau)) {
				txy = append(txy, plotter.XY{X: x, Y: float64(t.KendallTau)})
			}
		}
	}
	var row []*plot.Plot
	panel := func(title, xl string, a, b plotter.XYs, al, bl string) error {
		p := newPlot(title, xl, "normalized decoder")
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
	if len(txy) > 0 {
		if err := panel("against XGBoost", "XGBoost's tau", dxy, txy, "defaults", tl); err != nil {
			return err
		}
	}
	if len(vxy) > 0 {
		if err := panel("the tuned ensemble against the defaults", "the defaults' tau", nil, vxy, "", tl); err != nil {
			return err
		}
	}
	if len(row) == 0 {
		return nil
	}
	return writeGrid(ctxOf(info), filepath.Join(dir, "tabular.png"), "Kendall's tau on the UCI datasets (one point per dataset)",
		[][]*plot.Plot{row}, vg.Length(len(row))*5*vg.Inch, 5*vg.Inch)
}

// tabJournalScale describes what the journal holds, group by group: the
// splits and the number of datasets (the Scale line above describes the
// command that wrote the report, not every line's).
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
	if len(parts) == 0 {
		return ""
	}
	return "The journal holds, by group: " + strings.Join(parts, "; ") + ".\n\n"
}

// tabSplitTable writes the section that checks issue 13's target: variant
// v (described as label) against XGBoost on each dataset, split by split,
// and their means over the splits v ran.
func tabSplitTable(b *strings.Builder, raw tabRaw, xgb map[string]map[int]float64, names []string, v, label string) {
	fmt.Fprintf(b, "\n## %s against XGBoost, split by split\n\n"+
		"Kendall's tau of %s and of XGBoost on each split %s ran; the means over the splits where both are defined; "+
		"\"wins\" where the variant's mean is higher.\n\n"+
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
			vs = append(vs, fmt.Sprintf("%.3f", float64(raw[v][ds][s].KendallTau)))
			if t, ok := xgb[ds][s]; ok {
				xs = append(xs, fmt.Sprintf("%.3f", t))
			} else {
				xs = append(xs, "-")
			}
		}
		// The means over the splits XGBoost has a tau of (all of them,
		// unless its tau is undefined or it lacks a split).
		cmp := xgbSplits(xgb, ds, raw.tauSplits(v, ds, sp))
		if len(cmp) == 0 {
			cmp = sp
		}
		t := float64(raw.mean(v, ds, cmp).KendallTau)
		x, ok := xgbMean(xgb, ds, cmp)
		xstr, win := "-", ""
		if ok && !math.IsNaN(t) {
			xstr = fmt.Sprintf("%.3f", x)
			n++
			vm, xm = append(vm, t), append(xm, x)
			if t > x {
				wins++
				win = "yes"
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
	mdColumns(b, tabVariants, "---:")
	for _, ds := range names {
		fmt.Fprintf(b, "| %s |", ds)
		for _, v := range tabVariants {
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
