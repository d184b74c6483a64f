package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"decoreg"
	"decoreg/internal/modelfile"
)

// showData writes a table of a categorical column (levels F, I, M), a
// numeric column with blanks, a complete numeric column and a target
// missing on 6 rows, and returns its path with the median of the numeric
// column with blanks and the range of the target over the rows trained on
// (those with a target), computed here from the values written.
func showData(t *testing.T, dir string) (path string, ageMedian, yLo, yHi float64) {
	t.Helper()
	var b strings.Builder
	b.WriteString("sex,age,size,y\n")
	var ages []float64
	yLo, yHi = math.Inf(1), math.Inf(-1)
	for i := range 240 {
		sex := []string{"M", "F", "I"}[i%3]
		age := float64((i*37)%101) / 10
		size := float64((i*13)%17) - 8
		y := age + float64(i%3) + 0.1*size
		ageCell, yCell := strconv.FormatFloat(age, 'f', -1, 64), strconv.FormatFloat(y, 'f', -1, 64)
		if i%10 == 4 {
			ageCell = ""
		}
		if i%40 == 7 {
			yCell = "NA"
		}
		fmt.Fprintf(&b, "%s,%s,%v,%s\n", sex, ageCell, size, yCell)
		if yCell == "NA" {
			continue
		}
		if ageCell != "" {
			ages = append(ages, age)
		}
		yLo, yHi = min(yLo, y), max(yHi, y)
	}
	slices.Sort(ages)
	n := len(ages)
	ageMedian = ages[n/2]
	if n%2 == 0 {
		ageMedian = (ages[n/2-1] + ages[n/2]) / 2
	}
	path = filepath.Join(dir, "d.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, ageMedian, yLo, yHi
}

// TestShow: 'decoreg show' describes a model's columns (kinds, levels,
// medians, indicators), target range, training, calibration, ensemble and
// trial history, as text and as JSON, with the figures computed from the
// data here and the settings given to train.
func TestShow(t *testing.T) {
	dir := t.TempDir()
	data, med, lo, hi := showData(t, dir)
	single := filepath.Join(dir, "s.model")
	mustCLI(t, "train", "--data", data, "--out", single, "--epochs", "2", "--enc-width", "16", "--threads", "1",
		"--calibrate", "--vocab", "normalized:base=4,length=3", "--seed", "7", "--quiet")
	out, _ := mustCLI(t, "show", "--model", single)
	for _, want := range []string{
		"model        " + single + " (decoreg ",
		"head         decoder, tokenization normalized:base=4,length=3\n",
		"network      encoder mlp 2x16, decoder 1 layer(s) x 32, 1 attention head(s); ",
		fmt.Sprintf("target       \"y\", training range [%s, %s]\n", short(lo), short(hi)),
		"columns      3, encoded as 6 network inputs; cells read as missing: \"\", \"NA\", \"NaN\", \"?\"\n",
		`category, 3 level(s): "F", "I", "M"`,
		"age   number in [0, 10] in training; ",
		fmt.Sprintf("] in training; a missing cell reads as %s (the training median), with an indicator\n", short(med)),
		"training     234 rows, 23 of them held out for validation (6 more skipped: no target); 2 epoch(s), best ",
		"max epochs 2, patience 5, validation fraction 0.1, seed 7",
		"calibration  temperature ",
		"(--calibrate-by nll, on 23 validation rows); validation NLL ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("show's text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ensemble") || strings.Contains(out, "tune ") {
		t.Errorf("a single, untuned model shows an ensemble or a search:\n%s", out)
	}

	js, _ := mustCLI(t, "show", "--model", single, "--json")
	var got struct {
		Head, Tokenization, Target string
		YRange                     [2]float64 `json:"y_range"`
		Columns                    []struct {
			Name, Kind string
			Levels     []string
			Median     *float64
			Missing    bool
		}
		NA       []string
		Features []string
		Params   int
		Config   struct {
			Seed     uint64
			EncWidth int `json:"enc_width"`
		}
		Train struct {
			Rows        int
			SkippedRows int `json:"skipped_rows"`
			Temperature float64
		}
		Members []json.RawMessage
	}
	if err := json.Unmarshal([]byte(js), &got); err != nil {
		t.Fatalf("show --json: %v\n%s", err, js)
	}
	if got.Head != "decoder" || got.Tokenization != "normalized:base=4,length=3" || got.Target != "y" ||
		got.YRange != [2]float64{lo, hi} || got.Config.Seed != 7 || got.Config.EncWidth != 16 ||
		got.Train.Rows != 234 || got.Train.SkippedRows != 6 || !(got.Train.Temperature > 0) || got.Members != nil || got.Params <= 0 {
		t.Errorf("show --json: %+v", got)
	}
	if !slices.Equal(got.Features, []string{"sex=F", "sex=I", "sex=M", "age", "age:missing", "size"}) || !slices.Equal(got.NA, []string{"NA", "NaN", "?"}) {
		t.Errorf("features %q, na %q", got.Features, got.NA)
	}
	if c := got.Columns; len(c) != 3 || c[0].Kind != "category" || !slices.Equal(c[0].Levels, []string{"F", "I", "M"}) || c[0].Median != nil ||
		c[1].Kind != "number" || c[1].Median == nil || *c[1].Median != med || !c[1].Missing || c[2].Missing || c[2].Median == nil {
		t.Errorf("columns %+v", c)
	}

	// A tuned ensemble (the best trial and a seed of it): its members and
	// its trial table.
	tuned := filepath.Join(dir, "t.model")
	mustCLI(t, "train", "--data", data, "--out", tuned, "--head", "mdn", "--tune", "--trials", "2", "--budget", "60s",
		"--epochs", "2", "--enc-width", "16", "--threads", "1", "--ensemble", "2", "--ensemble-from", "seeds", "--quiet")
	out, _ = mustCLI(t, "show", "--model", tuned, "--columns", "1")
	for _, want := range []string{"head         mdn, ", "ensemble     2 members, an equal mixture:\n", "\n  1       ", "\n  2       ",
		"tune         2 trial(s); ", " (the whole fit: every trial and member), 1 thread(s)", "\n  trial chosen    val_loss", "  ... 2 more (--columns N lists more; --json lists all)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("show's text of a tuned ensemble lacks %q:\n%s", want, out)
		}
	}
	js, _ = mustCLI(t, "show", "--model", tuned, "--json")
	var tj struct {
		Members []struct{ Config struct{ Head string } }
		Train   struct {
			Tune struct{ Trials []struct{ Chosen bool } }
		}
	}
	if err := json.Unmarshal([]byte(js), &tj); err != nil {
		t.Fatal(err)
	}
	if len(tj.Members) != 1 || tj.Members[0].Config.Head != "mdn" || len(tj.Train.Tune.Trials) != 2 || tj.Train.Tune.Trials[0].Chosen == tj.Train.Tune.Trials[1].Chosen {
		t.Errorf("show --json of a tuned ensemble of the best of 2 trials and its seed: %+v", tj)
	}
}

// TestShowBadInput: show's flags and files are checked as the other
// commands' are.
func TestShowBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"show"}, "--model is required"},
		{[]string{"show", "--model", filepath.Join(dir, "none.model")}, "--model " + filepath.Join(dir, "none.model") + ": no such file"},
		{[]string{"show", "--model", dir}, "is a directory"},
		{[]string{"show", "--model", "-"}, "a model is read from its file"},
		{[]string{"show", "--model", "m", "extra"}, `unexpected argument "extra"`},
		{[]string{"show", "--model", "m", "--columns", "-1"}, "--columns -1"},
		{[]string{"show", "--model", "m", "--json", "--columns", "3"}, "--json lists every column"},
	} {
		code, out, errs := cli(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestShowLibraryModel: a model fitted through the Go library without
// names shows its inputs as x0, x1, ... and says they are matched by
// position.
func TestShowLibraryModel(t *testing.T) {
	x := make([]float64, 0, 2*60)
	y := make([]float64, 60)
	for i := range y {
		a, b := float64(i%7), float64(i%5)
		x = append(x, a, b)
		y[i] = a - b
	}
	m, err := decoreg.FitFlat(context.Background(), x, 60, 2, y, decoreg.Config{Head: decoreg.HeadRiemann, Bins: 16, EncLayers: 1, EncWidth: 8, MaxEpochs: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "lib.model")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	out, _ := mustCLI(t, "show", "--model", path)
	for _, want := range []string{"head         riemann, 16 bins\n", "target       (no name), training range [-4, 6]\n",
		"columns      2 (a model of the Go library without names: inputs by position)\n", "  x0  number\n", "  x1  number\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	// A bounded unnormalized decoder's support: its cells, where its
	// distributions put their mass, beyond the training range [-4, 6]
	// by the 10% margin and less than a cell more (base 2, mantissa 3:
	// cells of 1 between 4 and 8).
	m, err = decoreg.FitFlat(context.Background(), x, 60, 2, y, decoreg.Config{Vocab: "unnormalized:base=2,exponent=3,mantissa=3", RawTarget: true, EncLayers: 1, EncWidth: 8, MaxEpochs: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	js, _ := mustCLI(t, "show", "--model", path, "--json")
	var sj struct{ Support [2]float64 }
	if err := json.Unmarshal([]byte(js), &sj); err != nil {
		t.Fatal(err)
	}
	d, err := m.Dist([]float64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := sj.Support[0], sj.Support[1]
	if !(lo <= d.Quantile(0) && d.Quantile(1) <= hi && lo <= -5 && lo > -5-2 && hi >= 7 && hi < 7+2) {
		t.Errorf("support [%v, %v]; a row's quantiles 0 and 1 %v, %v", lo, hi, d.Quantile(0), d.Quantile(1))
	}
	if out, _ := mustCLI(t, "show", "--model", path); !strings.Contains(out, "\nsupport      [") {
		t.Errorf("show lacks the support:\n%s", out)
	}
	// Repeated copies of a bounded tokenization have its support.
	m, err = decoreg.FitFlat(context.Background(), x, 60, 2, y, decoreg.Config{Vocab: "unnormalized:base=2,exponent=3,mantissa=3,repeat=2", RawTarget: true, EncLayers: 1, EncWidth: 8, MaxEpochs: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	js, _ = mustCLI(t, "show", "--model", path, "--json")
	var rj struct{ Support [2]float64 }
	if err := json.Unmarshal([]byte(js), &rj); err != nil || rj.Support != sj.Support {
		t.Errorf("repeat=2: support %v (%v), the tree's %v", rj.Support, err, sj.Support)
	}
	// A fixed target range is shown as such.
	m, err = decoreg.FitFlat(context.Background(), x, 60, 2, y, decoreg.Config{Head: decoreg.HeadMDN, EncLayers: 1, EncWidth: 8, MaxEpochs: 1, Threads: 1, TargetMin: -5, TargetMax: 7})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	if out, _ := mustCLI(t, "show", "--model", path); !strings.Contains(out, "target       (no name), fixed range [-5, 7] (--target-range)\n") {
		t.Errorf("show of a fixed range:\n%s", out)
	}
	// A range far from 0 for its width: the ends told apart (they read
	// [1e+09, 1e+09]), and the support, cut at them, is the range.
	far := make([]float64, len(y))
	for i, v := range y {
		far[i] = min(1e9+0.3, 1e9+0.1+0.02*(v+4))
	}
	m, err = decoreg.FitFlat(context.Background(), x, 60, 2, far, decoreg.Config{Vocab: "unnormalized:base=7,exponent=1,mantissa=8", EncLayers: 1, EncWidth: 8, MaxEpochs: 1, Threads: 1, TargetMin: 1e9 + 0.1, TargetMax: 1e9 + 0.3})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	out, _ = mustCLI(t, "show", "--model", path)
	for _, want := range []string{"fixed range [1000000000.1, 1000000000.3] (--target-range)\n", "support      [1000000000.1, 1000000000.3]: an unnormalized decoder's cells that meet the fixed range, a cell across an end cut there\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	// An ensemble of a model whose cells are cut at the range's ends and
	// one from a file written before (kept whole): the support is the
	// widest, and not said to be cut (it was the first member's).
	m, err = decoreg.FitFlat(context.Background(), x, 60, 2, y, decoreg.Config{Vocab: "unnormalized:base=3,exponent=1,mantissa=2", RawTarget: true, EncLayers: 1, EncWidth: 8, MaxEpochs: 1, Threads: 1, TargetMin: -4.5, TargetMax: 6.5})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	h, p, err := modelfile.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(h, []byte(`,"ends_cut":1`)) {
		t.Fatalf("no ends_cut in %s", h)
	}
	var old bytes.Buffer
	if err := modelfile.Encode(&old, bytes.Replace(h, []byte(`,"ends_cut":1`), nil, 1), p); err != nil {
		t.Fatal(err)
	}
	oldPath := filepath.Join(t.TempDir(), "old.model")
	if err := os.WriteFile(oldPath, old.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	whole, err := decoreg.Load(oldPath)
	if err != nil {
		t.Fatal(err)
	}
	ens, err := decoreg.NewEnsemble(m, whole)
	if err != nil {
		t.Fatal(err)
	}
	if err := ens.Save(path); err != nil {
		t.Fatal(err)
	}
	out, _ = mustCLI(t, "show", "--model", path)
	if !strings.Contains(out, "support      [-5, 7]: an unnormalized decoder's cells that meet the fixed range (a cell across an end is kept whole, as in files written before the cut)\n") {
		t.Errorf("show of a mixed ensemble:\n%s", out)
	}
}

// TestShowNameText: a column name that a line would not show as itself
// is quoted in show's list, and so is a string of the file's record (a
// file edited by hand sent escape codes and lines of its own).
func TestShowNameText(t *testing.T) {
	for in, want := range map[string]string{"a b": "a b", "é": "é", "x\ty": `"x\ty"`, "p\nq": `"p\nq"`, "": `""`, " s": `" s"`} {
		if got := nameText(in); got != want {
			t.Errorf("nameText(%q) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{"0.1.0": "0.1.0", "2026-12-07T06:54:03Z": "2026-12-07T06:54:03Z", "0.1.0\x1b[31mRED\nfake": `"0.1.0\x1b[31mRED\nfake"`, "\r": `"\r"`} {
		if got := textOf(in); got != want {
			t.Errorf("textOf(%q) = %s, want %s", in, got, want)
		}
	}
}

// A support shown beside its range: the digits that tell an end from the
// range's where they differ (a support of [100000, 100005.01] read as the
// fixed range [100000, 100005], helper-120), not where they differ by a
// rounding.
func TestShowIntervalBeside(t *testing.T) {
	for _, c := range []struct {
		a, b, lo, hi float64
		want         string
	}{
		{100000, 100005.01, 100000, 100005, "[100000, 100005.01]"},
		{0, 6, 0, 6, "[0, 6]"},
		{-1.0 / 27, 6 + 1.0/27, 0, 6, "[-0.037037, 6.03704]"},
		{math.Nextafter(1e9+0.1, 0), 1e9 + 0.3, 1e9 + 0.1, 1e9 + 0.3, "[1000000000.1, 1000000000.3]"},
		{1e9 + 0.1, 1e9 + 0.3 + 1e-6, 1e9 + 0.1, 1e9 + 0.3, "[1000000000.1, 1000000000.300001]"},
		// With at least the range's digits: its low end read 100 beside
		// the range's 99.99999999999999 (helper-123).
		{99.999999999999986, 101, 99.999999999999986, 100, "[99.99999999999999, 101]"},
	} {
		if got := intervalBeside(c.a, c.b, c.lo, c.hi); got != c.want {
			t.Errorf("intervalBeside(%v, %v, %v, %v) = %s, want %s", c.a, c.b, c.lo, c.hi, got, c.want)
		}
	}
}

// TestShowNoValidation: a model trained with --val-frac 0 shows its
// validation fraction as 0, not as the library's marker -1, and no
// validation losses or patience: its pretraining's and its members' were
// shown as 0 (helper-135), in the text and in --json.
func TestShowNoValidation(t *testing.T) {
	dir := t.TempDir()
	data := writeSynth(t, dir, "d.csv", 40, 1)
	model := filepath.Join(dir, "m.model")
	mustCLI(t, "train", "--data", data, "--head", "pointwise", "--epochs", "1", "--val-frac", "0", "--quiet", "--out", model)
	out, _ := mustCLI(t, "show", "--model", model)
	if !strings.Contains(out, "validation fraction 0 (no validation rows") || strings.Contains(out, "fraction -1") {
		t.Errorf("show:\n%s", out)
	}
	ens := filepath.Join(dir, "e.model")
	mustCLI(t, "train", "--data", data, "--epochs", "1", "--val-frac", "0", "--ensemble", "2", "--pretrain", "pointwise", "--quiet", "--out", ens)
	out, _ = mustCLI(t, "show", "--model", ens)
	if strings.Contains(out, "validation MSE") || strings.Contains(out, "0.0000") || strings.Contains(out, "patience") {
		t.Errorf("show of a model without validation rows shows a validation loss or patience:\n%s", out)
	}
	js, _ := mustCLI(t, "show", "--model", ens, "--json")
	var rec struct {
		Train struct {
			Pretrain map[string]any `json:"pretrain"`
		} `json:"train"`
		Members []struct {
			Train struct {
				BestValLoss any            `json:"best_val_loss"`
				Pretrain    map[string]any `json:"pretrain"`
			} `json:"train"`
		} `json:"members"`
	}
	if err := json.Unmarshal([]byte(js), &rec); err != nil {
		t.Fatal(err)
	}
	if v, ok := rec.Train.Pretrain["best_val_loss"]; !ok || v != nil {
		t.Errorf("show --json: train.pretrain.best_val_loss %v (present %v), want null", v, ok)
	}
	if len(rec.Members) != 1 { // the members after the first
		t.Fatalf("show --json: %d members after the first, want 1", len(rec.Members))
	}
	for i, mb := range rec.Members {
		if v, ok := mb.Train.Pretrain["best_val_loss"]; mb.Train.BestValLoss != nil || !ok || v != nil {
			t.Errorf("show --json: member %d's best_val_loss %v, its pretrain's %v (present %v), want null", i, mb.Train.BestValLoss, v, ok)
		}
	}
}
