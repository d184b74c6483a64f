//go:build unix

package outfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// descriptorPath reports whether p names an open descriptor of this
// process (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N,
// /proc/PID/fd/N with this process's PID) and which.
func descriptorPath(p string) (int, bool) {
	p = filepath.Clean(p)
	switch p {
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", "/proc/" + strconv.Itoa(os.Getpid()) + "/fd/"} {
		if n, ok := strings.CutPrefix(p, dir); ok {
			fd, err := strconv.Atoi(n)
			return fd, err == nil && fd >= 0
		}
	}
	return 0, false
}

// keepOwner gives the new file f the owner and group of the file it
// replaces (fi), where the process may (as root, or as the owner in a
// group of the file's): best effort, an error is ignored, as cp -p does
// without privilege.
func keepOwner(f *os.File, fi fs.FileInfo) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		f.Chown(int(st.Uid), int(st.Gid))
	}
}

// writable reports whether the existing regular file p may be replaced:
// it has a write permission bit and this process may write it.
func writable(p string, fi fs.FileInfo) bool {
	return fi.Mode().Perm()&0o222 != 0 && unix.Access(p, unix.W_OK) == nil
}

// checkWritable reports whether the existing file p can be opened for
// writing, without opening it (opening a FIFO would wait for a reader).
func checkWritable(p string) error {
	if err := unix.Access(p, unix.W_OK); err != nil {
		return &fs.PathError{Op: "write", Path: p, Err: err}
	}
	return nil
}

// checkDescriptor reports whether descriptor fd is open for writing, to
// a file, a pipe, a socket or a device. The others are the process's own
// (an event poll or event descriptor of Go's runtime, an anonymous inode:
// /proc/self/fd/7 passed the check and its write failed, "invalid
// argument", after the command's work).
func checkDescriptor(fd int) error {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return fmt.Errorf("descriptor %d is not open: %w", fd, err)
	}
	if fl&unix.O_ACCMODE == unix.O_RDONLY {
		return fmt.Errorf("descriptor %d is not open for writing", fd)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("descriptor %d: %w", fd, err)
	}
	switch uint32(st.Mode) & unix.S_IFMT {
	case unix.S_IFREG, unix.S_IFIFO, unix.S_IFSOCK, unix.S_IFCHR, unix.S_IFBLK:
		return nil
	case unix.S_IFDIR:
		return fmt.Errorf("descriptor %d is a directory", fd)
	}
	return fmt.Errorf("descriptor %d is not a file, pipe, socket or device that was given to the process (it is one of the process's own)", fd)
}

// dupDescriptor returns a File writing to a duplicate of descriptor fd,
// which can be closed without closing fd.
func dupDescriptor(fd int, name string) (*os.File, error) {
	if err := checkDescriptor(fd); err != nil {
		return nil, err
	}
	d, err := unix.Dup(fd)
	if err != nil {
		return nil, fmt.Errorf("descriptor %d: %w", fd, err)
	}
	unix.CloseOnExec(d)
	return os.NewFile(uintptr(d), name), nil
}
