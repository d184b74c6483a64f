package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

func TestBenchSample(t *testing.T) {
	tiny := []string{"bench", "sample", "--inputs", "3", "--samples", "40", "--quantiles", "4", "--repeats", "2", "--enc-width", "16"}
	var one, two sampleBenchResult
	runBenchJSON(t, &one, append(tiny, "--threads", "1")...)
	runBenchJSON(t, &two, append(tiny, "--threads", "3")...)
	if one.Threads != 1 || one.Inputs != 3 || one.Samples != 40 || one.Quantiles != 4 || one.Repeats != 2 {
		t.Errorf("settings not echoed: %+v", one)
	}
	for _, r := range []sampleBenchResult{one, two} {
		if !(r.SamplesPerS > 0 && val(r.QuantileQueriesPerS) > 0 && val(r.QuantileInputsPerS) > 0) {
			t.Errorf("rates not positive: %+v", r)
		}
		if !(math.Abs(val(r.QuantileQueriesPerS)-4*val(r.QuantileInputsPerS)) <= 1e-3*val(r.QuantileQueriesPerS)+0.01) {
			t.Errorf("quantile rates %v and %v: want queries = 4 x inputs", val(r.QuantileQueriesPerS), val(r.QuantileInputsPerS))
		}
		if !(r.SampleSecondsMin <= r.SampleSecondsMedian && r.SampleSecondsMedian <= r.SampleSecondsMax) {
			t.Errorf("sample seconds min %v median %v max %v", r.SampleSecondsMin, r.SampleSecondsMedian, r.SampleSecondsMax)
		}
		if !(r.SampleMean > 0 && r.SampleMean < 1 && val(r.QuantileMean) > 0 && val(r.QuantileMean) < 1) {
			t.Errorf("means outside (0, 1): %+v", r)
		}
		if !(r.PeakRSSMB > 1) {
			t.Errorf("peak_rss_mb %v", r.PeakRSSMB)
		}
	}
	// Every input has its own stream: the draws and the quantiles do not
	// depend on the number of goroutines.
	if one.SampleMean != two.SampleMean || val(one.QuantileMean) != val(two.QuantileMean) {
		t.Errorf("1 thread: means %v, %v; 3 threads: %v, %v", one.SampleMean, val(one.QuantileMean), two.SampleMean, val(two.QuantileMean))
	}
}

// TestBenchSampleAgrees checks the two timed computations against each
// other: the average of the quantiles at levels i/200, i = 1..199, and the
// average of 3000 draws both estimate the mean of the same distributions.
// The draws' standard error is below 0.3/sqrt(6000) = 0.004; the quantile
// average differs from the mean by O(1/200) for a distribution on [0, 1].
func TestBenchSampleAgrees(t *testing.T) {
	var r sampleBenchResult
	runBenchJSON(t, &r, "bench", "sample", "--inputs", "2", "--samples", "3000", "--quantiles", "199",
		"--repeats", "1", "--enc-width", "16", "--seed", "3")
	if d := math.Abs(r.SampleMean - val(r.QuantileMean)); !(d <= 0.02) {
		t.Errorf("sample mean %v, quantile mean %v: differ by %v", r.SampleMean, val(r.QuantileMean), d)
	}
}

func TestBenchSampleBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--inputs", "0"},
		{"--samples", "0"},
		{"--quantiles", "-1"},
		{"--threads", "-1"},
		{"--repeats", "0"},
		{"--enc-width", "0"},
		// The network's weights: a makeslice panic at 99999999, and 7 GB
		// allocated at 30000, past the estimate of the inputs alone.
		{"--enc-width", "99999999"},
		{"--enc-width", "30000"},
		{"extra"},
	} {
		var errb bytes.Buffer
		if code := run(append([]string{"bench", "sample"}, args...), &errb); code != 2 {
			t.Errorf("%v: exit status %d, want 2 (%s)", args, code, errb.String())
		} else if !strings.Contains(errb.String(), "bench sample") {
			t.Errorf("%v: message %q does not name the command", args, errb.String())
		}
	}
}

// val is *p, or NaN when p is nil (a field left out).
func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
