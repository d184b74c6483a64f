package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"decoreg"
)

// evalObject decodes eval's output: exactly one JSON object on one line,
// with exactly the documented fields.
func evalObject(t *testing.T, out string) map[string]any {
	t.Helper()
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Fatalf("eval output is not one line: %q", out)
	}
	var e map[string]any
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatalf("eval output is not JSON: %v: %s", err, out)
	}
	keys := []string{"n", "nll", "nll_u", "nll_token", "mse", "rel_mse", "kendall_tau", "clipped", "point", "crps", "crps_bound", "coverage", "interval_width", "pit_ece"}
	for _, k := range keys {
		if _, ok := e[k]; !ok {
			t.Errorf("eval output lacks %q: %s", k, out)
		}
	}
	if len(e) != len(keys) {
		t.Errorf("eval output has %d fields, want %d: %s", len(e), len(keys), out)
	}
	// Coverage and widths: one value per central level (null without a
	// distribution), coverage a fraction, wider for more mass.
	if cov, ok := e["coverage"].(map[string]any); ok {
		w := e["interval_width"].(map[string]any)
		prev := -1.0
		for _, l := range []string{"0.5", "0.8", "0.9", "0.95"} {
			c, _ := cov[l].(float64)
			wl, _ := w[l].(float64)
			if !(c >= 0 && c <= 1) || !(wl >= prev) {
				t.Errorf("coverage[%s] = %v, interval_width[%s] = %v: %s", l, cov[l], l, w[l], out)
			}
			prev = wl
		}
		if len(cov) != 4 || len(w) != 4 {
			t.Errorf("coverage or interval_width without 4 levels: %s", out)
		}
	} else if e["coverage"] != nil || e["pit_ece"] != nil || e["crps"] != nil {
		t.Errorf("coverage without a distribution: %s", out)
	}
	return e
}

// writeRows writes rows (x0, x1, y) as CSV with the given column order
// ("x0", "x1", "y" or any other name, which gets the constant 7).
func writeRows(t *testing.T, path string, cols []string, rows [][3]float64) {
	t.Helper()
	var b strings.Builder
	b.WriteString(strings.Join(cols, ",") + "\n")
	for _, r := range rows {
		for j, c := range cols {
			if j > 0 {
				b.WriteString(",")
			}
			switch c {
			case "x0":
				fmt.Fprintf(&b, "%g", r[0])
			case "x1":
				fmt.Fprintf(&b, "%g", r[1])
			case "y", "yy":
				fmt.Fprintf(&b, "%g", r[2])
			default:
				b.WriteString("7")
			}
		}
		b.WriteString("\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEvalMaskAndColumns: evaluating the test rows of a split equals
// evaluating a file of just those rows; columns are matched by name.
func TestEvalMaskAndColumns(t *testing.T) {
	model := sharedModel(t, "decoder")
	dir := t.TempDir()
	rows := synthRows(30, 8)
	all := filepath.Join(dir, "all.csv")
	writeRows(t, all, []string{"x0", "x1", "y"}, rows)
	var mask strings.Builder
	mask.WriteString("split0,split1,split2\n")
	var test2 [][3]float64
	for i, r := range rows {
		in := i%3 == 1
		fmt.Fprintf(&mask, "0,1,%d\n", b2i(in))
		if in {
			test2 = append(test2, r)
		}
	}
	mpath := filepath.Join(dir, "mask.csv")
	os.WriteFile(mpath, []byte(mask.String()), 0o644)
	sub := filepath.Join(dir, "sub.csv")
	writeRows(t, sub, []string{"x0", "x1", "y"}, test2)

	masked, _ := mustCLI(t, "eval", "--model", model, "--data", all, "--test-mask", mpath, "--split", "2")
	direct, _ := mustCLI(t, "eval", "--model", model, "--data", sub)
	if masked != direct {
		t.Errorf("split 2 of the mask:\n%s the same rows in a file:\n%s", masked, direct)
	}
	if e := evalObject(t, masked); e["n"] != float64(len(test2)) {
		t.Errorf("n = %v, want %d", e["n"], len(test2))
	}
	// Split 1 tests every row: the same as no mask.
	full, _ := mustCLI(t, "eval", "--model", model, "--data", all, "--test-mask", mpath, "--split", "1")
	nomask, _ := mustCLI(t, "eval", "--model", model, "--data", all)
	if full != nomask {
		t.Errorf("split 1 (every row):\n%s no mask:\n%s", full, nomask)
	}

	// Reordered columns with an extra one; the target renamed, named by --target.
	shuffled := filepath.Join(dir, "shuffled.csv")
	writeRows(t, shuffled, []string{"extra", "yy", "x1", "x0"}, rows)
	got, _ := mustCLI(t, "eval", "--model", model, "--data", shuffled, "--target", "yy")
	if got != nomask {
		t.Errorf("reordered columns:\n%s in order:\n%s", got, nomask)
	}
}

// TestEvalAgainstPredict checks eval's numbers against values computed here
// from predict's CSV: the NLL is the mean of -logpdf, the MSE that of the
// chosen point estimate, and clipped counts the targets outside the
// training range.
func TestEvalAgainstPredict(t *testing.T) {
	dir := t.TempDir()
	rows := synthRows(25, 9)
	rows[3][2] = 50 // outside the training range: clipped
	rows[7][2] = -50
	path := filepath.Join(dir, "test.csv")
	writeRows(t, path, []string{"x0", "x1", "y"}, rows)
	for _, head := range []string{"decoder", "riemann", "mdn"} {
		t.Run(head, func(t *testing.T) {
			model := sharedModel(t, head)
			m, err := decoreg.Load(model)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := m.YRange()
			pred := filepath.Join(dir, head+".csv")
			mustCLI(t, "predict", "--model", model, "--data", path, "--out", pred)
			_, p := readCSVFile(t, pred)
			for col, point := range map[int]string{1: "mean", 2: "median", 3: "mode"} {
				out, _ := mustCLI(t, "eval", "--model", model, "--data", path, "--point", point)
				e := evalObject(t, out)
				if e["point"] != point {
					t.Errorf("point = %v, want %s", e["point"], point)
				}
				var mse, varSum, mean float64
				for _, r := range rows {
					mean += r[2] / float64(len(rows))
				}
				clipped := 0
				for i, r := range rows {
					d := p[i][col] - r[2]
					mse += d * d / float64(len(rows))
					varSum += (r[2] - mean) * (r[2] - mean) / float64(len(rows))
					if r[2] < lo || r[2] > hi {
						clipped++
					}
				}
				if got := e["mse"].(float64); !(math.Abs(got-mse) <= 1e-9*math.Max(1, mse)) {
					t.Errorf("%s: mse = %v, from predict %v", point, got, mse)
				}
				if got := e["rel_mse"].(float64); !(math.Abs(got-mse/varSum) <= 1e-9) {
					t.Errorf("%s: rel_mse = %v, from predict %v", point, got, mse/varSum)
				}
				if e["clipped"] != float64(clipped) || clipped != 2 {
					t.Errorf("clipped = %v, counted %d (want 2)", e["clipped"], clipped)
				}
			}
			// NLL over the rows inside the range (logpdf of a target outside
			// the support is -Inf, eval clips it instead).
			inside := append(append([][3]float64{}, rows[:3]...), rows[4:7]...)
			inside = append(inside, rows[8:]...)
			ipath := filepath.Join(dir, head+"-inside.csv")
			writeRows(t, ipath, []string{"x0", "x1", "y"}, inside)
			out, _ := mustCLI(t, "eval", "--model", model, "--data", ipath)
			e := evalObject(t, out)
			var nll float64
			for i, r := range p {
				if i != 3 && i != 7 {
					nll -= r[8] / float64(len(inside))
				}
			}
			if got := e["nll"].(float64); !(math.Abs(got-nll) <= 1e-4*math.Max(1, math.Abs(nll))) {
				t.Errorf("nll = %v, mean -logpdf from predict = %v", got, nll)
			}
			if got, want := e["nll_u"].(float64), e["nll"].(float64)-math.Log(hi-lo); !(math.Abs(got-want) <= 1e-9) {
				t.Errorf("nll_u = %v, nll - log(range) = %v", got, want)
			}
		})
	}
}

// TestEvalDefaultPoint: median for an unnormalized decoder, mean otherwise.
func TestEvalDefaultPoint(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "u.model")
	args := []string{"train", "--data", sharedData(t), "--out", model, "--head", "decoder",
		"--vocab", "unnormalized:base=10,exponent=1,mantissa=2", "--enc-width", "16", "--dec-width", "16", "--epochs", "2", "--quiet"}
	mustCLI(t, args...)
	out, _ := mustCLI(t, "eval", "--model", model, "--data", "testdata/cli/small.csv")
	if e := evalObject(t, out); e["point"] != "median" || e["n"] != 12.0 {
		t.Errorf("unnormalized decoder: %s", out)
	}
	out, _ = mustCLI(t, "eval", "--model", sharedModel(t, "decoder"), "--data", "testdata/cli/small.csv")
	if e := evalObject(t, out); e["point"] != "mean" {
		t.Errorf("normalized decoder: %s", out)
	}
}

// sharedData returns the shared training data file.
func sharedData(t *testing.T) string {
	sharedModel(t, "decoder")
	return shared.data
}

// TestUnnamedModel: a model saved without column names (trained through the
// library) reads its inputs by position: the features in order, then
// optionally the target.
func TestUnnamedModel(t *testing.T) {
	rows := synthRows(120, 10)
	x := make([]float64, 0, 2*len(rows))
	y := make([]float64, 0, len(rows))
	for _, r := range rows {
		x = append(x, r[0], r[1])
		y = append(y, r[2])
	}
	m, err := decoreg.FitFlat(context.Background(), x, len(rows), 2, y,
		decoreg.Config{Head: decoreg.HeadRiemann, Bins: 16, EncWidth: 8, MaxEpochs: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	model := filepath.Join(dir, "m.model")
	if err := m.Save(model); err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(dir, "named.csv")
	writeRows(t, named, []string{"x0", "x1", "y"}, rows[:10])
	other := filepath.Join(dir, "other.csv")
	os.WriteFile(other, []byte(strings.Replace(mustRead(t, named), "x0,x1,y", "p,q,r", 1)), 0o644)
	a, _ := mustCLI(t, "eval", "--model", model, "--data", named)
	b, _ := mustCLI(t, "eval", "--model", model, "--data", other)
	if a != b || evalObject(t, a)["n"] != 10.0 {
		t.Errorf("by position: %s and %s", a, b)
	}
	// Two features without a name are two columns, each read where it
	// stands (the first was read twice).
	blank := filepath.Join(dir, "blank.csv")
	os.WriteFile(blank, []byte(strings.Replace(mustRead(t, named), "x0,x1,y", ",,y", 1)), 0o644)
	if c, _ := mustCLI(t, "eval", "--model", model, "--data", blank); c != a {
		t.Errorf("by position, two unnamed features: %s, want %s", c, a)
	}
	// Features only: predict has no logpdf, eval has no target.
	feats := filepath.Join(dir, "feats.csv")
	writeRows(t, feats, []string{"x0", "x1"}, rows[:3])
	out, _ := mustCLI(t, "predict", "--model", model, "--data", feats, "--out", "-")
	if h, r := parseCSV(t, out); strings.Join(h, ",") != "row,mean,median,mode,q05,q25,q75,q95" || len(r) != 3 {
		t.Errorf("predict on features only: %s", out)
	}
	code, _, errs := cli(t, "eval", "--model", model, "--data", feats)
	if code != 2 || !strings.Contains(errs, "feats.csv") || !strings.Contains(errs, "no target") {
		t.Errorf("eval without a target: exit %d, %q", code, errs)
	}
	// Too many columns.
	wide := filepath.Join(dir, "wide.csv")
	writeRows(t, wide, []string{"x0", "x1", "extra", "y"}, rows[:3])
	code, _, errs = cli(t, "eval", "--model", model, "--data", wide)
	if code != 2 || !strings.Contains(errs, "wide.csv: line 1: 3 feature columns, the model takes 2") {
		t.Errorf("eval with 3 feature columns: exit %d, %q", code, errs)
	}
	// A semicolon file: the --sep that reads it is named, as for a model
	// with a schema (it said a column was missing), and it reads.
	semi := filepath.Join(dir, "semi.csv")
	os.WriteFile(semi, []byte(strings.ReplaceAll(mustRead(t, named), ",", ";")), 0o644)
	code, _, errs = cli(t, "eval", "--model", model, "--data", semi)
	if code != 2 || !strings.Contains(errs, `semi.csv: line 1: the header is one column, "x0;x1;y", holding ";": if the file's fields are separated by it, give --sep ';'`) {
		t.Errorf("a semicolon file: exit %d, %q", code, errs)
	}
	if c, _ := mustCLI(t, "eval", "--model", model, "--data", semi, "--sep", ";"); c != a {
		t.Errorf("a semicolon file with --sep: %s, want %s", c, a)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEvalPlot: --plot writes a PNG of the calibration, refuses the
// pointwise head and an output that is an input.
func TestEvalPlot(t *testing.T) {
	dir := t.TempDir()
	png := filepath.Join(dir, "cal.png")
	model := sharedModel(t, "mdn")
	out, _ := mustCLI(t, "eval", "--model", model, "--data", "testdata/cli/small.csv", "--plot", png)
	e := evalObject(t, out)
	if c, ok := e["crps"].(float64); !ok || !(c > 0) {
		t.Errorf("crps %v", e["crps"])
	}
	b, err := os.ReadFile(png)
	if err != nil || len(b) < 1000 || string(b[1:4]) != "PNG" {
		t.Fatalf("plot: %v, %d bytes", err, len(b))
	}
	code, _, errs := cli(t, "eval", "--model", sharedModel(t, "pointwise"), "--data", "testdata/cli/small.csv", "--plot", png)
	if code != 2 || !strings.Contains(errs, "pointwise model") {
		t.Errorf("pointwise --plot: exit %d %q", code, errs)
	}
	code, out, errs = cli(t, "eval", "--model", model, "--data", "testdata/cli/small.csv", "--plot", "")
	if code != 2 || out != "" || !strings.Contains(errs, "--plot is empty") {
		t.Errorf("--plot \"\": exit %d %q %q", code, out, errs) // it printed the JSON and drew nothing, without a word
	}
	code, _, errs = cli(t, "eval", "--model", model, "--data", "testdata/cli/small.csv", "--plot", "-")
	if code != 2 || !strings.Contains(errs, "standard output carries the JSON") {
		t.Errorf("--plot -: exit %d %q", code, errs)
	}
	code, _, errs = cli(t, "eval", "--model", model, "--data", "testdata/cli/small.csv", "--plot", model)
	if code != 2 || !strings.Contains(errs, "--plot") {
		t.Errorf("--plot the model: exit %d %q", code, errs)
	}
	// The figure is a PNG: another extension is refused, a device taken.
	svg := filepath.Join(t.TempDir(), "calib.svg")
	code, _, errs = cli(t, "eval", "--model", model, "--data", "testdata/cli/small.csv", "--plot", svg)
	if _, err := os.Stat(svg); code != 2 || !strings.Contains(errs, "name the file with .png") || err == nil {
		t.Errorf("--plot calib.svg: exit %d %q", code, errs)
	}
	mustCLI(t, "eval", "--model", model, "--data", "testdata/cli/small.csv", "--plot", os.DevNull)
	// A link is written through: its target's name counts (a link to a
	// .png, dangling or not, was refused for its own name).
	ld := t.TempDir()
	for _, dangling := range []bool{true, false} {
		link := filepath.Join(ld, "figure")
		os.Remove(link)
		if err := os.Symlink("out.png", link); err != nil {
			t.Skip("no symbolic links:", err)
		}
		mustCLI(t, "eval", "--model", model, "--data", "testdata/cli/small.csv", "--plot", link)
		if b, err := os.ReadFile(filepath.Join(ld, "out.png")); err != nil || string(b[1:4]) != "PNG" {
			t.Errorf("through a link (dangling %v): %v", dangling, err)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link was replaced: %v", err)
		}
	}
	// A chain of links, dangling at its end: the end's name counts.
	os.Symlink("chain.png", filepath.Join(ld, "l1"))
	os.Symlink("l1", filepath.Join(ld, "l2"))
	mustCLI(t, "eval", "--model", model, "--data", "testdata/cli/small.csv", "--plot", filepath.Join(ld, "l2"))
	if _, err := os.Stat(filepath.Join(ld, "chain.png")); err != nil {
		t.Errorf("through a chain: %v", err)
	}
	for _, c := range [][2]string{{"svglink", "out.svg"}, {"named.png", "fig.svg"}, {"l4.png", "l3"}, {"l3", "dangling"}} {
		os.Symlink(c[1], filepath.Join(ld, c[0]))
	}
	for _, bad := range []string{"svglink", "named.png", "l4.png"} {
		if code, _, errs := cli(t, "eval", "--model", model, "--data", "testdata/cli/small.csv", "--plot", filepath.Join(ld, bad)); code != 2 || !strings.Contains(errs, "name the file with .png") {
			t.Errorf("%s: exit %d %q", bad, code, errs)
		}
	}
	for _, f := range []string{"out.svg", "fig.svg", "dangling"} {
		if _, err := os.Stat(filepath.Join(ld, f)); err == nil {
			t.Errorf("%s was written", f)
		}
	}
}

// TestWriteErrorsNameFlag: an output that cannot be written (/dev/full)
// fails naming its flag (eval's --plot, the --out of predict, sample,
// synth and train) as well as the path; the messages named only the path.
func TestWriteErrorsNameFlag(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full:", err)
	}
	code, _, errs := cli(t, "eval", "--model", sharedModel(t, "mdn"), "--data", "testdata/cli/small.csv", "--plot", "/dev/full")
	if code != 1 || !strings.Contains(errs, "--plot") || !strings.Contains(errs, "/dev/full") {
		t.Errorf("--plot /dev/full: exit %d %q", code, errs)
	}
	// So do the --out of every command that writes one.
	model := sharedModel(t, "mdn")
	for _, args := range [][]string{
		{"predict", "--model", model, "--data", "testdata/cli/small.csv", "--out", "/dev/full"},
		{"sample", "--model", model, "--data", "testdata/cli/small.csv", "--n", "3", "--out", "/dev/full"},
		{"synth", "bbob:function=Sphere,dim=2", "--n", "50", "--out", "/dev/full"},
		append([]string{"train", "--data", "testdata/cli/small.csv", "--out", "/dev/full"}, tinyArgs("mdn")...),
	} {
		code, _, errs := cli(t, args...)
		if code != 1 || !strings.Contains(errs, "--out: writing /dev/full") {
			t.Errorf("%s --out /dev/full: exit %d %q", args[0], code, errs)
		}
	}
}

// TestTrainCalibrate: --calibrate stores a temperature that the summary
// reports, eval reports the scores at it and without it, and it is refused
// for the pointwise head and without validation rows.
func TestTrainCalibrate(t *testing.T) {
	dir := t.TempDir()
	data := writeSynth(t, dir, "train.csv", 300, 3)
	model := filepath.Join(dir, "cal.model")
	out, _ := mustCLI(t, append([]string{"train", "--data", data, "--out", model, "--calibrate"}, tinyArgs("mdn")...)...)
	var s trainSummary
	if err := json.Unmarshal([]byte(out), &s); err != nil || !(s.Temperature >= 0.05 && s.Temperature <= 20) || s.Temperature == 1 ||
		!(s.ValNLLAfter < s.ValNLLBefore) {
		t.Fatalf("summary %s (%v)", out, err)
	}
	out, _ = mustCLI(t, "eval", "--model", model, "--data", "testdata/cli/small.csv")
	var e map[string]any
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	u, ok := e["uncalibrated"].(map[string]any)
	tau, isNum := u["kendall_tau"].(float64)
	if e["temperature"] != s.Temperature || !ok || len(u) != 10 || u["nll"] == e["nll"] || e["calibrate_by"] != "nll" || s.CalibrateBy != "nll" || s.ValPITAfter != 0 ||
		!isNum || !(tau >= -1 && tau <= 1) || u["mse"] == nil || u["rel_mse"] == nil {
		t.Errorf("eval of a calibrated model: %s", out)
	}
	// A target of 1e300 overflows the MSE: "+Inf" in both blocks (the
	// uncalibrated one wrote null).
	big := filepath.Join(dir, "big.csv")
	os.WriteFile(big, []byte("x0,x1,y\n0.1,0.2,1e300\n0.3,0.4,1\n"), 0o644)
	out, _ = mustCLI(t, "eval", "--model", model, "--data", big)
	e = nil
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if u, _ := e["uncalibrated"].(map[string]any); e["mse"] != "+Inf" || u == nil || u["mse"] != "+Inf" {
		t.Errorf("eval of an overflowing MSE: %s", out)
	}
	// --calibrate-by pit: the summary, the model file and eval name it.
	pit := filepath.Join(dir, "pit.model")
	out, _ = mustCLI(t, append([]string{"train", "--data", data, "--out", pit, "--calibrate", "--calibrate-by", "pit"}, tinyArgs("decoder")...)...)
	s = trainSummary{}
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.CalibrateBy != "pit" || !(s.ValPITAfter <= s.ValPITBefore) || s.ValPITBefore == 0 || s.ValNLLBefore == 0 {
		t.Fatalf("summary %s (%v)", out, err)
	}
	out, _ = mustCLI(t, "eval", "--model", pit, "--data", "testdata/cli/small.csv")
	e = nil
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if s.Temperature != 1 && (e["temperature"] != s.Temperature || e["calibrate_by"] != "pit") {
		t.Errorf("eval of a pit-calibrated model: %s", out)
	}
	// --calibrate-by isotonic: a map besides the temperature; eval reports
	// the scores without both, and sample refuses the decoder's sampling
	// options.
	iso := filepath.Join(dir, "iso.model")
	out, _ = mustCLI(t, append([]string{"train", "--data", data, "--out", iso, "--calibrate", "--calibrate-by", "isotonic"}, tinyArgs("decoder")...)...)
	s = trainSummary{}
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.CalibrateBy != "isotonic" || s.IsotonicSegments != 10 || !(s.IsotonicWeight >= 0.05) ||
		s.ValPITBefore == 0 || s.ValNLLAfter == 0 {
		t.Fatalf("summary %s (%v)", out, err)
	}
	out, _ = mustCLI(t, "eval", "--model", iso, "--data", "testdata/cli/small.csv")
	e = nil
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if u, ok := e["uncalibrated"].(map[string]any); !ok || e["calibrate_by"] != "isotonic" || u["nll"] == e["nll"] || e["nll_token"] != nil {
		t.Errorf("eval of an isotonic model: %s", out)
	}
	mustCLI(t, "sample", "--model", iso, "--data", "testdata/cli/small.csv", "--n", "3", "--out", filepath.Join(dir, "s.csv"))
	for _, f := range []string{"--temperature", "--top-k", "--top-p"} {
		v := map[string]string{"--temperature": "0.5", "--top-k": "2", "--top-p": "0.9"}[f]
		code, _, errs := cli(t, "sample", "--model", iso, "--data", "testdata/cli/small.csv", "--n", "3", f, v)
		if code != 2 || !strings.Contains(errs, f+" reshapes") {
			t.Errorf("sample %s on an isotonic model: exit %d %q", f, code, errs)
		}
	}
	// --calibrate-by depth: temperatures per token depth in the summary and
	// in eval, none beside them; sample and predict use them.
	dm := filepath.Join(dir, "depth.model")
	out, _ = mustCLI(t, append([]string{"train", "--data", data, "--out", dm, "--calibrate", "--calibrate-by", "depth"}, tinyArgs("decoder")...)...)
	var sd map[string]any
	if err := json.Unmarshal([]byte(out), &sd); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if ts, ok := sd["depth_temperatures"].([]any); !ok || len(ts) == 0 || sd["temperature"] != nil || sd["calibrate_by"] != "depth" ||
		!(sd["val_nll_calibrated"].(float64) <= sd["val_nll_uncalibrated"].(float64)) {
		t.Fatalf("summary of a depth-calibrated model: %s", out)
	}
	out, _ = mustCLI(t, "eval", "--model", dm, "--data", "testdata/cli/small.csv")
	e = nil
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if u, ok := e["uncalibrated"].(map[string]any); !ok || e["calibrate_by"] != "depth" || e["temperature"] != nil ||
		fmt.Sprint(e["depth_temperatures"]) != fmt.Sprint(sd["depth_temperatures"]) || u["nll"] == e["nll"] {
		t.Errorf("eval of a depth-calibrated model: %s", out)
	}
	mustCLI(t, "sample", "--model", dm, "--data", "testdata/cli/small.csv", "--n", "3", "--temperature", "0.5", "--out", filepath.Join(dir, "sd.csv"))
	mustCLI(t, "predict", "--model", dm, "--data", "testdata/cli/small.csv", "--out", filepath.Join(dir, "pd.csv"))
	// --stop-by depth: the validation loss is the one calibrated per depth,
	// which --calibrate-by depth then reaches on the same rows.
	out, _ = mustCLI(t, append([]string{"train", "--data", data, "--out", dm, "--stop-by", "depth", "--calibrate", "--calibrate-by", "depth"}, tinyArgs("decoder")...)...)
	sd = nil
	if err := json.Unmarshal([]byte(out), &sd); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if v, c := sd["val_loss"].(float64), sd["val_nll_calibrated"].(float64); math.Abs(v-c) > 1e-3 {
		t.Errorf("--stop-by depth: val_loss %v, calibrated %v: %s", v, c, out)
	}
	// --stop-by crps with --tune: the summary's val_loss is a CRPS in u
	// units.
	code, out, errs := cli(t, append([]string{"train", "--data", data, "--out", dm, "--stop-by", "crps", "--tune", "--trials", "2", "--budget", "1m", "--ensemble", "2"}, tinyArgs("decoder")...)...)
	sd = nil
	if err := json.Unmarshal([]byte(out), &sd); code != 0 || err != nil {
		t.Fatalf("--stop-by crps --tune: exit %d, %v: %s %s", code, err, out, errs)
	}
	if v, ok := sd["val_loss"].(float64); !ok || !(v > 0 && v < 1) {
		t.Errorf("--stop-by crps: val_loss %v: %s", sd["val_loss"], out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append([]string{"--calibrate"}, tinyArgs("pointwise")...), "--calibrate: the pointwise head has no distribution"},
		{append([]string{"--calibrate", "--val-frac", "0"}, tinyArgs("riemann")...), "--calibrate fits on the validation rows"},
		{append([]string{"--calibrate-by", "pit"}, tinyArgs("riemann")...), "--calibrate-by is for --calibrate"},
		{append([]string{"--calibrate-by", "isotonic"}, tinyArgs("mdn")...), "--calibrate-by is for --calibrate"},
		{append([]string{"--calibrate", "--calibrate-by", "isotonic"}, tinyArgs("pointwise")...), "--calibrate: the pointwise head has no distribution"},
		{append(tinyArgs("decoder"), "--calibrate", "--calibrate-by", "isotonic", "--vocab", "hamming:length=4"), "--calibrate-by: the isotonic objective needs a tree tokenization"},
		{append([]string{"--calibrate", "--calibrate-by", "ece"}, tinyArgs("mdn")...), `--calibrate-by: unknown calibration objective "ece"`},
		{append(tinyArgs("decoder"), "--calibrate", "--calibrate-by", "pit", "--vocab", "hamming:length=4"), "--calibrate-by: the pit objective needs a tree tokenization"},
		{append([]string{"--calibrate", "--calibrate-by", "depth"}, tinyArgs("mdn")...), "--calibrate-by: the depth objective needs the decoder head, have mdn"},
		{append([]string{"--calibrate", "--calibrate-by", "depth"}, tinyArgs("riemann")...), "--calibrate-by: the depth objective needs the decoder head, have riemann"},
		{append([]string{"--stop-by", "depth"}, tinyArgs("mdn")...), "--stop-by: early stopping by depth needs the decoder head, have mdn"},
		{append(tinyArgs("decoder"), "--stop-by", "depth", "--val-frac", "0"), "--stop-by is for early stopping, which needs validation rows"},
		{append(tinyArgs("decoder"), "--stop-by", "val"), `--stop-by: unknown early-stopping score "val"`},
		{append([]string{"--stop-by", "crps"}, tinyArgs("pointwise")...), "--stop-by: early stopping by CRPS needs a head with a distribution, have pointwise"},
		{append(tinyArgs("riemann"), "--stop-by", "crps", "--val-frac", "0"), "--stop-by is for early stopping, which needs validation rows"},
		{append(tinyArgs("decoder"), "--stop-by", "crps", "--vocab", "hamming:length=4"), "--stop-by: early stopping by CRPS needs a tree tokenization"},
		{append(tinyArgs("decoder"), "--stop-by", "crps", "--tune", "--tune-resolution", "0.001"), "--tune-resolution is the resolution of the NLL comparisons: with --stop-by crps"},
	} {
		code, _, errs := cli(t, append([]string{"train", "--data", data, "--out", filepath.Join(dir, "x.model")}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d %q", c.args, code, errs)
		}
	}
}

// --plot is refused where it names standard output's file, but not when
// that is the null device, where both are discarded.
func TestIsStdoutNullDevice(t *testing.T) {
	old := os.Stdout
	defer func() { os.Stdout = old }()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer null.Close()
	os.Stdout = null
	if isStdout(os.DevNull) {
		t.Errorf("%s as --plot with standard output on it: refused", os.DevNull)
	}
	if !isStdout("-") {
		t.Error(`"-" is not standard output`)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	os.Stdout = f
	if !isStdout(f.Name()) {
		t.Errorf("%s, standard output's file, is not taken for it", f.Name())
	}
	if isStdout(os.DevNull) {
		t.Errorf("%s taken for standard output on a file", os.DevNull)
	}
}

// TestEvalWarnsDiscreteTarget: eval warns when the scored targets take
// few distinct values (review: coverage 0.34 at every level for a target
// in {1, 2, 3}, the share of the middle value), counting the rows at the
// training range's ends; not for a continuous target.
func TestEvalWarnsDiscreteTarget(t *testing.T) {
	dir := t.TempDir()
	train := writeTable(t, dir, "few.csv", "x,y", 120, func(i int) string { return fmt.Sprintf("%d.%d,%d", i%3, i%7, i%3+1) })
	test := writeTable(t, dir, "few-test.csv", "x,y", 30, func(i int) string { return fmt.Sprintf("%d.5,%d", i%3, i%3+1) })
	model := filepath.Join(dir, "m.model")
	mustCLI(t, append([]string{"train", "--data", train, "--out", model}, tinyArgs("riemann")...)...)
	_, errs := mustCLI(t, "eval", "--model", model, "--data", test)
	if want := "the target takes 3 distinct values in the 30 rows scored: the NLL, coverage and PIT treat it as continuous, so a model that learns the values gets a very negative NLL and coverage that says little; 20 of the 30 rows are at an end of the training range [1, 3]"; !strings.Contains(errs, want) {
		t.Errorf("stderr %q lacks %q", errs, want)
	}
	cont := writeTable(t, dir, "cont-test.csv", "x,y", 30, func(i int) string { return fmt.Sprintf("%d.5,%d.%d", i%3, i%3+1, i) })
	if _, errs := mustCLI(t, "eval", "--model", model, "--data", cont); strings.Contains(errs, "distinct value") {
		t.Errorf("a continuous target: %s", errs)
	}
	few := writeTable(t, dir, "few-rows.csv", "x,y", 8, func(i int) string { return fmt.Sprintf("%d.5,2", i%3) })
	if _, errs := mustCLI(t, "eval", "--model", model, "--data", few); strings.Contains(errs, "distinct value") {
		t.Errorf("8 rows: %s", errs)
	}
	// The MDN's mass reaches past the range: no count of the ends.
	mdn := filepath.Join(dir, "mdn.model")
	mustCLI(t, append([]string{"train", "--data", train, "--out", mdn}, tinyArgs("mdn")...)...)
	if _, errs := mustCLI(t, "eval", "--model", mdn, "--data", test); !strings.Contains(errs, "distinct values") || strings.Contains(errs, "end of the training range") {
		t.Errorf("the MDN: %s", errs)
	}
}

// TestEvalWarnsClipped: targets outside the training range are scored at
// its nearest end (clipped), which eval's JSON counts; stderr says that
// nll is then not the mean of predict's -logpdf (a review took an MDN's
// nll of 11.4, for targets whose density was e^-1300, for a fault). No
// word when every target is inside.
func TestEvalWarnsClipped(t *testing.T) {
	dir := t.TempDir()
	train := writeTable(t, dir, "t.csv", "x,y", 120, func(i int) string { return fmt.Sprintf("%d.%d,%d", i%3, i%7, i%10+1) })
	model := filepath.Join(dir, "m.model")
	mustCLI(t, append([]string{"train", "--data", train, "--out", model}, tinyArgs("mdn")...)...)
	out := writeTable(t, dir, "out.csv", "x,y", 4, func(i int) string { return fmt.Sprintf("1.5,%d", []int{5, 500, -300, 7}[i]) })
	stdout, errs := mustCLI(t, "eval", "--model", model, "--data", out)
	if want := "2 of the 4 targets lie outside the training range [1, 10] (clipped): nll scores them at the range's nearest end, so it is not the mean of predict's -logpdf"; !strings.Contains(errs, want) || !strings.Contains(stdout, `"clipped":2`) {
		t.Errorf("stdout %s\nstderr %q lacks %q", stdout, errs, want)
	}
	in := writeTable(t, dir, "in.csv", "x,y", 4, func(i int) string { return fmt.Sprintf("1.5,%d", i+2) })
	if _, errs := mustCLI(t, "eval", "--model", model, "--data", in); strings.Contains(errs, "clipped") {
		t.Errorf("targets inside the range: %s", errs)
	}
}

// TestEvalTargetDidYouMean: eval names the nearest column for a --target
// the file lacks, as predict does, and for the model's own target (it
// said "give --target NAME" to a user who had given it).
func TestEvalTargetDidYouMean(t *testing.T) {
	dir := t.TempDir()
	train := writeTable(t, dir, "t.csv", "x,price", 60, func(i int) string { return fmt.Sprintf("%d.%d,%d", i%3, i%7, i%10+1) })
	model := filepath.Join(dir, "m.model")
	mustCLI(t, append([]string{"train", "--data", train, "--out", model}, tinyArgs("riemann")...)...)
	code, _, errs := cli(t, "eval", "--model", model, "--data", train, "--target", "Price")
	if want := `no column "Price", did you mean "price"? (--target; the file's columns are "x", "price")`; code != 2 || !strings.Contains(errs, want) {
		t.Errorf("exit %d, stderr %q lacks %q", code, errs, want)
	}
	renamed := writeTable(t, dir, "r.csv", "x,Price", 5, func(i int) string { return fmt.Sprintf("%d.5,%d", i%3, i+2) })
	code, _, errs = cli(t, "eval", "--model", model, "--data", renamed)
	if want := `no column "price", the model's target, did you mean "Price"? (give --target NAME; the file's columns are "x", "Price")`; code != 2 || !strings.Contains(errs, want) {
		t.Errorf("exit %d, stderr %q lacks %q", code, errs, want)
	}
}

// TestEvalIsotonicAtRangeEdge: eval's NLL of an isotonic-calibrated raw
// unnormalized decoder is the mean of predict's -logpdf when targets lie on
// the training range's edge (here the integers 0..6, many of them 0, which
// the zero cell holds). eval read the map's slope at the CDF of a target
// moved a hair inside the range, predict at the target's: the two lay in
// different segments of the map on such rows (off by log 1.5 and log 3;
// 0.08 nats on the mean, with clipped 0). The files are helper-110's
// (testdata/isoedge-*.csv: y = round(2 + a level's effect + 2 x0 + sin x1)
// clipped to [0, 6]).
func TestEvalIsotonicAtRangeEdge(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "iso.model")
	mustCLI(t, "train", "--data", "testdata/isoedge-train.csv", "--out", model, "--quiet", "--threads", "1", "--epochs", "2",
		"--enc-width", "32", "--vocab", "unnormalized:base=10,exponent=2,mantissa=3", "--raw-target", "--calibrate", "--calibrate-by", "isotonic")
	out, _ := mustCLI(t, "eval", "--model", model, "--data", "testdata/isoedge-test.csv")
	var e map[string]any
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatal(err)
	}
	pred := filepath.Join(dir, "p.csv")
	mustCLI(t, "predict", "--model", model, "--data", "testdata/isoedge-test.csv", "--out", pred)
	head, rows := readCSVFile(t, pred)
	col := slices.Index(head, "logpdf")
	if col < 0 || len(rows) != 58 {
		t.Fatalf("predict's columns %q, %d rows", head, len(rows))
	}
	var nll float64
	for _, r := range rows {
		nll -= r[col] / float64(len(rows))
	}
	if got := e["nll"].(float64); e["clipped"] != 0.0 || !(math.Abs(got-nll) <= 1e-6*math.Max(1, math.Abs(nll))) {
		t.Errorf("nll %v (clipped %v), mean -logpdf from predict %v", got, e["clipped"], nll)
	}
}
