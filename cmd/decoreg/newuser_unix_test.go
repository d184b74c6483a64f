//go:build unix

package main

import (
	"bufio"
	"context"
	"decoreg/internal/experiments"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// childDecoreg returns this test binary as a decoreg command (see
// TestMain) running args, with TMPDIR tmp, killed after a minute (a
// regression fails, not hangs).
func childDecoreg(t *testing.T, tmp string, args ...string) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), "DECOREG_TEST_CHILD=1", "TMPDIR="+tmp)
	return cmd
}

// killedBy reports whether err, a child's Wait, says it was killed by s:
// a command stopped by an interrupt ends by the signal, after its
// cleanup, so that a shell loop stops there (it exited 130, after which
// bash goes on: review).
func killedBy(err error, s syscall.Signal) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == s
}

// spools lists the copies of --data inputs in tmp.
func spools(tmp string) []string {
	m, _ := filepath.Glob(filepath.Join(tmp, "decoreg-*"))
	return m
}

// spooling reports whether process pid has a copy of a --data input in
// tmp: a file there, or one it holds open (on Linux the copy has no name
// in the directory, or it is removed from it at once, and is held by its
// descriptors).
func spooling(pid int, tmp string) bool {
	if len(spools(tmp)) > 0 {
		return true
	}
	return heldSpool(pid, tmp) != ""
}

// heldSpool is the target of the link in /proc/PID/fd of a copy of a
// --data input in tmp that process pid holds open: "TMP/#INODE (deleted)"
// for a file made without a name (O_TMPFILE), "TMP/decoreg-... (deleted)"
// for one removed from the directory, "TMP/decoreg-..." for one still in
// it; "" if it holds none.
func heldSpool(pid int, tmp string) string {
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && (strings.HasPrefix(l, filepath.Join(tmp, "decoreg-")) || strings.HasPrefix(l, filepath.Join(tmp, "#"))) {
			return l
		}
	}
	return ""
}

// feedFIFO writes body to the FIFO path once a reader opens it, in the
// background.
func feedFIFO(path, body string) {
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		io.WriteString(f, body)
		f.Close()
	}()
}

// TestNU1DataFIFO: a --data that is a FIFO is read once and kept, as
// standard input is, for train, eval, predict and sample: it was opened
// twice (its header, then its rows), and the second open waited for a
// writer forever. Messages name the FIFO; no copy is left.
func TestNU1DataFIFO(t *testing.T) {
	dir, tmp := t.TempDir(), t.TempDir()
	data := writeSynth(t, dir, "d.csv", 60, 2)
	body := mustRead(t, data)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	model := filepath.Join(dir, "m.model")
	run := func(body string, args ...string) (string, string, error) {
		t.Helper()
		feedFIFO(fifo, body)
		cmd := childDecoreg(t, tmp, args...)
		var out, errs strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errs
		err := cmd.Run()
		return out.String(), errs.String(), err
	}
	if _, errs, err := run(body, append([]string{"train", "--data", fifo, "--out", model}, tinyArgs("mdn")...)...); err != nil {
		t.Fatalf("train --data FIFO: %v: %s", err, errs)
	}
	wantEval, _ := mustCLI(t, "eval", "--model", model, "--data", data)
	if out, errs, err := run(body, "eval", "--model", model, "--data", fifo); err != nil || out != wantEval {
		t.Errorf("eval --data FIFO: %v: %q, want %q; %s", err, out, wantEval, errs)
	}
	wantPred, _ := mustCLI(t, "predict", "--model", model, "--data", data, "--out", "-")
	if out, errs, err := run(body, "predict", "--model", model, "--data", fifo, "--out", "-"); err != nil || out != wantPred {
		t.Errorf("predict --data FIFO: %v; %s", err, errs)
	}
	if out, errs, err := run(body, "sample", "--model", model, "--data", fifo, "--n", "2"); err != nil || strings.Count(out, "\n") != 61 {
		t.Errorf("sample --data FIFO: %v, %d lines; %s", err, strings.Count(out, "\n"), errs)
	}
	_, errs, err := run("x0,x1,y\n1,oops,2\n", "eval", "--model", model, "--data", fifo)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(errs, fifo+": line 2, column 2") {
		t.Errorf("eval of a bad FIFO: %v: %q", err, errs)
	}
	if left := spools(tmp); len(left) > 0 {
		t.Errorf("copies left: %v", left)
	}
}

// TestNU1DataPipeFD: a --data /dev/fd/N naming a pipe (a shell's
// <(...)) is read once and kept; the second open read nothing ("empty
// file") or the rest of the rows.
func TestNU1DataPipeFD(t *testing.T) {
	if _, err := os.Stat("/dev/fd/0"); err != nil {
		t.Skip("no /dev/fd")
	}
	dir, tmp := t.TempDir(), t.TempDir()
	data := writeSynth(t, dir, "d.csv", 60, 3)
	body := mustRead(t, data)
	model := filepath.Join(dir, "m.model")
	mustCLI(t, append([]string{"train", "--data", data, "--out", model}, tinyArgs("pointwise")...)...)
	wantEval, _ := mustCLI(t, "eval", "--model", model, "--data", data)
	for _, c := range []struct {
		body, want string
		code       int
	}{{body, wantEval, 0}, {"x0,x1,y\n1,oops,2\n", "/dev/fd/3: line 2, column 2", 2}} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd := childDecoreg(t, tmp, "eval", "--model", model, "--data", "/dev/fd/3")
		cmd.ExtraFiles = []*os.File{r} // fd 3
		var out, errs strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r.Close()
		io.WriteString(w, c.body)
		w.Close()
		err = cmd.Wait()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		if c.code == 0 && (err != nil || out.String() != c.want) {
			t.Errorf("eval --data /dev/fd/3: %v: %q, want %q; %s", err, out.String(), c.want, errs.String())
		}
		if c.code != 0 && (code != c.code || !strings.Contains(errs.String(), c.want)) {
			t.Errorf("eval --data /dev/fd/3 of bad rows: exit %d: %q, want %q", code, errs.String(), c.want)
		}
	}
	if left := spools(tmp); len(left) > 0 {
		t.Errorf("copies left: %v", left)
	}
}

// TestNU1FIFOSignals: a signal while --data FIFO waits for a writer, or
// while its copy is made, exits 130 and leaves no copy (as
// TestStdinSpoolSignals for --data -).
func TestNU1FIFOSignals(t *testing.T) {
	for _, s := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		for _, write := range []bool{false, true} {
			dir, tmp := t.TempDir(), t.TempDir()
			fifo := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			cmd := childDecoreg(t, tmp, "train", "--data", fifo, "--head", "mdn", "--epochs", "1", "--quiet", "--out", filepath.Join(dir, "m.model"))
			var errs strings.Builder
			cmd.Stderr = &errs
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if write {
				// Write a part and keep the FIFO open: the copy is under way.
				w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				io.WriteString(w, "a,b,y\n1,2,3\n4,5,6\n")
				for end := time.Now().Add(10 * time.Second); !spooling(cmd.Process.Pid, tmp); time.Sleep(5 * time.Millisecond) {
					if time.Now().After(end) {
						t.Fatalf("%v: no copy appeared: %s", s, errs.String())
					}
				}
			}
			if write {
				time.Sleep(50 * time.Millisecond) // the copy waits for more
			} else {
				waitOnFIFOOpen(t, cmd.Process.Pid) // the child starts, and waits on the open
			}
			cmd.Process.Signal(s)
			if err := cmd.Wait(); !killedBy(err, s) {
				t.Errorf("%v (written %v): %v, want killed by the signal: %s", s, write, err, errs.String())
			}
			if left := spools(tmp); len(left) > 0 {
				t.Errorf("%v (written %v): the copy was left: %v", s, write, left)
			}
		}
	}
}

// waitOnFIFOOpen waits until process pid blocks opening a FIFO for
// reading: on Linux, until one of its threads' wchan is the kernel's wait
// for a FIFO's writer (up to 20 s, then the test fails); where /proc is
// missing or hides the wait channels ("0"), one second.
func waitOnFIFOOpen(t *testing.T, pid int) {
	t.Helper()
	tasks := fmt.Sprintf("/proc/%d/task", pid)
	if _, err := os.Stat(tasks); err != nil {
		time.Sleep(time.Second)
		return
	}
	start, shown := time.Now(), false
	for time.Since(start) < 20*time.Second {
		ents, _ := os.ReadDir(tasks)
		for _, e := range ents {
			w, err := os.ReadFile(filepath.Join(tasks, e.Name(), "wchan"))
			if err != nil {
				continue
			}
			ws := strings.TrimSpace(string(w))
			if strings.Contains(ws, "wait_for_partner") || strings.Contains(ws, "fifo") {
				return
			}
			shown = shown || ws != "" && ws != "0"
		}
		if !shown && time.Since(start) > time.Second {
			return // wait channels hidden: as long as the child needs to start
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("process %d never waited on the FIFO's open", pid)
}

// TestNU1DataDevice: a device as --data (endless, or not a table) is
// refused before anything is copied; a failed write of the copy names the
// temporary directory, not the input.
func TestNU1DataDevice(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.model")
	wantUsage(t, append([]string{"train", "--data", "/dev/zero", "--out", model}, tinyArgs("pointwise")...), "--data /dev/zero: a device")
	if _, err := os.Stat(model); err == nil {
		t.Error("a model was written")
	}
	// The copy's directory is not writable: a write error of the copy.
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o500); err != nil {
		t.Fatal(err)
	}
	if f, err := os.CreateTemp(ro, "probe"); err == nil { // root writes anyway
		f.Close()
		os.Remove(f.Name())
		t.Skip("running as root: a read-only directory is writable")
	}
	t.Setenv("TMPDIR", ro)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() { io.WriteString(w, "a,y\n1,2\n3,4\n"); w.Close() }()
	old := stdin
	stdin = r
	defer func() { stdin = old }()
	code, _, errs := cli(t, append([]string{"train", "--data", "-", "--out", model}, tinyArgs("pointwise")...)...)
	if code == 0 || !strings.Contains(errs, "--data -") || strings.Contains(errs, "decoreg-stdin") {
		t.Errorf("exit %d, %q", code, errs)
	}
}

// TestNU1ReadOnce: one FIFO as --data and --test-mask, or as --data and
// --out, and standard input as --test-mask, are refused before anything
// is opened (they blocked forever, or read an empty input).
func TestNU1ReadOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	model := filepath.Join(dir, "m.model")
	wantUsage(t, append([]string{"train", "--data", fifo, "--test-mask", fifo, "--split", "0", "--out", model}, tinyArgs("pointwise")...), "the same pipe or FIFO")
	wantUsage(t, append([]string{"train", "--data", "-", "--test-mask", "-", "--split", "0", "--out", model}, tinyArgs("pointwise")...), "--test-mask -")
	p := writeTable(t, dir, "d.csv", "a,y", 30, func(i int) string { return fmt.Sprintf("%d,%d", i, 2*i) })
	mustCLI(t, append([]string{"train", "--data", p, "--out", model}, tinyArgs("pointwise")...)...)
	wantUsage(t, []string{"predict", "--model", model, "--data", fifo, "--out", fifo}, "the same FIFO")
	wantUsage(t, []string{"eval", "--model", model, "--data", fifo, "--test-mask", fifo, "--split", "0"}, "the same pipe or FIFO")
	// --data - with --test-mask /dev/stdin: the mask read the data ("bad
	// mask header"). Refused whether standard input is a pipe or a file.
	for _, in := range []string{"pipe", "file"} {
		cmd := childDecoreg(t, dir, "predict", "--model", model, "--data", "-", "--test-mask", "/dev/stdin", "--split", "0", "--out", "-")
		if in == "pipe" {
			cmd.Stdin = strings.NewReader("a,y\n1,2\n")
		} else {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cmd.Stdin = f
		}
		var errs strings.Builder
		cmd.Stderr = &errs
		if err := cmd.Run(); err == nil || !strings.Contains(errs.String(), "both read standard input: give one of them a file") {
			t.Errorf("standard input as a %s for --data - and --test-mask /dev/stdin: %v, %q", in, err, errs.String())
		}
	}
}

// startDemo starts cmd, a demo, and returns once it has printed its first
// line, which comes once its output directory is made and it handles
// signals; its standard output is then drained, and its standard error
// is the builder returned.
func startDemo(t *testing.T, cmd *exec.Cmd) *strings.Builder {
	t.Helper()
	errs := &strings.Builder{}
	cmd.Stderr = errs
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		t.Fatalf("no output: %v: %s", err, errs.String())
	}
	go io.Copy(io.Discard, stdout)
	return errs
}

// TestDemoInterruptLeavesNoDir: Ctrl-C during the demo writes nothing,
// and the --out directory it made is removed (it was left empty); one
// that existed before is kept.
func TestDemoInterruptLeavesNoDir(t *testing.T) {
	for _, existed := range []bool{false, true} {
		top := filepath.Join(t.TempDir(), "new")
		dir := filepath.Join(top, "demo-out") // parents made too
		if existed {
			os.MkdirAll(dir, 0o755)
		}
		cmd := childDecoreg(t, t.TempDir(), "demo", "--out", dir, "--threads", "1")
		errs := startDemo(t, cmd)
		time.Sleep(100 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGINT)
		if err := cmd.Wait(); !killedBy(err, syscall.SIGINT) {
			t.Errorf("existed before %v: after Ctrl-C, %v, want killed by SIGINT: %s", existed, err, errs.String())
		}
		_, err := os.Stat(top)
		if existed != (err == nil) {
			t.Errorf("existed before %v: after Ctrl-C, %v: %s", existed, err, errs.String())
		}
		if existed {
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("written: %v", ents)
			}
		}
	}
}

// TestBenchServeInterrupt: Ctrl-C during bench serve stops it (killed by
// SIGINT), the cases measured before it printed whole, and removes the
// directory of its model (a killed run had left /tmp/decoreg-bench-serve-*).
func TestBenchServeInterrupt(t *testing.T) {
	model := sharedModel(t, "mdn")
	tmp := t.TempDir()
	cmd := childDecoreg(t, tmp, "bench", "serve", "--model", model, "--rows", "1,2", "--clients", "1", "--requests", "200000", "--batching", "off", "--outputs", "mean")
	var errs strings.Builder
	cmd.Stderr = &errs
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The bench's directory exists from the start; the signal goes once
	// it does (the handler is registered just after it is made).
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m, _ := filepath.Glob(filepath.Join(tmp, "decoreg-bench-serve-*")); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no bench directory in %s: %s", tmp, errs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // into the first case's requests
	cmd.Process.Signal(syscall.SIGINT)
	out, _ := io.ReadAll(stdout)
	if err := cmd.Wait(); !killedBy(err, syscall.SIGINT) || !strings.Contains(errs.String(), "bench serve: interrupted") {
		t.Errorf("%v, want killed by SIGINT; stderr %q", err, errs.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line != "" && !json.Valid([]byte(line)) {
			t.Errorf("a partial line printed: %q", line)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(tmp, "decoreg-bench-serve-*")); len(m) > 0 {
		t.Errorf("left behind: %v", m)
	}
}

// TestInterruptAsProcess1: as process 1 (a container without an init),
// which a signal cannot kill, an interrupted command exits with 128 plus
// the signal's number; raising the signal did nothing there, and the Go
// runtime exited 2, the status of bad input (review). Skipped where a
// PID namespace cannot be made (unshare -Upfr).
func TestInterruptAsProcess1(t *testing.T) {
	if exec.Command("unshare", "-Upfr", "--kill-child", "true").Run() != nil {
		t.Skip("no unshare -Upfr here")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "unshare", "-Upfr", "--kill-child", os.Args[0], "-test.run=^$", "--", "demo", "--out", filepath.Join(dir, "demo"), "--threads", "1")
	cmd.Env = append(os.Environ(), "DECOREG_TEST_CHILD=1", "TMPDIR="+dir)
	errs := startDemo(t, cmd)
	syscall.Kill(unshareChild(t, cmd), syscall.SIGTERM)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !(ee.ExitCode() == 128+int(syscall.SIGTERM) || killedBy(err, syscall.SIGTERM)) {
		t.Errorf("%v, want status 143 (or killed by SIGTERM); stderr %q", err, errs.String())
	}
}

// TestInterruptAsProcess1NoHandler: as process 1, an interrupt in a phase
// that has no handler of its own (here opening a --model FIFO that no one
// writes) ends the command with 128 plus the signal's number; the Go
// runtime exited 2, the status of bad input (session 36's note).
func TestInterruptAsProcess1NoHandler(t *testing.T) {
	if exec.Command("unshare", "-Upfr", "--kill-child", "true").Run() != nil {
		t.Skip("no unshare -Upfr here")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "m.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "unshare", "-Upfr", "--kill-child", os.Args[0], "-test.run=^$", "--", "predict", "--model", fifo, "--data", "testdata/cli/small.csv", "--out", filepath.Join(dir, "p.csv"))
	cmd.Env = append(os.Environ(), "DECOREG_TEST_CHILD=1", "TMPDIR="+dir)
	var errs strings.Builder
	cmd.Stderr = &errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The child is waiting on the FIFO once it has opened it for reading.
	child := 0
	for end := time.Now().Add(20 * time.Second); child <= 0 && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", cmd.Process.Pid, cmd.Process.Pid))
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if child <= 0 {
		cmd.Process.Kill()
		t.Skip("cannot find unshare's child")
	}
	time.Sleep(300 * time.Millisecond) // into the open of the FIFO
	syscall.Kill(child, syscall.SIGTERM)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Errorf("%v, want status 143; stderr %q", err, errs.String())
	}
}

// TestServeAsProcess1: serve as process 1 shuts down gracefully at a
// signal, as elsewhere (exit 0, "shut down cleanly"): the listener of
// process 1 ended it at once (helper-125).
func TestServeAsProcess1(t *testing.T) {
	if exec.Command("unshare", "-Upfr", "--kill-child", "true").Run() != nil {
		t.Skip("no unshare -Upfr here")
	}
	model := sharedModel(t, "decoder")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "unshare", "-Upfr", "--kill-child", os.Args[0], "-test.run=^$", "--", "serve", "--model", model, "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "DECOREG_TEST_CHILD=1")
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var errs strings.Builder
	listening, done := make(chan bool, 1), make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		said := false
		for sc.Scan() {
			errs.WriteString(sc.Text() + "\n")
			if !said && strings.Contains(sc.Text(), "listening on") {
				said = true
				listening <- true
			}
		}
		if !said {
			listening <- false
		}
	}()
	if !<-listening {
		t.Fatalf("serve did not start: %s", errs.String())
	}
	syscall.Kill(unshareChild(t, cmd), syscall.SIGTERM)
	err := cmd.Wait()
	pw.Close()
	<-done
	if err != nil || !strings.Contains(errs.String(), "shut down cleanly") {
		t.Errorf("%v, want exit 0; stderr %q", err, errs.String())
	}
}

// TestTrainWriteAbandonedToFIFO: the model written to a FIFO whose reader
// stalls; an interrupt finishes the write (training was not interrupted),
// a second abandons it and the process ends by the signal, saying the
// output may be incomplete (it exited 1 with "file already closed", and
// said nothing was written though the reader had part, helper-126).
func TestTrainWriteAbandonedToFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "m.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	train := writeSynth(t, dir, "train.csv", 200, 7)
	// An encoder of 2 x 256: a model of some 300 KB, more than a pipe holds.
	args := append([]string{"-test.run=^$", "--", "train", "--data", train, "--out", fifo}, tinyArgs("decoder")...)
	args = append(args, "--enc-width", "256", "--epochs", "1")
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "DECOREG_TEST_CHILD=1", "TMPDIR="+dir)
	var errs syncBuilder
	cmd.Stderr = &errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	watchdog := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer watchdog.Stop()
	r, err := os.Open(fifo) // the child opens it for writing once trained
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := io.ReadFull(r, make([]byte, 1000)); err != nil {
		t.Fatalf("reading the model's start: %v (%s)", err, errs.String())
	}
	cmd.Process.Signal(syscall.SIGINT)
	for end := time.Now().Add(20 * time.Second); !strings.Contains(errs.String(), "finishing the write"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no word of finishing the write: %s", errs.String())
		}
	}
	time.Sleep(2 * defaultSignalEcho) // not its echo
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	if !killedBy(err, syscall.SIGINT) || !strings.Contains(errs.String(), "abandoned the write; the output to "+fifo+" may be incomplete") || strings.Contains(errs.String(), "already closed") {
		t.Errorf("%v, want killed by SIGINT; stderr %q", err, errs.String())
	}
}

// syncBuilder is a strings.Builder safe for a writer and a reader.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// unshareChild returns the PID of the process that "unshare --kill-child"
// (cmd, started) runs, process 1 of its namespace; it skips the test where
// none is found.
func unshareChild(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", cmd.Process.Pid, cmd.Process.Pid))
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || child <= 0 {
		cmd.Process.Kill()
		t.Skipf("cannot find unshare's child: %v %q", err, b)
	}
	return child
}

// TestStdinSpoolKilled: on Linux the copy of standard input is out of the
// temporary directory while it is being made and read, so that SIGKILL
// (which no process can catch; the out-of-memory killer) leaves no copy
// of the data behind. It was left there for good. Where the file system
// makes files without a name, the copy is one, never in the directory
// (a named file removed at once left a moment between the two).
func TestStdinSpoolKilled(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd: the copy stays in the directory until the command ends")
	}
	tmp := t.TempDir()
	cmd := childDecoreg(t, tmp, "train", "--data", "-", "--head", "mdn", "--epochs", "1", "--quiet", "--out", filepath.Join(tmp, "m.model"))
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	io.WriteString(in, "a,b,y\n1,2,3\n4,5,6\n") // and keep standard input open
	// Wait for the child to hold the copy out of the directory (where
	// files without a name cannot be made, it is made and then at once
	// removed: a moment between the two is unavoidable).
	var held string
	for end := time.Now().Add(10 * time.Second); !strings.HasSuffix(held, " (deleted)"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no copy held out of the temporary directory while it is made: %v, held %q", spools(tmp), held)
		}
		held = heldSpool(cmd.Process.Pid, tmp)
	}
	if left := spools(tmp); len(left) > 0 {
		t.Errorf("the copy is in the temporary directory while it is made: %v", left)
	}
	if unnamedFiles(tmp) && !strings.HasPrefix(held, filepath.Join(tmp, "#")) {
		t.Errorf("the copy %q was made with a name, though the file system makes files without one", held)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if left := spools(tmp); len(left) > 0 {
		t.Errorf("SIGKILL left the copy of standard input: %v", left)
	}
}

// TestSecondInterruptSays: a second interrupt that ends the process at
// once says so (it ended without a word; GNU timeout signals the command
// and then its process group, so two can come unbidden). Here serve waits
// out --grace for a request whose body has not all come.
func TestSecondInterruptSays(t *testing.T) {
	model := sharedModel(t, "decoder")
	cmd := childDecoreg(t, t.TempDir(), "serve", "--model", model, "--addr", "127.0.0.1:0", "--grace", "50s")
	var errs syncBuilder
	cmd.Stderr = &errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var addr string
	for end := time.Now().Add(20 * time.Second); addr == ""; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("serve did not start: %s", errs.String())
		}
		if _, a, ok := strings.Cut(errs.String(), "listening on http://"); ok {
			addr, _, _ = strings.Cut(a, " ")
		}
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/models/m/predict HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"x\":")
	time.Sleep(100 * time.Millisecond) // the server reads the request
	cmd.Process.Signal(syscall.SIGINT)
	for end := time.Now().Add(20 * time.Second); !strings.Contains(errs.String(), "stopping: answering the requests under way for at most --grace 50s (interrupt again to stop at once)"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("no word of shutting down: %s", errs.String())
		}
	}
	time.Sleep(2 * defaultSignalEcho) // not its echo
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	if !killedBy(err, syscall.SIGINT) || !strings.Contains(errs.String(), "decoreg serve: interrupted again: stopped at once") {
		t.Errorf("%v, want killed by SIGINT, saying so; stderr %q", err, errs.String())
	}
}

// TestReportOverInputBindMount: a report linked into a bind mount of the
// data directory, or of its own directory onto its journal, is refused:
// the paths differ as text but are one place (a text comparison let both
// through, and the report replaced a dataset). Skipped where mounting is
// not allowed.
func TestReportOverInputBindMount(t *testing.T) {
	dir := t.TempDir()
	data, view, out := filepath.Join(dir, "data"), filepath.Join(dir, "view"), filepath.Join(dir, "out")
	for _, d := range []string{data, view, out, filepath.Join(dir, "outview")} {
		os.MkdirAll(d, 0o755)
	}
	if err := exec.Command("mount", "--bind", data, view).Run(); err != nil {
		t.Skipf("mount --bind: %v", err)
	}
	defer exec.Command("umount", view).Run()
	if err := exec.Command("mount", "--bind", out, filepath.Join(dir, "outview")).Run(); err != nil {
		t.Skipf("mount --bind: %v", err)
	}
	defer exec.Command("umount", filepath.Join(dir, "outview")).Run()
	os.WriteFile(filepath.Join(data, "set.csv"), []byte("a,y\n"), 0o644)
	os.WriteFile(filepath.Join(out, "results.jsonl"), nil, 0o644)
	os.Symlink(filepath.Join(view, "set.csv"), filepath.Join(out, "REPORT.md"))
	e := &experiments.Experiment{Name: "x", RealData: true}
	if err := reportOverInput("experiment", out, e, nil, false, data); err == nil || !strings.Contains(err.Error(), "leads into the data directory") {
		t.Errorf("a report into a bind mount of the data: %v", err)
	}
	if err := outsideData("experiment", filepath.Join(view, "res"), data); err == nil || !strings.Contains(err.Error(), "lies inside the data directory") {
		t.Errorf("--out in a bind mount of the data: %v", err)
	}
	os.Remove(filepath.Join(out, "REPORT.md"))
	os.Symlink(filepath.Join(dir, "outview", "results.jsonl"), filepath.Join(out, "REPORT.md"))
	if err := reportOverInput("experiment", out, e, nil, false, ""); err == nil || !strings.Contains(err.Error(), "is the same file as its journal") {
		t.Errorf("a report onto its journal through a bind mount: %v", err)
	}
}

// TestInterruptBeforeHandler: an interrupt while a command opens its
// model, before it has a handler of its own, says so and ends the process
// by the signal (it died by the signal's default action without a word:
// helper-146). The model is a FIFO no one writes, so the command waits.
func TestInterruptBeforeHandler(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "m.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	for _, s := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := childDecoreg(t, dir, "predict", "--model", fifo, "--data", "testdata/cli/small.csv", "--out", filepath.Join(dir, "p.csv"))
		var errs strings.Builder
		cmd.Stderr = &errs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFIFOOpen(cmd.Process.Pid)
		cmd.Process.Signal(s)
		if err := cmd.Wait(); !killedBy(err, s) || errs.String() != "decoreg predict: interrupted\n" {
			t.Errorf("%v: %v, stderr %q", s, err, errs.String())
		}
	}
}

// waitFIFOOpen waits until a thread of process pid waits in the open of a
// FIFO for its writer (the kernel's wait_for_partner), at most 10 s; where
// /proc does not say, a second.
func waitFIFOOpen(pid int) {
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/wchan", pid))
		if err != nil || len(tasks) == 0 {
			break
		}
		for _, w := range tasks {
			if b, _ := os.ReadFile(w); string(b) == "wait_for_partner" {
				return
			}
		}
	}
	time.Sleep(time.Second)
}
