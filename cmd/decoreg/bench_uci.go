package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"decoreg"
	"decoreg/internal/experiments"
	"decoreg/internal/outfile"
)

var benchUCICmd = &Command{
	Name:      "bench uci",
	UsageLine: "bench uci --out RESULTS [--data DIR] [--heads LIST] [--splits LIST] [--datasets LIST] [--shard I/N] [--jobs N] [--sweep] [flags]",
	Short:     "train and evaluate every (dataset, head, split) of the UCI NLL benchmark",
	Long: `Bench uci reproduces the paper's UCI density-estimation table (the
design notes, ../shared/DESIGN.md outside this repository, section 8.7).
For every dataset of DIR (each a directory holding data.csv.gz and
test_mask.csv.gz; default ../shared/data/uci), every head and every
split k, it trains on the rows that are not test rows of split k and
evaluates on the test rows, writing one JSON result atomically to
RESULTS/<dataset>/<head>/split<k>.json: the configuration, the test metrics
(nll in original y units, nll_u, nll_token, mse, rel_mse, kendall_tau,
clipped; see "decoreg help eval"), the training record, the run's seconds,
the commit the binary was built from (as 'decoreg help experiment' says),
the GEMM kernel and GOMAXPROCS.
Summarise with "decoreg bench report RESULTS".

A run that fails on its data (training diverges, the target is
constant) writes a result recording the error, and is not retried; when
every run of the command failed, it exits with status 1.

Runs whose result file exists are skipped, so an interrupted benchmark
resumes where it stopped; Ctrl-C stops at once, leaves no partial file,
and ends by the signal (a shell's status 130). An existing result made
with other settings, or on other files of its dataset (each result
records its dataset's fingerprint, "data", a hash of its two files; older
results are taken as made on the default data directory), is kept with a
warning, and the report flags its cell; a result that another process
with the same --out wrote while this one ran the same run stands, and
this one's is dropped (said on stderr).
The runs are ordered by dataset name, then head (in the order below), then
split; --shard I/N runs only the runs whose index is I modulo N, so N
machines given the same flags and --shard 0/N .. N-1/N (an array job) run
disjoint slices of the same plan. A progress line per run goes to stderr.

--jobs N runs N runs at once in one process (at most GOMAXPROCS; each on
--threads threads, and --threads 0 then means the cores divided by N), largest
dataset first, each job taking the next run as soon as its own ends: on
one machine this finishes in about the summed run time over N, where N
shards each wait for their own slowest runs. A run's result does not
depend on --jobs or --shard.

Heads: decoder-normalized (decoreg.DefaultVocab), decoder-unnormalized
(decoreg.DefaultUnnormalized), mdn, riemann, pointwise (no density: it has
Kendall's tau and MSE but no NLL).

Default hyper-parameters, chosen once from the paper's grid (the design
notes' section 6) and the same for every dataset (decoreg.DefaultConfig):

` + indent(experiments.DefaultsDescription()) + `
--sweep instead selects each run's settings by validation loss over a small
grid, training each candidate on the train part (its 10% early-stopping
split, the same rows for every candidate, gives the validation NLL in u
units, or MSE for pointwise; test rows are never used to choose):

` + indent(experiments.SweepDescription()) + `
The flags below that override a default (--enc-width, --lr, ...) apply to
every run; 0 keeps the default. With --sweep, the grid's own axes (the
learning rate, and the head's axis above) replace the corresponding flags.`,
}

// indent prefixes every line of s with a tab.
func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return "\t" + strings.Join(lines, "\n\t") + "\n"
}

func init() {
	registerBench(&benchCommand{Name: "uci", Short: benchUCICmd.Short, Run: runBenchUCI})
}

// defaultUCIDir is ../shared/data/uci relative to the current directory, or
// else relative to the root of the git checkout the command runs in.
func defaultUCIDir() string {
	const rel = "../shared/data/uci"
	if _, err := os.Stat(rel); err == nil {
		return rel
	}
	if out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return rel
}

func runBenchUCI(args []string) (err error) {
	cmd := benchUCICmd
	fs := newFlagSet(cmd)
	dataDir := fs.String("data", "", "directory of the datasets (default ../shared/data/uci)")
	out := fs.String("out", "", "results directory (required; created if missing, checked to be writable before any run)")
	heads := fs.String("heads", strings.Join(experiments.BenchHeads, ","), "comma-separated heads")
	splits := fs.String("splits", "0-9", "splits to run, e.g. 0-9 or 0,3,5-7")
	datasets := fs.String("datasets", "", "comma-separated datasets: names of subdirectories of --data (default: every one)")
	shard := fs.String("shard", "0/1", "run only the runs with index I modulo N")
	point := fs.String("point", "", "point estimate for mse and kendall_tau: mean, median or mode (default: median for\nunnormalized decoders, mean otherwise)")
	sweep := fs.Bool("sweep", false, "select each run's hyper-parameters by validation loss over the grid above")
	jobs := fs.Int("jobs", 1, "runs at once in this process, largest dataset first")
	var o experiments.Overrides
	fs.IntVar(&o.MaxEpochs, "max-epochs", 0, "maximum epochs (0: the default, 300)")
	fs.IntVar(&o.Threads, "threads", 0, "matrix-kernel threads (0: all cores)")
	seed := fs.Uint64("seed", 0, "training seed of every run")
	fs.IntVar(&o.EncLayers, "enc-layers", 0, "encoder layers (0: default)")
	fs.IntVar(&o.EncWidth, "enc-width", 0, "encoder width (0: default)")
	fs.IntVar(&o.DecLayers, "dec-layers", 0, "decoder layers (0: default)")
	fs.IntVar(&o.DecWidth, "dec-width", 0, "decoder width (0: default)")
	fs.IntVar(&o.DecHeads, "dec-heads", 0, "decoder attention heads (0: default)")
	fs.IntVar(&o.BatchSize, "batch-size", 0, "batch size (0: default)")
	fs.IntVar(&o.Patience, "patience", 0, "early-stopping patience in epochs (0: default)")
	fs.Float64Var(&o.LR, "lr", 0, "Adam learning rate (0: default)")
	if err := parseFlags(cmd, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("bench uci: unexpected argument %q", fs.Arg(0))
	}
	if *out == "" {
		return usagef("bench uci: --out RESULTS is required")
	}
	for _, f := range []struct {
		flag string
		v    int
	}{{"max-epochs", o.MaxEpochs}, {"threads", o.Threads}, {"enc-layers", o.EncLayers}, {"enc-width", o.EncWidth},
		{"dec-layers", o.DecLayers}, {"dec-width", o.DecWidth}, {"dec-heads", o.DecHeads}, {"batch-size", o.BatchSize},
		{"patience", o.Patience}} {
		if f.v < 0 {
			return usagef("bench uci: --%s must be >= 0 (0: the default), have %d", f.flag, f.v)
		}
	}
	if o.Threads > decoreg.MaxThreads {
		return usagef("bench uci: --threads must be at most %d (0: all cores), have %d", decoreg.MaxThreads, o.Threads)
	}
	if *jobs < 1 {
		return usagef("bench uci: --jobs must be >= 1, have %d", *jobs)
	}
	if cores := runtime.GOMAXPROCS(0); *jobs > cores {
		return usagef("bench uci: --jobs %d is more than the %d cores this process may use (GOMAXPROCS): the runs are CPU-bound, and more at once only take more memory", *jobs, cores)
	}
	if *jobs > 1 && o.Threads == 0 {
		o.Threads = max(1, runtime.GOMAXPROCS(0) / *jobs)
	}
	if !(o.LR >= 0) || math.IsInf(o.LR, 0) {
		return usagef("bench uci: --lr must be a finite number >= 0 (0: the default), have %v", o.LR)
	}
	o.Seed = *seed
	opts := experiments.UCIOptions{DataDir: *dataDir, OutDir: *out, Sweep: *sweep, Overrides: o, Point: *point, Log: errOut, Jobs: *jobs, OldDataDir: defaultUCIDir()}
	if opts.DataDir == "" {
		opts.DataDir = defaultUCIDir()
	}
	if opts.Heads, err = experiments.ParseHeads(*heads); err != nil {
		return usagef("bench uci: --heads: %v", err)
	}
	if opts.Splits, err = experiments.ParseInts(*splits); err != nil {
		return usagef("bench uci: --splits: %v", err)
	}
	if isSet(fs, "datasets") {
		if strings.TrimSpace(*datasets) == "" {
			// An empty $VAR ran every dataset.
			return usagef("bench uci: --datasets: no dataset named in %s (leave the flag out for every one)", strconv.Quote(*datasets))
		}
		names, err := cleanList(*datasets, "dataset") // as experiment's --datasets
		if err != nil {
			return usagef("bench uci: --datasets: %v", err)
		}
		for _, d := range names {
			if err := experiments.CheckDatasetName(d); err != nil {
				return usagef("bench uci: --datasets: %v", err)
			}
		}
		opts.Datasets = names
	}
	if opts.Shard, opts.Shards, err = experiments.ParseShard(*shard); err != nil {
		return usagef("bench uci: --shard: %v", err)
	}
	switch *point {
	case "", "mean", "median", "mode":
		if *point == "" && isSet(fs, "point") {
			return usagef("bench uci: --point is empty: want mean, median or mode (leave the flag out for the default)")
		}
	default:
		return usagef("bench uci: --point %s: want mean, median or mode", strconv.Quote(*point))
	}
	if st, err := os.Stat(opts.DataDir); err != nil || !st.IsDir() {
		what := "--data"
		if *dataDir == "" {
			what = fmt.Sprintf("--data (default %s, from the working directory)", opts.DataDir)
		}
		if err == nil {
			err = fmt.Errorf("%s is not a directory", opts.DataDir)
		}
		return usagef("bench uci: %s: %v", what, err)
	}
	for _, d := range opts.Datasets {
		if _, err := os.Stat(filepath.Join(opts.DataDir, d, experiments.DataFile)); err != nil {
			return usagef("bench uci: --datasets: %v", err)
		}
	}
	if err := outsideData("bench uci", *out, opts.DataDir); err != nil {
		return err
	}
	// The flags are checked: only now is --out made; and removed if the
	// runs' own checks refuse them (a config, a dataset) before any result
	// is written (os.Remove takes only an empty directory).
	_, statErr := os.Stat(*out)
	if err := makeOutDir("bench uci", *out); err != nil {
		return err
	}
	if errors.Is(statErr, os.ErrNotExist) {
		defer func() {
			if err != nil {
				os.Remove(*out)
			}
		}()
	}
	if err := outfile.Check(filepath.Join(*out, "split0.json")); err != nil {
		return usagef("bench uci: --out %s: %v", *out, err)
	}
	opts.Commit = experiments.GitCommit()

	ctx, stop := onInterrupt(func() {}) // the first signal stops gracefully, a second exits
	defer stop()
	sum, err := experiments.RunUCI(ctx, opts)
	if err != nil {
		var ie *experiments.InputError
		if errors.As(err, &ie) {
			return usageError{fmt.Errorf("bench uci: %s", oneLine(err.Error()))}
		}
		if ctx.Err() != nil {
			return interruptedf("bench uci", "%s; rerun the same command to resume", withoutCancelled(oneLine(err.Error())))
		}
		return fmt.Errorf("bench uci: %s", oneLine(err.Error()))
	}
	if sum.Ran > 0 && sum.Failed == sum.Ran {
		return fmt.Errorf("bench uci: every one of the %d runs failed (%d of this shard's %d were already done); their result files say why (decoreg bench report %s)",
			sum.Ran, sum.Skipped, sum.Shard, *out)
	}
	dropped := ""
	if sum.Dropped > 0 {
		dropped = fmt.Sprintf("; %d more ran whose results another process wrote first (dropped)", sum.Dropped)
	}
	fmt.Fprintf(errOut, "bench uci: ran %d runs (%d failed) in %.1fs; %d of this shard's %d were already done%s\n",
		sum.Ran, sum.Failed, sum.Seconds, sum.Skipped, sum.Shard, dropped)
	return nil
}
