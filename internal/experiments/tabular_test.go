package experiments

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"decoreg"
)

// The XGBoost journal, as Python's json writes it (a bare NaN for an
// undefined tau), and a missing journal.
func TestXGBTau(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	lines := `{"dataset": "a", "split": 0, "kendall_tau": 0.5}
{"dataset": "a", "split": 1, "kendall_tau": NaN}
{"dataset": "b", "split": 0, "kendall_tau": -0.25, "rmse": 1}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	got, found, err := xgbTau(path, nil)
	if err != nil || !found {
		t.Fatal(found, err)
	}
	if got["a"][0] != 0.5 || !math.IsNaN(got["a"][1]) || got["b"][0] != -0.25 {
		t.Errorf("got %v", got)
	}
	means := xgbMeans([]*TabularLine{{Dataset: "a", Split: 0}, {Dataset: "a", Split: 1}, {Dataset: "b", Split: 0}}, got)
	if means["a"] != 0.5 || means["b"] != -0.25 {
		t.Errorf("means %v (NaN splits left out)", means)
	}
	if m, found, err := xgbTau(filepath.Join(t.TempDir(), "none.jsonl"), nil); err != nil || len(m) != 0 || found {
		t.Errorf("missing journal: %v, %v, %v", m, found, err)
	}
	if err := os.WriteFile(path, []byte("{bad\n"), 0o644); err == nil {
		if _, _, err := xgbTau(path, nil); err == nil || !strings.Contains(err.Error(), path+": line 1:") {
			t.Errorf("a bad line: %v", err)
		}
	}
	// Blank lines, a line cut off at the end (left out, with a warning),
	// a split on two lines with other taus (the first kept, a warning).
	lines += "\n" + `{"dataset": "a", "split": 0, "kendall_tau": -0.9}` + "\r\n\n" + `{"dataset": "c", "split": 0, "kend`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	// A whole last line with an undefined tau (Python's NaN), no newline.
	nan := filepath.Join(t.TempDir(), "nan.jsonl")
	os.WriteFile(nan, []byte(`{"dataset": "b", "kendall_tau": NaN, "split": 0}`), 0o644)
	if got, _, err := xgbTau(nan, &log); err != nil || !math.IsNaN(got["b"][0]) || log.Len() != 0 {
		t.Errorf("a last line of NaN without a newline: %v, %v, %q", got, err, log.String())
	}
	got, _, err = xgbTau(path, &log)
	if err != nil || got["a"][0] != 0.5 || got["c"] != nil {
		t.Errorf("blank lines, a split twice, a cut line: %v, %v", got, err)
	}
	for _, w := range []string{"ends in a partial line", "1 dataset split(s) appear on more than one line with different taus (a split 0)"} {
		if !strings.Contains(log.String(), w) {
			t.Errorf("warnings %q lack %q", log.String(), w)
		}
	}
}

// The summary compares each variant with XGBoost over the variant's own
// splits where both taus are defined, and with the defaults over the
// splits both ran; its mean tau and XGBoost's are over the same splits.
func TestSummarizeTabularSplits(t *testing.T) {
	line := func(ds string, split int, group string, scores map[string]TabScores) *TabularLine {
		return &TabularLine{Dataset: ds, Split: split, Group: group, Scores: scores}
	}
	sc := func(tau, nll float64) TabScores {
		return TabScores{KendallTau: Float(tau), NLL: Float(nll), CRPS: 1, Coverage90: 0.9}
	}
	tied := true
	dTied := line("d", 1, tabTunedAll, map[string]TabScores{"tuned+all5": sc(math.NaN(), 0)})
	dTied.TiedTargets = &tied
	lines := []*TabularLine{
		line("a", 0, tabDefault, map[string]TabScores{"default": sc(0.5, 1)}),
		line("a", 0, tabTunedAll, map[string]TabScores{"tuned+all5": sc(0.7, 2)}),
		line("a", 1, tabTunedAll, map[string]TabScores{"tuned+all5": sc(0.3, -10)}),
		line("b", 0, tabDefault, map[string]TabScores{"default": sc(0.2, 0)}),
		line("b", 0, tabTunedAll, map[string]TabScores{"tuned+all5": sc(0.4, -1)}),
		{Dataset: "b", Split: 1, Group: tabTunedAll, Error: "diverged"},
		// c: XGBoost's tau of split 1 is undefined: both sides on split 0.
		line("c", 0, tabTunedAll, map[string]TabScores{"tuned+all5": sc(0.2, 0)}),
		line("c", 1, tabTunedAll, map[string]TabScores{"tuned+all5": sc(0.9, 0)}),
		// d: split 1's test targets are all equal (tau undefined for both).
		line("d", 0, tabTunedAll, map[string]TabScores{"tuned+all5": sc(0.5, 0)}),
		dTied,
	}
	xgb := map[string]map[int]float64{"a": {0: 0.6, 1: 0.6}, "b": {0: 0.1, 1: 0.9}, "c": {0: 0.3, 1: math.NaN()}, "d": {0: 0.4, 1: math.NaN()}}
	got := map[string]TabularSummary{}
	for _, s := range SummarizeTabular(lines, xgb) {
		got[s.Variant] = s
	}
	d, a := got["default"], got["tuned+all5"]
	// a: tuned+all5 0.5 (splits 0, 1) against XGBoost 0.6, no win; b: 0.4
	// (split 0 alone: split 1 failed) against 0.1, a win.
	// c: 0.2 against 0.3 on split 0, no win (its mean over both splits,
	// 0.55, would have been one, and is not its mean tau either: both
	// means are over split 0); d: 0.5 against 0.4 on split 0, a win (an
	// undefined tau does not drop the dataset).
	if a.Datasets != 4 || a.Runs != 7 || a.BeatsXGB != 2 || a.XGBDatasets != 4 || !(math.Abs(a.MeanTau-(0.5+0.4+0.2+0.5)/4) <= 1e-12) || !(math.Abs(a.XGBMeanTau-(0.6+0.1+0.3+0.4)/4) <= 1e-12) {
		t.Errorf("tuned+all5: %+v", a)
	}
	// Against the defaults, a and b on split 0 only (NLL 2 against 1,
	// higher, on a; -1 against 0 on b); the defaults lack c and d: the
	// mean NLL is the variant's own, over every split, and the defaults'
	// is not given.
	if a.LowerNLL != 1 || a.DefaultDatasets != 2 || !(math.Abs(a.MeanNLL-(-4-1+0+0)/4.0) <= 1e-12) || !math.IsNaN(a.DefaultMeanNLL) {
		t.Errorf("tuned+all5 against the defaults: %+v", a)
	}
	if d.Runs != 2 || !(math.Abs(d.XGBMeanTau-0.35) <= 1e-12) || d.BeatsXGB != 1 || !(math.Abs(d.MeanNLL-0.5) <= 1e-12) || !(math.Abs(d.DefaultMeanNLL-0.5) <= 1e-12) {
		t.Errorf("default: %+v", d)
	}
	var b strings.Builder
	tabSplitTable(&b, tabScores(lines, xgb), xgb, []string{"a", "b", "c", "d"}, "tuned+all5", "the tuned ensemble")
	for _, want := range []string{"| a | 0, 1 | 0.700, 0.300 | 0.600, 0.600 | 0.500 | 0.600 |  |", "| b | 0 | 0.400 | 0.100 | 0.400 | 0.100 | yes |",
		"| c | 0, 1 | 0.200, 0.900 | 0.300, NaN | 0.200 | 0.300 |  |", "| d | 0, 1 | 0.500, NaN | 0.400, NaN | 0.500 | 0.400 | yes |", "wins on 2 of 4 datasets (two thirds: 3)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("split table lacks %q:\n%s", want, b.String())
		}
	}
}

// The mean tau and XGBoost's are over the same splits: here XGBoost lacks
// split 1 of "a", so both are over split 0.
func TestSummarizeTabularSameSplits(t *testing.T) {
	lines := []*TabularLine{
		{Dataset: "a", Split: 0, Group: tabDefault, Scores: map[string]TabScores{"default": {KendallTau: 0.2}}},
		{Dataset: "a", Split: 1, Group: tabDefault, Scores: map[string]TabScores{"default": {KendallTau: 0.8}}},
	}
	s := SummarizeTabular(lines, map[string]map[int]float64{"a": {0: 0.4}})
	if len(s) != 1 || s[0].MeanTau != 0.2 || s[0].XGBMeanTau != 0.4 || s[0].BeatsXGB != 0 {
		t.Errorf("got %+v, want mean tau 0.2 against 0.4 (split 0 both)", s)
	}
}

// A NaN score is a failed model's and is carried into the means, except
// tau (and the relative MSE) on a split whose test targets are all equal:
// as the line records it, or, for lines that predate that record, where
// XGBoost's tau is NaN too and no model's relative MSE is defined.
func TestTabularNaNCarried(t *testing.T) {
	yes, no := true, false
	sc := func(tau, nll, rel float64) TabScores {
		return TabScores{KendallTau: Float(tau), NLL: Float(nll), RelMSE: Float(rel), CRPS: 1, Coverage90: 0.9}
	}
	nan := math.NaN()
	line := func(ds string, split int, group string, tied *bool, scores map[string]TabScores) *TabularLine {
		return &TabularLine{Dataset: ds, Split: split, Group: group, Scores: scores, TiedTargets: tied}
	}
	lines := []*TabularLine{
		// a: split 1's NLL is NaN (a failed model): the mean NLL is NaN.
		line("a", 0, tabDefault, &no, map[string]TabScores{"default": sc(0.5, 1, 0.5)}),
		line("a", 1, tabDefault, &no, map[string]TabScores{"default": sc(0.5, nan, 0.5)}),
		// b: tau NaN on split 1, whose targets vary (recorded), although
		// XGBoost's is NaN too: a failure.
		line("b", 0, tabDefault, &no, map[string]TabScores{"default": sc(0.5, 1, 0.5)}),
		line("b", 1, tabDefault, &no, map[string]TabScores{"default": sc(nan, 1, nan)}),
		// c: split 1's targets are all equal (recorded): left out.
		line("c", 0, tabDefault, &no, map[string]TabScores{"default": sc(0.5, 1, 0.5)}),
		line("c", 1, tabDefault, &yes, map[string]TabScores{"default": sc(nan, 1, nan)}),
		// d, legacy lines: XGBoost's tau of split 1 is NaN and no model's
		// relative MSE is defined: tied, left out.
		line("d", 0, tabDefault, nil, map[string]TabScores{"default": sc(0.5, 1, 0.5)}),
		line("d", 1, tabDefault, nil, map[string]TabScores{"default": sc(nan, 1, nan)}),
		// e, legacy lines: XGBoost's tau of split 1 is NaN but a relative
		// MSE is defined (the targets vary): the NaN tau is a failure.
		line("e", 0, tabDefault, nil, map[string]TabScores{"default": sc(0.5, 1, 0.5)}),
		line("e", 1, tabDefault, nil, map[string]TabScores{"default": sc(nan, 1, 0.7)}),
		// f, legacy lines: a NaN tau where XGBoost's is defined: a failure.
		line("f", 0, tabDefault, nil, map[string]TabScores{"default": sc(0.5, 1, 0.5)}),
		line("f", 1, tabDefault, nil, map[string]TabScores{"default": sc(nan, 1, nan)}),
	}
	xgb := map[string]map[int]float64{}
	for _, ds := range []string{"a", "b", "c", "d", "e", "f"} {
		xgb[ds] = map[int]float64{0: 0.25, 1: nan}
	}
	xgb["f"][1] = 0.25
	tab := tabScores(lines, xgb).table()
	want := map[string][2]float64{"a": {0.5, nan}, "b": {nan, 1}, "c": {0.5, 1}, "d": {0.5, 1}, "e": {nan, 1}, "f": {nan, 1}}
	for ds, w := range want {
		m := tab["default"][ds]
		if !sameOrNaN(float64(m.KendallTau), w[0]) || !sameOrNaN(float64(m.NLL), w[1]) {
			t.Errorf("%s: tau %v, NLL %v; want %v, %v", ds, m.KendallTau, m.NLL, w[0], w[1])
		}
	}
	// The summary carries them: the mean tau and NLL are NaN, not the
	// means of the splits that did not fail.
	s := SummarizeTabular(lines, xgb)
	if len(s) != 1 || !math.IsNaN(s[0].MeanTau) || !math.IsNaN(s[0].MeanNLL) {
		t.Errorf("summary %+v: want NaN mean tau and NLL", s)
	}
	// Only a and its NLL: NaN, not 1.
	s = SummarizeTabular(lines[:2], xgb)
	if len(s) != 1 || s[0].MeanTau != 0.5 || !math.IsNaN(s[0].MeanNLL) {
		t.Errorf("summary of a: %+v", s)
	}
	// Only c and d: tau over split 0 (the tied splits left out), and
	// XGBoost's over the same.
	s = SummarizeTabular(lines[4:8], xgb)
	if len(s) != 1 || s[0].MeanTau != 0.5 || s[0].XGBMeanTau != 0.25 || s[0].MeanNLL != 1 {
		t.Errorf("summary of c and d: %+v", s)
	}
}

// sameOrNaN reports whether a and b are equal or both NaN.
func sameOrNaN(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// tabReport writes the report of lines into a fresh directory, beside an
// XGBoost journal of xgb (none where it is empty), and returns it.
func tabReport(t *testing.T, lines []*TabularLine, xgb string) (dir, report string) {
	t.Helper()
	root := t.TempDir()
	dir = filepath.Join(root, "tabular")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if xgb != "" {
		if err := os.MkdirAll(filepath.Join(root, "xgboost"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "xgboost", "results.jsonl"), []byte(xgb), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, rewriteReport(t, dir, lines)
}

// rewriteReport writes the report of lines into dir and returns it.
func rewriteReport(t *testing.T, dir string, lines []*TabularLine) string {
	t.Helper()
	if err := TabularReport(dir, lines, ReportInfo{Command: "decoreg experiment tabular", Scale: "from the flags"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// summaryRow returns the report's summary row of variant v.
func summaryRow(report, v string) string {
	for _, l := range strings.Split(report, "\n") {
		if strings.HasPrefix(l, "| "+v+" | ") {
			return l
		}
	}
	return ""
}

// scaleLine returns the report's Scale line.
func scaleLine(report string) string {
	for _, l := range strings.Split(report, "\n") {
		if strings.HasPrefix(l, "Scale: ") {
			return l
		}
	}
	return ""
}

// A journal of some groups only: the variant's own mean NLL, "-" where
// nothing was compared, the tuned-seeds runs in the tuning table, and a
// figure (and its caption) only where there are points, a stale one
// removed.
func TestTabularReportPartialJournal(t *testing.T) {
	sc := func(tau, nll float64) TabScores {
		return TabScores{KendallTau: Float(tau), NLL: Float(nll), RelMSE: 0.5, CRPS: 1, Coverage90: 0.9}
	}
	seeds := []*TabularLine{
		{Meta: Meta{Key: "dataset=a,split=0,group=tuned-seeds"}, Dataset: "a", Split: 0, Group: tabTunedSeeds, Budget: 180, Trials: 12,
			Config: decoreg.Config{Ensemble: 5}, SeedsChosen: 2, MembersCut: 1, Chosen: []string{"3:lr=1e-4 (val -1.0000)"},
			Scores: map[string]TabScores{"tuned+seeds5": sc(0.6, -2)}},
		{Meta: Meta{Key: "dataset=b,split=0,group=tuned-seeds"}, Dataset: "b", Split: 0, Group: tabTunedSeeds, Budget: 180, Trials: 12,
			Config: decoreg.Config{Ensemble: 5}, Scores: map[string]TabScores{"tuned+seeds5": sc(0.4, -4)}},
	}
	// No XGBoost results, no defaults.
	dir, r := tabReport(t, seeds, "")
	row := summaryRow(r, "tuned+seeds5")
	if want := "| tuned+seeds5 | 2 | 2 | 0.5000 | - | - | -3.000 | - | - |"; !strings.HasPrefix(row, want) {
		t.Errorf("summary row\n%s\nwant it to start with\n%s", row, want)
	}
	if !strings.Contains(r, "| a | 0 | 12 | false | 0 | 2 of 4 chosen, 1 stopped | - | 3:lr=1e-4 (val -1.0000) |") {
		t.Errorf("the tuning table lacks the tuned-seeds run:\n%s", r)
	}
	// The scale is the journal's, not the flags'.
	if !strings.Contains(r, "Scale: splits 0, the full training part, the normalized decoder: the groups tuned-seeds (--ensemble 5, --tune budget 3m0s)") ||
		strings.Contains(r, "from the flags") {
		t.Errorf("scale:\n%s", r)
	}
	// No figure: no caption, no tabular.png; a stale one is removed.
	png := filepath.Join(dir, "tabular.png")
	if strings.Contains(r, "tabular.png") {
		t.Errorf("a report without a figure links one:\n%s", r)
	}
	if _, err := os.Stat(png); err == nil {
		t.Error("a tabular.png without points")
	}
	xgb := `{"dataset": "a", "split": 0, "kendall_tau": 0.5}
{"dataset": "b", "split": 0, "kendall_tau": 0.5}
`
	dir, r = tabReport(t, seeds, xgb)
	if !strings.Contains(r, "(--tune --ensemble 5 --ensemble-from seeds) against XGBoost's") {
		t.Errorf("caption of a tuned-seeds journal:\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "tabular.png")); err != nil {
		t.Error(err)
	}
	// A default-only journal with XGBoost's results: the defaults drawn,
	// the caption says so.
	def := []*TabularLine{
		{Meta: Meta{Key: "dataset=a,split=0,group=default"}, Dataset: "a", Split: 0, Group: tabDefault, Scores: map[string]TabScores{"default": sc(0.6, -2)}},
		{Meta: Meta{Key: "dataset=b,split=0,group=default"}, Dataset: "b", Split: 0, Group: tabDefault, Scores: map[string]TabScores{"default": sc(0.4, -4)}},
	}
	dir, r = tabReport(t, def, xgb)
	if !strings.Contains(r, "Figure: [tabular.png](tabular.png): each dataset's Kendall's tau; the decoder's (the defaults) against XGBoost's") || strings.Contains(r, "in colour") {
		t.Errorf("caption of a default-only journal:\n%s", r)
	}
	if row := summaryRow(r, "default"); !strings.HasPrefix(row, "| default | 2 | 2 | 0.5000 | 0.5000 | 1 | -3.000 | -3.000 | 0 |") {
		t.Errorf("default row %s", row)
	}
	// Written from inside the directory (--out .): XGBoost's results are
	// still found beside it ("." has no parent of its own).
	t.Chdir(dir)
	if r2 := rewriteReport(t, ".", def); r2 != r {
		t.Errorf("the report from --out . differs:\n%s", r2)
	}
	// The same directory without XGBoost's results: no figure, and the
	// one the last report drew is removed.
	if err := os.Remove(filepath.Join(filepath.Dir(dir), "xgboost", "results.jsonl")); err != nil {
		t.Fatal(err)
	}
	r = rewriteReport(t, dir, def)
	if strings.Contains(r, "tabular.png") {
		t.Errorf("the report links a figure it did not draw:\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "tabular.png")); !os.IsNotExist(err) {
		t.Errorf("the stale tabular.png is still there: %v", err)
	}
}

// The tuning table does not take a failed tuned-all run's members or
// trials.
func TestTabularTuningFailedLine(t *testing.T) {
	lines := []*TabularLine{
		{Meta: Meta{Key: "dataset=a,split=0,group=tuned"}, Dataset: "a", Split: 0, Group: tabTuned, Trials: 12, Config: decoreg.Config{Ensemble: 5},
			Chosen: []string{"1:defaults (val -1.0000)"}, Scores: map[string]TabScores{"tuned": {KendallTau: 0.5, RelMSE: 0.5}}},
		{Meta: Meta{Key: "dataset=a,split=0,group=tuned-all"}, Dataset: "a", Split: 0, Group: tabTunedAll, Trials: 3, Config: decoreg.Config{Ensemble: 5},
			SeedsChosen: 4, Error: "diverged"},
	}
	_, r := tabReport(t, lines, "")
	if strings.Contains(r, "4 of 4 chosen") || !strings.Contains(r, "| a | 0 | 12 | false | 0, failed | failed | 1:defaults (val -1.0000) | failed |") {
		t.Errorf("tuning table:\n%s", r)
	}
}

// A failed line's cells of the tuning table say "failed": its train
// seconds, a failed tuned line's trials and choice (the trials of a
// tuned-all line that did not fail where there is one), and a split whose
// tuned groups' lines all failed keeps its row.
func TestTabularTuningFailedCells(t *testing.T) {
	line := func(ds string, split int, group string, secs float64, failed bool) *TabularLine {
		l := &TabularLine{Meta: Meta{Key: fmt.Sprintf("dataset=%s,split=%d,group=%s", ds, split, group)}, Dataset: ds, Split: split, Group: group,
			Seconds: secs, Trials: 12, Config: decoreg.Config{Ensemble: 5}, Chosen: []string{"1:defaults (val -1.0000)"}, SeedsChosen: 2}
		switch {
		case failed:
			l.Chosen, l.Error = nil, "diverged"
		case group == tabDefault:
			l.Chosen, l.Trials = nil, 0
			l.Scores = map[string]TabScores{"default": {KendallTau: 0.5, RelMSE: 0.5}}
		case group == tabTuned:
			l.Scores = map[string]TabScores{"tuned": {KendallTau: 0.5, RelMSE: 0.5}}
		default:
			l.Scores = map[string]TabScores{"tuned+all5": {KendallTau: 0.5, RelMSE: 0.5}}
		}
		return l
	}
	lines := []*TabularLine{
		// a: the defaults failed; the tuned line failed, tuned-all did not.
		line("a", 0, tabDefault, 7, true), line("a", 0, tabTuned, 30, true), line("a", 0, tabTunedAll, 40, false),
		// b: every tuned group failed.
		line("b", 0, tabDefault, 5, false), line("b", 0, tabTuned, 30, true), line("b", 0, tabTunedAll, 40, true),
		// c: tuned-all alone, failed.
		line("c", 1, tabTunedAll, 9, true),
	}
	_, r := tabReport(t, lines, "")
	for _, want := range []string{
		"| a | 0 | 12 | false | failed, failed, 40 | 2 of 4 chosen, 0 stopped | failed | 1:defaults (val -1.0000) |",
		"| b | 0 | failed | failed | 5, failed, failed | failed | failed | failed |",
		"| c | 1 | failed | failed | -, -, failed | failed | - | failed |",
	} {
		if !strings.Contains(r, want) {
			t.Errorf("the tuning table lacks\n%s\n%s", want, r)
		}
	}
}

// A journal whose every line failed says so, and its scale quotes no
// setting of a failed run.
func TestTabularReportAllFailed(t *testing.T) {
	lines := []*TabularLine{
		{Meta: Meta{Key: "dataset=a,split=0,group=tuned-all"}, Dataset: "a", Split: 0, Group: tabTunedAll, Budget: 180, Config: decoreg.Config{Ensemble: 5}, Error: "diverged"},
		{Meta: Meta{Key: "dataset=b,split=0,group=tuned-all"}, Dataset: "b", Split: 0, Group: tabTunedAll, Budget: 180, Config: decoreg.Config{Ensemble: 5}, Error: "diverged"},
	}
	dir, r := tabReport(t, lines, "")
	for _, want := range []string{"No run of this journal succeeded: 2 failed lines, see FAILED below.", "Scale: no run succeeded: 2 lines failed (FAILED below).",
		"- FAILED: a split 0 tuned-all: diverged", "- FAILED: b split 0 tuned-all: diverged"} {
		if !strings.Contains(r, want) {
			t.Errorf("the report lacks %q:\n%s", want, r)
		}
	}
	if scale := scaleLine(r); strings.Contains(scale, "--ensemble") || strings.Contains(scale, "budget") {
		t.Errorf("the scale quotes a failed run's settings: %s", scale)
	}
	for _, not := range []string{"## Summary", "tabular.png"} {
		if strings.Contains(r, not) {
			t.Errorf("the report has %q:\n%s", not, r)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "tabular.png")); err == nil {
		t.Error("a figure of no run")
	}
	// One failed of two: the settings of the run that succeeded, and the
	// failure counted.
	lines[1].Error, lines[1].Budget, lines[1].Config.Ensemble = "", 60, 3
	lines[1].Scores = map[string]TabScores{"tuned+all5": {KendallTau: 0.5, RelMSE: 0.5}}
	_, r = tabReport(t, lines, "")
	if !strings.Contains(r, "(--ensemble 3, --tune budget 1m0s), each with --calibrate where >= 20 validation rows; besides, 1 line failed (FAILED below).") ||
		strings.Contains(r, "No run") || strings.Contains(r, "3m0s") {
		t.Errorf("one failed line:\n%s", r)
	}
}

// The lines of a group this build does not know are named, with their
// number, where the journal's groups are, and left out of the rest of
// the report.
func TestTabularReportUnknownGroup(t *testing.T) {
	sc := map[string]TabScores{"default": {KendallTau: 0.5, NLL: 1, RelMSE: 0.5, CRPS: 1, Coverage90: 0.9}}
	lines := []*TabularLine{
		{Meta: Meta{Key: "dataset=a,split=0,group=default"}, Dataset: "a", Split: 0, Group: tabDefault, Scores: sc},
		{Meta: Meta{Key: "dataset=z,split=0,group=tuned-new"}, Dataset: "z", Split: 0, Group: "tuned-new", Budget: 99, Config: decoreg.Config{Ensemble: 7}, Scores: sc},
		{Meta: Meta{Key: "dataset=z,split=1,group=tuned-new"}, Dataset: "z", Split: 1, Group: "tuned-new", Error: "diverged"},
	}
	_, r := tabReport(t, lines, "")
	if !strings.Contains(r, "The journal holds, by group: default: splits 0 of 1 datasets; unknown to this build: tuned-new (2 lines), not reported.") {
		t.Errorf("the journal's groups:\n%s", r)
	}
	if !strings.Contains(r, "Scale: splits 0, the full training part, the normalized decoder: the groups default, each with") {
		t.Errorf("scale:\n%s", r)
	}
	if strings.Contains(r, "| z |") || strings.Contains(r, "FAILED: z") || strings.Contains(r, "--ensemble 7") || !strings.HasPrefix(summaryRow(r, "default"), "| default | 1 | 1 |") {
		t.Errorf("the unknown group's lines are reported:\n%s", r)
	}
	// Only lines of unknown groups.
	_, r = tabReport(t, lines[1:], "")
	if !strings.Contains(r, "No line of this journal is of a group this build reports.") || !strings.Contains(r, "unknown to this build: tuned-new (2 lines)") {
		t.Errorf("a journal of an unknown group:\n%s", r)
	}
}

// A NaN CRPS change (a failed model's CRPS) shows as NaN, as the other
// cells, not "+NaN%".
func TestTabularReportNaNCRPS(t *testing.T) {
	lines := []*TabularLine{
		{Meta: Meta{Key: "dataset=a,split=0,group=default"}, Dataset: "a", Split: 0, Group: tabDefault,
			Scores: map[string]TabScores{"default": {KendallTau: 0.5, NLL: 1, RelMSE: 0.5, CRPS: 1, Coverage90: 0.9}}},
		{Meta: Meta{Key: "dataset=a,split=0,group=ensemble"}, Dataset: "a", Split: 0, Group: tabEnsemble, Config: decoreg.Config{Ensemble: 5},
			Scores: map[string]TabScores{"ensemble5": {KendallTau: 0.5, NLL: 1, RelMSE: 0.5, CRPS: Float(math.NaN()), Coverage90: 0.9}}},
	}
	_, r := tabReport(t, lines, "")
	if row := summaryRow(r, "ensemble5"); !strings.HasSuffix(row, "| NaN |") || strings.Contains(r, "NaN%") {
		t.Errorf("ensemble5's row %q:\n%s", row, r)
	}
}

// Without XGBoost's results, a split of lines that predate
// test_targets_tied where no model's tau or relative MSE is defined is
// tied (tabular-v4's challenger split 2), not a failure; the report says
// XGBoost's results were not found.
func TestTabularTiedWithoutXGBoost(t *testing.T) {
	nan := Float(math.NaN())
	sc := func(tau, rel Float) TabScores {
		return TabScores{KendallTau: tau, NLL: 1, RelMSE: rel, CRPS: 1, Coverage90: 0.9}
	}
	line := func(ds string, split int, group string, scores map[string]TabScores) *TabularLine {
		return &TabularLine{Meta: Meta{Key: fmt.Sprintf("dataset=%s,split=%d,group=%s", ds, split, group)}, Dataset: ds, Split: split, Group: group, Scores: scores}
	}
	lines := []*TabularLine{
		// a: split 1 tied, every model's tau and relative MSE undefined.
		line("a", 0, tabDefault, map[string]TabScores{"default": sc(0.4, 0.5)}),
		line("a", 0, tabTunedAll, map[string]TabScores{"tuned+all5": sc(0.6, 0.5)}),
		line("a", 1, tabDefault, map[string]TabScores{"default": sc(nan, nan)}),
		line("a", 1, tabTunedAll, map[string]TabScores{"tuned+all5": sc(nan, nan)}),
		// b: split 1's NaN tau is the defaults' failure: the tuned
		// ensemble's relative MSE is defined there (the targets vary).
		line("b", 0, tabDefault, map[string]TabScores{"default": sc(0.4, 0.5)}),
		line("b", 1, tabDefault, map[string]TabScores{"default": sc(nan, nan)}),
		line("b", 1, tabTunedAll, map[string]TabScores{"tuned+all5": sc(0.5, 0.5)}),
		// c: a NaN tau where the relative MSE is defined (constant
		// predictions): a failure.
		line("c", 0, tabDefault, map[string]TabScores{"default": sc(0.4, 0.5)}),
		line("c", 1, tabDefault, map[string]TabScores{"default": sc(nan, 1)}),
	}
	tab := tabScores(lines, nil).table()
	for _, c := range []struct {
		v, ds string
		tau   float64
	}{{"default", "a", 0.4}, {"tuned+all5", "a", 0.6}, {"default", "b", math.NaN()}, {"tuned+all5", "b", 0.5}, {"default", "c", math.NaN()}} {
		if got := float64(tab[c.v][c.ds].KendallTau); !sameOrNaN(got, c.tau) {
			t.Errorf("%s of %s: tau %v, want %v", c.v, c.ds, got, c.tau)
		}
	}
	// The report of a alone: the means are defined; XGBoost's results are
	// said not to be found.
	_, r := tabReport(t, lines[:4], "")
	if row := summaryRow(r, "tuned+all5"); !strings.HasPrefix(row, "| tuned+all5 | 1 | 2 | 0.6000 | - | - |") {
		t.Errorf("tuned+all5's row %q:\n%s", row, r)
	}
	const missing = "XGBoost's results (`../xgboost/results.jsonl`) were not found"
	if !strings.Contains(r, missing) {
		t.Errorf("the report does not say XGBoost's results are missing:\n%s", r)
	}
	// With XGBoost's results: no such sentence; a split they hold a tau
	// of is not tied (a legacy NaN there is a failure), one they lack is
	// judged from the journal.
	_, r = tabReport(t, lines[:4], `{"dataset": "a", "split": 0, "kendall_tau": 0.5}
`)
	if strings.Contains(r, missing) || !strings.HasPrefix(summaryRow(r, "tuned+all5"), "| tuned+all5 | 1 | 2 | 0.6000 | 0.5000 | 1 |") {
		t.Errorf("with XGBoost's results:\n%s", r)
	}
	_, r = tabReport(t, lines[:4], `{"dataset": "a", "split": 0, "kendall_tau": 0.5}
{"dataset": "a", "split": 1, "kendall_tau": 0.5}
`)
	if !strings.HasPrefix(summaryRow(r, "tuned+all5"), "| tuned+all5 | 1 | 2 | NaN |") {
		t.Errorf("XGBoost's defined tau of split 1:\n%s", r)
	}
}

// The plan's scale says what the options run: no --tune budget for the
// defaults alone, --quick's budget and ensemble.
func TestTabularPlanScale(t *testing.T) {
	for _, c := range []struct {
		o         Options
		want, not string
	}{
		{Options{Groups: []string{tabDefault}}, "the groups default, each", "budget"},
		{Options{Groups: []string{tabEnsemble}, Quick: true, Seeds: 2}, "splits 0..1, the full training part, the normalized decoder: the groups ensemble (--ensemble 2), each with --calibrate where >= 20 validation rows; --quick", "budget"},
		{Options{Quick: true}, "(--ensemble 2, --tune budget 2s)", "3m0s"},
		{Options{}, "the groups default, ensemble, tuned, tuned-all (--ensemble 5, --tune budget 3m0s)", "quick"},
	} {
		got := tabPlanScale(c.o)
		if !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("%+v: %q; want %q, not %q", c.o, got, c.want, c.not)
		}
	}
}

// Options.Groups chooses the plan's groups; an unknown one is refused.
func TestTabularGroups(t *testing.T) {
	dir := t.TempDir()
	for _, ds := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(dir, ds), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ds, DataFile), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ds, MaskFile), []byte("split0,split1\n1,0\n0,1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tasks, err := TabularTasks(Options{DataDir: dir, Datasets: []string{"a", "b"}, Seeds: 2, Groups: []string{tabDefault, tabTunedAll}})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, k := range tasks {
		keys = append(keys, k.Key)
	}
	want := "dataset=a,split=0,group=default dataset=a,split=0,group=tuned-all dataset=a,split=1,group=default dataset=a,split=1,group=tuned-all " +
		"dataset=b,split=0,group=default dataset=b,split=0,group=tuned-all dataset=b,split=1,group=default dataset=b,split=1,group=tuned-all"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("keys:\n%s\nwant\n%s", got, want)
	}
	if _, err := TabularTasks(Options{DataDir: dir, Datasets: []string{"a"}, Groups: []string{"tuned-al"}}); err == nil || !strings.Contains(err.Error(), `"tuned-al"`) {
		t.Errorf("an unknown group: %v", err)
	}
	// The order of the groups given and a repeated one change nothing.
	tasks, err = TabularTasks(Options{DataDir: dir, Datasets: []string{"a", "b"}, Seeds: 2, Groups: []string{tabTunedAll, tabDefault, tabTunedAll}})
	if err != nil {
		t.Fatal(err)
	}
	keys = keys[:0]
	for _, k := range tasks {
		keys = append(keys, k.Key)
	}
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("keys of tuned-all, default, tuned-all:\n%s\nwant\n%s", got, want)
	}
	// More splits than a dataset has are refused.
	if _, err := TabularTasks(Options{DataDir: dir, Datasets: []string{"a", "b"}, Seeds: 3}); err == nil || !strings.Contains(err.Error(), "--seeds 3") || !strings.Contains(err.Error(), "at most 2") {
		t.Errorf("--seeds 3 of 2 splits: %v", err)
	}
}

// A tau equal to XGBoost's but for the last bit (the same pair counts
// computed in Python and Go) is a tie, not a win.
func TestBeatsTie(t *testing.T) {
	if beats(0.9758349384007261, 0.975834938400726) || beats(1, 1) || !beats(0.8206, 0.8157) || beats(0.8157, 0.8206) {
		t.Error("beats")
	}
}
