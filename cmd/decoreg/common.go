package main

// Shared flag and file helpers of the train, eval, predict and sample
// commands.
//
// Error policy: every problem with the user's flags or files (a missing,
// empty or malformed file, a bad flag value, data a model cannot be trained
// on) is a usage error (exit status 2) whose message is one line naming the
// command, then the file (with line and column where there is one) or the
// flag. Failures that are not the user's input (a write that fails, training
// that diverges) exit with status 1; a command stopped by an interrupt
// before it finished ends, its temporary files removed, killed by the
// signal (interruptedf, exit; a shell's status 130 for Ctrl-C).

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"decoreg"
	"decoreg/data"
	"decoreg/internal/outfile"
)

// errOut receives progress lines and notices (not errors, which run prints);
// tests replace it.
var errOut io.Writer = pipeWriter{os.Stderr}

// isTerminal reports whether w is a character device (an interactive
// terminal), which gets a \r-updated progress bar instead of log lines. A
// variable, so that tests can pretend.
var isTerminal = func(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// oneLine flattens a message onto one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\r", " ")
	return strings.ReplaceAll(s, "\n", "; ")
}

// inputf returns a usage error "NAME: MESSAGE" flattened onto one line.
func inputf(name, format string, args ...any) error {
	return usageError{errors.New(oneLine(name + ": " + fmt.Sprintf(format, args...)))}
}

// inputErr turns an error about the user's input into a usage error
// prefixed with the command name; the errors of the data and modelfile
// packages and of os already name their file.
func inputErr(name string, err error) error {
	return usageError{fmt.Errorf("%s: %s", name, oneLine(err.Error()))}
}

// interruptedf returns the error of a command that an interrupt stopped
// (run's status 130; the process then ends by the signal: exit), one line.
func interruptedf(name, format string, args ...any) error {
	return interruptedError{errors.New(oneLine(name + ": " + fmt.Sprintf(format, args...)))}
}

// failf returns a non-usage error (exit status 1), one line.
func failf(name, format string, args ...any) error {
	return errors.New(oneLine(name + ": " + fmt.Sprintf(format, args...)))
}

// isSet reports whether the flag called name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// noArgs rejects positional arguments.
func noArgs(name string, args []string) error {
	if len(args) > 0 {
		return inputf(name, "unexpected argument %q (every input is given by a flag; see 'decoreg help %s')", args[0], name)
	}
	return nil
}

// required checks that the string flags named are set and not empty.
func required(name string, fs *flag.FlagSet, flags ...string) error {
	for _, f := range flags {
		if fs.Lookup(f).Value.String() == "" {
			return inputf(name, "--%s is required", f)
		}
	}
	return nil
}

// checkOutPath checks, before any long work, that the file of the output
// flag flagName can be written (outfile.Check: for a file written
// atomically, a temporary file is created and removed in the directory of
// the final write), so that a missing or unwritable directory or a
// read-only file is a usage error naming the flag. "-" (standard output)
// is accepted when dash is true.
func checkOutPath(name, flagName, path string, dash bool) error {
	if path == "-" && dash {
		return nil
	}
	if path == "" {
		if dash {
			return inputf(name, "--%s needs a FILE (or - for standard output), have an empty one", flagName)
		}
		return inputf(name, "--%s is required (a FILE)", flagName)
	}
	if err := outfile.Check(path); err != nil {
		return inputf(name, "--%s %s: %v", flagName, path, err)
	}
	return nil
}

// notAnInput refuses an output file that is one of the command's input
// files (os.SameFile, after following links): writing it would destroy
// the input before, or while, it is read. inputs pairs each input flag's
// name with its path; empty paths are skipped, and an input "-" stands
// for standard input's file (--data - < f). Outputs that are not regular
// files (devices) are skipped, FIFOs compared. An output "-" is standard
// output, compared when it is a regular file (a shell's >> onto the input
// appended the output to it); outFlag "" says the command writes there
// without a flag (eval's JSON).
func notAnInput(name, outFlag, out string, inputs ...[2]string) error {
	if out == "" {
		return nil
	}
	var ofi os.FileInfo
	var err error
	if out == "-" {
		if ofi, err = os.Stdout.Stat(); err != nil || !ofi.Mode().IsRegular() {
			return nil
		}
	} else if ofi, err = os.Stat(out); err != nil || !ofi.Mode().IsRegular() && ofi.Mode()&os.ModeNamedPipe == 0 {
		return nil // a new file, or a device: not an input
	}
	for _, in := range inputs {
		if in[1] == "" {
			continue
		}
		ifi, err := os.Stat(in[1])
		if in[1] == "-" {
			ifi, err = os.Stdin.Stat() // --data - < f >> f
		}
		if err == nil && os.SameFile(ofi, ifi) {
			switch {
			case in[1] == "-" && out == "-":
				return inputf(name, "standard output, where %s writes, is the file of standard input (--%s -): redirect it to another file", name, in[0])
			case in[1] == "-":
				return inputf(name, "--%s %s is the file of standard input (--%s -), which writing it would destroy; choose another --%s", outFlag, out, in[0], outFlag)
			case out == "-" && outFlag == "":
				return inputf(name, "standard output, where %s writes, is the file of --%s %s: redirect it to another file", name, in[0], in[1])
			case out == "-":
				return inputf(name, "--%s - writes to standard output, which is the file of --%s %s: redirect it to another file", outFlag, in[0], in[1])
			case !ofi.Mode().IsRegular():
				return inputf(name, "--%s %s is the same FIFO as --%s %s: the command would wait on itself; choose another --%s", outFlag, out, in[0], in[1], outFlag)
			}
			return inputf(name, "--%s %s is the same file as --%s %s, which writing it would destroy; choose another --%s", outFlag, out, in[0], in[1], outFlag)
		}
	}
	return nil
}

// readOnce refuses two input flags that name one pipe or FIFO, which can
// be read only once (the first reads it to its end; the second would find
// it empty, or wait forever for a writer), and "-" beside a path that is
// standard input (/dev/stdin, /dev/fd/0: the first read ate the other's
// data, whether standard input is a pipe or a file). Empty paths are
// skipped, and "-" beside another path (splitFlags.check refuses
// --test-mask -).
func readOnce(name string, a, b [2]string) error {
	if a[1] == "" || b[1] == "" {
		return nil
	}
	if a[1] == "-" || b[1] == "-" {
		// "-" and a path to standard input (/dev/stdin, /dev/fd/0): the
		// first read ate the other's data (a mask read from the data gave
		// "bad mask header"), whatever standard input is.
		other := a[1]
		if other == "-" {
			other = b[1]
		}
		fi, err := os.Stat(other)
		si, serr := os.Stdin.Stat()
		if other == "-" || err == nil && serr == nil && os.SameFile(fi, si) {
			return inputf(name, "--%s %s and --%s %s both read standard input: give one of them a file", a[0], a[1], b[0], b[1])
		}
		return nil
	}
	afi, err1 := os.Stat(a[1])
	bfi, err2 := os.Stat(b[1])
	if err1 == nil && err2 == nil && !afi.Mode().IsRegular() && !afi.IsDir() && os.SameFile(afi, bfi) {
		return inputf(name, "--%s %s and --%s %s are the same pipe or FIFO, which can be read once", a[0], a[1], b[0], b[1])
	}
	return nil
}

// outHelp says, in an --out flag's help, how the file is written; outDoc
// says it in full, for the commands' help.
const (
	outHelp = "a regular file is replaced atomically (a read-only one is refused), a link is written through, a device or FIFO directly"
	outDoc  = `How --out is written: - or /dev/stdout streams to standard output. A
regular file is replaced atomically: the output goes to a temporary file
.NAME.tmpNNN (NAME cut short near 255 bytes) in the same directory, which is renamed over NAME only when
complete, so NAME is either complete or untouched; NAME keeps its
permission bits (not set-id or sticky bits), and its owner and group where
the process may set them (as root); a hard link to NAME keeps the old content (the new file takes the
name); a read-only NAME is refused. A symbolic link is written
through: it stays a link and its target gets the output (atomically, or
created if missing). A device or FIFO (/dev/null, a named pipe) is written
directly. Before any long work the command checks that the output can be
written (it creates and removes a temporary file where it will write).
An interrupt (Ctrl-C, SIGTERM or SIGHUP) while the output is written abandons it and
leaves no temporary file (train, whose model took long to make, finishes its write); a second one ends the process at once, saying so
(the same signal within 50 ms of the first is its echo, not a second: GNU timeout sends it twice). A temporary
file that a killed process left (SIGKILL, a crash) is removed by the next
write of NAME that succeeds, once it is a day old. An --out that
is one of the command's input files (--data, --model, --test-mask; the
same file through a link too) is refused.`
)

// splitFlags are the --test-mask and --split flags shared by the commands.
type splitFlags struct {
	mask  string
	split optInt
}

// optInt is an int flag without a default: set says whether it was given.
type optInt struct {
	v   int
	set bool
}

func (o *optInt) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.Itoa(o.v)
}

// reset unsets o (for Command.resetFlags).
func (o *optInt) reset() { *o = optInt{} }

func (o *optInt) Set(s string) error {
	v, err := strconv.Atoi(s)
	if errors.Is(err, strconv.ErrRange) {
		return errors.New("value out of range") // as the int flags say it
	}
	if err != nil {
		return errors.New("not an integer")
	}
	o.v, o.set = v, true
	return nil
}

func (s *splitFlags) register(fs *flag.FlagSet, what string) {
	fs.StringVar(&s.mask, "test-mask", "", "mask `FILE` (header split0,split1,...; a 1 marks a test row of that split); "+what)
	fs.Var(&s.split, "split", "the split `K` of --test-mask, counted from 0")
}

// check validates the pair before any file is read, the mask against
// dataPath (the command's --data) too: one pipe, FIFO or standard input
// cannot be read as both (readOnce).
func (s *splitFlags) check(name, dataPath string) error {
	switch {
	case s.mask != "" && !s.split.set:
		return inputf(name, "--test-mask needs --split K")
	case s.mask == "" && s.split.set:
		return inputf(name, "--split needs --test-mask FILE")
	case s.mask != "" && s.split.v < 0:
		return inputf(name, "--split must be >= 0, have %d", s.split.v)
	case s.mask == "-":
		return inputf(name, "--test-mask -: the mask is read from a file (standard input is for --data -)")
	}
	return readOnce(name, [2]string{"data", dataPath}, [2]string{"test-mask", s.mask})
}

// rows returns the indices of d's rows to use: every row without a mask;
// with one, the test rows of the split (test true) or the others (test
// false). An empty selection is an error.
func (s *splitFlags) rows(name string, d *data.Dataset, test bool) ([]int, error) {
	if s.mask == "" {
		idx := make([]int, d.Rows)
		for i := range idx {
			idx[i] = i
		}
		return idx, nil
	}
	m, err := data.ReadMask(s.mask)
	if err != nil {
		return nil, inputErr(name, flagPathErr("test-mask", err))
	}
	if err := data.CheckRows(m, d); err != nil {
		return nil, inputErr(name, err)
	}
	sel, err := m.Test(s.split.v)
	if err != nil {
		return nil, inputErr(name, fmt.Errorf("--split: %w", err))
	}
	var idx []int
	for i, t := range sel {
		if t == test {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		kind := "training (non-test)"
		if test {
			kind = "test"
		}
		return nil, inputf(name, "%s: split %d has no %s rows", s.mask, s.split.v, kind)
	}
	return idx, nil
}

// loadModel reads a model file; every failure is the user's input (and
// decoreg.Load's errors name the file). "-" is refused by name: a model is
// read from a file (standard input carries the data where a command reads
// it).
func loadModel(name, path string) (*decoreg.Model, error) {
	if path == "-" {
		return nil, inputf(name, "--model -: a model is read from its file, not from standard input; give the file's path")
	}
	m, err := decoreg.Load(path)
	if err != nil {
		return nil, inputErr(name, flagPathErr("model", err))
	}
	return m, nil
}

// flagPathErr names the flag that gave the path of err when err is the
// opening (or stat) of a file ("--model m.drg: no such file or
// directory"): "open x.csv: ..." did not say whether x.csv was --data,
// --test-mask or --model. Other errors are returned as they are.
func flagPathErr(flag string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && (pe.Op == "open" || pe.Op == "stat") {
		return fmt.Errorf("--%s %s: %w", flag, pe.Path, pe.Err)
	}
	return err
}

// targetUse says what a command does with the target column of a file.
type targetUse int

const (
	targetIgnored  targetUse = iota // sample: never read
	targetOptional                  // predict: read when present and filled in
	targetRequired                  // eval: every row needs one
)

// readForModel reads the rows of a data file that a model takes as input
// (see input).
//
// When the model recorded its column names (models trained by 'decoreg
// train' always do), columns are matched by name, other columns are
// ignored, and a feature the file lacks is an error that names it; the
// target is the column called target, or else the model's target name.
// Without names (a model trained through the library), the file must hold
// the model's features in order, then optionally the target (the last
// column, or the column called target), and a warning on errOut says that
// columns are matched by position.
//
// Dataset.Y is nil when the target is not read. With targetOptional a
// target column with blank cells (unlabelled rows) is not read by a model
// without a schema; with one, its missing cells are NaN, and predict
// decides on the rows it uses (unlabelledTargets).
//
// A model with a schema (trained by 'decoreg train') reads its original
// columns by name and encodes them (readFrameForModel); Dataset.Names are
// then the encoded features, and a missing target is NaN. Its encoding
// warnings (cells imputed or of unseen levels) are printed on errOut for
// every row; readForModelRows leaves them to the caller.
func readForModel(name, path string, dl data.Dialect, m *decoreg.Model, target string, use targetUse) (*input, error) {
	d, warn, err := readForModelRows(name, path, dl, m, target, use)
	if err != nil {
		return nil, err
	}
	warn(nil)
	return d, nil
}

// readForModelRows is readForModel, but returns, instead of printing
// them, a function that prints the encoding warnings of the data rows
// rows (indices of the file's rows, as Dataset's; nil: every row): the
// rows the command uses, so that a row it skips (a test mask's other
// rows, a missing target) is not counted.
func readForModelRows(name, path string, dl data.Dialect, m *decoreg.Model, target string, use targetUse) (*input, func(rows []int), error) {
	if s := m.Schema(); s != nil {
		return readFrameForModel(name, path, dl, m, s, target, use)
	}
	d, err := readNamed(name, path, dl, m, target, use)
	if err != nil {
		return nil, nil, err
	}
	return &input{Dataset: d}, func([]int) {}, nil
}

// readNamed is readForModel for a model without a schema.
func readNamed(name, path string, dl data.Dialect, m *decoreg.Model, target string, use targetUse) (*data.Dataset, error) {
	header, hline, err := dl.ReadHeaderLine(path)
	if err != nil {
		return nil, inputErr(name, err)
	}
	feats, mtarget := m.Names()
	if target != "" && use != targetIgnored && !slices.Contains(header, target) {
		// --target given: it must be there, even for predict (and before
		// a model without names counts the file's columns by position).
		return nil, noTargetColumn(name, path, target, header)
	}
	given := target != "" // by --target
	if target == "" {
		target = mtarget
	}
	if hint := otherSeparator(header, dl); hint != "" && (len(feats) == 0 || !slices.Contains(header, feats[0])) {
		// One column holding a separator, where the model wants others
		// (as a model with a schema says, readFrameForModel).
		return nil, inputf(name, "%s: line %d: %s", path, hline, hint)
	}
	switch {
	case len(feats) == 0:
		if feats, target, err = byPosition(name, path, header, hline, m.Features(), target); err != nil {
			return nil, err
		}
		// The columns are then read by these names: one that two columns
		// share could not be told apart.
		seen := make(map[string]bool, len(feats))
		for _, f := range feats {
			if f != "" && seen[f] {
				return nil, inputf(name, "%s: line %d: the model records no column names, so it reads the file's columns by position, and two of them are named %s: rename one", path, hline, data.QuoteName(f))
			}
			seen[f] = true
		}
		quoted := make([]string, len(feats))
		for j, f := range feats {
			quoted[j] = data.QuoteName(f) // "" for an unnamed column
		}
		fmt.Fprintf(errOut, "decoreg %s: warning: %s: the model records no column names (it was not trained by 'decoreg train'), so its %d features are the file's columns %s, by position\n",
			name, path, len(feats), strings.Join(quoted, ", "))
	case len(feats) != m.Features():
		return nil, inputf(name, "model records %d feature names for %d features", len(feats), m.Features())
	}
	if target != "" && slices.Contains(feats, target) {
		return nil, inputf(name, "--target %s is one of the model's features", data.QuoteName(target))
	}
	tcol := -1
	if target != "" && use != targetIgnored {
		tcol = slices.Index(header, target)
	}
	if use == targetRequired && tcol < 0 {
		if target == "" && len(header) > len(feats) && header[len(header)-1] == "" {
			// The column after the features has no name (a trailing comma
			// in the header), and --target cannot name it either.
			return nil, inputf(name, "%s: line %d: column %d, after the model's %d features, has no name in the header; name it to read it as the target", path, hline, len(header), len(feats))
		}
		if target == "" {
			return nil, inputf(name, "%s: the model has no target name and the file no column after the features; give --target NAME", path)
		}
		if given {
			return nil, noTargetColumn(name, path, target, header)
		}
		return nil, inputf(name, "%s: no column %s, the model's target%s (give --target NAME; the file's columns are %s)", path, data.QuoteName(target), didYouMean(target, header), quoteNames(header))
	}
	read := ""
	if tcol >= 0 && (use != targetOptional || !targetTwice(name, path, header, target)) {
		read = target
	}
	d, err := dl.ReadFeatures(path, feats, read)
	var pe *data.ParseError
	if use == targetOptional && (errors.Is(err, data.ErrNotNumber) || errors.Is(err, data.ErrNonFinite)) && errors.As(err, &pe) && pe.Column == tcol+1 {
		// Unlabelled rows, or text or an infinity in the target: predict
		// without it.
		switch {
		case errors.Is(err, data.ErrNonFinite):
			fmt.Fprintf(errOut, "decoreg %s: warning: %s: line %d: %v: the target is not read (no logpdf)\n", name, nameSpools(path), pe.Line, pe.Err)
		case !errors.Is(err, data.ErrEmptyCell):
			fmt.Fprintf(errOut, "decoreg %s: warning: %s: the target column %s holds text (line %d): it is not read (no logpdf)\n", name, nameSpools(path), data.QuoteName(read), pe.Line)
		}
		d, err = dl.ReadFeatures(path, feats, "")
	}
	if err != nil {
		return nil, inputErr(name, targetTextErr(err, header, read, "", dl))
	}
	warnBlank(name, path, d.Blank, len(header))
	return d, nil
}

// byPosition returns the feature and target columns of a file whose
// header is header (on line hline), for a model of nfeat features without column names:
// the target is the column called target if there is one, else the last
// column when there are more than nfeat; the features are the other
// columns, in order, and must be nfeat.
func byPosition(name, path string, header []string, hline, nfeat int, target string) (feats []string, tname string, err error) {
	tcol := -1
	switch {
	case target != "":
		tcol = slices.Index(header, target)
	case len(header) > nfeat:
		tcol = len(header) - 1
		target = header[tcol]
	}
	for j, h := range header {
		if j != tcol {
			feats = append(feats, h)
		}
	}
	if len(feats) != nfeat {
		return nil, "", inputf(name, "%s: line %d: %d feature columns, the model takes %d", path, hline, len(feats), nfeat)
	}
	return feats, target, nil
}

// subset returns the rows idx of d (d itself when idx is every row in
// order).
func subset(name string, d *input, idx []int) (*input, error) {
	e, err := d.rows(idx)
	if err != nil {
		return nil, inputErr(name, err)
	}
	return e, nil
}

// writeOutput writes a result through write to path: to standard output
// when path is "-" or /dev/stdout, otherwise as package outfile writes a
// file (see outHelp). The output is streamed: write's writer is buffered
// and, once the command is interrupted, fails with context.Canceled.
//
// While it runs, a first interrupt signal cancels the write (a temporary
// file is removed, an existing file left as it was) and a second one ends
// the process at once by the signal, after removing the temporary file. A usage
// error from write is returned as it is; the others name the flag that
// gave the path (none when flag is "").
func writeOutput(name, flag, path string, write func(w io.Writer) error) error {
	return writeFinishing(name, flag, path, nil, write)
}

// writeFinishing is writeOutput of an output that took long to make (a
// trained model): with first not nil, a first interrupt while it is
// written does not cancel the write but calls first (which says so, and
// that a second abandons it); a second ends the process, as in
// writeOutput. A single Ctrl-C at the end of a long training threw the
// model away (helper-117). With first nil it is writeOutput.
func writeFinishing(name, flag, path string, first func(), write func(w io.Writer) error) error {
	var file atomic.Pointer[outfile.File]
	var abandoned atomic.Bool
	// lost says what an abandoned write left at path: nothing where it is
	// a regular file (written atomically) or was not opened yet; a device,
	// a FIFO or standard output may have had part of it.
	lost := func() string {
		if f := file.Load(); (f != nil && !f.Atomic()) || outfile.IsStdout(path) {
			return "the output to " + path + " may be incomplete"
		}
		return "nothing written to " + path
	}
	ctx, stop := onSignals(first, func() bool {
		abandoned.Store(true)
		if f := file.Load(); f != nil {
			f.Discard()
		}
		if first != nil && path != "-" {
			// first promised that another interrupt abandons the write.
			if f := file.Load(); f != nil && f.Committed() {
				fmt.Fprintf(errOut, "decoreg %s: interrupted again, but the write had finished: %s is written\n", name, path)
			} else {
				fmt.Fprintf(errOut, "decoreg %s: interrupted again: abandoned the write; %s\n", name, lost())
			}
			return true
		}
		return false
	})
	defer stop()
	fail := func(err error) error {
		var ue usageError
		switch {
		case abandoned.Load():
			// The write failed because the handler discarded it and is
			// ending the process by the signal: not a write error (exit
			// 1 "file already closed" raced it, helper-126).
			for {
				time.Sleep(time.Hour)
			}
		case errors.As(err, &ue):
			return err
		case ctx.Err() != nil && path != "-":
			return interruptedf(name, "interrupted; %s", lost())
		case ctx.Err() != nil:
			return interruptedf(name, "interrupted")
		}
		if flag != "" {
			return failf(name, "--%s: writing %s: %v", flag, path, err)
		}
		return failf(name, "writing %s: %v", path, err)
	}
	// whole is the end of a write that finished: an interrupt that came
	// while its last bytes were written (to a pipe or a FIFO, where the
	// write waits for the reader) still stops the command, with a word
	// (it ended with status 0, the signal lost: helper-146). With first,
	// the first interrupt asked for the write to finish: done.
	whole := func() error {
		if ctx.Err() != nil && first == nil {
			return interruptedf(name, "interrupted while the last of the output was written; %s is written whole", pick(path == "-", "the standard output", path))
		}
		return nil
	}
	if path == "-" || outfile.IsStdout(path) {
		bw := bufio.NewWriterSize(stdout, 1<<16)
		if err := write(ctxWriter{ctx, bw}); err != nil {
			bw.Flush()
			return fail(err)
		}
		if err := bw.Flush(); err != nil {
			return fail(err)
		}
		return whole()
	}
	if !startCreate() {
		select {} // an interrupt is ending the process
	}
	f, err := outfile.Create(ctx, path)
	if err != nil {
		endCreate()
		return fail(err)
	}
	file.Store(f)
	defer f.Discard()
	defer listOutput(f)()
	if err := write(f); err != nil {
		return fail(err)
	}
	if err := f.Commit(); err != nil {
		return fail(err)
	}
	return whole()
}

// ctxWriter is a writer that fails once ctx is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// interruptSignals end a command: SIGINT, SIGTERM, and SIGHUP (a closed
// terminal or SSH session), each cancelling it as Ctrl-C does. A signal
// the process started with ignored (SIGHUP under nohup) is left out: a
// handler for it would undo the ignoring (os/signal's Notify).
var interruptSignals = func() []os.Signal {
	var out []os.Signal
	for _, s := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(s) {
			out = append(out, s)
		}
	}
	return out
}()

// pipeSignals is SIGPIPE, unless the process started with it ignored.
// While standard input's spools exist the receiver of signals takes it
// (and does nothing with it), so that a write to a closed standard output
// (a reader such as head that has read enough) fails with EPIPE instead of
// the runtime ending the process with the copy of the data left behind;
// the write (pipeWriter, the command's standard output and error) then
// removes the spools and ends the process by SIGPIPE, as it would have
// ended (brokenPipe).
var pipeSignals = func() []os.Signal {
	if signal.Ignored(syscall.SIGPIPE) {
		return nil
	}
	return []os.Signal{syscall.SIGPIPE}
}()

// pipeWriter is the command's standard output or error: a write that
// fails with EPIPE (its reader closed it) while SIGPIPE is caught ends the
// process as SIGPIPE's default action would have, after removing
// standard input's spools (brokenPipe).
type pipeWriter struct{ f *os.File }

func (w pipeWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		brokenPipe(w.f)
	}
	return n, err
}

// brokenPipe removes standard input's spools and ends the process by
// SIGPIPE, f being standard output or error and closed by its reader,
// when the receiver of signals catches SIGPIPE; otherwise (SIGPIPE
// ignored by the parent) it returns and the write's error is the
// command's.
func brokenPipe(f *os.File) {
	signals.mu.Lock()
	if !signals.pipe {
		signals.mu.Unlock()
		return
	}
	// signals.mu is kept: no spool may appear from now on.
	removeSpoolsLocked()
	// The runtime ignores a SIGPIPE sent by kill; a write to the broken
	// descriptor, no longer caught, makes it end the process by SIGPIPE.
	signal.Reset(syscall.SIGPIPE)
	f.Write([]byte{'\n'})
	os.Exit(141) // not a broken pipe after all: as a shell reports SIGPIPE
}

// quitSignals is SIGQUIT, unless the process started with it ignored.
// While standard input's spools or an output's temporary file exist, the
// receiver of signals takes it too: it removes them, then gives SIGQUIT
// back to the runtime and raises it again, so that its default action
// (every goroutine's stack on standard error, exit status 2, or a core
// dump with GOTRACEBACK=crash) follows, without leaving the copy of the
// data or a half-written output behind.
var quitSignals = func() []os.Signal {
	if signal.Ignored(syscall.SIGQUIT) {
		return nil
	}
	return []os.Signal{syscall.SIGQUIT}
}()

// signals is the command's one receiver of interruptSignals: it listens
// while a handler (onInterrupt) is registered or standard input's spools
// exist, and gives each signal, as it arrives, to the newest handler, or,
// with none, removes the spools and ends the process by the signal (its
// default action, without leaving the copy of the data behind). It also
// receives pipeSignals while spools exist, and
// quitSignals while spools or outputs being written exist (see there).
// One receiver decides, so that no handler's end can race with a signal
// another receiver got too.
var signals struct {
	mu        sync.Mutex // also guards stdinSpools
	ch        chan os.Signal
	handlers  []*sigHandler
	listening bool
	quit      bool // receiving quitSignals
	pipe      bool // receiving pipeSignals
	// outputs are writeOutput's files being written, which SIGQUIT
	// discards (the other signals go to writeOutput's own handler), and
	// so does an interrupt that ends the process.
	outputs []*outfile.File
	// exiting is set when an interrupt ends the process: no output may
	// appear from then on (startCreate, listOutput). creating counts the
	// outputs being made (startCreate) and not listed yet.
	exiting  bool
	creating int
}

// startCreate reports whether an output may be made, and counts it as
// being made until listOutput lists it (or endCreate, where making it
// failed); false once the process is ending by an interrupt.
func startCreate() bool {
	signals.mu.Lock()
	defer signals.mu.Unlock()
	if signals.exiting {
		return false
	}
	signals.creating++
	return true
}

// endCreate is the end of an output that startCreate counted and that
// was not made.
func endCreate() {
	signals.mu.Lock()
	signals.creating--
	signals.mu.Unlock()
}

// beginExit readies the process's end by an interrupt: no output may be
// made from now on, the outputs being made are waited for (at most two
// seconds: a FIFO's open may wait for a reader) and those being written
// removed, and so are standard input's spools. signals.mu is not held.
func beginExit() {
	signals.mu.Lock()
	signals.exiting = true
	signals.mu.Unlock()
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		signals.mu.Lock()
		n := signals.creating
		signals.mu.Unlock()
		if n <= 0 {
			break
		}
	}
	signals.mu.Lock()
	for _, f := range signals.outputs {
		f.Discard()
	}
	removeSpoolsLocked()
	signals.mu.Unlock()
}

// listOutput lists f among the outputs that SIGQUIT, and an interrupt
// that ends the process, discard, and returns the function that takes it
// off the list. Once the process is ending by a signal (beginExit) it
// discards f and does not return: the output was made after the cleanup
// (a second interrupt while train's first still stopped it left the
// model's temporary file).
func listOutput(f *outfile.File) (unlist func()) {
	signals.mu.Lock()
	signals.creating-- // startCreate counted it
	if signals.exiting {
		signals.mu.Unlock()
		f.Discard()
		select {} // the signal ends the process
	}
	signals.outputs = append(signals.outputs, f)
	listenLocked()
	signals.mu.Unlock()
	return func() {
		signals.mu.Lock()
		if i := slices.Index(signals.outputs, f); i >= 0 {
			signals.outputs = slices.Delete(signals.outputs, i, i+1)
		}
		listenLocked()
		signals.mu.Unlock()
	}
}

// sigHandler is a command's handler of interrupt signals. mu is held
// while on runs, and by the handler's stop to mark it removed.
type sigHandler struct {
	on      func(os.Signal)
	mu      sync.Mutex
	removed bool
}

// listenAll makes the receiver listen from the process's start to its
// end (listenFromStart: the decoreg binary and the tests' child
// processes), not only while handlers and spools need it. signals.mu
// guards it.
var listenAll bool

// listenLocked starts or stops the receiver as handlers and spools
// require; signals.mu is held.
func listenLocked() {
	// As process 1 the kernel ignores a signal whose action is the
	// default, and the Go runtime, which catches it, exits 2 (the status
	// of bad input): listen always, so that a phase without a handler
	// (opening a FIFO, reading --data) ends with 128 plus the signal.
	want := len(signals.handlers) > 0 || len(stdinSpools) > 0 || os.Getpid() == 1 || listenAll
	switch {
	case want && !signals.listening:
		if signals.ch == nil {
			signals.ch = make(chan os.Signal, 4)
			go dispatchSignals(stampSignals(signals.ch))
		}
		signal.Notify(signals.ch, interruptSignals...)
		signals.listening = true
	case !want && signals.listening:
		signal.Stop(signals.ch)
		signals.listening = false
		signals.quit = false
		signals.pipe = false
	}
	catchLocked(len(stdinSpools) > 0, &signals.pipe, pipeSignals)
	catchLocked(len(stdinSpools) > 0 || len(signals.outputs) > 0, &signals.quit, quitSignals)
}

// catchLocked relays sigs to the receiver of signals while want holds (and
// sigs is not empty: the process did not start with them ignored), and
// gives them back to their default action otherwise; *on records which.
// signals.mu is held and the receiver listens.
func catchLocked(want bool, on *bool, sigs []os.Signal) {
	want = want && len(sigs) > 0
	switch {
	case want && !*on:
		signal.Notify(signals.ch, sigs...)
		*on = true
	case !want && *on:
		signal.Reset(sigs...)
		*on = false
	}
}

// signalEcho is how soon after an interrupt the same signal is taken as
// its echo, not as a second interrupt: GNU timeout sends its signal to the
// command and then to its process group, and Ctrl-C under it reaches the
// command from the terminal and from timeout, microseconds apart; a
// second Ctrl-C by hand comes a tenth of a second later at the least. The
// echo made a single timeout stop train at once and lose its model.
// In-process tests, which signal themselves case after case, set it to 0.
var signalEcho = defaultSignalEcho

const defaultSignalEcho = 50 * time.Millisecond

// stampedSignal is a signal with the time it arrived.
type stampedSignal struct {
	s  os.Signal
	at time.Time
}

// stampSignals relays ch's signals with the time each arrived, so that an
// echo is told by its arrival however long the handler of the first took
// (a write to a stalled standard error), and a second Ctrl-C by hand that
// came while it ran is still a second.
func stampSignals(ch chan os.Signal) chan stampedSignal {
	out := make(chan stampedSignal, 64)
	go func() {
		for s := range ch {
			out <- stampedSignal{s, time.Now()}
		}
		close(out)
	}()
	return out
}

func dispatchSignals(ch chan stampedSignal) {
	var last os.Signal
	var lastAt time.Time
	for st := range ch {
		s := st.s
		if s == syscall.SIGPIPE {
			continue // the write failed with EPIPE: its caller decides
		}
		if s == syscall.SIGQUIT {
			quitAfterCleanup()
		}
		if s == last && st.at.Sub(lastAt) < signalEcho {
			continue
		}
		last, lastAt = s, st.at
		for {
			signals.mu.Lock()
			var h *sigHandler
			if n := len(signals.handlers); n > 0 {
				h = signals.handlers[n-1]
			}
			if h == nil {
				// No handler: the spools' guard (or a signal that raced with
				// the last handler's end, which the default action would
				// have ended too).
				signals.mu.Unlock()
				beginExit()
				fmt.Fprintln(errOut, decoregName()+": interrupted") // it exited without a word
				exitBySignal(s)
			}
			signals.mu.Unlock()
			// A handler stopped since it was taken (its command's work
			// done, the command returning) would let the signal go
			// unheard: the next one takes it (helper-148).
			h.mu.Lock()
			if h.removed {
				h.mu.Unlock()
				continue
			}
			lastSignal.Store(&s)
			h.on(s)
			h.mu.Unlock()
			signalsHandled.Add(1)
			break
		}
	}
}

// lastSignal is the last interrupt signal given to a handler: a command
// that it stopped ends the process by it (exit).
var lastSignal atomic.Pointer[os.Signal]

// exitBySignal ends the process by s, with its default action, so that
// the parent sees the command killed by the signal (a shell reports 130
// for SIGINT, 143 for SIGTERM, 129 for SIGHUP), as if it had not caught
// it: a shell loop or script run from a terminal stops at Ctrl-C only
// when its command died by SIGINT (it went on after an exit with status
// 130), and supervisors count death by SIGTERM as a clean stop. The
// caller has removed the temporary files. As process 1, or if the signal
// cannot be raised, the status a shell would report, 128 plus its number.
func exitBySignal(s os.Signal) {
	ss, ok := s.(syscall.Signal)
	if !ok {
		os.Exit(130)
	}
	if os.Getpid() != 1 { // the kernel does not let a signal kill process 1 (the Go runtime then exits 2)
		signal.Reset(ss)
		if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(ss) == nil { // not on Windows: the status below
			time.Sleep(5 * time.Second) // it is delivered to some thread soon
		}
	}
	os.Exit(128 + int(ss)) // as a shell reports a command killed by it
}

// exit ends the process with status code, or, for a command stopped by an
// interrupt (130: interruptedError), by the signal that stopped it.
func exit(code int) {
	if code == 130 {
		if s := lastSignal.Load(); s != nil {
			exitBySignal(*s)
		}
	}
	os.Exit(code)
}

// signalsHandled counts the signals given to a handler (tests wait for
// one to have been handled).
var signalsHandled atomic.Int64

// quitAfterCleanup removes standard input's spools and the outputs'
// temporary files, and then raises SIGQUIT again with its default action:
// the runtime's stack dump, in which the other goroutines are where the
// signal found them. SIGQUIT goes back to the runtime first, so that a
// second one dumps the stacks even if the removal cannot go on
// (signals.mu held by a stuck goroutine). It does not return.
func quitAfterCleanup() {
	signal.Reset(syscall.SIGQUIT)
	signals.mu.Lock() // kept: no spool or output may appear from now on
	for _, f := range signals.outputs {
		f.Discard()
	}
	removeSpoolsLocked()
	if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(syscall.SIGQUIT) == nil {
		select {} // the runtime ends the process
	}
	os.Exit(2) // the status of the runtime's SIGQUIT
}

// onInterrupt returns a context that a first interrupt signal cancels; at
// a second, cleanup runs, the temporary files of the outputs being
// written under the context (outfile.Create with it) and standard input's
// spools are removed, and the process ends by the signal. stop
// (idempotent) ends the watch: the signals go to the handler registered
// before it, if any, or take their default action again.
func onInterrupt(cleanup func()) (ctx context.Context, stop func()) {
	return onSignals(nil, func() bool { cleanup(); return false })
}

// onSignals is onInterrupt, whose first interrupt calls first instead of
// cancelling the context where first is not nil, and whose cleanup says
// whether it told the user what the second interrupt did (else a line
// says the process stopped at once).
func onSignals(first func(), cleanup func() (said bool)) (ctx context.Context, stop func()) {
	tracker := &outfile.Tracker{}
	ctx, cancel := context.WithCancel(outfile.WithTracker(context.Background(), tracker))
	var n atomic.Int32
	h := &sigHandler{on: func(s os.Signal) {
		if n.Add(1) == 1 {
			if first != nil {
				first()
			} else {
				cancel()
			}
			return
		}
		said := cleanup()
		cancel() // an output's open waiting on a FIFO returns (beginExit waits for it)
		tracker.DiscardAll()
		beginExit()
		if !said {
			// A word, or the command ends without one: a second signal
			// can come unbidden (GNU timeout signals the command and
			// then its process group).
			fmt.Fprintln(errOut, decoregName()+": interrupted again: stopped at once")
		}
		exitBySignal(s)
	}}
	signals.mu.Lock()
	signals.handlers = append(signals.handlers, h)
	listenLocked()
	signals.mu.Unlock()
	if hook := watchHook.Load(); hook != nil {
		(*hook)()
	}
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signals.mu.Lock()
			if i := slices.Index(signals.handlers, h); i >= 0 {
				signals.handlers = slices.Delete(signals.handlers, i, i+1)
			}
			listenLocked()
			signals.mu.Unlock()
			// After a signal given to h is handled; one taken for h
			// and not given yet goes to the next handler.
			h.mu.Lock()
			h.removed = true
			h.mu.Unlock()
			cancel()
		})
	}
}

// outsideData refuses an output directory out that is the data directory
// data or lies inside it (links resolved where they exist): results written
// among the datasets would mix with them.
func outsideData(name, out, data string) error {
	resolve := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			return ""
		}
		// The longest existing ancestor, with links resolved.
		rest := ""
		for d := a; ; d = filepath.Dir(d) {
			if r, err := filepath.EvalSymlinks(d); err == nil {
				return filepath.Join(r, rest)
			}
			if filepath.Dir(d) == d {
				return a
			}
			rest = filepath.Join(filepath.Base(d), rest)
		}
	}
	o, d := resolve(out), resolve(data)
	if o == "" || d == "" {
		return nil
	}
	// By text, and as files (a bind mount of the data directory).
	if o == d || strings.HasPrefix(o, d+string(filepath.Separator)) || inside(filepath.Join(o, "REPORT.md"), data) {
		return inputf(name, "--out %s lies inside the data directory %s: the results would mix with the datasets; choose a directory outside it", out, data)
	}
	return nil
}

// noTargetColumn is the error for a --target that names no column of the
// file at path (header).
func noTargetColumn(name, path, target string, header []string) error {
	return inputf(name, "%s: no column %s%s (--target; the file's columns are %s)", path, data.QuoteName(target), didYouMean(target, header), quoteNames(header))
}

// watchHook, when not nil, is called by onInterrupt once its handler is
// registered (tests send their interrupt from it).
var watchHook atomic.Pointer[func()]

// interruptHook, when not nil, is called by interruptible's goroutine
// before f (tests send their interrupt from it, and hold f back).
var interruptHook atomic.Pointer[func()]

// interruptible runs f, a command's computation before it writes anything
// (out, its output's path, or "" for standard output). A first interrupt
// returns at once an error saying that nothing was written, and the
// command ends with it while f is left to the process's exit; a second
// one ends the process at once by the signal, as in writeOutput.
func interruptible(name, out string, f func(ctx context.Context) error) error {
	ctx, stop := onInterrupt(func() {})
	defer stop()
	done := make(chan error, 1)
	go func() {
		if h := interruptHook.Load(); h != nil {
			(*h)()
		}
		done <- f(ctx)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		if out != "" && out != "-" {
			return interruptedf(name, "interrupted; nothing written to %s", out)
		}
		return interruptedf(name, "interrupted; nothing written")
	}
}

// fmtFloat formats v in the shortest form that reads back exactly
// (strconv's 'g' format; NaN, +Inf and -Inf as such).
func fmtFloat(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// jsonNum is v for encoding/json, or nil (null) when v is NaN or infinite,
// which JSON cannot represent.
func jsonNum(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

// stdinName is how messages name the --data of "--data -".
const stdinName = "<stdin>"

// stdin is what "--data -" reads; tests replace it.
var stdin io.Reader = os.Stdin

// spool is a temporary file holding the whole of a --data input that
// cannot be read twice (standard input, a pipe, a FIFO, a device); name
// is how messages call that input. Where the system lets a deleted file
// be opened again through /proc/self/fd (Linux), the file is made without
// a name (anonSpool), or else removed from the directory as soon as it is
// made (unlinkSpool), so that nothing is left even if the process is
// killed (SIGKILL, the out-of-memory killer): keep is a descriptor that
// holds it, and path is /proc/self/fd/N.
type spool struct {
	path, name string
	keep       *os.File
}

// stdinSpools are the files of dataFile; run names each by its input in
// messages and removes them. An entry whose path is "" is a spool being
// made (its file not created yet).
var stdinSpools []*spool

// dataFile returns the file to read for a --data flag: path itself when
// it is a regular file (after following links) or cannot be examined
// (the readers then report it), or else a temporary file holding all of
// it: for "-", standard input; for a pipe, a FIFO or a device
// (/dev/stdin, a shell's <(...) as /dev/fd/N), what reading it gives.
// The readers read a file more than once (its header, then its rows),
// which such an input cannot give. The copy is removed when the command
// ends (run calls removeSpools), or at an interrupting signal.
func dataFile(name, path string) (string, error) {
	display := stdinName
	if path != "-" {
		fi, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return "", inputErr(name, flagPathErr("data", err)) // as --model and --test-mask name theirs
		}
		if err == nil && fi.IsDir() {
			return "", inputf(name, "--data %s: a directory, not a file", path)
		}
		if err != nil || fi.Mode().IsRegular() {
			return path, nil
		}
		if fi.Mode()&os.ModeDevice != 0 {
			// /dev/zero, /dev/urandom, a disk, a terminal: endless or not
			// a table; copying it would fill the temporary directory.
			return "", inputf(name, "--data %s: a device, not a file or a pipe (for what you type, use --data -)", path)
		}
		display = path
	}
	// The file is listed, and the receiver of signals listening, before
	// it exists: a signal now removes it and exits (opening a FIFO, or
	// copying standard input or a pipe, can wait indefinitely).
	sp := &spool{name: display}
	signals.mu.Lock()
	stdinSpools = append(stdinSpools, sp)
	listenLocked()
	signals.mu.Unlock()
	unlist := func() {
		signals.mu.Lock()
		if i := slices.Index(stdinSpools, sp); i >= 0 {
			stdinSpools = slices.Delete(stdinSpools, i, i+1)
		}
		spoolsChangedLocked()
		listenLocked()
		signals.mu.Unlock()
	}
	src := stdin
	prefix := "decoreg-stdin-*.csv"
	if path != "-" {
		f, err := os.Open(path) // a FIFO: waits for a writer
		if err != nil {
			unlist()
			return "", inputf(name, "--data: %v", err)
		}
		defer f.Close()
		src, prefix = f, "decoreg-data-*.csv"
	}
	signals.mu.Lock()
	f, keep, proc := anonSpool(os.TempDir())
	if f != nil {
		sp.path, sp.keep = proc, keep
	} else {
		var err error
		if f, err = os.CreateTemp("", prefix); err != nil {
			signals.mu.Unlock()
			unlist()
			return "", failf(name, "--data %s: keeping a copy of the input in the temporary directory (%s, TMPDIR or the system's default): %v", path, os.TempDir(), err)
		}
		sp.path = f.Name()
		if keep, proc := unlinkSpool(f); keep != nil {
			sp.path, sp.keep = proc, keep
		}
	}
	spoolsChangedLocked()
	signals.mu.Unlock()
	w := &stickyWriter{w: f} // the copy's write errors apart from the input's read errors
	// Its first bytes are looked at before the rest is copied: a binary
	// stream (cat /dev/zero, an image) filled the temporary directory
	// before the readers refused it.
	br := bufio.NewReaderSize(src, 64<<10)
	head, err := br.Peek(data.SniffLen)
	if len(head) > 0 {
		if err := data.Sniff(display, head); err != nil {
			f.Close()
			return "", inputErr(name, err)
		}
	}
	if err == nil {
		_, err = io.Copy(w, br)
	} else {
		// The input ended (or failed) within its first bytes: they are
		// all of it. Reading on would wait for a second end of input
		// where it is a terminal (what is typed after one Ctrl-D).
		w.Write(head)
		if err == io.EOF {
			err = nil
		}
	}
	if cerr := f.Close(); w.err == nil && cerr != nil {
		w.err = cerr
	}
	switch {
	case w.err != nil:
		// The copy's file, not the input: name the directory (the file's
		// own name would be shown as the input's).
		var pe *fs.PathError
		if errors.As(w.err, &pe) {
			w.err = pe.Err
		}
		return "", failf(name, "--data %s: writing its copy in the temporary directory %s: %v", display, filepath.Dir(f.Name()), w.err)
	case err != nil && path == "-":
		return "", failf(name, "--data -: reading standard input: %v", err)
	case err != nil:
		return "", inputf(name, "--data %s: reading it: %v", path, err)
	}
	return sp.path, nil
}

// unlinkSpool removes the spool f from its directory where the system
// lets it be opened again through /proc/self/fd (Linux): it returns a
// descriptor that keeps the file and that path to it, or nil where the
// file stays in the directory (another system, no /proc mounted).
func unlinkSpool(f *os.File) (*os.File, string) {
	keep, proc := holdSpool(f, f.Name())
	if keep == nil {
		return nil, ""
	}
	if os.Remove(f.Name()) != nil {
		keep.Close()
		return nil, ""
	}
	return keep, proc
}

// holdSpool opens the spool f again by the path open, for reading: it
// returns that descriptor, which holds the file, and /proc/self/fd/N, its
// path, where both and f are one file (not another put in its place); nil
// otherwise (another system, no /proc mounted).
func holdSpool(f *os.File, open string) (*os.File, string) {
	keep, err := os.Open(open)
	if err != nil {
		return nil, ""
	}
	proc := fmt.Sprintf("/proc/self/fd/%d", keep.Fd())
	a, err1 := keep.Stat()
	b, err2 := os.Stat(proc)
	c, err3 := f.Stat()
	if err1 != nil || err2 != nil || err3 != nil || !os.SameFile(a, b) || !os.SameFile(a, c) {
		keep.Close()
		return nil, ""
	}
	return keep, proc
}

// removeSpools removes the files of dataFile (and stops listening for
// signals if no handler needs them).
func removeSpools() {
	signals.mu.Lock()
	removeSpoolsLocked()
	signals.mu.Unlock()
}

// removeSpoolsLocked is removeSpools with signals.mu held.
func removeSpoolsLocked() {
	for _, s := range stdinSpools {
		if s.keep != nil {
			s.keep.Close() // the file goes with its last descriptor
		} else if s.path != "" {
			os.Remove(s.path)
		}
	}
	stdinSpools = nil
	spoolsChangedLocked()
	listenLocked()
}

// nameSpools replaces the paths of dataFile's files in msg with the names
// of their inputs (stdinName for standard input). It takes no lock: the
// receiver of signals writes to errOut holding signals.mu.
func nameSpools(msg string) string {
	if r := spoolNames.Load(); r != nil {
		return r.Replace(msg)
	}
	return msg
}

// spoolNames replaces the paths of stdinSpools with their inputs' names;
// nil while there are none. spoolsChangedLocked keeps it.
var spoolNames atomic.Pointer[strings.Replacer]

// spoolsChangedLocked remakes spoolNames from stdinSpools; signals.mu is
// held.
func spoolsChangedLocked() {
	sps := slices.Clone(stdinSpools)
	// The longer paths first: /proc/self/fd/5 is in /proc/self/fd/57
	// (a Replacer tries its pairs in order).
	slices.SortFunc(sps, func(a, b *spool) int { return len(b.path) - len(a.path) })
	var pairs []string
	for _, s := range sps {
		if s.path != "" {
			pairs = append(pairs, s.path, s.name)
		}
	}
	if len(pairs) == 0 {
		spoolNames.Store(nil)
		return
	}
	spoolNames.Store(strings.NewReplacer(pairs...))
}

// spoolNamer is errOut while a command runs: the notices it writes name
// the inputs of dataFile's files, not the files.
type spoolNamer struct{ w io.Writer }

func (n spoolNamer) Write(p []byte) (int, error) {
	if r := spoolNames.Load(); r != nil {
		if q := r.Replace(string(p)); q != string(p) {
			_, err := io.WriteString(n.w, q)
			return len(p), err
		}
	}
	return n.w.Write(p)
}

// noEmptyTarget refuses an empty --target given on the command line, which
// would otherwise silently mean the default column.
func noEmptyTarget(name string, fs *flag.FlagSet) error {
	if f := fs.Lookup("target"); f != nil && isSet(fs, "target") && strings.TrimSpace(f.Value.String()) == "" {
		return inputf(name, "--target is empty; leave it out for the default column")
	}
	return nil
}

// noEmptyValues refuses each of flags given an empty (or blank) value:
// the settings' flags, whose empty value read as the default without a
// word (an empty --head trained a decoder and said "head": "", helper-146).
func noEmptyValues(name string, fs *flag.FlagSet, flags ...string) error {
	for _, fl := range flags {
		f := fs.Lookup(fl)
		if f == nil || !isSet(fs, fl) || strings.TrimSpace(f.Value.String()) != "" {
			continue
		}
		if fl == "target-range" {
			return inputf(name, "--%s is empty; leave it out for the training targets' range", fl)
		}
		if f.DefValue == "" {
			return inputf(name, "--%s is empty; leave it out for none", fl)
		}
		return inputf(name, "--%s is empty; leave it out for the default (%s)", fl, f.DefValue)
	}
	return nil
}

// parseInterspersed parses args with cmd's flags, which may come before,
// between or after the positional arguments, and returns those.
func parseInterspersed(cmd *Command, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(cmd, &cmd.Flag, args); err != nil {
			return nil, err
		}
		args = cmd.Flag.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// makeOutDir creates the output directory dir (and its parents) for the
// --out flag of command name; a symbolic link to a missing directory is
// named as such (MkdirAll says only "file exists").
func makeOutDir(name, dir string) error {
	err := os.MkdirAll(dir, 0o777)
	if err == nil {
		return nil
	}
	if fi, lerr := os.Lstat(dir); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
		if target, rerr := os.Readlink(dir); rerr == nil {
			switch _, serr := os.Stat(dir); {
			case errors.Is(serr, fs.ErrNotExist):
				return usagef("%s: --out %s: a symbolic link to %s, which does not exist: create it, or give another --out", name, dir, target)
			case serr != nil: // a loop of links ("mkdir: file exists")
				return usagef("%s: --out %s: a symbolic link to %s, which does not resolve: %v", name, dir, target, errors.Unwrap(serr))
			}
		}
	}
	return usagef("%s: --out: %v", name, err)
}

// running is the name of the command that run runs (nil before), for the
// receiver of signals' words.
var running atomic.Pointer[string]

// decoregName is "decoreg NAME" for the command running, or "decoreg".
func decoregName() string {
	if n := running.Load(); n != nil && *n != "" {
		return "decoreg " + *n
	}
	return "decoreg"
}

// withoutCancelled drops Go's "context canceled" from an interrupted run's
// message, which says "interrupted" in its own words.
func withoutCancelled(msg string) string {
	return strings.ReplaceAll(msg, ": "+context.Canceled.Error(), "")
}
