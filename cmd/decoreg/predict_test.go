package main

import (
	"decoreg/internal/heapwatch"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLevelName(t *testing.T) {
	for q, want := range map[float64]string{
		0.05: "q05", 0.25: "q25", 0.5: "q50", 0.95: "q95", 0.025: "q2.5", 0.975: "q97.5",
		0.999: "q99.9", 0: "q00", 1: "q100", 0.1: "q10", 0.001: "q0.1",
	} {
		if got := levelName(q); got != want {
			t.Errorf("levelName(%v) = %q, want %q", q, got, want)
		}
	}
}

// TestLevelsRoundingToOne: a level that is not 1 but reads as 1 in
// float64 (0.99999999999999999) is refused naming --levels and the value;
// it was taken as 1 (q100). 1 however written, and the largest float64
// below 1, are levels.
func TestLevelsRoundingToOne(t *testing.T) {
	for _, l := range []string{"0.99999999999999999", "0.99999999999999995", "0.999999999999999944488848768742172978818416595458984375", "9.9999999999999999e-1", "0x1.fffffffffffffffp-1", "0.5,0.99999999999999999999999999999"} {
		if _, _, err := parseLevels(l); err == nil || !strings.Contains(err.Error(), "would be read as 1") {
			t.Errorf("--levels %s: %v, want it refused as read as 1", l, err)
		}
	}
	for _, l := range []string{"1.00000000000000001", "1.0000000000000001"} {
		if _, _, err := parseLevels(l); err == nil || !strings.Contains(err.Error(), "not a number in [0, 1]") {
			t.Errorf("--levels %s: %v, want it refused as not in [0, 1]", l, err)
		}
	}
	for l, want := range map[string]string{"1": "q100", "1.000": "q100", "10e-1": "q100", "0x1p0": "q100", "100000000000000000000e-20": "q100", "0.9999999999999999": "q99.99999999999999", "0.99999999999999994": "q99.99999999999999"} {
		if _, names, err := parseLevels(l); err != nil || len(names) != 1 || names[0] != want {
			t.Errorf("--levels %s: %v, %v; want %s", l, names, err, want)
		}
	}
	code, _, errs := cli(t, "predict", "--model", sharedModel(t, "mdn"), "--data", "testdata/cli/small.csv", "--out", "-", "--levels", "0.5,0.99999999999999999")
	if code != 2 || !strings.Contains(errs, "--levels") || !strings.Contains(errs, `"0.99999999999999999"`) || !strings.Contains(errs, "would be read as 1") {
		t.Errorf("predict --levels 0.5,0.99999999999999999: exit %d %q", code, errs)
	}
}

// TestPredictLevelsAndStdout: custom levels name their columns, q50 is the
// median, stdout gets the same bytes as a file, and a file without the
// target column gets no logpdf column.
func TestPredictLevelsAndStdout(t *testing.T) {
	model := sharedModel(t, "decoder")
	dir := t.TempDir()
	out := filepath.Join(dir, "p.csv")
	args := []string{"predict", "--model", model, "--data", "testdata/cli/small.csv", "--levels", "0.025, 0.5,0.975"}
	mustCLI(t, append(args, "--out", out)...)
	file, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	std, _ := mustCLI(t, append(args, "--out", "-")...)
	if std != string(file) {
		t.Errorf("--out - wrote\n%s\nthe file holds\n%s", std, file)
	}
	header, rows := parseCSV(t, std)
	if strings.Join(header, ",") != "row,mean,median,mode,q2.5,q50,q97.5,logpdf" {
		t.Errorf("header %v", header)
	}
	if len(rows) != 12 {
		t.Fatalf("%d rows, want 12", len(rows))
	}
	for i, r := range rows {
		if !(math.Abs(r[2]-r[5]) <= 1e-9*math.Max(1, math.Abs(r[2]))) {
			t.Errorf("row %d: median %v, q50 %v", i, r[2], r[5])
		}
	}

	// No target column: no logpdf.
	std, _ = mustCLI(t, "predict", "--model", model, "--data", "testdata/cli/no_target.csv", "--out", "-")
	header, rows = parseCSV(t, std)
	if strings.Join(header, ",") != "row,mean,median,mode,q05,q25,q75,q95" || len(rows) != 2 {
		t.Errorf("without a target: header %v, %d rows", header, len(rows))
	}

	// A mask keeps the test rows and their original indices.
	std, _ = mustCLI(t, "predict", "--model", model, "--data", "testdata/cli/small.csv", "--out", "-",
		"--test-mask", "testdata/cli/mask12.csv", "--split", "1")
	_, rows = parseCSV(t, std)
	var idx []int
	for _, r := range rows {
		idx = append(idx, int(r[0]))
	}
	if got, want := idx, []int{1, 4, 7, 10}; !equalInts(got, want) {
		t.Errorf("split 1 rows %v, want %v", got, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPredictLogPDFIntegrates: for one x, exp(logpdf) over a grid of y
// spanning the training range integrates to 1 (the normalized decoder and
// the Riemann head have that range as their support, and are piecewise
// constant on cells that the grid's midpoints divide evenly).
func TestPredictLogPDFIntegrates(t *testing.T) {
	const n = 1024
	for _, head := range []string{"decoder", "riemann"} {
		t.Run(head, func(t *testing.T) {
			model := sharedModel(t, head)
			m, err := loadModel("test", model)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := m.YRange()
			step := (hi - lo) / n
			rows := make([][3]float64, n)
			for i := range rows {
				rows[i] = [3]float64{0.3, -0.2, lo + (float64(i)+0.5)*step}
			}
			path := filepath.Join(t.TempDir(), "grid.csv")
			writeRows(t, path, []string{"x0", "x1", "y"}, rows)
			std, _ := mustCLI(t, "predict", "--model", model, "--data", path, "--out", "-")
			_, p := parseCSV(t, std)
			var mass, mean float64
			for i, r := range p {
				w := math.Exp(r[8]) * step
				mass += w
				mean += w * rows[i][2]
			}
			if !(math.Abs(mass-1) <= 1e-4) {
				t.Errorf("integral of the density = %v, want 1", mass)
			}
			// The mean of the density is the predicted mean.
			if got := p[0][1]; !(math.Abs(got-mean) <= 1e-4*(hi-lo)) {
				t.Errorf("mean = %v, integral of y p(y) = %v", got, mean)
			}
		})
	}
}

// TestBlankLinesWarned: a blank line between rows is no row (the CSV
// reader skips it), so predict's row column counts rows without it; in a
// file of one column, where it is likely a missing cell, predict and
// sample say so and how to keep the row (a review saw row 1 name the
// third line's input without a word). A missing cell written "" is a row;
// a blank line after the last row is not warned about.
func TestBlankLinesWarned(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.drg")
	mustCLI(t, "train", "--data", filepath.Join("..", "..", "testdata", "mixed.csv"), "--target", "price", "--features", "area",
		"--enc-layers", "1", "--enc-width", "4", "--epochs", "1", "--threads", "1", "--quiet", "--out", model)
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		csv, want string
		rows      int
	}{
		{"area\n70\n\n120\n", `a blank line between its rows (line 3) is skipped: blank lines are no rows, and the rows are counted without them; in a file of one column, write a missing cell as NA or "" to keep its row`, 2},
		{"area\n70\n\"\"\n120\n\n\n", "", 3},
		{"area,price\n70,1\n\n\n120,2\n", "2 blank lines between its rows (the first on line 3) are skipped: blank lines are no rows, and the rows are counted without them\n", 2},
	} {
		p := write("p.csv", c.csv)
		for _, cmd := range [][]string{{"predict", "--model", model, "--data", p, "--out", "-"}, {"sample", "--model", model, "--data", p, "--n", "1", "--out", "-"}} {
			out, errs := mustCLI(t, cmd...)
			if got := strings.Contains(errs, "blank line"); c.want == "" && got || c.want != "" && !strings.Contains(errs, c.want) {
				t.Errorf("%s %q: want %q in:\n%s", cmd[0], c.csv, c.want, errs)
			}
			if n := strings.Count(out, "\n") - 1; cmd[0] == "predict" && n != c.rows {
				t.Errorf("predict %q: %d rows, want %d:\n%s", c.csv, n, c.rows, out)
			}
		}
	}
}

// TestPredictPartialTargetNoted: a target missing in some rows drops the
// logpdf column (it needs every row's); predict says so, naming the count
// and the first line (it said nothing: one unlabelled row in thousands
// removed every log-density). A target column blank in every row, as a
// template for predict's inputs has, gives no word.
func TestPredictPartialTargetNoted(t *testing.T) {
	dir := t.TempDir()
	train := writeTable(t, dir, "t.csv", "x,y", 60, func(i int) string { return fmt.Sprintf("%d.%d,%d", i%3, i%7, i%10+1) })
	model := filepath.Join(dir, "m.drg")
	mustCLI(t, append([]string{"train", "--data", train, "--out", model}, tinyArgs("riemann")...)...)
	part := writeTable(t, dir, "p.csv", "x,y", 4, func(i int) string { return fmt.Sprintf("1.5,%s", []string{"3", "", "NA", "4"}[i]) })
	out, errs := mustCLI(t, "predict", "--model", model, "--data", part, "--out", "-")
	if want := `the target column "y" is missing (empty, or one of the model's missing-value markers) in 2 of the 4 rows predicted (the first on line 3): no logpdf is written`; !strings.Contains(errs, want) || strings.Contains(out, "logpdf") {
		t.Errorf("stdout %s\nstderr %q lacks %q", out, errs, want)
	}
	// With --test-mask, the rows of the split decide: labelled test rows
	// get their logpdf, whatever the other rows hold (an unlabelled row
	// outside the split took it, with a warning naming that row).
	mask := filepath.Join(dir, "mask.csv")
	if err := os.WriteFile(mask, []byte("split0\n1\n0\n0\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs = mustCLI(t, "predict", "--model", model, "--data", part, "--test-mask", mask, "--split", "0", "--out", "-")
	if !strings.Contains(out, ",logpdf\n") || strings.Count(out, "\n") != 3 || strings.Contains(errs, "no logpdf") {
		t.Errorf("the labelled test rows: stdout %s\nstderr %s", out, errs)
	}
	if err := os.WriteFile(mask, []byte("split0\n1\n1\n0\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errs = mustCLI(t, "predict", "--model", model, "--data", part, "--test-mask", mask, "--split", "0", "--out", "-")
	if want := "in 1 of the 3 rows predicted (the first on line 3)"; strings.Contains(out, "logpdf") || !strings.Contains(errs, want) {
		t.Errorf("an unlabelled test row: stdout %s\nstderr %q lacks %q", out, errs, want)
	}
	blank := writeTable(t, dir, "b.csv", "x,y", 4, func(i int) string { return "1.5," })
	if out, errs := mustCLI(t, "predict", "--model", model, "--data", blank, "--out", "-"); strings.Contains(errs, "logpdf") || strings.Contains(out, "logpdf") {
		t.Errorf("a blank target column: stdout %s\nstderr %s", out, errs)
	}
}

// TestFarFeatureWarning: a cell far beyond its column's training range (a
// constant column's too) is counted in a warning by predict, eval and
// sample, and show lists each numeric column's training range; the model
// extrapolated there without a word (an MDN's mean of 1.8e29).
func TestFarFeatureWarning(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.csv")
	os.WriteFile(train, []byte("a,k,y\n1,7,3\n2,7,4\n3,7,5\n4,7,6\n5,7,5\n6,7,1\n"), 0o644)
	model := filepath.Join(dir, "m.model")
	mustCLI(t, "train", "--data", train, "--head", "mdn", "--epochs", "1", "--enc-layers", "1", "--enc-width", "8", "--quiet", "--out", model)
	in := filepath.Join(dir, "in.csv")
	os.WriteFile(in, []byte("a,k,y\n1,7,3\n2,1e30,3\n100,7,3\n-20,7,3\n7,7,3\n"), 0o644)
	for _, cmd := range [][]string{{"predict", "--out", "-"}, {"eval"}, {"sample", "--n", "1", "--out", "-"}} {
		_, errs := mustCLI(t, append([]string{cmd[0], "--model", model, "--data", in}, cmd[1:]...)...)
		if !strings.Contains(errs, `column "a": 2 cell(s) far beyond the training range [1, 6] (by more than its width)`) ||
			!strings.Contains(errs, `column "k": 1 cell(s) far beyond the training range [7, 7] (a constant in training)`) {
			t.Errorf("%s: stderr %q", cmd[0], errs)
		}
	}
	out, _ := mustCLI(t, "show", "--model", model)
	if !strings.Contains(out, "a  number in [1, 6] in training") {
		t.Errorf("show:\n%s", out)
	}
}

// TestOtherSeparatorForModel: predict, eval and sample given a file
// separated by tabs or semicolons say so, as train does (they said a
// feature was missing from the one column "a\tk\ty").
func TestOtherSeparatorForModel(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.csv")
	os.WriteFile(train, []byte("a,k,y\n1,7,3\n2,7,4\n3,7,5\n4,7,6\n5,7,5\n6,7,1\n"), 0o644)
	model := filepath.Join(dir, "m.model")
	mustCLI(t, "train", "--data", train, "--head", "mdn", "--epochs", "1", "--enc-layers", "1", "--enc-width", "8", "--quiet", "--out", model)
	tsv, semi := filepath.Join(dir, "in.tsv"), filepath.Join(dir, "in.csv")
	os.WriteFile(tsv, []byte("a\tk\ty\n1\t7\t3\n"), 0o644)
	os.WriteFile(semi, []byte("a;k;y\n1;7;3\n"), 0o644)
	for _, c := range []struct{ file, want, sep string }{{tsv, `holding "\t": if the file's fields are separated by it, give --sep tab`, "tab"}, {semi, `give --sep ';'`, ";"}} {
		for _, cmd := range [][]string{{"predict", "--out", "-"}, {"eval"}, {"sample", "--n", "1", "--out", "-"}} {
			code, _, errs := cli(t, append([]string{cmd[0], "--model", model, "--data", c.file}, cmd[1:]...)...)
			if code != 2 || !strings.Contains(errs, c.file+": line 1: the header is one column") || !strings.Contains(errs, c.want) {
				t.Errorf("%s %s: exit %d, %q", cmd[0], c.file, code, errs)
			}
			// As advised, it reads.
			code, _, errs = cli(t, append([]string{cmd[0], "--model", model, "--data", c.file, "--sep", c.sep}, cmd[1:]...)...)
			if code != 0 {
				t.Errorf("%s %s --sep %s: exit %d, %q", cmd[0], c.file, c.sep, code, errs)
			}
		}
	}
	// A comma file read with another separator is told so.
	code, _, errs := cli(t, "predict", "--model", model, "--data", train, "--sep", ";", "--out", "-")
	if code != 2 || !strings.Contains(errs, `holding ",": if the file's fields are separated by it, leave out --sep`) {
		t.Errorf("a comma file with --sep ';': exit %d, %q", code, errs)
	}
}

// TestPredictSampleMemoryFlat: predict of a file with the target (its
// logpdf) and sample hold the distributions of distRows rows at a time,
// not of every row: 20,000 rows of a 256-bin Riemann model kept about
// 190 MB live (a million rows 9 GB; 200,000 rows of a decoder 10 GB,
// helper-139), now a few MB. A row the model cannot take is still
// refused, naming its line, with nothing written.
func TestPredictSampleMemoryFlat(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "r.model")
	mustCLI(t, "train", "--data", writeSynth(t, dir, "train.csv", 200, 1), "--out", model, "--head", "riemann", "--bins", "256", "--enc-width", "16", "--epochs", "1", "--quiet")
	big := writeSynth(t, dir, "big.csv", 20000, 2)
	out := filepath.Join(dir, "out.csv")
	for _, cmd := range [][]string{{"predict"}, {"sample", "--n", "1"}} {
		peak := heapwatch.PeakLive(func() { mustCLI(t, append(cmd, "--model", model, "--data", big, "--out", out)...) })
		t.Logf("%s: %.1f MB live at the peak", cmd[0], float64(peak)/(1<<20))
		if peak > 48<<20 {
			t.Errorf("%s of 20,000 rows: %.0f MB live at the peak; want the distributions of a chunk of rows, a few MB", cmd[0], float64(peak)/(1<<20))
		}
	}
	// Row 700 (line 702), in the second chunk, overflows the network.
	raw, err := os.ReadFile(writeSynth(t, dir, "bad.csv", 1000, 3))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	lines[701] = "1e300,0.5,1"
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"predict"}, {"sample", "--n", "1"}} {
		os.Remove(out)
		code, _, errs := cli(t, append(cmd, "--model", model, "--data", bad, "--out", out)...)
		if _, err := os.Stat(out); code != 2 || !strings.Contains(errs, `line 702, column "x0"`) || err == nil {
			t.Errorf("%s with a row the network cannot take at line 702: exit %d, %s written: %v; %s", cmd[0], code, out, err == nil, errs)
		}
	}
}
