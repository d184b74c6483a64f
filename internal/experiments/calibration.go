package experiments

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"decoreg"
	"decoreg/dist"
	"decoreg/internal/train"
	"decoreg/metrics"
)

// The calibration experiment is decoreg's own, not the paper's: how well
// the predictive distributions of the density heads fit real test data,
// before and after 'train --calibrate' (a temperature fitted on the
// validation rows), on the UCI datasets: by the default objective (NLL),
// and, on the same trained model and validation rows, by the PIT
// objective (Config.CalibrateBy "pit").

// CalScores are calibration scores of one model on its test rows.
type CalScores struct {
	NLL      Float            `json:"nll"`
	CRPS     Float            `json:"crps"`
	PITError Float            `json:"pit_ece"`
	Coverage map[string]Float `json:"coverage"`
	Width    map[string]Float `json:"interval_width"`
}

// CalibrationLine is one run: a head trained with Config.Calibrate on a
// split's training part, scored on its test part at temperature 1
// (Before) and at the fitted temperature (After).
type CalibrationLine struct {
	Meta
	Dataset     string         `json:"dataset"`
	Split       int            `json:"split"`
	Head        string         `json:"head"`
	Config      decoreg.Config `json:"config"`
	TrainRows   int            `json:"train_rows"`
	TestRows    int            `json:"test_rows"`
	Temperature Float          `json:"temperature"`
	Before      CalScores      `json:"before"`
	After       CalScores      `json:"after"`
	// PIT is the same model calibrated on the same validation rows by the
	// PIT objective (Model.FitTemperature with CalibrateByPIT); nil in
	// journals written before it.
	PIT *CalObjective `json:"pit,omitempty"`
	// Isotonic is the same model calibrated on the same validation rows by
	// the isotonic objective (CalibrateByIsotonic: the NLL temperature and
	// a map of the CDF); IsoGrid are maps of other sizes fitted to the
	// same validation PIT values (at the NLL temperature), scored from the
	// test rows' PIT values. Both nil in journals written before them.
	Isotonic *CalObjective `json:"isotonic,omitempty"`
	IsoGrid  []IsoVariant  `json:"isotonic_grid,omitempty"`
	Epochs   int           `json:"epochs"`
	Error    string        `json:"error,omitempty"`
}

// CalObjective is a model calibrated by another objective: its temperature
// and test scores.
type CalObjective struct {
	Temperature Float     `json:"temperature"`
	After       CalScores `json:"after"`
}

// IsoVariant is a map of the CDF with Segments segments and identity
// weight at least Floor (dist.FitRecalibration), fitted to the validation
// rows' PIT values at the NLL temperature and scored on the test rows from
// their PIT values p_i alone: the coverage of the central c-interval is
// the fraction of R(p_i) in [(1-c)/2, (1+c)/2], the NLL is the NLL
// objective's test NLL minus the mean of log R'(p_i), pit_ece that of
// the R(p_i).
type IsoVariant struct {
	Segments int              `json:"segments"`
	Floor    float64          `json:"floor"`
	NLL      Float            `json:"nll"`
	PITError Float            `json:"pit_ece"`
	Coverage map[string]Float `json:"coverage"`
}

// isoGrid are the maps IsoVariant scores: segments x floors.
var (
	isoSegments = []int{5, 10, 20, 40}
	isoFloors   = []float64{0.01, 0.05, 0.2}
)

// Failed reports whether the run failed on its data.
func (l *CalibrationLine) Failed() bool { return l.Error != "" }

var calibrationHeads = []string{DecoderNormalized, Riemann, MDN}

// CalibrationTasks returns the runs: dataset x split x head (normalized
// decoder, Riemann, MDN, with the defaults), training on the split's
// training part.
func CalibrationTasks(opts Options) ([]Task[*CalibrationLine], error) {
	u, names, splits, err := realSplitPlan("calibration", opts, nil, []string{"yacht", "concrete"}, 1)
	if err != nil {
		return nil, err
	}
	var tasks []Task[*CalibrationLine]
	for _, ds := range names {
		for sp := range splits {
			for _, h := range calibrationHeads {
				ds, sp, h := ds, sp, h
				tasks = append(tasks, Task[*CalibrationLine]{
					Key: fmt.Sprintf("dataset=%s,split=%d,head=%s", ds, sp, h),
					Run: func(ctx context.Context) (*CalibrationLine, error) { return runCalibration(ctx, u, ds, sp, h, opts) },
				})
			}
		}
	}
	return tasks, nil
}

func runCalibration(ctx context.Context, u *uciData, ds string, split int, head string, opts Options) (*CalibrationLine, error) {
	tr, te, split, err := u.wrappedSplit(ds, split)
	if err != nil {
		return nil, err
	}
	cfg, err := HeadConfig(head)
	if err != nil {
		return nil, err
	}
	cfg.Seed, cfg.Threads, cfg.Calibrate = uint64(split), opts.Threads, true
	if opts.Quick {
		cfg.MaxEpochs = 3
	}
	l := &CalibrationLine{Dataset: ds, Split: split, Head: head, Config: cfg, TrainRows: tr.Rows, TestRows: te.Rows}
	m, err := decoreg.FitFlat(ctx, tr.X, tr.Rows, tr.Cols, tr.Y, cfg)
	var ce *decoreg.ConfigError
	if err != nil {
		if ctx.Err() == nil && (dataFailure(err) || errors.As(err, &ce) && ce.Field == "Calibrate") {
			// Diverged, or too few validation rows to calibrate on.
			l.Error = err.Error()
			return l, nil
		}
		return nil, err
	}
	l.Temperature, l.Epochs = Float(m.Temperature()), m.Info().Epochs
	un, err := m.WithTemperature(1)
	if err != nil {
		return nil, err
	}
	xv, yv := calibrationRows(tr.X, tr.Rows, tr.Cols, tr.Y, cfg)
	mp, err := un.FitTemperature(ctx, xv, len(yv), yv, decoreg.CalibrateByPIT)
	if err != nil {
		return nil, err
	}
	l.PIT = &CalObjective{Temperature: Float(mp.Temperature())}
	mi, err := un.FitTemperature(ctx, xv, len(yv), yv, decoreg.CalibrateByIsotonic)
	if err != nil {
		return nil, err
	}
	l.Isotonic = &CalObjective{Temperature: Float(mi.Temperature())}
	var testPIT []float64
	for _, c := range []struct {
		m   *decoreg.Model
		dst *CalScores
	}{{un, &l.Before}, {m, &l.After}, {mp, &l.PIT.After}, {mi, &l.Isotonic.After}} {
		ev, err := c.m.Evaluate(ctx, te.X, te.Rows, te.Y, "")
		if err != nil {
			return nil, err
		}
		cal, err := c.m.Calibration(ctx, te.X, te.Rows, te.Y)
		if err != nil {
			return nil, err
		}
		*c.dst = CalScores{NLL: Float(ev.NLL), CRPS: Float(cal.CRPS), PITError: Float(cal.PITError),
			Coverage: map[string]Float{}, Width: map[string]Float{}}
		for k, v := range cal.Coverage {
			c.dst.Coverage[k] = Float(v)
		}
		for k, v := range cal.IntervalWidth {
			c.dst.Width[k] = Float(v)
		}
		if c.m == m {
			testPIT = cal.PIT
		}
	}
	if l.IsoGrid, err = isoGrid(m, xv, yv, testPIT, float64(l.After.NLL)); err != nil {
		return nil, err
	}
	return l, nil
}

// isoGrid scores the maps of isoSegments x isoFloors fitted to the PIT
// values of m (calibrated by NLL) on the validation rows xv, yv (the first
// 4,000, as the library's fit), from the test rows' PIT values under m and
// m's test NLL nll (see IsoVariant).
func isoGrid(m *decoreg.Model, xv, yv, testPIT []float64, nll float64) ([]IsoVariant, error) {
	n := min(len(yv), 4000)
	ds, err := m.Dists(context.Background(), xv[:n*m.Features()], n, dist.TokenOptions{})
	if err != nil {
		return nil, err
	}
	valPIT := make([]float64, n)
	for i, d := range ds {
		valPIT[i] = d.CDF(yv[i])
	}
	var out []IsoVariant
	for _, k := range isoSegments {
		for _, f := range isoFloors {
			rc, err := dist.FitRecalibration(valPIT, k, f)
			if err != nil {
				return nil, err
			}
			v := IsoVariant{Segments: k, Floor: f, Coverage: map[string]Float{}}
			after := make([]float64, len(testPIT))
			s := 0.0
			for i, p := range testPIT {
				after[i] = rc.Map(p)
				s += rc.LogSlope(p)
			}
			v.NLL, v.PITError = Float(nll-s/float64(len(testPIT))), Float(metrics.PITError(after))
			for _, c := range metrics.Central() {
				in := 0
				for _, u := range after {
					if u >= (1-c)/2 && u <= (1+c)/2 {
						in++
					}
				}
				v.Coverage[strconv.FormatFloat(c, 'g', -1, 64)] = Float(float64(in) / float64(len(after)))
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// calibrationRows returns the rows Config.Calibrate fits on when cfg
// trains on x (rows x cols) and y: its validation rows, in their order.
func calibrationRows(x []float64, rows, cols int, y []float64, cfg decoreg.Config) (xv, yv []float64) {
	cfg = decoreg.DefaultConfig(cfg)
	val, _ := train.Split(rows, cfg.ValFrac, cfg.Seed)
	for _, i := range val {
		xv = append(xv, x[i*cols:(i+1)*cols]...)
		yv = append(yv, y[i])
	}
	return xv, yv
}

func calibrationExperiment() *Experiment {
	return experiment("calibration", "calibration of the density heads on real data, before and after train --calibrate, by --calibrate-by nll, pit and isotonic (decoreg's own)",
		func(o Options) string {
			s := seedsOr(o, 1)
			return fmt.Sprintf("splits 0..%d, the full training part, default settings, heads %s%s", s-1, strings.Join(calibrationHeads, ", "), quickNote(o))
		},
		CalibrationTasks, func() *CalibrationLine { return new(CalibrationLine) },
		func(l *CalibrationLine) string {
			if l.Error != "" {
				return "FAILED: " + l.Error
			}
			s := fmt.Sprintf("T %.3g, coverage 0.9 %.3f -> %.3f, nll %.3f -> %.3f", float64(l.Temperature),
				float64(l.Before.Coverage["0.9"]), float64(l.After.Coverage["0.9"]), float64(l.Before.NLL), float64(l.After.NLL))
			if l.PIT != nil {
				s += fmt.Sprintf("; pit: T %.3g, coverage 0.9 %.3f, nll %.3f", float64(l.PIT.Temperature), float64(l.PIT.After.Coverage["0.9"]), float64(l.PIT.After.NLL))
			}
			if l.Isotonic != nil {
				s += fmt.Sprintf("; isotonic: coverage 0.9 %.3f, nll %.3f", float64(l.Isotonic.After.Coverage["0.9"]), float64(l.Isotonic.After.NLL))
			}
			return s
		},
		CalibrationReport)
}

// CalibrationSummary is one head's summary over datasets (each dataset's
// scores averaged over its splits first).
type CalibrationSummary struct {
	Head                    string
	Datasets                int
	InBandBefore, InBandAft int     // datasets whose central 90% interval covers 85-95% of test rows
	NLLBefore, NLLAfter     float64 // medians over datasets (one bad model's NLL can dwarf a mean)
	CRPSRelChange           float64 // mean over datasets of CRPS after / before - 1
	PITBefore, PITAfter     float64 // mean pit_ece
	Cov90Before, Cov90After float64 // mean coverage of the central 90% interval
	LowerNLL                int     // datasets where calibration lowered the test NLL
	// The PIT objective, over the datasets whose runs all have it
	// (PITDatasets): the same figures, and its test NLL and CRPS against
	// the NLL objective's (After) on the same datasets.
	PITDatasets        int
	InBandPIT          int     // of PITDatasets
	Cov90PIT, Cov50PIT float64 // means
	NLLPIT             float64 // median
	PITPIT             float64 // mean pit_ece
	// The NLL objective's figures over the same PITDatasets.
	InBandNLL          int
	Cov90NLL, Cov50NLL float64
	NLLNLL             float64
	PITNLL             float64
	NLLChangePIT       float64 // mean of test NLL (PIT) - test NLL (NLL objective)
	NLLChangeMedPIT    float64 // their median (one diverged NLL can dwarf the mean)
	CRPSChangePIT      float64 // mean of CRPS (PIT) / CRPS (NLL objective) - 1
	LowerNLLPIT        int     // datasets where the PIT objective's test NLL is below the NLL objective's
}

// calMeans averages a dataset's runs of one head.
type calMeans struct {
	t             float64
	before, after scoreMeans
	runs          int
	// The PIT objective's runs (pitRuns of runs), temperature and scores.
	tPIT    float64
	pit     scoreMeans
	pitRuns int
	// The isotonic objective's runs and scores, and the grid's (by
	// variant index; gridRuns runs).
	iso      scoreMeans
	isoRuns  int
	grid     []scoreMeans
	gridRuns int
}

// hasIso reports whether every run of the dataset has the isotonic
// objective and its grid.
func (c *calMeans) hasIso() bool { return c.isoRuns > 0 && c.isoRuns == c.runs && c.gridRuns == c.runs }

// hasPIT reports whether every run of the dataset has the PIT objective.
func (c *calMeans) hasPIT() bool { return c.pitRuns > 0 && c.pitRuns == c.runs }

// scoreMeans are the means of CalScores over runs.
type scoreMeans struct{ nll, crps, pit, cov50, cov90 float64 }

func (m *scoreMeans) add(s CalScores) {
	m.nll += float64(s.NLL)
	m.crps += float64(s.CRPS)
	m.pit += float64(s.PITError)
	m.cov50 += float64(s.Coverage["0.5"])
	m.cov90 += float64(s.Coverage["0.9"])
}

func (m *scoreMeans) div(n float64) {
	m.nll /= n
	m.crps /= n
	m.pit /= n
	m.cov50 /= n
	m.cov90 /= n
}

func calibrationTable(lines []*CalibrationLine) (map[string]map[string]*calMeans, []string) {
	acc := map[string]map[string]*calMeans{}
	dsSet := map[string]bool{}
	for _, l := range lines {
		if l.Error != "" {
			continue
		}
		if acc[l.Head] == nil {
			acc[l.Head] = map[string]*calMeans{}
		}
		c := acc[l.Head][l.Dataset]
		if c == nil {
			c = &calMeans{}
			acc[l.Head][l.Dataset] = c
		}
		c.runs++
		c.t += float64(l.Temperature)
		c.before.add(l.Before)
		c.after.add(l.After)
		if l.PIT != nil {
			c.pitRuns++
			c.tPIT += float64(l.PIT.Temperature)
			c.pit.add(l.PIT.After)
		}
		if l.Isotonic != nil {
			c.isoRuns++
			c.iso.add(l.Isotonic.After)
		}
		if len(l.IsoGrid) > 0 && (c.grid == nil || len(c.grid) == len(l.IsoGrid)) {
			c.grid = slices.Grow(c.grid, len(l.IsoGrid))[:len(l.IsoGrid)]
			for k, v := range l.IsoGrid {
				c.grid[k].add(CalScores{NLL: v.NLL, PITError: v.PITError, Coverage: v.Coverage})
			}
			c.gridRuns++
		}
		dsSet[l.Dataset] = true
	}
	for _, byDS := range acc {
		for _, c := range byDS {
			n := float64(c.runs)
			c.t /= n
			c.before.div(n)
			c.after.div(n)
			if c.pitRuns > 0 {
				c.tPIT /= float64(c.pitRuns)
				c.pit.div(float64(c.pitRuns))
			}
			if c.isoRuns > 0 {
				c.iso.div(float64(c.isoRuns))
			}
			for k := range c.grid {
				c.grid[k].div(float64(c.gridRuns))
			}
		}
	}
	var names []string
	for ds := range dsSet {
		names = append(names, ds)
	}
	sort.Strings(names)
	return acc, names
}

// SummarizeCalibration summarizes the journal per head.
func SummarizeCalibration(lines []*CalibrationLine) []CalibrationSummary {
	acc, names := calibrationTable(lines)
	var out []CalibrationSummary
	for _, h := range calibrationHeads {
		byDS := acc[h]
		if len(byDS) == 0 {
			continue
		}
		s := CalibrationSummary{Head: h}
		var nb, na, np, nn, dn []float64
		for _, ds := range names {
			c := byDS[ds]
			if c == nil {
				continue
			}
			s.Datasets++
			inBand := func(v float64) bool { return v >= 0.85 && v <= 0.95 }
			if c.hasPIT() {
				s.PITDatasets++
				if inBand(c.pit.cov90) {
					s.InBandPIT++
				}
				if inBand(c.after.cov90) {
					s.InBandNLL++
				}
				if c.pit.nll < c.after.nll {
					s.LowerNLLPIT++
				}
				np, nn, dn = append(np, c.pit.nll), append(nn, c.after.nll), append(dn, c.pit.nll-c.after.nll)
				s.Cov90PIT += c.pit.cov90
				s.Cov50PIT += c.pit.cov50
				s.Cov90NLL += c.after.cov90
				s.Cov50NLL += c.after.cov50
				s.PITNLL += c.after.pit
				s.NLLChangePIT += c.pit.nll - c.after.nll
				s.CRPSChangePIT += c.pit.crps/c.after.crps - 1
				s.PITPIT += c.pit.pit
			}
			if inBand(c.before.cov90) {
				s.InBandBefore++
			}
			if inBand(c.after.cov90) {
				s.InBandAft++
			}
			if c.after.nll < c.before.nll {
				s.LowerNLL++
			}
			nb, na = append(nb, c.before.nll), append(na, c.after.nll)
			s.CRPSRelChange += c.after.crps/c.before.crps - 1
			s.PITBefore += c.before.pit
			s.PITAfter += c.after.pit
			s.Cov90Before += c.before.cov90
			s.Cov90After += c.after.cov90
		}
		n := float64(s.Datasets)
		s.NLLBefore, s.NLLAfter = metrics.Median(nb), metrics.Median(na)
		s.CRPSRelChange /= n
		s.PITBefore /= n
		s.PITAfter /= n
		s.Cov90Before /= n
		s.Cov90After /= n
		if p := float64(s.PITDatasets); p > 0 {
			s.NLLPIT, s.NLLNLL, s.NLLChangeMedPIT = metrics.Median(np), metrics.Median(nn), metrics.Median(dn)
			s.Cov90PIT /= p
			s.Cov50PIT /= p
			s.Cov90NLL /= p
			s.Cov50NLL /= p
			s.PITNLL /= p
			s.NLLChangePIT /= p
			s.CRPSChangePIT /= p
			s.PITPIT /= p
		}
		out = append(out, s)
	}
	return out
}

// CalibrationReport writes dir/REPORT.md and dir/calibration.png.
func CalibrationReport(dir string, lines []*CalibrationLine, info ReportInfo) error {
	acc, names := calibrationTable(lines)
	var b strings.Builder
	b.WriteString("# Calibration on real data, before and after `train --calibrate`\n\n" +
		"decoreg's own experiment (not the paper's): each density head, with the default settings, is trained with " +
		"`Config.Calibrate` on a UCI split's training part (early stopping on 10% of it, then one temperature fitted on " +
		"those validation rows by their NLL), and scored on the split's test rows at temperature 1 (before) and at the " +
		"fitted temperature (after): test NLL per unit of y, CRPS, the PIT calibration error (`pit_ece`), and the " +
		"coverage of the central 50% and 90% predictive intervals (calibrated: 0.5 and 0.9). \"CRPS change\" is the mean " +
		"over datasets of CRPS after / CRPS before - 1. Datasets: 24 of the 25 UCI " +
		"datasets of the paper's NLL table (its Slice is not in `../shared/data/uci`; `--data DIR` for others).\n\n")
	fmt.Fprintf(&b, "Scale: %s. Command: `%s`.\n\n%s\n\n", info.Scale, info.Command, Provenance(lines))
	failed := 0
	for _, l := range lines {
		if l.Error != "" {
			failed++
		}
	}
	if failed > 0 {
		fmt.Fprintf(&b, "%d run(s) failed on their data and are left out:\n\n", failed)
		for _, l := range lines {
			if l.Error != "" {
				fmt.Fprintf(&b, "- %s split %d %s: %s\n", l.Dataset, l.Split, l.Head, l.Error)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("## Summary per head (means over datasets; NLL: medians)\n\n")
	b.WriteString("| head |")
	mdColumns(&b, []string{"datasets", "90% interval covers 85-95%: before", "after", "mean coverage of the 90% interval: before", "after",
		"median test NLL: before", "after", "datasets with lower NLL after", "CRPS change", "pit_ece: before", "after"}, "---:")
	sums := SummarizeCalibration(lines)
	for _, s := range sums {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %.3f | %.3f | %.3f | %.3f | %d | %+.1f%% | %.3f | %.3f |\n", s.Head, s.Datasets,
			s.InBandBefore, s.InBandAft, s.Cov90Before, s.Cov90After, s.NLLBefore, s.NLLAfter, s.LowerNLL, 100*s.CRPSRelChange, s.PITBefore, s.PITAfter)
	}
	anyPIT := false
	for _, s := range sums {
		anyPIT = anyPIT || s.PITDatasets > 0
	}
	if anyPIT {
		b.WriteString("\n## The PIT objective against the NLL objective\n\n" +
			"The same trained model calibrated a second time on the same validation rows by `--calibrate-by pit` " +
			"(`Model.FitTemperature` with `CalibrateByPIT`: the temperature whose validation PIT values are closest to uniform, " +
			"the minimum of `pit_ece` on a log-spaced grid over [0.05, 20]), scored on the same test rows. \"NLL change\" is the " +
			"mean (and median) over datasets of test NLL (pit) - test NLL (nll), \"CRPS change\" the mean of CRPS (pit) / CRPS (nll) - 1; " +
			"both objectives' figures are over the datasets whose runs all have the PIT objective.\n\n")
		b.WriteString("| head |")
		mdColumns(&b, []string{"datasets", "90% interval covers 85-95%: nll", "pit", "mean coverage of the 90% interval: nll", "pit",
			"mean coverage of the 50% interval: nll", "pit", "median test NLL: nll", "pit", "datasets with lower NLL: pit", "NLL change: mean", "median", "CRPS change",
			"pit_ece: nll", "pit"}, "---:")
		for _, s := range sums {
			if s.PITDatasets == 0 {
				continue
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %d | %+.4g | %+.3f | %+.1f%% | %.3f | %.3f |\n", s.Head, s.PITDatasets,
				s.InBandNLL, s.InBandPIT, s.Cov90NLL, s.Cov90PIT, s.Cov50NLL, s.Cov50PIT, s.NLLNLL, s.NLLPIT, s.LowerNLLPIT,
				s.NLLChangePIT, s.NLLChangeMedPIT, 100*s.CRPSChangePIT, s.PITNLL, s.PITPIT)
		}
	}
	anyIso := isotonicReport(&b, acc, names)
	for _, h := range calibrationHeads {
		byDS := acc[h]
		if len(byDS) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n", h)
		b.WriteString("| dataset |")
		cols := []string{"T", "coverage 50%: before", "after", "coverage 90%: before", "after", "NLL: before", "after", "CRPS: before", "after", "pit_ece: before", "after"}
		if anyPIT {
			cols = append(cols, "pit: T", "coverage 50%", "coverage 90%", "NLL", "CRPS", "pit_ece")
		}
		if anyIso {
			cols = append(cols, "isotonic: coverage 50%", "coverage 90%", "NLL", "CRPS", "pit_ece")
		}
		mdColumns(&b, cols, "---:")
		for _, ds := range names {
			c := byDS[ds]
			if c == nil {
				continue
			}
			fmt.Fprintf(&b, "| %s | %.3g | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.4g | %.4g | %.3f | %.3f |", ds, c.t,
				c.before.cov50, c.after.cov50, c.before.cov90, c.after.cov90, c.before.nll, c.after.nll, c.before.crps, c.after.crps, c.before.pit, c.after.pit)
			switch {
			case anyPIT && c.hasPIT():
				fmt.Fprintf(&b, " %.3g | %.3f | %.3f | %.3f | %.4g | %.3f |", c.tPIT, c.pit.cov50, c.pit.cov90, c.pit.nll, c.pit.crps, c.pit.pit)
			case anyPIT:
				b.WriteString(" – | – | – | – | – | – |")
			}
			switch {
			case anyIso && c.hasIso():
				fmt.Fprintf(&b, " %.3f | %.3f | %.3f | %.4g | %.3f |", c.iso.cov50, c.iso.cov90, c.iso.nll, c.iso.crps, c.iso.pit)
			case anyIso:
				b.WriteString(" – | – | – | – | – |")
			}
			b.WriteString("\n")
		}
	}
	if anyPIT {
		b.WriteString("\n(\"after\" is the NLL objective's temperature T; the \"pit:\" columns the PIT objective's.)\n")
	}
	b.WriteString("\nFigure: [calibration.png](calibration.png): per head, each dataset's coverage of the central 90% interval " +
		"before (grey) and after calibration (colour: by the NLL objective")
	if anyPIT {
		b.WriteString("; black triangles: by the PIT objective")
	}
	if anyIso {
		b.WriteString("; black crosses: by the isotonic objective")
	}
	b.WriteString("); the band is 85-95%.\n")

	var row []*plot.Plot
	for _, h := range calibrationHeads {
		byDS := acc[h]
		if len(byDS) == 0 {
			continue
		}
		p := newPlot(h, "dataset (sorted by coverage before)", "coverage of the central 90% interval")
		type pt struct{ before, after, pit, iso float64 }
		var pts []pt
		for _, ds := range names {
			if c := byDS[ds]; c != nil {
				q := pt{c.before.cov90, c.after.cov90, math.NaN(), math.NaN()}
				if c.hasPIT() {
					q.pit = c.pit.cov90
				}
				if c.hasIso() {
					q.iso = c.iso.cov90
				}
				pts = append(pts, q)
			}
		}
		slices.SortFunc(pts, func(a, b pt) int { return cmp.Compare(a.before, b.before) })
		var bxy, axy, pxy, ixy plotter.XYs
		for i, q := range pts {
			bxy = append(bxy, plotter.XY{X: float64(i + 1), Y: q.before})
			axy = append(axy, plotter.XY{X: float64(i + 1), Y: q.after})
			if !math.IsNaN(q.pit) {
				pxy = append(pxy, plotter.XY{X: float64(i + 1), Y: q.pit})
			}
			if !math.IsNaN(q.iso) {
				ixy = append(ixy, plotter.XY{X: float64(i + 1), Y: q.iso})
			}
		}
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, float64(len(pts)+1), math.Min(0.5, minY(bxy, axy, pxy, ixy)), 1
		if err := addLine(p, plotter.XYs{{X: 0, Y: 0.85}, {X: float64(len(pts) + 1), Y: 0.85}}, headColor("truth"), "85% and 95%", true, false); err != nil {
			return err
		}
		if err := addLine(p, plotter.XYs{{X: 0, Y: 0.95}, {X: float64(len(pts) + 1), Y: 0.95}}, headColor("truth"), "", true, false); err != nil {
			return err
		}
		if err := addScatter(p, bxy, headColor("none"), vg.Points(3), "before"); err != nil {
			return err
		}
		label := "after"
		if len(pxy) > 0 {
			label = "after (nll)"
		}
		if err := addScatter(p, axy, headColor(h), vg.Points(3), label); err != nil {
			return err
		}
		if err := addBlack(p, pxy, draw.TriangleGlyph{}, "after (pit)"); err != nil {
			return err
		}
		if err := addBlack(p, ixy, draw.CrossGlyph{}, "after (isotonic)"); err != nil {
			return err
		}
		p.Legend.Top = false // the points that fall short are on the left
		row = append(row, p)
	}
	if err := writeText(info.Ctx, filepath.Join(dir, "REPORT.md"), b.String()); err != nil {
		return err
	}
	if len(row) == 0 {
		return nil
	}
	title := "Coverage of central 90% intervals before and after train --calibrate"
	switch {
	case anyIso:
		title += " (--calibrate-by nll, pit and isotonic)"
	case anyPIT:
		title += " (--calibrate-by nll and pit)"
	}
	return writeGrid(ctxOf(info), filepath.Join(dir, "calibration.png"), title,
		[][]*plot.Plot{row}, vg.Length(len(row))*4.5*vg.Inch, 4.2*vg.Inch)
}

// addBlack adds xy (none: nothing) to p as black glyphs of shape with
// legend label.
func addBlack(p *plot.Plot, xy plotter.XYs, shape draw.GlyphDrawer, label string) error {
	if len(xy) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(xy)
	if err != nil {
		return err
	}
	s.GlyphStyle.Color, s.GlyphStyle.Radius, s.GlyphStyle.Shape = color.Black, vg.Points(3.5), shape
	p.Add(s)
	p.Legend.Add(label, s)
	return nil
}

// isotonicReport writes the isotonic objective's section: per head, its
// scores against the NLL and PIT objectives' on the same datasets, and
// the grid of maps; it reports whether any dataset has them.
func isotonicReport(b *strings.Builder, acc map[string]map[string]*calMeans, names []string) bool {
	type row struct {
		ds       int
		band     [3]int // nll, pit, isotonic: 90% coverage in 85-95%
		band50   [2]int // nll, isotonic: 50% coverage in 45-55%
		cov90    [2]float64
		cov50    [2]float64
		nll      [2][]float64 // medians of
		dNLL     []float64    // isotonic - nll
		lower    int
		crps     float64 // mean CRPS (iso) / CRPS (nll) - 1
		pitE     [2]float64
		grid     []scoreMeans // means over datasets
		gridBand []int
		gridB50  []int
		gridDNLL [][]float64
	}
	inBand := func(v, c float64) bool { return v >= c-0.05 && v <= c+0.05 }
	rows := map[string]*row{}
	var variants []IsoVariant
	for _, h := range calibrationHeads {
		r := &row{}
		for _, ds := range names {
			c := acc[h][ds]
			if c == nil || !c.hasIso() || !c.hasPIT() {
				continue
			}
			r.ds++
			for k, v := range []float64{c.after.cov90, c.pit.cov90, c.iso.cov90} {
				if inBand(v, 0.9) {
					r.band[k]++
				}
			}
			for k, s := range []scoreMeans{c.after, c.iso} {
				if inBand(s.cov50, 0.5) {
					r.band50[k]++
				}
				r.cov90[k] += s.cov90
				r.cov50[k] += s.cov50
				r.nll[k] = append(r.nll[k], s.nll)
				r.pitE[k] += s.pit
			}
			r.dNLL = append(r.dNLL, c.iso.nll-c.after.nll)
			if c.iso.nll < c.after.nll {
				r.lower++
			}
			r.crps += c.iso.crps/c.after.crps - 1
			if r.grid == nil {
				r.grid = make([]scoreMeans, len(c.grid))
				r.gridBand, r.gridB50, r.gridDNLL = make([]int, len(c.grid)), make([]int, len(c.grid)), make([][]float64, len(c.grid))
			}
			for k, g := range c.grid[:min(len(c.grid), len(r.grid))] {
				r.grid[k].cov90 += g.cov90
				r.grid[k].cov50 += g.cov50
				r.grid[k].pit += g.pit
				if inBand(g.cov90, 0.9) {
					r.gridBand[k]++
				}
				if inBand(g.cov50, 0.5) {
					r.gridB50[k]++
				}
				r.gridDNLL[k] = append(r.gridDNLL[k], g.nll-c.after.nll)
			}
		}
		if r.ds > 0 {
			rows[h] = r
		}
	}
	if len(rows) == 0 {
		return false
	}
	for _, k := range isoSegments {
		for _, f := range isoFloors {
			variants = append(variants, IsoVariant{Segments: k, Floor: f})
		}
	}
	fmt.Fprintf(b, "\n## The isotonic objective against the temperatures\n\n"+
		"The same trained model calibrated a third time on the same validation rows by `--calibrate-by isotonic` "+
		"(`Model.FitTemperature` with `CalibrateByIsotonic`: the NLL temperature, then a monotone map R of the CDF fitted to "+
		"the validation PIT values, %d segments, identity weight at least %v), scored on the same test rows. "+
		"\"NLL change\" is test NLL (isotonic) - test NLL (nll) over datasets, \"CRPS change\" the mean of CRPS (isotonic) / CRPS (nll) - 1; "+
		"the 50%% interval is in band when it covers 45-55%%.\n\n", decoreg.IsotonicSegments, decoreg.IsotonicFloor)
	b.WriteString("| head |")
	mdColumns(b, []string{"datasets", "90% interval covers 85-95%: nll", "pit", "isotonic", "50% interval covers 45-55%: nll", "isotonic",
		"mean coverage of the 90% interval: nll", "isotonic", "mean coverage of the 50% interval: nll", "isotonic",
		"median test NLL: nll", "isotonic", "datasets with lower NLL: isotonic", "NLL change: mean", "median", "CRPS change", "pit_ece: nll", "isotonic"}, "---:")
	for _, h := range calibrationHeads {
		r := rows[h]
		if r == nil {
			continue
		}
		n := float64(r.ds)
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %d | %+.4g | %+.3f | %+.1f%% | %.3f | %.3f |\n", h, r.ds,
			r.band[0], r.band[1], r.band[2], r.band50[0], r.band50[1], r.cov90[0]/n, r.cov90[1]/n, r.cov50[0]/n, r.cov50[1]/n,
			metrics.Median(r.nll[0]), metrics.Median(r.nll[1]), r.lower, metrics.Mean(r.dNLL), metrics.Median(r.dNLL), 100*r.crps/n, r.pitE[0]/n, r.pitE[1]/n)
	}
	b.WriteString("\n### Sizes of the map\n\n" +
		"Maps of other sizes fitted to the same validation PIT values (at the NLL temperature) and scored from the test rows' PIT " +
		"values p_i alone: coverage of the central c-interval = the fraction of R(p_i) in [(1-c)/2, (1+c)/2], test NLL = the NLL " +
		"objective's minus the mean of log R'(p_i) (for the library's own size these equal the full scores above). The identity's " +
		"weight is at least the floor, and at least 20/(n+20) for n validation rows.\n\n")
	b.WriteString("| head | segments | floor |")
	mdColumns(b, []string{"90% in 85-95%", "50% in 45-55%", "mean coverage 90%", "mean coverage 50%", "NLL change: median", "mean", "mean pit_ece"}, "---:")
	for _, h := range calibrationHeads {
		r := rows[h]
		if r == nil {
			continue
		}
		n := float64(r.ds)
		for k, v := range variants[:min(len(variants), len(r.grid))] {
			fmt.Fprintf(b, "| %s | %d | %v | %d | %d | %.3f | %.3f | %+.3f | %+.4g | %.3f |\n", h, v.Segments, v.Floor, r.gridBand[k], r.gridB50[k],
				r.grid[k].cov90/n, r.grid[k].cov50/n, metrics.Median(r.gridDNLL[k]), metrics.Mean(r.gridDNLL[k]), r.grid[k].pit/n)
		}
	}
	return true
}

func minY(xys ...plotter.XYs) float64 {
	m := 1.0
	for _, xy := range xys {
		for _, p := range xy {
			m = math.Min(m, p.Y)
		}
	}
	return math.Max(0, m-0.05)
}
