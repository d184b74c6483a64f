package experiments

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"decoreg"
)

// The calibration summary recomputed by hand from a small journal: means
// over a dataset's splits first, then over datasets; failed runs left out.
func TestSummarizeCalibration(t *testing.T) {
	line := func(ds string, split int, head string, t float64, covB, covA, nllB, nllA, crpsB, crpsA float64) *CalibrationLine {
		return &CalibrationLine{Dataset: ds, Split: split, Head: head, Temperature: Float(t),
			Before: CalScores{NLL: Float(nllB), CRPS: Float(crpsB), PITError: 0.1, Coverage: map[string]Float{"0.9": Float(covB), "0.5": 0.5}},
			After:  CalScores{NLL: Float(nllA), CRPS: Float(crpsA), PITError: 0.05, Coverage: map[string]Float{"0.9": Float(covA), "0.5": 0.5}}}
	}
	lines := []*CalibrationLine{
		// a: splits average to cov 0.80 -> 0.90, nll 2 -> 1.5, crps 1 -> 0.9
		line("a", 0, DecoderNormalized, 1.5, 0.78, 0.88, 2.5, 2.0, 1.2, 1.0),
		line("a", 1, DecoderNormalized, 1.5, 0.82, 0.92, 1.5, 1.0, 0.8, 0.8),
		// b: cov 0.90 -> 0.97, nll 1 -> 1.2, crps 2 -> 2
		line("b", 0, DecoderNormalized, 0.8, 0.90, 0.97, 1.0, 1.2, 2.0, 2.0),
		{Dataset: "c", Head: DecoderNormalized, Error: "diverged"},
		line("a", 0, MDN, 1, 0.9, 0.9, 1, 1, 1, 1),
	}
	s := SummarizeCalibration(lines)
	if len(s) != 2 || s[0].Head != DecoderNormalized || s[1].Head != MDN {
		t.Fatalf("summary %+v", s)
	}
	d := s[0]
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if d.Datasets != 2 || d.InBandBefore != 1 || d.InBandAft != 1 || d.LowerNLL != 1 ||
		!near(d.Cov90Before, 0.85) || !near(d.Cov90After, 0.935) || !near(d.NLLBefore, 1.5) || !near(d.NLLAfter, 1.35) /* medians of two */ ||
		!near(d.CRPSRelChange, (-0.1+0)/2) || !near(d.PITBefore, 0.1) || !near(d.PITAfter, 0.05) {
		t.Errorf("decoder summary %+v", d)
	}
}

// The PIT objective's summary, by hand: over the datasets whose runs all
// have it, against the NLL objective's scores on the same datasets.
func TestSummarizeCalibrationPIT(t *testing.T) {
	line := func(ds string, split int, covA, nllA, crpsA float64, pit *CalObjective) *CalibrationLine {
		return &CalibrationLine{Dataset: ds, Split: split, Head: Riemann, Temperature: 1.2,
			Before: CalScores{NLL: 1, CRPS: 1, PITError: 0.1, Coverage: map[string]Float{"0.9": 0.97, "0.5": 0.6}},
			After:  CalScores{NLL: Float(nllA), CRPS: Float(crpsA), PITError: 0.08, Coverage: map[string]Float{"0.9": Float(covA), "0.5": 0.6}},
			PIT:    pit}
	}
	pit := func(t, cov, nll, crps float64) *CalObjective {
		return &CalObjective{Temperature: Float(t), After: CalScores{NLL: Float(nll), CRPS: Float(crps), PITError: 0.02,
			Coverage: map[string]Float{"0.9": Float(cov), "0.5": 0.5}}}
	}
	lines := []*CalibrationLine{
		// a: nll objective cov 0.97, nll 1.0, crps 1.0; pit cov 0.91, nll 1.2, crps 0.9
		line("a", 0, 0.97, 1.0, 1.0, pit(0.8, 0.91, 1.2, 0.9)),
		// b: nll objective cov 0.90, nll 2.0, crps 2.0; pit cov 0.80 (out of the band), nll 1.9, crps 2.2
		line("b", 0, 0.90, 2.0, 2.0, pit(0.5, 0.80, 1.9, 2.2)),
		// c: one split without the PIT objective: left out of its figures
		line("c", 0, 0.90, 3.0, 1.0, pit(1, 0.9, 3, 1)),
		line("c", 1, 0.90, 3.0, 1.0, nil),
	}
	s := SummarizeCalibration(lines)
	if len(s) != 1 {
		t.Fatalf("summary %+v", s)
	}
	d := s[0]
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if d.Datasets != 3 || d.PITDatasets != 2 || d.InBandPIT != 1 || d.InBandNLL != 1 || d.LowerNLLPIT != 1 ||
		!near(d.Cov90PIT, 0.855) || !near(d.Cov50PIT, 0.5) || !near(d.NLLPIT, 1.55) || !near(d.NLLChangePIT, (0.2-0.1)/2) || !near(d.NLLChangeMedPIT, (0.2-0.1)/2) ||
		!near(d.CRPSChangePIT, (-0.1+0.1)/2) || !near(d.PITPIT, 0.02) || !near(d.Cov50NLL, 0.6) || !near(d.Cov90NLL, 0.935) ||
		!near(d.NLLNLL, 1.5) || !near(d.PITNLL, 0.08) {
		t.Errorf("summary %+v", d)
	}
	dir := t.TempDir()
	if err := CalibrationReport(dir, lines, ReportInfo{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "REPORT.md"))
	for _, want := range []string{"## The PIT objective against the NLL objective", "| riemann | 2 | 1 | 1 | 0.935 | 0.855 | 0.600 | 0.500 | 1.500 | 1.550 | 1 | +0.05 | +0.050 | +0.0% | 0.080 | 0.020 |",
		"| a | 1.2 |", "| 0.8 | 0.500 | 0.910 | 1.200 | 0.9 | 0.020 |", "| – | – | – | – | – | – |"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the report lacks %q:\n%s", want, b)
		}
	}
}

// calibrationRows are the rows Config.Calibrate fits on: the NLL objective
// fitted on them by FitTemperature gives Fit's temperature, so that the
// PIT objective in the experiment sees the same rows; and one quick run
// end to end records both objectives.
func TestCalibrationRows(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 500
	x, y := make([]float64, 2*n), make([]float64, n)
	for i := range n {
		x[2*i], x[2*i+1] = r.NormFloat64(), r.NormFloat64()
		y[i] = x[2*i] + 0.3*r.NormFloat64()
	}
	cfg := decoreg.Config{Head: decoreg.HeadMDN, EncLayers: 1, EncWidth: 8, MaxEpochs: 2, Threads: 1, Seed: 4, Calibrate: true}
	m, err := decoreg.FitFlat(context.Background(), x, n, 2, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	xv, yv := calibrationRows(x, n, 2, y, cfg)
	un, _ := m.WithTemperature(1)
	f, err := un.FitTemperature(context.Background(), xv, len(yv), yv, decoreg.CalibrateByNLL)
	if err != nil || len(yv) != 50 || f.Temperature() != m.Temperature() || m.Temperature() == 1 {
		t.Errorf("%d rows: FitTemperature %v (%v), Fit %v", len(yv), f.Temperature(), err, m.Temperature())
	}

	dir := t.TempDir()
	writeDataset(t, dir, "toy", 400, 1)
	tasks, err := CalibrationTasks(Options{Quick: true, DataDir: dir, Datasets: []string{"toy"}, Threads: 1})
	if err != nil || len(tasks) != len(calibrationHeads) {
		t.Fatalf("%d tasks, %v", len(tasks), err)
	}
	l, err := tasks[2].Run(context.Background()) // the MDN: fast
	if err != nil || l.Error != "" || l.PIT == nil || l.PIT.After.Coverage["0.9"] == 0 || !(l.PIT.Temperature >= 0.05 && l.PIT.Temperature <= 20) {
		t.Errorf("%+v, %v", l, err)
	}
}
