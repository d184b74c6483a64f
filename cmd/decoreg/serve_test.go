package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"decoreg/internal/jsonfloat"
)

// TestServeMatchesPredict runs 'decoreg serve' for each head and checks
// that its answers for the rows of a file are the numbers 'decoreg
// predict' writes for them, then stops it with SIGINT (exit 0).
func TestServeMatchesPredict(t *testing.T) {
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, os.Interrupt)
	defer signal.Stop(guard)
	const data = "testdata/cli/small.csv"
	for _, head := range []string{"decoder", "riemann", "mdn", "pointwise"} {
		model := sharedModel(t, head)
		out, _ := mustCLI(t, "predict", "--model", model, "--data", data, "--out", "-")
		header, want := parseCSV(t, out)
		_, in := parseCSV(t, readFile(t, data))

		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		type result struct {
			code int
			errs string
		}
		done := make(chan result, 1)
		go func() {
			code, _, errs := cli(t, "serve", "--model", model, "--addr", addr)
			done <- result{code, errs}
		}()
		base := "http://" + addr
		for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
			resp, err := http.Get(base + "/readyz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					break
				}
			}
			if time.Since(start) > 10*time.Second {
				t.Fatalf("%s: the server did not start: %v", head, err)
			}
		}
		rows := make([]string, len(in))
		ys := make([]string, len(in))
		for i, r := range in {
			rows[i] = fmt.Sprintf(`{"x0":%v,"x1":%v}`, r[0], r[1])
			ys[i] = strconv.FormatFloat(r[2], 'g', -1, 64)
		}
		outs := `"mean","median","mode","quantiles"`
		hasLogPDF := header[len(header)-1] == "logpdf"
		yPart := ""
		if hasLogPDF {
			outs += `,"logpdf"`
			yPart = `,"y":[` + strings.Join(ys, ",") + `]`
		}
		body := `{"rows":[` + strings.Join(rows, ",") + `],"outputs":[` + outs + `]` + yPart + `}`
		resp, err := http.Post(base+"/v1/models/"+head+"/predict", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var got struct {
			Predictions []struct {
				Mean, Median, Mode jsonfloat.Float
				Quantiles          []jsonfloat.Float
				LogPDF             *jsonfloat.Float
			}
		}
		if err := json.Unmarshal(b, &got); err != nil || resp.StatusCode != 200 || len(got.Predictions) != len(want) {
			t.Fatalf("%s: %d %s (%v)", head, resp.StatusCode, b, err)
		}
		same := func(a jsonfloat.Float, b float64) bool {
			return float64(a) == b || math.IsInf(b, -1) && math.IsInf(float64(a), -1)
		}
		for i, p := range got.Predictions {
			w := want[i]
			vals := append([]jsonfloat.Float{p.Mean, p.Median, p.Mode}, p.Quantiles...)
			if hasLogPDF {
				vals = append(vals, *p.LogPDF)
			}
			for j, v := range vals {
				if !same(v, w[j+1]) {
					t.Errorf("%s row %d: %s = %v from serve, %v from predict", head, i, header[j+1], v, w[j+1])
				}
			}
		}
		t.Logf("%s: %d rows, %d values each, equal to predict's", head, len(got.Predictions), len(header)-1)
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		select {
		case r := <-done:
			if r.code != 0 || !strings.Contains(r.errs, "shut down cleanly") {
				t.Errorf("%s: serve exited %d after SIGINT: %s", head, r.code, r.errs)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: serve did not stop on SIGINT", head)
		}
	}
}

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
		{[]string{"--model", model, "--timeout", "-1s"}, "--timeout must be > 0"},
		{[]string{"--model", model, "--max-rows", "0"}, "--max-rows must be in [1, "},
		{[]string{"--model", model, "--queue", "0"}, "--queue must be in [1, "},
		{[]string{"--model", model, "--queue", "1000000000000000000"}, "--queue must be in [1, 1048576]"},
		{[]string{"--model", model, "--max-samples", "9223372036854775807"}, "--max-samples must be in [1, 16777216]"},
		{[]string{"--model", model, "--max-values", "0"}, "--max-values must be in"},
		{[]string{"--model", model, "--max-body", "0"}, "--max-body must be >= 1"},
		{[]string{"--model", model, "--max-body", "99999999999"}, "--max-body must be at most"},
		{[]string{"--model", model, "--workers", "-1"}, "--workers must be in [1, 4096]"},
		{[]string{"--model", model, "--no-batching", "--batch-wait", "5ms"}, "--batch-wait is for batching"},
		{[]string{"--model", model, "--reload-every", "5s"}, "--reload-every is for --models DIR"},
		{[]string{"--models", model}, "is not a directory"},
		{[]string{"--models", dir}, "no model loaded"},
		{[]string{"--model", "testdata/cli/small.csv"}, "small.csv"},
		{[]string{"--model", model, "--addr", "256.0.0.1:99999"}, "--addr"},
		{[]string{"--model", model, "extra"}, "extra"},
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
	code, _, errs := cli(t, "bench", "serve", "--clients", "0")
	if code != 2 || !strings.Contains(errs, "--clients") {
		t.Errorf("--clients 0: exit %d %q", code, errs)
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
	if r.Rows != 50 || !(r.ExactRowsPerS > 0) || !(r.SampledRowsPerS > 0) || !(math.Abs(r.ExactMeanOfMeans-r.SampledMeanOfMeans) <= 0.2*(1+math.Abs(r.ExactMeanOfMeans))) {
		t.Errorf("%s", out)
	}
	for _, args := range [][]string{{"--rows", "0"}, {"--model", model}, {"--samples", "-1"}, {"--threads", "-2"}} {
		code, _, errs := cli(t, append([]string{"bench", "predict"}, args...)...)
		if code != 2 || errs == "" {
			t.Errorf("%v: exit %d %q", args, code, errs)
		}
	}
}
