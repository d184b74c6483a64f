package experiments

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	got, err := xgbTau(path)
	if err != nil {
		t.Fatal(err)
	}
	if got["a"][0] != 0.5 || !math.IsNaN(got["a"][1]) || got["b"][0] != -0.25 {
		t.Errorf("got %v", got)
	}
	means := xgbMeans([]*TabularLine{{Dataset: "a", Split: 0}, {Dataset: "a", Split: 1}, {Dataset: "b", Split: 0}}, got)
	if means["a"] != 0.5 || means["b"] != -0.25 {
		t.Errorf("means %v (NaN splits left out)", means)
	}
	if m, err := xgbTau(filepath.Join(t.TempDir(), "none.jsonl")); err != nil || len(m) != 0 {
		t.Errorf("missing journal: %v, %v", m, err)
	}
	if err := os.WriteFile(path, []byte("{bad\n"), 0o644); err == nil {
		if _, err := xgbTau(path); err == nil {
			t.Error("a bad line was accepted")
		}
	}
}

// The summary compares each variant with XGBoost over the variant's own
// splits and with the defaults over the splits both ran.
func TestSummarizeTabularSplits(t *testing.T) {
	line := func(ds string, split int, group string, scores map[string]TabScores) *TabularLine {
		return &TabularLine{Dataset: ds, Split: split, Group: group, Scores: scores}
	}
	sc := func(tau, nll float64) TabScores {
		return TabScores{KendallTau: Float(tau), NLL: Float(nll), CRPS: 1, Coverage90: 0.9}
	}
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
		line("d", 1, tabTunedAll, map[string]TabScores{"tuned+all5": sc(math.NaN(), 0)}),
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
	// 0.55, would have been one); d: 0.5 against 0.4 on split 0, a win
	// (an undefined tau does not drop the dataset).
	if a.Datasets != 4 || a.Runs != 7 || a.BeatsXGB != 2 || math.Abs(a.MeanTau-(0.5+0.4+0.55+0.5)/4) > 1e-12 || math.Abs(a.XGBMeanTau-(0.6+0.1+0.3+0.4)/4) > 1e-12 {
		t.Errorf("tuned+all5: %+v", a)
	}
	// Against the defaults on split 0 only: NLL 2 against 1 (higher) on a,
	// -1 against 0 on b.
	if a.LowerNLL != 1 || math.Abs(a.MeanNLL-0.5) > 1e-12 || math.Abs(a.DefaultMeanNLL-0.5) > 1e-12 {
		t.Errorf("tuned+all5 against the defaults: %+v", a)
	}
	if d.Runs != 2 || math.Abs(d.XGBMeanTau-0.35) > 1e-12 || d.BeatsXGB != 1 {
		t.Errorf("default: %+v", d)
	}
	var b strings.Builder
	tabSplitTable(&b, tabScores(lines), xgb, []string{"a", "b", "c", "d"}, "tuned+all5", "the tuned ensemble")
	for _, want := range []string{"| a | 0, 1 | 0.700, 0.300 | 0.600, 0.600 | 0.500 | 0.600 |  |", "| b | 0 | 0.400 | 0.100 | 0.400 | 0.100 | yes |",
		"| c | 0, 1 | 0.200, 0.900 | 0.300, NaN | 0.200 | 0.300 |  |", "| d | 0, 1 | 0.500, NaN | 0.400, NaN | 0.500 | 0.400 | yes |", "wins on 2 of 4 datasets (two thirds: 3)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("split table lacks %q:\n%s", want, b.String())
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
}
