package main

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// anonSpool makes the copy of an input as a file without a name in dir
// (O_TMPFILE): it is never in the directory, so that nothing is left
// there however the process ends. It returns the file, open for writing
// (the caller closes it), keep, another descriptor of it that holds it
// for the readers, and /proc/self/fd/N, keep's path, which the readers
// open; nils where the file system has no such files, or /proc is not
// mounted (dataFile then makes a named file and removes its name).
func anonSpool(dir string) (f, keep *os.File, proc string) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, nil, ""
	}
	f = os.NewFile(uintptr(fd), filepath.Join(dir, "decoreg-data (unnamed)"))
	if keep, proc = holdSpool(f, fmt.Sprintf("/proc/self/fd/%d", fd)); keep == nil {
		f.Close()
		return nil, nil, ""
	}
	return f, keep, proc
}
