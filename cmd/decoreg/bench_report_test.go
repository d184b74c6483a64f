package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"decoreg"
	"decoreg/internal/experiments"
)

// reportFixture is one fake run: NLL, NLL_u and tau of a split, or a failed
// run when failed is set.
type reportFixture struct {
	ds, head   string
	split      int
	nll, nllU  float64
	tau        float64
	failed     bool
	seconds    float64
	start, end string
}

// writeReportTree writes fixtures as result files under dir.
func writeReportTree(t *testing.T, dir string, fx []reportFixture) {
	t.Helper()
	for _, f := range fx {
		r := &experiments.Result{Dataset: f.ds, Head: f.head, Split: f.split, Seconds: f.seconds,
			Started: f.start, Finished: f.end, GoMaxProcs: 2, Kernel: "testkernel", Commit: "abc123", Host: "h"}
		if f.failed {
			r.Error = "decoreg: training diverged"
		} else {
			r.Eval = &decoreg.Eval{N: 10, NLL: f.nll, NLLU: f.nllU, NLLToken: math.NaN(), KendallTau: f.tau, Point: "mean"}
			if strings.HasPrefix(f.head, "decoder") || f.head == "riemann" {
				r.Eval.NLLToken = fixtureTokenCE(f.nllU)
			}
		}
		if err := experiments.WriteResult(experiments.ResultPath(dir, f.ds, f.head, f.split), r); err != nil {
			t.Fatal(err)
		}
	}
}

// fixtureTokenCE is the per-token cross-entropy the fixtures give a token
// head's run with NLL_u nllU.
func fixtureTokenCE(nllU float64) float64 { return nllU/4 + 1 }

// benchReport writes fixtures fx under a new directory and returns what
// "decoreg bench report DIR args..." prints.
func benchReport(t *testing.T, fx []reportFixture, args ...string) (dir, out string) {
	t.Helper()
	dir = t.TempDir()
	writeReportTree(t, dir, fx)
	return dir, reportOutput(t, dir, args...)
}

// reportOutput returns what "decoreg bench report DIR args..." prints; it
// fails the test unless the command exits 0.
func reportOutput(t *testing.T, dir string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	defer func(w io.Writer) { stdout = w }(stdout)
	stdout = &out
	if code := run(append(append([]string{"bench", "report"}, args...), dir), &errb); code != 0 {
		t.Fatalf("bench report %v: exit %d: %s", args, code, errb.String())
	}
	return out.String()
}

// refMeanStd is the mean and sample std (n-1), computed here independently.
func refMeanStd(v []float64) (float64, float64) {
	var s float64
	for _, x := range v {
		s += x
	}
	m := s / float64(len(v))
	var q float64
	for _, x := range v {
		q += (x - m) * (x - m)
	}
	return m, math.Sqrt(q / float64(len(v)-1))
}

// tableRows returns the data rows of the markdown table under heading, as
// cells keyed by dataset, and the table's column names.
func tableRows(t *testing.T, out, heading string) (cols []string, rows map[string][]string) {
	t.Helper()
	i := strings.Index(out, "## "+heading+"\n")
	if i < 0 {
		t.Fatalf("no table %q in\n%s", heading, out)
	}
	rows = map[string][]string{}
	for _, line := range strings.Split(out[i:], "\n")[1:] {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		f := strings.Split(strings.Trim(line, "| "), " | ")
		if f[0] == "dataset" {
			cols = f[1:]
			continue
		}
		rows[f[0]] = f[1:]
	}
	return cols, rows
}

func TestBenchReport(t *testing.T) {
	const t0, t1 = "2025-01-01T10:00:00Z", "2025-01-01T11:30:05Z"
	fx := []reportFixture{
		// alpha: the normalized decoder is best; all cells complete.
		{"alpha", "mdn", 0, 1.0, -1.0, 0.5, false, 10, t0, t0},
		{"alpha", "mdn", 1, 1.5, -0.5, 0.6, false, 10, t0, t0},
		{"alpha", "mdn", 2, 2.0, 0.0, 0.7, false, 10, t0, t0},
		{"alpha", "decoder-normalized", 0, 0.5, -1.5, 0.8, false, 100, t0, t0},
		{"alpha", "decoder-normalized", 1, 0.7, -1.3, 0.9, false, 100, t0, t0},
		{"alpha", "decoder-normalized", 2, 0.6, -1.4, 0.85, false, 100, t0, t1},
		{"alpha", "riemann", 0, 2, 0, 0.1, false, 1, t0, t0},
		{"alpha", "riemann", 1, 3, 1, 0.2, false, 1, t0, t0},
		{"alpha", "riemann", 2, 4, 2, 0.3, false, 1, t0, t0},
		{"alpha", "pointwise", 0, math.NaN(), math.NaN(), 0.95, false, 1, t0, t0},
		{"alpha", "pointwise", 1, math.NaN(), math.NaN(), 0.91, false, 1, t0, t0},
		{"alpha", "pointwise", 2, math.NaN(), math.NaN(), 0.93, false, 1, t0, t0},
		// beta: mdn has 2 of 3 splits and is best; riemann is missing.
		{"beta", "mdn", 0, 0.1, -2, 0.4, false, 1, t0, t0},
		{"beta", "mdn", 2, 0.3, -1.8, 0.2, false, 1, t0, t0},
		{"beta", "decoder-normalized", 0, 0.4, -1.7, 0.3, false, 1, t0, t0},
		{"beta", "decoder-normalized", 1, 0.4, -1.7, 0.3, false, 1, t0, t0},
		{"beta", "decoder-normalized", 2, 0.5, -1.6, 0.3, false, 1, t0, t0},
		// gamma: a tie as printed (0.333.. and 0.331 both print 0.33), and
		// a failed riemann run.
		{"gamma", "mdn", 0, 0.3, 0, 0, false, 1, t0, t0},
		{"gamma", "mdn", 1, 0.3666, 0, 0, false, 1, t0, t0},
		{"gamma", "mdn", 2, 0.3334, 0, 0, false, 1, t0, t0},
		{"gamma", "decoder-normalized", 0, 0.331, 0, 0, false, 1, t0, t0},
		{"gamma", "decoder-normalized", 1, 0.332, 0, 0, false, 1, t0, t0},
		{"gamma", "decoder-normalized", 2, 0.330, 0, 0, false, 1, t0, t0},
		{"gamma", "riemann", 0, 5, 0, 0, false, 1, t0, t0},
		{"gamma", "riemann", 1, 7, 0, 0, false, 1, t0, t0},
		{"gamma", "riemann", 2, 0, 0, 0, true, 1, t0, t0},
	}
	dir, got := benchReport(t, fx)

	cell := func(vals []float64, prec int) string {
		m, s := refMeanStd(vals)
		return fmt.Sprintf("%.*f ± %.*f", prec, m, prec, s)
	}
	cols, nll := tableRows(t, got, "Test NLL (original y units)")
	if want := []string{"mdn", "decoder-normalized", "riemann"}; strings.Join(cols, ",") != strings.Join(want, ",") {
		t.Errorf("NLL columns %v, want %v (pointwise has no NLL)", cols, want)
	}
	wantNLL := map[string][]string{
		"alpha": {cell([]float64{1, 1.5, 2}, 2), "**" + cell([]float64{0.5, 0.7, 0.6}, 2) + "**", cell([]float64{2, 3, 4}, 2)},
		"beta":  {"**" + cell([]float64{0.1, 0.3}, 2) + "** (2/3)", cell([]float64{0.4, 0.4, 0.5}, 2), "—"},
		"gamma": {"**" + cell([]float64{0.3, 0.3666, 0.3334}, 2) + "**", "**" + cell([]float64{0.331, 0.332, 0.330}, 2) + "**",
			cell([]float64{5, 7}, 2) + " (2/3, 1 failed)"},
	}
	for ds, want := range wantNLL {
		if strings.Join(nll[ds], " | ") != strings.Join(want, " | ") {
			t.Errorf("NLL row %s:\n got %q\nwant %q", ds, nll[ds], want)
		}
	}
	_, nllu := tableRows(t, got, "Test NLL_u (normalized units)")
	if want := "**" + cell([]float64{-1.5, -1.3, -1.4}, 2) + "**"; nllu["alpha"][1] != want {
		t.Errorf("NLL_u alpha decoder: %q, want %q", nllu["alpha"][1], want)
	}
	cols, tok := tableRows(t, got, "Test cross-entropy per token")
	if want := []string{"decoder-normalized", "riemann"}; strings.Join(cols, ",") != strings.Join(want, ",") {
		t.Errorf("token table columns %v, want %v (mdn and pointwise have no tokens)", cols, want)
	}
	if want := cell([]float64{fixtureTokenCE(-1.5), fixtureTokenCE(-1.3), fixtureTokenCE(-1.4)}, 2); tok["alpha"][0] != want {
		t.Errorf("token alpha decoder: %q, want %q (no bold: not comparable across heads)", tok["alpha"][0], want)
	}
	cols, tau := tableRows(t, got, "Kendall's tau")
	if len(cols) != 4 || cols[3] != "pointwise" {
		t.Errorf("tau columns %v", cols)
	}
	if want := "**" + cell([]float64{0.95, 0.91, 0.93}, 3) + "**"; tau["alpha"][3] != want {
		t.Errorf("tau alpha pointwise: %q, want %q (highest tau in bold)", tau["alpha"][3], want)
	}
	if want := cell([]float64{0.5, 0.6, 0.7}, 3); tau["alpha"][0] != want {
		t.Errorf("tau alpha mdn: %q, want %q", tau["alpha"][0], want)
	}
	// Sum of seconds: 3*10 + 3*100 + 20*1 = 350 s = 5m50s; span 1h30m05s.
	for _, s := range []string{"Total run time: 5m50s over 26 runs", "1h30m05s from the first start", "GOMAXPROCS 2", "testkernel", "abc123"} {
		if !strings.Contains(got, s) {
			t.Errorf("report lacks %q:\n%s", s, got)
		}
	}

	// --splits makes complete cells incomplete.
	if _, nll := tableRows(t, reportOutput(t, dir, "--splits", "10"), "Test NLL (original y units)"); !strings.HasSuffix(nll["alpha"][0], " (3/10)") {
		t.Errorf("--splits 10: alpha mdn %q", nll["alpha"][0])
	}

	// --splits below a cell's count is refused: the cell was summarised
	// over all its splits, unmarked, under a footer saying it had fewer.
	var errb bytes.Buffer
	if code := run([]string{"bench", "report", "--splits", "2", dir}, &errb); code != 2 || !strings.Contains(errb.String(), "--splits 2: the cell alpha/mdn has 3 splits' runs; give at least 3") {
		t.Errorf("--splits 2: exit %d, %q", code, errb.String())
	}

	// CSV.
	csvOut := reportOutput(t, dir, "--format", "csv")
	m, s := refMeanStd([]float64{5, 7})
	if want := fmt.Sprintf("gamma,riemann,nll,2,1,%v,%v\n", m, s); !strings.Contains(csvOut, want) {
		t.Errorf("csv lacks %q:\n%s", want, csvOut)
	}
}

func TestBenchReportErrors(t *testing.T) {
	var out bytes.Buffer
	defer func(w io.Writer) { stdout = w }(stdout)
	stdout = &out
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"bench", "report"}, "want one RESULTS directory"},
		{[]string{"bench", "report", dir, "--format", "csv"}, "--format after RESULTS: flags come before it"},
		{[]string{"bench", "report", "--format", "html", dir}, "--format"},
		{[]string{"bench", "report", dir}, "no result files"},
		{[]string{"bench", "report", dir + "/missing"}, "missing"},
		{[]string{"bench", "report", "testdata/cli/small.csv"}, "small.csv is not a directory: give the directory of bench uci's --out"},
	} {
		var errb bytes.Buffer
		if code := run(c.args, &errb); code != 2 || !strings.Contains(errb.String(), c.msg) || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", c.args, code, errb.String(), c.msg)
		}
	}
}

// TestBenchReportOutliers: a run whose NLL exceeds its cell's median by
// more than experiments.OutlierNats is listed with the cell's median and
// its mean without it; a report without such runs has no such table.
func TestBenchReportOutliers(t *testing.T) {
	const t0 = "2025-01-01T10:00:00Z"
	fx := []reportFixture{
		{"alpha", "mdn", 0, 1.0, 0, 0, false, 1, t0, t0},
		{"alpha", "mdn", 1, 2.0, 0, 0, false, 1, t0, t0},
		{"alpha", "mdn", 2, 1.2e7, 0, 0, false, 1, t0, t0},
		{"alpha", "mdn", 3, 1.5, 0, 0, false, 1, t0, t0},
		{"alpha", "riemann", 0, 1.0, 0, 0, false, 1, t0, t0},
		{"alpha", "riemann", 1, 6.4, 0, 0, false, 1, t0, t0}, // median 3.7: 2.7 above, not outlying
		{"alpha", "riemann", 2, 6.4, 0, 0, false, 1, t0, t0},
		{"alpha", "riemann", 3, 1.0, 0, 0, false, 1, t0, t0},
		{"beta", "mdn", 0, 100, 0, 0, false, 1, t0, t0}, // fewer than 3 runs: never outlying
		{"beta", "mdn", 1, 1, 0, 0, false, 1, t0, t0},
	}
	_, got := benchReport(t, fx)
	i := strings.Index(got, "## Outlying runs\n")
	if i < 0 {
		t.Fatalf("no outlier table:\n%s", got)
	}
	var rows []string
	for _, line := range strings.Split(got[i:], "\n")[1:] {
		if strings.HasPrefix(line, "|") {
			rows = append(rows, line)
		} else if len(rows) > 0 {
			break
		}
	}
	// mdn: median of {1, 1.5, 2, 1.2e7} is 1.75; the mean of the rest 1.5.
	if want := []string{"| dataset | head | split | NLL | cell median | cell mean without |", "|---|---|---:|---:|---:|---:|",
		"| alpha | mdn | 2 | 1.20e+07 | 1.75 | 1.50 |"}; strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("outlier table\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}

	if _, got := benchReport(t, fx[4:8]); strings.Contains(got, "Outlying") {
		t.Errorf("an outlier table without outliers:\n%s", got)
	}
}

// TestBenchReportMixedSettings: a cell whose runs were trained with other
// settings (bench uci run again into the directory with other flags, for
// new splits) is listed, and the others are not.
func TestBenchReportMixedSettings(t *testing.T) {
	fx := []reportFixture{
		{ds: "a", head: "mdn", split: 0, nll: 1, nllU: 1, tau: 0.5, seconds: 1},
		{ds: "a", head: "mdn", split: 1, nll: 1, nllU: 1, tau: 0.5, seconds: 1},
		{ds: "b", head: "mdn", split: 0, nll: 1, nllU: 1, tau: 0.5, seconds: 1},
		{ds: "b", head: "mdn", split: 1, nll: 1, nllU: 1, tau: 0.5, seconds: 1},
	}
	dir, out := benchReport(t, fx)
	if strings.Contains(out, "mix settings") {
		t.Fatalf("one setting reported as mixed:\n%s", out)
	}
	p := experiments.ResultPath(dir, "b", "mdn", 1)
	r, err := experiments.ReadResult(p)
	if err != nil {
		t.Fatal(err)
	}
	r.Config.MaxEpochs = 1
	if err := experiments.WriteResult(p, r); err != nil {
		t.Fatal(err)
	}
	out = reportOutput(t, dir)
	if !strings.Contains(out, "## Cells that mix settings") || !strings.Contains(out, "| b | mdn | 2 | 1 |") || strings.Contains(out, "| a | mdn | 2 |") {
		t.Errorf("mixed settings:\n%s", out)
	}
}
