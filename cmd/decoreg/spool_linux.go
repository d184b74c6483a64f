package main

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// anonSpool makes the copy of an input as a file without a name in dir
// (O_TMPFILE): it is never in the directory, so that nothing is left
// there however the process ends. It returns the file, open for writing,
// and /proc/self/fd/N, the path the readers open; nil where the file
// system has no such files, or /proc is not mounted (dataFile then makes
// a named file and removes its name).
func anonSpool(dir string) (*os.File, string) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, ""
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir, "decoreg-data (unnamed)"))
	proc := fmt.Sprintf("/proc/self/fd/%d", fd)
	a, err1 := f.Stat()
	b, err2 := os.Stat(proc)
	if err1 != nil || err2 != nil || !os.SameFile(a, b) {
		f.Close()
		return nil, ""
	}
	return f, proc
}
