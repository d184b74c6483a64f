package experiments

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"decoreg"
	"decoreg/metrics"
)

// The calibration experiment is decoreg's own, not the paper's: how well
// the predictive distributions of the density heads fit real test data,
// before and after 'train --calibrate' (a temperature fitted on the
// validation rows), on the UCI datasets.

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
	Epochs      int            `json:"epochs"`
	Error       string         `json:"error,omitempty"`
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
	for _, c := range []struct {
		m   *decoreg.Model
		dst *CalScores
	}{{un, &l.Before}, {m, &l.After}} {
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

func calibrationExperiment() *Experiment {
	return experiment("calibration", "calibration of the density heads on real data, before and after train --calibrate (decoreg's own)",
		func(o Options) string {
			s := seedsOr(o, 1)
			return fmt.Sprintf("splits 0..%d, the full training part, default settings, heads %s%s", s-1, strings.Join(calibrationHeads, ", "), quickNote(o))
		},
		CalibrationTasks, func() *CalibrationLine { return new(CalibrationLine) },
		func(l *CalibrationLine) string {
			if l.Error != "" {
				return "FAILED: " + l.Error
			}
			return fmt.Sprintf("T %.3g, coverage 0.9 %.3f -> %.3f, nll %.3f -> %.3f", float64(l.Temperature),
				float64(l.Before.Coverage["0.9"]), float64(l.After.Coverage["0.9"]), float64(l.Before.NLL), float64(l.After.NLL))
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
}

// calMeans averages a dataset's runs of one head.
type calMeans struct {
	t             float64
	before, after scoreMeans
	runs          int
}

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
		dsSet[l.Dataset] = true
	}
	for _, byDS := range acc {
		for _, c := range byDS {
			n := float64(c.runs)
			c.t /= n
			c.before.div(n)
			c.after.div(n)
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
		var nb, na []float64
		for _, ds := range names {
			c := byDS[ds]
			if c == nil {
				continue
			}
			s.Datasets++
			inBand := func(v float64) bool { return v >= 0.85 && v <= 0.95 }
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
	for _, s := range SummarizeCalibration(lines) {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %.3f | %.3f | %.3f | %.3f | %d | %+.1f%% | %.3f | %.3f |\n", s.Head, s.Datasets,
			s.InBandBefore, s.InBandAft, s.Cov90Before, s.Cov90After, s.NLLBefore, s.NLLAfter, s.LowerNLL, 100*s.CRPSRelChange, s.PITBefore, s.PITAfter)
	}
	for _, h := range calibrationHeads {
		byDS := acc[h]
		if len(byDS) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n", h)
		b.WriteString("| dataset |")
		mdColumns(&b, []string{"T", "coverage 50%: before", "after", "coverage 90%: before", "after", "NLL: before", "after", "CRPS: before", "after", "pit_ece: before", "after"}, "---:")
		for _, ds := range names {
			c := byDS[ds]
			if c == nil {
				continue
			}
			fmt.Fprintf(&b, "| %s | %.3g | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.4g | %.4g | %.3f | %.3f |\n", ds, c.t,
				c.before.cov50, c.after.cov50, c.before.cov90, c.after.cov90, c.before.nll, c.after.nll, c.before.crps, c.after.crps, c.before.pit, c.after.pit)
		}
	}
	b.WriteString("\nFigure: [calibration.png](calibration.png): per head, each dataset's coverage of the central 90% interval " +
		"before (grey) and after calibration (colour); the band is 85-95%.\n")

	var row []*plot.Plot
	for _, h := range calibrationHeads {
		byDS := acc[h]
		if len(byDS) == 0 {
			continue
		}
		p := newPlot(h, "dataset (sorted by coverage before)", "coverage of the central 90% interval")
		type pt struct{ before, after float64 }
		var pts []pt
		for _, ds := range names {
			if c := byDS[ds]; c != nil {
				pts = append(pts, pt{c.before.cov90, c.after.cov90})
			}
		}
		slices.SortFunc(pts, func(a, b pt) int { return cmp.Compare(a.before, b.before) })
		var bxy, axy plotter.XYs
		for i, q := range pts {
			bxy = append(bxy, plotter.XY{X: float64(i + 1), Y: q.before})
			axy = append(axy, plotter.XY{X: float64(i + 1), Y: q.after})
		}
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, float64(len(pts)+1), math.Min(0.5, minY(bxy, axy)), 1
		if err := addLine(p, plotter.XYs{{X: 0, Y: 0.85}, {X: float64(len(pts) + 1), Y: 0.85}}, headColor("truth"), "85% and 95%", true, false); err != nil {
			return err
		}
		if err := addLine(p, plotter.XYs{{X: 0, Y: 0.95}, {X: float64(len(pts) + 1), Y: 0.95}}, headColor("truth"), "", true, false); err != nil {
			return err
		}
		if err := addScatter(p, bxy, headColor("none"), vg.Points(3), "before"); err != nil {
			return err
		}
		if err := addScatter(p, axy, headColor(h), vg.Points(3), "after"); err != nil {
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
	return writeGrid(ctxOf(info), filepath.Join(dir, "calibration.png"), "Coverage of central 90% intervals before and after train --calibrate",
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
