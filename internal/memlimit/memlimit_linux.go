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
//     (v2 memory.max, v1 memory.limit_in_bytes, found where
//     /proc/self/mountinfo mounts them) less its usage without the
//     inactive page cache that the kernel reclaims first (as kubelet's
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
		mounts, _ := os.ReadFile("/proc/self/mountinfo")
		v2, v1 := cgroupMounts(string(mounts))
		for _, line := range strings.Split(string(b), "\n") {
			// "0::PATH" (v2) or "N:CONTROLLERS:PATH" (v1).
			f := strings.SplitN(line, ":", 3)
			if len(f) != 3 {
				continue
			}
			switch {
			case f[0] == "0" && f[1] == "" && v2.point != "":
				ls = cgroupLimits(ls, v2.point, v2.under(f[2]), "memory.max", "memory.current", "inactive_file", "the cgroup's memory.max", resident)
			case strings.Contains(","+f[1]+",", ",memory,") && v1.point != "":
				ls = cgroupLimits(ls, v1.point, v1.under(f[2]), "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file", "the cgroup's memory.limit_in_bytes", resident)
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

// mount is where a cgroup hierarchy is mounted (point) and the cgroup it
// shows there (root: "/" on a host, the container's own cgroup in one).
type mount struct{ point, root string }

// under returns the cgroup path of /proc/self/cgroup relative to the
// mount: path less the mount's root.
func (m mount) under(path string) string {
	if rel, ok := strings.CutPrefix(path, m.root); ok && m.root != "/" {
		return "/" + strings.TrimPrefix(rel, "/")
	}
	return path
}

// cgroupMounts finds in /proc/self/mountinfo's text the cgroup2 mount
// (/sys/fs/cgroup, or /sys/fs/cgroup/unified on hybrid hosts) and the
// cgroup v1 mount holding the memory controller (/sys/fs/cgroup/memory,
// or a co-mounted /sys/fs/cgroup/memory,hugetlb); empty points for none.
func cgroupMounts(info string) (v2, v1 mount) {
	for _, line := range strings.Split(info, "\n") {
		// ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 {
			continue
		}
		m := mount{point: unescape(f[4]), root: unescape(f[3])}
		switch {
		case g[0] == "cgroup2" && v2.point == "":
			v2 = m
		case g[0] == "cgroup" && strings.Contains(","+g[2]+",", ",memory,") && v1.point == "":
			v1 = m
		}
	}
	return v2, v1
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
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
