//go:build linux

package memlimit

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Available returns the smallest of the limits it can read: the address
// space limit (ulimit -v) less the process's virtual size, the memory.max
// of the process's cgroup and of each cgroup above it (v2) less their
// memory.current, and the machine's MemAvailable and SwapFree; ok is false
// when it can read none.
func Available() (Limit, bool) {
	var ls []Limit
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err == nil && r.Cur != ^uint64(0) {
		if vm, ok := statusKB("/proc/self/status", "VmSize:"); ok {
			ls = append(ls, Limit{float64(r.Cur) - vm*1024, "the address space limit (ulimit -v)"})
		}
	}
	if b, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			path, ok := strings.CutPrefix(line, "0::")
			if !ok {
				continue
			}
			for dir := filepath.Join("/sys/fs/cgroup", filepath.Clean("/"+path)); strings.HasPrefix(dir, "/sys/fs/cgroup"); dir = filepath.Dir(dir) {
				max, okm := readNumber(filepath.Join(dir, "memory.max"))
				cur, okc := readNumber(filepath.Join(dir, "memory.current"))
				if okm && okc {
					ls = append(ls, Limit{max - cur, "the cgroup's memory.max"})
				}
				if dir == "/sys/fs/cgroup" {
					break
				}
			}
		}
	}
	avail, ok1 := statusKB("/proc/meminfo", "MemAvailable:")
	swap, ok2 := statusKB("/proc/meminfo", "SwapFree:")
	if ok1 && ok2 {
		ls = append(ls, Limit{(avail + swap) * 1024, "the machine's available memory and swap"})
	}
	return smallest(ls)
}

// statusKB reads the value in kB of the line starting with key in a file
// of /proc (status, meminfo).
func statusKB(path, key string) (float64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return 0, false
			}
			v, err := strconv.ParseFloat(f[0], 64)
			return v, err == nil
		}
	}
	return 0, false
}

// readNumber reads a file holding one number ("max", for no limit, is
// not one).
func readNumber(path string) (float64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	return v, err == nil
}
