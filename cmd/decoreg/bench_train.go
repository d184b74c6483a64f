package main

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"decoreg"
	"decoreg/internal/gemm"
	"decoreg/internal/model"
	"decoreg/internal/nn"
	"decoreg/internal/rng"
	"decoreg/metrics"
	"decoreg/vocab"
)

var benchTrainCmd = &Command{
	Name:      "bench train",
	UsageLine: "bench train [--config a|b|c] [--threads N] [--repeats R] [--steps S] [--warmup W] [--batch B]",
	Short:     "measure training steps per second of the issue-6 models (as the PyTorch peer)",
	Long: `Bench train times training steps (forward, backward and an Adam update,
learning rate 1e-3) of one of the models the PyTorch peer's throughput.py
times (shared/peers/torch_ref), on synthetic data with the tokens
precomputed: 8 standard normal features, targets uniform on [0, 1]
tokenized by the normalized decoder with base 10 and 6 digits, trained
with the unmasked cross-entropy as the peer does. The configurations are

	a  encoder 3x512,  decoder 1 layer,  width 32,  1 head
	b  encoder 3x2048, decoder 1 layer,  width 32,  1 head
	c  encoder 3x512,  decoder 3 layers, width 128, 4 heads

with post-LayerNorm blocks, feed-forward width = width and head width =
width/heads. After --warmup untimed steps it times --repeats blocks of
--steps steps and prints one JSON object:

	{"config":"a","steps_per_s":...,"examples_per_s":...,"peak_rss_mb":...,"threads":2,...}

steps_per_s is 1 / the median time per step over the blocks (ms_per_step
min and max are the fastest and slowest blocks). step_gflop counts the
floating-point operations of the step's matrix products (the linear
layers forward, their weight and input gradients, the attention's
products); gemm_gflops is the matrix multiply's rate at 256x2048x2048 on
the same threads, measured after the steps (the median of --repeats
timings of 0.2 s, at most 5); gemm_bound_fraction = steps_per_s x step_gflop / gemm_gflops is
the share of the bound those products set that the steps reach (1 would
be a step that is nothing but multiplies at that rate), and
bound_steps_per_s = gemm_gflops / step_gflop is that step's rate: no
step of this model runs faster unless its multiplies beat the 256x2048x2048
rate (a ratio to another program's steps/s above bound_steps_per_s / its
steps/s cannot be reached). peak_rss_mb is the
process's peak resident set (getrusage). loss is the batch loss of the
last step, which depends only on the configuration, the seed and the
thread count. --enc-width, --dec-layers, --dec-width and --heads override
the configuration's sizes. A batch and sizes whose estimated memory (the
parameters, their gradients and Adam's moments, and about 16 bytes per
encoder unit and 64 per decoder unit and token of every example) exceeds
4 GiB are refused.`,
}

func init() {
	registerBench(&benchCommand{Name: "train", Short: benchTrainCmd.Short, Run: runBenchTrain})
}

// trainBenchConfig is one of issue 6's model sizes.
type trainBenchConfig struct {
	encWidth, decLayers, decWidth, heads int
}

var trainBenchConfigs = map[string]trainBenchConfig{
	"a": {512, 1, 32, 1},
	"b": {2048, 1, 32, 1},
	"c": {512, 3, 128, 4},
}

// trainBenchResult is the output of bench train.
type trainBenchResult struct {
	Config       string  `json:"config"`
	StepsPerS    float64 `json:"steps_per_s"`
	ExamplesPerS float64 `json:"examples_per_s"`
	MsMedian     float64 `json:"ms_per_step_median"`
	MsMin        float64 `json:"ms_per_step_min"`
	MsMax        float64 `json:"ms_per_step_max"`
	PeakRSSMB    float64 `json:"peak_rss_mb"`
	Threads      int     `json:"threads"`
	Batch        int     `json:"batch"`
	Steps        int     `json:"steps"`
	Repeats      int     `json:"repeats"`
	Warmup       int     `json:"warmup"`
	EncWidth     int     `json:"enc_width"`
	DecLayers    int     `json:"dec_layers"`
	DecWidth     int     `json:"dec_width"`
	Heads        int     `json:"heads"`
	Params       int     `json:"params"`
	Kernel       string  `json:"gemm_kernel"`
	Loss         float64 `json:"loss"`
	// The step's bound: StepGFLOP (model.TrainFLOPs) at the GEMM rate
	// measured in the same run (GEMMGFLOPS, 256x2048x2048 on the same
	// threads): the share of that bound the steps reach, and the bound
	// itself in steps/s (GEMMGFLOPS / StepGFLOP).
	StepGFLOP     float64 `json:"step_gflop"`
	GEMMGFLOPS    float64 `json:"gemm_gflops"`
	BoundFraction float64 `json:"gemm_bound_fraction"`
	BoundSteps    float64 `json:"bound_steps_per_s"`
}

func runBenchTrain(args []string) error {
	fs := newFlagSet(benchTrainCmd)
	config := fs.String("config", "a", "model `a|b|c` (see above)")
	threads := fs.Int("threads", 0, "threads for the matrix multiplies and the layers (0: every core)")
	repeats := fs.Int("repeats", 5, "timed blocks; the median is reported")
	steps := fs.Int("steps", 20, "training steps per timed block")
	warmup := fs.Int("warmup", 10, "untimed steps before the first block")
	batch := fs.Int("batch", 256, "examples per step")
	seed := fs.Uint64("seed", 0, "seed of the parameters and the data")
	encWidth := fs.Int("enc-width", 0, "override the encoder width (0: the configuration's)")
	decLayers := fs.Int("dec-layers", 0, "override the number of decoder layers (0: the configuration's)")
	decWidth := fs.Int("dec-width", 0, "override the decoder width (0: the configuration's)")
	heads := fs.Int("heads", 0, "override the number of attention heads (0: the configuration's)")
	if err := parseFlags(benchTrainCmd, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("bench train: unexpected argument %q", fs.Arg(0))
	}
	cfg, ok := trainBenchConfigs[*config]
	if !ok {
		return usagef("bench train: --config %s is not one of a, b, c", strconv.Quote(*config))
	}
	for _, o := range []struct {
		name string
		v    int
		dst  *int
	}{{"enc-width", *encWidth, &cfg.encWidth}, {"dec-layers", *decLayers, &cfg.decLayers}, {"dec-width", *decWidth, &cfg.decWidth}, {"heads", *heads, &cfg.heads}} {
		if o.v < 0 {
			return usagef("bench train: --%s must not be negative, not %d", o.name, o.v)
		}
		if o.v > 0 {
			*o.dst = o.v
		}
	}
	switch {
	case *threads < 0 || *threads > decoreg.MaxThreads:
		return usagef("bench train: --threads must be in [0, %d] (0: every core), not %d", decoreg.MaxThreads, *threads)
	case *repeats < 1:
		return usagef("bench train: --repeats must be at least 1, not %d", *repeats)
	case *steps < 1:
		return usagef("bench train: --steps must be at least 1, not %d", *steps)
	case *warmup < 0:
		return usagef("bench train: --warmup must not be negative, not %d", *warmup)
	case *batch < 1:
		return usagef("bench train: --batch must be at least 1, not %d", *batch)
	}

	if cfg.decWidth%cfg.heads != 0 {
		return usagef("bench train: --dec-width %d is not a multiple of --heads %d", cfg.decWidth, cfg.heads)
	}
	if *threads == 0 {
		*threads = runtime.GOMAXPROCS(0)
	}
	const features, base, digits = 8, 10, 6
	// Activations and gradients per example, measured: about 11 bytes per
	// encoder unit and 47 per decoder unit (layers x width x tokens); the
	// estimate rounds them up.
	perExample := benchBytes(16, 3, cfg.encWidth) + benchBytes(64, cfg.decLayers, cfg.decWidth, digits) + 4*(features+digits)
	// The parameters: 2 W² in the encoder's hidden layers and 12 per
	// decoder layer and width², each with its gradient and Adam's two
	// moments (16 bytes); --enc-width 12000 peaked at 4.4 GB where 16 W²
	// bytes were counted.
	params := benchBytes(32, cfg.encWidth, cfg.encWidth) + benchBytes(16*12, cfg.decLayers, cfg.decWidth, cfg.decWidth)
	if err := checkBenchMemory("train", fmt.Sprintf("--batch %d with --enc-width %d --dec-layers %d --dec-width %d", *batch, cfg.encWidth, cfg.decLayers, cfg.decWidth), benchBytes(*batch)*perExample+params); err != nil {
		return err
	}
	tok, err := vocab.NewNormalized(base, digits)
	if err != nil {
		return err
	}
	net, err := model.New(model.Config{
		In: features, EncLayers: 3, EncWidth: cfg.encWidth, Head: model.Decoder, Vocab: tok,
		DecLayers: cfg.decLayers, DecWidth: cfg.decWidth, DecHeads: cfg.heads, Threads: *threads,
	}, *seed)
	if err != nil {
		// model's field names in the flags' terms.
		return usagef("bench train: %v", modelFieldFlags.Replace(err.Error()))
	}
	b := &model.Batch{B: *batch, X: make([]float32, *batch*features), Tokens: make([]int32, *batch*digits)}
	r := rng.New(*seed + 1)
	for i := range b.X {
		b.X[i] = float32(r.NormFloat64())
	}
	for i := range *batch {
		ts, _, err := tok.Encode(r.Float64())
		if err != nil {
			return err
		}
		for j, t := range ts {
			b.Tokens[i*digits+j] = int32(t)
		}
	}

	opt := nn.NewAdam(net.NumParams(), 1e-3)
	var loss float64
	step := func() {
		net.ZeroGrad()
		loss = net.Forward(b)
		net.Backward()
		opt.Step(net.Threads(), net.Params(), net.Grads())
	}
	for range *warmup {
		step()
	}
	per := make([]float64, *repeats) // seconds per step of each block
	for i := range per {
		t0 := time.Now()
		for range *steps {
			step()
		}
		per[i] = time.Since(t0).Seconds() / float64(*steps)
	}
	med := metrics.Median(per)
	rss := peakRSSMB() // before the multiply's probe allocates its operands
	flops := net.TrainFLOPs(*batch)
	rate := gemmRate(*threads, min(*repeats, gemmProbes))
	res := trainBenchResult{
		Config: *config, StepsPerS: round3(1 / med), ExamplesPerS: round3(float64(*batch) / med),
		MsMedian: roundSig(med * 1e3), MsMin: roundSig(slices.Min(per) * 1e3), MsMax: roundSig(slices.Max(per) * 1e3),
		PeakRSSMB: round3(rss), Threads: *threads, Batch: *batch, Steps: *steps, Repeats: *repeats,
		Warmup: *warmup, EncWidth: cfg.encWidth, DecLayers: cfg.decLayers, DecWidth: cfg.decWidth,
		Heads: cfg.heads, Params: net.NumParams(), Kernel: gemm.Kernel(), Loss: loss,
		// The bound's numbers to 4 significant digits: a small model's
		// step_gflop rounded to 0 at 3 decimals beside a finite bound.
		StepGFLOP: roundSig(flops / 1e9), GEMMGFLOPS: round3(rate / 1e9), BoundFraction: roundSig(flops / med / rate),
		BoundSteps: roundSig(rate / flops),
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return fmt.Errorf("bench train: the loss became %v", loss)
	}
	return json.NewEncoder(stdout).Encode(res)
}

// gemmProbes bounds the timings of the multiply's rate, so that many
// --repeats do not add seconds of probing.
const gemmProbes = 5

// gemmRate measures the multiply's rate (FLOP/s) at 256x2048x2048 on
// threads, as the linear layers call it (B transposed): the median of
// repeats timings of at least 0.2 s each.
func gemmRate(threads, repeats int) float64 {
	const m, n, k = 256, 2048, 2048
	a, b, c := make([]float32, m*k), make([]float32, n*k), make([]float32, m*n)
	r := rng.New(7)
	for i := range a {
		a[i] = float32(r.NormFloat64())
	}
	for i := range b {
		b[i] = float32(r.NormFloat64())
	}
	mul := func() { gemm.Sgemm(threads, false, true, m, n, k, 1, a, k, b, k, 0, c, n) }
	mul() // warm-up
	rates := make([]float64, repeats)
	for i := range rates {
		calls, t0 := 0, time.Now()
		for calls == 0 || time.Since(t0) < 200*time.Millisecond {
			mul()
			calls++
		}
		rates[i] = 2 * m * n * k * float64(calls) / time.Since(t0).Seconds()
	}
	return metrics.Median(rates)
}

// modelFieldFlags rewrites the field names of internal/model's errors as
// the flags of bench train that set them.
var modelFieldFlags = strings.NewReplacer("model: ", "", "EncWidth", "--enc-width", "DecLayers", "--dec-layers",
	"DecWidth", "--dec-width", "DecHeads", "--heads")

// round3 rounds x to 3 decimals (for readable JSON).
func round3(x float64) float64 { return math.Round(x*1e3) / 1e3 }
