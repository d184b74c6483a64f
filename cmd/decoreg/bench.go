package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"

	"decoreg/internal/outfile"
)

// benchCommand is one "decoreg bench NAME" subcommand. Each registers itself
// from init with registerBench, in its own file.
type benchCommand struct {
	Name  string
	Short string
	Run   func(args []string) error // args after "bench NAME"
}

var benches = map[string]*benchCommand{}

func registerBench(b *benchCommand) {
	if _, dup := benches[b.Name]; dup {
		panic("decoreg: duplicate bench " + b.Name)
	}
	benches[b.Name] = b
}

func benchList() string {
	names := make([]string, 0, len(benches))
	for n := range benches {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "\t%-8s %s\n", n, benches[n].Short)
	}
	return b.String()
}

var cmdBench = &Command{
	Name:      "bench",
	UsageLine: "bench <name> [flags]",
	Short:     "run a benchmark (gemm, predict, report, sample, serve, train, uci)", // TestHelpPrintsFlags checks the list
	Long: `Bench runs one of decoreg's benchmarks and prints its results, one JSON
object per line unless the benchmark says otherwise. Run
"decoreg help bench <name>" (or "decoreg bench help <name>") for a
benchmark's flags.

--cpuprofile FILE, before the benchmark's name, writes a CPU profile of
the whole run for 'go tool pprof' (the README's profiles come from it):

	decoreg bench --cpuprofile cpu.out predict --rows 20000`,
	CustomFlags: true, // the benchmark's
	Run:         runBench,
}

// printBenchHelp writes bench's help, the same for "decoreg help bench"
// and "decoreg bench -h": the command's text and the benchmarks' list.
func printBenchHelp(w io.Writer, bench *Command) {
	printCommandHelp(w, bench, nil)
	fmt.Fprintf(w, "\nThe benchmarks are:\n\n%s", benchList())
}

func runBench(c *Command, args []string) error {
	if len(args) >= 2 && args[0] == "help" {
		return runHelp(cmdHelp, append([]string{"bench"}, args[1:]...)) // bench help NAME: as help bench NAME
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" || args[0] == "help" {
		printBenchHelp(stdout, c)
		if len(args) == 0 {
			return usagef("bench: no benchmark named")
		}
		return nil
	}
	var profile string
	switch {
	case args[0] == "-cpuprofile" || args[0] == "--cpuprofile":
		if len(args) < 3 || args[1] == "" {
			return usagef("bench: --cpuprofile needs a FILE and then a benchmark's name")
		}
		profile, args = args[1], args[2:]
	case strings.HasPrefix(args[0], "-cpuprofile=") || strings.HasPrefix(args[0], "--cpuprofile="):
		profile = args[0][strings.IndexByte(args[0], '=')+1:]
		if profile == "" || len(args) < 2 {
			return usagef("bench: --cpuprofile needs a FILE and then a benchmark's name")
		}
		args = args[1:]
	}
	if profile == "-" {
		return usagef("bench: --cpuprofile -: a CPU profile is binary; give a FILE")
	}
	b, ok := benches[args[0]]
	if !ok {
		if profile != "" && (strings.TrimLeft(args[0], "-") == "cpuprofile" || strings.HasPrefix(strings.TrimLeft(args[0], "-"), "cpuprofile=")) {
			return usagef("bench: --cpuprofile is given twice; give it once, before the benchmark's name")
		}
		return usagef("bench: unknown benchmark %q; run 'decoreg bench help'", args[0])
	}
	if profile == "" {
		return b.Run(args[1:])
	}
	if err := notAnInput("bench", "cpuprofile", profile, fileArgs(args[1:])...); err != nil {
		return err
	}
	if err := profileApart(profile, args[1:]); err != nil {
		return err
	}
	return withCPUProfile(profile, func() error { return b.Run(args[1:]) })
}

// fileArgs returns the benchmark's flags whose values may be files
// ("--flag value" and "--flag=value"), as notAnInput's pairs: whatever a
// benchmark reads or writes, the profile must not replace it.
func fileArgs(args []string) [][2]string {
	var out [][2]string
	for i, a := range args {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name := strings.TrimLeft(a, "-")
		if k := strings.IndexByte(name, '='); k >= 0 {
			out = append(out, [2]string{name[:k], name[k+1:]})
		} else if i+1 < len(args) {
			out = append(out, [2]string{name, args[i+1]})
		}
	}
	return out
}

// profileApart refuses a --cpuprofile path that is, or lies inside, a
// directory the benchmark walks or writes: an argument (report's RESULTS)
// or an --out (uci's results). Written after the run, the profile
// replaced a result file, or failed on the directory the run had made,
// losing the profile only after the whole run. Other flags' files are
// notAnInput's: only the same file is refused there.
func profileApart(profile string, args []string) error {
	if profile == "" || profile == "-" {
		return nil
	}
	p, err := filepath.Abs(profile)
	if err != nil {
		return nil // checkOutPath says what is wrong with it
	}
	var cands [][2]string
	for _, c := range fileArgs(args) {
		if c[0] == "out" {
			cands = append(cands, c)
		}
	}
	for i, a := range args {
		flagValue := i > 0 && strings.HasPrefix(args[i-1], "-") && !strings.Contains(args[i-1], "=")
		if !strings.HasPrefix(a, "-") && !flagValue {
			cands = append(cands, [2]string{"", a})
		}
	}
	for _, c := range cands {
		if c[1] == "" || c[1] == "-" {
			continue
		}
		d, err := filepath.Abs(c[1])
		if err != nil {
			continue
		}
		what := "the argument " + c[1]
		if c[0] != "" {
			what = "--" + c[0] + " " + c[1]
		}
		switch {
		case p == d:
			return usagef("bench: --cpuprofile %s is also %s, which the benchmark writes; choose another --cpuprofile", profile, what)
		case strings.HasPrefix(p, d+string(filepath.Separator)):
			return usagef("bench: --cpuprofile %s lies inside %s, which the benchmark reads or writes; choose a --cpuprofile outside it", profile, what)
		}
	}
	return nil
}

// withCPUProfile runs f under a CPU profile, written to path (as --out
// files are: atomically, through links, directly to devices) when f
// succeeds; path is checked before f starts.
func withCPUProfile(path string, f func() error) error {
	if err := checkOutPath("bench", "cpuprofile", path, false); err != nil {
		return err
	}
	var buf bytes.Buffer // written by the profiler only, read after Stop
	if err := pprof.StartCPUProfile(&buf); err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	err := f()
	pprof.StopCPUProfile()
	if err != nil {
		return err
	}
	if err := outfile.WriteFile(context.Background(), path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	}); err != nil {
		// The flag named (a device that refuses the bytes, /dev/full, is
		// known only once written: helper-149).
		return failf("bench", "--cpuprofile: writing %s: %v", path, err)
	}
	return nil
}

// maxBenchBytes is the most memory a benchmark's flags may ask for (by the
// estimate benchBytes): larger sizes are refused before anything is
// allocated, with exit status 2, instead of failing to allocate.
const maxBenchBytes = 4 << 30

// benchBytes multiplies its arguments in float64 (no integer overflow) and
// returns the product.
func benchBytes(factors ...int) float64 {
	p := 1.0
	for _, f := range factors {
		p *= float64(f)
	}
	return p
}

// checkBenchMemory refuses an estimated need of need bytes above
// maxBenchBytes, naming the flag (or flags) that set it.
func checkBenchMemory(bench, flags string, need float64) error {
	if need > maxBenchBytes {
		return usagef("bench %s: %s needs about %s of memory, more than the %s a benchmark may use", bench, flags, fmtBytes(need), fmtBytes(maxBenchBytes))
	}
	return nil
}

// fmtBytes formats n bytes in GiB or MiB.
func fmtBytes(n float64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.3g GiB", n/(1<<30))
	}
	return fmt.Sprintf("%.3g MiB", n/(1<<20))
}
