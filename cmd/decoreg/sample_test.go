package main

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSampleSeed: the same seed gives the same draws, another seed others.
func TestSampleSeed(t *testing.T) {
	model := sharedModel(t, "decoder")
	args := []string{"sample", "--model", model, "--data", "testdata/cli/small.csv", "--n", "20"}
	a, _ := mustCLI(t, append(args, "--seed", "5")...)
	b, _ := mustCLI(t, append(args, "--seed", "5")...)
	c, _ := mustCLI(t, append(args, "--seed", "6")...)
	if a != b {
		t.Error("the same seed gave different samples")
	}
	if a == c {
		t.Error("seeds 5 and 6 gave the same samples")
	}
	// --out writes the same bytes to a file.
	out := filepath.Join(t.TempDir(), "s.csv")
	mustCLI(t, append(args, "--seed", "5", "--out", out)...)
	_, rows := readCSVFile(t, out)
	_, want := parseCSV(t, a)
	for i := range rows {
		for j := range rows[i] {
			if rows[i][j] != want[i][j] {
				t.Fatalf("--out file differs from stdout at row %d, column %d", i, j)
			}
		}
	}
}

// TestSampleSupportAndMean: draws of the bounded heads lie in the training
// range, their average agrees with predict's exact mean, and pointwise
// draws are the point itself.
func TestSampleSupportAndMean(t *testing.T) {
	const n = 4000
	for _, head := range []string{"decoder", "riemann", "pointwise"} {
		t.Run(head, func(t *testing.T) {
			model := sharedModel(t, head)
			m, err := loadModel("test", model)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := m.YRange()
			data := "testdata/cli/no_target.csv" // 2 rows
			std, _ := mustCLI(t, "sample", "--model", model, "--data", data, "--n", strconv.Itoa(n), "--seed", "1")
			header, rows := parseCSV(t, std)
			if len(header) != n+1 || len(rows) != 2 {
				t.Fatalf("%d columns and %d rows, want %d and 2", len(header), len(rows), n+1)
			}
			pstd, _ := mustCLI(t, "predict", "--model", model, "--data", data, "--out", "-")
			_, pred := parseCSV(t, pstd)
			for i, r := range rows {
				var s, s2 float64
				for _, v := range r[1:] {
					if head != "pointwise" && (v < lo || v > hi) {
						t.Fatalf("row %d: draw %v outside the training range [%v, %v]", i, v, lo, hi)
					}
					if head == "pointwise" && v != pred[i][1] {
						t.Fatalf("row %d: pointwise draw %v, the point is %v", i, v, pred[i][1])
					}
					s += v
					s2 += v * v
				}
				mean := s / n
				sd := math.Sqrt(max(0, s2/n-mean*mean))
				if d := math.Abs(mean - pred[i][1]); !(d <= 5*sd/math.Sqrt(n)+1e-9) {
					t.Errorf("row %d: sample mean %v, predicted mean %v (sd %v)", i, mean, pred[i][1], sd)
				}
			}
		})
	}
}

// TestSampleTopK1: top-k 1 picks the most probable token at every step, so
// every draw of a row falls in the same cell: with --centres, each is its
// centre.
func TestSampleTopK1(t *testing.T) {
	model := sharedModel(t, "decoder")
	std, _ := mustCLI(t, "sample", "--model", model, "--data", "testdata/cli/small.csv", "--n", "16", "--top-k", "1", "--centres")
	for _, line := range strings.Split(strings.TrimSpace(std), "\n")[1:] {
		f := strings.Split(line, ",")
		for _, v := range f[2:] {
			if v != f[1] {
				t.Fatalf("top-k 1 gave different draws: %s", line)
			}
		}
	}
}

// TestSampleWithinCells: with coarse cells (4 Riemann bins, a decoder of
// 2x2 cells) the draws follow the density that predict's quantiles
// describe: the share of draws below each quantile is its level (the
// draws of cell centres put 0 or most of them below q05); --centres draws
// only the centres; it is refused for heads without cells.
func TestSampleWithinCells(t *testing.T) {
	dir := t.TempDir()
	data := writeSynth(t, dir, "train.csv", 200, 1)
	const n = 20000
	for _, c := range []struct {
		name string
		args []string
	}{
		{"riemann", []string{"--bins", "4"}},
		{"decoder", []string{"--vocab", "normalized:base=2,length=2", "--dec-width", "16"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			model := filepath.Join(dir, c.name+".drg")
			mustCLI(t, append([]string{"train", "--data", data, "--out", model, "--head", c.name, "--enc-width", "16", "--epochs", "3", "--quiet"}, c.args...)...)
			in := "testdata/cli/no_target.csv"
			pstd, _ := mustCLI(t, "predict", "--model", model, "--data", in, "--levels", "0.05,0.25,0.5,0.75,0.95", "--out", "-")
			_, pred := parseCSV(t, pstd)
			std, _ := mustCLI(t, "sample", "--model", model, "--data", in, "--n", strconv.Itoa(n), "--seed", "3")
			_, rows := parseCSV(t, std)
			cstd, _ := mustCLI(t, "sample", "--model", model, "--data", in, "--n", "2000", "--seed", "3", "--centres")
			_, crows := parseCSV(t, cstd)
			for i, r := range rows {
				for j, q := range []float64{0.05, 0.25, 0.5, 0.75, 0.95} {
					below := 0
					for _, v := range r[1:] {
						if v <= pred[i][4+j] {
							below++
						}
					}
					if f := float64(below) / n; !(math.Abs(f-q) <= 5*math.Sqrt(q*(1-q)/n)) {
						t.Errorf("row %d: %.4f of the draws at or below q%v = %v", i, f, q, pred[i][4+j])
					}
				}
				distinct := map[float64]bool{}
				for _, v := range crows[i][1:] {
					distinct[v] = true
				}
				if len(distinct) > 4 {
					t.Errorf("row %d: --centres drew %d distinct values from 4 cells", i, len(distinct))
				}
			}
		})
	}
	code, _, errs := cli(t, "sample", "--model", sharedModel(t, "mdn"), "--data", "testdata/cli/no_target.csv", "--n", "2", "--centres")
	if code == 0 || !strings.Contains(errs, "--centres is for decoder and Riemann heads") {
		t.Errorf("--centres on an MDN: exit %d, %s", code, errs)
	}
}
