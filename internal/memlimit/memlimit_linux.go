//go:build linux

package memlimit

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
)

// Available returns the smallest of the limits it can read, each counting
// as free the heap the Go runtime holds but does not use (idleHeap; a
// model trained before in the same process leaves it, and it is reused):
//   - the address space limit (ulimit -v) less the process's virtual size;
//   - the memory limit of the process's cgroup and of each cgroup above it
//     (v2 memory.max, v1 memory.limit_in_bytes) less its usage without
//     the inactive page cache that the kernel reclaims first (as kubelet's
//     working set);
//   - the machine's MemAvailable and SwapFree.
//
// ok is false when it can read none.
func Available() (Limit, bool) {
	var ls []Limit
	mapped, resident := idleHeap()
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err == nil && r.Cur != ^uint64(0) {
		if vm, ok := lineNumber("/proc/self/status", "VmSize:"); ok {
			ls = append(ls, Limit{float64(r.Cur) - vm*1024 + mapped, "the address space limit (ulimit -v)"})
		}
	}
	if b, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			// "0::PATH" (v2) or "N:CONTROLLERS:PATH" (v1).
			f := strings.SplitN(line, ":", 3)
			if len(f) != 3 {
				continue
			}
			switch {
			case f[0] == "0" && f[1] == "":
				ls = cgroupLimits(ls, "/sys/fs/cgroup", f[2], "memory.max", "memory.current", "inactive_file", "the cgroup's memory.max", resident)
			case strings.Contains(","+f[1]+",", ",memory,"):
				ls = cgroupLimits(ls, "/sys/fs/cgroup/memory", f[2], "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file", "the cgroup's memory.limit_in_bytes", resident)
			}
		}
	}
	avail, ok1 := lineNumber("/proc/meminfo", "MemAvailable:")
	swap, ok2 := lineNumber("/proc/meminfo", "SwapFree:")
	if ok1 && ok2 {
		ls = append(ls, Limit{(avail+swap)*1024 + resident, "the machine's available memory and swap"})
	}
	return smallest(ls)
}

// noLimit: a cgroup v1 limit at or above it is none (the kernel writes
// the largest page multiple below 2^63).
const noLimit = 1 << 60

// cgroupLimits appends to ls the room under the memory limit of the cgroup
// path (mounted under root) and of each cgroup above it up to root: limit
// less usage, less the inactive page cache of memory.stat's key, plus the
// runtime's idle resident heap. A directory or file that is not there (a
// container sees its own cgroup as root) or a limit of "max" is skipped.
func cgroupLimits(ls []Limit, root, path, limitFile, usageFile, inactiveKey, what string, idle float64) []Limit {
	for dir := filepath.Join(root, filepath.Clean("/"+path)); ; dir = filepath.Dir(dir) {
		limit, okl := readNumber(filepath.Join(dir, limitFile))
		usage, oku := readNumber(filepath.Join(dir, usageFile))
		if okl && oku && limit < noLimit {
			inactive, _ := lineNumber(filepath.Join(dir, "memory.stat"), inactiveKey+" ")
			ls = append(ls, Limit{limit - max(usage-inactive, 0) + idle, what})
		}
		if dir == root || len(dir) <= len(root) {
			return ls
		}
	}
}

// idleHeap returns the bytes of heap the Go runtime holds without using
// them: mapped (in the virtual size: free, released to the OS, and unused
// in spans) and resident (free and unused, which the OS counts as used).
func idleHeap() (mapped, resident float64) {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
	}
	metrics.Read(s)
	v := func(i int) float64 {
		if s[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return float64(s[i].Value.Uint64())
	}
	return v(0) + v(1) + v(2), v(0) + v(2)
}

// lineNumber reads the number after key on the line starting with it in a
// file of /proc (status, meminfo: in kB) or of a cgroup (memory.stat: in
// bytes).
func lineNumber(path, key string) (float64, bool) {
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
