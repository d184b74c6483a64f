package experiments

import (
	"compress/gzip"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"decoreg/vocab"
)

func TestTrainSubset(t *testing.T) {
	for _, c := range []struct{ rows, size int }{{100, 10}, {100, 99}, {100, 100}, {100, 500}, {1, 1}, {7, 3}} {
		s := TrainSubset(c.rows, c.size, 42)
		if want := min(c.rows, c.size); len(s) != want {
			t.Errorf("TrainSubset(%d, %d): %d rows, want %d", c.rows, c.size, len(s), want)
		}
		if !sort.IntsAreSorted(s) {
			t.Errorf("not sorted: %v", s)
		}
		for i, v := range s {
			if v < 0 || v >= c.rows || (i > 0 && v == s[i-1]) {
				t.Errorf("TrainSubset(%d, %d): bad or repeated row %d", c.rows, c.size, v)
			}
		}
		if !reflect.DeepEqual(s, TrainSubset(c.rows, c.size, 42)) {
			t.Error("not deterministic")
		}
	}
	if reflect.DeepEqual(TrainSubset(1000, 10, 1), TrainSubset(1000, 10, 2)) {
		t.Error("seeds 1 and 2 gave the same subset")
	}
	// The subset's seed depends on the dataset, the size and the run only,
	// so every head trains on the same rows.
	if s1, s2 := subsetSeed("a", 10, 1), subsetSeed("a", 10, 1); s1 != s2 || s1 == subsetSeed("a", 10, 2) || s1 == subsetSeed("b", 10, 1) {
		t.Error("subsetSeed")
	}
}

// writeDataset writes a UCI-layout dataset of n rows whose first feature is
// the row index, with split k's test rows every 5th row starting at k.
func writeDataset(t *testing.T, dir, name string, n, splits int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	gz := func(file string, body string) {
		f, err := os.Create(filepath.Join(dir, name, file))
		if err != nil {
			t.Fatal(err)
		}
		w := gzip.NewWriter(f)
		w.Write([]byte(body))
		w.Close()
		f.Close()
	}
	var d, m strings.Builder
	d.WriteString("x0,x1,y\n")
	for k := range splits {
		if k > 0 {
			m.WriteString(",")
		}
		fmt.Fprintf(&m, "split%d", k)
	}
	m.WriteString("\n")
	for i := range n {
		fmt.Fprintf(&d, "%d,%g,%g\n", i, math.Sin(float64(i)), float64(i%17)+0.1*math.Cos(float64(i)))
		for k := range splits {
			if k > 0 {
				m.WriteString(",")
			}
			m.WriteString(strconv.Itoa(b2i(i%5 == k)))
		}
		m.WriteString("\n")
	}
	gz(DataFile, d.String())
	gz(MaskFile, m.String())
}

// A run's training subset never holds a test row of its split, and every
// head of a run gets the same rows.
func TestRealSubsetsAvoidTestRows(t *testing.T) {
	dir := t.TempDir()
	writeDataset(t, dir, "toy", 200, 3)
	u := newUCIData(Options{DataDir: dir})
	for split := range 3 {
		tr, te, err := u.split("toy", split)
		if err != nil {
			t.Fatal(err)
		}
		test := map[float64]bool{}
		for i := range te.Rows {
			test[te.X[i*te.Cols]] = true
		}
		for _, size := range []int{10, 64, 1000} {
			for run := range 3 {
				for _, i := range TrainSubset(tr.Rows, size, subsetSeed("toy", size, run)) {
					if id := tr.X[i*tr.Cols]; test[id] || int(id)%5 == split {
						t.Fatalf("split %d: training row %v is a test row", split, id)
					}
				}
			}
		}
	}
	// End to end: the lines of one run record the same training rows for
	// every head.
	tasks, err := RealworldTasks(Options{Quick: true, DataDir: dir, Datasets: []string{"toy"}, Seeds: 2, N: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 2*len(realworldHeads) {
		t.Fatalf("%d tasks", len(tasks))
	}
	if _, err := RealworldTasks(Options{DataDir: dir, Datasets: []string{"missing"}}); err == nil {
		t.Error("a missing dataset was accepted")
	}
}

// Every real-data experiment whose --seeds counts splits refuses more
// than a dataset has, where its runs would repeat a split under another
// key; scaling's --seeds counts training subsets of split 0.
func TestRealSplitsBounded(t *testing.T) {
	dir := t.TempDir()
	writeDataset(t, dir, "toy", 60, 2)
	for _, name := range []string{"realworld", "calibration", "decoder-size", "error-correction", "hamming", "tabular"} {
		e := LookupExperiment(name)
		o := Options{DataDir: dir, Datasets: []string{"toy"}, Seeds: 3}
		want := name + ": --seeds 3: dataset toy has 2 splits (0..1): --seeds is at most 2"
		var ie *InputError
		if err := e.Check(o); err == nil || !errors.As(err, &ie) || err.Error() != want {
			t.Errorf("%s --seeds 3: %v; want the input error %q", name, err, want)
		}
		o.Seeds = 2
		if err := e.Check(o); err != nil {
			t.Errorf("%s --seeds 2: %v", name, err)
		}
	}
	// realworld's default, 10 runs, names itself.
	if err := LookupExperiment("realworld").Check(Options{DataDir: dir, Datasets: []string{"toy"}}); err == nil || !strings.Contains(err.Error(), "--seeds 10 (the default): dataset toy has 2 splits") {
		t.Errorf("realworld's default on 2 splits: %v", err)
	}
	if err := LookupExperiment("scaling").Check(Options{DataDir: dir, Datasets: []string{"toy"}, Seeds: 3}); err != nil {
		t.Errorf("scaling --seeds 3 (subsets of split 0): %v", err)
	}
}

func TestNestedMeans(t *testing.T) {
	samples := [][]float64{{1, 3, 5, 7}, {10, 0, 0, 100}}
	means, med := NestedMeans(samples, []int{1, 2, 4})
	want := [][]float64{{1, 10}, {2, 5}, {4, 27.5}}
	if !reflect.DeepEqual(means, want) || !reflect.DeepEqual(med, []float64{4, 5}) {
		t.Errorf("NestedMeans = %v, %v; want %v, [4 5]", means, med, want)
	}
	// Samples of a repeated tokenization are decoded by a majority vote
	// per position before they are averaged: (1 2 3)(1 9 3)(1 2 3) is
	// 0.123's cell, (4 0 0)(4 0 0)(1 2 3) 0.4's.
	tok, err := vocab.Parse("normalized:base=10,length=3,repeat=3")
	if err != nil {
		t.Fatal(err)
	}
	var dec []float64
	for _, s := range [][]int{{1, 2, 3, 1, 9, 3, 1, 2, 3}, {4, 0, 0, 4, 0, 0, 1, 2, 3}} {
		c, err := tok.Decode(s)
		if err != nil {
			t.Fatal(err)
		}
		dec = append(dec, c.Center)
	}
	means, _ = NestedMeans([][]float64{dec}, []int{2})
	if want := (0.1235 + 0.4005) / 2; !(math.Abs(means[0][0]-want) <= 1e-12) {
		t.Errorf("mean of the voted samples %v = %v, want %v", dec, means[0][0], want)
	}
}

// The report's table is the mean over runs of each (dataset, head),
// recomputed here from the lines.
func TestRealworldReportTable(t *testing.T) {
	var lines []*RealLine
	taus := map[string][]float64{
		"a/" + Pointwise: {0.5, 0.7}, "a/" + Riemann: {0.4, 0.4}, "a/" + DecoderNormalized: {0.8, 0.6}, "a/" + DecoderUnnormalized: {0.65, 0.55},
		"b/" + Pointwise: {0.9}, "b/" + Riemann: {0.95}, "b/" + DecoderNormalized: {0.85}, "b/" + DecoderUnnormalized: {0.9},
	}
	for k, v := range taus {
		ds, h, _ := strings.Cut(k, "/")
		for r, tau := range v {
			l := &RealLine{Dataset: ds, Run: r}
			l.Head, l.KendallTau = h, Float(tau)
			l.Key, l.Experiment = k+strconv.Itoa(r), "realworld"
			lines = append(lines, l)
		}
	}
	dir := t.TempDir()
	if err := RealworldReport(dir, lines, ReportInfo{}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "REPORT.md"))
	report := string(b)
	for _, want := range []string{
		"| a | 0.600 | 0.400 | **0.700** | 0.600 |",
		"| b | 0.900 | **0.950** | 0.850 | 0.900 |",
		"| decoder-normalized | 1 of 2 | 1 of 2 |",
		"| decoder-unnormalized | 0 of 0 | 1 of 2 |",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	for _, f := range []string{"gap.png", "diagonal.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// UsesN marks exactly the experiments whose plans --n changes (the CLI
// refuses --n for the others, which ignored it).
func TestUsesN(t *testing.T) {
	dir := t.TempDir()
	writeDataset(t, dir, "toy", 200, 3)
	for _, e := range All() {
		o := Options{Quick: true, DataDir: dir, Datasets: []string{"toy"}, Threads: 1}
		a, err := e.Keys(o)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		o.N = 37
		b, err := e.Keys(o)
		if err != nil {
			t.Fatalf("%s, N 37: %v", e.Name, err)
		}
		if len(a) == 0 {
			t.Errorf("%s: an empty plan", e.Name)
		}
		if changed := !slices.Equal(a, b); changed != e.UsesN {
			t.Errorf("%s: N changes the plan: %v; UsesN %v", e.Name, changed, e.UsesN)
		}
	}
}
