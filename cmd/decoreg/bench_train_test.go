package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// runBenchJSON runs decoreg with args, expects exit status 0 and decodes
// its single JSON line into v, rejecting unknown fields.
func runBenchJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	var out, errb bytes.Buffer
	saved := stdout
	stdout = &out
	defer func() { stdout = saved }()
	if code := run(args, &errb); code != 0 {
		t.Fatalf("%v: exit status %d: %s", args, code, errb.String())
	}
	if n := strings.Count(out.String(), "\n"); n != 1 {
		t.Fatalf("%v: %d output lines, want 1:\n%s", args, n, out.String())
	}
	dec := json.NewDecoder(&out)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
}

// tinyTrain are flags that shrink config c to a few thousand parameters.
var tinyTrain = []string{"bench", "train", "--config", "c", "--enc-width", "16", "--dec-layers", "2",
	"--dec-width", "8", "--heads", "2", "--batch", "5"}

func TestBenchTrain(t *testing.T) {
	var r trainBenchResult
	runBenchJSON(t, &r, append(tinyTrain, "--steps", "3", "--repeats", "3", "--warmup", "1", "--threads", "2")...)
	if r.Config != "c" || r.Threads != 2 || r.Batch != 5 || r.Steps != 3 || r.Repeats != 3 || r.Warmup != 1 {
		t.Errorf("settings not echoed: %+v", r)
	}
	if r.EncWidth != 16 || r.DecLayers != 2 || r.DecWidth != 8 || r.Heads != 2 {
		t.Errorf("size overrides not applied: %+v", r)
	}
	// Parameters counted here from the architecture: 3 encoder layers,
	// the input projection, token (V=10) and positional (T=6) embeddings,
	// per block qkv, proj, fc, fc2 (dff = d) and two LayerNorms, output.
	lin := func(in, out int) int { return in*out + out }
	const W, d, L = 16, 8, 2
	want := lin(8, W) + 2*lin(W, W) + lin(W, d) + 10*d + 6*d + L*(lin(d, 3*d)+3*lin(d, d)+4*d) + lin(d, 10)
	if r.Params != want {
		t.Errorf("params %d, want %d", r.Params, want)
	}
	if !(r.StepsPerS > 0) || !(math.Abs(r.ExamplesPerS-5*r.StepsPerS) <= 1e-3*r.ExamplesPerS+0.01) {
		t.Errorf("steps_per_s %v, examples_per_s %v: want examples = 5 x steps", r.StepsPerS, r.ExamplesPerS)
	}
	if !(r.MsMin <= r.MsMedian && r.MsMedian <= r.MsMax) || !(math.Abs(1000/r.MsMedian-r.StepsPerS) <= 1e-2*r.StepsPerS) {
		t.Errorf("ms per step min %v median %v max %v inconsistent with %v steps/s", r.MsMin, r.MsMedian, r.MsMax, r.StepsPerS)
	}
	if !(r.PeakRSSMB > 1) {
		t.Errorf("peak_rss_mb %v", r.PeakRSSMB)
	}
	if r.Kernel == "" {
		t.Error("no gemm kernel named")
	}
	if !(r.Loss > 0) {
		t.Errorf("loss %v", r.Loss)
	}
	// The bound: the rate of a step of step_gflop at gemm_gflops, and the
	// share of it reached (step_gflop, the fraction and the bound to 4
	// significant digits, gemm_gflops to 3 decimals: within 1%; step_gflop
	// of this tiny model, about 1e-4, rounded to 0 at 3 decimals).
	if !(r.GEMMGFLOPS > 0 && r.BoundSteps > 0 && r.StepGFLOP > 0) ||
		math.Abs(r.StepGFLOP-r.GEMMGFLOPS/r.BoundSteps) > 0.01*r.StepGFLOP ||
		math.Abs(r.BoundFraction-r.StepsPerS/r.BoundSteps) > 0.01*r.BoundFraction {
		t.Errorf("step_gflop %v, gemm_gflops %v, bound_steps_per_s %v, gemm_bound_fraction %v, steps_per_s %v: inconsistent",
			r.StepGFLOP, r.GEMMGFLOPS, r.BoundSteps, r.BoundFraction, r.StepsPerS)
	}
}

// TestBenchTrainLearns checks that the timed steps train the model: the
// same run is deterministic, and 150 Adam steps on the fixed batch reduce
// the loss of the first step, which for near-uniform initial predictions
// over 10 tokens is close to 6 ln 10.
func TestBenchTrainLearns(t *testing.T) {
	var first, again, later trainBenchResult
	one := append(tinyTrain, "--warmup", "0", "--steps", "1", "--repeats", "1", "--threads", "1")
	runBenchJSON(t, &first, one...)
	runBenchJSON(t, &again, one...)
	if first.Loss != again.Loss {
		t.Errorf("same run, losses %v and %v", first.Loss, again.Loss)
	}
	if !(math.Abs(first.Loss-6*math.Log(10)) <= 3) {
		t.Errorf("first loss %v, want near 6 ln 10 = %.3f", first.Loss, 6*math.Log(10))
	}
	runBenchJSON(t, &later, append(tinyTrain, "--warmup", "0", "--steps", "150", "--repeats", "1", "--threads", "1")...)
	if !(later.Loss < first.Loss-1) {
		t.Errorf("loss after 150 steps %v, first %v: not learning", later.Loss, first.Loss)
	}
}

func TestBenchTrainBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--config", "d"},
		{"--threads", "-1"},
		{"--steps", "0"},
		{"--repeats", "0"},
		{"--warmup", "-1"},
		{"--batch", "0"},
		{"--heads", "-2"},
		{"--dec-width", "10", "--heads", "4"},    // width not a multiple of heads
		{"--batch", "1", "--enc-width", "12000"}, // 4.4 GB measured, past the 4 GiB a benchmark may use
		{"extra"},
		{"--nosuch"},
	} {
		var errb bytes.Buffer
		if code := run(append([]string{"bench", "train"}, args...), &errb); code != 2 {
			t.Errorf("%v: exit status %d, want 2 (%s)", args, code, errb.String())
		} else if !strings.Contains(errb.String(), "bench train") {
			t.Errorf("%v: message %q does not name the command", args, errb.String())
		}
	}
}
