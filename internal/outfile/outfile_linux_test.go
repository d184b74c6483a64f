package outfile

import (
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOwnDescriptorRefused: a descriptor path that names an anonymous
// inode (an event descriptor, as Go's runtime holds) or a socket not
// connected is refused by Check, which they passed: their writes failed,
// "invalid argument" and "transport endpoint is not connected", after the
// command's work. A pipe's descriptor is taken, also through a thread's
// /proc/self/task/TID/fd/N (helper-153: not known as a descriptor).
func TestOwnDescriptorRefused(t *testing.T) {
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		t.Skip("no eventfd:", err)
	}
	defer unix.Close(efd)
	path := "/proc/self/fd/" + strconv.Itoa(efd)
	if err := Check(path); err == nil || !strings.Contains(err.Error(), "takes no output") {
		t.Errorf("Check(%s) of an eventfd: %v", path, err)
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	if err := Check("/proc/self/fd/" + strconv.Itoa(p[1])); err != nil {
		t.Errorf("Check of a pipe's write end: %v", err)
	}
	task := "/proc/self/task/" + strconv.Itoa(unix.Gettid()) + "/fd/" + strconv.Itoa(p[1])
	if fd, ok := descriptorPath(task); !ok || fd != p[1] {
		t.Errorf("%s: descriptor %d, %v", task, fd, ok)
	}
	if err := Check(task); err != nil {
		t.Errorf("Check(%s) of a pipe's write end: %v", task, err)
	}
	if _, ok := descriptorPath("/proc/self/task/999999999/fd/1"); ok {
		t.Error("a thread that is not this process's: taken as a descriptor")
	}
	sock, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(sock)
	if err := Check("/proc/self/fd/" + strconv.Itoa(sock)); err == nil || !strings.Contains(err.Error(), "not connected") {
		t.Errorf("Check of a socket not connected: %v", err)
	}
	var sp [2]int
	if sp, err = unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(sp[0])
	defer unix.Close(sp[1])
	if err := Check("/proc/self/fd/" + strconv.Itoa(sp[0])); err != nil {
		t.Errorf("Check of a connected socket: %v", err)
	}
	// A datagram socket, connected: writes of 64 KiB are too long for it
	// (helper-154).
	var dp [2]int
	if dp, err = unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(dp[0])
	defer unix.Close(dp[1])
	if err := Check("/proc/self/fd/" + strconv.Itoa(dp[0])); err == nil || !strings.Contains(err.Error(), "datagram") {
		t.Errorf("Check of a datagram socket: %v", err)
	}
	// A socket file, by its path: open cannot take it.
	sockPath := t.TempDir() + "/s.sock"
	ls, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ls)
	if err := unix.Bind(ls, &unix.SockaddrUnix{Name: sockPath}); err != nil {
		t.Fatal(err)
	}
	if err := Check(sockPath); err == nil || !strings.Contains(err.Error(), "is a socket") {
		t.Errorf("Check of a socket file: %v", err)
	}
}
