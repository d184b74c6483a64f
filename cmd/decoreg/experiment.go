package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"decoreg"
	"decoreg/internal/experiments"
	"decoreg/internal/outfile"
)

var cmdExperiment = &Command{
	Name:      "experiment",
	UsageLine: "experiment NAME [--out DIR] [--quick] [--shard I/N] [--threads T] [--n N] [--seeds S] [--datasets LIST] [--groups LIST] [--report-only] | experiment NAME --merge --out DIR SHARD_RESULTS... | experiment --list",
	Short:     "regenerate one of the paper's figures or tables (results, REPORT.md, PNG figures)",
	Long: `Experiment runs one of the paper's experiments and writes its report.

Each run of the experiment appends one JSON object (one line) to
DIR/results.jsonl as soon as it finishes: its settings, its results, the
commit the binary was built from (as go build stamps it in a git checkout,
or -ldflags "-X decoreg/internal/experiments.BuildCommit=..." sets it; for
a binary without one, built with GOFLAGS=-buildvcs=false or by go run,
the HEAD of decoreg's checkout around the working directory, a guess that
a checkout moved on since the build makes wrong), the host, the GEMM
kernel, the thread count and its wall time. Runs whose key is already in
results.jsonl are skipped, so an interrupted experiment resumes where it
stopped (Ctrl-C
stops at once, leaves no partial line, and ends by the signal: a shell's
status 130), and --shard I/N runs only the
runs whose index in the experiment's fixed plan is I modulo N: N processes
or machines given the same flags and --shard 0/N .. N-1/N run disjoint
slices of the same plan, appending to one results.jsonl (or to several
that are concatenated afterwards). After its runs the command writes
DIR/REPORT.md (tables, the paper's numbers beside ours where it gives
them, the scale, the commits and the run time) and the PNG figures from
every line of results.jsonl; --report-only does only that.

On a cluster, each task of an array job runs one shard into its own
directory, and "decoreg experiment NAME --merge --out DIR SHARD_DIR..."
gathers them (keys already in DIR are skipped; a shard's directory
without results.jsonl, whose shard had no runs, is named as holding none)
and writes the report; deploy/slurm and deploy/k8s hold a Slurm array
script and a Kubernetes Indexed Job that do this.

DIR defaults to experiments/results/NAME. --quick runs a small version
(for tests; well under a minute). --n and --seeds change the number of
training points and of seeds (runs per setting) from each experiment's
default; the paper's scale is, for bbob, --n 100000 --seeds 10. --n is
for the synthetic experiments, realworld (its most training rows) and
hamming (its subsets' rows); the others refuse it. For the
real-data experiments --seeds is the number of train/test splits (splits
0..S-1, at most a dataset's number of splits: 10 for the UCI sets; for
scaling, the number of random training subsets of split 0), --datasets
chooses datasets, and for tabular --groups chooses its groups of runs
(default, ensemble, tuned, tuned-all by default; also tuned-seeds, and
tuned-all-depth: tuned-all with --stop-by depth, and tuned-all-crps: with
--stop-by crps):
"--seeds 2 --groups default,tuned-all" adds split 1 of the defaults and of
the tuned ensemble to a journal that holds split 0. The report compares
each variant with XGBoost and with the defaults over the splits that
variant ran, and gives the scale of the journal's runs. A journal holds
runs of one kind, which its report tables together: runs of another are
refused into it (by a run and by --merge) with the advice of another
--out: --quick runs beside full ones, runs at another --n for the
experiments whose plan trains every run on --n points (curves, density,
bbob, hamming, realworld), and runs of a real-data experiment on other
files of a dataset (another --data: each run records its dataset's
fingerprint, "data", a hash of its two files; runs recorded before it
are taken as made on the default data directory). With
--report-only every experiment refuses the flags that choose runs
(--groups, --seeds, --datasets, --data, --n, --quick); --merge takes
them (a cluster's merge step passes the array's flags) but chooses no runs
with them: every source line is merged and reported, with a note. A report
whose journal holds other runs than the flags plan (resumed or merged under
other flags) gives the count of its runs as its scale.

The experiments (decoreg experiment --list):

` + indent(experimentList()) + `
"decoreg bench uci" runs the paper's UCI table ("decoreg experiment uci"
is the same command with the same flags, but for --out, which bench uci
requires and experiment uci defaults to experiments/results/uci, the
committed results, where it resumes).`,
	CustomFlags: true,
	Run:         runExperiment,
}

func experimentList() string {
	var b strings.Builder
	for _, e := range experiments.All() {
		fmt.Fprintf(&b, "%-17s %s\n", e.Name, e.Short)
	}
	fmt.Fprintf(&b, "%-17s %s\n", "uci", benchUCICmd.Short)
	return b.String()
}

var experimentF struct {
	out, shard       string
	quick, list      bool
	reportOnly       bool
	threads, n, seed int
	merge            bool
	data, datasets   string
	groups           string
}

func init() {
	fs := &cmdExperiment.Flag
	fs.StringVar(&experimentF.out, "out", "", "the experiment's `DIR` (default experiments/results/NAME; created with any missing parents, checked to be writable before any run)")
	fs.BoolVar(&experimentF.quick, "quick", false, "a small version, for tests")
	fs.StringVar(&experimentF.shard, "shard", "0/1", "run only the runs with index I modulo N")
	fs.IntVar(&experimentF.threads, "threads", 1, "matrix-kernel threads per run (0: every core)")
	fs.IntVar(&experimentF.n, "n", 0, "training points per run (0: the experiment's default)")
	fs.IntVar(&experimentF.seed, "seeds", 0, "seeds (runs per setting; 0: the experiment's default)")
	fs.BoolVar(&experimentF.reportOnly, "report-only", false, "write REPORT.md and the figures from results.jsonl without running")
	fs.BoolVar(&experimentF.list, "list", false, "list the experiments")
	fs.StringVar(&experimentF.data, "data", "", "real-data experiments: the directory of datasets, each a subdirectory holding data.csv.gz and\ntest_mask.csv.gz (default ../shared/data/uci)")
	fs.StringVar(&experimentF.datasets, "datasets", "", "real-data experiments: comma-separated dataset names (default: the experiment's)")
	fs.StringVar(&experimentF.groups, "groups", "", "tabular: comma-separated groups of runs (default: default, ensemble, tuned, tuned-all; also\ntuned-seeds, tuned-all-depth, tuned-all-crps)")
	fs.BoolVar(&experimentF.merge, "merge", false, "gather the results of shards run elsewhere: append to --out's results.jsonl the lines of the\njournals given as arguments (results.jsonl files or directories holding one) that it lacks, then write\nthe report; runs nothing")
}

// firstPositional returns the index in args of the first argument that is
// not a flag of fs or a flag's value (-1 if none): flags may come before
// NAME.
func firstPositional(fs *flag.FlagSet, args []string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return i + 1
			}
			return -1
		case a == "-" || !strings.HasPrefix(a, "-"):
			return i
		case strings.Contains(a, "="):
			continue
		}
		f := fs.Lookup(strings.TrimLeft(a, "-"))
		if f == nil {
			return -1 // parseInterspersed names it
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		i++ // its value
	}
	return -1
}

// listSet reports whether args set experiment's --list (to true): as a
// flag, not as another flag's value (--out --list), and not --list=false.
// Arguments after NAME count too, as parseInterspersed reads them.
func listSet(fs *flag.FlagSet, args []string) (bool, error) {
	set := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if a == "-" || !strings.HasPrefix(a, "-") {
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "list" {
			set = !hasVal
			if hasVal {
				var err error
				if set, err = strconv.ParseBool(val); err != nil {
					return false, fmt.Errorf("invalid boolean value %s for -list", strconv.Quote(val))
				}
			}
			continue
		}
		f := fs.Lookup(name)
		if f == nil || hasVal {
			continue // bench uci's own flags: taken as bool or with =
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		i++ // its value
	}
	return set, nil
}

func runExperiment(cmd *Command, args []string) (err error) {
	const name = "experiment"
	listed, err := listSet(&cmd.Flag, args)
	if err != nil {
		return inputf(name, "%v", err)
	}
	if p := firstPositional(&cmd.Flag, args); p >= 0 && args[p] == "uci" && !listed {
		// The UCI table is bench uci's: its flags, before or after NAME
		// (--list with a NAME is refused below, as for the others).
		// A --list that is false is experiment's, not bench uci's (which
		// has none): left out.
		rest := append(slices.Clone(args[:p]), args[p+1:]...)
		end := slices.Index(rest, "--") // after it, arguments are not flags
		if end < 0 {
			end = len(rest)
		}
		flags := slices.DeleteFunc(slices.Clone(rest[:end]), func(a string) bool {
			name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
			return strings.HasPrefix(a, "-") && a != "-" && name == "list"
		})
		// The other experiments' flags that bench uci lacks: said as
		// experiment's (bench uci's "flag provided but not defined" named
		// a command the user did not type).
		for _, a := range flags {
			fl, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if !strings.HasPrefix(a, "-") || a == "-" {
				continue
			}
			switch fl {
			case "quick", "seeds", "n", "groups", "report-only", "merge":
				advice := map[string]string{
					"quick": "a small run is --datasets and --splits (e.g. --datasets yacht --splits 0)", "seeds": "its splits are --splits (e.g. --splits 0-4)",
					"n": "it trains on each split's training rows", "groups": "it has no groups; its heads are --heads",
					"report-only": "its tables are written by 'decoreg bench report RESULTS'", "merge": "its shards write one file per run: give them the same --out, or copy their files into one directory, and run 'decoreg bench report'",
				}[fl]
				return inputf(name, "uci is 'decoreg bench uci' with its flags ('decoreg help bench uci'), which has no --%s: %s", fl, advice)
			}
		}
		// DIR defaults to experiments/results/uci, as every experiment's
		// to experiments/results/NAME (bench uci, which has no default,
		// refused the command without --out).
		hasOut := slices.ContainsFunc(flags, func(a string) bool {
			name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
			return strings.HasPrefix(a, "-") && name == "out"
		})
		if !hasOut {
			flags = append([]string{"--out", filepath.Join("experiments", "results", "uci")}, flags...)
		}
		return runBenchUCI(append(flags, rest[end:]...))
	}
	pos, err := parseInterspersed(cmd, args)
	if err != nil {
		return err
	}
	f := &experimentF
	if f.list {
		if len(pos) > 0 {
			return inputf(name, "--list takes no NAME (have %q): it lists every experiment", pos[0])
		}
		fmt.Fprint(stdout, experimentList())
		return nil
	}
	if isSet(&cmd.Flag, "out") && (strings.TrimSpace(f.out) == "" || f.out == "-") {
		// It wrote to experiments/results/NAME under the working directory
		// (""), or made a directory called "-".
		return inputf(name, "--out must name a directory, have %q (leave it out for experiments/results/NAME)", f.out)
	}
	var srcs []string
	if f.merge && len(pos) > 0 {
		srcs, pos = pos[1:], pos[:1]
		if len(srcs) == 0 {
			return inputf(name, "--merge needs the shards' results: results.jsonl files or directories holding one")
		}
	}
	if len(pos) != 1 {
		if len(pos) == 0 {
			return inputf(name, "an experiment NAME is required (decoreg experiment --list names them)")
		}
		return inputf(name, "one experiment at a time, have %q and %q", pos[0], pos[1])
	}
	e := experiments.LookupExperiment(pos[0])
	if e == nil {
		return inputf(name, "unknown experiment %q (have %s)", pos[0], strings.ReplaceAll(strings.TrimSpace(experimentNames()), "\n", ", "))
	}
	if f.threads < 0 || f.threads > decoreg.MaxThreads {
		return inputf(name, "--threads must be in [0, %d] (0: every core), have %d", decoreg.MaxThreads, f.threads)
	}
	if f.n < 0 || f.seed < 0 {
		return inputf(name, "--n and --seeds must be >= 0 (0: the experiment's default), have %d and %d", f.n, f.seed)
	}
	if f.n > 0 && f.n < 10 {
		return inputf(name, "--n must be 0 (the experiment's default) or at least 10, have %d", f.n)
	}
	if isSet(&cmd.Flag, "shard") && (f.merge || f.reportOnly) {
		return inputf(name, "--shard is for running; --merge and --report-only use every line of the results")
	}
	if f.seed > 1000 || f.n > 10_000_000 {
		return inputf(name, "--seeds is at most 1000 and --n at most 10000000, have %d and %d", f.seed, f.n)
	}
	shard, shards, err := experiments.ParseShard(f.shard)
	if err != nil {
		return inputf(name, "--shard: %v", err)
	}
	so := experiments.Options{Quick: f.quick, N: f.n, Seeds: f.seed, Threads: f.threads, DataDir: f.data}
	if so.DataDir == "" {
		so.DataDir = defaultUCIDir()
	}
	if isSet(&cmd.Flag, "datasets") {
		if !e.RealData {
			return inputf(name, "--datasets is for the real-data experiments, not %s", e.Name)
		}
		if so.Datasets, err = cleanList(f.datasets, "dataset"); err != nil {
			return inputf(name, "--datasets: %v", err)
		}
		for _, d := range so.Datasets {
			if err := experiments.CheckDatasetName(d); err != nil {
				return inputf(name, "--datasets: %v", err)
			}
		}
	}
	if isSet(&cmd.Flag, "groups") {
		if e.Groups == nil {
			return inputf(name, "--groups is for the tabular experiment, not %s", e.Name)
		}
		groups, err := cleanList(f.groups, "group")
		if err != nil {
			return inputf(name, "--groups: %v", err)
		}
		for _, g := range groups {
			if !slices.Contains(e.Groups, g) {
				return inputf(name, "--groups: unknown group %s (have %s)", strconv.Quote(g), strings.Join(e.Groups, ", "))
			}
		}
		// The experiment's order, whatever the order given: the plan (and
		// each run's --shard) and the recorded command depend only on the
		// set of groups.
		for _, g := range e.Groups {
			if slices.Contains(groups, g) {
				so.Groups = append(so.Groups, g)
			}
		}
	}
	if isSet(&cmd.Flag, "data") && !e.RealData {
		return inputf(name, "--data is for the real-data experiments, not %s", e.Name)
	}
	// A report written without running describes the journal's runs, not
	// the flags': refuse the flags that choose runs rather than ignore
	// them. (--merge accepts them: deploy/slurm/merge.sbatch passes the
	// array's flags; such a report does not show them.)
	if f.reportOnly && !f.merge {
		for _, fl := range runChoosingFlags {
			if isSet(&cmd.Flag, fl) {
				return inputf(name, "--%s chooses runs; --report-only runs nothing and reports every line of the results (the report's scale is theirs)", fl)
			}
		}
	}
	if isSet(&cmd.Flag, "data") && strings.TrimSpace(f.data) == "" {
		return inputf(name, "--data is empty: give the directory of datasets (leave it out for %s)", defaultUCIDir())
	}
	if isSet(&cmd.Flag, "n") && !e.UsesN {
		return inputf(name, "--n is not used by the %s experiment (its runs train on each split's training part, or on sizes of their own)", e.Name)
	}
	out := f.out
	if out == "" {
		out = filepath.Join("experiments", "results", e.Name)
	}
	// Check what can be checked before --out is created: a refused command
	// leaves no directory behind.
	var plan []string // the keys of the runs the flags plan, where known
	switch {
	case f.merge:
		for _, src := range srcs {
			if _, err := os.Stat(src); err != nil {
				return inputf(name, "--merge: %v", err)
			}
		}
	case f.reportOnly:
		journal := filepath.Join(out, experiments.JournalFile)
		if _, err := os.Stat(journal); errors.Is(err, fs.ErrNotExist) {
			return inputf(name, "--report-only: %s: no results yet (no such file)", journal)
		}
	default:
		// The plan's keys (for the report's scale, below) check the plan
		// as Check does, building it once.
		var err error
		if e.Keys != nil {
			plan, err = e.Keys(so)
		} else {
			err = e.Check(so)
		}
		if err != nil {
			var ie *experiments.InputError
			if errors.As(err, &ie) {
				return inputf(name, "%s", oneLine(err.Error()))
			}
			return failf(name, "%s", oneLine(err.Error()))
		}
	}
	if e.RealData {
		if err := outsideData(name, out, so.DataDir); err != nil {
			return err
		}
	}
	_, statErr := os.Stat(out)
	if err := makeOutDir(name, out); err != nil {
		return err
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		// Made now: a refusal below leaves no empty directory behind
		// (os.Remove takes only an empty one).
		defer func() {
			if err != nil {
				os.Remove(out)
			}
		}()
	}
	for _, file := range []string{experiments.JournalFile, "REPORT.md"} {
		if file == experiments.JournalFile && f.reportOnly {
			continue // only read: a write-protected journal is no fault
		}
		if err := outfile.Check(filepath.Join(out, file)); err != nil {
			return inputf(name, "--out %s: %s: %v", out, file, err)
		}
	}
	// The report's figures are written after the runs: one already there
	// that cannot be replaced (a directory of that name, a read-only
	// file) is found now, not after hours of runs. Other files are not
	// the report's.
	for _, n := range e.Figures {
		if _, err := os.Lstat(filepath.Join(out, n)); err != nil {
			continue // written new (the directory was checked above)
		}
		if err := outfile.Check(filepath.Join(out, n)); err != nil {
			return inputf(name, "--out %s: %s: %v (the report's figures are written there)", out, n, err)
		}
	}
	dataDir := ""
	if e.RealData {
		dataDir = so.DataDir
	}
	if err := reportOverInput(name, out, e, srcs, f.merge, dataDir); err != nil {
		return err
	}
	command := experimentCommand(e.Name, f.quick, f.n, f.seed, f.threads, strings.Join(so.Datasets, ","))
	if f.data != "" {
		command += " --data " + shellArg(f.data) // the runs' data, where it is not the default
	}
	if len(so.Groups) > 0 {
		command += " --groups " + strings.Join(so.Groups, ",")
	}
	ctx, stop := onInterrupt(func() {})
	defer stop()
	info := experiments.ReportInfo{Command: command, Scale: e.Scale(so), Ctx: ctx, Log: errOut}
	// The flags' scale describes a journal holding exactly their plan's
	// runs; another journal (resumed with other flags, merged from shards
	// of another plan) is described by its count of runs.
	if e.Keys != nil && plan == nil { // --merge, --report-only
		var err error
		if plan, err = e.Keys(so); err != nil {
			info.Scale = ""
		}
	}
	info.Plan = plan
	if f.merge {
		added, err := e.Merge(out, srcs)
		if err != nil {
			var ie *experiments.InputError
			if errors.As(err, &ie) {
				return inputf(name, "--merge: %s", oneLine(err.Error()))
			}
			return failf(name, "--merge: %s", oneLine(err.Error()))
		}
		if added.Lines == 0 {
			return inputf(name, "--merge: the sources hold no runs (%s)", strings.Join(srcs, ", "))
		}
		fmt.Fprintf(errOut, "experiment %s: merged %d new runs into %s\n", e.Name, added.Added, filepath.Join(out, experiments.JournalFile))
		if len(added.Empty) > 0 {
			fmt.Fprintf(errOut, "experiment %s: --merge: %d source(s) hold no runs: %s\n", e.Name, len(added.Empty), strings.Join(added.Empty, ", "))
		}
		if added.CutPartial {
			fmt.Fprintf(errOut, "decoreg %s: warning: %s ended in a partial line (a run cut off), which was cut before the lines merged; a run of the experiment into --out %s redoes it if no source holds it\n",
				name, filepath.Join(out, experiments.JournalFile), out)
		}
		var chose []string
		for _, fl := range runChoosingFlags {
			if isSet(&cmd.Flag, fl) {
				chose = append(chose, "--"+fl)
			}
		}
		if len(chose) > 0 {
			// Taken (a cluster's merge step passes the array's flags) for
			// the report's scale only, where the merged runs are their plan's.
			fmt.Fprintf(errOut, "experiment %s: %s %s no runs with --merge: every source line is merged and reported (%s the report's scale where the merged runs are exactly %s plan's)\n",
				e.Name, strings.Join(chose, ", "), pick(len(chose) == 1, "chooses", "choose"), pick(len(chose) == 1, "it names", "they name"), pick(len(chose) == 1, "its", "their"))
		}
		if d := added.Differ; len(d) > 0 {
			// Not an error: the runs kept are whole, and which to keep is
			// the user's call (delete the lines to be replaced, merge again).
			fmt.Fprintf(errOut, "decoreg %s: warning: --merge: %d source line(s) of runs already kept (in %s, from an earlier source, or an earlier line of theirs) have other results, and were left out: %s (to take them, delete the lines kept and merge again)\n",
				name, len(d), filepath.Join(out, experiments.JournalFile), quoteList(d))
		}
	} else if !f.reportOnly {
		ro := experiments.RunOptions{Out: out, Shard: shard, Shards: shards,
			Threads: f.threads, Commit: experiments.GitCommit(), Command: command, Log: errOut}
		if e.RealData {
			ro.DataDir, ro.OldDataDir = so.DataDir, defaultUCIDir()
		}
		sum, err := e.Run(ctx, so, ro)
		if err != nil {
			var ie *experiments.InputError
			switch {
			case errors.As(err, &ie):
				return inputf(name, "%s", oneLine(err.Error()))
			case ctx.Err() != nil:
				return interruptedf(name, "%s; rerun the same command to resume", withoutCancelled(oneLine(err.Error())))
			}
			return failf(name, "%s", oneLine(err.Error()))
		}
		dropped := ""
		if sum.Dropped > 0 {
			dropped = fmt.Sprintf("; %d more ran whose lines another process recorded first (dropped)", sum.Dropped)
		}
		fmt.Fprintf(errOut, "experiment %s: ran %d runs (%d failed) in %.1fs; %d of this shard's %d were already done%s\n",
			e.Name, sum.Ran, sum.Failed, sum.Seconds, sum.Skipped, sum.Shard, dropped)
		if sum.Shard == 0 {
			// More shards than runs (an array job sized for another
			// plan): this one has nothing to do, which is no failure.
			if lines, _, err := experiments.ReadJournal(filepath.Join(out, experiments.JournalFile), e.Name, func() *experiments.Meta { return new(experiments.Meta) }); err == nil && len(lines) == 0 {
				fmt.Fprintf(errOut, "experiment %s: shard %d/%d holds none of the plan's %d runs: nothing to do, no report\n", e.Name, shard, shards, sum.Planned)
				return nil
			}
		}
		if sum.Ran > 0 && sum.Failed == sum.Ran {
			if err := e.Report(out, info); err != nil {
				fmt.Fprintf(errOut, "experiment %s: %s\n", e.Name, oneLine(err.Error()))
			}
			return failf(name, "every one of the %d runs failed; results.jsonl says why", sum.Ran)
		}
	}
	if err := e.Report(out, info); err != nil {
		var ie *experiments.InputError
		if ctx.Err() != nil {
			return interruptedf(name, "interrupted while writing the report (rerun with --report-only)")
		}
		if errors.As(err, &ie) {
			return inputf(name, "%s", oneLine(err.Error()))
		}
		return failf(name, "writing the report: %s", oneLine(err.Error()))
	}
	fmt.Fprintf(errOut, "experiment %s: wrote %s\n", e.Name, filepath.Join(out, "REPORT.md"))
	return nil
}

func experimentNames() string {
	var b strings.Builder
	for _, e := range experiments.All() {
		b.WriteString(e.Name + "\n")
	}
	return b.String() + "uci\n"
}

// experimentCommand is the command line that reproduces an experiment's
// results, for its report (without --shard and --out).
func experimentCommand(name string, quick bool, n, seeds, threads int, datasets string) string {
	s := "decoreg experiment " + name
	if datasets != "" {
		s += " --datasets " + shellArg(datasets)
	}
	if quick {
		s += " --quick"
	}
	if n > 0 {
		s += fmt.Sprintf(" --n %d", n)
	}
	if seeds > 0 {
		s += fmt.Sprintf(" --seeds %d", seeds)
	}
	if threads != 1 {
		s += fmt.Sprintf(" --threads %d", threads)
	}
	return s
}

// cleanList splits a comma-separated list of what names, trims its items
// and drops repeated ones (keeping the first); a list that names nothing
// is an error.
func cleanList(s, what string) ([]string, error) {
	var out []string
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("no %s named in %s", what, strconv.Quote(s))
	}
	for i, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x == "" {
			return nil, fmt.Errorf("%s: entry %d is empty; give %s names separated by commas", strconv.Quote(s), i+1, what)
		}
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out, nil
}

// runChoosingFlags are the experiment flags that choose runs, which
// --report-only refuses and --merge takes without choosing by them.
var runChoosingFlags = []string{"quick", "n", "seeds", "datasets", "groups", "data"}

// reportOverInput refuses a report or figure of e in out that is, through
// a link, the same file as what the command reads (its journal, a --merge
// source's, a file the report reads beside out) or as another of them:
// the writes through the link would destroy the runs they come from.
func reportOverInput(name, out string, e *experiments.Experiment, srcs []string, merge bool, dataDir string) error {
	type named struct{ path, what string }
	inputs := []named{{filepath.Join(out, experiments.JournalFile), "its journal"}}
	if merge {
		for _, src := range srcs {
			p := src
			if fi, err := os.Stat(src); err == nil && fi.IsDir() {
				p = filepath.Join(src, experiments.JournalFile)
			}
			inputs = append(inputs, named{p, "the --merge source " + src})
		}
	}
	if e.Reads != nil {
		for _, p := range e.Reads(out) {
			inputs = append(inputs, named{p, "the report's input"})
		}
	}
	var outputs []string
	for _, n := range append([]string{"REPORT.md"}, e.Figures...) {
		outputs = append(outputs, filepath.Join(out, n))
	}
	for i, o := range outputs {
		if dataDir != "" && inside(resolvedEnd(o), dataDir) {
			return inputf(name, "--out %s: %s leads into the data directory %s, which writing it would change; remove the link", out, o, dataDir)
		}
		for _, in := range inputs {
			if sameTarget(o, in.path) {
				return inputf(name, "--out %s: %s is the same file as %s (%s), which writing it would destroy; remove the link", out, o, in.what, in.path)
			}
		}
		for _, o2 := range outputs[:i] {
			if sameTarget(o, o2) {
				return inputf(name, "--out %s: %s and %s are the same file, which the report writes twice; remove the link", out, o, o2)
			}
		}
	}
	return nil
}

// sameTarget reports whether writing path a replaces the file of path b:
// whether their links end at one name in one directory, whether or not a
// file is there yet (a link to the journal that a run creates). The
// directories are compared as files (a bind mount, another path to them),
// the names without case where that may be one name (a case-insensitive
// file system: REPORT.md -> RESULTS.JSONL). A report is written
// atomically at its link's end, so a hard link to b of another name is
// replaced as a name and b keeps its content.
func sameTarget(a, b string) bool {
	ea, eb := resolvedEnd(a), resolvedEnd(b)
	if ea == eb {
		return true
	}
	na, nb := filepath.Base(ea), filepath.Base(eb)
	if !strings.EqualFold(na, nb) {
		return false
	}
	da, err1 := os.Stat(filepath.Dir(ea))
	db, err2 := os.Stat(filepath.Dir(eb))
	if err1 != nil || err2 != nil || !os.SameFile(da, db) {
		return false
	}
	if na == nb {
		return true
	}
	// Names that differ in case only: one name where the file system
	// says so (a file under one is found under the other), and, where
	// neither exists yet, taken as one.
	fa, errA := os.Lstat(ea)
	fb, errB := os.Lstat(eb)
	switch {
	case errA == nil && errB == nil:
		return os.SameFile(fa, fb)
	case errA == nil || errB == nil:
		return false // one name holds a file the other does not find
	}
	return true
}

// inside reports whether path p lies in directory dir or below it, the
// directories compared as files (a bind mount, another path to dir).
func inside(p, dir string) bool {
	dfi, err := os.Stat(dir)
	if err != nil {
		return false
	}
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && os.SameFile(fi, dfi) {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// resolvedEnd returns the absolute path that opening p for writing
// reaches, its links followed as the kernel follows them, component by
// component (a link's ".." after the link's target, not cancelling the
// link's name: lnk/../x is x beside lnk's target), whether or not a file
// is there: the path is resolved up to its first missing component, the
// rest appended. After 40 links (a loop, which writing refuses) it
// returns what it has.
func resolvedEnd(p string) string {
	if runtime.GOOS == "windows" {
		// Win32 takes ".." out of a path as text before it follows
		// links: the path's absolute form, its existing part resolved.
		abs, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		end := linkEnd(abs) // its links, to one whose target is missing (the journal a run makes)
		if r, err := filepath.EvalSymlinks(end); err == nil {
			return r
		}
		if r, err := filepath.EvalSymlinks(filepath.Dir(end)); err == nil {
			return filepath.Join(r, filepath.Base(end))
		}
		return end
	}
	const sep = string(filepath.Separator)
	abs := p // not cleaned: "lnk/.." must meet lnk first
	if !filepath.IsAbs(p) {
		wd, err := os.Getwd()
		if err != nil {
			return filepath.Clean(p)
		}
		abs = wd + sep + p
	}
	vol := filepath.VolumeName(abs) // "C:" on Windows
	rest := strings.Split(abs[len(vol):], sep)
	cur := vol + sep
	for links := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur) // cur is resolved: its parent is the kernel's
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 || links == 40 {
			if err != nil { // missing: nothing further to follow
				return filepath.Join(append([]string{next}, rest...)...)
			}
			cur = next
			continue
		}
		t, err := os.Readlink(next)
		if err != nil {
			return filepath.Join(append([]string{next}, rest...)...)
		}
		links++
		if filepath.IsAbs(t) {
			v := filepath.VolumeName(t)
			cur, t = v+sep, t[len(v):]
		}
		rest = append(strings.Split(t, sep), rest...)
	}
	return cur
}
