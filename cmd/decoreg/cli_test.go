package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"decoreg"
	"decoreg/data"
	"decoreg/dist"
)

// TestHelpPrintsFlags: "decoreg help CMD" printed no flags while
// "decoreg CMD -h" did. Both must print the same text, with every flag of
// the command; "help" lists the commands in the order of the one list.
func TestHelpPrintsFlags(t *testing.T) {
	for _, c := range commands {
		help, _ := mustCLI(t, "help", c.Name)
		if c.CustomFlags && !slices.Contains([]string{"tokenize", "synth", "experiment"}, c.Name) {
			continue // help and bench take no flags of their own
		}
		dashH, _ := mustCLI(t, c.Name, "-h")
		if help != dashH {
			t.Errorf("help %s and %s -h differ:\n%s\n---\n%s", c.Name, c.Name, help, dashH)
		}
		n := 0
		c.Flag.VisitAll(func(f *flag.Flag) {
			n++
			if !strings.Contains(help, "\n  -"+f.Name+" ") && !strings.Contains(help, "\n  -"+f.Name+"\n") {
				t.Errorf("help %s does not show -%s:\n%s", c.Name, f.Name, help)
			}
		})
		if n == 0 {
			t.Errorf("%s defines no flags", c.Name)
		}
	}
	// help -h is help's help, as CMD -h is CMD's (it was an unknown
	// command "-h", exit 2).
	if out, _ := mustCLI(t, "help", "-h"); !strings.HasPrefix(out, "usage: decoreg help ") {
		t.Errorf("help -h:\n%s", out)
	}
	// The benchmarks keep their own help. bench's is the same both ways:
	// its text and the list of benchmarks, which its line in the command
	// list names too.
	if out, _ := mustCLI(t, "help", "bench", "gemm"); !strings.Contains(out, "-sizes") {
		t.Errorf("help bench gemm shows no flags:\n%s", out)
	}
	help, _ := mustCLI(t, "help", "bench")
	dashH, _ := mustCLI(t, "bench", "-h")
	if help != dashH || !strings.Contains(help, "--cpuprofile") {
		t.Errorf("help bench and bench -h differ:\n%s\n---\n%s", help, dashH)
	}
	for name := range benches {
		if !strings.Contains(help, "\t"+name+" ") || !strings.Contains(cmdBench.Short, name) {
			t.Errorf("bench's help or its line in the command list lacks %s", name)
		}
	}
	// The command list, in order, each once.
	out, _ := mustCLI(t, "help")
	last := -1
	for _, c := range commands {
		i := strings.Index(out, "\t"+c.Name+" ")
		if i < 0 || i < last || strings.Count(out, "\t"+c.Name+" ") != 1 {
			t.Errorf("help lists %s at %d (previous at %d):\n%s", c.Name, i, last, out)
		}
		last = i
	}
}

// TestFlagsResetBetweenRuns: flags are defined once per process, so a
// second run must not see the first run's values.
func TestFlagsResetBetweenRuns(t *testing.T) {
	model := sharedModel(t, "decoder")
	small := "testdata/cli/small.csv"
	mustCLI(t, "predict", "--model", model, "--data", small, "--out", "-", "--levels", "0.5",
		"--test-mask", "testdata/cli/mask12.csv", "--split", "1")
	out, _ := mustCLI(t, "predict", "--model", model, "--data", small, "--out", "-")
	h, rows := parseCSV(t, out)
	if strings.Join(h, ",") != "row,mean,median,mode,"+strings.Join(quantileColumns(decoreg.DefaultLevels), ",")+",logpdf" || len(rows) != 12 {
		t.Errorf("second run: header %v, %d rows; the first run's flags leaked", h, len(rows))
	}
}

// TestP9PredictUnlabelled: predict refused a file whose target column was
// blank (unlabelled rows). predict and sample take it (predict without
// logpdf); eval, which needs targets, names the file, line and column.
func TestP9PredictUnlabelled(t *testing.T) {
	named := sharedModel(t, "decoder")
	unnamed := unnamedModel(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	blank := write("blank.csv", "x0,x1,y\n0.1,0.2,\n0.3,-0.4,\n-0.5,0.6,\n")
	partly := write("partly.csv", "x0,x1,y\n0.1,0.2,1.5\n0.3,-0.4, \n-0.5,0.6,0.25\n")
	garbage := write("garbage.csv", "x0,x1,y\n0.1,0.2,1.5\n0.3,-0.4,abc\n-0.5,0.6,0.25\n")
	blankFeature := write("blank_feature.csv", "x0,x1,y\n0.1,0.2,1\n0.3,,\n")
	want := "row,mean,median,mode," + strings.Join(quantileColumns(decoreg.DefaultLevels), ",")
	for _, model := range []string{named, unnamed} {
		for _, file := range []string{blank, partly} {
			out, _ := mustCLI(t, "predict", "--model", model, "--data", file, "--out", "-")
			if h, rows := parseCSV(t, out); strings.Join(h, ",") != want || len(rows) != 3 {
				t.Errorf("predict %s: header %v, %d rows; want %s and 3 rows", filepath.Base(file), h, len(rows), want)
			}
			out, _ = mustCLI(t, "sample", "--model", model, "--data", file, "--n", "2")
			if _, rows := parseCSV(t, out); len(rows) != 3 {
				t.Errorf("sample %s: %d rows, want 3", filepath.Base(file), len(rows))
			}
		}
		code, _, errs := cli(t, "eval", "--model", model, "--data", blank)
		if model == named {
			// A model with a schema skips rows whose target is missing;
			// with none left, eval names the file.
			if code != 2 || !strings.Contains(errs, "blank.csv") || !strings.Contains(errs, "missing target") {
				t.Errorf("eval on blank targets: exit %d, %q", code, errs)
			}
		} else if code != 2 || !strings.Contains(errs, "blank.csv: line 2, column 3") || !strings.Contains(errs, "empty cell") {
			t.Errorf("eval on blank targets: exit %d, %q", code, errs)
		}
		// Not blank but not a number: predict warns, naming the line, and
		// writes no logpdf (the target is optional there); eval refuses.
		code, out, errs := cli(t, "predict", "--model", model, "--data", garbage, "--out", "-")
		if code != 0 || !strings.Contains(errs, "garbage.csv") || !strings.Contains(errs, "line 3") || !strings.Contains(errs, "holds text") || strings.Contains(out, "logpdf") {
			t.Errorf("predict with a target abc: exit %d, %q", code, errs)
		}
		if code, _, errs := cli(t, "eval", "--model", model, "--data", garbage); code != 2 || !strings.Contains(errs, "garbage.csv: line 3, column 3") || !strings.Contains(errs, `"abc"`) {
			t.Errorf("eval with a target abc: exit %d, %q", code, errs)
		}
		// A blank feature: imputed (with a warning) by a model with a
		// schema; an error for one without.
		code, out, errs = cli(t, "predict", "--model", model, "--data", blankFeature, "--out", "-")
		if model == named {
			if _, rows := parseCSV(t, out); code != 0 || len(rows) != 2 || !strings.Contains(errs, `warning: `+blankFeature+`: column "x1": 1 missing cell`) {
				t.Errorf("predict with a blank feature: exit %d, %d rows, %q", code, len(rows), errs)
			}
		} else if code != 2 || !strings.Contains(errs, "blank_feature.csv: line 3, column 2") {
			t.Errorf("predict with a blank feature: exit %d, %q", code, errs)
		}
	}
}

// unnamedModel trains a tiny model through the library (no column names)
// on the features x0, x1 of the shared test data.
func unnamedModel(t *testing.T) string {
	t.Helper()
	rows := synthRows(60, 3)
	var x, y []float64
	for _, r := range rows {
		x = append(x, r[0], r[1])
		y = append(y, r[2])
	}
	m, err := decoreg.FitFlat(context.Background(), x, len(rows), 2, y,
		decoreg.Config{Head: decoreg.HeadDecoder, Vocab: "normalized:base=4,length=3", EncWidth: 8, DecWidth: 8, MaxEpochs: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "unnamed.model")
	if err := m.Save(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestColumnMatching: models trained by 'decoreg train' record their column
// names and read columns by name (in any order; a missing one is refused,
// named). A model without names reads them by position and says so on
// stderr (reordered columns gave rel_mse 498 with exit 0 and no word).
func TestColumnMatching(t *testing.T) {
	model := sharedModel(t, "mdn")
	m, err := decoreg.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	if feats, target := m.Names(); strings.Join(feats, ",") != "x0,x1" || target != "y" {
		t.Errorf("train recorded names %v, %q; want [x0 x1], y", feats, target)
	}
	dir := t.TempDir()
	rows := synthRows(20, 8)
	inOrder := filepath.Join(dir, "in_order.csv")
	writeRows(t, inOrder, []string{"x0", "x1", "y"}, rows)
	reordered := filepath.Join(dir, "reordered.csv")
	writeRows(t, reordered, []string{"y", "z", "x1", "x0"}, rows)
	renamed := filepath.Join(dir, "renamed.csv")
	writeRows(t, renamed, []string{"x0", "x2", "y"}, rows)

	a, errA := mustCLI(t, "eval", "--model", model, "--data", inOrder)
	b, errB := mustCLI(t, "eval", "--model", model, "--data", reordered)
	if a != b || errA != "" || errB != "" {
		t.Errorf("by name: %s (stderr %q) and %s (stderr %q)", a, errA, b, errB)
	}
	code, _, errs := cli(t, "eval", "--model", model, "--data", renamed)
	if code != 2 || !strings.Contains(errs, `feature "x1" missing`) {
		t.Errorf("a renamed column: exit %d, %q", code, errs)
	}

	unnamed := unnamedModel(t)
	_, errs = mustCLI(t, "predict", "--model", unnamed, "--data", inOrder, "--out", "-")
	if !strings.Contains(errs, "no column names") || !strings.Contains(errs, `"x0", "x1", by position`) {
		t.Errorf("no warning of matching by position: %q", errs)
	}
	// A header whose column after the features has no name (a trailing
	// comma): eval says so (it said the file had no such column); predict
	// reads the features and no target. Unnamed features are quoted.
	trailing := filepath.Join(t.TempDir(), "trailing.csv")
	if err := os.WriteFile(trailing, []byte(",x1,\n0.1,0.2,3\n0.3,0.4,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = cli(t, "eval", "--model", unnamed, "--data", trailing)
	if code != 2 || !strings.Contains(errs, "column 3, after the model's 2 features, has no name") || !strings.Contains(errs, `"", "x1", by position`) {
		t.Errorf("eval, unnamed target column: exit %d, %q", code, errs)
	}
	mustCLI(t, "predict", "--model", unnamed, "--data", trailing, "--out", "-")
	// A --target the file lacks is refused by predict for such a model
	// too (no schema: the columns by position).
	code, _, errs = cli(t, "predict", "--model", unnamed, "--data", inOrder, "--target", "yy", "--out", "-")
	if code != 2 || !strings.Contains(errs, `no column "yy"`) || !strings.Contains(errs, "--target") {
		t.Errorf("predict --target yy, no schema: exit %d, %q", code, errs)
	}
}

// TestValFracZeroMeansNone: --val-frac 0 means no validation split, which
// the library spells ValFrac < 0 (its 0 means the default); left out, the
// flag is the library's default. The help says both.
func TestValFracZeroMeansNone(t *testing.T) {
	for _, c := range []struct {
		args []string
		want float64
	}{
		{nil, decoreg.DefaultValFrac},
		{[]string{"--val-frac", "0"}, -1},
		{[]string{"--val-frac", "0.25"}, 0.25},
	} {
		cmdTrain.resetFlags()
		if err := cmdTrain.Flag.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		cfg, err := trainF.config(&cmdTrain.Flag)
		if err != nil || cfg.ValFrac != c.want {
			t.Errorf("%v: ValFrac %v (%v), want %v", c.args, cfg.ValFrac, err, c.want)
		}
		if got := decoreg.DefaultConfig(cfg).ValFrac; got != c.want {
			t.Errorf("%v: the library reads ValFrac %v as %v", c.args, cfg.ValFrac, got)
		}
	}
	help, _ := mustCLI(t, "help", "train")
	if !strings.Contains(help, "--val-frac 0 trains\non every row") || !strings.Contains(help, "0: no validation split") {
		t.Errorf("help train does not explain --val-frac 0:\n%s", help)
	}
}

// TestFlagFieldsCoverLibrary: every field of decoreg.Config and
// dist.SampleOptions has its flag in flagFields, and every flag there is
// defined by train or sample.
func TestFlagFieldsCoverLibrary(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[decoreg.Config](), reflect.TypeFor[dist.SampleOptions]()} {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.Type.Kind() == reflect.Func {
				continue // callbacks are not flags
			}
			if flagOf(f.Name) == "" {
				t.Errorf("%s.%s has no flag in flagFields", typ, f.Name)
			}
		}
	}
	for _, ff := range flagFields {
		if cmdTrain.Flag.Lookup(ff.flag) == nil && cmdSample.Flag.Lookup(ff.flag) == nil {
			t.Errorf("flagFields: no flag --%s (field %s)", ff.flag, ff.field)
		}
	}
	// A *ConfigError names the flag.
	err, ok := configErr("train", decoreg.Config{LR: -1}.Validate())
	if !ok || !strings.HasPrefix(err.Error(), "train: --lr: ") {
		t.Errorf("configErr = %v, %v; want train: --lr: ...", err, ok)
	}
	if _, ok := configErr("train", errors.New("other")); ok {
		t.Error("configErr took an error that is not a ConfigError")
	}
}

// TestDataErr: a library error about a row and feature becomes the file,
// the row's line (through a --test-mask subset) and the column's name.
func TestDataErr(t *testing.T) {
	d := &data.Dataset{Path: "in.csv", Names: []string{"a", "b"}, Rows: 3, Cols: 2}
	rows := []int{1, 4, 7} // the test rows of a split
	cause := errors.New("1e38 overflows float32 in the network")
	for _, c := range []struct {
		err  error
		want string
	}{
		{&decoreg.DataError{Row: 2, Column: 1, Err: cause}, `predict: in.csv: line 9, column "b": 1e38 overflows`},
		{&decoreg.DataError{Row: 0, Column: -1, Err: cause}, `predict: in.csv: line 3: 1e38`},
		{&decoreg.DataError{Row: -1, Column: 0, Err: cause}, `predict: in.csv: column "a": 1e38`},
		{&decoreg.DataError{Row: -1, Column: -1, Err: cause}, `predict: in.csv: 1e38`},
		{errors.New("other"), `predict: in.csv: other`},
	} {
		err := dataErr("predict", d, rows, c.err)
		var ue usageError
		if !strings.HasPrefix(err.Error(), c.want) || !errors.As(err, &ue) {
			t.Errorf("dataErr(%v) = %q, want a usage error starting %q", c.err, err, c.want)
		}
	}
	if err := dataErr("eval", d, nil, &decoreg.DataError{Row: 2, Column: 0, Err: cause}); !strings.HasPrefix(err.Error(), `eval: in.csv: line 4, column "a"`) {
		t.Errorf("without a mask: %q", err)
	}
	// A data set read from a file knows where each of its rows starts
	// (past blank lines and quoted line breaks), through subsets: d is
	// the subset the library saw, rows its rows' indices in the file.
	d.Lines = []int{4, 9, 14}
	if err := dataErr("predict", d, rows, &decoreg.DataError{Row: 2, Column: 1, Err: cause}); !strings.HasPrefix(err.Error(), `predict: in.csv: line 14, column "b"`) {
		t.Errorf("with lines, through a mask: %q", err)
	}
	if err := dataErr("eval", d, nil, &decoreg.DataError{Row: 1, Column: -1, Err: cause}); !strings.HasPrefix(err.Error(), `eval: in.csv: line 9: `) {
		t.Errorf("with lines: %q", err)
	}
}

// TestRowErrorLines: eval, predict and sample name the line of a bad row
// through a test mask and skipped rows (a missing target), with blank
// lines before it; the lines' lookup once took the file's row index into
// the subset's lines, naming another row.
func TestRowErrorLines(t *testing.T) {
	dir := t.TempDir()
	model := sharedModel(t, "mdn")
	small, err := os.ReadFile("testdata/cli/small.csv")
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(small), "\n")
	cols := strings.Count(header, ",") // features before y
	row := func(x, y string) string { return strings.Repeat(x+",", cols) + y + "\n" }
	// Lines: 1 header, 2 row 0 (test), 3 row 1 (no target), 4 blank, 5 row 2 (far out), 6 row 3.
	body := header + "\n" + row("0.1", "1") + row("0.2", "") + "\n" + row("1e39", "2") + row("0.3", "3")
	data := filepath.Join(dir, "d.csv")
	mask := filepath.Join(dir, "mask.csv")
	if err := os.WriteFile(data, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mask, []byte("split0\n0\n1\n1\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"eval", "--model", model, "--data", data},
		{"eval", "--model", model, "--data", data, "--test-mask", mask, "--split", "0"},
		{"predict", "--model", model, "--data", data, "--test-mask", mask, "--split", "0", "--out", filepath.Join(dir, "p.csv")},
		{"sample", "--model", model, "--data", data, "--test-mask", mask, "--split", "0", "--n", "2", "--out", filepath.Join(dir, "s.csv")},
	} {
		code, _, errs := cli(t, args...)
		if code != 2 || !strings.Contains(errs, "d.csv: line 5") {
			t.Errorf("%v: exit %d, %q; want line 5", args[0:1], code, errs)
		}
	}
}

// TestPredictDefaultLevels: predict's default --levels are
// decoreg.DefaultLevels.
func TestPredictDefaultLevels(t *testing.T) {
	f := cmdPredict.Flag.Lookup("levels")
	levels, _, err := parseLevels(f.DefValue)
	if err != nil || !slices.Equal(levels, decoreg.DefaultLevels) {
		t.Errorf("--levels defaults to %q (%v), want decoreg.DefaultLevels %v", f.DefValue, err, decoreg.DefaultLevels)
	}
}

// fullWriter fails every write, as standard output on a full disk.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) {
	return 0, errors.New("write /dev/stdout: no space left on device")
}

// TestStdoutWriteFails: a command whose writes to standard output fail
// exits 1 with a message naming the command, also where its Run did not
// check the write (help, experiment --list).
func TestStdoutWriteFails(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "train"}, "decoreg help: writing standard output: "},
		{[]string{"--help"}, "decoreg: writing standard output: "},
		{[]string{"train", "-h"}, "decoreg train: writing standard output: "},
		{[]string{"experiment", "--list"}, "decoreg experiment: writing standard output: "},
		{[]string{"synth", "--list"}, "decoreg synth: "},
		{[]string{"tokenize", "--vocab", "normalized:base=10,length=4", "0.3"}, "decoreg tokenize: "},
	} {
		var e bytes.Buffer
		old := stdout
		stdout = fullWriter{}
		code := run(c.args, &e)
		stdout = old
		if code != 1 || !strings.HasPrefix(e.String(), c.want) || !strings.Contains(e.String(), "no space left") {
			t.Errorf("%v to a full disk: exit %d, %q", c.args, code, e.String())
		}
	}
}

// TestErrorPrefix: a message names its command once: "experiment uci"
// hands its flags to bench uci, whose errors name "bench uci" (they were
// prefixed "decoreg experiment: bench uci: ").
func TestErrorPrefix(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"experiment", "uci", "--bogus"}, "decoreg bench uci: "},
		{[]string{"train", "--bogus"}, "decoreg train: "},
	} {
		code, _, errs := cli(t, c.args...)
		if code == 0 || !strings.HasPrefix(errs, c.want) || strings.Count(errs, "decoreg") != 1 {
			t.Errorf("%v: exit %d, %q; want one prefix %q", c.args, code, errs, c.want)
		}
	}
}

// TestDecimalIntFlags: integer flags are decimal. The flag package reads
// them as Go literals, so "--epochs 010" was 8 epochs and "--seed 0x10"
// seed 16; and the help still names their type after parsing.
func TestDecimalIntFlags(t *testing.T) {
	cmd := &Command{Name: "x", UsageLine: "x", Long: "x"}
	for _, c := range []struct {
		arg, want, err string
	}{
		{"010", "10", ""},
		{"+3", "3", ""},
		{"-07", "-7", ""},
		{"0x10", "", "not a decimal integer"},
		{"1_000", "", "not a decimal integer"},
		{"1e3", "", "not a decimal integer"},
		{" 5", "", "not a decimal integer"},
		{"99999999999999999999", "", "out of range"},
	} {
		fs := newFlagSet(cmd)
		n := fs.Int("n", 0, "a `count`")
		u := fs.Uint64("u", 0, "unsigned")
		err := parseFlags(cmd, fs, []string{"-n", c.arg})
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "-n") {
				t.Errorf("-n %q: %v, want an error saying %q", c.arg, err, c.err)
			}
			continue
		}
		if err != nil || strconv.Itoa(*n) != c.want {
			t.Errorf("-n %q: %d, %v; want %s", c.arg, *n, err, c.want)
		}
		if err := parseFlags(cmd, newUintSet(cmd, u), []string{"-u", "-1"}); err == nil || !strings.Contains(err.Error(), "non-negative decimal") {
			t.Errorf("-u -1: %v", err)
		}
		// Restored after parsing: the help names the type as before.
		var b strings.Builder
		printCommandHelp(&b, cmd, fs)
		if !strings.Contains(b.String(), "-n count") || !strings.Contains(b.String(), "-u uint") {
			t.Errorf("help after parsing:\n%s", b.String())
		}
	}
}

func newUintSet(cmd *Command, u *uint64) *flag.FlagSet {
	fs := newFlagSet(cmd)
	fs.Uint64Var(u, "u", 0, "unsigned")
	return fs
}

// TestThreadsLimit: a thread count past decoreg.MaxThreads is refused by
// every command that takes one, naming the flag (1000000 was accepted,
// and recorded in experiments' results as given); MaxThreads itself is not.
func TestThreadsLimit(t *testing.T) {
	over := strconv.Itoa(decoreg.MaxThreads + 1)
	dir := t.TempDir()
	data := writeSynth(t, dir, "train.csv", 30, 1)
	for _, args := range [][]string{
		{"train", "--data", data, "--out", filepath.Join(dir, "m.model"), "--threads", over},
		{"experiment", "bbob", "--quick", "--out", filepath.Join(dir, "e"), "--threads", over},
		{"bench", "uci", "--out", filepath.Join(dir, "u"), "--threads", over},
		{"bench", "gemm", "--threads", "1," + over},
		{"bench", "train", "--threads", over},
		{"bench", "sample", "--threads", over},
		{"bench", "predict", "--threads", over},
		{"demo", "--threads", over},
	} {
		code, _, errs := cli(t, args...)
		if code != 2 || !strings.Contains(errs, "threads") || !strings.Contains(errs, "4096") {
			t.Errorf("%v: exit %d %q", args, code, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "u")); err == nil {
		t.Error("bench uci made --out")
	}
	mustCLI(t, "train", "--data", data, "--out", filepath.Join(dir, "m.model"), "--threads", strconv.Itoa(decoreg.MaxThreads),
		"--epochs", "1", "--enc-layers", "1", "--enc-width", "4", "--quiet")
}

// TestUnknownFlagSuggestion: an unknown flag names the flag meant, where
// one is near (a typo, a changed case, or a word of it: --max-epochs for
// --epochs); a column name that differs by how an accent is encoded says
// so (the two print alike).
func TestUnknownFlagSuggestion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--max-epochs", "3"}, "flag provided but not defined: -max-epochs (did you mean --epochs?)"},
		{[]string{"train", "--epoch", "3"}, "(did you mean --epochs?)"},
		{[]string{"eval", "--Model", "m"}, "(did you mean --model?)"},
		{[]string{"predict", "--level", "0.5"}, "(did you mean --levels?)"},
		{[]string{"train", "--calibrate-method", "nll"}, "(did you mean --calibrate or --calibrate-by?)"},
		{[]string{"train", "--target-column", "y"}, "(did you mean --target or --target-range?)"},
		{[]string{"train", "--data-file", "d.csv"}, "(did you mean --data?)"},
	} {
		code, _, errs := cli(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, %s", c.args, code, errs)
		}
	}
	// Other tools' names, with underscores too; none where the command has
	// nothing like it, or where the words say little (review).
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--val-split", "0.2"}, "(did you mean --val-frac?)"},
		{[]string{"train", "--learning_rate", "0.1"}, "(did you mean --lr?)"},
		{[]string{"train", "--random-state", "1"}, "(did you mean --seed?)"},
		{[]string{"train", "--output", "m"}, "(did you mean --out?)"},
		{[]string{"train", "--input", "d.csv"}, "(did you mean --data?)"},
		{[]string{"train", "--na_values", "x"}, "(did you mean --na?)"},
		{[]string{"train", "--batch_size", "8"}, "(did you mean --batch?)"},
		// The experiments' --seeds counts splits; bench uci's are --splits.
		{[]string{"experiment", "uci", "--seeds", "2"}, "which has no --seeds: its splits are --splits"},
		{[]string{"train", "--seeds", "2"}, "(did you mean --seed?)"},
	} {
		if code, _, errs := cli(t, c.args...); code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, %s", c.args, code, errs)
		}
	}
	for _, args := range [][]string{{"train", "--nosuch", "1"}, {"train", "--max-depth", "3"}, {"train", "--test-size", "0.2"},
		{"train", "--port", "80"}, {"serve", "--na-values", "x"}, {"sample", "--n-jobs", "2"}, {"synth", "--listen"}} {
		if _, _, errs := cli(t, args...); strings.Contains(errs, "did you mean") {
			t.Errorf("%q: %s", args, errs)
		}
	}
	if got := didYouMean("cafe\u0301", []string{"caf\u00e9", "x"}); !strings.Contains(got, "an accent is written differently") {
		t.Errorf("NFD against NFC: %q", got)
	}
	if got := didYouMean("Cafe", []string{"cafe"}); got != `, did you mean "cafe"?` {
		t.Errorf("case: %q", got)
	}
}

// TestDurationFlagHint: a duration flag's value without a unit gets the
// advice of one (Go's "parse error" said nothing of it); other flags'
// errors get none.
func TestDurationFlagHint(t *testing.T) {
	for _, args := range [][]string{{"bench", "gemm", "--min-time", "1"}, {"train", "--budget", "5"}} {
		if code, _, errs := cli(t, args...); code != 2 || !strings.Contains(errs, "parse error (a duration with its unit, such as 90s, 500ms, 2m or 1h30m)") {
			t.Errorf("%q: exit %d, %s", args, code, errs)
		}
	}
	if _, _, errs := cli(t, "train", "--epochs", "x"); strings.Contains(errs, "duration") {
		t.Errorf("--epochs x: %s", errs)
	}
}
