package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"decoreg"
	"decoreg/data"
	"decoreg/internal/heapwatch"
)

// writeWide writes a CSV of n rows with a categorical column c of levels
// L0..L{levels-1} (in turn; with unseen, drawn at random, with a level
// L-new and missing cells every 97th row), a numeric x and a target y.
func writeWide(t *testing.T, path string, n, levels int, seed uint64, unseen bool) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 2))
	var b bytes.Buffer
	b.WriteString("c,x,y\n")
	for i := range n {
		l := i % levels
		if unseen {
			l = r.IntN(levels)
		}
		c := "L" + strconv.Itoa(l)
		if unseen && i%97 == 5 {
			c = "L-new"
		} else if unseen && i%97 == 50 {
			c = ""
		}
		x := r.Float64()
		fmt.Fprintf(&b, "%s,%.4f,%.4f\n", c, x, float64(l)/float64(levels)+0.3*x+0.05*r.NormFloat64())
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWideCategoricalChunked: predict, eval and sample encode a
// categorical column's one-hot levels a chunk of rows at a time, not the
// whole table (30,000 rows of 1,500 levels are 360 MB as float64s; they
// took that and more), and give what the library gives from the table
// encoded whole.
func TestWideCategoricalChunked(t *testing.T) {
	dir := t.TempDir()
	train, model := filepath.Join(dir, "train.csv"), filepath.Join(dir, "w.model")
	writeWide(t, train, 3000, 1500, 1, false)
	mustCLI(t, "train", "--data", train, "--out", model, "--head", "riemann", "--bins", "64", "--enc-width", "16", "--epochs", "1", "--max-levels", "2000", "--quiet")

	big := filepath.Join(dir, "big.csv")
	writeWide(t, big, 30000, 1500, 2, true)
	out := filepath.Join(dir, "out.csv")
	const table = 30000 * 1500 * 8
	for _, cmd := range [][]string{{"predict", "--out", out}, {"eval"}, {"sample", "--n", "1", "--out", out}} {
		var errs string
		peak := heapwatch.PeakLive(func() { _, errs = mustCLI(t, append(cmd, "--model", model, "--data", big)...) })
		t.Logf("%s: %.1f MB live at the peak", cmd[0], float64(peak)/(1<<20))
		if peak > table/3 {
			t.Errorf("%s of 30,000 rows of 1,500 levels: %.0f MB live at the peak; the encoded table is %d MB: want a chunk of it", cmd[0], float64(peak)/(1<<20), table>>20)
		}
		// The warnings count every row used, once.
		if !strings.Contains(errs, "310 cell(s) with a level not seen in training") || !strings.Contains(errs, "309 missing cell(s)") {
			t.Errorf("%s: warnings %s", cmd[0], errs)
		}
	}

	// The same numbers as the table encoded whole, through the library.
	mid := filepath.Join(dir, "mid.csv")
	writeWide(t, mid, 9000, 1500, 3, true)
	m, err := decoreg.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	fr, err := data.ReadFrame(mid, data.FrameOptions{Kinds: m.Schema().Kinds(), NA: m.Schema().NA})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := m.EncodeFrame(fr)
	if err != nil {
		t.Fatal(err)
	}
	y, err := fr.Targets(fr.Column("y"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	levels := decoreg.DefaultLevels
	p, err := m.PredictFlat(ctx, enc.X, enc.Rows, decoreg.PredictOptions{Outputs: decoreg.OutMean | decoreg.OutMedian | decoreg.OutMode | decoreg.OutQuantiles | decoreg.OutLogPDF, Levels: levels, Y: y})
	if err != nil {
		t.Fatal(err)
	}
	mustCLI(t, "predict", "--model", model, "--data", mid, "--out", out)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if len(lines) != 9001 {
		t.Fatalf("%d lines", len(lines))
	}
	for i := range 9000 {
		want := []string{strconv.Itoa(i), fmtFloat(p.Mean[i]), fmtFloat(p.Median[i]), fmtFloat(p.Mode[i])}
		for j := range levels {
			want = append(want, fmtFloat(p.Quantiles[j][i]))
		}
		want = append(want, fmtFloat(p.LogPDF[i]))
		if lines[i+1] != strings.Join(want, ",") {
			t.Fatalf("row %d: %s, want %s", i, lines[i+1], strings.Join(want, ","))
		}
	}
	e, err := m.Evaluate(ctx, enc.X, enc.Rows, y, "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.Calibration(ctx, enc.X, enc.Rows, y)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := mustCLI(t, "eval", "--model", model, "--data", mid)
	var ev map[string]any
	if err := json.Unmarshal([]byte(js), &ev); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]float64{"nll": e.NLL, "kendall_tau": e.KendallTau, "mse": e.MSE, "crps": c.CRPS, "pit_ece": c.PITError} {
		if ev[k] != v {
			t.Errorf("eval's %s %v, want %v", k, ev[k], v)
		}
	}
}
