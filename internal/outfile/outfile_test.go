package outfile

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// names lists the names in dir.
func names(t *testing.T, dir string) []string {
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

// writeString writes s to path through WriteFile.
func writeString(path, s string) error {
	return WriteFile(context.Background(), path, func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	})
}

// content returns the file's content.
func content(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	boom := errors.New("boom")

	// A failing writer leaves no file and no temporary file.
	err := WriteFile(context.Background(), p, func(w io.Writer) error {
		io.WriteString(w, strings.Repeat("partial", 1<<15))
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), p) {
		t.Errorf("err = %v", err)
	}
	if ns := names(t, dir); len(ns) != 0 {
		t.Errorf("left behind: %v", ns)
	}

	// Success writes the whole content with the mode os.Create gives.
	if err := writeString(p, "first"); err != nil {
		t.Fatal(err)
	}
	if got := content(t, p); got != "first" {
		t.Errorf("content %q", got)
	}
	ref := filepath.Join(t.TempDir(), "ref")
	f, err := os.Create(ref)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	fr, _ := os.Stat(ref)
	if fi, _ := os.Stat(p); fi.Mode() != fr.Mode() {
		t.Errorf("mode %v, os.Create gives %v", fi.Mode(), fr.Mode())
	}

	// A failing writer leaves the old file untouched; so does a panic.
	os.Chmod(p, 0o600)
	if err := WriteFile(context.Background(), p, func(w io.Writer) error {
		io.WriteString(w, "second, longer than the first")
		return boom
	}); !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
	func() {
		defer func() { recover() }()
		WriteFile(context.Background(), p, func(w io.Writer) error { panic("writer panicked") })
	}()
	if got := content(t, p); got != "first" {
		t.Errorf("content after failures %q", got)
	}
	if ns := names(t, dir); len(ns) != 1 || ns[0] != "out.json" {
		t.Errorf("directory holds %v", ns)
	}

	// Replacing keeps the mode.
	if err := writeString(p, "third"); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if got := content(t, p); got != "third" || fi.Mode().Perm() != 0o600 {
		t.Errorf("content %q mode %v", got, fi.Mode())
	}

	// A missing directory is an error naming it, from Check and WriteFile.
	missing := filepath.Join(dir, "no", "f")
	for _, err := range []error{Check(missing), writeString(missing, "x")} {
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "no")) {
			t.Errorf("missing directory: %v", err)
		}
	}
	// A directory is refused.
	if err := writeString(dir, "x"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	if ns := names(t, dir); len(ns) != 1 {
		t.Errorf("directory holds %v", ns)
	}
}

// TestP1SymlinkWrittenThrough: a link stays a link; its final target gets
// the content, atomically in the target's directory, keeping its mode.
func TestP1SymlinkWrittenThrough(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	os.Mkdir(a, 0o755)
	os.Mkdir(b, 0o755)
	target := filepath.Join(b, "target.csv")
	if err := os.WriteFile(target, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	// a/link -> ../b/mid (relative), b/mid -> b/target.csv (absolute).
	link, mid := filepath.Join(a, "link"), filepath.Join(b, "mid")
	if err := os.Symlink(target, mid); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../b/mid", link); err != nil {
		t.Fatal(err)
	}
	if err := Check(link); err != nil {
		t.Fatal(err)
	}
	if err := writeString(link, "new content"); err != nil {
		t.Fatal(err)
	}
	for l, want := range map[string]string{link: "../b/mid", mid: target} {
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a link", l)
		}
		if got, _ := os.Readlink(l); got != want {
			t.Errorf("%s points to %q, want %q", l, got, want)
		}
	}
	fi, err := os.Lstat(target)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o640 {
		t.Fatalf("target: %v %v", fi.Mode(), err)
	}
	if got := content(t, target); got != "new content" {
		t.Errorf("target holds %q", got)
	}
	if ns := names(t, a); len(ns) != 1 {
		t.Errorf("link directory holds %v", ns)
	}
	if ns := names(t, b); len(ns) != 2 {
		t.Errorf("target directory holds %v", ns)
	}
}

// TestP1DanglingLink: a link to a file that does not exist creates it.
func TestP1DanglingLink(t *testing.T) {
	dir := t.TempDir()
	link, target := filepath.Join(dir, "link"), filepath.Join(dir, "sub", "new.csv")
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	if err := os.Symlink("sub/new.csv", link); err != nil {
		t.Fatal(err)
	}
	if err := writeString(link, "created"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
	if got := content(t, target); got != "created" {
		t.Errorf("target holds %q", got)
	}
	// A link loop is an error, not a hang.
	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	if err := writeString(loop, "x"); err == nil {
		t.Error("a link loop was written")
	}
}

// TestP1ReadOnlyRefused: an existing regular file without write permission
// is refused, directly or through a link, and left as it was.
func TestP1ReadOnlyRefused(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ro.csv")
	if err := os.WriteFile(p, []byte("keep"), 0o444); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink("ro.csv", link)
	for _, path := range []string{p, link} {
		if err := Check(path); !errors.Is(err, ErrReadOnly) {
			t.Errorf("Check(%s) = %v", path, err)
		}
		if err := writeString(path, "replaced"); !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), path) {
			t.Errorf("WriteFile(%s) = %v", path, err)
		}
	}
	fi, _ := os.Stat(p)
	if got := content(t, p); got != "keep" || fi.Mode().Perm() != 0o444 {
		t.Errorf("read-only file now %q %v", got, fi.Mode())
	}
	if ns := names(t, dir); len(ns) != 2 {
		t.Errorf("directory holds %v", ns)
	}
}

// TestP8CancelledWriteRemovesTemp: a context cancelled part-way through a
// write (an interrupt) fails the write and removes the temporary file; an
// existing file is untouched.
func TestP8CancelledWriteRemovesTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.csv")
	chunk := strings.Repeat("0123456789,", 10000)
	for _, existing := range []bool{false, true} {
		if existing {
			os.WriteFile(p, []byte("old"), 0o644)
		}
		ctx, cancel := context.WithCancel(context.Background())
		before, sawTemp := len(names(t, dir)), false
		err := WriteFile(ctx, p, func(w io.Writer) error {
			for i := 0; ; i++ {
				if _, err := io.WriteString(w, chunk); err != nil {
					return err
				}
				if i == 3 {
					sawTemp = len(names(t, dir)) == before+1
					cancel()
				}
				if i > 100 {
					return errors.New("writes went on after the cancel")
				}
			}
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("existing %v: err = %v", existing, err)
		}
		if !sawTemp {
			t.Errorf("existing %v: no temporary file while writing", existing)
		}
		want := 0
		if existing {
			want = 1
			if got := content(t, p); got != "old" {
				t.Errorf("existing file now %q", got)
			}
		}
		if ns := names(t, dir); len(ns) != want {
			t.Errorf("existing %v: directory holds %v", existing, ns)
		}
	}

	// Create, Write, cancel, Commit: the same, through the File API.
	ctx, cancel := context.WithCancel(context.Background())
	f, err := Create(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte(chunk))
	cancel()
	if err := f.Commit(); !errors.Is(err, context.Canceled) {
		t.Errorf("Commit after cancel: %v", err)
	}
	f.Discard()
	if got := content(t, p); got != "old" {
		t.Errorf("file now %q", got)
	}
	if ns := names(t, dir); len(ns) != 1 {
		t.Errorf("directory holds %v", ns)
	}
	// Discard from another goroutine (a signal handler) while writing.
	f, err = Create(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { f.Discard(); close(done) }()
	<-done
	f.Write([]byte(chunk))
	if err := f.Commit(); err == nil {
		t.Error("Commit after Discard succeeded")
	}
	if ns := names(t, dir); len(ns) != 1 || content(t, p) != "old" {
		t.Errorf("directory holds %v", ns)
	}
}

// TestTracker: DiscardAll removes the temporary files of the writes in
// progress under a tracked context (a process exiting at once runs no
// deferred Discard), leaves committed files, and refuses later Creates.
func TestTracker(t *testing.T) {
	dir := t.TempDir()
	tr := &Tracker{}
	ctx := WithTracker(context.Background(), tr)
	done, err := Create(ctx, filepath.Join(dir, "done.txt"))
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(done, "kept\n")
	if err := done.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "old.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var open []*File
	for _, name := range []string{"new.txt", "old.txt"} {
		f, err := Create(ctx, filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(f, "half")
		open = append(open, f)
	}
	if n := len(tr.files); n != 2 {
		t.Errorf("%d files tracked, want the 2 open ones", n)
	}
	tr.DiscardAll()
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "done.txt,old.txt" {
		t.Errorf("left %v, want done.txt and old.txt alone", names)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "old.txt")); string(b) != "old\n" {
		t.Errorf("old.txt is %q", b)
	}
	if err := open[0].Commit(); err == nil {
		t.Error("a discarded file committed")
	}
	if _, err := Create(ctx, filepath.Join(dir, "late.txt")); err == nil {
		t.Error("Create after DiscardAll")
	}
	if _, err := os.Stat(filepath.Join(dir, "late.txt")); err == nil {
		t.Error("late.txt exists")
	}
}

// TestLongName: a name at the file system's limit (255 bytes) is written,
// with a temporary file whose name is cut to fit (whole UTF-8 characters):
// names from about 240 bytes were refused as "file name too long".
func TestLongName(t *testing.T) {
	dir := t.TempDir()
	for _, base := range []string{strings.Repeat("a", 251) + ".csv", strings.Repeat("é", 125) + "x.csv", strings.Repeat("b", 240)} {
		p := filepath.Join(dir, base)
		if err := writeString(p, "long"); err != nil {
			t.Errorf("%d bytes: %v", len(base), err)
			continue
		}
		if got := content(t, p); got != "long" {
			t.Errorf("%d bytes: content %q", len(base), got)
		}
		if ns := names(t, dir); len(ns) != 1 || ns[0] != base {
			t.Errorf("%d bytes: files %q", len(base), ns)
		}
		os.Remove(p)
	}
}

// TestStaleTempsRemoved: a write of NAME that succeeds removes the
// temporary files of NAME's writes older than StaleAfter (what a killed
// process leaves: no handler sees SIGKILL, and they piled up beside a
// report written again and again), and nothing else: not a fresh one
// (a write in progress), not another name's, not one whose suffix is not
// a temporary file's, not a directory.
func TestStaleTempsRemoved(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-StaleAfter - time.Hour)
	mk := func(name string, age time.Time, isDir bool) string {
		p := filepath.Join(dir, name)
		if isDir {
			os.Mkdir(p, 0o755)
		} else {
			os.WriteFile(p, []byte("x"), 0o644)
		}
		os.Chtimes(p, age, age)
		return p
	}
	stale := mk(".r.png.tmp123", old, false)
	keep := []string{mk(".r.png.tmp456", time.Now(), false), mk(".s.png.tmp1", old, false), mk(".r.png.tmpx1", old, false),
		mk(".r.png.tmp", old, false), mk(".r.png.tmp9", old, true), mk(".r.png.tmp77.bak", old, false)}
	if err := WriteFile(context.Background(), filepath.Join(dir, "r.png"), func(w io.Writer) error { _, err := w.Write([]byte("png")); return err }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the stale temporary file is still there: %v", err)
	}
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(p), err)
		}
	}
}

// WriteFileNew writes a path that does not exist, and keeps one that
// does: existing before, or created by another writer while this one
// writes (the race a check before the rename left open: both writers
// finished and the later replaced the other's file). Of concurrent
// writers exactly one wins. No temporary file is left.
func TestWriteFileNew(t *testing.T) {
	dir := t.TempDir()
	put := func(path, s string) error {
		return WriteFileNew(context.Background(), path, func(w io.Writer) error {
			_, err := io.WriteString(w, s)
			return err
		})
	}
	p := filepath.Join(dir, "r.json")
	if err := put(p, "first"); err != nil {
		t.Fatal(err)
	}
	if err := put(p, "second"); !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), p) {
		t.Errorf("over an existing file: %v, want fs.ErrExist naming it", err)
	}
	// Another writer creates the file while this one writes.
	q := filepath.Join(dir, "q.json")
	err := WriteFileNew(context.Background(), q, func(w io.Writer) error {
		if err := os.WriteFile(q, []byte("other"), 0o644); err != nil {
			return err
		}
		_, err := io.WriteString(w, "mine")
		return err
	})
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("created meanwhile: %v, want fs.ErrExist", err)
	}
	// A dangling symbolic link is written through.
	l := filepath.Join(dir, "link.json")
	if err := os.Symlink("target.json", l); err != nil {
		t.Fatal(err)
	}
	if err := put(l, "via link"); err != nil {
		t.Fatal(err)
	}
	// Concurrent writers: one wins.
	c := filepath.Join(dir, "c.json")
	errs := make(chan error, 8)
	for i := range 8 {
		go func() { errs <- put(c, strings.Repeat(string(rune('a'+i)), 1000)) }()
	}
	won := 0
	for range 8 {
		if err := <-errs; err == nil {
			won++
		} else if !errors.Is(err, fs.ErrExist) {
			t.Error(err)
		}
	}
	if won != 1 {
		t.Errorf("%d concurrent writers won, want 1", won)
	}
	for path, want := range map[string]string{p: "first", q: "other", filepath.Join(dir, "target.json"): "via link"} {
		if b, err := os.ReadFile(path); err != nil || string(b) != want {
			t.Errorf("%s holds %q (%v), want %q", path, b, err, want)
		}
	}
	if b, err := os.ReadFile(c); err != nil || len(b) != 1000 || strings.Count(string(b), string(b[0])) != 1000 {
		t.Errorf("the concurrent writers' file holds %d bytes mixed (%v)", len(b), err)
	}
	if fi, err := os.Lstat(l); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}
