package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"decoreg"
	"decoreg/internal/experiments"
)

// writeGz writes text to path, gzipped.
func writeGz(t *testing.T, path, text string) {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(text))
	zw.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeUCIFixture writes a tiny UCI-style dataset: rows rows of 3 features
// and a target, and a mask of splits splits where row i is a test row of
// split i mod splits.
func writeUCIFixture(t *testing.T, dir, name string, rows, splits int) {
	t.Helper()
	var d, m strings.Builder
	d.WriteString("x0,x1,x2,y\n")
	for s := 0; s < splits; s++ {
		if s > 0 {
			m.WriteString(",")
		}
		fmt.Fprintf(&m, "split%d", s)
	}
	m.WriteString("\n")
	for i := 0; i < rows; i++ {
		a, b, c := math.Sin(float64(i)), math.Cos(float64(3*i)), float64(i%7)/7
		fmt.Fprintf(&d, "%g,%g,%g,%g\n", a, b, c, 2*a-b+0.3*c+0.1*math.Sin(float64(11*i)))
		for s := 0; s < splits; s++ {
			if s > 0 {
				m.WriteString(",")
			}
			if i%splits == s {
				m.WriteString("1")
			} else {
				m.WriteString("0")
			}
		}
		m.WriteString("\n")
	}
	writeGz(t, filepath.Join(dir, name, experiments.DataFile), d.String())
	writeGz(t, filepath.Join(dir, name, experiments.MaskFile), m.String())
}

// resultFiles lists the result files under dir, relative to it.
func resultFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// tinyUCIArgs are the flags of a fast benchmark on the fixture.
func tinyUCIArgs(data, out string, extra ...string) []string {
	a := []string{"bench", "uci", "--data", data, "--out", out, "--splits", "0-2", "--max-epochs", "2",
		"--enc-layers", "1", "--enc-width", "8", "--dec-width", "8", "--batch-size", "16", "--threads", "1",
		"--point", "median"} // the mean of a normalized decoder costs about 0.2 s a row
	return append(a, extra...)
}

func TestBenchUCI(t *testing.T) {
	data, res := t.TempDir(), t.TempDir()
	writeUCIFixture(t, data, "beta", 60, 3)
	writeUCIFixture(t, data, "alpha", 61, 3)
	var errb bytes.Buffer
	old := errOut
	defer func() { errOut = old }()
	errOut = &errb

	if code := run(tinyUCIArgs(data, res), &errb); code != 0 {
		t.Fatalf("exit %d:\n%s", code, errb.String())
	}
	// Every (dataset, head, split) has a result, the plan order is
	// alpha before beta, and there is one progress line per run.
	var want []string
	for _, ds := range []string{"alpha", "beta"} {
		for _, h := range experiments.BenchHeads {
			for s := 0; s < 3; s++ {
				want = append(want, filepath.Join(ds, h, fmt.Sprintf("split%d.json", s)))
			}
		}
	}
	sort.Strings(want)
	if got := resultFiles(t, res); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("result files\n got %v\nwant %v", got, want)
	}
	if n := strings.Count(errb.String(), "] alpha/"); n != 15 {
		t.Errorf("%d progress lines for alpha, want 15:\n%s", n, errb.String())
	}
	if !strings.Contains(errb.String(), "[1/30] alpha/mdn/split0: nll ") {
		t.Errorf("first progress line:\n%s", errb.String())
	}
	for _, rel := range want {
		r, err := experiments.ReadResult(filepath.Join(res, rel))
		if err != nil {
			t.Fatal(err)
		}
		if r.Error != "" {
			t.Errorf("%s: %s", rel, r.Error)
			continue
		}
		wantTest := 20
		if r.Dataset == "alpha" && r.Split == 0 {
			wantTest = 21 // rows 0, 3, ..., 60
		}
		if r.Eval.N != wantTest || r.TestRows != wantTest || r.TrainRows != map[string]int{"alpha": 61, "beta": 60}[r.Dataset]-wantTest {
			t.Errorf("%s: %d test rows (eval n %d), %d train rows", rel, r.TestRows, r.Eval.N, r.TrainRows)
		}
		if r.Config.EncWidth != 8 || r.Config.MaxEpochs != 2 || r.Train.Epochs > 2 || r.GoMaxProcs < 1 || r.Seconds <= 0 {
			t.Errorf("%s: config %+v, train %+v, gomaxprocs %d, seconds %v", rel, r.Config, r.Train, r.GoMaxProcs, r.Seconds)
		}
		isPoint := r.Head == experiments.Pointwise
		if nll := float64(r.Eval.NLL); math.IsNaN(nll) != isPoint || math.IsInf(nll, 0) {
			t.Errorf("%s: nll %v", rel, nll)
		}
		if tau := float64(r.Eval.KendallTau); !(tau >= -1 && tau <= 1) {
			t.Errorf("%s: tau %v", rel, tau)
		}
		if d := float64(r.Eval.NLL - r.Eval.NLLU); !isPoint && !(math.Abs(d-math.Log(4.0)) <= 2) {
			// NLL - NLL_u = log of the train range, a few units here.
			t.Errorf("%s: nll - nll_u = %v", rel, d)
		}
	}

	// A second run skips everything and rewrites nothing.
	before := map[string]string{}
	for _, rel := range want {
		b, _ := os.ReadFile(filepath.Join(res, rel))
		before[rel] = string(b)
	}
	errb.Reset()
	if code := run(tinyUCIArgs(data, res), &errb); code != 0 {
		t.Fatalf("rerun: exit %d:\n%s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "30 already done, 0 to run") {
		t.Errorf("rerun did not skip:\n%s", errb.String())
	}
	for _, rel := range want {
		if b, _ := os.ReadFile(filepath.Join(res, rel)); string(b) != before[rel] {
			t.Errorf("rerun rewrote %s", rel)
		}
	}
	// Rerunning with other settings warns but keeps the files.
	errb.Reset()
	if code := run(tinyUCIArgs(data, res, "--datasets", "beta", "--splits", "1", "--heads", "mdn", "--enc-width", "9"), &errb); code != 0 {
		t.Fatalf("rerun with other settings: exit %d", code)
	}
	if !strings.Contains(errb.String(), "warning: "+filepath.Join(res, "beta", "mdn", "split1.json")+" exists with other settings") {
		t.Errorf("no warning about other settings:\n%s", errb.String())
	}
	// So does another point estimate (its MSE and tau are other numbers).
	errb.Reset()
	if code := run(tinyUCIArgs(data, res, "--datasets", "beta", "--splits", "1", "--heads", "mdn", "--point", "mode"), &errb); code != 0 {
		t.Fatalf("rerun with --point mode: exit %d", code)
	}
	if !strings.Contains(errb.String(), "warning: "+filepath.Join(res, "beta", "mdn", "split1.json")+" exists with other settings") {
		t.Errorf("no warning about another point estimate:\n%s", errb.String())
	}

	// A deleted result is redone alone.
	os.Remove(filepath.Join(res, want[4]))
	errb.Reset()
	if code := run(tinyUCIArgs(data, res), &errb); code != 0 {
		t.Fatalf("resume: exit %d", code)
	}
	if !strings.Contains(errb.String(), "29 already done, 1 to run") || len(resultFiles(t, res)) != 30 {
		t.Errorf("resume:\n%s", errb.String())
	}
}

func TestBenchUCIShards(t *testing.T) {
	data := t.TempDir()
	writeUCIFixture(t, data, "b", 60, 3)
	writeUCIFixture(t, data, "a", 60, 3)
	var errb bytes.Buffer
	old := errOut
	defer func() { errOut = old }()
	errOut = &errb
	heads := []string{"riemann", "mdn"} // plan order: mdn before riemann
	var shards [2][]string
	for i := range shards {
		out := t.TempDir()
		args := tinyUCIArgs(data, out, "--heads", strings.Join(heads, ","), "--shard", fmt.Sprintf("%d/2", i))
		if code := run(args, &errb); code != 0 {
			t.Fatalf("shard %d: exit %d:\n%s", i, code, errb.String())
		}
		shards[i] = resultFiles(t, out)
	}
	// Independent enumeration: datasets sorted, heads in table order
	// (mdn, riemann), splits ascending; run k goes to shard k mod 2.
	var want [2][]string
	k := 0
	for _, ds := range []string{"a", "b"} {
		for _, h := range []string{"mdn", "riemann"} {
			for s := 0; s < 3; s++ {
				want[k%2] = append(want[k%2], filepath.Join(ds, h, fmt.Sprintf("split%d.json", s)))
				k++
			}
		}
	}
	for i := range want {
		sort.Strings(want[i])
		if strings.Join(shards[i], " ") != strings.Join(want[i], " ") {
			t.Errorf("shard %d/2 ran\n %v\nwant %v", i, shards[i], want[i])
		}
	}
}

func TestBenchUCIInterrupt(t *testing.T) {
	data, res := t.TempDir(), t.TempDir()
	writeUCIFixture(t, data, "a", 60, 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := experiments.UCIOptions{DataDir: data, OutDir: res, Heads: []string{"mdn"}, Splits: []int{0, 1},
		Overrides: experiments.Overrides{EncLayers: 1, EncWidth: 8, MaxEpochs: 50, Threads: 1},
		Progress: func(r experiments.Run, p decoreg.Progress) {
			if r.Split == 1 && p.Epoch == 2 {
				cancel()
			}
		}}
	sum, err := experiments.RunUCI(ctx, opts)
	if err == nil || !strings.Contains(err.Error(), "interrupted during a/mdn/split1") {
		t.Fatalf("RunUCI cancelled: %v", err)
	}
	if got := resultFiles(t, res); len(got) != 1 || got[0] != filepath.Join("a", "mdn", "split0.json") || sum.Ran != 1 {
		t.Errorf("after the interrupt: files %v, summary %+v; want split0 only", got, sum)
	}
	// The message counts the runs done when every job had ended (it was
	// written when the first job stopped, before others finished theirs).
	if want := fmt.Sprintf("(%d of 2 runs done)", sum.Ran); !strings.Contains(err.Error(), want) {
		t.Errorf("RunUCI cancelled: %v; want %q", err, want)
	}
}

func TestBenchUCIBadInput(t *testing.T) {
	var errb bytes.Buffer
	old := errOut
	defer func() { errOut = old }()
	errOut = &errb
	out := t.TempDir()

	ragged := t.TempDir()
	writeUCIFixture(t, ragged, "good", 60, 3)
	writeGz(t, filepath.Join(ragged, "bad", experiments.DataFile), "x0,x1,y\n1,2,3\n4,5\n6,7,8\n")
	writeGz(t, filepath.Join(ragged, "bad", experiments.MaskFile), "split0,split1,split2\n1,0,0\n0,1,0\n0,0,1\n")

	nonNumeric := t.TempDir()
	writeGz(t, filepath.Join(nonNumeric, "d", experiments.DataFile), "x0,y\n1,2\n3,abc\n5,6\n")
	writeGz(t, filepath.Join(nonNumeric, "d", experiments.MaskFile), "split0\n1\n0\n0\n")

	rowCount := t.TempDir()
	writeUCIFixture(t, rowCount, "d", 60, 3)
	writeGz(t, filepath.Join(rowCount, "d", experiments.MaskFile), "split0,split1,split2\n1,0,0\n")

	notGzip := t.TempDir()
	writeUCIFixture(t, notGzip, "d", 60, 3)
	os.WriteFile(filepath.Join(notGzip, "d", experiments.MaskFile), []byte("\x1f\x8bgarbage"), 0o644)

	emptyData := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want []string // substrings of the one-line message
	}{
		{"ragged", tinyUCIArgs(ragged, out), []string{filepath.Join(ragged, "bad", experiments.DataFile), "line 3"}},
		{"non-numeric", tinyUCIArgs(nonNumeric, out, "--splits", "0"), []string{filepath.Join(nonNumeric, "d", experiments.DataFile), "line 3", "column 2"}},
		{"mask rows", tinyUCIArgs(rowCount, out), []string{filepath.Join(rowCount, "d", experiments.MaskFile)}},
		{"corrupt gzip", tinyUCIArgs(notGzip, out), []string{filepath.Join(notGzip, "d", experiments.MaskFile)}},
		{"missing dataset", tinyUCIArgs(rowCount, out, "--datasets", "nope"), []string{filepath.Join(rowCount, "nope", experiments.DataFile)}},
		{"split out of range", tinyUCIArgs(ragged, out, "--datasets", "good", "--splits", "0-3"), []string{filepath.Join(ragged, "good", experiments.MaskFile) + ": dataset good has 3 splits (0..2): --splits 3 (default 0-9) is out of range"}},
		{"no datasets", tinyUCIArgs(emptyData, out), []string{emptyData, "no datasets"}},
		{"out in the data", tinyUCIArgs(out, out), []string{out, "lies inside the data directory"}},
		{"bad head", tinyUCIArgs(ragged, out, "--heads", "mdn,decoder"), []string{"--heads", `"decoder"`}},
		{"empty datasets", tinyUCIArgs(ragged, out, "--datasets", " , "), []string{"--datasets", "entry 1 is empty"}},
		{"bad shard", tinyUCIArgs(ragged, out, "--shard", "2/2"), []string{"--shard", "2/2"}},
		{"bad splits", tinyUCIArgs(ragged, out, "--splits", "3-1"), []string{"--splits"}},
		{"bad point", tinyUCIArgs(ragged, out, "--point", "average"), []string{`"average"`}},
		{"empty point", tinyUCIArgs(ragged, out, "--point="), []string{"--point is empty"}},
		{"no out", []string{"bench", "uci", "--data", ragged}, []string{"--out"}},
		{"NaN lr", tinyUCIArgs(ragged, out, "--lr", "NaN"), []string{"--lr", "NaN"}},
		{"Inf lr", tinyUCIArgs(ragged, out, "--lr", "Inf"), []string{"--lr", "+Inf"}},
		{"huge width", tinyUCIArgs(ragged, out, "--enc-width", "1125899906842624"), []string{"invalid config", "16384"}},
		{"dec heads not dividing", tinyUCIArgs(ragged, out, "--heads", "decoder-normalized", "--dec-heads", "3"), []string{"decoder-normalized", "multiple"}},
	} {
		var stderr bytes.Buffer
		errb.Reset()
		code := run(c.args, &stderr)
		msg := stderr.String()
		if code != 2 || strings.Count(msg, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line", c.name, code, msg)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: message %q lacks %q", c.name, msg, w)
			}
		}
	}
	if files := resultFiles(t, out); len(files) != 0 {
		t.Errorf("bad input left files: %v", files)
	}
}

// TestBenchUCISweep: with --sweep every run tries the head's whole grid on
// its validation rows and keeps the candidate with the lowest validation
// loss, whose configuration is the one recorded and evaluated.
func TestBenchUCISweep(t *testing.T) {
	data, res := t.TempDir(), t.TempDir()
	writeUCIFixture(t, data, "alpha", 60, 3)
	var errb bytes.Buffer
	old := errOut
	defer func() { errOut = old }()
	errOut = &errb
	args := tinyUCIArgs(data, res, "--splits", "1", "--heads", "mdn,riemann", "--sweep")
	if code := run(args, &errb); code != 0 {
		t.Fatalf("exit %d:\n%s", code, errb.String())
	}
	for _, h := range []string{"mdn", "riemann"} {
		r, err := experiments.ReadResult(experiments.ResultPath(res, "alpha", h, 1))
		if err != nil {
			t.Fatal(err)
		}
		if r.Sweep == nil || r.Error != "" || r.Eval == nil {
			t.Fatalf("%s: sweep %v, error %q", h, r.Sweep, r.Error)
		}
		grid := experiments.SweepGrid(h, decoreg.Config{Head: decoreg.Head(h)})
		if len(r.Sweep.Trials) != len(grid) {
			t.Fatalf("%s: %d trials, the grid has %d", h, len(r.Sweep.Trials), len(grid))
		}
		best := -1
		for i, tr := range r.Sweep.Trials {
			if tr.Label != grid[i].Label {
				t.Errorf("%s: trial %d is %q, grid has %q", h, i, tr.Label, grid[i].Label)
			}
			if tr.Error == "" && (best < 0 || float64(tr.ValLoss) < float64(r.Sweep.Trials[best].ValLoss)) {
				best = i
			}
		}
		if r.Sweep.Chosen != best {
			t.Errorf("%s: chose trial %d, the lowest validation loss is trial %d", h, r.Sweep.Chosen, best)
		}
		if r.Config != r.Sweep.Trials[best].Config {
			t.Errorf("%s: trained %+v, chosen %+v", h, r.Config, r.Sweep.Trials[best].Config)
		}
	}
}

// TestBenchUCIJobs checks --jobs: the same result files with the same
// metrics and training records as one job, the largest dataset started
// first, and bad values (0, more than the cores) refused.
func TestBenchUCIJobs(t *testing.T) {
	data := t.TempDir()
	writeUCIFixture(t, data, "small", 50, 3)
	writeUCIFixture(t, data, "zlarge", 90, 3) // last in plan order, first with jobs
	var errb bytes.Buffer
	old := errOut
	defer func() { errOut = old }()
	errOut = &errb
	heads := "mdn,riemann,decoder-normalized"
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(3, runtime.GOMAXPROCS(0)))) // --jobs 3 needs 3
	one, three := t.TempDir(), t.TempDir()
	if code := run(tinyUCIArgs(data, one, "--heads", heads), &errb); code != 0 {
		t.Fatalf("--jobs 1: exit %d:\n%s", code, errb.String())
	}
	errb.Reset()
	if code := run(tinyUCIArgs(data, three, "--heads", heads, "--jobs", "3"), &errb); code != 0 {
		t.Fatalf("--jobs 3: exit %d:\n%s", code, errb.String())
	}
	lines := strings.Split(errb.String(), "\n")
	for _, l := range lines[1:4] { // the first three to finish are of the three started first
		if !strings.Contains(l, "] zlarge/") {
			t.Errorf("--jobs 3: the first runs to finish should be zlarge's:\n%s", errb.String())
			break
		}
	}
	files := resultFiles(t, one)
	if got := resultFiles(t, three); len(files) != 18 || strings.Join(got, " ") != strings.Join(files, " ") {
		t.Fatalf("result files: --jobs 1 %v, --jobs 3 %v", files, got)
	}
	for _, rel := range files {
		a, err := experiments.ReadResult(filepath.Join(one, rel))
		if err != nil {
			t.Fatal(err)
		}
		b, err := experiments.ReadResult(filepath.Join(three, rel))
		if err != nil {
			t.Fatal(err)
		}
		a.Train.Seconds, b.Train.Seconds = 0, 0
		a.Train.Created, b.Train.Created = "", "" // wall-clock stamps: the two runs may straddle a second
		if fmt.Sprintf("%+v %+v %+v", a.Eval, a.Train, a.Config) != fmt.Sprintf("%+v %+v %+v", b.Eval, b.Train, b.Config) {
			t.Errorf("%s differs with --jobs 3:\n %+v %+v\n %+v %+v", rel, a.Eval, a.Train, b.Eval, b.Train)
		}
	}
	errb.Reset()
	if code := run(tinyUCIArgs(data, three, "--jobs", "0"), &errb); code != 2 || !strings.Contains(errb.String(), "--jobs must be >= 1") {
		t.Errorf("--jobs 0: exit %d:\n%s", code, errb.String())
	}
	errb.Reset()
	many := fmt.Sprint(runtime.GOMAXPROCS(0) + 1)
	if code := run(tinyUCIArgs(data, three, "--jobs", many), &errb); code != 2 || !strings.Contains(errb.String(), "more than the") {
		t.Errorf("--jobs %s: exit %d:\n%s", many, code, errb.String())
	}
}

// TestBenchUCIJobsInterrupt: a cancel while two jobs run stops both, with
// every file written a whole result and the error naming the interrupt
// and both runs it cut (it named one).
func TestBenchUCIJobsInterrupt(t *testing.T) {
	data, res := t.TempDir(), t.TempDir()
	writeUCIFixture(t, data, "a", 60, 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Each of the first two runs waits, at its first epoch, for the other
	// to reach it; the first waits at its second for the cancel, which the
	// second sends at its second: both are in flight. The first waits for
	// cancel to return, not for ctx.Done: Done is closed before the
	// contexts derived from ctx are cancelled, and a loaded machine can
	// stall cancel between the two for the milliseconds the tiny run needs
	// to finish its 50 epochs unaware (it did, 1 in about 300 runs beside
	// other work: split0 done).
	var ready sync.WaitGroup
	ready.Add(2)
	cancelled := make(chan struct{})
	// The epochs each run reported, for the failure's message.
	var emu sync.Mutex
	epochs := map[int][]int{}
	opts := experiments.UCIOptions{DataDir: data, OutDir: res, Heads: []string{"mdn"}, Splits: []int{0, 1, 2}, Jobs: 2,
		Overrides: experiments.Overrides{EncLayers: 1, EncWidth: 8, MaxEpochs: 50, Threads: 1},
		Progress: func(r experiments.Run, p decoreg.Progress) {
			emu.Lock()
			epochs[r.Split] = append(epochs[r.Split], p.Epoch)
			emu.Unlock()
			if r.Split < 2 && p.Epoch == 1 {
				ready.Done()
				ready.Wait()
			}
			switch {
			case r.Split == 1 && p.Epoch == 2:
				cancel()
				close(cancelled)
			case r.Split == 0 && p.Epoch == 2:
				<-cancelled // it cannot end first
			}
		}}
	sum, err := experiments.RunUCI(ctx, opts)
	if err == nil || !strings.Contains(err.Error(), "interrupted during a/mdn/split0 and a/mdn/split1 (0 of 3 runs done)") {
		emu.Lock()
		defer emu.Unlock()
		files := resultFiles(t, res)
		t.Fatalf("RunUCI cancelled: %v\nsummary %+v; epochs reported per split %v; results %v", err, sum, epochs, files)
	}
	for _, rel := range resultFiles(t, res) {
		if _, err := experiments.ReadResult(filepath.Join(res, rel)); err != nil || strings.Contains(rel, "split2") {
			t.Errorf("after the interrupt: %s (%v)", rel, err)
		}
	}
}

// TestBenchUCIRefusedMakesNoDir: a refused flag leaves no --out behind.
func TestBenchUCIRefusedMakesNoDir(t *testing.T) {
	data := t.TempDir()
	writeUCIFixture(t, data, "beta", 60, 3)
	// Those the runs check (a config, after --out was made: it was left
	// empty) too; and a missing --data is named as the flag.
	for _, extra := range [][]string{{"--jobs", "0"}, {"--shard", "1/0"}, {"--heads", "nosuch"}, {"--lr", "-1"}, {"--point", "nosuch"}, {"--datasets", "nosuch"},
		{"--heads", "decoder-normalized", "--dec-heads", "3"}, {"--data", filepath.Join(data, "nosuch")}} {
		out := filepath.Join(t.TempDir(), "res")
		var errb bytes.Buffer
		if code := run(append([]string{"bench", "uci", "--data", data, "--out", out}, extra...), &errb); code != 2 {
			t.Errorf("%v: exit %d: %s", extra, code, errb.String())
		}
		if extra[0] == "--data" && !strings.Contains(errb.String(), "bench uci: --data: stat ") {
			t.Errorf("%v: %s", extra, errb.String())
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: left %s", extra, out)
		}
	}
}

// TestOutsideData: results are not written among the datasets: --out the
// data directory, inside it, or inside it through a link, is refused.
func TestOutsideData(t *testing.T) {
	data := t.TempDir()
	writeUCIFixture(t, data, "beta", 60, 3)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(data, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]string{{data, data}, {data, filepath.Join(data, "beta", "res")}, {link, filepath.Join(data, "new")}, {data, filepath.Join(link, "new")}} {
		var errb bytes.Buffer
		if code := run([]string{"bench", "uci", "--data", c[0], "--out", c[1]}, &errb); code != 2 || !strings.Contains(errb.String(), "lies inside the data directory") {
			t.Errorf("--data %s --out %s: exit %d, %s", c[0], c[1], code, errb.String())
		}
	}
	if err := outsideData("x", filepath.Join(t.TempDir(), "res"), data); err != nil {
		t.Errorf("a directory beside the data: %v", err)
	}
}

// TestBenchUCIEmptyShardKeepsOut: a shard with nothing to do succeeds and
// leaves its --out (a refusal removes a directory it made; a success
// removed it too, and a cluster's report step then found none).
func TestBenchUCIEmptyShardKeepsOut(t *testing.T) {
	data := t.TempDir()
	writeUCIFixture(t, data, "beta", 60, 3)
	out := filepath.Join(t.TempDir(), "res")
	var errb bytes.Buffer
	if code := run(tinyUCIArgs(data, out, "--splits", "0", "--heads", "riemann", "--shard", "1/2"), &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if st, err := os.Stat(out); err != nil || !st.IsDir() {
		t.Errorf("--out after an empty shard: %v", err)
	}
}

// TestBenchUCIOtherData: each result records its dataset's fingerprint; an
// existing result made on other files of the dataset (another --data) is
// warned about, and the report flags its cell (the runs were kept and
// averaged with the others without a word).
func TestBenchUCIOtherData(t *testing.T) {
	a, b, out := t.TempDir(), t.TempDir(), t.TempDir()
	writeUCIFixture(t, a, "d", 40, 3)
	writeUCIFixture(t, b, "d", 40, 3)
	raw, _ := os.ReadFile(filepath.Join(b, "d", "data.csv.gz"))
	writeGz(t, filepath.Join(b, "d", "data.csv.gz"), "x0,x1,x2,y\n"+strings.Repeat("1,2,3,4\n", 20)+strings.Repeat("2,3,4,9\n", 20))
	if again, _ := os.ReadFile(filepath.Join(b, "d", "data.csv.gz")); string(again) == string(raw) {
		t.Fatal("b's data is a's")
	}
	mustCLI(t, tinyUCIArgs(a, out, "--splits", "0")...)
	res, err := experiments.ReadResult(experiments.ResultPath(out, "d", "mdn", 0))
	if err != nil || res.Data != experiments.DataFingerprint(a, "d") || len(res.Data) != 16 {
		t.Fatalf("result's data %q, want %q (%v)", res.Data, experiments.DataFingerprint(a, "d"), err)
	}
	_, errs := mustCLI(t, tinyUCIArgs(b, out, "--splits", "0,1")...)
	if !strings.Contains(errs, "split0.json was made on other files of d than "+filepath.Join(b, "d")+"'s") {
		t.Errorf("no warning of the other data:\n%s", errs)
	}
	rep, _ := mustCLI(t, "bench", "report", out)
	if !strings.Contains(rep, "## Cells that mix settings") || !strings.Contains(rep, "| d | mdn | 1 | 2 |") {
		t.Errorf("the report does not flag the cell of two data files:\n%s", rep)
	}
}

// TestBenchUCIWrittenMeanwhile: a result that another process with the same
// --out wrote while this one ran its run stands, and this run's is dropped
// and said so (it replaced the other without a word). The other process is
// played by the log: it writes the result when the plan is announced.
func TestBenchUCIWrittenMeanwhile(t *testing.T) {
	data, out := t.TempDir(), t.TempDir()
	writeUCIFixture(t, data, "d", 40, 3)
	path := experiments.ResultPath(out, "d", "mdn", 0)
	other := &experiments.Result{Dataset: "d", Head: "mdn", Split: 0, Host: "the other process", Error: "a result of the other process"}
	var log strings.Builder
	hook := writerFunc(func(p []byte) (int, error) {
		if strings.Contains(string(p), "in the plan") {
			if err := experiments.WriteResult(path, other); err != nil {
				t.Error(err)
			}
		}
		return log.Write(p)
	})
	sum, err := experiments.RunUCI(context.Background(), experiments.UCIOptions{DataDir: data, OutDir: out, Heads: []string{"mdn"}, Splits: []int{0},
		Overrides: experiments.Overrides{MaxEpochs: 2, EncWidth: 8}, Log: hook})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Dropped != 1 || sum.Skipped != 0 || sum.Ran != 0 {
		t.Errorf("summary %+v: want 1 dropped, none already done (helper-125: it said 1 of 1 already done)", sum)
	}
	if r, err := experiments.ReadResult(path); err != nil || r.Host != "the other process" {
		t.Errorf("the other process's result was replaced: %+v, %v", r, err)
	}
	if !strings.Contains(log.String(), "written by another process meanwhile; this run's result dropped") {
		t.Errorf("log:\n%s", log.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
