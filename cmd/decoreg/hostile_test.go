package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"decoreg"
	"decoreg/internal/experiments"
	"decoreg/internal/modelfile"
)

// Regression tests of the problems a hostile-user review of the command
// line found (issue 10, CLI part 2): TestHn... is problem n.

// wantUsage runs decoreg with args and checks that it exits with status 2
// and that its message holds every one of want.
func wantUsage(t *testing.T, args []string, want ...string) string {
	t.Helper()
	code, _, errs := cli(t, args...)
	if code != 2 {
		t.Errorf("decoreg %s: exit %d, want 2; stderr: %s", strings.Join(args, " "), code, errs)
	}
	for _, w := range want {
		if !strings.Contains(errs, w) {
			t.Errorf("decoreg %s: message %q does not say %q", strings.Join(args, " "), errs, w)
		}
	}
	return errs
}

// TestH1BenchMemoryCaps: sizes that need more memory than a benchmark may
// use are refused (exit 2, naming the flag) before anything is allocated,
// including sizes whose products overflow int.
func TestH1BenchMemoryCaps(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"gemm", "--sizes", "4000000000x4000000000x4000000000"}, "-sizes"},
		{[]string{"gemm", "--sizes", "100000x100000x100000"}, "-sizes"},
		{[]string{"gemm", "--sizes", "4294967296x4294967296x1"}, "-sizes"},
		{[]string{"gemm", "--sizes", "8x8x8,1x1x2000000000"}, "-sizes"},
		{[]string{"sample", "--samples", "2000000000"}, "--samples"},
		{[]string{"sample", "--inputs", "2000000000"}, "--inputs"},
		{[]string{"sample", "--quantiles", "2000000000"}, "--quantiles"},
		{[]string{"train", "--batch", "2000000000"}, "--batch"},
		{[]string{"train", "--dec-width", "40000", "--batch", "1"}, "--dec-width"},
	} {
		wantUsage(t, append([]string{"bench"}, c.args...), c.flag, "GiB")
	}
}

// TestH7BenchFlagErrors: the benchmarks' flag errors name the flag, and
// --threads 0 means every core, as in train.
func TestH7BenchFlagErrors(t *testing.T) {
	for _, f := range []string{"batch-size", "max-epochs", "patience", "threads", "enc-width"} {
		wantUsage(t, []string{"bench", "uci", "--out", t.TempDir(), "--" + f, "-1"}, "--"+f)
	}
	wantUsage(t, []string{"bench", "train", "--dec-width", "3", "--heads", "2"}, "--dec-width 3", "--heads 2")
	var tr trainBenchResult
	runBenchJSON(t, &tr, "bench", "train", "--threads", "0", "--steps", "1", "--repeats", "1", "--warmup", "0", "--batch", "2", "--enc-width", "8")
	if tr.Threads < 1 {
		t.Errorf("bench train --threads 0: threads %d", tr.Threads)
	}
	var o, e bytes.Buffer
	saved := stdout
	stdout = &o
	code := run([]string{"bench", "gemm", "-repeat", "1", "-min-time", "0", "-sizes", "4x4x4", "-threads", "0", "-kernels", "purego"}, &e)
	stdout = saved
	if code != 0 || !strings.Contains(o.String(), `"threads":`) || strings.Contains(o.String(), `"threads":0`) {
		t.Errorf("bench gemm -threads 0: exit %d, %s%s", code, o.String(), e.String())
	}
	var sr sampleBenchResult
	runBenchJSON(t, &sr, "bench", "sample", "--threads", "0", "--inputs", "2", "--samples", "2", "--quantiles", "1", "--repeats", "1", "--enc-width", "8")
	if sr.Threads < 1 {
		t.Errorf("bench sample --threads 0: threads %d", sr.Threads)
	}
}

// copyFile copies src to a new file dst and returns dst.
func copyFile(t *testing.T, src, dst string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestH2OutIsAnInput: --out naming one of the command's input files
// (directly, through a link, or a hard link) is refused before anything is
// written, and the input is left as it was; so is bench's --cpuprofile.
func TestH2OutIsAnInput(t *testing.T) {
	dir := t.TempDir()
	data := writeSynth(t, dir, "d.csv", 30, 3)
	model := copyFile(t, sharedModel(t, "mdn"), filepath.Join(dir, "m.model"))
	mask := copyFile(t, "testdata/cli/mask12.csv", filepath.Join(dir, "mask.csv"))
	small := copyFile(t, "testdata/cli/small.csv", filepath.Join(dir, "small.csv"))
	link := filepath.Join(dir, "link.model")
	if err := os.Symlink("m.model", link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	hard := filepath.Join(dir, "hard.csv")
	if err := os.Link(data, hard); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	before := map[string]string{}
	for _, p := range []string{data, model, mask, small} {
		before[p] = mustRead(t, p)
	}
	train := append([]string{"train"}, tinyArgs("pointwise")...)
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"predict", "--model", model, "--data", data, "--out", data}, "--data"},
		{[]string{"predict", "--model", model, "--data", data, "--out", model}, "--model"},
		{[]string{"predict", "--model", model, "--data", data, "--out", link}, "--model"},
		{[]string{"predict", "--model", model, "--data", small, "--test-mask", mask, "--split", "0", "--out", mask}, "--test-mask"},
		{append(train, "--data", data, "--out", data), "--data"},
		{append(train, "--data", data, "--out", hard), "--data"},
		{append(train, "--data", small, "--test-mask", mask, "--split", "0", "--out", mask), "--test-mask"},
		{[]string{"sample", "--model", model, "--data", data, "--n", "2", "--out", model}, "--model"},
		{[]string{"sample", "--model", model, "--data", data, "--n", "2", "--out", data}, "--data"},
	} {
		wantUsage(t, c.args, "--out", "same file as "+c.flag)
	}
	// bench --cpuprofile: whatever file the benchmark's flags name.
	bench := []string{"predict", "--rows", "1", "--samples", "0", "--repeats", "1", "--threads", "1"}
	for _, c := range []struct {
		args []string
		flag string
	}{
		{append([]string{"bench", "--cpuprofile", data}, append(bench, "--model", model, "--data", data)...), "--data"},
		{append([]string{"bench", "--cpuprofile=" + link}, append(bench, "--model="+model, "--data", data)...), "--model"},
		{append([]string{"bench", "-cpuprofile", hard}, append(bench, "--model", model, "-data", data)...), "--data"},
	} {
		wantUsage(t, c.args, "--cpuprofile", "same file as "+c.flag)
	}
	// ... and a file inside a directory it reads (report's RESULTS, whose
	// result file the profile replaced), or the --out a run will create
	// (the profile failed on it after the whole run).
	results := filepath.Join(dir, "results")
	result := filepath.Join(results, "ds", "pointwise", "split0.json")
	if err := os.MkdirAll(filepath.Dir(result), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(result, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	before[result] = "{}"
	wantUsage(t, []string{"bench", "--cpuprofile", result, "report", results}, "--cpuprofile", "lies inside the argument "+results)
	out := filepath.Join(dir, "new-out")
	wantUsage(t, []string{"bench", "--cpuprofile", out, "uci", "--out", out, "--data", dir}, "--cpuprofile", "is also --out "+out)
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was created", out)
	}
	for p, b := range before {
		if mustRead(t, p) != b {
			t.Errorf("%s was changed", p)
		}
	}
	// Inside a directory the benchmark only reads, or a flag value that
	// names no path it writes, is fine.
	for _, args := range [][]string{
		{"--data", dir, "--out", filepath.Join(dir, "elsewhere")}, // uci
		{"--config", dir}, // train
	} {
		if err := profileApart(filepath.Join(dir, "cpu.prof"), args); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// TestH3UCIDatasetNames: --datasets takes plain directory names; a path
// (which would read and write outside --data and --out) is refused and
// nothing is written.
func TestH3UCIDatasetNames(t *testing.T) {
	root := t.TempDir()
	data := filepath.Join(root, "data")
	writeUCIFixture(t, data, "ds1", 30, 1)
	sub := filepath.Join(root, "sub")
	os.Mkdir(sub, 0o755)
	res := filepath.Join(sub, "res")
	for _, d := range []string{"../data/ds1", "..", ".", "ds1/", "a/b", `a\b`, "/abs"} {
		wantUsage(t, tinyUCIArgs(data, res, "--datasets", d, "--heads", "pointwise", "--splits", "0"), "--datasets", "plain directory name")
	}
	var found []string
	filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".json") {
			found = append(found, p)
		}
		return nil
	})
	if len(found) > 0 {
		t.Errorf("results written: %v", found)
	}
	if _, err := experiments.Plan(experiments.UCIOptions{DataDir: data, Datasets: []string{"../x"}}); err == nil {
		t.Error("experiments.Plan took dataset ../x")
	}
}

// TestH4FailedRuns: bench uci exits 1 when every run failed (saying how
// many); bench report shows the failed cells of a head whose runs all
// failed, and refuses a malformed result, naming its file.
func TestH4FailedRuns(t *testing.T) {
	data, res := t.TempDir(), t.TempDir()
	var d, m strings.Builder
	d.WriteString("x0,y\n")
	m.WriteString("split0\n")
	for i := range 20 {
		fmt.Fprintf(&d, "%d,3\n", i) // a constant target: every run fails
		fmt.Fprintf(&m, "%d\n", i%2)
	}
	writeGz(t, filepath.Join(data, "const", experiments.DataFile), d.String())
	writeGz(t, filepath.Join(data, "const", experiments.MaskFile), m.String())
	code, _, errs := cli(t, tinyUCIArgs(data, res, "--splits", "0", "--heads", "mdn,pointwise")...)
	if code != 1 || !strings.Contains(errs, "every one of the 2 runs failed") {
		t.Errorf("bench uci, every run failed: exit %d, stderr %q; want exit 1 and the count", code, errs)
	}
	out := reportOutput(t, res)
	for _, want := range []string{"| dataset | mdn |", "| const | — (0/1, 1 failed) |", "| dataset | mdn | pointwise |", "| const | — (0/1, 1 failed) | — (0/1, 1 failed) |"} {
		if !strings.Contains(out, want) {
			t.Errorf("report of failed runs lacks %q:\n%s", want, out)
		}
	}

	for _, c := range []struct {
		name string
		edit func(r *experiments.Result)
		want string
	}{
		{"neither", func(r *experiments.Result) { r.Eval, r.Error = nil, "" }, "neither an eval nor an error"},
		{"tau", func(r *experiments.Result) { r.Eval.KendallTau = 5 }, "kendall_tau 5"},
		{"seconds", func(r *experiments.Result) { r.Seconds = -100 }, "seconds -100"},
		{"mse", func(r *experiments.Result) { r.Eval.MSE = -1 }, "mse -1"},
		{"clipped", func(r *experiments.Result) { r.Eval.Clipped = 11 }, "clipped 11"},
		// Values no run writes, which the report took: a density head's
		// NLL missing (its table vanished), no rows, times that are none.
		{"nll", func(r *experiments.Result) { r.Eval.NLL = math.NaN() }, "nll is null, but the mdn head has a density"},
		{"n", func(r *experiments.Result) { r.Eval.N = 0 }, "n 0"},
		{"train seconds", func(r *experiments.Result) { r.Train = &decoreg.TrainInfo{Seconds: -1} }, "train: seconds -1"},
		{"huge seconds", func(r *experiments.Result) { r.Seconds = 1e308 }, "seconds 1e+308"},
		{"started", func(r *experiments.Result) { r.Started = "yesterday" }, `started "yesterday"`},
	} {
		dir := t.TempDir()
		r := &experiments.Result{Dataset: "ds", Head: "mdn", Split: 0, Seconds: 1, Eval: &decoreg.Eval{N: 10, KendallTau: 0.5, Point: "mean"}}
		c.edit(r)
		path := experiments.ResultPath(dir, "ds", "mdn", 0)
		if err := experiments.WriteResult(path, r); err != nil {
			t.Fatal(err)
		}
		wantUsage(t, []string{"bench", "report", dir}, path, c.want)
	}
}

// TestH5LevelNames: quantile columns have distinct, exact names for any
// distinct levels; -0 is 0; only equal levels are refused.
func TestH5LevelNames(t *testing.T) {
	for _, c := range []struct {
		levels string
		want   string // the names, comma-separated
	}{
		{"-0", "q00"},
		{"1e-300", "q1e-298"},
		{"0,1e-300", "q00,q1e-298"},
		{"0.1234567891,0.1234567892", "q12.34567891,q12.34567892"},
		{"0.05,0.025,0.5,0.999,1", "q05,q2.5,q50,q99.9,q100"},
		{"0.001,1e-7,1.5e-9,1.5e-10", "q0.1,q0.00001,q0.00000015,q1.5e-8"},
		{"0.3,0.30000000000000004", "q30,q30.000000000000004"},
	} {
		_, names, err := parseLevels(c.levels)
		if err != nil || strings.Join(names, ",") != c.want {
			t.Errorf("--levels %s: names %v, %v; want %s", c.levels, names, err, c.want)
		}
	}
	for _, l := range []string{"0,-0", "0.5,0.50", "0.25,2.5e-1"} {
		if _, _, err := parseLevels(l); err == nil || !strings.Contains(err.Error(), "same number") {
			t.Errorf("--levels %s: %v, want the same number twice", l, err)
		}
	}
	// A level that is not 0 but underflows to it is refused; zeros written
	// any way are 0, and the smallest float64 is a level of its own.
	for _, l := range []string{"1e-400", "-1e-400", "0.0001e-320", "0x1p-1200", "0x0.8p-1074"} {
		if _, _, err := parseLevels(l); err == nil || !strings.Contains(err.Error(), "below the smallest float64") {
			t.Errorf("--levels %s: %v, want it refused as below the smallest float64", l, err)
		}
	}
	for l, want := range map[string]string{"0e-400": "q00", "0.000e5": "q00", "-0x0p+3": "q00", "5e-324": "q5e-322"} {
		if _, names, err := parseLevels(l); err != nil || len(names) != 1 || names[0] != want {
			t.Errorf("--levels %s: %v, %v; want %s", l, names, err, want)
		}
	}
	out, _ := mustCLI(t, "predict", "--model", sharedModel(t, "mdn"), "--data", "testdata/cli/small.csv", "--out", "-", "--levels", "-0,1e-300")
	if h, _, _ := strings.Cut(out, "\n"); h != "row,mean,median,mode,q00,q1e-298,logpdf" {
		t.Errorf("header %q", h)
	}
}

// TestH6ParamLimitNamesField: the parameter-limit error names the flag of
// the part of the network that holds most parameters, and no file.
func TestH6ParamLimitNamesField(t *testing.T) {
	data := writeSynth(t, t.TempDir(), "base.csv", 20, 1)
	out := filepath.Join(t.TempDir(), "m.model")
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--dec-width", "16384", "--dec-layers", "64"}, "--dec-width"},
		{[]string{"--enc-width", "16384", "--enc-layers", "8"}, "--enc-width"},
		{[]string{"--head", "riemann", "--bins", "1000000", "--enc-width", "4096"}, "--bins"},
		{[]string{"--head", "mdn", "--components", "100", "--enc-width", "16384", "--enc-layers", "2"}, "--enc-width"},
	} {
		errs := wantUsage(t, append([]string{"train", "--data", data, "--out", out}, c.args...), "train: "+c.flag+": ", "parameters")
		if strings.Contains(errs, "base.csv") {
			t.Errorf("%v: a config error names the data file: %s", c.args, errs)
		}
	}
}

// TestH8ValFracRoundsToEveryRow: a --val-frac that rounding turns into
// every training row says so (not that the rows are too few), and the
// bound it suggests works.
func TestH8ValFracRoundsToEveryRow(t *testing.T) {
	dir := t.TempDir()
	data := writeSynth(t, dir, "d.csv", 200, 1)
	out := filepath.Join(dir, "m.model")
	train := append([]string{"train", "--data", data, "--out", out}, tinyArgs("pointwise")...)
	errs := wantUsage(t, append(train, "--val-frac", "0.999"), "--val-frac 0.999", "200 of the 200 training rows", "at most 0.995")
	if strings.Contains(errs, "too few") {
		t.Errorf("message blames the row count: %s", errs)
	}
	mustCLI(t, append(train, "--val-frac", "0.995")...)
	wantUsage(t, append([]string{"train", "--data", "testdata/cli/one_row.csv", "--out", out}, tinyArgs("pointwise")...), "too few")
}

// TestH9StopReason: after Ctrl-C the summary and the model file give the
// same stop reason, and epochs counts the epochs completed (not the one
// cut short).
func TestH9StopReason(t *testing.T) {
	self, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	data := writeSynth(t, dir, "train.csv", 2000, 7)
	model := filepath.Join(dir, "m.model")
	var sigErr error
	last := 0
	onEpoch = func(p decoreg.Progress) {
		last = p.Epoch
		if p.Epoch == 2 {
			sigErr = self.Signal(os.Interrupt)
		}
	}
	defer func() { onEpoch = nil }()
	out, _ := mustCLI(t, "train", "--data", data, "--out", model, "--head", "pointwise", "--enc-width", "8",
		"--batch", "8", "--epochs", "100000", "--patience", "100000", "--quiet")
	if sigErr != nil {
		t.Skipf("cannot signal this process: %v", sigErr)
	}
	s := summary(t, out)
	m, err := decoreg.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	info := m.Info()
	if s["stopped"] != info.Stopped || info.Stopped != "cancelled" {
		t.Errorf("summary stopped %v, model file %q; want both cancelled", s["stopped"], info.Stopped)
	}
	if s["epochs"] != float64(last) || info.Epochs != last {
		t.Errorf("summary epochs %v, model file %d; %d completed", s["epochs"], info.Epochs, last)
	}
}

// TestH10BenchSampleNoQuantiles: with --quantiles 0 the quantile fields
// are left out (not 0), and the sample times keep their significant digits.
func TestH10BenchSampleNoQuantiles(t *testing.T) {
	var o, e bytes.Buffer
	old := stdout
	stdout = &o
	defer func() { stdout = old }()
	if code := run([]string{"bench", "sample", "--quantiles", "0", "--inputs", "2", "--samples", "2", "--repeats", "1", "--enc-width", "8"}, &e); code != 0 {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	var m map[string]any
	if err := json.Unmarshal(o.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"quantile_queries_per_s", "quantile_inputs_per_s", "quantile_seconds_median", "quantile_mean"} {
		if v, ok := m[k]; ok && v != nil {
			t.Errorf("%s = %v with --quantiles 0", k, v)
		}
	}
	for _, k := range []string{"sample_seconds_median", "sample_seconds_min", "sample_seconds_max"} {
		if v, _ := m[k].(float64); !(v > 0) {
			t.Errorf("%s = %v, want > 0", k, m[k])
		}
	}
}

// TestH11BenchHelpName: "decoreg bench help NAME" prints the benchmark's
// help with its flags, as "decoreg help bench NAME" does.
func TestH11BenchHelpName(t *testing.T) {
	for _, name := range []string{"gemm", "train", "sample", "uci", "report"} {
		a, _ := mustCLI(t, "help", "bench", name)
		b, _ := mustCLI(t, "bench", "help", name)
		if !strings.HasPrefix(b, "usage: decoreg bench "+name) || !strings.Contains(b, "Flags:") || a != b {
			t.Errorf("bench help %s printed\n%s\nwant\n%s", name, b, a)
		}
	}
	wantUsage(t, []string{"bench", "help", "nonesuch"}, "unknown benchmark")
}

// TestH12ProgressBarEndsLine: on a terminal, train's progress bar line is
// ended before anything else is printed (the JSON summary on standard
// output, which shares the terminal).
func TestH12ProgressBarEndsLine(t *testing.T) {
	old := isTerminal
	isTerminal = func(io.Writer) bool { return true }
	defer func() { isTerminal = old }()
	dir := t.TempDir()
	data := writeSynth(t, dir, "d.csv", 50, 1)
	args := []string{"train", "--data", data, "--out", filepath.Join(dir, "m.model"), "--head", "pointwise", "--enc-width", "8", "--epochs", "3"}
	_, errs := mustCLI(t, args...)
	if !strings.Contains(errs, "\repoch 3/3 [") || !strings.HasSuffix(errs, "\n") {
		t.Errorf("progress bar output %q: want \\r-updated lines ended by a newline", errs)
	}
}

// TestH13ColumnNames: train refuses a column name that is not valid UTF-8
// (naming the file, line and column) and column names too long for a model
// file, before training.
func TestH13ColumnNames(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("a,\xc3(,y\n1,2,3\n2,3,1\n3,1,2\n"), 0o644)
	out := filepath.Join(dir, "m.model")
	wantUsage(t, append([]string{"train", "--data", bad, "--out", out}, tinyArgs("pointwise")...), "bad.csv: line 1, column 2", "UTF-8")
	long := filepath.Join(dir, "long.csv")
	os.WriteFile(long, []byte(strings.Repeat("n", modelfile.MaxHeader)+",y\n1,2\n2,1\n3,3\n"), 0o644)
	wantUsage(t, append([]string{"train", "--data", long, "--out", out}, tinyArgs("pointwise")...), "long.csv: line 1", "64 MiB")
	if _, err := os.Stat(out); err == nil {
		t.Error("a model was written")
	}
}

// TestH14DataStdinAndEmptyTarget: --data - reads standard input (train,
// eval, predict, sample), messages call it <stdin>, and no temporary file
// is left; an empty --target is refused.
func TestH14DataStdinAndEmptyTarget(t *testing.T) {
	dir := t.TempDir()
	data := writeSynth(t, dir, "d.csv", 60, 2)
	body := mustRead(t, data)
	old := stdin
	defer func() { stdin = old }()
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "decoreg-stdin-*"))

	model := filepath.Join(dir, "m.model")
	stdin = strings.NewReader(body)
	mustCLI(t, append([]string{"train", "--data", "-", "--out", model}, tinyArgs("mdn")...)...)
	want, _ := mustCLI(t, "predict", "--model", model, "--data", data, "--out", "-")
	stdin = strings.NewReader(body)
	if got, _ := mustCLI(t, "predict", "--model", model, "--data", "-", "--out", "-"); got != want {
		t.Errorf("predict --data -:\n%s\nwant\n%s", got, want)
	}
	wantEval, _ := mustCLI(t, "eval", "--model", model, "--data", data)
	stdin = strings.NewReader(body)
	if got, _ := mustCLI(t, "eval", "--model", model, "--data", "-"); got != wantEval {
		t.Errorf("eval --data -: %s, want %s", got, wantEval)
	}
	stdin = strings.NewReader(body)
	if got, _ := mustCLI(t, "sample", "--model", model, "--data", "-", "--n", "3"); strings.Count(got, "\n") != 61 {
		t.Errorf("sample --data -: %d lines", strings.Count(got, "\n"))
	}
	stdin = strings.NewReader("x0,x1,y\n1,oops,2\n")
	wantUsage(t, []string{"eval", "--model", model, "--data", "-"}, "<stdin>: line 2")
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "decoreg-stdin-*"))
	if len(after) > len(before) {
		t.Errorf("temporary files left: %v", after)
	}

	for _, cmd := range [][]string{
		append([]string{"train", "--data", data, "--out", model, "--target", ""}, tinyArgs("mdn")...),
		{"eval", "--model", model, "--data", data, "--target", " "},
		{"predict", "--model", model, "--data", data, "--out", "-", "--target", ""},
		{"sample", "--model", model, "--data", data, "--n", "1", "--target", ""},
	} {
		wantUsage(t, cmd, "--target is empty")
	}
}

// A data set whose name holds a bar keeps its report table's rows whole
// (the bar is escaped; it split the row into cells).
func TestBenchReportBarInName(t *testing.T) {
	dir := t.TempDir()
	r := &experiments.Result{Dataset: "a|b", Head: "mdn", Split: 0, Seconds: 1, Eval: &decoreg.Eval{N: 10, KendallTau: 0.5, NLL: 1.5, Point: "mean"}}
	if err := experiments.WriteResult(experiments.ResultPath(dir, r.Dataset, r.Head, 0), r); err != nil {
		t.Fatal(err)
	}
	out := reportOutput(t, dir)
	if !strings.Contains(out, `| a\|b |`) || strings.Contains(out, "| a|b |") {
		t.Errorf("the name's bar:\n%s", out)
	}
}

// countingZeros yields n zero bytes, counting those read.
type countingZeros struct{ n, read int }

func (z *countingZeros) Read(p []byte) (int, error) {
	if z.read >= z.n {
		return 0, io.EOF
	}
	k := min(len(p), z.n-z.read)
	clear(p[:k])
	z.read += k
	return k, nil
}

// TestDataStdinBinaryStopsEarly: a binary stream on --data - (cat
// /dev/zero, an image) is refused from its first bytes, with the readers'
// message, before it is copied: the whole stream was copied to the
// temporary directory first (30 s of /dev/zero took 12 GB, helper-139).
// UTF-16 and text behind gzip's magic are copied and read as before.
func TestDataStdinBinaryStopsEarly(t *testing.T) {
	model := sharedModel(t, "mdn")
	old := stdin
	defer func() { stdin = old }()
	for _, cmd := range [][]string{{"predict", "--model", model, "--out", "-"}, {"eval", "--model", model}, {"sample", "--model", model, "--n", "1"},
		append([]string{"train", "--out", filepath.Join(t.TempDir(), "m.model")}, tinyArgs("mdn")...)} {
		z := &countingZeros{n: 64 << 20}
		stdin = z
		wantUsage(t, append(cmd, "--data", "-"), "<stdin>: not a CSV table: it is binary: it holds NUL bytes in its first 8 KiB")
		if z.read > 1<<20 {
			t.Errorf("%s --data -: read %d bytes of a binary stream before refusing it", cmd[0], z.read)
		}
	}
	stdin = strings.NewReader("\xff\xfex\x000\x00")
	wantUsage(t, []string{"eval", "--model", model, "--data", "-"}, "<stdin>: the file is UTF-16 text")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(mustRead(t, writeSynth(t, t.TempDir(), "d.csv", 60, 2))))
	zw.Close()
	stdin = &gz
	if out, _ := mustCLI(t, "eval", "--model", model, "--data", "-"); !strings.Contains(out, `"nll"`) {
		t.Errorf("eval of gzip data on --data -: %s", out)
	}
	// Gzip data whose text is binary is refused from its start too (the
	// sniff let every gzip stream through: gzip of /dev/zero filled the
	// temporary directory, slowly).
	noise := make([]byte, 8<<20)
	x := uint64(88172645463325252)
	for i := range noise {
		x ^= x << 13 // xorshift64
		x ^= x >> 7
		x ^= x << 17
		noise[i] = byte(x >> 56)
	}
	var bin bytes.Buffer
	zw = gzip.NewWriter(&bin)
	zw.Write(noise)
	zw.Close()
	if bin.Len() < 4<<20 {
		t.Fatalf("the test's noise compressed to %d bytes", bin.Len())
	}
	r := &countingReader{r: &bin}
	stdin = r
	wantUsage(t, []string{"predict", "--model", model, "--out", "-", "--data", "-"}, "<stdin>: not a CSV table: it is binary")
	if r.read > 1<<20 {
		t.Errorf("predict --data -: read %d bytes of gzip data of binary before refusing it", r.read)
	}
}

type countingReader struct {
	r    io.Reader
	read int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += n
	return n, err
}

// TestLongColumnNameCut: a column named by a 1 MB header cell is quoted
// and cut in train's warnings, in predict's message about a file without
// it and in show's text (each printed the whole megabyte, helper-139 and
// helper-142); show --json keeps the name whole.
func TestLongColumnNameCut(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("h", 1<<20)
	var b strings.Builder
	b.WriteString(long + ",y\n")
	for i := range 40 {
		fmt.Fprintf(&b, "%d,%d\n", i, i%7)
	}
	data, model := filepath.Join(dir, "long.csv"), filepath.Join(dir, "m.model")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// The column holds 0 to 39, one per row: the running-identifier
	// warning names it (twice, whole, before).
	if _, errs := mustCLI(t, append([]string{"train", "--data", data, "--out", model}, tinyArgs("mdn")...)...); len(errs) > 2000 || !strings.Contains(errs, "running identifier") {
		t.Errorf("train: %d bytes on stderr: %.300s", len(errs), errs)
	}
	code, _, errs := cli(t, "predict", "--model", model, "--data", writeSynth(t, dir, "other.csv", 20, 1), "--out", "-")
	if code != 2 || len(errs) > 2000 || !strings.Contains(errs, "(1048576 bytes)") {
		t.Errorf("predict without the long column: exit %d, %d bytes: %.300s", code, len(errs), errs)
	}
	out, _ := mustCLI(t, "show", "--model", model)
	if len(out) > 4000 || !strings.Contains(out, "(1048576 bytes)") {
		t.Errorf("show: %d bytes: %.300s", len(out), out)
	}
	if js, _ := mustCLI(t, "show", "--model", model, "--json"); !strings.Contains(js, `"`+long+`"`) {
		t.Errorf("show --json does not hold the whole name")
	}
}

// ttyReader is standard input from a terminal: body, then an end of input
// (a Ctrl-D), after which a further read gets more (what is typed next).
type ttyReader struct {
	body, more string
	ended      bool
	readsAfter int
}

func (r *ttyReader) Read(p []byte) (int, error) {
	switch {
	case r.body != "":
		n := copy(p, r.body)
		r.body = r.body[n:]
		return n, nil
	case !r.ended:
		r.ended = true
		return 0, io.EOF
	default:
		r.readsAfter++
		n := copy(p, r.more)
		r.more = r.more[n:]
		return n, nil
	}
}

// TestDataStdinOneEOF: a table typed on --data - ends at the first end of
// input, as it did before the input's first bytes were looked at: the
// look stopped at the end of input and the copy then read on, so a
// terminal needed a second Ctrl-D and took what was typed between them as
// data (helper-142).
func TestDataStdinOneEOF(t *testing.T) {
	model := sharedModel(t, "mdn")
	body := mustRead(t, writeSynth(t, t.TempDir(), "d.csv", 20, 2))
	want, _ := mustCLI(t, "eval", "--model", model, "--data", writeSynth(t, t.TempDir(), "d.csv", 20, 2))
	old := stdin
	defer func() { stdin = old }()
	r := &ttyReader{body: body, more: "1,2,3\n"}
	stdin = r
	if got, _ := mustCLI(t, "eval", "--model", model, "--data", "-"); got != want || r.readsAfter != 0 {
		t.Errorf("eval --data - of a typed table: read %d times after its end; %s, want %s", r.readsAfter, got, want)
	}
}

// TestLongNamesWhole: names up to 160 bytes are quoted whole, so that a
// "did you mean" among long names that share their start shows where they
// differ, and a flag's value is quoted whole, so that its bad entry shows
// (both were cut after 60 bytes, helper-144).
func TestLongNamesWhole(t *testing.T) {
	dir := t.TempDir()
	p := "Q12 How satisfied were you with the service our staff provided on a scale from 1 to 5 by"
	var b strings.Builder
	b.WriteString(p + " phone," + p + " email,score\n")
	for i := range 30 {
		fmt.Fprintf(&b, "%d,%d,%d\n", i%5, i%3, i%7)
	}
	data := filepath.Join(dir, "survey.csv")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "m.model")
	wantUsage(t, []string{"train", "--data", data, "--target", p + " phne", "--out", out}, `did you mean "`+p+` phone"?`)
	bad := `x0,x1,alpha_feature_one,beta_feature_two,gamma_feature_three,delta_four,eps"ilon,zeta`
	wantUsage(t, []string{"train", "--data", data, "--features", bad, "--out", out}, strconv.Quote(bad)+": bare \"")
}
