//go:build unix

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"decoreg"
	"decoreg/dist"
	"decoreg/internal/modelfile"
)

// Tests of how the commands write --out (package outfile): problems P1, P7
// and P8 of issue 10.

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, e := range es {
		ns = append(ns, e.Name())
	}
	return ns
}

// predictArgs predicts small.csv with the shared mdn model.
func predictArgs(t *testing.T, out string) []string {
	return []string{"predict", "--model", sharedModel(t, "mdn"), "--data", "testdata/cli/small.csv", "--out", out}
}

// TestP1OutSymlink: --out on a symbolic link writes through it: the link
// stays a link and its target gets the predictions.
func TestP1OutSymlink(t *testing.T) {
	want, _ := mustCLI(t, predictArgs(t, "-")...)
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "links"), 0o755)
	os.Mkdir(filepath.Join(root, "data"), 0o755)
	target := filepath.Join(root, "data", "pred.csv")
	os.WriteFile(target, []byte("old\n"), 0o600)
	link := filepath.Join(root, "links", "pred.csv")
	if err := os.Symlink("../data/pred.csv", link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(root, "links", "new.csv")
	os.Symlink("../data/new.csv", dangling)
	for _, l := range []string{link, dangling} {
		mustCLI(t, predictArgs(t, l)...)
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("--out %s replaced the link", l)
		}
	}
	for _, f := range []string{target, filepath.Join(root, "data", "new.csv")} {
		if b, err := os.ReadFile(f); err != nil || string(b) != want {
			t.Errorf("%s holds %q (%v), want the predictions", f, b, err)
		}
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("target mode %v, want 0600 kept", fi.Mode())
	}
	if ns := dirNames(t, filepath.Join(root, "data")); len(ns) != 2 {
		t.Errorf("target directory holds %v", ns)
	}
}

// TestP1OutStdout: - , /dev/stdout and a link to it stream to standard
// output; nothing is created beside /dev/stdout. train --out - writes the
// model there and its summary to standard error.
func TestP1OutStdout(t *testing.T) {
	want, _ := mustCLI(t, predictArgs(t, "-")...)
	if !strings.HasPrefix(want, "row,mean,") {
		t.Fatalf("predict --out - printed %q", want)
	}
	link := filepath.Join(t.TempDir(), "out.csv")
	os.Symlink("/dev/stdout", link)
	for _, out := range []string{"/dev/stdout", link} {
		got, _ := mustCLI(t, predictArgs(t, out)...)
		if got != want {
			t.Errorf("--out %s printed %q, --out - %q", out, got, want)
		}
	}
	if fi, err := os.Lstat("/dev/stdout"); err == nil && fi.Mode().IsRegular() {
		t.Fatal("/dev/stdout was replaced by a regular file")
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Error("the link to /dev/stdout was replaced")
	}

	dir := t.TempDir()
	data := writeSynth(t, dir, "train.csv", 60, 4)
	for _, out := range []string{"-", "/dev/stdout"} {
		model, errs := mustCLI(t, append([]string{"train", "--data", data, "--out", out}, tinyArgs("pointwise")...)...)
		if _, _, err := modelfile.Decode(strings.NewReader(model)); err != nil {
			t.Errorf("train --out %s: standard output is not a model: %v", out, err)
		}
		if !strings.Contains(errs, `"stopped":"max-epochs"`) {
			t.Errorf("train --out %s: summary not on standard error: %q", out, errs)
		}
	}
	if ns := dirNames(t, dir); len(ns) != 1 {
		t.Errorf("directory holds %v", ns)
	}
}

// TestP1OutSpecialFiles: a device or a FIFO is written directly and stays
// what it was.
func TestP1OutSpecialFiles(t *testing.T) {
	want, _ := mustCLI(t, predictArgs(t, "-")...)
	mustCLI(t, predictArgs(t, os.DevNull)...)
	if fi, err := os.Lstat(os.DevNull); err != nil || fi.Mode()&fs.ModeDevice == 0 {
		t.Fatalf("%s is no longer a device", os.DevNull)
	}

	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFO:", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	code, _, errs := cli(t, predictArgs(t, fifo)...)
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced (exit %d, %s)", code, errs)
	}
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	select {
	case s := <-got:
		if s != want {
			t.Errorf("the FIFO's reader got %q", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the FIFO's reader got nothing")
	}
}

// TestP1OutReadOnly: an existing read-only file is refused (exit 2, naming
// --out), before training, and left as it was.
func TestP1OutReadOnly(t *testing.T) {
	dir := t.TempDir()
	pred := filepath.Join(dir, "pred.csv")
	model := filepath.Join(dir, "m.model")
	for _, f := range []string{pred, model} {
		if err := os.WriteFile(f, []byte("keep"), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	data := writeSynth(t, dir, "train.csv", 60, 4)
	epochs := 0
	onEpoch = func(decoreg.Progress) { epochs++ }
	defer func() { onEpoch = nil }()
	for _, args := range [][]string{
		predictArgs(t, pred),
		append([]string{"train", "--data", data, "--out", model}, tinyArgs("pointwise")...),
	} {
		code, _, errs := cli(t, args...)
		if code != 2 || !strings.Contains(errs, "--out") || !strings.Contains(errs, "read-only") {
			t.Errorf("%s: exit %d, stderr %q; want 2 naming --out and read-only", args[0], code, errs)
		}
	}
	if epochs != 0 {
		t.Errorf("train ran %d epochs before refusing --out", epochs)
	}
	for _, f := range []string{pred, model} {
		if b, _ := os.ReadFile(f); string(b) != "keep" {
			t.Errorf("%s now holds %q", f, b)
		}
	}
}

// unwritableDir returns a directory this process cannot create files in:
// a new directory with mode 0555, or, where permissions do not bind (root),
// /sys. It skips the test when there is none.
func unwritableDir(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	for _, d := range []string{dir, "/sys"} {
		f, err := os.CreateTemp(d, ".probe")
		if err != nil {
			return d
		}
		f.Close()
		os.Remove(f.Name())
	}
	t.Skip("no unwritable directory (running as root without /sys)")
	return ""
}

// TestP7UnwritableOutFoundBeforeTraining: --out in a directory that cannot
// be written is a usage error naming --out, found before training starts
// (train, demo) or before anything else (predict, sample).
func TestP7UnwritableOutFoundBeforeTraining(t *testing.T) {
	ro := unwritableDir(t)
	dir := t.TempDir()
	data := writeSynth(t, dir, "train.csv", 60, 4)
	model := filepath.Join(ro, "m.model")
	// The argument lists first: predictArgs and sharedModel train the
	// shared models when this test runs alone, epochs that are not train's.
	cases := [][]string{
		append([]string{"train", "--data", data, "--out", model, "--epochs", "1000"}, tinyArgs("pointwise")[2:]...),
		{"demo", "--quick", "--out", ro},
		predictArgs(t, filepath.Join(ro, "pred.csv")),
		{"sample", "--model", sharedModel(t, "mdn"), "--data", "testdata/cli/small.csv", "--n", "3", "--out", filepath.Join(ro, "s.csv")},
	}
	epochs := 0
	onEpoch = func(decoreg.Progress) { epochs++ }
	defer func() { onEpoch = nil }()
	for _, args := range cases {
		start := time.Now()
		code, out, errs := cli(t, args...)
		if code != 2 || !strings.Contains(errs, "--out") || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2 naming --out", args[0], code, out, errs)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s took %v to refuse --out", args[0], d)
		}
	}
	if epochs != 0 {
		t.Errorf("train ran %d epochs before finding --out unwritable", epochs)
	}
}

// TestP8SampleInterruptLeavesNoTemp: Ctrl-C (SIGINT) while sample writes
// --out FILE stops it with status 1 and leaves neither FILE nor its
// temporary file.
func TestP8SampleInterruptLeavesNoTemp(t *testing.T) {
	model := sharedModel(t, "decoder")
	// Keep SIGINT from killing the test binary whatever happens.
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, os.Interrupt)
	defer signal.Stop(guard)

	dir := t.TempDir()
	out := filepath.Join(dir, "s.csv")
	sawTemp := make(chan bool, 1)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				sawTemp <- false
				return
			default:
			}
			es, _ := os.ReadDir(dir)
			for _, e := range es {
				// Not the empty file by which the command checked --out first.
				if fi, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), ".s.csv.tmp") && fi.Size() > 0 {
					syscall.Kill(os.Getpid(), syscall.SIGINT)
					sawTemp <- true
					return
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()
	code, _, errs := cli(t, "sample", "--model", model, "--data", "testdata/cli/small.csv", "--n", "1048576", "--out", out)
	close(done)
	if !<-sawTemp {
		t.Fatalf("no temporary file seen while sampling (exit %d, %s)", code, errs)
	}
	if code != 130 || !strings.Contains(errs, "interrupted") {
		t.Errorf("exit %d, stderr %q; want 130, interrupted", code, errs)
	}
	if ns := dirNames(t, dir); len(ns) != 0 {
		t.Errorf("left behind: %v", ns)
	}
}

// TestInterruptBeforeWriting: Ctrl-C (SIGINT) while predict or eval
// computes, before anything is written, ends the command at once with
// status 130 and a message that nothing was written; --out is not created.
func TestInterruptBeforeWriting(t *testing.T) {
	model := sharedModel(t, "decoder")
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, os.Interrupt)
	defer signal.Stop(guard)
	// The hook interrupts, then holds the computation back until the test
	// ends: the command can only end by the interrupt.
	hold := make(chan struct{})
	defer close(hold)
	hook := func() {
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		<-hold
	}
	interruptHook.Store(&hook)
	defer interruptHook.Store(nil)
	dir := t.TempDir()
	out := filepath.Join(dir, "p.csv")
	code, _, errs := cli(t, "predict", "--model", model, "--data", "testdata/cli/small.csv", "--out", out)
	if code != 130 || !strings.Contains(errs, "interrupted; nothing written to "+out) {
		t.Errorf("predict: exit %d, stderr %q; want 130, interrupted", code, errs)
	}
	code, stdoutText, errs := cli(t, "eval", "--model", model, "--data", "testdata/cli/small.csv")
	if code != 130 || !strings.Contains(errs, "interrupted; nothing written") || stdoutText != "" {
		t.Errorf("eval: exit %d, stdout %q, stderr %q; want 130, interrupted, nothing", code, stdoutText, errs)
	}
	if ns := dirNames(t, dir); len(ns) != 0 {
		t.Errorf("left behind: %v", ns)
	}
}

// TestInterruptExits130: a command stopped by an interrupt before it
// finished exits with status 130, as a shell reports SIGINT, whatever its
// work (they exited 1, as a failure does, and a script could not tell
// them apart); train, which saves the best model so far, exits 0 (see
// TestTrainInterrupt), and 130 when it had none to save.
func TestInterruptExits130(t *testing.T) {
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, os.Interrupt)
	defer signal.Stop(guard)
	// The interrupt comes as soon as the command watches for one, and is
	// handled (its context cancelled) before the command goes on.
	hook := interruptHandled
	watchHook.Store(&hook)
	defer watchHook.Store(nil)
	data := t.TempDir()
	writeUCIFixture(t, data, "a", 60, 3)
	dir := t.TempDir()
	train := writeSynth(t, dir, "train.csv", 200, 7)
	for _, c := range []struct {
		args []string
		want string
	}{
		{tinyUCIArgs(data, filepath.Join(dir, "uci")), "rerun the same command to resume"},
		{[]string{"experiment", "uci", "--data", data, "--out", filepath.Join(dir, "exp"), "--datasets", "a", "--splits", "0", "--max-epochs", "2", "--enc-layers", "1", "--enc-width", "8", "--threads", "1"}, "rerun the same command to resume"},
		{[]string{"experiment", "risk", "--quick", "--out", filepath.Join(dir, "risk"), "--threads", "1"}, "rerun the same command to resume"},
		{[]string{"train", "--data", train, "--out", filepath.Join(dir, "m.model"), "--enc-width", "8", "--quiet"}, "interrupted before the first epoch ended; no model saved"},
		{[]string{"demo", "--quick", "--out", filepath.Join(dir, "demo"), "--threads", "1"}, "interrupted while training decoder; nothing written"},
	} {
		code, _, errs := cli(t, c.args...)
		if code != 130 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 130, %q", strings.Join(c.args[:2], " "), code, errs, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "m.model")); err == nil {
		t.Error("train saved a model")
	}
}

// maxWriter records the total and the largest write.
type maxWriter struct{ total, max int }

func (w *maxWriter) Write(p []byte) (int, error) {
	w.total += len(p)
	w.max = max(w.max, len(p))
	return len(p), nil
}

// TestP8SampleStreams: sample's output reaches standard output in bounded
// pieces while it is produced, instead of being held whole.
func TestP8SampleStreams(t *testing.T) {
	model := sharedModel(t, "pointwise")
	var w maxWriter
	var e bytes.Buffer
	oldOut, oldErr := stdout, errOut
	stdout, errOut = &w, &e
	code := run([]string{"sample", "--model", model, "--data", "testdata/cli/small.csv", "--n", "40000"}, &e)
	stdout, errOut = oldOut, oldErr
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	if w.total < 4<<20 || w.max > 256<<10 {
		t.Errorf("%d bytes written with writes up to %d bytes; want > 4 MiB in writes of at most 256 KiB", w.total, w.max)
	}
}

// chunkSpy is a Distribution whose Sample records the largest n asked.
type chunkSpy struct {
	dist.Distribution
	calls, max, total int
}

func (c *chunkSpy) Sample(n int, _ dist.SampleOptions, _ *rand.Rand) []float64 {
	c.calls++
	c.max = max(c.max, n)
	c.total += n
	return make([]float64, n)
}

// TestP8SampleChunks: a row's draws are asked of the distribution at most
// sampleChunk at a time, so that what sampling holds (a decoder's batch
// and key/value cache) does not grow with --n.
func TestP8SampleChunks(t *testing.T) {
	spies := []*chunkSpy{{}, {}}
	ds := []dist.Distribution{spies[0], spies[1]}
	n := 3*sampleChunk + 5
	var w maxWriter
	if err := writeSamples(&w, len(ds), func(lo, hi int) ([]dist.Distribution, error) { return ds[lo:hi], nil }, []int{4, 7}, nil, n, dist.SampleOptions{}, 1); err != nil {
		t.Fatal(err)
	}
	for i, s := range spies {
		if s.total != n || s.max > sampleChunk || s.calls != 4 {
			t.Errorf("row %d: %d draws in %d calls of up to %d; want %d in 4 of up to %d", i, s.total, s.calls, s.max, n, sampleChunk)
		}
	}
	if w.max > 128<<10 {
		t.Errorf("a write of %d bytes", w.max)
	}
}

// spoolSignal runs "train --data -" as a child process, sends it s while
// it is still copying standard input (no handler of the command's own
// yet), and returns its exit code, its standard error and the copies of
// standard input left in its temporary directory. env is added to the
// child's environment.
func spoolSignal(t *testing.T, s syscall.Signal, env ...string) (code int, stderr string, left []string) {
	t.Helper()
	tmp := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$", "--", "train", "--data", "-", "--head", "mdn", "--epochs", "1", "--quiet", "--out", filepath.Join(tmp, "m.model"))
	cmd.Env = append(append(os.Environ(), "DECOREG_TEST_CHILD=1", "TMPDIR="+tmp), env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errs strings.Builder
	cmd.Stderr = &errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(in, "a,b,y\n1,2,3\n4,5,6\n") // and keep standard input open
	spooled := func() []string { m, _ := filepath.Glob(filepath.Join(tmp, "decoreg-stdin-*")); return m }
	for end := time.Now().Add(10 * time.Second); !spooling(cmd.Process.Pid, tmp); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%v: no spool appeared: %s", s, errs.String())
		}
	}
	time.Sleep(20 * time.Millisecond) // the copy is under way
	cmd.Process.Signal(s)
	watchdog := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() }) // a regression fails, not hangs
	err = cmd.Wait()
	watchdog.Stop()
	in.Close()
	code = -1
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal()) // as a shell reports it
		}
	} else if err == nil {
		code = 0
	}
	return code, errs.String(), spooled()
}

// TestStdinSpoolSignals: a signal while "--data -" is still copying
// standard input (no handler of the command's own yet) removes the copy
// and ends by the signal, for SIGTERM, SIGINT and SIGHUP; it was left in
// the temporary directory. The command runs as a child process.
func TestStdinSpoolSignals(t *testing.T) {
	for _, s := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		code, errs, left := spoolSignal(t, s)
		if code != 128+int(s) || !strings.Contains(errs, "decoreg train: interrupted") { // it said nothing (review)
			t.Errorf("%v: status %d, want %d (killed by it) and a word: %q", s, code, 128+int(s), errs)
		}
		if len(left) > 0 {
			t.Errorf("%v: the copy of standard input was left: %v", s, left)
		}
	}
}

// TestStdinSpoolSIGQUIT: SIGQUIT while "--data -" is still copying
// standard input removes the copy, which it left in the temporary
// directory, and still ends as Go's SIGQUIT does: every goroutine's stack
// on standard error (the copy's among them) and exit status 2. The
// command runs as a child process.
func TestStdinSpoolSIGQUIT(t *testing.T) {
	code, errs, left := spoolSignal(t, syscall.SIGQUIT, "GOTRACEBACK=")
	if code != 2 {
		t.Errorf("exit %d, want 2: %s", code, errs)
	}
	if !strings.Contains(errs, "SIGQUIT") || !strings.Contains(errs, ".dataFile(") {
		t.Errorf("no stack dump with the copy's goroutine:\n%s", errs)
	}
	if len(left) > 0 {
		t.Errorf("the copy of standard input was left: %v", left)
	}
}

// TestOutputSIGQUIT: SIGQUIT while sample writes --out FILE removes the
// temporary file, which it left behind, and still ends as Go's SIGQUIT
// does (every goroutine's stack on standard error, exit status 2); FILE,
// which existed, is left as it was. The command runs as a child process.
func TestOutputSIGQUIT(t *testing.T) {
	model := sharedModel(t, "decoder")
	data, err := filepath.Abs("testdata/cli/small.csv")
	if err != nil {
		t.Fatal(err)
	}
	dir, tmp := t.TempDir(), t.TempDir()
	out := filepath.Join(dir, "s.csv")
	if err := os.WriteFile(out, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$", "--", "sample", "--model", model, "--data", data, "--n", "1048576", "--out", out)
	cmd.Env = append(os.Environ(), "DECOREG_TEST_CHILD=1", "TMPDIR="+tmp, "GOTRACEBACK=")
	var errs strings.Builder
	cmd.Stderr = &errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	watchdog := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() }) // a regression fails, not hangs
	defer watchdog.Stop()
	writing := func() bool {
		es, _ := os.ReadDir(dir)
		for _, e := range es {
			if fi, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), ".s.csv.tmp") && fi.Size() > 0 {
				return true
			}
		}
		return false
	}
	for end := time.Now().Add(20 * time.Second); !writing(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no temporary file being written: %s", errs.String())
		}
	}
	cmd.Process.Signal(syscall.SIGQUIT)
	err = cmd.Wait()
	code := -1
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	if code != 2 || !strings.Contains(errs.String(), "SIGQUIT") {
		t.Errorf("exit %d, want 2 with the stack dump: %.2000s", code, errs.String())
	}
	if ns := dirNames(t, dir); len(ns) != 1 || ns[0] != "s.csv" {
		t.Errorf("left in the output directory: %v", ns)
	}
	if b, _ := os.ReadFile(out); string(b) != "before\n" {
		t.Errorf("the existing --out was changed: %.100q", b)
	}
}

// TestStdinSpoolBrokenPipe: "predict --data - --out -" whose reader
// closes standard output early (as head does) ends by SIGPIPE, as before,
// but removes its copy of standard input, which it left in the temporary
// directory; so do sample and --out /dev/stdout. The command runs as a
// child process.
func TestStdinSpoolBrokenPipe(t *testing.T) {
	model := sharedModel(t, "pointwise")
	var data strings.Builder
	data.WriteString("x0,x1,y\n")
	for i := range 20000 {
		fmt.Fprintf(&data, "%d,%d,%d\n", i%7, i%11, i%13)
	}
	for _, args := range [][]string{
		{"predict", "--model", model, "--data", "-", "--out", "-"},
		{"predict", "--model", model, "--data", "-", "--out", "/dev/stdout"},
		{"sample", "--model", model, "--data", "-", "--out", "-", "--n", "20"},
	} {
		tmp := t.TempDir()
		cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
		cmd.Env = append(os.Environ(), "DECOREG_TEST_CHILD=1", "TMPDIR="+tmp)
		cmd.Stdin = strings.NewReader(data.String())
		var errs strings.Builder
		cmd.Stderr = &errs
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		watchdog := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() }) // a regression fails, not hangs
		line, err := bufio.NewReader(out).ReadString('\n')
		out.Close() // the reader has read enough
		werr := cmd.Wait()
		watchdog.Stop()
		if err != nil || !strings.Contains(line, ",") {
			t.Errorf("%v: first line %q, %v", args, line, err)
		}
		var ee *exec.ExitError
		if !errors.As(werr, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGPIPE {
			t.Errorf("%v: %v, want an end by SIGPIPE: %s", args, werr, errs.String())
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "decoreg-*")); len(left) > 0 {
			t.Errorf("%v: the copy of standard input was left: %v", args, left)
		}
	}
}

// TestOutDirMessages: an --out that is a link to a missing directory, and
// an experiment's journal that is a directory, are refused naming what is
// wrong (MkdirAll said "file exists"; the journal was not named).
func TestOutDirMessages(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link")
	os.Symlink(filepath.Join(dir, "missing", "x"), link)
	for _, args := range [][]string{{"experiment", "risk", "--quick"}, {"demo"}, {"bench", "uci"}} {
		code, _, errs := cli(t, append(args, "--out", link)...)
		if code != 2 || !strings.Contains(errs, "a symbolic link to") || !strings.Contains(errs, "does not exist") {
			t.Errorf("%v --out a dangling link: exit %d, %q", args, code, errs)
		}
	}
	out := filepath.Join(dir, "exp")
	os.MkdirAll(filepath.Join(out, "results.jsonl"), 0o755)
	if code, _, errs := cli(t, "experiment", "risk", "--quick", "--out", out); code != 2 || !strings.Contains(errs, "results.jsonl") {
		t.Errorf("a journal that is a directory: exit %d, %q", code, errs)
	}
}

// TestTrainStdinInterruptSaves: one SIGINT while train --data - trains
// stops it at its best epoch and saves the model (a receiver of signals
// for the spool of standard input once raced with train's own handler and
// exited without saving, most of the time).
func TestTrainStdinInterruptSaves(t *testing.T) {
	for try := range 3 {
		tmp, model, errs := trainChildSignalled(t, 3, syscall.SIGINT)
		if _, err := os.Stat(model); err != nil || !strings.Contains(errs, "interrupted: saved") {
			t.Fatalf("try %d: one SIGINT: model %v; stderr:\n%s", try, err, errs)
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "decoreg-stdin-*")); len(left) > 0 {
			t.Errorf("try %d: the copy of standard input was left: %v", try, left)
		}
	}
}

// trainChildSignalled runs train on 20,000 rows (drawn with seed) from
// standard input in a child process, sends it sigs at once after its first
// epoch, and returns its temporary directory, its model's path there and
// its standard error once it has ended.
func trainChildSignalled(t *testing.T, seed uint64, sigs ...syscall.Signal) (tmp, model, errs string) {
	t.Helper()
	var data strings.Builder
	data.WriteString("a,b,y\n")
	r := rand.New(rand.NewPCG(seed, seed+1))
	for range 20000 {
		a, b := r.Float64(), r.Float64()
		fmt.Fprintf(&data, "%g,%g,%g\n", a, b, a*b+0.1*r.NormFloat64())
	}
	tmp = t.TempDir()
	model = filepath.Join(tmp, "m.model")
	cmd, sc := startTrainChild(t, "", tmp, model, data.String())
	var e strings.Builder
	signalled := false
	for sc.Scan() {
		e.WriteString(sc.Text() + "\n")
		if !signalled && strings.Contains(sc.Text(), "epoch") {
			for _, s := range sigs {
				cmd.Process.Signal(s)
			}
			signalled = true
		}
	}
	watchdog := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() })
	cmd.Wait()
	watchdog.Stop()
	return tmp, model, e.String()
}

// TestNohupKeepsRunning: under nohup (SIGHUP ignored from the start), a
// SIGHUP does not interrupt a command: a handler for it would undo the
// ignoring; SIGINT still does.
func TestNohupKeepsRunning(t *testing.T) {
	nohup, err := exec.LookPath("nohup")
	if err != nil {
		t.Skip("no nohup")
	}
	var data strings.Builder
	data.WriteString("a,y\n")
	for i := range 20000 {
		fmt.Fprintf(&data, "%d,%d\n", i%97, i%89)
	}
	tmp := t.TempDir()
	cmd, sc := startTrainChild(t, nohup, tmp, filepath.Join(tmp, "m.model"), data.String())
	watchdog := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer watchdog.Stop()
	var errs strings.Builder
	epochs, hupAt := 0, 0
	for sc.Scan() {
		errs.WriteString(sc.Text() + "\n")
		if !strings.Contains(sc.Text(), "epoch") {
			continue
		}
		epochs++
		switch {
		case hupAt == 0:
			cmd.Process.Signal(syscall.SIGHUP)
			hupAt = epochs
		case epochs == hupAt+3: // three more epochs after the SIGHUP
			cmd.Process.Signal(syscall.SIGINT)
		}
	}
	cmd.Wait()
	if epochs < hupAt+3 || !strings.Contains(errs.String(), "interrupted: saved") {
		t.Errorf("SIGHUP at epoch %d, %d epochs in all; stderr:\n%s", hupAt, epochs, errs.String())
	}
}

// startTrainChild starts this test binary as decoreg (see TestMain) running
// a long train --data - of data into model, with TMPDIR tmp, through the
// launcher (such as nohup) when not "", and returns it with a scanner of
// its standard error (one line per epoch).
func startTrainChild(t *testing.T, launcher, tmp, model, data string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	args := []string{os.Args[0], "-test.run=^$", "--", "train", "--data", "-", "--head", "mdn", "--epochs", "1000",
		"--patience", "1000", "--threads", "1", "--out", model}
	if launcher != "" {
		args = append([]string{launcher}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), "DECOREG_TEST_CHILD=1", "TMPDIR="+tmp)
	cmd.Dir = tmp
	cmd.Stdin = strings.NewReader(data)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewScanner(stderr)
}

// TestStdoutIsAnInput: --out - with standard output redirected onto an
// input file (a shell's >> onto --data) is refused: the output was
// appended to the input. Standard output elsewhere is not.
func TestStdoutIsAnInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("x,y\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	defer func() { os.Stdout = saved }()
	f, err := os.OpenFile(in, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	os.Stdout = f
	err = notAnInput("predict", "out", "-", [2]string{"model", filepath.Join(dir, "m.model")}, [2]string{"data", in})
	if err == nil || !strings.Contains(err.Error(), "--out - writes to standard output, which is the file of --data") {
		t.Errorf("stdout appending to --data: %v", err)
	}
	if err := notAnInput("eval", "", "-", [2]string{"data", in}); err == nil || !strings.Contains(err.Error(), "standard output, where eval writes, is the file of --data") {
		t.Errorf("eval's JSON appending to --data: %v", err)
	}
	// --data - with standard input and output the same file (< f >> f).
	savedIn := os.Stdin
	defer func() { os.Stdin = savedIn }()
	fin, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer fin.Close()
	os.Stdin = fin
	if err := notAnInput("eval", "", "-", [2]string{"data", "-"}); err == nil || !strings.Contains(err.Error(), "is the file of standard input (--data -)") {
		t.Errorf("stdin and stdout one file: %v", err)
	}
	// --out naming standard input's file (or /dev/stdout appending to it).
	if err := notAnInput("predict", "out", in, [2]string{"data", "-"}); err == nil || !strings.Contains(err.Error(), "--out "+in+" is the file of standard input") {
		t.Errorf("--out the file of --data -: %v", err)
	}
	other, err := os.Create(filepath.Join(dir, "out.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	os.Stdout = other
	if err := notAnInput("predict", "out", "-", [2]string{"data", in}); err != nil {
		t.Errorf("stdout to another file: %v", err)
	}
	if err := notAnInput("predict", "out", "-", [2]string{"data", "-"}); err != nil {
		t.Errorf("stdin to another file: %v", err)
	}
}

// TestBenchServeInterruptWarmup: an interrupt during bench serve's warm-up
// ends it with status 130 (with no request answered, its percentiles read
// an empty list of latencies and panicked: review).
func TestBenchServeInterruptWarmup(t *testing.T) {
	model := sharedModel(t, "mdn")
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, os.Interrupt)
	defer signal.Stop(guard)
	var once sync.Once
	hook := func(u string) string {
		once.Do(func() { // the first warm-up request
			n := signalsHandled.Load()
			syscall.Kill(os.Getpid(), syscall.SIGINT)
			for signalsHandled.Load() == n {
				time.Sleep(time.Millisecond)
			}
		})
		return u
	}
	benchServeURLHook.Store(&hook)
	defer benchServeURLHook.Store(nil)
	code, out, errs := cli(t, "bench", "serve", "--model", model, "--clients", "1", "--rows", "1", "--requests", "5", "--warmup", "3", "--batching", "on")
	if code != 130 || !strings.Contains(errs, "bench serve: interrupted") || out != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 130, interrupted, nothing printed", code, out, errs)
	}
}

// TestTrainInterruptWhileWriting: a first interrupt once training has
// ended, while the model is being written, finishes the write and says
// so; the summary says "interrupted" (it abandoned the write and threw the
// trained model away, helper-117).
func TestTrainInterruptWhileWriting(t *testing.T) {
	dir := t.TempDir()
	train := writeSynth(t, dir, "train.csv", 200, 7)
	model := filepath.Join(dir, "m.model")
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, os.Interrupt)
	defer signal.Stop(guard)
	var trained atomic.Bool
	onEpoch = func(p decoreg.Progress) {
		if p.Epoch == 2 {
			trained.Store(true)
		}
	}
	defer func() { onEpoch = nil }()
	// The interrupt comes when the write watches for one, and is handled
	// before the write goes on.
	hook := func() {
		if trained.Load() {
			interruptHandled()
		}
	}
	watchHook.Store(&hook)
	defer watchHook.Store(nil)
	args := append([]string{"train", "--data", train, "--out", model}, tinyArgs("decoder")...)
	code, out, errs := cli(t, append(args, "--epochs", "2", "--patience", "100")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "interrupted while writing the trained model: finishing the write to "+model) {
		t.Errorf("stderr %q", errs)
	}
	if s := summary(t, out); s["stopped"] != "max-epochs" || s["interrupted"] != true {
		t.Errorf("summary %v", s)
	}
	if m, err := decoreg.Load(model); err != nil || m.Info().Epochs != 2 {
		t.Errorf("the saved model: %v", err)
	}
}

// TestTrainSecondInterruptAbandonsWrite: an interrupt during training and
// another while the model is written abandon the write (the write counted
// its own first and finished it: a double Ctrl-C replaced the model,
// helper-125); an existing model is left as it was.
func TestTrainSecondInterruptAbandonsWrite(t *testing.T) {
	dir := t.TempDir()
	train := writeSynth(t, dir, "train.csv", 200, 7)
	model := filepath.Join(dir, "m.model")
	if err := os.WriteFile(model, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, os.Interrupt)
	defer signal.Stop(guard)
	var first atomic.Bool
	onEpoch = func(p decoreg.Progress) {
		if p.Epoch == 2 && !first.Load() {
			first.Store(true)
			interruptHandled()
		}
	}
	defer func() { onEpoch = nil }()
	hook := func() {
		if first.Load() {
			interruptHandled()
		}
	}
	watchHook.Store(&hook)
	defer watchHook.Store(nil)
	args := append([]string{"train", "--data", train, "--out", model}, tinyArgs("decoder")...)
	code, _, errs := cli(t, append(args, "--epochs", "50", "--patience", "100")...)
	if code != 130 || !strings.Contains(errs, "interrupted; nothing written to "+model) {
		t.Errorf("exit %d, stderr %q; want 130, nothing written", code, errs)
	}
	if b, _ := os.ReadFile(model); string(b) != "old" {
		t.Errorf("the old model was replaced")
	}
	if ns := dirNames(t, dir); len(ns) != 2 {
		t.Errorf("left: %v", ns)
	}
}

// interruptHandled sends this process SIGINT and waits until a handler
// has taken it.
func interruptHandled() {
	n := signalsHandled.Load()
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	for end := time.Now().Add(10 * time.Second); signalsHandled.Load() == n && time.Now().Before(end); {
		time.Sleep(time.Millisecond)
	}
}

// TestInterruptEcho: the same interrupt twice within microseconds, as GNU
// timeout sends it (to the command, then to its process group), is one
// interrupt: train stops at its best epoch and saves the model. The echo
// abandoned the write, or stopped the command at once, at random.
func TestInterruptEcho(t *testing.T) {
	for try := range 3 {
		_, model, errs := trainChildSignalled(t, 5, syscall.SIGINT, syscall.SIGINT)
		if _, err := os.Stat(model); err != nil || !strings.Contains(errs, "interrupted: saved") {
			t.Fatalf("try %d: SIGINT and its echo: model %v; stderr:\n%s", try, err, errs)
		}
	}
}

// TestStdinNamedInNotices: the notices a command writes while it reads a
// piped input name it as <stdin>, not by its copy's path (a warning said
// /proc/self/fd/8).
func TestStdinNamedInNotices(t *testing.T) {
	old := stdin
	defer func() { stdin = old }()
	stdin = strings.NewReader("x,y,logpdf\n1,2,3\n2,3,4\n3,1,2\n4,2,2\n")
	_, errs := mustCLI(t, "train", "--data", "-", "--head", "mdn", "--epochs", "1", "--quiet", "--out", filepath.Join(t.TempDir(), "m.model"))
	if !strings.Contains(errs, "warning: <stdin>: the target is the last column") || strings.Contains(errs, "/proc/self") || strings.Contains(errs, "decoreg-stdin-") {
		t.Errorf("stderr %q", errs)
	}
}

// TestSecondSignalLeavesNoTemp: SIGINT then SIGTERM at once during
// training ends the process by the second, and the model's temporary
// file, made while the first still stopped the training, is not left
// behind (it was, every time: the process died after making it).
func TestSecondSignalLeavesNoTemp(t *testing.T) {
	for try := range 3 {
		tmp, _, errs := trainChildSignalled(t, 7, syscall.SIGINT, syscall.SIGTERM)
		if left, _ := filepath.Glob(filepath.Join(tmp, ".m.model.tmp*")); len(left) > 0 {
			t.Fatalf("try %d: left %v; stderr:\n%s", try, left, errs)
		}
	}
}

// TestEchoByArrival: an echo is told by when it arrived, not by when the
// dispatcher took it: with a first handler that takes 500 ms, the same
// signal right after the first is its echo, and ones 250 and 400 ms after
// it (Ctrl-C by hand, while the handler still runs) are a second and a
// third. Stamped when taken, the echo counted and the others did not (2),
// or, stamped after the handler, none of the three (1).
func TestEchoByArrival(t *testing.T) {
	old := signalEcho
	signalEcho = defaultSignalEcho
	defer func() { signalEcho = old }()
	var mu sync.Mutex
	var handled int
	h := &sigHandler{on: func(os.Signal) {
		mu.Lock()
		handled++
		n := handled
		mu.Unlock()
		if n == 1 {
			time.Sleep(500 * time.Millisecond)
		}
	}}
	signals.mu.Lock()
	signals.handlers = append(signals.handlers, h)
	signals.mu.Unlock()
	defer func() {
		signals.mu.Lock()
		signals.handlers = slices.DeleteFunc(signals.handlers, func(x *sigHandler) bool { return x == h })
		signals.mu.Unlock()
	}()
	ch := make(chan os.Signal, 8)
	done := make(chan struct{})
	go func() { dispatchSignals(stampSignals(ch)); close(done) }()
	ch <- os.Interrupt
	ch <- os.Interrupt // the echo
	time.Sleep(250 * time.Millisecond)
	ch <- os.Interrupt // a second, while the first handler runs
	time.Sleep(150 * time.Millisecond)
	ch <- os.Interrupt // a third
	close(ch)
	<-done
	if handled != 3 {
		t.Errorf("%d signals handled, want 3 (all but the echo)", handled)
	}
}

// TestInterruptAtLastWrite: an interrupt that comes once the output's
// last bytes are handed over, while they are written (to a pipe, a FIFO
// whose reader lags), stops the command with a word, the output written
// whole: it ended with status 0, the signal lost (helper-146).
func TestInterruptAtLastWrite(t *testing.T) {
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, os.Interrupt)
	defer signal.Stop(guard)
	path := filepath.Join(t.TempDir(), "out.csv")
	for _, out := range []string{"-", path} {
		old := stdout
		var buf strings.Builder
		stdout = &buf
		err := writeOutput("predict", "out", out, func(w io.Writer) error {
			if _, err := io.WriteString(w, "row,mean\n0,1\n"); err != nil {
				return err
			}
			n := signalsHandled.Load()
			syscall.Kill(os.Getpid(), syscall.SIGINT)
			for signalsHandled.Load() == n {
				time.Sleep(time.Millisecond)
			}
			return nil
		})
		stdout = old
		var ie interruptedError
		if out != "-" {
			// A file is written whole or not at all: not committed.
			if _, serr := os.Stat(path); !errors.As(err, &ie) || !strings.Contains(err.Error(), "interrupted; nothing written to") || serr == nil {
				t.Errorf("%s: %v (%v)", out, err, serr)
			}
			continue
		}
		if !errors.As(err, &ie) || err.Error() != "predict: interrupted while the last of the output was written; the standard output is written whole" || buf.String() != "row,mean\n0,1\n" {
			t.Errorf("%s: %v; written %q", out, err, buf.String())
		}
	}
}

// TestSignalToStoppedHandler: a signal the dispatcher took for a handler
// that was stopped before it ran goes to the next handler (it ran the
// stopped one, whose command had finished, and the signal went unheard:
// helper-148).
func TestSignalToStoppedHandler(t *testing.T) {
	var got []string
	var mu sync.Mutex
	mk := func(name string) *sigHandler {
		return &sigHandler{on: func(os.Signal) { mu.Lock(); got = append(got, name); mu.Unlock() }}
	}
	below, top := mk("below"), mk("top")
	signals.mu.Lock()
	signals.handlers = append(signals.handlers, below, top)
	signals.mu.Unlock()
	defer func() {
		signals.mu.Lock()
		signals.handlers = slices.DeleteFunc(signals.handlers, func(x *sigHandler) bool { return x == below || x == top })
		signals.mu.Unlock()
	}()
	top.mu.Lock() // the dispatcher takes top and waits for it
	ch := make(chan os.Signal, 1)
	done := make(chan struct{})
	go func() { dispatchSignals(stampSignals(ch)); close(done) }()
	ch <- os.Interrupt
	time.Sleep(100 * time.Millisecond)
	// top stops, as its stop does: off the list, then marked.
	signals.mu.Lock()
	signals.handlers = slices.DeleteFunc(signals.handlers, func(x *sigHandler) bool { return x == top })
	signals.mu.Unlock()
	top.removed = true
	top.mu.Unlock()
	close(ch)
	<-done
	if strings.Join(got, ",") != "below" {
		t.Errorf("handled by %q, want below", got)
	}
}
