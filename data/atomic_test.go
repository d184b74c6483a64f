package data

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	boom := errors.New("boom")

	// A failing writer leaves no file and no temporary file.
	err := WriteFileAtomic(p, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("left behind: %v", names)
	}

	// Success writes the whole content with mode 0644.
	if err := WriteFileAtomic(p, func(w io.Writer) error {
		_, err := io.WriteString(w, "first")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "first" {
		t.Errorf("content %q", b)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}

	// A failing writer leaves the old file untouched; so does a panic.
	os.Chmod(p, 0o600)
	err = WriteFileAtomic(p, func(w io.Writer) error {
		io.WriteString(w, "second, longer than the first")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
	func() {
		defer func() { recover() }()
		WriteFileAtomic(p, func(w io.Writer) error { panic("writer panicked") })
	}()
	if b, _ := os.ReadFile(p); string(b) != "first" {
		t.Errorf("content after failures %q", b)
	}
	if names := dirNames(t, dir); len(names) != 1 || names[0] != "out.json" {
		t.Errorf("directory holds %v", names)
	}

	// Replacing keeps the mode.
	if err := WriteFileAtomic(p, func(w io.Writer) error {
		_, err := io.WriteString(w, "third")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if b, _ := os.ReadFile(p); string(b) != "third" || fi.Mode().Perm() != 0o600 {
		t.Errorf("content %q mode %v", b, fi.Mode())
	}

	// A missing directory is an error naming it.
	if err := WriteFileAtomic(filepath.Join(dir, "no", "f"), func(io.Writer) error { return nil }); err == nil {
		t.Error("no error for a missing directory")
	}
}
