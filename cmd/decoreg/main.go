// Command decoreg trains and queries decoding-based regression models.
//
// It follows the go command's conventions: `decoreg <command> [flags] [args]`,
// `decoreg help <command>` for details, exit status 0 on success, 1 when a
// command failed, 2 when it was misused (bad flags, bad input data); a
// command that an interrupt (Ctrl-C, SIGTERM, SIGHUP) stopped before it
// finished removes its temporary files and ends killed by the signal, as
// a shell reports (130 for Ctrl-C); train, which saves the best model so
// far, exits 0 then.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Command is one subcommand, modelled on cmd/go's: each lives in its own
// file as a package-level variable, defines its flags on Flag in that
// file's init, and appears in the list commands (main.go's init), whose
// order is the order of "decoreg help".
type Command struct {
	Name      string // the word after "decoreg"
	UsageLine string // e.g. "tokenize --vocab SPEC VALUE..."
	Short     string // one line for the command list
	Long      string // full help text

	// Flag holds the command's flags, defined once; "decoreg help CMD"
	// and "decoreg CMD -h" print them, and run parses the arguments with
	// it before calling Run (unless CustomFlags).
	Flag flag.FlagSet

	// CustomFlags means Run parses its arguments itself, with Flag or
	// otherwise (tokenize lets values start with a dash; bench hands its
	// arguments to a benchmark).
	CustomFlags bool

	// Run executes the command. args are the arguments left after the
	// flags, or all of them with CustomFlags.
	Run func(cmd *Command, args []string) error
}

// commands lists the commands in the order "decoreg help" shows them. It
// is set in init because help's Run reads it.
var commands []*Command

func init() {
	commands = []*Command{cmdDemo, cmdTrain, cmdEval, cmdPredict, cmdSample, cmdShow, cmdServe, cmdTokenize, cmdSynth, cmdExperiment, cmdBench, cmdHelp}
}

// lookup returns the command called name, or nil.
func lookup(name string) *Command {
	for _, c := range commands {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// resetFlags returns c's flags to their defaults and forgets which were
// given, so that run can be called more than once in a process (the tests
// do). Flag values with a reset method use it; the others are set to
// their default's text.
func (c *Command) resetFlags() {
	var fresh flag.FlagSet
	fresh.Init(c.Name, flag.ContinueOnError)
	fresh.SetOutput(io.Discard)
	fresh.Usage = func() {}
	c.Flag.VisitAll(func(f *flag.Flag) {
		if r, ok := f.Value.(interface{ reset() }); ok {
			r.reset()
		} else if err := f.Value.Set(f.DefValue); err != nil {
			panic(fmt.Sprintf("decoreg %s: the default %q of --%s does not parse: %v", c.Name, f.DefValue, f.Name, err))
		}
		fresh.Var(f.Value, f.Name, f.Usage)
	})
	c.Flag = fresh
}

// usageError marks a misuse: bad flags, arguments or input data. It maps to
// exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// interruptedError marks a command stopped by an interrupt signal (Ctrl-C,
// SIGTERM, SIGHUP) before it finished its work. run returns status 130
// for it, as a shell reports a command killed by SIGINT, and main ends
// the process by the signal itself (exit), so that a script or a shell
// loop can tell an interrupt from a failure.
type interruptedError struct{ err error }

func (e interruptedError) Error() string { return e.err.Error() }
func (e interruptedError) Unwrap() error { return e.err }

// usagef returns a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// newFlagSet returns a flag set for cmd that reports errors instead of
// exiting, so that Run can return them as usage errors. The benchmarks of
// "decoreg bench" define their flags on one in their Run.
func newFlagSet(cmd *Command) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args with fs and converts errors into usage errors that
// name the command. -h/--help prints the command's help and returns errHelp.
func parseFlags(cmd *Command, fs *flag.FlagSet, args []string) error {
	restore := decimalInts(fs)
	err := fs.Parse(args)
	restore()
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandHelp(stdout, cmd, fs)
			return errHelp
		}
		if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
			return usagef("%s: %v%s", cmd.Name, err, flagSuggestion(fs, name))
		}
		return usagef("%s: %v%s", cmd.Name, err, durationHint(fs, err))
	}
	return nil
}

// flagSuggestion returns " (did you mean --F?)" for the one flag F of fs
// near the unknown flag name: a typo or a changed case (didYouMean), or a
// flag named by a dash-separated word of it (below); else "".
func flagSuggestion(fs *flag.FlagSet, name string) string {
	name = strings.ReplaceAll(strings.TrimPrefix(name, "-"), "_", "-") // --batch_size as --batch-size
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	say := func(found ...string) string {
		switch len(found) {
		case 1:
			return fmt.Sprintf(" (did you mean --%s?)", found[0])
		case 2:
			return fmt.Sprintf(" (did you mean --%s or --%s?)", found[0], found[1])
		}
		return ""
	}
	if slices.Contains(names, name) {
		return say(name)
	}
	if strings.EqualFold(name, "seeds") && slices.Contains(names, "splits") {
		// The experiments' --seeds counts splits: bench uci (experiment
		// uci) names them --splits; --seed would change the training seed.
		return say("splits")
	}
	if a, ok := flagAliases[strings.ToLower(name)]; ok {
		if slices.Contains(names, a) {
			return say(a)
		}
		return "" // known, and this command has nothing like it (serve's --na-values is no --max-values)
	}
	// A typo or a changed case; one edit for names under 8 characters (two
	// made --port --out and --listen --list).
	if best := nearestName(name, names); best != "" && (len(name) >= 8 || editDistance([]rune(strings.ToLower(name)), []rune(strings.ToLower(best)), 2) <= 1) {
		return say(best)
	}
	words := strings.Split(name, "-")
	if len(words) < 2 {
		return ""
	}
	// The flag its last word names ("max-epochs": epochs); else the flag its
	// first word names and the one flag that starts with it and a dash
	// ("target-column": target or target-range; "calibrate-method":
	// calibrate or calibrate-by), or that one alone, unless the word says
	// little of what the flag is (max, test, batch, ...: --max-depth is not
	// --max-levels).
	first, last := words[0], words[len(words)-1]
	if slices.Contains(names, last) {
		return say(last)
	}
	var found []string
	if slices.Contains(names, first) {
		found = append(found, first)
	}
	var prefixed []string
	for _, n := range names {
		if strings.HasPrefix(n, first+"-") {
			prefixed = append(prefixed, n)
		}
	}
	if len(prefixed) == 1 && !genericWords[first] {
		found = append(found, prefixed[0])
	}
	return say(found...)
}

// flagAliases are the names other tools (scikit-learn, XGBoost, pandas)
// give to what a decoreg flag does, and that flag.
var flagAliases = map[string]string{
	"output": "out", "output-file": "out", "outfile": "out", "output-path": "out", "o": "out",
	"input": "data", "input-file": "data", "infile": "data", "csv": "data", "file": "data", "train": "data",
	"learning-rate": "lr", "eta": "lr",
	"random-state": "seed", "random-seed": "seed",
	"label": "target", "label-column": "target", "y": "target",
	"missing-values": "na", "na-values": "na", "missing": "na",
	"val-split": "val-frac", "validation-split": "val-frac", "validation-fraction": "val-frac", "valid-frac": "val-frac",
	"n-jobs": "threads", "jobs": "threads", "nthread": "threads", "num-threads": "threads",
	"quantiles": "levels", "alpha": "levels",
}

// genericWords are first words of flag names that say little of what a
// flag is.
var genericWords = map[string]bool{"max": true, "min": true, "test": true, "batch": true, "n": true, "num": true, "no": true, "use": true}

var errHelp = errors.New("help requested")

// decimalInts makes fs's integer flags take decimal numbers only until
// the returned function restores them (after parsing, so that the help
// still names their type). The flag package reads integers as Go
// literals: "--epochs 010" was 8 epochs, "--seed 0x10" seed 16, and
// "--ple-bins 09" a bare "parse error".
func decimalInts(fs *flag.FlagSet) (restore func()) {
	orig := map[*flag.Flag]flag.Value{}
	fs.VisitAll(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if !ok {
			return
		}
		switch g.Get().(type) {
		case int, int64:
			orig[f], f.Value = f.Value, decimalFlag{f.Value, true}
		case uint, uint64:
			orig[f], f.Value = f.Value, decimalFlag{f.Value, false}
		}
	})
	return func() {
		for f, v := range orig {
			f.Value = v
		}
	}
}

// decimalFlag is an integer flag's value that parses its argument in
// base 10 and hands the flag its canonical form.
type decimalFlag struct {
	flag.Value
	signed bool
}

func (d decimalFlag) Set(s string) error {
	var canon string
	var err error
	if d.signed {
		var v int64
		v, err = strconv.ParseInt(s, 10, 64)
		canon = strconv.FormatInt(v, 10)
	} else {
		var v uint64
		v, err = strconv.ParseUint(s, 10, 64)
		canon = strconv.FormatUint(v, 10)
	}
	if errors.Is(err, strconv.ErrRange) {
		return errors.New("value out of range")
	}
	if err != nil {
		if d.signed {
			return errors.New("not a decimal integer")
		}
		return errors.New("not a non-negative decimal integer")
	}
	return d.Value.Set(canon)
}

func printMainUsage(w io.Writer) {
	fmt.Fprintf(w, "decoreg: decoding-based regression (Song & Bahri 2025) in Go.\n\n")
	fmt.Fprintf(w, "Usage:\n\n\tdecoreg <command> [arguments]\n\nThe commands are:\n\n")
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-10s %s\n", c.Name, c.Short)
	}
	fmt.Fprintf(w, "\nUse \"decoreg help <command>\" for more information about a command.\n")
}

func printCommandHelp(w io.Writer, c *Command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: decoreg %s\n\n%s\n", c.UsageLine, strings.TrimSpace(c.Long))
	if fs != nil {
		var b strings.Builder
		fs.SetOutput(&b)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		if b.Len() > 0 {
			fmt.Fprintf(w, "\nFlags:\n%s", b.String())
		}
	}
}

var cmdHelp = &Command{
	Name:        "help",
	UsageLine:   "help [command | bench NAME]",
	Short:       "show help for decoreg or one of its commands",
	Long:        "Help prints the list of commands, or the help of one command with its flags.",
	CustomFlags: true,
	Run:         runHelp,
}

func runHelp(_ *Command, args []string) error {
	switch len(args) {
	case 0:
		printMainUsage(stdout)
		return nil
	case 1:
		if a := args[0]; a == "-h" || a == "-help" || a == "--help" || a == "--h" {
			args[0] = "help" // as "decoreg CMD -h" prints CMD's help
		}
		c := lookup(args[0])
		if c == nil {
			return usagef("help: unknown command %q; run 'decoreg help'", args[0])
		}
		if c.Name == "bench" {
			printBenchHelp(stdout, c)
			return nil
		}
		printCommandHelp(stdout, c, &c.Flag)
		return nil
	case 2:
		// help bench NAME: the bench's own help, with its flags.
		if b, ok := benches[args[1]]; ok && args[0] == "bench" {
			if err := b.Run([]string{"-h"}); err != nil && !errors.Is(err, errHelp) {
				return err
			}
			return nil
		}
		if args[0] == "bench" {
			return usagef("help: unknown benchmark %q; run 'decoreg bench help'", args[1])
		}
		if lookup(args[0]) != nil {
			return usagef("help: only bench has named parts (help bench NAME); run 'decoreg help %s'", args[0])
		}
		return usagef("help: unknown command %q; run 'decoreg help'", args[0])
	default:
		return usagef("help: too many arguments")
	}
}

// run is main without os.Exit, for tests: it returns the exit status.
func run(args []string, stderr io.Writer) int {
	// Notices name piped inputs as the user gave them, not by their
	// copies' paths (nameSpools does so for the error below).
	saved := errOut
	errOut = spoolNamer{saved}
	defer func() { errOut = saved }()
	if len(args) == 0 {
		printMainUsage(stderr)
		return 2
	}
	name := args[0]
	// A write to standard output that fails (a full disk, a closed
	// descriptor) fails the command, whether or not its Run checked it.
	out := &stickyWriter{w: stdout}
	defer func(w io.Writer) { stdout = w }(stdout)
	stdout = out
	if name == "-h" || name == "--help" || name == "-help" {
		printMainUsage(stdout)
		if out.err != nil {
			fmt.Fprintf(stderr, "decoreg: writing standard output: %v\n", out.err)
			return 1
		}
		return 0
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(stderr, "decoreg %s: unknown command\nRun 'decoreg help' for usage.\n", name)
		return 2
	}
	running.Store(&name)
	defer running.Store(nil)
	c.resetFlags()
	args = args[1:]
	var err error
	if !c.CustomFlags {
		err = parseFlags(c, &c.Flag, args)
		args = c.Flag.Args()
	}
	if err == nil {
		err = c.Run(c, args)
	}
	defer removeSpools()
	if (err == nil || errors.Is(err, errHelp)) && out.err != nil {
		err = fmt.Errorf("writing standard output: %w", out.err)
	}
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	default:
		// The library's errors start "decoreg: "; inside a message that
		// already names the command, that prefix is dropped.
		msg := strings.ReplaceAll(nameSpools(err.Error()), ": decoreg: ", ": ")
		first, _, _ := strings.Cut(msg, ":")
		first, _, _ = strings.Cut(first, " ")
		switch {
		case strings.HasPrefix(msg, "decoreg"):
		case lookup(first) != nil: // names its command (experiment uci's are bench uci's)
			msg = "decoreg " + msg
		default: // an error that does not name the command (a write's)
			msg = "decoreg " + name + ": " + msg
		}
		fmt.Fprintln(stderr, msg)
		var ue usageError
		var ie interruptedError
		switch {
		case errors.As(err, &ue):
			return 2
		case errors.As(err, &ie):
			return 130
		}
		return 1
	}
}

func main() {
	listenFromStart()
	exit(run(os.Args[1:], errOut))
}

// listenFromStart listens for interrupt signals from the start (see
// listenLocked): an interrupt while a command reads its model or data,
// before it has a handler of its own, says so and ends the process by
// the signal (it ended it by the signal's default action, without a word,
// helper-146). As process 1 that is needed too, as the kernel ignores
// signals left to their default action there. (The tests, which run
// commands in their own process, listen only while a command needs to.)
func listenFromStart() {
	signals.mu.Lock()
	listenAll = true
	listenLocked()
	signals.mu.Unlock()
}

// stickyWriter passes writes to w and keeps the first error.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil && s.err == nil {
		s.err = err
	}
	return n, err
}

// stdout is where commands write their results; tests replace it.
var stdout io.Writer = pipeWriter{os.Stdout}

// durationHint is the advice for a flag parse error err that is about a
// duration flag of fs: Go's message, "invalid value "1" for flag
// -min-time: parse error", says nothing of the unit it wants.
func durationHint(fs *flag.FlagSet, err error) string {
	_, rest, ok := strings.Cut(err.Error(), " for flag -")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, ":")
	if f := fs.Lookup(name); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if _, ok := g.Get().(time.Duration); ok {
				return " (a duration with its unit, such as 90s, 500ms, 2m or 1h30m)"
			}
		}
	}
	return ""
}
