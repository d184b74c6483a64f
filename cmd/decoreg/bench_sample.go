package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"decoreg"
	"decoreg/dist"
	"decoreg/internal/model"
	"decoreg/internal/rng"
	"decoreg/metrics"
	"decoreg/vocab"
)

var benchSampleCmd = &Command{
	Name:      "bench sample",
	UsageLine: "bench sample [--inputs N] [--samples S] [--quantiles Q] [--threads N] [--repeats R]",
	Short:     "measure ancestral sampling and exact quantiles of config a's decoder (as the PyTorch peer)",
	Long: `Bench sample times what the PyTorch peer's sample_bench.py times
(shared/peers/torch_ref): --samples ancestral samples for each of --inputs
standard normal inputs, with the untrained model of 'decoreg bench train
--config a' (8 features, encoder 3x512, normalized decoder base 10 with 6
digits, 1 layer of width 32 with 1 head; the speed does not depend on the
weights). The timed region encodes every input once (phi(x), in batches)
and then, for each input, draws its samples through dist.Token.Sample:
one key/value-cached decoder pass of 6 steps over all of its samples.
Inputs are spread over --threads goroutines, each input with its own
random stream, so the draws do not depend on the thread count.

It then times exact quantiles: for each input, --quantiles levels
(1/(Q+1), ..., Q/(Q+1)) through dist.Token.Quantiles, one tree walk of 6
decoder steps over all levels. It prints one JSON object:

	{"samples_per_s":...,"quantile_queries_per_s":...,"peak_rss_mb":...,"threads":2,...}

with the medians over --repeats runs of each part (times in seconds to 4
significant digits; with --quantiles 0 the quantile fields are left out).
sample_mean is the mean of all draws, a check that runs agree.

Flags whose estimated memory (the inputs and their encodings; about 4 KiB
per sample or quantile level in flight on each thread) exceeds 4 GiB are
refused.`,
}

func init() {
	registerBench(&benchCommand{Name: "sample", Short: benchSampleCmd.Short, Run: runBenchSample})
}

// sampleBenchResult is the output of bench sample.
type sampleBenchResult struct {
	SamplesPerS           float64  `json:"samples_per_s"`
	SampleSecondsMedian   float64  `json:"sample_seconds_median"`
	SampleSecondsMin      float64  `json:"sample_seconds_min"`
	SampleSecondsMax      float64  `json:"sample_seconds_max"`
	QuantileQueriesPerS   *float64 `json:"quantile_queries_per_s,omitempty"` // these three and quantile_mean are left out with --quantiles 0
	QuantileInputsPerS    *float64 `json:"quantile_inputs_per_s,omitempty"`
	QuantileSecondsMedian *float64 `json:"quantile_seconds_median,omitempty"`
	PeakRSSMB             float64  `json:"peak_rss_mb"`
	Threads               int      `json:"threads"` // goroutines that worked: --threads, at most --inputs
	Inputs                int      `json:"inputs"`
	Samples               int      `json:"samples"`
	Quantiles             int      `json:"quantiles"`
	Repeats               int      `json:"repeats"`
	SampleMean            float64  `json:"sample_mean"`
	QuantileMean          *float64 `json:"quantile_mean,omitempty"`
}

func runBenchSample(args []string) error {
	fs := newFlagSet(benchSampleCmd)
	inputs := fs.Int("inputs", 1000, "number of inputs x")
	samples := fs.Int("samples", 1000, "samples drawn for each input")
	quantiles := fs.Int("quantiles", 99, "quantile levels per input (0: skip the quantile timing)")
	threads := fs.Int("threads", 0, "goroutines working on inputs in parallel (0: every core)")
	repeats := fs.Int("repeats", 3, "timed runs; the medians are reported")
	seed := fs.Uint64("seed", 0, "seed of the parameters, the inputs and the draws")
	encWidth := fs.Int("enc-width", 512, "encoder width")
	if err := parseFlags(benchSampleCmd, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("bench sample: unexpected argument %q", fs.Arg(0))
	}
	switch {
	case *inputs < 1:
		return usagef("bench sample: --inputs must be at least 1, not %d", *inputs)
	case *samples < 1:
		return usagef("bench sample: --samples must be at least 1, not %d", *samples)
	case *quantiles < 0:
		return usagef("bench sample: --quantiles must not be negative, not %d", *quantiles)
	case *threads < 0 || *threads > decoreg.MaxThreads:
		return usagef("bench sample: --threads must be in [0, %d] (0: every core), not %d", decoreg.MaxThreads, *threads)
	case *repeats < 1:
		return usagef("bench sample: --repeats must be at least 1, not %d", *repeats)
	case *encWidth < 1:
		return usagef("bench sample: --enc-width must be at least 1, not %d", *encWidth)
	}

	if *threads == 0 {
		*threads = runtime.GOMAXPROCS(0)
	}
	const features = 8
	// Memory: the inputs and their encodings, and about 3 KiB per sample
	// in flight (measured; the estimate takes 4 KiB) on every thread.
	// The network: its encoder's 3 layers hold about 2 W² weights, each
	// with a gradient buffer (8 bytes); the estimate takes 16 per W².
	if err := checkBenchMemory("sample", fmt.Sprintf("--enc-width %d", *encWidth), benchBytes(16, *encWidth, *encWidth)); err != nil {
		return err
	}
	if err := checkBenchMemory("sample", fmt.Sprintf("--inputs %d", *inputs), benchBytes(*inputs, 4*features+4**encWidth+16)); err != nil {
		return err
	}
	if err := checkBenchMemory("sample", fmt.Sprintf("--samples %d", *samples), benchBytes(min(*threads, *inputs), *samples, 4096)); err != nil {
		return err
	}
	if err := checkBenchMemory("sample", fmt.Sprintf("--quantiles %d", *quantiles), benchBytes(min(*threads, *inputs), *quantiles, 4096)); err != nil {
		return err
	}
	tok, err := vocab.NewNormalized(10, 6)
	if err != nil {
		return err
	}
	net, err := model.New(model.Config{
		In: features, EncLayers: 3, EncWidth: *encWidth, Head: model.Decoder, Vocab: tok,
		DecLayers: 1, DecWidth: 32, DecHeads: 1,
		Threads: 1, // inputs go to the workers one at a time; each worker's kernels stay on its goroutine
	}, *seed)
	if err != nil {
		return err
	}
	n := *inputs
	x := make([]float32, n*features)
	r := rng.New(*seed + 1)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	levels := make([]float64, *quantiles)
	for i := range levels {
		levels[i] = float64(i+1) / float64(*quantiles+1)
	}

	phi := make([]float32, n*net.Cfg.EncWidth)
	encode := func() {
		const chunk = 256
		chunks := (n + chunk - 1) / chunk
		forEachInput(chunks, *threads, func(c int) {
			lo, hi := c*chunk, min((c+1)*chunk, n)
			net.Encode(x[lo*features:hi*features], hi-lo, phi[lo*net.Cfg.EncWidth:])
		})
	}
	aff := dist.Affine{Offset: 0, Scale: 1}
	token := func(i int) *dist.Token {
		w := net.Cfg.EncWidth
		return dist.NewToken(net.Decoder(phi[i*w:(i+1)*w]), tok, aff, dist.TokenOptions{})
	}
	sums := make([]float64, n) // per-input sums, added in input order
	sampleRun := func() float64 {
		t0 := time.Now()
		encode()
		forEachInput(n, *threads, func(i int) {
			src := rand.New(rand.NewPCG(*seed, uint64(i)))
			s := 0.0
			// Centres: the decoded values, as the peer's sample_bench.py
			// (and the figures measured before draws within cells).
			for _, v := range token(i).Sample(*samples, dist.SampleOptions{Centres: true}, src) {
				s += v
			}
			sums[i] = s
		})
		return time.Since(t0).Seconds()
	}
	qsums := make([]float64, n)
	quantileRun := func() float64 {
		t0 := time.Now()
		encode()
		forEachInput(n, *threads, func(i int) {
			s := 0.0
			for _, v := range token(i).Quantiles(levels) {
				s += v
			}
			qsums[i] = s
		})
		return time.Since(t0).Seconds()
	}

	sampleRun() // warm-up
	var st, qt []float64
	for range *repeats {
		st = append(st, sampleRun())
	}
	if *quantiles > 0 {
		quantileRun()
		for range *repeats {
			qt = append(qt, quantileRun())
		}
	}
	total := float64(n) * float64(*samples)
	res := sampleBenchResult{
		SampleSecondsMedian: roundSig(metrics.Median(st)), SampleSecondsMin: roundSig(slices.Min(st)),
		SampleSecondsMax: roundSig(slices.Max(st)), SamplesPerS: round3(total / metrics.Median(st)),
		Threads: min(*threads, n), Inputs: n, Samples: *samples, Quantiles: *quantiles, Repeats: *repeats,
		SampleMean: sumInOrder(sums) / total,
	}
	if len(qt) > 0 {
		q := metrics.Median(qt)
		ptr := func(v float64) *float64 { return &v }
		res.QuantileSecondsMedian = ptr(roundSig(q))
		res.QuantileQueriesPerS = ptr(round3(float64(n) * float64(*quantiles) / q))
		res.QuantileInputsPerS = ptr(round3(float64(n) / q))
		res.QuantileMean = ptr(sumInOrder(qsums) / (float64(n) * float64(*quantiles)))
		if math.IsNaN(*res.QuantileMean) {
			return errors.New("bench sample: NaN in the results")
		}
	}
	res.PeakRSSMB = round3(peakRSSMB())
	if math.IsNaN(res.SampleMean) {
		return errors.New("bench sample: NaN in the results")
	}
	return json.NewEncoder(stdout).Encode(res)
}

// forEachInput calls f(i) for i in [0, n) on up to workers goroutines,
// handing out indices in increasing order.
func forEachInput(n, workers int, f func(i int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	wg.Add(workers)
	for range workers {
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

func sumInOrder(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// roundSig rounds x to 4 significant digits (times too short for round3).
func roundSig(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	return v
}
