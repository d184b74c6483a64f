package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"decoreg/internal/experiments"
	"decoreg/synth"
)

func TestSynthCommand(t *testing.T) {
	out, _ := mustCLI(t, "synth", "--list")
	for _, want := range []string{"bbob:function=Sphere,dim=D", "bbob:function=FonsecaFleming,dim=D", "curve:name=tan",
		"density:name=ring,dim=1", "density:name=modes,dim=1", "density:name=studentt,dim=1", "truncnorm:mean=0.5,std=0.25"} {
		if !strings.Contains(out, want) {
			t.Errorf("synth --list lacks %s:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "bbob:"); n != 24 {
		t.Errorf("synth --list has %d BBOB functions, want 24", n)
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "sphere.csv")
	mustCLI(t, "synth", "bbob:function=Sphere,dim=3", "--n", "50", "--seed", "7", "--out", file)
	rows := readCSV(t, file)
	if got := strings.Join(rows[0], ","); got != "x0,x1,x2,y" || len(rows) != 51 {
		t.Fatalf("header %q, %d lines", got, len(rows))
	}
	for _, r := range rows[1:] {
		s := 0.0
		for _, v := range r[:3] {
			x := fnum(t, v)
			if x < -5 || x > 5 {
				t.Errorf("x %v outside [-5, 5]", x)
			}
			s += x * x
		}
		if y := fnum(t, r[3]); !(math.Abs(y-s) <= 1e-12*math.Max(1, s)) {
			t.Errorf("Sphere(%v) = %v, want %v", r[:3], y, s)
		}
	}
	// The same seed gives the same rows, flags before or after PROBLEM;
	// standard output by default.
	again, _ := mustCLI(t, "synth", "--seed", "7", "--n", "50", "bbob:function=Sphere,dim=3")
	if b, _ := os.ReadFile(file); string(b) != again {
		t.Error("the same seed gave other rows")
	}

	// A density has a logpdf column equal to the truth's.
	out, _ = mustCLI(t, "synth", "density:name=ring", "--n", "20")
	p, _ := synth.New("ring", 1)
	r := csv.NewReader(strings.NewReader(out))
	recs, err := r.ReadAll()
	if err != nil || strings.Join(recs[0], ",") != "x0,y,logpdf" {
		t.Fatalf("density output: %v %q", err, recs[0])
	}
	for _, rec := range recs[1:] {
		x, y, lp := fnum(t, rec[0]), fnum(t, rec[1]), fnum(t, rec[2])
		if want := p.LogPDF([]float64{x}, y); lp != want {
			t.Errorf("logpdf %v, want %v", lp, want)
		}
	}
	out, _ = mustCLI(t, "synth", "truncnorm", "--n", "5")
	if !strings.HasPrefix(out, "y,logpdf\n") || strings.Count(out, "\n") != 6 {
		t.Errorf("truncnorm output:\n%s", out)
	}

	// Bad problems and flags are usage errors that say what is wrong.
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"synth"}, "PROBLEM is required"},
		{[]string{"synth", "bbob:function=Nope,dim=2"}, "Nope"},
		{[]string{"synth", "bbob:function=Sphere"}, "dim"},
		{[]string{"synth", "bbob:function=Sphere,dim=0"}, "dim"},
		{[]string{"synth", "bbob:function=Sphere,dim=2,dim=3"}, "twice"},
		{[]string{"synth", "curve:name=sine,foo=1"}, "unknown key"},
		{[]string{"synth", "nope:x=1"}, "unknown kind"},
		{[]string{"synth", "truncnorm:std=-1"}, "std"},
		{[]string{"synth", "truncnorm:mean=NaN"}, "finite"},
		{[]string{"synth", "curve:name=sine", "--n", "0"}, "--n"},
		{[]string{"synth", "curve:name=sine", "--n", "999999999"}, "--n"},
		{[]string{"synth", "curve:name=sine", "curve:name=abs"}, "one PROBLEM"},
		{[]string{"synth", "--list", "curve:name=sine"}, "--list"},
		{[]string{"synth", "curve:name=sine", "--out", filepath.Join(dir, "missing", "x.csv")}, "--out"},
	} {
		code, _, errs := cli(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.msg) {
			t.Errorf("decoreg %s: exit %d, %q; want 2 and %q", strings.Join(c.args, " "), code, errs, c.msg)
		}
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func fnum(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func journalKeys(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, experiments.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		i := strings.Index(l, `"key":"`)
		if i < 0 {
			t.Fatalf("line without key: %s", l)
		}
		keys = append(keys, l[i+7:i+7+strings.Index(l[i+7:], `"`)])
	}
	sort.Strings(keys)
	return keys
}

// Every synthetic experiment, --quick, end to end: its journal, report and
// figures; a second run adds nothing; two shards give the same runs.
func TestExperimentsQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("trains small models")
	}
	for _, e := range experiments.All() {
		t.Run(e.Name, func(t *testing.T) {
			if e.RealData {
				if _, err := os.Stat(filepath.Join(defaultUCIDir(), "yacht", experiments.DataFile)); err != nil {
					t.Skipf("no UCI data: %v", err)
				}
			}
			dir := t.TempDir()
			one := filepath.Join(dir, "one")
			mustCLI(t, "experiment", e.Name, "--quick", "--out", one)
			keys := journalKeys(t, one)
			if len(keys) == 0 {
				t.Fatal("no results")
			}
			for i := 1; i < len(keys); i++ {
				if keys[i] == keys[i-1] {
					t.Errorf("duplicate run %s", keys[i])
				}
			}
			report, err := os.ReadFile(filepath.Join(one, "REPORT.md"))
			if err != nil || !strings.Contains(string(report), "--quick") {
				t.Errorf("REPORT.md: %v\n%s", err, report)
			}
			pngs, _ := filepath.Glob(filepath.Join(one, "*.png"))
			if len(pngs) == 0 {
				t.Error("no figure")
			}
			for _, p := range pngs {
				if b, err := os.ReadFile(p); err != nil || len(b) < 1000 || string(b[1:4]) != "PNG" {
					t.Errorf("%s is not a PNG (%d bytes, %v)", p, len(b), err)
				}
			}
			_, errs := mustCLI(t, "experiment", e.Name, "--quick", "--out", one)
			if !strings.Contains(errs, "ran 0 runs") || len(journalKeys(t, one)) != len(keys) {
				t.Errorf("a second run ran again:\n%s", errs)
			}
			if !map[string]bool{"risk": true, "realworld": true, "hamming": true, "scaling": true}[e.Name] {
				return // the shards of the cheap ones suffice (and TestJournalShardsPartition)
			}
			two := filepath.Join(dir, "two")
			mustCLI(t, "experiment", e.Name, "--quick", "--shard", "1/2", "--out", two)
			if n := len(journalKeys(t, two)); n != len(keys)/2 {
				t.Errorf("shard 1/2 ran %d of %d", n, len(keys))
			}
			mustCLI(t, "experiment", e.Name, "--quick", "--shard", "0/2", "--out", two)
			if got := journalKeys(t, two); strings.Join(got, " ") != strings.Join(keys, " ") {
				t.Errorf("shards ran %v, one process %v", got, keys)
			}
			mustCLI(t, "experiment", e.Name, "--out", two, "--report-only")
			// The report's scale is the journal's, not the flags' (it was
			// the full plan's, from flags that chose no run).
			if rep := mustRead(t, filepath.Join(two, "REPORT.md")); !strings.Contains(rep, fmt.Sprintf("Scale: the %d runs of results.jsonl (--quick)", len(keys))) {
				t.Errorf("--report-only's scale:\n%.600s", rep)
			}
			if code, _, errs := cli(t, "experiment", e.Name, "--out", two, "--report-only", "--seeds", "3"); code != 2 || !strings.Contains(errs, "--seeds chooses runs") {
				t.Errorf("--report-only --seeds 3: exit %d, %q", code, errs)
			}
		})
	}
}

func TestExperimentErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"experiment"}, "NAME is required"},
		{[]string{"experiment", "nope"}, "unknown experiment"},
		{[]string{"experiment", "risk", "bbob"}, "one experiment"},
		{[]string{"experiment", "risk", "--shard", "2/2"}, "--shard"},
		{[]string{"experiment", "risk", "--threads", "-1"}, "--threads"},
		{[]string{"experiment", "risk", "--n", "-5"}, "--n"},
		{[]string{"experiment", "risk", "--out", dir, "--report-only"}, "no results"},
		{[]string{"experiment", "risk", "--groups", "default"}, "--groups is for the tabular experiment"},
		{[]string{"experiment", "tabular", "--groups", "tuned-al", "--out", dir}, `unknown group "tuned-al"`},
		{[]string{"experiment", "tabular", "--groups", " , ", "--out", dir}, `--groups: " , ": entry 1 is empty`},
		{[]string{"experiment", "risk", "--merge", "--out", "-", dir}, `--out must name a directory, have "-"`},
		{[]string{"experiment", "realworld", "--quick", "--data", "", "--out", dir}, "--data is empty"},
		{[]string{"experiment", "risk", "--data", ""}, "--data is for the real-data experiments, not risk"},
		{[]string{"experiment", "realworld", "--report-only", "--data", "", "--out", dir}, "--data chooses runs"},
		{[]string{"synth", "--out", "", "bbob:function=Sphere,dim=2"}, "--out needs a FILE (or - for standard output), have an empty one"},
		{[]string{"bench", "--cpuprofile", "-", "gemm"}, "a CPU profile is binary"},
		{[]string{"bench", "gemm", "--kernels", ""}, "--kernels is empty"},
	} {
		code, _, errs := cli(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.msg) {
			t.Errorf("decoreg %s: exit %d, %q; want 2 and %q", strings.Join(c.args, " "), code, errs, c.msg)
		}
	}
	// A refused command creates no directory (the default --out is
	// experiments/results/NAME under the working directory).
	if _, err := os.Stat("experiments"); err == nil {
		t.Error("a refused experiment command created ./experiments")
	}
	out, _ := mustCLI(t, "experiment", "--list")
	for _, n := range []string{"risk", "curves", "density", "bbob", "uci"} {
		if !strings.Contains(out, n) {
			t.Errorf("--list lacks %s", n)
		}
	}
}

// reportTables is a report without its provenance line (run times,
// hosts), which differs between runs that computed the same results.
func reportTables(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.Contains(l, "(the sum of the runs' wall times)") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// Shards run into their own directories (as array tasks on machines
// without a shared file system) and merged give the report of one process.
func TestExperimentMerge(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one")
	mustCLI(t, "experiment", "risk", "--quick", "--out", one)
	var shards []string
	for s := range 4 {
		d := filepath.Join(dir, "shard"+strconv.Itoa(s))
		mustCLI(t, "experiment", "risk", "--quick", "--shard", strconv.Itoa(s)+"/4", "--out", d)
		shards = append(shards, d)
	}
	merged := filepath.Join(dir, "merged")
	args := append([]string{"experiment", "risk", "--quick", "--merge", "--out", merged}, shards...)
	_, errs := mustCLI(t, args...)
	if !strings.Contains(errs, "merged 6 new runs") {
		t.Errorf("merge said:\n%s", errs)
	}
	if a, b := reportTables(t, one), reportTables(t, merged); a != b {
		t.Errorf("the merged report differs from one process's:\n%s\n---\n%s", b, a)
	}
	// Merged without --quick, the full plan's scale does not describe
	// the journal: its count of runs does.
	plain := filepath.Join(dir, "plain")
	mustCLI(t, append([]string{"experiment", "risk", "--merge", "--out", plain}, shards...)...)
	if rep := mustRead(t, filepath.Join(plain, "REPORT.md")); !strings.Contains(rep, "Scale: the 6 runs of results.jsonl (--quick). Command: `decoreg experiment risk --quick`.") {
		t.Errorf("the report of quick shards merged without --quick:\n%.600s", rep)
	}
	// Merging again adds nothing; a journal of another experiment is refused.
	_, errs = mustCLI(t, args...)
	if !strings.Contains(errs, "merged 0 new runs") || strings.Contains(errs, "warning") {
		t.Errorf("second merge said:\n%s", errs)
	}
	// The same runs made by another process (other times) are the same
	// runs: no word. A source line of a key already there with other
	// results is left out with a warning naming its key.
	if _, errs = mustCLI(t, "experiment", "risk", "--quick", "--merge", "--out", merged, one); !strings.Contains(errs, "merged 0 new runs") || strings.Contains(errs, "warning") {
		t.Errorf("merging one process's runs said:\n%s", errs)
	}
	src := mustRead(t, filepath.Join(shards[0], experiments.JournalFile))
	first, _, _ := strings.Cut(src, "\n")
	var line map[string]any
	if err := json.Unmarshal([]byte(first), &line); err != nil {
		t.Fatal(err)
	}
	line["commit"] = "0123456789abcdef0123456789abcdef01234567"
	changed, _ := json.Marshal(line)
	edited := filepath.Join(dir, "edited.jsonl")
	if err := os.WriteFile(edited, append(changed, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	before := mustRead(t, filepath.Join(merged, experiments.JournalFile))
	_, errs = mustCLI(t, "experiment", "risk", "--quick", "--merge", "--out", merged, edited)
	if !strings.Contains(errs, "merged 0 new runs") || !strings.Contains(errs, "1 source line(s) of runs already kept") || !strings.Contains(errs, strconv.Quote(line["key"].(string))) {
		t.Errorf("merging a run with other results said:\n%s", errs)
	}
	if after := mustRead(t, filepath.Join(merged, experiments.JournalFile)); after != before {
		t.Error("the journal changed")
	}
	other := filepath.Join(dir, "density")
	mustCLI(t, "experiment", "density", "--quick", "--shard", "0/6", "--out", other)
	if code, _, errs := cli(t, "experiment", "risk", "--merge", "--out", merged, other); code != 2 || !strings.Contains(errs, "not \"risk\"") {
		t.Errorf("merging another experiment: exit %d, %s", code, errs)
	}
	if code, _, errs := cli(t, "experiment", "risk", "--merge", "--out", merged); code != 2 || !strings.Contains(errs, "--merge needs") {
		t.Errorf("merge without sources: exit %d, %s", code, errs)
	}
}

// Review findings: quick runs are not the full plan's; a journal of
// another experiment is refused before anything runs; a failing merge
// appends nothing; duplicate datasets; every run failing exits 1.
func TestExperimentJournalGuards(t *testing.T) {
	dir := t.TempDir()
	r := filepath.Join(dir, "risk")
	mustCLI(t, "experiment", "risk", "--quick", "--out", r)
	keys := journalKeys(t, r)
	for _, k := range keys {
		if !strings.HasSuffix(k, ",quick") {
			t.Errorf("quick run key %s", k)
		}
	}
	// The full plan at the quick runs' N shares none of their keys.
	_, errs := mustCLI(t, "experiment", "risk", "--report-only", "--out", r)
	if !strings.Contains(string(must(os.ReadFile(filepath.Join(r, "REPORT.md")))), "decoreg experiment risk --quick") {
		t.Errorf("the report does not name the command of its runs:\n%s", errs)
	}
	// Another experiment into this directory is refused before it runs.
	before, _ := os.ReadFile(filepath.Join(r, experiments.JournalFile))
	if code, _, errs := cli(t, "experiment", "curves", "--quick", "--out", r); code != 2 || !strings.Contains(errs, `not "curves"`) {
		t.Errorf("curves into risk's directory: exit %d, %s", code, errs)
	}
	// A merge with one bad source appends nothing.
	c := filepath.Join(dir, "curves")
	mustCLI(t, "experiment", "curves", "--quick", "--shard", "0/8", "--out", c)
	m := filepath.Join(dir, "merged")
	if code, _, errs := cli(t, "experiment", "risk", "--merge", "--out", m, r, c); code != 2 {
		t.Errorf("merge with a curves journal: exit %d, %s", code, errs)
	}
	if b, err := os.ReadFile(filepath.Join(m, experiments.JournalFile)); err == nil && len(b) > 0 {
		t.Errorf("a failed merge appended:\n%s", b)
	}
	if after, _ := os.ReadFile(filepath.Join(r, experiments.JournalFile)); string(after) != string(before) {
		t.Error("the refused run changed the journal")
	}
	// --n too small, --shard with --report-only.
	for _, args := range [][]string{
		{"experiment", "risk", "--n", "3", "--out", r},
		{"experiment", "risk", "--report-only", "--shard", "0/2", "--out", r},
	} {
		if code, _, errs := cli(t, args...); code != 2 {
			t.Errorf("%v: exit %d, %s", args, code, errs)
		}
	}
	// Every run failing (constant targets) exits 1.
	data := filepath.Join(dir, "data")
	os.MkdirAll(filepath.Join(data, "flat"), 0o755)
	writeGz(t, filepath.Join(data, "flat", experiments.DataFile), "x0,y\n1,5\n2,5\n3,5\n4,5\n5,5\n6,5\n7,5\n8,5\n9,5\n10,5\n11,5\n12,5\n")
	writeGz(t, filepath.Join(data, "flat", experiments.MaskFile), "split0\n0\n0\n0\n0\n0\n0\n0\n0\n0\n0\n1\n1\n")
	code, _, errs := cli(t, "experiment", "realworld", "--quick", "--data", data, "--datasets", "flat,flat", "--out", filepath.Join(dir, "flat"))
	if code != 1 || !strings.Contains(errs, "every one of the 4 runs failed") {
		t.Errorf("all runs failing: exit %d, %s", code, errs)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestExperimentQuickApart: --quick runs are refused into a journal of full
// runs (and full runs into a --quick one), by a run and by --merge, since
// the report would average them together; --merge copies a line as
// written, fields this build does not know and absent ones included.
func TestExperimentQuickApart(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	os.MkdirAll(full, 0o755)
	committed, err := os.ReadFile("../../experiments/results/risk/results.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(committed), "\n")
	line := strings.TrimSuffix(first, "}") + `,"future_field":7}` + "\n" // a field this build does not know
	os.WriteFile(filepath.Join(full, "results.jsonl"), []byte(line), 0o644)
	if code, _, errs := cli(t, "experiment", "risk", "--quick", "--threads", "1", "--out", full); code != 2 || !strings.Contains(errs, "holds full runs") {
		t.Errorf("--quick into a full journal: exit %d, %q", code, errs)
	}
	quick := filepath.Join(dir, "quick")
	mustCLI(t, "experiment", "risk", "--quick", "--threads", "1", "--out", quick)
	// The mix is named as the merge sees it (it blamed the destination
	// for "--quick runs there", as if it held them).
	if code, _, errs := cli(t, "experiment", "risk", "--merge", "--out", full, quick); code != 2 || !strings.Contains(errs, filepath.Join(full, "results.jsonl")+" holds full runs and "+filepath.Join(quick, "results.jsonl")+" --quick runs") {
		t.Errorf("--merge of quick runs into a full journal: exit %d, %q", code, errs)
	}
	// A journal mixed before the kinds were kept apart is not reported.
	mixed := filepath.Join(dir, "mixed")
	os.MkdirAll(mixed, 0o755)
	q, _ := os.ReadFile(filepath.Join(quick, "results.jsonl"))
	os.WriteFile(filepath.Join(mixed, "results.jsonl"), append([]byte(line), q...), 0o644)
	if code, _, errs := cli(t, "experiment", "risk", "--report-only", "--out", mixed); code != 2 || !strings.Contains(errs, "--quick runs") {
		t.Errorf("--report-only on a mixed journal: exit %d, %q", code, errs)
	}
	merged := filepath.Join(dir, "merged")
	mustCLI(t, "experiment", "risk", "--merge", "--out", merged, full)
	b, err := os.ReadFile(filepath.Join(merged, "results.jsonl"))
	if err != nil || string(b) != line || !strings.Contains(string(b), "future_field") {
		t.Errorf("merged line:\n%s\nwant, as written:\n%s", b, line)
	}
}

// TestExperimentSizesApart: runs of an experiment whose plan trains every
// run on --n points are refused into a journal of runs at another --n
// (by a run, by --merge and by the report), since its report tables one
// size: a second --n into the committed directory replaced the table's
// cells with its own and kept the scale line's count of both.
func TestExperimentSizesApart(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	mustCLI(t, "experiment", "curves", "--quick", "--threads", "1", "--seeds", "1", "--n", "200", "--out", a)
	before, _ := os.ReadFile(filepath.Join(a, "results.jsonl"))
	code, _, errs := cli(t, "experiment", "curves", "--quick", "--threads", "1", "--seeds", "1", "--n", "300", "--out", a)
	if code != 2 || !strings.Contains(errs, "holds --quick runs at n=200") || !strings.Contains(errs, "--quick runs at n=300 there would be reported with them; give them another --out") {
		t.Errorf("--n 300 into a journal of --n 200: exit %d, %q", code, errs)
	}
	if after, _ := os.ReadFile(filepath.Join(a, "results.jsonl")); string(after) != string(before) {
		t.Errorf("the refused run changed the journal")
	}
	mustCLI(t, "experiment", "curves", "--quick", "--threads", "1", "--seeds", "1", "--n", "300", "--out", b)
	if code, _, errs := cli(t, "experiment", "curves", "--merge", "--out", a, b); code != 2 || !strings.Contains(errs, "holds --quick runs at n=200 and "+filepath.Join(b, "results.jsonl")+" --quick runs at n=300") {
		t.Errorf("--merge of --n 300 into --n 200: exit %d, %q", code, errs)
	}
	// A journal mixed before sizes were kept apart is not reported.
	mixed := filepath.Join(dir, "mixed")
	os.MkdirAll(mixed, 0o755)
	nb, _ := os.ReadFile(filepath.Join(b, "results.jsonl"))
	os.WriteFile(filepath.Join(mixed, "results.jsonl"), append(before, nb...), 0o644)
	if code, _, errs := cli(t, "experiment", "curves", "--report-only", "--out", mixed); code != 2 || !strings.Contains(errs, "at n=300") {
		t.Errorf("--report-only on a journal of two sizes: exit %d, %q", code, errs)
	}
	// risk's plan holds several sizes, which its report tables apart.
	mustCLI(t, "experiment", "risk", "--quick", "--threads", "1", "--out", filepath.Join(dir, "risk"))
}

// tabularData writes a dataset "lin" of rows rows (y = 2 x0 + noise-free
// steps) with a mask of two splits under a fresh directory, and returns
// the directory.
func tabularData(t *testing.T, rows int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	var d, m strings.Builder
	d.WriteString("x0,x1,y\n")
	m.WriteString("split0,split1\n")
	for i := range rows {
		x := float64(i) / float64(rows)
		fmt.Fprintf(&d, "%.4f,%.4f,%.4f\n", x, float64(i%7)/7, 2*x+float64(i%3)/10)
		fmt.Fprintf(&m, "%d,%d\n", b2i(i%10 == 0), b2i(i%10 == 1))
	}
	writeGz(t, filepath.Join(dir, "lin", experiments.DataFile), d.String())
	writeGz(t, filepath.Join(dir, "lin", experiments.MaskFile), m.String())
	return dir
}

// TestExperimentDatasetsOrder: the plan does not depend on the order of
// --datasets, so that shards given one list in two orders run every run
// once (they overlapped and left runs out, each exiting 0).
func TestExperimentDatasetsOrder(t *testing.T) {
	data := tabularData(t, 60)
	for _, f := range []string{experiments.DataFile, experiments.MaskFile} {
		b, err := os.ReadFile(filepath.Join(data, "lin", f))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(data, "alt"), 0o755)
		os.WriteFile(filepath.Join(data, "alt", f), b, 0o644)
	}
	out := filepath.Join(t.TempDir(), "out")
	var planned int
	for i, list := range []string{"lin,alt", "alt,lin", "alt,lin"} {
		_, errs := mustCLI(t, "experiment", "realworld", "--quick", "--threads", "1", "--data", data, "--datasets", list, "--shard", fmt.Sprintf("%d/3", i), "--out", out)
		if _, err := fmt.Sscanf(errs[strings.Index(errs, "experiment realworld: "):], "experiment realworld: %d runs in the plan", &planned); err != nil {
			t.Fatalf("%v: %s", err, errs)
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "results.jsonl"))
	if n := strings.Count(string(b), "\n"); planned == 0 || n != planned {
		t.Errorf("3 shards of a plan of %d runs wrote %d", planned, n)
	}
}

// The tabular experiment's flags: refused ones name the flag and leave no
// --out directory; lists are cleaned (trimmed, repeats dropped) and
// recorded so; groups in the plan's order whatever the order given.
func TestExperimentTabularFlags(t *testing.T) {
	data := tabularData(t, 80)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		// What the plan refuses, before --out is created.
		{[]string{"--groups", "default", "--data", data, "--datasets", "nosuchset"}, "nosuchset"},
		{[]string{"--groups", "default", "--data", filepath.Join(dir, "nonexistent")}, "no datasets"},
		{[]string{"--groups", "default", "--data", data, "--seeds", "3"}, "--seeds 3: dataset lin has 2 splits (0..1): --seeds is at most 2"},
		// Empty and blank lists.
		{[]string{"--groups", "default", "--data", data, "--datasets", " , "}, `--datasets: " , ": entry 1 is empty`},
		{[]string{"--groups", "default", "--data", data, "--datasets="}, "--datasets: no dataset named"},
		{[]string{"--groups=", "--data", data}, "--groups: no group named"},
		// --report-only: no journal; flags that choose runs.
		{[]string{"--report-only"}, "no results yet"},
		{[]string{"--report-only", "--groups", "default"}, "--groups chooses runs"},
		{[]string{"--report-only", "--seeds", "2"}, "--seeds chooses runs"},
		{[]string{"--report-only", "--quick"}, "--quick chooses runs"},
		{[]string{"--report-only", "--n", "100"}, "--n chooses runs"},
		{[]string{"--report-only", "--datasets", "lin"}, "--datasets chooses runs"},
		// An empty --out (it wrote under experiments/results/NAME).
		{[]string{"--groups", "default", "--data", data, "--out", ""}, "--out must name a directory"},
		// --n, which tabular's runs do not use (it was ignored).
		{[]string{"--groups", "default", "--data", data, "--n", "100"}, "--n is not used by the tabular experiment"},
		// --merge of a source that does not exist.
		{[]string{"--merge", filepath.Join(dir, "nonexistent")}, "--merge"},
	} {
		args := append([]string{"experiment", "tabular", "--out", out}, c.args...)
		code, _, errs := cli(t, args...)
		if code != 2 || !strings.Contains(errs, c.msg) {
			t.Errorf("decoreg %s: exit %d, %q; want 2 and %q", strings.Join(args, " "), code, errs, c.msg)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("decoreg %s created --out", strings.Join(args, " "))
			os.RemoveAll(out)
		}
	}
	// --list=false is no --list (and not passed on to bench uci, which has
	// none); a value that is not a boolean is refused.
	if code, _, errs := cli(t, "experiment", "--list=false", "uci", "--out", filepath.Join(dir, "uci"), "--datasets", "nosuchset"); code != 2 || !strings.Contains(errs, "nosuchset") {
		t.Errorf("--list=false uci: exit %d, %q", code, errs)
	}
	if code, _, errs := cli(t, "experiment", "--list=maybe", "uci"); code != 2 || !strings.Contains(errs, `invalid boolean value "maybe" for -list`) {
		t.Errorf("--list=maybe uci: exit %d, %q", code, errs)
	}
	for _, c := range []struct {
		args []string
		set  bool
	}{
		{[]string{"--list"}, true}, {[]string{"-list=1"}, true}, {[]string{"--list=false", "uci"}, false},
		{[]string{"--out", "--list", "uci"}, false}, {[]string{"uci", "--quick", "--list"}, true}, {[]string{"--", "--list"}, false},
	} {
		if set, err := listSet(&cmdExperiment.Flag, c.args); err != nil || set != c.set {
			t.Errorf("listSet(%q) = %v, %v; want %v", c.args, set, err, c.set)
		}
	}
	for _, args := range [][]string{{"--list", "scaling"}, {"--list", "uci"}, {"uci", "--list"}, {"-list=true", "uci"}} {
		// uci is bench uci's, which has no --list: refused here as for the others.
		if code, _, errs := cli(t, append([]string{"experiment"}, args...)...); code != 2 || !strings.Contains(errs, "--list takes no NAME") {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
	if testing.Short() {
		return
	}
	// A run records the cleaned lists; the groups in the plan's order.
	mustCLI(t, "experiment", "tabular", "--quick", "--out", out, "--data", data, "--datasets", " lin, lin", "--groups", "ensemble, default,ensemble")
	b, err := os.ReadFile(filepath.Join(out, experiments.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	want := `"command":"decoreg experiment tabular --datasets lin --quick --data ` + data + ` --groups default,ensemble"`
	if strings.Count(string(b), want) != 2 || !strings.Contains(string(b), `"test_targets_tied":false`) {
		t.Errorf("journal:\n%s\nwant twice %s", b, want)
	}
	keys := journalKeys(t, out)
	if got := strings.Join(keys, " "); got != "dataset=lin,split=0,group=default,quick dataset=lin,split=0,group=ensemble,quick" {
		t.Errorf("keys %s", got)
	}
	// The report's scale is the journal's.
	_, errs := mustCLI(t, "experiment", "tabular", "--out", out, "--report-only")
	r, err := os.ReadFile(filepath.Join(out, "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r), "Scale: splits 0, the full training part, the normalized decoder: the groups default, ensemble (--ensemble 2), each with --calibrate where >= 20 validation rows; --quick.") {
		t.Errorf("report (%s):\n%s", errs, r)
	}
}

// Every real-data experiment over splits refuses --seeds above a
// dataset's splits, as the help says, before --out is made.
func TestExperimentSeedsAboveSplits(t *testing.T) {
	data := tabularData(t, 80)
	out := filepath.Join(t.TempDir(), "out")
	for _, name := range []string{"realworld", "calibration", "decoder-size", "error-correction", "hamming", "tabular"} {
		args := []string{"experiment", name, "--out", out, "--data", data, "--datasets", "lin", "--seeds", "3"}
		code, _, errs := cli(t, args...)
		if want := name + ": --seeds 3: dataset lin has 2 splits (0..1): --seeds is at most 2"; code != 2 || !strings.Contains(errs, want) {
			t.Errorf("decoreg %s: exit %d, %q; want 2 and %q", strings.Join(args, " "), code, errs, want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("decoreg %s created --out", strings.Join(args, " "))
			os.RemoveAll(out)
		}
	}
	help, _ := mustCLI(t, "help", "experiment")
	if !strings.Contains(strings.Join(strings.Fields(help), " "), "(splits 0..S-1, at most a dataset's number of splits: 10 for the UCI sets; for scaling, the number of random training subsets of split 0)") {
		t.Errorf("help:\n%s", help)
	}
}

// A tabular run whose split leaves at least 20 validation rows scores the
// model calibrated by --calibrate ("+cal") and by the isotonic objective on
// the same rows ("+iso"), and the report's tables have both columns.
func TestTabularIsotonicVariant(t *testing.T) {
	if testing.Short() {
		t.Skip("trains")
	}
	data := tabularData(t, 300)
	out := filepath.Join(t.TempDir(), "out")
	mustCLI(t, "experiment", "tabular", "--quick", "--out", out, "--data", data, "--datasets", "lin", "--groups", "default")
	b, err := os.ReadFile(filepath.Join(out, experiments.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	var l experiments.TabularLine
	if err := json.Unmarshal(bytes.TrimSpace(b), &l); err != nil {
		t.Fatal(err)
	}
	iso, ok := l.Scores["default+iso"]
	c, okc := l.Scores["default+cal"]
	if !ok || !okc || !l.Calibrated {
		t.Fatalf("scores %v (calibrated %v): want default+cal and default+iso", l.Scores, l.Calibrated)
	}
	if cv := float64(iso.Coverage90); !(cv >= 0 && cv <= 1) || math.IsNaN(float64(iso.NLL)) || math.IsNaN(float64(iso.KendallTau)) || iso == c {
		t.Errorf("default+iso %+v against default+cal %+v: want a coverage in [0, 1], an NLL, a tau, and scores of their own", iso, c)
	}
	r, err := os.ReadFile(filepath.Join(out, "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r), "| dataset | XGBoost | default | default+cal | default+iso |") || strings.Contains(string(r), "tuned+all5+iso") {
		t.Errorf("report's tau table: want the present variants only:\n%s", r)
	}
}

// TestExperimentRefusedMergeMakesNoDir: a refused --merge leaves no
// empty --out behind; "experiment --flags uci" is bench uci's, as
// "experiment uci" is.
func TestExperimentRefusedMergeMakesNoDir(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "results.jsonl"), []byte(`{"experiment":"bbob","key":"a"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, _, errs := cli(t, "experiment", "risk", "--merge", "--out", out, src)
	if code != 2 || !strings.Contains(errs, `not "risk"`) {
		t.Errorf("merge of another experiment: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("the refused merge left %s", out)
	}
	code, _, errs = cli(t, "experiment", "--out", out, "uci", "--jobs", "0")
	if code != 2 || !strings.Contains(errs, "bench uci: --jobs") {
		t.Errorf("experiment --out DIR uci: exit %d, %q", code, errs)
	}
}

// --report-only reads a write-protected journal (it only reads it), and
// says which lines it leaves out: a last line cut off, a run repeated
// with other results.
func TestExperimentReportOnlyJournal(t *testing.T) {
	r := filepath.Join(t.TempDir(), "risk")
	mustCLI(t, "experiment", "risk", "--quick", "--out", r)
	path := filepath.Join(r, experiments.JournalFile)
	b := must(os.ReadFile(path))
	first, _, _ := strings.Cut(string(b), "\n")
	changed := strings.Replace(first, `"key":`, `"extra":1,"key":`, 1)
	if changed == first {
		t.Fatalf("no key in %q", first)
	}
	// The first line again with another result, then a line cut off.
	if err := os.WriteFile(path, []byte(string(b)+changed+"\n"+first[:len(first)/2]), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	_, errs := mustCLI(t, "experiment", "risk", "--report-only", "--out", r)
	for _, w := range []string{"ends in a partial line (a run cut off), which the report leaves out", "1 run(s) appear on more than one line with different results"} {
		if !strings.Contains(errs, w) {
			t.Errorf("--report-only's warnings %q lack %q", errs, w)
		}
	}
}

// A shard of no runs (more shards than the plan's runs, an array job
// sized for another plan) has nothing to do: exit 0, no report.
func TestExperimentEmptyShard(t *testing.T) {
	r := filepath.Join(t.TempDir(), "risk")
	_, errs := mustCLI(t, "experiment", "risk", "--quick", "--shard", "999/1000", "--out", r)
	if !strings.Contains(errs, "shard 999/1000 holds none of the plan's") {
		t.Errorf("an empty shard: %q", errs)
	}
	if _, err := os.Stat(filepath.Join(r, "REPORT.md")); err == nil {
		t.Error("an empty shard wrote a report")
	}
	// Beside another shard's line cut off by a crash: still nothing to do.
	if err := os.WriteFile(filepath.Join(r, experiments.JournalFile), []byte(`{"experiment":"risk","key":"x`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := cli(t, "experiment", "risk", "--quick", "--shard", "999/1000", "--out", r); code != 0 || !strings.Contains(errs, "nothing to do") {
		t.Errorf("an empty shard beside a cut-off line: exit %d, %q", code, errs)
	}
}

// TestExperimentMergeEdges: a destination ending in a partial line is cut
// with a warning (silently before); sources without a run are one error,
// and leave no directory (it said "merged 0 new runs" into a journal it
// never made, then failed); the flags that choose runs are taken but
// said to choose none (they were silently ignored).
func TestExperimentMergeEdges(t *testing.T) {
	dir := t.TempDir()
	var shards []string
	for s := range 2 {
		d := filepath.Join(dir, "shard"+strconv.Itoa(s))
		mustCLI(t, "experiment", "risk", "--quick", "--threads", "1", "--shard", strconv.Itoa(s)+"/2", "--out", d)
		shards = append(shards, d)
	}
	dst := filepath.Join(dir, "dst")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	j0 := mustRead(t, filepath.Join(shards[0], experiments.JournalFile))
	j1 := mustRead(t, filepath.Join(shards[1], experiments.JournalFile))
	if err := os.WriteFile(filepath.Join(dst, experiments.JournalFile), []byte(j0+j1[:40]), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs := mustCLI(t, "experiment", "risk", "--merge", "--out", dst, shards[1])
	if want := "ended in a partial line (a run cut off), which was cut before the lines merged"; !strings.Contains(errs, want) || !strings.Contains(errs, "merged 3 new runs") {
		t.Errorf("stderr %q lacks %q", errs, want)
	}
	if got := mustRead(t, filepath.Join(dst, experiments.JournalFile)); got != j0+j1 {
		t.Errorf("the journal:\n%s\nwant\n%s", got, j0+j1)
	}
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	os.WriteFile(filepath.Join(empty, experiments.JournalFile), nil, 0o644)
	out := filepath.Join(dir, "out")
	code, _, errs := cli(t, "experiment", "risk", "--merge", "--out", out, empty)
	if code != 2 || !strings.Contains(errs, "--merge: the sources hold no runs") || strings.Contains(errs, "merged 0") {
		t.Errorf("an empty source: exit %d, %q", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("the refused merge left %s", out)
	}
	_, errs = mustCLI(t, "experiment", "risk", "--merge", "--quick", "--seeds", "2", "--out", out, shards[0], shards[1])
	if want := "--quick, --seeds choose no runs with --merge: every source line is merged and reported"; !strings.Contains(errs, want) {
		t.Errorf("stderr %q lacks %q", errs, want)
	}
}

// TestExperimentUCIForeignFlags: experiment uci is bench uci; the other
// experiments' flags it lacks are refused as experiment's, with bench
// uci's way to the same end (bench uci's "flag provided but not defined"
// named a command the user had not typed).
func TestExperimentUCIForeignFlags(t *testing.T) {
	for fl, want := range map[string]string{
		"--quick": "which has no --quick: a small run is --datasets and --splits", "--seeds=2": "which has no --seeds: its splits are --splits",
		"--report-only": "'decoreg bench report RESULTS'", "--merge": "which has no --merge",
	} {
		code, _, errs := cli(t, "experiment", "uci", fl)
		if code != 2 || !strings.Contains(errs, "decoreg experiment: uci is 'decoreg bench uci'") || !strings.Contains(errs, want) {
			t.Errorf("%s: exit %d, %q lacks %q", fl, code, errs, want)
		}
	}
}

// TestExperimentFigureChecked: a figure of the report that cannot be
// replaced (here a directory of its name) is refused before the runs, not
// after them.
func TestExperimentFigureChecked(t *testing.T) {
	out := t.TempDir()
	os.Mkdir(filepath.Join(out, "tree.png"), 0o755)
	code, _, errs := cli(t, "experiment", "risk", "--quick", "--threads", "1", "--out", out)
	if code != 2 || !strings.Contains(errs, "tree.png: is a directory (the report's figures are written there)") {
		t.Errorf("exit %d, %q", code, errs)
	}
	if _, err := os.Stat(filepath.Join(out, "results.jsonl")); err == nil {
		t.Errorf("runs were made before the refusal")
	}
	// Other files are not the report's: a directory named mine.png (it
	// refused every experiment into that --out).
	other := t.TempDir()
	os.Mkdir(filepath.Join(other, "mine.png"), 0o755)
	if code, _, errs := cli(t, "experiment", "risk", "--quick", "--threads", "1", "--out", other); code != 0 {
		t.Errorf("beside mine.png: exit %d, %q", code, errs)
	}
}

// Every experiment's report writes the figures it declares
// (Experiment.Figures, which the pre-check of --out looks at): the
// committed results of each experiment hold exactly those.
func TestExperimentFiguresDeclared(t *testing.T) {
	for _, e := range experiments.All() {
		dir := filepath.Join("..", "..", "experiments", "results", e.Name)
		if _, err := os.Stat(filepath.Join(dir, "REPORT.md")); err != nil {
			t.Errorf("%s: no committed report: %v", e.Name, err)
			continue
		}
		pngs, _ := filepath.Glob(filepath.Join(dir, "*.png"))
		var have []string
		for _, p := range pngs {
			have = append(have, filepath.Base(p))
		}
		want := append([]string(nil), e.Figures...)
		sort.Strings(have)
		sort.Strings(want)
		if !reflect.DeepEqual(have, want) {
			t.Errorf("%s: the report wrote %v, the experiment declares %v", e.Name, have, want)
		}
	}
}

// TestExperimentMergeEmptyShard: a shard's directory without a journal (its
// shard held no runs) and an empty journal are merged as no runs, and
// named; a file that does not exist is still an error.
func TestExperimentMergeEmptyShard(t *testing.T) {
	dir := t.TempDir()
	s0, s1, empty, all := filepath.Join(dir, "s0"), filepath.Join(dir, "s1"), filepath.Join(dir, "e.jsonl"), filepath.Join(dir, "all")
	mustCLI(t, "experiment", "risk", "--quick", "--threads", "1", "--out", s0)
	os.Mkdir(s1, 0o755)
	os.WriteFile(empty, nil, 0o644)
	_, errs := mustCLI(t, "experiment", "risk", "--merge", "--out", all, s0, s1, empty)
	if !strings.Contains(errs, "--merge: 2 source(s) hold no runs: "+s1+", "+empty) {
		t.Errorf("merge with an empty shard: %q", errs)
	}
	if code, _, errs := cli(t, "experiment", "risk", "--merge", "--out", all, filepath.Join(dir, "none.jsonl")); code != 2 || !strings.Contains(errs, "none.jsonl") {
		t.Errorf("merge of a missing file: exit %d, %q", code, errs)
	}
}

// TestExperimentDataApart: a run records its dataset's fingerprint, and
// runs on other files of a dataset (another --data) are refused into its
// journal, by a run and by --merge; a line written before fingerprints is
// taken as made on the default data directory's files. --data is in the
// recorded command. Before, the second --data's runs were skipped or
// added beside the first's and averaged with them in one cell.
func TestExperimentDataApart(t *testing.T) {
	a := tabularData(t, 60)
	// b: lin with its targets 1000 times larger, the same mask.
	b := filepath.Join(t.TempDir(), "data")
	var d strings.Builder
	d.WriteString("x0,x1,y\n")
	for i := range 60 {
		x := float64(i) / 60
		fmt.Fprintf(&d, "%.4f,%.4f,%.4f\n", x, float64(i%7)/7, 1000*(2*x+float64(i%3)/10))
	}
	writeGz(t, filepath.Join(b, "lin", experiments.DataFile), d.String())
	mask, _ := os.ReadFile(filepath.Join(a, "lin", experiments.MaskFile))
	os.WriteFile(filepath.Join(b, "lin", experiments.MaskFile), mask, 0o644)
	dir := t.TempDir()
	oa, ob := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	mustCLI(t, "experiment", "realworld", "--quick", "--datasets", "lin", "--threads", "1", "--data", a, "--out", oa)
	journal, _ := os.ReadFile(filepath.Join(oa, "results.jsonl"))
	fpA, fpB := experiments.DataFingerprint(a, "lin"), experiments.DataFingerprint(b, "lin")
	if len(fpA) != 16 || fpA == fpB || strings.Count(string(journal), `"data":"`+fpA+`"`) != strings.Count(string(journal), "\n") ||
		!strings.Contains(string(journal), `--data `+a) {
		t.Fatalf("fingerprints %q %q; journal:\n%s", fpA, fpB, journal)
	}
	code, _, errs := cli(t, "experiment", "realworld", "--quick", "--datasets", "lin", "--threads", "1", "--data", b, "--out", oa)
	if code != 2 || !strings.Contains(errs, "holds runs of dataset lin made on other files than "+filepath.Join(b, "lin")+"'s") {
		t.Errorf("--data b into a's journal: exit %d, %q", code, errs)
	}
	mustCLI(t, "experiment", "realworld", "--quick", "--datasets", "lin", "--threads", "1", "--data", b, "--out", ob)
	code, _, errs = cli(t, "experiment", "realworld", "--merge", "--out", oa, ob)
	if code != 2 || !strings.Contains(errs, "hold runs of dataset lin made on different files (data "+fpA+" and "+fpB) {
		t.Errorf("--merge of b's runs into a's: exit %d, %q", code, errs)
	}
	if after, _ := os.ReadFile(filepath.Join(oa, "results.jsonl")); string(after) != string(journal) {
		t.Errorf("a refused run or merge changed the journal")
	}

	// A line from before fingerprints: made on the default directory's
	// files, here the committed realworld runs of yacht.
	def := defaultUCIDir()
	if experiments.DataFingerprint(def, "yacht") == "" {
		t.Skipf("no yacht in %s", def)
	}
	committed, err := os.ReadFile("../../experiments/results/realworld/results.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var old []string
	for _, l := range strings.Split(string(committed), "\n") {
		if strings.Contains(l, `"dataset=yacht,`) && !strings.Contains(l, `"data":`) {
			old = append(old, l)
		}
	}
	if len(old) == 0 {
		t.Fatal("no committed yacht runs without a fingerprint")
	}
	oc := filepath.Join(dir, "c")
	os.MkdirAll(oc, 0o755)
	os.WriteFile(filepath.Join(oc, "results.jsonl"), []byte(strings.Join(old, "\n")+"\n"), 0o644)
	other := filepath.Join(t.TempDir(), "data")
	os.MkdirAll(filepath.Join(other, "yacht"), 0o755)
	for _, f := range []string{experiments.DataFile, experiments.MaskFile} {
		raw, _ := os.ReadFile(filepath.Join(def, "yacht", f))
		if f == experiments.DataFile {
			raw = append(raw[:len(raw):len(raw)], raw...)
		}
		os.WriteFile(filepath.Join(other, "yacht", f), raw, 0o644)
	}
	code, _, errs = cli(t, "experiment", "realworld", "--datasets", "yacht", "--threads", "1", "--data", other, "--out", oc)
	if code != 2 || !strings.Contains(errs, "a run recorded before runs noted their data, so taken as made on "+filepath.Join(def, "yacht")+"'s, the default") {
		t.Errorf("--data other into a journal of runs before fingerprints: exit %d, %q", code, errs)
	}
}

// TestExperimentUCIDefaultOut: experiment uci writes to
// experiments/results/uci without --out, as every experiment to
// experiments/results/NAME (bench uci, which has no default, refused it).
func TestExperimentUCIDefaultOut(t *testing.T) {
	data := t.TempDir()
	writeUCIFixture(t, data, "d", 40, 3)
	t.Chdir(t.TempDir())
	mustCLI(t, "experiment", "uci", "--data", data, "--splits", "0", "--heads", "mdn", "--max-epochs", "1", "--enc-width", "8", "--threads", "1")
	if _, err := experiments.ReadResult(experiments.ResultPath(filepath.Join("experiments", "results", "uci"), "d", "mdn", 0)); err != nil {
		t.Error(err)
	}
}

// TestExperimentCommandQuoted: the recorded command quotes a --data path
// that a shell would split, so that it reproduces the runs.
func TestExperimentCommandQuoted(t *testing.T) {
	src := tabularData(t, 60)
	data := filepath.Join(t.TempDir(), "my data")
	if err := os.Rename(src, data); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	mustCLI(t, "experiment", "realworld", "--quick", "--datasets", "lin", "--threads", "1", "--data", data, "--out", out)
	b, _ := os.ReadFile(filepath.Join(out, "results.jsonl"))
	if want := `--data '` + data + `'`; !strings.Contains(string(b), want) {
		t.Errorf("journal lacks %s:\n%s", want, b)
	}
}

// TestExperimentReportOverInput: a report or figure that is, through a
// link, the experiment's journal (existing, or made by the run: a dangling
// link to it), a --merge source's journal, or another of its outputs is
// refused before anything is written; the journal was overwritten by the
// report or a PNG, losing its runs.
func TestExperimentReportOverInput(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	mustCLI(t, "experiment", "risk", "--quick", "--threads", "1", "--shard", "0/6", "--out", src)
	journal := mustRead(t, filepath.Join(src, "results.jsonl"))
	link := func(d, name, target string) string {
		t.Helper()
		os.MkdirAll(filepath.Join(dir, d), 0o755)
		if err := os.Symlink(target, filepath.Join(dir, d, name)); err != nil {
			t.Skipf("symlink: %v", err)
		}
		return filepath.Join(dir, d)
	}
	ro := link("ro", "REPORT.md", "results.jsonl")
	if err := os.WriteFile(filepath.Join(ro, "results.jsonl"), []byte(journal), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--report-only", "--out", ro}, "REPORT.md is the same file as its journal"},
		{[]string{"--quick", "--threads", "1", "--shard", "0/6", "--out", link("new", "risk.png", "results.jsonl")}, "risk.png is the same file as its journal"},
		{[]string{"--quick", "--threads", "1", "--shard", "0/6", "--out", link("twice", "risk.png", "tree.png")}, "tree.png and " + filepath.Join(dir, "twice", "risk.png") + " are the same file"},
		{[]string{"--merge", "--out", link("merged", "REPORT.md", filepath.Join(src, "results.jsonl")), src}, "REPORT.md is the same file as the --merge source " + src},
	} {
		code, _, errs := cli(t, append([]string{"experiment", "risk"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
	if got := mustRead(t, filepath.Join(src, "results.jsonl")); got != journal {
		t.Errorf("the --merge source's journal changed")
	}
	if got := mustRead(t, filepath.Join(ro, "results.jsonl")); got != journal {
		t.Errorf("the journal under a linked REPORT.md changed")
	}
	for _, d := range []string{"new", "twice"} {
		if _, err := os.Stat(filepath.Join(dir, d, "results.jsonl")); err == nil {
			t.Errorf("%s: runs were made before the refusal", d)
		}
	}
	// Through a linked directory and "..", which the kernel takes after
	// the link (a text's cleaning of the path took it before): lnk/../..
	// is two levels above lnk's target.
	os.MkdirAll(filepath.Join(dir, "deep", "a", "b"), 0o755)
	dd := link("dotdot", "lnk", filepath.Join(dir, "deep", "a", "b"))
	os.Symlink("lnk/../../../dotdot/results.jsonl", filepath.Join(dd, "REPORT.md"))
	if code, _, errs := cli(t, "experiment", "risk", "--quick", "--threads", "1", "--shard", "0/6", "--out", dd); code != 2 || !strings.Contains(errs, "REPORT.md is the same file as its journal") {
		t.Errorf("a link through a linked directory and ..: exit %d, %q", code, errs)
	}
	// And one whose ".." leads elsewhere than the text says is allowed.
	ok := link("elsewhere", "lnk", filepath.Join(dir, "deep", "a", "b"))
	os.Symlink("lnk/../results.jsonl", filepath.Join(ok, "REPORT.md"))
	if code, _, errs := cli(t, "experiment", "risk", "--quick", "--threads", "1", "--shard", "0/6", "--out", ok); code != 0 {
		t.Errorf("a link to deep/a/results.jsonl: exit %d, %q", code, errs)
	}
	// A hard link is replaced as a name (the report is written
	// atomically): the journal keeps its runs, and it is not refused.
	hl := filepath.Join(dir, "hl")
	os.Mkdir(hl, 0o755)
	os.WriteFile(filepath.Join(hl, "results.jsonl"), []byte(journal), 0o644)
	if err := os.Link(filepath.Join(hl, "results.jsonl"), filepath.Join(hl, "REPORT.md")); err != nil {
		t.Skipf("hard link: %v", err)
	}
	if code, _, errs := cli(t, "experiment", "risk", "--report-only", "--out", hl); code != 0 || mustRead(t, filepath.Join(hl, "results.jsonl")) != journal {
		t.Errorf("a hard-linked REPORT.md: exit %d, %q, or the journal changed", code, errs)
	}
}

// TestExperimentReportIntoData: a real-data experiment's report linked
// into the data directory is refused: writing it would replace a dataset.
func TestExperimentReportIntoData(t *testing.T) {
	data := tabularData(t, 80)
	out := t.TempDir()
	os.WriteFile(filepath.Join(out, "results.jsonl"), nil, 0o644)
	if err := os.Symlink(filepath.Join(data, "lin", "data.csv.gz"), filepath.Join(out, "REPORT.md")); err != nil {
		t.Skipf("symlink: %v", err)
	}
	before := mustRead(t, filepath.Join(data, "lin", "data.csv.gz"))
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "results.jsonl"), nil, 0o644)
	code, _, errs := cli(t, "experiment", "realworld", "--data", data, "--merge", "--out", out, src)
	if code != 2 || !strings.Contains(errs, "REPORT.md leads into the data directory "+data) {
		t.Errorf("exit %d, %q", code, errs)
	}
	if mustRead(t, filepath.Join(data, "lin", "data.csv.gz")) != before {
		t.Errorf("the dataset changed")
	}
}
