package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestServeRefuses: flags serve refuses, with the flag named.
func TestServeRefuses(t *testing.T) {
	model := sharedModel(t, "decoder")
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "give --model FILE or --models DIR"},
		{[]string{"--model", model, "--models", dir}, "give --model FILE or --models DIR"},
		{[]string{"--model", model, "--batch-wait", "0s"}, "--batch-wait must be > 0"},
		{[]string{"--model", model, "--timeout", "-1s"}, "--timeout must be in (0, 24h0m0s]"},
		{[]string{"--model", model, "--timeout", "2562047h47m10s"}, "--timeout must be in (0, 24h0m0s]"},
		{[]string{"--models", dir, "--reload-every", "1ns"}, "--reload-every must be at least 10ms"},
		{[]string{"--model", model, "--max-values", "1000", "--max-values-in-flight", "999"}, "--max-values-in-flight must be 0 (twice --max-values) or in [--max-values 1000, 2^40]"},
		{[]string{"--model", model, "--max-rows", "0"}, "--max-rows must be in [1, "},
		{[]string{"--model", model, "--queue", "0"}, "--queue must be in [1, "},
		{[]string{"--model", model, "--queue", "1000000000000000000"}, "--queue must be in [1, 1048576]"},
		{[]string{"--model", model, "--max-samples", "9223372036854775807"}, "--max-samples must be in [1, 16777216]"},
		{[]string{"--model", model, "--max-values", "0"}, "--max-values must be in"},
		{[]string{"--model", model, "--max-body", "0"}, "--max-body must be >= 1"},
		{[]string{"--model", model, "--max-body", "99999999999"}, "--max-body must be at most"},
		{[]string{"--model", model, "--workers", "-1"}, "--workers must be in [0, 4096] (0: one per core), have -1"},
		{[]string{"--model", model, "--no-batching", "--batch-wait", "5ms"}, "--batch-wait is for batching"},
		{[]string{"--model", model, "--reload-every", "5s"}, "--reload-every is for --models DIR"},
		{[]string{"--models", model}, "is not a directory"},
		{[]string{"--models", dir}, "no model loaded"},
		{[]string{"--model", "testdata/cli/small.csv"}, "small.csv"},
		{[]string{"--model", model, "--addr", "256.0.0.1:99999"}, "--addr"},
		{[]string{"--model", model, "--addr", ""}, "--addr is empty"},
		{[]string{"--model", model, "extra"}, "extra"},
		{[]string{"--model", model, "--allow-host", "a.example,"}, `--allow-host "a.example,": entry 2 is not a host name`},
		{[]string{"--model", model, "--allow-host", "a.example:80"}, "without ports"},
	} {
		code, _, errs := cli(t, append([]string{"serve"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("serve %v: exit %d, %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestBenchServeRuns: bench serve answers every request of a tiny run,
// with and without batching.
func TestBenchServeRuns(t *testing.T) {
	model := sharedModel(t, "riemann")
	out, _ := mustCLI(t, "bench", "serve", "--model", model, "--clients", "2", "--rows", "1,3", "--requests", "20", "--warmup", "2")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines: %s", len(lines), out)
	}
	for _, l := range lines {
		var r serveBenchResult
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.Errors != 0 || !(r.RequestsPerS > 0) || r.Requests == 0 || !(r.P99ms >= r.P50ms) || r.MeanBatchRows < 1 {
			t.Errorf("%s", l)
		}
	}
	// A model of a table's raw columns (text and blanks): the requests
	// are its columns by name, with levels for the text ones (they were
	// its encoded features, which the server refuses).
	mixedModel := filepath.Join(t.TempDir(), "mixed.model")
	trainMixed(t, mixedModel)
	out, _ = mustCLI(t, "bench", "serve", "--model", mixedModel, "--clients", "1", "--rows", "2", "--requests", "5", "--warmup", "0", "--batching", "off")
	var r serveBenchResult
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil || r.Errors != 0 || r.Requests != 5 {
		t.Errorf("schema model: %v %s", err, out)
	}
	// Requests of 100 rows or more: a tenth as many, never more than asked
	// (5 became 100).
	out, _ = mustCLI(t, "bench", "serve", "--model", model, "--clients", "1", "--rows", "150", "--requests", "5", "--warmup", "50", "--batching", "off")
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil || r.Errors != 0 || r.Requests != 5 {
		t.Errorf("--requests 5 of 150 rows: %v %s", err, out)
	}
	code, _, errs := cli(t, "bench", "serve", "--clients", "0")
	if code != 2 || !strings.Contains(errs, "--clients") {
		t.Errorf("--clients 0: exit %d %q", code, errs)
	}
	// Failed requests are counted, warned about, and left out of the
	// rates and latencies (they were counted as answered, exit 0, no
	// word); every one failing is an error.
	var k atomic.Int64
	half := func(u string) string {
		if k.Add(1)%2 == 0 {
			return u + "-nosuch"
		}
		return u
	}
	benchServeURLHook.Store(&half)
	defer benchServeURLHook.Store(nil)
	out, errs = mustCLI(t, "bench", "serve", "--model", model, "--clients", "1", "--rows", "2", "--requests", "20", "--warmup", "0", "--batching", "off")
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil || r.Errors != 10 || r.Requests != 20 {
		t.Errorf("half failing: %v %s", err, out)
	}
	if want := "bench serve: warning: 10 of the 20 timed requests of 2 rows (1 clients, batching false) failed, the first: 404 "; !strings.Contains(errs, want) {
		t.Errorf("stderr %q lacks %q", errs, want)
	}
	all := func(u string) string { return u + "-nosuch" }
	benchServeURLHook.Store(&all)
	code, out, errs = cli(t, "bench", "serve", "--model", model, "--clients", "1", "--rows", "2", "--requests", "4", "--warmup", "0", "--batching", "off")
	if code != 1 || out != "" || !strings.Contains(errs, "every one of the 4 timed requests of 2 rows (1 clients, batching false) failed: 404 ") {
		t.Errorf("all failing: exit %d, %q, %q", code, out, errs)
	}
}

// TestBenchPredictRuns: bench predict on a model and rows of a file; the
// exact and sampled means agree roughly; bad flags are refused.
func TestBenchPredictRuns(t *testing.T) {
	model := sharedModel(t, "mdn")
	out, _ := mustCLI(t, "bench", "predict", "--model", model, "--data", "testdata/cli/small.csv", "--rows", "50", "--samples", "2000", "--repeats", "1")
	var r predictBenchResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	em, sm := float64(r.ExactMeanOfMeans), float64(r.SampledMeanOfMeans)
	if r.Rows != 50 || !(r.ExactRowsPerS > 0) || !(r.SampledRowsPerS > 0) || !(math.Abs(em-sm) <= 0.2*(1+math.Abs(em))) {
		t.Errorf("%s", out)
	}
	// An unbounded tokenization reaching 2^1024: means near ±MaxFloat64,
	// whose sum overflowed and failed the JSON encoder after the timing.
	dir := t.TempDir()
	u3 := filepath.Join(dir, "u3.model")
	mustCLI(t, "train", "--data", writeSynth(t, dir, "train.csv", 100, 2), "--out", u3, "--vocab", "unnormalized:base=2,exponent=10,mantissa=2",
		"--unbounded", "--epochs", "1", "--enc-width", "16", "--enc-layers", "1", "--quiet")
	out, _ = mustCLI(t, "bench", "predict", "--model", u3, "--data", "testdata/cli/small.csv", "--rows", "10", "--samples", "5", "--repeats", "1")
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Errorf("the unbounded model's benchmark: %v: %s", err, out)
	}
	// The sampled means do not depend on --threads (each chunk's stream
	// was seeded by its first row).
	var r1, r2 predictBenchResult
	for k, th := range []string{"1", "2"} {
		out, _ := mustCLI(t, "bench", "predict", "--model", model, "--data", "testdata/cli/small.csv", "--rows", "50", "--samples", "50", "--repeats", "1", "--threads", th)
		if err := json.Unmarshal([]byte(out), []*predictBenchResult{&r1, &r2}[k]); err != nil {
			t.Fatal(err)
		}
	}
	if r1.SampledMeanOfMeans != r2.SampledMeanOfMeans {
		t.Errorf("sampled mean of means %v with 1 thread, %v with 2", r1.SampledMeanOfMeans, r2.SampledMeanOfMeans)
	}
	// A row the model cannot predict is named by its line.
	big := filepath.Join(dir, "big.csv")
	os.WriteFile(big, []byte("x0,x1,y\n0.1,0.2,1\n1e300,0.2,1\n"), 0o644)
	if code, _, errs := cli(t, "bench", "predict", "--model", model, "--data", big, "--rows", "10", "--repeats", "1"); code != 2 || !strings.Contains(errs, "big.csv: line 3, column \"x0\": feature value 1e+300") {
		t.Errorf("a row of 1e300: exit %d, %s", code, errs)
	}
	// Past the first chunk of rows checked; and only the rows timed are.
	var bb strings.Builder
	bb.WriteString("x0,x1,y\n")
	for i := range 5000 {
		v := "0.1"
		if i == 4500 {
			v = "1e300"
		}
		fmt.Fprintf(&bb, "%s,0.2,1\n", v)
	}
	os.WriteFile(big, []byte(bb.String()), 0o644)
	if code, _, errs := cli(t, "bench", "predict", "--model", model, "--data", big, "--rows", "5000", "--samples", "0", "--repeats", "1"); code != 2 || !strings.Contains(errs, "big.csv: line 4502, column \"x0\"") {
		t.Errorf("row 4500 of 1e300: exit %d, %s", code, errs)
	}
	mustCLI(t, "bench", "predict", "--model", model, "--data", big, "--rows", "100", "--samples", "0", "--repeats", "1")
	for _, args := range [][]string{{"--rows", "0"}, {"--model", model}, {"--samples", "-1"}, {"--threads", "-2"}} {
		code, _, errs := cli(t, append([]string{"bench", "predict"}, args...)...)
		if code != 2 || errs == "" {
			t.Errorf("%v: exit %d %q", args, code, errs)
		}
	}
}
