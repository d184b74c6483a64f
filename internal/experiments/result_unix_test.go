//go:build unix

package experiments

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO named like a result is refused, not read: the read blocked for
// ever, waiting for a writer (bench report on such a tree hung).
func TestLoadResultsFIFO(t *testing.T) {
	dir := t.TempDir()
	p := ResultPath(dir, "a", MDN, 0)
	if err := WriteResult(p, &Result{Dataset: "a", Head: MDN, Split: 0, Error: "x"}); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(filepath.Dir(p), "split1.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := LoadResults(dir); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), fifo) {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("LoadResults blocked on a FIFO")
	}
}

// A journal that is a FIFO (the read blocked for ever) or a link to a
// device (the results went to /dev/null) is refused before any run.
func TestJournalNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	null := filepath.Join(dir, "null.jsonl")
	if err := os.Symlink("/dev/null", null); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{fifo: "a named pipe (FIFO)", null: "a device", dir: "a directory"} {
		done := make(chan error, 1)
		go func() { _, _, err := ReadJournal(p, "test", newTestLine); done <- err }()
		select {
		case err := <-done:
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want an InputError saying %q", p, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the read blocks", p)
		}
	}
}

// XGBoost's results as a FIFO are refused, not read for ever.
func TestXGBTauFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	if _, _, err := xgbTau(fifo, nil); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a FIFO: %v", err)
	}
}
