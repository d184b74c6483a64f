//go:build unix

package outfile

import (
	"errors"
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
	pid := strconv.Itoa(os.Getpid())
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", "/proc/" + pid + "/fd/"} {
		if n, ok := strings.CutPrefix(p, dir); ok {
			fd, err := strconv.Atoi(n)
			return fd, err == nil && fd >= 0
		}
	}
	// /proc/self/task/TID/fd/N and /proc/PID/task/TID/fd/N: a thread of
	// this process shares its descriptors.
	for _, dir := range []string{"/proc/self/task/", "/proc/" + pid + "/task/"} {
		if rest, ok := strings.CutPrefix(p, dir); ok {
			tid, n, ok := strings.Cut(rest, "/fd/")
			if _, err := strconv.Atoi(tid); !ok || err != nil || !taskOf(tid) {
				return 0, false
			}
			fd, err := strconv.Atoi(n)
			return fd, err == nil && fd >= 0
		}
	}
	return 0, false
}

// taskOf reports whether tid is a thread of this process (its directory
// under /proc/self/task).
func taskOf(tid string) bool {
	_, err := os.Stat("/proc/self/task/" + tid)
	return err == nil
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
// writing, without opening it (opening a FIFO would wait for a reader). A
// socket cannot be opened by its path ("no such device or address", after
// the command's work).
func checkWritable(p string) error {
	if fi, err := os.Stat(p); err == nil && fi.Mode()&fs.ModeSocket != 0 {
		return fmt.Errorf("%s is a socket, which a path cannot open for writing (give a descriptor connected to it, such as a shell's redirection)", p)
	}
	if err := unix.Access(p, unix.W_OK); err != nil {
		return &fs.PathError{Op: "write", Path: p, Err: err}
	}
	return nil
}

// checkDescriptor reports whether descriptor fd is open for writing, to
// a file, a pipe, a connected socket or a device. The others (an event
// poll or event descriptor, as Go's runtime holds, a timer: anonymous
// inodes) take no output: /proc/self/fd/7 passed the check and its write
// failed, "invalid argument", after the command's work; so did a socket
// not connected.
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
	case unix.S_IFREG, unix.S_IFIFO, unix.S_IFCHR, unix.S_IFBLK:
		return nil
	case unix.S_IFSOCK:
		if typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE); err == nil && typ == unix.SOCK_DGRAM {
			// Writes of 64 KiB are more than a datagram holds ("message
			// too long", after the command's work).
			return fmt.Errorf("descriptor %d is a datagram socket, which cannot take a stream of output", fd)
		}
		if _, err := unix.Getpeername(fd); errors.Is(err, unix.ENOTCONN) {
			return fmt.Errorf("descriptor %d is a socket that is not connected", fd)
		}
		return nil
	case unix.S_IFDIR:
		return fmt.Errorf("descriptor %d is a directory", fd)
	}
	return fmt.Errorf("descriptor %d is not a file, pipe, socket or device, and takes no output (an event, timer or poll descriptor, such as Go's runtime holds)", fd)
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
