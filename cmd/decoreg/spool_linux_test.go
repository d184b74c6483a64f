package main

import "golang.org/x/sys/unix"

// unnamedFiles reports whether the file system of dir makes files without
// a name (O_TMPFILE).
func unnamedFiles(dir string) bool {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}
