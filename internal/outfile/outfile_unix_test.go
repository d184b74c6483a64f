//go:build unix

package outfile

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestP1SpecialFiles: a device or a FIFO is written directly, with no
// temporary file and no rename; it stays what it was.
func TestP1SpecialFiles(t *testing.T) {
	if err := Check(os.DevNull); err != nil {
		t.Fatal(err)
	}
	if err := writeString(os.DevNull, "discarded"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(os.DevNull); err != nil || fi.Mode()&fs.ModeDevice == 0 {
		t.Fatalf("%s is no longer a device: %v", os.DevNull, fi.Mode())
	}

	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFO:", err)
	}
	if err := Check(fifo); err != nil { // must not wait for a reader
		t.Fatal(err)
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
	if err := writeString(fifo, "through the pipe"); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "through the pipe" {
			t.Errorf("reader got %q", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the FIFO's reader got nothing")
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v", fi.Mode())
	}
	if ns := names(t, dir); len(ns) != 1 {
		t.Errorf("directory holds %v", ns)
	}

	// Opening a FIFO that nobody reads gives up when the context is done.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := Create(ctx, fifo); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("FIFO without a reader: %v", err)
	}
}

// TestP1Descriptors: /dev/stdout, /dev/fd/N and links to them name this
// process's descriptors, which are written directly.
func TestP1Descriptors(t *testing.T) {
	for p, want := range map[string]int{"/dev/stdout": 1, "/dev/stderr": 2, "/dev/fd/1": 1, "/dev/fd/7": 7,
		"/proc/self/fd/3": 3, "/proc/" + strconv.Itoa(os.Getpid()) + "/fd/4": 4, "/dev/fd/../fd/5": 5} {
		if fd, ok := descriptorPath(p); !ok || fd != want {
			t.Errorf("descriptorPath(%s) = %d, %v; want %d", p, fd, ok, want)
		}
	}
	for _, p := range []string{"/dev/null", "/dev/fd/x", "/dev/fd/-1", "/dev/fdx/1", "fd/1"} {
		if fd, ok := descriptorPath(p); ok {
			t.Errorf("descriptorPath(%s) = %d, true", p, fd)
		}
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "out")
	os.Symlink("/dev/stdout", link)
	if !IsStdout("/dev/stdout") || !IsStdout(link) || IsStdout(os.DevNull) || IsStdout(filepath.Join(dir, "f")) {
		t.Error("IsStdout")
	}

	// A pipe's write end, by its /dev/fd path: written in place; the
	// descriptor stays open.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	path := "/dev/fd/" + strconv.Itoa(int(w.Fd()))
	if err := Check(path); err != nil {
		t.Fatal(err)
	}
	if err := writeString(path, "via the descriptor"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("; still open")); err != nil {
		t.Fatalf("the descriptor was closed: %v", err)
	}
	w.Close()
	b, _ := io.ReadAll(r)
	if string(b) != "via the descriptor; still open" {
		t.Errorf("pipe got %q", b)
	}
	if ns := names(t, dir); len(ns) != 1 {
		t.Errorf("directory holds %v", ns)
	}
	// A closed or read-only descriptor is an error.
	if err := Check("/dev/fd/" + strconv.Itoa(int(r.Fd()))); err == nil {
		t.Error("Check accepted a read-only descriptor")
	}
}

// TestP7CheckFindsUnwritableDir: Check creates and removes a temporary
// file where the write will happen, so an unwritable directory is found
// before any work; it leaves nothing behind.
func TestP7CheckFindsUnwritableDir(t *testing.T) {
	dir := t.TempDir()
	if err := Check(filepath.Join(dir, "m.model")); err != nil {
		t.Fatal(err)
	}
	if ns := names(t, dir); len(ns) != 0 {
		t.Errorf("Check left %v", ns)
	}
	ro := unwritableDir(t)
	if err := Check(filepath.Join(ro, "m.model")); err == nil {
		t.Errorf("Check accepted a file in the unwritable directory %s", ro)
	}
	// Through a dangling link into it.
	link := filepath.Join(dir, "link")
	os.Symlink(filepath.Join(ro, "m.model"), link)
	if err := Check(link); err == nil {
		t.Error("Check accepted a link into an unwritable directory")
	}
}

// unwritableDir returns a directory this process cannot create files in:
// a new directory with mode 0555, or, where permissions do not bind (root),
// /sys. It skips the test when there is none.
func unwritableDir(t testing.TB) string {
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

// A file replaced keeps its owner and group where the process may set
// them (as root: it became root's, and its owner could no longer read a
// mode 0640 file, helper-117), and its mode.
func TestReplaceKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file another owner")
	}
	p := filepath.Join(t.TempDir(), "own.csv")
	if err := os.WriteFile(p, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Skip(err)
	}
	if err := WriteFile(context.Background(), p, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if st.Uid != 65534 || st.Gid != 65534 || fi.Mode().Perm() != 0o640 {
		t.Errorf("replaced: owner %d:%d, mode %v; want 65534:65534, -rw-r-----", st.Uid, st.Gid, fi.Mode().Perm())
	}
}
