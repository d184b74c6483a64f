package outfile

import (
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOwnDescriptorRefused: a descriptor path that names one of the
// process's own anonymous inodes (an event descriptor, as Go's runtime
// holds) is refused by Check, which it passed: its write failed, "invalid
// argument", after the command's work. A pipe's descriptor is taken.
func TestOwnDescriptorRefused(t *testing.T) {
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		t.Skip("no eventfd:", err)
	}
	defer unix.Close(efd)
	path := "/proc/self/fd/" + strconv.Itoa(efd)
	if err := Check(path); err == nil || !strings.Contains(err.Error(), "one of the process's own") {
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
}
