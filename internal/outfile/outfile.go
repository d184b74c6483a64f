// Package outfile writes decoreg's output files (models, prediction and
// sample CSVs, benchmark results, plots): the one place that decides how a
// path is written.
//
// What a path names decides how it is written:
//
//   - a regular file, or a path that does not exist yet: atomically. The
//     bytes go to a temporary file ".NAME.tmpNNN" in the same directory,
//     which is synced and renamed over NAME only when everything succeeded;
//     on an error or a cancelled context the temporary file is removed and
//     an existing NAME is untouched; one a killed process left (older
//     than StaleAfter) is removed by the next write of NAME. A replaced
//     file keeps its permission bits; a new one gets 0666 less the umask.
//     An existing regular file without write permission is refused
//     (ErrReadOnly), not replaced.
//   - a symbolic link: written through. The link stays a link and its final
//     target gets the content by the rules here (atomically, with the
//     temporary file in the target's directory, where the target is a
//     regular file; a dangling link's target is created).
//   - a device, FIFO or socket (/dev/null, a named pipe): written directly,
//     with no temporary file and no rename.
//   - an open descriptor (/dev/stdout, /dev/stderr, /dev/fd/N,
//     /proc/self/fd/N): written directly to that descriptor.
//
// Direct writes are streamed: a failure part-way leaves what was written.
package outfile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// ErrReadOnly means the path is an existing regular file without write
// permission; it is refused rather than replaced.
var ErrReadOnly = errors.New("file is read-only")

// ErrIsDir and ErrLinkLoop mean the path cannot be a file: it is a
// directory, or a chain of more than 40 symbolic links.
var (
	ErrIsDir    = errors.New("is a directory")
	ErrLinkLoop = errors.New("too many levels of symbolic links")
)

// kind is how a path is written.
type kind int

const (
	atomic     kind = iota // temporary file renamed over the target
	direct                 // opened and written in place (device, FIFO)
	descriptor             // an open descriptor of this process
)

// target is where a path's content goes.
type target struct {
	kind kind
	path string // atomic: the file to create or replace; direct: the file to open
	fd   int    // descriptor
	// old is, for atomic, the existing file replaced, whose permission
	// bits (and, where the process may, owner) are kept; nil for a new one.
	old fs.FileInfo
}

// maxLinks bounds the symbolic links followed, as the kernel's ELOOP does.
const maxLinks = 40

// resolve decides how path is written; see the package documentation. Its
// own errors do not repeat path.
func resolve(path string) (target, error) {
	if path == "" {
		return target{}, errors.New("empty file name")
	}
	p := path
	for range maxLinks {
		if fd, ok := descriptorPath(p); ok {
			return target{kind: descriptor, fd: fd, path: p}, nil
		}
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
				// The system reaches a special file that the walk did not
				// (a /proc magic link such as a pipe): write it directly.
				return target{kind: direct, path: path}, nil
			}
			return target{kind: atomic, path: p}, nil
		case err != nil:
			return target{}, err
		case fi.Mode()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return target{}, err
			}
			if !filepath.IsAbs(l) {
				// Not filepath.Join: cleaning "dirlink/../x" lexically is not
				// what the system resolves.
				l = filepath.Dir(p) + string(filepath.Separator) + l
			}
			p = l
		case fi.IsDir():
			return target{}, fmt.Errorf("%w%s", ErrIsDir, via(path, p))
		case fi.Mode().IsRegular():
			if !writable(p, fi) {
				return target{}, fmt.Errorf("%w%s; it is not replaced (make it writable or remove it)", ErrReadOnly, via(path, p))
			}
			return target{kind: atomic, path: p, old: fi}, nil
		default:
			return target{kind: direct, path: p}, nil
		}
	}
	return target{}, ErrLinkLoop
}

// IsStdout reports whether path resolves to this process's standard
// output descriptor: /dev/stdout, /dev/fd/1 or a symbolic link to one.
func IsStdout(path string) bool {
	t, err := resolve(path)
	return err == nil && t.kind == descriptor && t.fd == 1
}

// via returns "" when p is path, else " (link target p)".
func via(path, p string) string {
	if p == path {
		return ""
	}
	return " (link target " + p + ")"
}

// Check reports, without writing anything at path, whether Create(path)
// can succeed: for an atomic write it creates and removes a temporary file
// in the directory that the final write uses, so that a missing or
// unwritable directory is found before any long work. A read-only regular
// file gives an error wrapping ErrReadOnly.
func Check(path string) error {
	t, err := resolve(path)
	if err != nil {
		return err
	}
	switch t.kind {
	case descriptor:
		return checkDescriptor(t.fd)
	case direct:
		return checkWritable(t.path)
	}
	f, err := createTemp(t.path)
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// nameMax is the longest file name, in bytes, of the file systems in use
// (NAME_MAX on Linux, macOS and the BSDs).
const nameMax = 255

// tempParts returns the directory of final's temporary files (with its
// separator) and the BASE of their names ".BASE.tmpNNN": final's name,
// shortened where it is near the file system's limit (255 bytes), which
// it would pass with the prefix and suffix, to its first bytes (whole
// UTF-8 characters), as many as fit.
func tempParts(final string) (dir, base string) {
	dir, base = filepath.Split(final)
	if dir == "" {
		dir = "." + string(filepath.Separator)
	}
	if max := nameMax - len(".") - len(".tmp") - 10; len(base) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	return dir, base
}

// StaleAfter is the age past which a temporary file of a path's atomic
// writes (".NAME.tmpNNN") is taken for one a killed process left (SIGKILL
// or a crash, which no handler sees): the next write of NAME that
// succeeds removes it. No write of decoreg's keeps a temporary file that
// long, and a live one is not touched.
const StaleAfter = 24 * time.Hour

// removeStale removes the temporary files of final's atomic writes last
// modified before cutoff (regular files only); errors are ignored (best
// effort: they are debris).
func removeStale(final string, cutoff time.Time) {
	dir, base := tempParts(final)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := "." + base + ".tmp"
	for _, e := range ents {
		n := e.Name()
		digits, ok := strings.CutPrefix(n, prefix)
		if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) {
			os.Remove(filepath.Join(dir, n))
		}
	}
}

// createTemp creates a new temporary file ".BASE.tmpNNN" in final's
// directory with mode 0666 less the umask (BASE shortened to fit
// nameMax). Its error names the directory.
func createTemp(final string) (*os.File, error) {
	dir, base := tempParts(final)
	seed := uint64(time.Now().UnixNano()) ^ uint64(os.Getpid())<<32
	for try := 1; ; try++ {
		seed = seed*6364136223846793005 + 1442695040888963407
		name := dir + "." + base + ".tmp" + strconv.FormatUint(seed>>33, 10)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) && try < 1000 {
			continue
		}
		if err != nil {
			d := filepath.Clean(dir)
			if fi, serr := os.Stat(d); errors.Is(err, fs.ErrNotExist) && (serr != nil || !fi.IsDir()) {
				// (A directory that exists and refuses new files with
				// ENOENT, as one of /proc does, is not reported missing.)
				return nil, fmt.Errorf("directory %s does not exist: %w", d, fs.ErrNotExist)
			}
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, fmt.Errorf("cannot create a file in directory %s: %w", d, err)
		}
		return f, nil
	}
}

// File is an output being written: Create it, Write to it, then Commit
// (the content appears at its path) or Discard (nothing changes, for an
// atomic write). Writes are buffered. Once the context given to Create is
// done, Write and Commit fail with its error. A File is not safe for
// concurrent use, except Discard.
type File struct {
	ctx  context.Context
	path string // as given to Create
	t    target
	f    *os.File // the temporary file, or the file or descriptor written directly
	bw   *bufio.Writer
	err  error // sticky write error

	mu        sync.Mutex
	done      bool     // committed or discarded
	committed bool     // its content is at the path
	tracker   *Tracker // nil if none

	// noReplace: Commit links the temporary file to the path, which must
	// not exist (WriteFileNew), instead of renaming it over the path.
	noReplace bool
}

// finishLocked marks f done (f.mu held) and drops it from its tracker.
func (f *File) finishLocked() {
	f.done = true
	if f.tracker != nil {
		f.tracker.remove(f)
	}
}

// Create opens path for writing as the package documentation describes.
// Opening a FIFO waits for a reader, or until ctx is done.
func Create(ctx context.Context, path string) (*File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := resolve(path)
	if err != nil {
		return nil, err
	}
	var f *os.File
	switch t.kind {
	case atomic:
		f, err = createTemp(t.path)
	case descriptor:
		f, err = dupDescriptor(t.fd, t.path)
	case direct:
		f, err = openDirect(ctx, t.path)
	}
	if err != nil {
		return nil, err
	}
	out := &File{ctx: ctx, path: path, t: t, f: f, bw: bufio.NewWriterSize(f, 1<<16)}
	if tr, _ := ctx.Value(trackerKey{}).(*Tracker); tr != nil && !tr.add(out) {
		out.Discard()
		return nil, errors.New("outfile: the process is ending")
	}
	return out, nil
}

// A Tracker keeps the Files created under a context that carries it
// (WithTracker) until they are committed or discarded, so that a process
// about to exit at once (a second interrupt) can remove their temporary
// files first: deferred Discards do not run on os.Exit.
type Tracker struct {
	mu     sync.Mutex
	files  map[*File]bool
	closed bool
}

type trackerKey struct{}

// WithTracker returns a context whose Creates t tracks.
func WithTracker(ctx context.Context, t *Tracker) context.Context {
	return context.WithValue(ctx, trackerKey{}, t)
}

func (t *Tracker) add(f *File) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	if t.files == nil {
		t.files = map[*File]bool{}
	}
	t.files[f] = true
	f.tracker = t
	return true
}

func (t *Tracker) remove(f *File) {
	t.mu.Lock()
	delete(t.files, f)
	t.mu.Unlock()
}

// DiscardAll discards every tracked File not yet committed or discarded
// (their temporary files removed), and makes later Creates under t fail.
func (t *Tracker) DiscardAll() {
	t.mu.Lock()
	t.closed = true
	files := make([]*File, 0, len(t.files))
	for f := range t.files {
		files = append(files, f)
	}
	t.mu.Unlock()
	for _, f := range files {
		f.Discard()
	}
}

// openDirect opens an existing special file for writing. The open runs
// beside the caller so that a FIFO without a reader does not block past
// ctx.
func openDirect(ctx context.Context, path string) (*os.File, error) {
	type result struct {
		f   *os.File
		err error
	}
	ch := make(chan result, 1)
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		ch <- result{f, err}
	}()
	select {
	case r := <-ch:
		return r.f, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.f != nil {
				r.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// Write writes p (buffered). It fails once the context is done.
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if err := f.ctx.Err(); err != nil {
		f.err = err
		return 0, err
	}
	n, err := f.bw.Write(p)
	if err != nil {
		f.err = err
	}
	return n, err
}

// Commit flushes what was written and makes it the content of the path:
// for an atomic write it sets the mode, syncs, and renames the temporary
// file over the target. After an error nothing has changed at the path
// (atomic writes) and the File is discarded.
func (f *File) Commit() error {
	err := f.commit()
	if err != nil {
		f.Discard()
	}
	return err
}

func (f *File) commit() error {
	if f.err != nil {
		return f.err
	}
	if err := f.ctx.Err(); err != nil {
		return err
	}
	if err := f.bw.Flush(); err != nil {
		return err
	}
	if f.t.kind != atomic {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.finishLocked()
		err := f.f.Close()
		f.committed = err == nil
		return err
	}
	if f.t.old != nil {
		keepOwner(f.f, f.t.old) // before the mode (set-id and sticky bits are not kept)
		if err := f.f.Chmod(f.t.old.Mode().Perm()); err != nil {
			return err
		}
	}
	if err := f.f.Sync(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return errors.New("outfile: commit after discard")
	}
	if err := f.f.Close(); err != nil {
		return err
	}
	if err := f.ctx.Err(); err != nil {
		os.Remove(f.f.Name())
		f.finishLocked()
		return err
	}
	if f.noReplace {
		err := publishNew(f.f.Name(), f.t.path)
		os.Remove(f.f.Name())
		if err != nil {
			f.finishLocked()
			return err
		}
	} else if err := os.Rename(f.f.Name(), f.t.path); err != nil {
		os.Remove(f.f.Name())
		f.finishLocked()
		return err
	}
	f.finishLocked()
	f.committed = true
	if d, err := os.Open(filepath.Dir(f.t.path)); err == nil { // make the rename durable; best effort
		d.Sync()
		d.Close()
	}
	removeStale(f.t.path, time.Now().Add(-StaleAfter))
	return nil
}

// Discard abandons the write: an atomic write's temporary file is closed
// and removed, so the path is unchanged; a direct write keeps what was
// already written. It does nothing after Commit or a previous Discard, so
// it may be deferred. It may be called from another goroutine while the
// File is being written (to clean up on a signal): later writes then fail.
func (f *File) Discard() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return
	}
	f.finishLocked()
	f.f.Close()
	if f.t.kind == atomic {
		os.Remove(f.f.Name())
	}
}

// Committed reports whether Commit made the content the path's (an
// interrupt's cleanup that came after it has nothing to abandon).
func (f *File) Committed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.committed
}

// Name returns the path given to Create.
func (f *File) Name() string { return f.path }

// Atomic reports whether f is written to a temporary file renamed over
// the path at Commit (a regular file), so that nothing reaches the path
// before then; false for a device, a FIFO or a descriptor, written
// directly.
func (f *File) Atomic() bool { return f.t.kind == atomic }

// WriteFile writes the output at path through write, then commits it. If
// write fails (or panics), or ctx is done, an atomic write leaves nothing
// behind and the path unchanged. Errors name the path.
func WriteFile(ctx context.Context, path string, write func(w io.Writer) error) error {
	f, err := Create(ctx, path)
	if err != nil {
		return wrap(path, err)
	}
	defer f.Discard()
	if err := write(f); err != nil {
		return wrap(path, err)
	}
	return wrap(path, f.Commit())
}

// WriteFileNew is WriteFile for a path that must not exist: the content
// appears there complete, or not at all where the path exists, also when
// another process creates it meanwhile (the commit links the temporary
// file to the path, which fails if it exists: of several writers one
// wins, with no window between a check and a rename). A path that exists
// gives an error wrapping fs.ErrExist, and is left as it is. Where the
// file system has no hard links the commit checks and renames, as a
// writer without this would.
func WriteFileNew(ctx context.Context, path string, write func(w io.Writer) error) error {
	if t, err := resolve(path); err == nil && (t.kind != atomic || t.old != nil) {
		return wrap(path, fmt.Errorf("%w: it is not replaced", fs.ErrExist))
	}
	f, err := Create(ctx, path)
	if err != nil {
		return wrap(path, err)
	}
	defer f.Discard()
	f.noReplace = true
	if err := write(f); err != nil {
		return wrap(path, err)
	}
	return wrap(path, f.Commit())
}

// publishNew makes tmp's file the new file path: a hard link, which fails
// where path exists; where links are not supported, a rename after a check
// that path does not exist.
func publishNew(tmp, path string) error {
	err := os.Link(tmp, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		if err != nil {
			return fmt.Errorf("%w: written meanwhile by another process; it is not replaced", fs.ErrExist)
		}
		return nil
	}
	if _, serr := os.Lstat(path); serr == nil {
		return fmt.Errorf("%w: written meanwhile by another process; it is not replaced", fs.ErrExist)
	}
	return os.Rename(tmp, path)
}

// wrap prefixes err with path unless it is a PathError naming path.
func wrap(path string, err error) error {
	var pe *fs.PathError
	if err == nil || errors.As(err, &pe) && pe.Path == path {
		return err
	}
	return fmt.Errorf("writing %s: %w", path, err)
}
