package experiments

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"decoreg"
	"decoreg/data"
)

// The files of a UCI dataset directory.
const (
	DataFile = "data.csv.gz"      // header x0,...,y; target last
	MaskFile = "test_mask.csv.gz" // header split0,...; 1 marks a test row
)

// UCIOptions configure RunUCI.
type UCIOptions struct {
	DataDir string // holds one directory per dataset, each with DataFile and MaskFile
	OutDir  string // results go to OutDir/<dataset>/<head>/split<k>.json

	Datasets []string // nil: every subdirectory of DataDir that holds DataFile
	Heads    []string // nil: BenchHeads
	Splits   []int    // nil: 0..9

	// Shard and Shards select the runs whose index in the plan (see Plan)
	// is Shard modulo Shards. Shards 0 means 1.
	Shard, Shards int

	// Sweep selects each run's hyper-parameters from SweepGrid by the
	// validation loss (see RunUCI).
	Sweep bool

	// Overrides replace the per-head defaults in every run.
	Overrides Overrides

	// Point is the point estimate of MSE and Kendall's tau ("mean",
	// "median" or "mode"); "" means each model's default
	// (decoreg.Model.DefaultPoint).
	Point string

	// Log receives one line per run (and a few about the plan); nil
	// discards them.
	Log io.Writer

	// Commit is recorded in every result (see GitCommit).
	Commit string
	// OldDataDir is the data directory that results written before
	// results recorded their data's fingerprint (Result.Data) are taken
	// to come from (the default one): an existing result of a dataset
	// whose files differ from DataDir's is warned about.
	OldDataDir string

	// Progress, if set, is called after every training epoch of every run
	// (and sweep candidate); with Jobs > 1, from several goroutines at once.
	Progress func(Run, decoreg.Progress)

	// Jobs is how many runs go at once, each on Overrides.Threads threads;
	// 0 means 1. With more than one, the runs start largest dataset first
	// (by rows; plan order among equals) and each job takes the next run
	// when its own ends, so that the jobs finish close together: the
	// wall time is about the summed run time over Jobs, where shards of a
	// fixed slice each wait for their slowest. A run computes the same
	// whatever the number of jobs.
	Jobs int
}

// InputError wraps an error about the benchmark's input: a dataset or mask
// file that cannot be read or is malformed, an unknown head, a split that
// the mask lacks, or a result file that is not one. Its message is the
// wrapped error's, which names the file.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns e.Err.
func (e *InputError) Unwrap() error { return e.Err }

// Run names one run of the benchmark.
type Run struct {
	Dataset string
	Head    string
	Split   int
}

func (r Run) String() string { return fmt.Sprintf("%s/%s/split%d", r.Dataset, r.Head, r.Split) }

// Datasets returns the datasets of dir: its subdirectories holding
// DataFile, sorted by name.
func Datasets(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, e.Name(), DataFile)); err == nil {
			if err := CheckDatasetName(e.Name()); err != nil {
				return nil, fmt.Errorf("%s: %v", dir, err)
			}
			out = append(out, e.Name())
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no datasets (no subdirectory holds %s)", dir, DataFile)
	}
	return out, nil
}

// Plan returns every run of the benchmark in its fixed order: datasets
// sorted by name, then heads in the order of BenchHeads, then splits in
// increasing order. A run's index in this list decides its shard, so every
// machine given the same datasets, heads and splits agrees on the shards.
func Plan(opts UCIOptions) ([]Run, error) {
	ds := append([]string(nil), opts.Datasets...)
	for _, d := range ds {
		if err := CheckDatasetName(d); err != nil {
			return nil, err
		}
	}
	if len(ds) == 0 {
		var err error
		if ds, err = Datasets(opts.DataDir); err != nil {
			return nil, err
		}
	}
	sort.Strings(ds)
	// The library's list may hold empty entries and commas (the CLI's
	// --heads refuses empty entries; UCIOptions.Heads takes them).
	var heads []string
	for _, h := range opts.Heads {
		for _, f := range strings.Split(h, ",") {
			if f = strings.TrimSpace(f); f != "" {
				heads = append(heads, f)
			}
		}
	}
	switch {
	case len(heads) == 0 && len(opts.Heads) > 0:
		return nil, &InputError{fmt.Errorf("no heads in %q", opts.Heads)}
	case len(heads) == 0:
		heads = BenchHeads
	}
	heads, err := ParseHeads(strings.Join(heads, ","))
	if err != nil {
		return nil, err
	}
	splits := opts.Splits
	if len(splits) == 0 {
		splits = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	}
	splits = append([]int(nil), splits...)
	sort.Ints(splits)
	var plan []Run
	for i, d := range ds {
		if i > 0 && d == ds[i-1] {
			continue
		}
		for _, h := range heads {
			for j, s := range splits {
				if j > 0 && s == splits[j-1] {
					continue
				}
				plan = append(plan, Run{d, h, s})
			}
		}
	}
	return plan, nil
}

// CheckDatasetName refuses a dataset name that is not a plain directory
// name: one with a path separator, "." or "..", which would read, and
// write results, outside DataDir and OutDir.
func CheckDatasetName(d string) error {
	if d == "" || d == "." || d == ".." || strings.ContainsAny(d, `/\`) || !filepath.IsLocal(d) || filepath.Base(d) != d {
		return fmt.Errorf("dataset %q is not a plain directory name (the name of a subdirectory of the data directory, without / or ..)", d)
	}
	if strings.ContainsAny(d, ",=") {
		// A run's key is "dataset=NAME,...": such a name would be read as
		// other parts of it (its kind, its data's fingerprint).
		return fmt.Errorf("dataset %q has a comma or = in its name, which runs' keys use to separate their parts: rename its directory", d)
	}
	return nil
}

// ShardOf returns the runs of plan whose index is shard modulo shards.
func ShardOf(plan []Run, shard, shards int) []Run {
	if shards < 1 || shard < 0 || shard >= shards {
		panic(fmt.Sprintf("experiments: shard %d of %d", shard, shards))
	}
	var out []Run
	for i, r := range plan {
		if i%shards == shard {
			out = append(out, r)
		}
	}
	return out
}

// ParseShard parses "I/N" with 0 <= I < N.
func ParseShard(s string) (shard, shards int, err error) {
	a, b, ok := strings.Cut(s, "/")
	a, b = strings.TrimSpace(a), strings.TrimSpace(b)
	digits := func(x string) bool { return x != "" && strings.Trim(x, "0123456789") == "" }
	if ok = ok && digits(a) && digits(b); ok { // no sign: "+1/2" was read as 1/2
		shard, err = strconv.Atoi(a)
		if err == nil {
			shards, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || shards < 1 || shard < 0 || shard >= shards {
		return 0, 0, fmt.Errorf("bad shard %q (want I/N with 0 <= I < N, e.g. 0/4)", s)
	}
	return shard, shards, nil
}

// ParseInts parses a list of non-negative integers and ranges, such as
// "0-9" or "0,2,5-7", in increasing order without duplicates.
func ParseInts(s string) ([]int, error) {
	seen := map[int]bool{}
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("empty list %q", s)
	}
	for i, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			return nil, fmt.Errorf("bad list %q: entry %d is empty", s, i+1)
		}
		lo, hi, isRange := strings.Cut(f, "-")
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(strings.TrimSpace(hi))
		}
		if err1 == nil && err2 == nil && a >= 0 && b-a > 1<<20 {
			return nil, fmt.Errorf("bad list %q at %q: a range of more than %d numbers", s, f, 1<<20)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return nil, fmt.Errorf("bad list %q at %q (want numbers >= 0 and ranges like 0-9)", s, f)
		}
		for k := a; k <= b; k++ {
			seen[k] = true
		}
	}
	if len(seen) == 0 {
		return nil, fmt.Errorf("empty list %q", s)
	}
	out := make([]int, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Ints(out)
	return out, nil
}

// BuildCommit, set at link time (go build -ldflags "-X
// decoreg/internal/experiments.BuildCommit=$(git rev-parse HEAD)"), is the
// commit GitCommit reports: for binaries built where the go command does not
// stamp version-control information (GOFLAGS=-buildvcs=false), or built
// once and run while the checkout moves on.
var BuildCommit string

// GitCommit returns the commit the running binary was built from:
// BuildCommit when set, else the revision the go command stamped into it
// (with "+dirty" when the working tree had uncommitted changes), or, for
// binaries without one (go run, go test, GOFLAGS=-buildvcs=false), the
// HEAD of decoreg's checkout around the current directory
// (checkoutCommit); "" where none is known.
func GitCommit() string {
	if BuildCommit != "" {
		return BuildCommit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if dirty {
				rev += "+dirty"
			}
			return rev
		}
	}
	return checkoutCommit()
}

// checkoutCommit is GitCommit's guess for a binary without a stamp: the
// HEAD of the git checkout around the current directory, if that checkout
// is decoreg's (its go.mod declares the module decoreg; another
// repository's HEAD says nothing of the binary), with "+dirty" where its
// Go sources (*.go, go.mod, go.sum) differ from HEAD or have files git
// does not track (results being written do not count); "" otherwise.
func checkoutCommit() string {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return ""
	}
	mod, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(top)), "go.mod"))
	if err != nil || !strings.Contains("\n"+string(mod), "\nmodule decoreg\n") {
		return ""
	}
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	rev := strings.TrimSpace(string(out))
	st, err := exec.Command("git", "-C", strings.TrimSpace(string(top)), "status", "--porcelain", "--", "*.go", "go.mod", "go.sum").Output()
	if err == nil && len(strings.TrimSpace(string(st))) > 0 {
		rev += "+dirty"
	}
	return rev
}

// computed returns c without what does not change what a run computes
// (its thread count): two runs of equal computed configurations are of
// one setting.
func computed(c decoreg.Config) decoreg.Config {
	c.Threads = 0
	return c
}

// Summary counts what RunUCI did.
type Summary struct {
	Planned int     // runs in the whole plan
	Shard   int     // runs in this shard
	Skipped int     // runs of the shard whose result existed
	Dropped int     // runs done now whose result another process wrote first (not in Ran)
	Ran     int     // runs done now (Failed included)
	Failed  int     // runs that wrote a result with an error (e.g. diverged)
	Seconds float64 // wall time of the runs done now
}

// dataset is a loaded dataset with its test mask.
type dataset struct {
	d *data.Dataset
	m *data.Mask
}

// loadDataset reads dir/name's data and mask and checks that they agree
// and that the mask has every split in splits.
func loadDataset(dir, name string, splits []int) (*dataset, error) {
	d, err := data.ReadCSV(filepath.Join(dir, name, DataFile), data.ReadOptions{})
	if err != nil {
		return nil, err
	}
	m, err := data.ReadMask(filepath.Join(dir, name, MaskFile))
	if err != nil {
		return nil, err
	}
	if err := data.CheckRows(m, d); err != nil {
		return nil, err
	}
	for _, s := range splits {
		if s < 0 || s >= m.Splits() {
			return nil, fmt.Errorf("%s: dataset %s has %d splits (0..%d): --splits %d (default 0-9) is out of range", filepath.Join(dir, name, MaskFile), name, m.Splits(), m.Splits()-1, s)
		}
		if _, err := m.Test(s); err != nil {
			return nil, err
		}
	}
	return &dataset{d, m}, nil
}

// RunUCI runs the shard's runs of the plan whose result file does not
// exist yet, writing each result atomically as soon as it is done.
//
// Every dataset with a pending run is read and checked before the first
// run starts, so a bad file is reported at once. A run trains on the rows
// of the dataset that are not test rows of its split and evaluates on the
// test rows, with opts.Point as the point estimate of MSE and tau. A run
// whose training fails on its data (it diverges, or its target is
// constant) writes a result with Error set, so that it is not retried.
//
// With opts.Sweep, each candidate of SweepGrid is trained on the train
// part (whose own 10% early-stopping split, the same rows for every
// candidate, gives its validation loss: NLL in u units, MSE for the
// pointwise head), and the candidate with the lowest validation loss is
// evaluated on the test rows; the test rows never take part in the choice.
//
// When ctx is cancelled, RunUCI returns an error wrapping ctx.Err() and
// the run in progress leaves no file.
func RunUCI(ctx context.Context, opts UCIOptions) (Summary, error) {
	var sum Summary
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	plan, err := Plan(opts)
	if err != nil {
		return sum, &InputError{err}
	}
	switch opts.Point {
	case "", "mean", "median", "mode":
	default:
		return sum, &InputError{fmt.Errorf("unknown point estimate %q (want mean, median or mode)", opts.Point)}
	}
	heads := map[string]bool{}
	for _, r := range plan {
		if !heads[r.Head] {
			heads[r.Head] = true
			if err := opts.Overrides.apply(mustHead(r.Head)).Validate(); err != nil {
				return sum, &InputError{fmt.Errorf("%s: %w", r.Head, err)}
			}
		}
	}
	shards := max(opts.Shards, 1)
	if opts.Shard < 0 || opts.Shard >= shards {
		return sum, &InputError{fmt.Errorf("bad shard %d/%d", opts.Shard, shards)}
	}
	mine := ShardOf(plan, opts.Shard, shards)
	sum.Planned, sum.Shard = len(plan), len(mine)

	// Pending runs, their datasets, and their configurations.
	var todo []Run
	need := map[string][]int{}
	fps := fingerprints{}
	for _, r := range mine {
		want := opts.Overrides.apply(mustHead(r.Head))
		path := ResultPath(opts.OutDir, r.Dataset, r.Head, r.Split)
		if _, err := os.Stat(path); err == nil {
			sum.Skipped++
			old, err := ReadResult(path)
			if err != nil {
				return sum, &InputError{err}
			}
			samePoint := opts.Point == "" || old.Eval == nil || old.Eval.Point == opts.Point
			if (old.Sweep != nil) != opts.Sweep || (!opts.Sweep && computed(old.Config) != computed(want)) || !samePoint {
				fmt.Fprintf(logw, "warning: %s exists with other settings; keeping it (delete it to rerun)\n", path)
			}
			oldData, from := old.Data, ""
			if oldData == "" && opts.OldDataDir != "" {
				oldData, from = fps.of(opts.OldDataDir, r.Dataset), fmt.Sprintf(", written before results noted their data, so taken as made on %s's, the default", filepath.Join(opts.OldDataDir, r.Dataset))
			}
			if cur := fps.of(opts.DataDir, r.Dataset); cur != "" && oldData != "" && cur != oldData {
				fmt.Fprintf(logw, "warning: %s was made on other files of %s than %s's (data %s, now %s%s); keeping it (delete it to rerun; another --out keeps the runs apart)\n",
					path, r.Dataset, filepath.Join(opts.DataDir, r.Dataset), oldData, cur, from)
			}
			continue
		}
		todo = append(todo, r)
		need[r.Dataset] = append(need[r.Dataset], r.Split)
	}
	fmt.Fprintf(logw, "bench uci: %d runs in the plan, %d in shard %d/%d, %d already done, %d to run\n",
		sum.Planned, sum.Shard, opts.Shard, shards, sum.Skipped, len(todo))
	if len(todo) == 0 {
		return sum, nil
	}
	names := make([]string, 0, len(need))
	for n := range need {
		names = append(names, n)
	}
	sort.Strings(names)
	sets := map[string]*dataset{}
	for _, n := range names {
		ds, err := loadDataset(opts.DataDir, n, need[n])
		if err != nil {
			return sum, &InputError{err}
		}
		sets[n] = ds
	}

	host, _ := os.Hostname()
	jobs := min(max(opts.Jobs, 1), len(todo))
	if jobs > 1 {
		sort.SliceStable(todo, func(i, j int) bool {
			return sets[todo[i].Dataset].d.Rows > sets[todo[j].Dataset].d.Rows
		})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		next     int   // the next run of todo to start
		firstErr error // the first error that stops the benchmark
		// An interruption's error is written once every job has ended,
		// so that it counts the runs that other jobs finished after it.
		interrupted error
		during      []string // the runs it cut, if any (one per job)
	)
	start := time.Now()
	worker := func() {
		for {
			mu.Lock()
			if next == len(todo) || firstErr != nil {
				mu.Unlock()
				return
			}
			if err := ctx.Err(); err != nil {
				firstErr, interrupted = err, err
				mu.Unlock()
				return
			}
			r := todo[next]
			next++
			mu.Unlock()
			res, err := runOne(ctx, sets[r.Dataset], r, opts)
			var werr error
			path := ResultPath(opts.OutDir, r.Dataset, r.Head, r.Split)
			if err == nil {
				mu.Lock()
				res.Commit, res.Host, res.Data = opts.Commit, host, fps.of(opts.DataDir, r.Dataset)
				mu.Unlock()
				if werr = writeNewResult(ctx, path, res); errors.Is(werr, fs.ErrExist) {
					// Another process with this --out wrote it meanwhile:
					// its result stands (it was replaced without a word;
					// then after a check, with a window before the rename).
					mu.Lock()
					sum.Dropped++
					fmt.Fprintf(logw, "%s: written by another process meanwhile; this run's result dropped\n", r)
					mu.Unlock()
					continue
				}
			}
			mu.Lock()
			if err != nil || werr != nil {
				var ie *InputError
				switch {
				case werr == nil && firstErr != nil && firstErr == interrupted:
					during = append(during, r.String()) // another job's run the interrupt cut too
				case firstErr != nil: // a job that stopped first cancelled this one
				case werr != nil:
					firstErr = werr
				case ctx.Err() != nil:
					firstErr, interrupted = ctx.Err(), ctx.Err()
					during = append(during, r.String())
				case errors.As(err, &ie):
					firstErr = err
				default:
					firstErr = fmt.Errorf("%s: %w", r, err)
				}
				mu.Unlock()
				cancel()
				return
			}
			sum.Ran++
			sum.Seconds = time.Since(start).Seconds()
			if res.Error != "" {
				sum.Failed++
				fmt.Fprintf(logw, "[%d/%d] %s: FAILED: %s (%.1fs)\n", sum.Ran, len(todo), r, res.Error, res.Seconds)
			} else {
				e, t := res.Eval, res.Train
				nll := "" // the pointwise head has no density: its NLLs are null in the journal
				if v, u := float64(e.NLL), float64(e.NLLU); !math.IsNaN(v) || !math.IsNaN(u) {
					nll = fmt.Sprintf("nll %.4g nll_u %.4g ", v, u)
				}
				fmt.Fprintf(logw, "[%d/%d] %s: %stau %s rel_mse %s; %d epochs (%s), %.1fs\n",
					sum.Ran, len(todo), r, nll, logNum("%.3f", float64(e.KendallTau)), logNum("%.3g", float64(e.RelMSE)), t.Epochs, t.Stopped, res.Seconds)
			}
			mu.Unlock()
		}
	}
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(worker)
	}
	wg.Wait()
	switch {
	case interrupted == nil || firstErr != interrupted:
	case len(during) > 0:
		sort.Strings(during)
		firstErr = fmt.Errorf("interrupted during %s (%d of %d runs done): %w", strings.Join(during, " and "), sum.Ran, len(todo), interrupted)
	default:
		firstErr = fmt.Errorf("interrupted after %d of %d runs: %w", sum.Ran, len(todo), interrupted)
	}
	return sum, firstErr
}

func mustHead(h string) decoreg.Config {
	c, err := HeadConfig(h)
	if err != nil {
		panic("experiments: " + err.Error())
	}
	return c
}

// dataFailure reports whether a Fit error is about the run's data or
// training dynamics (recorded in the result) rather than the machine.
func dataFailure(err error) bool {
	return errors.Is(err, decoreg.ErrDiverged) || errors.Is(err, decoreg.ErrConstantTarget) ||
		errors.Is(err, decoreg.ErrTooFewRows)
}

// runOne trains and evaluates one run.
func runOne(ctx context.Context, ds *dataset, r Run, opts UCIOptions) (*Result, error) {
	start := time.Now()
	test, err := ds.m.Test(r.Split)
	if err != nil {
		return nil, err
	}
	tr, te := data.TrainTest(ds.d, test)
	base := opts.Overrides.apply(mustHead(r.Head))
	var fitOpts []decoreg.FitOption
	if opts.Progress != nil {
		fitOpts = append(fitOpts, decoreg.WithProgress(func(p decoreg.Progress) { opts.Progress(r, p) }))
	}
	res := &Result{Dataset: r.Dataset, Head: r.Head, Split: r.Split, Config: base,
		TrainRows: tr.Rows, TestRows: te.Rows, Started: start.UTC().Format(time.RFC3339),
		GoMaxProcs: runtime.GOMAXPROCS(0), GoVersion: runtime.Version()}
	finish := func() *Result {
		res.Seconds = time.Since(start).Seconds()
		res.Finished = time.Now().UTC().Format(time.RFC3339)
		return res
	}
	if te.Rows == 0 {
		return nil, &InputError{fmt.Errorf("%s: split %d has no test rows", ds.m.Path, r.Split)}
	}

	var m *decoreg.Model
	if !opts.Sweep {
		m, err = decoreg.FitFlat(ctx, tr.X, tr.Rows, tr.Cols, tr.Y, base, fitOpts...)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			if dataFailure(err) {
				res.Error = err.Error()
				return finish(), nil
			}
			return nil, err
		}
	} else {
		sw := &Sweep{Chosen: -1}
		best := 0.0
		for _, c := range SweepGrid(r.Head, base) {
			t0 := time.Now()
			cm, err := decoreg.FitFlat(ctx, tr.X, tr.Rows, tr.Cols, tr.Y, c.Config, fitOpts...)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			trial := SweepTrial{Label: c.Label, Config: c.Config, ValLoss: Float(math.NaN()), Seconds: time.Since(t0).Seconds()}
			if err != nil {
				if !dataFailure(err) {
					return nil, err
				}
				trial.Error = err.Error()
			} else {
				info := cm.Info()
				trial.ValLoss, trial.Epochs = Float(info.BestValLoss), info.Epochs
				if sw.Chosen < 0 || info.BestValLoss < best {
					sw.Chosen, best, m = len(sw.Trials), info.BestValLoss, cm
					res.Config = trial.Config
				}
			}
			sw.Trials = append(sw.Trials, trial)
		}
		res.Sweep = sw
		if m == nil {
			res.Error = "every sweep candidate failed: " + sw.Trials[0].Error
			return finish(), nil
		}
	}
	ev, err := m.Evaluate(ctx, te.X, te.Rows, te.Y, opts.Point)
	if err != nil {
		return nil, err
	}
	info := m.Info()
	res.Eval, res.Train, res.Kernel = ev, &info, info.Kernel
	return finish(), nil
}
