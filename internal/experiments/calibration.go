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
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"decoreg"
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
	PIT    *CalObjective `json:"pit,omitempty"`
	Epochs int           `json:"epochs"`
	Error  string        `json:"error,omitempty"`
}

// CalObjective is a model calibrated by another objective: its temperature
// and test scores.
type CalObjective struct {
	Temperature Float     `json:"temperature"`
	After       CalScores `json:"after"`
}

// Failed reports whether the run failed on its data.
func (l *CalibrationLine) Failed() bool { return l.Error != "" }

var calibrationHeads = []string{DecoderNormalized, Riemann, MDN}

// CalibrationTasks returns the runs: dataset x split x head (normalized
// decoder, Riemann, MDN, with the defaults), training on the split's
// training part.
func CalibrationTasks(opts Options) ([]Task[*CalibrationLine], error) {
	u, names, splits, err := realPlan(opts, nil, []string{"yacht", "concrete"}, 1)
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
	mp, err := un.FitTemperature(xv, len(yv), yv, decoreg.CalibrateByPIT)
	if err != nil {
		return nil, err
	}
	l.PIT = &CalObjective{Temperature: Float(mp.Temperature())}
	for _, c := range []struct {
		m   *decoreg.Model
		dst *CalScores
	}{{un, &l.Before}, {m, &l.After}, {mp, &l.PIT.After}} {
		ev, err := c.m.Evaluate(te.X, te.Rows, te.Y, "")
		if err != nil {
			return nil, err
		}
		cal, err := c.m.Calibration(te.X, te.Rows, te.Y)
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
	}
	return l, nil
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
	return experiment("calibration", "calibration of the density heads on real data, before and after train --calibrate, by --calibrate-by nll and pit (decoreg's own)",
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
}

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
		"over datasets of CRPS after / CRPS before - 1. Datasets: the 24 UCI " +
		"datasets of the paper's NLL table (`--data DIR` for others).\n\n")
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
	b.WriteString("); the band is 85-95%.\n")

	var row []*plot.Plot
	for _, h := range calibrationHeads {
		byDS := acc[h]
		if len(byDS) == 0 {
			continue
		}
		p := newPlot(h, "dataset (sorted by coverage before)", "coverage of the central 90% interval")
		type pt struct{ before, after, pit float64 }
		var pts []pt
		for _, ds := range names {
			if c := byDS[ds]; c != nil {
				q := pt{c.before.cov90, c.after.cov90, math.NaN()}
				if c.hasPIT() {
					q.pit = c.pit.cov90
				}
				pts = append(pts, q)
			}
		}
		slices.SortFunc(pts, func(a, b pt) int { return cmp.Compare(a.before, b.before) })
		var bxy, axy, pxy plotter.XYs
		for i, q := range pts {
			bxy = append(bxy, plotter.XY{X: float64(i + 1), Y: q.before})
			axy = append(axy, plotter.XY{X: float64(i + 1), Y: q.after})
			if !math.IsNaN(q.pit) {
				pxy = append(pxy, plotter.XY{X: float64(i + 1), Y: q.pit})
			}
		}
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, float64(len(pts)+1), math.Min(0.5, minY(bxy, axy, pxy)), 1
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
		if len(pxy) > 0 {
			s, err := plotter.NewScatter(pxy)
			if err != nil {
				return err
			}
			s.GlyphStyle.Color, s.GlyphStyle.Radius, s.GlyphStyle.Shape = color.Black, vg.Points(3), draw.TriangleGlyph{}
			p.Add(s)
			p.Legend.Add("after (pit)", s)
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
	if anyPIT {
		title += " (--calibrate-by nll and pit)"
	}
	return writeGrid(ctxOf(info), filepath.Join(dir, "calibration.png"), title,
		[][]*plot.Plot{row}, vg.Length(len(row))*4.5*vg.Inch, 4.2*vg.Inch)
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
