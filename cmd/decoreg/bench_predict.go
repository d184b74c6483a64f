package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"decoreg"
	"decoreg/data"
	"decoreg/dist"
	"decoreg/internal/gemm"
	"decoreg/internal/jsonfloat"
	"decoreg/metrics"
	"decoreg/synth"
)

var benchPredictCmd = &Command{
	Name:      "bench predict",
	UsageLine: "bench predict [--model FILE --data FILE] [--rows N] [--quantiles Q] [--samples S] [--threads T] [--repeats R]",
	Short:     "measure batch prediction: exact mean and quantiles per row, against the same from S samples per row",
	Long: `Bench predict times what 'decoreg predict' computes for many rows: the
exact mean and Q quantiles (levels 1/(Q+1), ..., Q/(Q+1)) of p(y|x) for
--rows rows, the rows spread over --threads goroutines, one core each
(Model.PredictFlat on each goroutine's slice with Token.Threads 1). For comparison it times the estimate a
sampling-only implementation (such as the paper's reference code) must
make instead: S draws per row (dist.Distribution.Sample, key/value-cached
for decoders) and their mean and empirical quantiles. It prints one JSON
object with the medians over --repeats runs:

	{"rows":100000,"exact_rows_per_s":...,"sampled_rows_per_s":...,"speedup":...,...}

Without --model it trains a decoder with the defaults of 'decoreg train'
on 5,000 rows of the demo's problem (y|x a Gaussian mixture, x on [-1, 1];
a few seconds) and predicts rows of x evenly spread on [-1, 1]. With
--model FILE, --data FILE gives the rows (CSV, read as 'decoreg predict'
reads it), repeated in order up to --rows.

--samples 0 skips the sampled timing. The decoder's exact mean expands
every prefix whose probability times its width (as a share of the
target's range) is at least 5e-6 (dist.DefaultMeanTolNormalized; for the
unnormalized tokenization, probability >= 1e-3), so its cost depends on
the model's spread: an untrained model is the worst case.`,
}

func init() {
	registerBench(&benchCommand{Name: "predict", Short: benchPredictCmd.Short, Run: runBenchPredict})
}

type predictBenchResult struct {
	Rows            int     `json:"rows"`
	Quantiles       int     `json:"quantiles"`
	Samples         int     `json:"samples"`
	Threads         int     `json:"threads"`
	Repeats         int     `json:"repeats"`
	ExactRowsPerS   float64 `json:"exact_rows_per_s"`
	ExactSeconds    float64 `json:"exact_seconds"`
	SampledRowsPerS float64 `json:"sampled_rows_per_s,omitempty"`
	SampledSeconds  float64 `json:"sampled_seconds,omitempty"`
	Speedup         float64 `json:"speedup,omitempty"` // exact rows/s over sampled rows/s
	// The mean over rows of the exact means, and of the sampled ones: a
	// check that both did the work (as decoreg's other JSON, an infinity
	// as "+Inf" or "-Inf").
	ExactMeanOfMeans   jsonfloat.Float `json:"exact_mean_of_means"`
	SampledMeanOfMeans jsonfloat.Float `json:"sampled_mean_of_means,omitempty"`
	Head               string          `json:"head"`
	Kernel             string          `json:"kernel"`
	PeakRSSMB          float64         `json:"peak_rss_mb"`
}

func runBenchPredict(args []string) error {
	const name = "bench predict"
	fs := newFlagSet(benchPredictCmd)
	modelPath := fs.String("model", "", "the model `FILE` (default: train one on built-in data)")
	dataPath := fs.String("data", "", "rows for --model: CSV `FILE` as 'decoreg predict' reads")
	rows := fs.Int("rows", 100000, "rows to predict")
	quantiles := fs.Int("quantiles", 9, "quantile levels per row")
	samples := fs.Int("samples", 1000, "draws per row of the sampled comparison (0: skip it)")
	threads := fs.Int("threads", 0, "goroutines working on rows in parallel (0: every core)")
	repeats := fs.Int("repeats", 3, "timed runs; the medians are reported")
	if err := parseFlags(benchPredictCmd, fs, args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usagef("%s: unexpected argument %q", name, fs.Arg(0))
	case *rows < 1 || *rows > 1<<24:
		return usagef("%s: --rows must be in [1, %d], have %d", name, 1<<24, *rows)
	case *quantiles < 0 || *quantiles > 1000:
		return usagef("%s: --quantiles must be in [0, 1000], have %d", name, *quantiles)
	case *samples < 0 || *samples > 1<<20:
		return usagef("%s: --samples must be in [0, %d], have %d", name, 1<<20, *samples)
	case *threads < 0 || *threads > decoreg.MaxThreads:
		return usagef("%s: --threads must be in [0, %d] (0: every core), have %d", name, decoreg.MaxThreads, *threads)
	case *repeats < 1 || *repeats > 1000:
		return usagef("%s: --repeats must be in [1, 1000], have %d", name, *repeats)
	case (*modelPath == "") != (*dataPath == ""):
		return usagef("%s: give --model and --data together, or neither (the built-in model and rows)", name)
	}
	if *threads == 0 {
		*threads = runtime.GOMAXPROCS(0)
	}
	var m *decoreg.Model
	var x []float64
	if *modelPath == "" {
		prob := synth.NewMixture(1)
		xt, yt := prob.Sample(5000, 1)
		var err error
		if m, err = decoreg.FitFlat(context.Background(), xt, 5000, 1, yt, decoreg.Config{MaxEpochs: 20, Seed: 1}); err != nil {
			return fmt.Errorf("%s: training the model: %v", name, err)
		}
		x = make([]float64, *rows)
		for i := range x {
			x[i] = -1 + 2*(float64(i)+0.5)/float64(*rows)
		}
	} else {
		var err error
		if m, err = loadModel(name, *modelPath); err != nil {
			return err
		}
		path, err := dataFile(name, *dataPath)
		if err != nil {
			return err
		}
		d, err := readForModel(name, path, data.Dialect{}, m, "", targetIgnored)
		if err != nil {
			return err
		}
		// A row the model cannot predict is named by its file line (the
		// timed rows cycle through the file's, and were named by their
		// index among them, from 0): the rows timed are predicted once
		// first, a chunk at a time (whatever the file's size: the peak
		// memory is reported).
		used, err := d.at(0, min(*rows, d.Rows)) // the file's rows timed
		if err != nil {
			return inputErr(name, err)
		}
		for lo := 0; lo < min(*rows, d.Rows); lo += predictChunk {
			hi := min(lo+predictChunk, *rows, d.Rows)
			if _, err := m.PredictFlat(context.Background(), used[lo*d.Cols:hi*d.Cols], hi-lo, decoreg.PredictOptions{Outputs: decoreg.OutMean}); err != nil {
				var de *decoreg.DataError
				if errors.As(err, &de) && de.Row >= 0 {
					de.Row += lo
				}
				return dataErr(name, d.Dataset, nil, err)
			}
		}
		x = make([]float64, 0, *rows*d.Cols)
		for i := 0; len(x) < *rows*d.Cols; i = (i + 1) % d.Rows {
			x = append(x, used[i*d.Cols:(i+1)*d.Cols]...)
		}
	}
	feats := m.Features()
	// Memory: the rows, their means and, per goroutine, one chunk's
	// encodings and distributions.
	if err := checkBenchMemory("predict", fmt.Sprintf("--rows %d", *rows), benchBytes(*rows, 8*feats+16)); err != nil {
		return err
	}
	levels := make([]float64, *quantiles)
	for i := range levels {
		levels[i] = float64(i+1) / float64(*quantiles+1)
	}
	outs := decoreg.OutMean
	if *quantiles > 0 {
		outs |= decoreg.OutQuantiles
	}
	// parallel runs f on contiguous slices of the rows, one per goroutine,
	// predictChunk rows at a time (so that memory does not grow with --rows).
	parallel := func(f func(lo, hi int) error) error {
		var wg sync.WaitGroup
		errs := make([]error, *threads)
		for g := range *threads {
			lo, hi := g**rows / *threads, (g+1)**rows / *threads
			wg.Go(func() {
				for a := lo; a < hi && errs[g] == nil; a += predictChunk {
					errs[g] = f(a, min(a+predictChunk, hi))
				}
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		return nil
	}
	// Each goroutine works on one core (its rows in turn, each row's
	// decoder steps unshared), so that --threads is the cores used.
	oneCore := dist.TokenOptions{Threads: 1}
	means, sMeans := make([]float64, *rows), make([]float64, *rows)
	exact := func(lo, hi int) error {
		p, err := m.PredictFlat(context.Background(), x[lo*feats:hi*feats], hi-lo, decoreg.PredictOptions{Outputs: outs, Levels: levels, Token: oneCore})
		if err != nil {
			return err
		}
		copy(means[lo:hi], p.Mean)
		return nil
	}
	sampled := func(lo, hi int) error {
		ds, err := m.Dists(context.Background(), x[lo*feats:hi*feats], hi-lo, oneCore)
		if err != nil {
			return err
		}
		qs := make([]float64, len(levels))
		for k, d := range ds {
			// A stream per row: the draws do not depend on --threads.
			r := rand.New(rand.NewPCG(uint64(lo+k), 7))
			s := d.Sample(*samples, dist.SampleOptions{}, r)
			slices.Sort(s)
			// metrics.Mean: the plain sum, or where draws near
			// ±MaxFloat64 overflow it, the sum of shares.
			sMeans[lo+k] = metrics.Mean(s)
			for j, q := range levels {
				qs[j] = s[min(len(s)-1, int(q*float64(len(s))))]
			}
		}
		return nil
	}
	var te, ts []float64
	for range *repeats {
		t := time.Now()
		if err := parallel(exact); err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		te = append(te, time.Since(t).Seconds())
		if *samples > 0 {
			t = time.Now()
			if err := parallel(sampled); err != nil {
				return fmt.Errorf("%s: %v", name, err)
			}
			ts = append(ts, time.Since(t).Seconds())
		}
	}
	res := predictBenchResult{
		Rows: *rows, Quantiles: *quantiles, Samples: *samples, Threads: *threads, Repeats: *repeats,
		Head: string(m.Config().Head), Kernel: gemm.Kernel(),
	}
	res.ExactSeconds = roundSig(metrics.Median(te))
	res.ExactRowsPerS = roundSig(float64(*rows) / metrics.Median(te))
	if len(ts) > 0 {
		res.SampledSeconds = roundSig(metrics.Median(ts))
		res.SampledRowsPerS = roundSig(float64(*rows) / metrics.Median(ts))
		res.Speedup = roundSig(metrics.Median(ts) / metrics.Median(te))
	}
	// Sums of shares, finite for finite means (near ±MaxFloat64 for an
	// unbounded tokenization).
	var em, sm float64
	for i := range means {
		em += means[i] / float64(len(means))
		sm += sMeans[i] / float64(len(means))
	}
	res.ExactMeanOfMeans, res.SampledMeanOfMeans = jsonfloat.Float(em), jsonfloat.Float(sm)
	res.PeakRSSMB = roundSig(peakRSSMB())
	return json.NewEncoder(stdout).Encode(res)
}

// predictChunk is how many rows bench predict predicts at a time.
const predictChunk = 4096
