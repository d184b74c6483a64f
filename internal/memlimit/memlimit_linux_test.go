//go:build linux

package memlimit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCgroupLimits: the room under each limit from the cgroup up to the
// mount's root is the limit less the usage without the inactive page
// cache, plus the idle heap; "max" and v1's no-limit value are no limit;
// a cgroup directory that is not there (a container's view) is skipped.
func TestCgroupLimits(t *testing.T) {
	root := t.TempDir()
	write := func(dir, name, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// v2: a limit on the job, none on its parent, 3000 of 10000 used of
	// which 1000 is inactive cache.
	write("job/step", "memory.max", "max\n")
	write("job/step", "memory.current", "2500\n")
	write("job", "memory.max", "10000\n")
	write("job", "memory.current", "3000\n")
	write("job", "memory.stat", "anon 2000\ninactive_file 1000\nactive_file 0\n")
	write("", "memory.max", "max\n")
	ls := cgroupLimits(nil, root, "/job/step", "memory.max", "memory.current", "inactive_file", "v2", 50)
	if len(ls) != 1 || ls[0].Bytes != 10000-2000+50 || ls[0].What != "v2" {
		t.Errorf("v2: %+v", ls)
	}
	// v1: the cgroup of /proc/self/cgroup is not there (a container sees
	// its own as the root); the root's limit counts; 2^63-ish is none.
	v1 := filepath.Join(root, "v1")
	write("v1", "memory.limit_in_bytes", "8000\n")
	write("v1", "memory.usage_in_bytes", "5000\n")
	write("v1", "memory.stat", "inactive_file 10\ntotal_inactive_file 1000\n")
	ls = cgroupLimits(nil, v1, "/docker/abc", "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file", "v1", 0)
	if len(ls) != 1 || ls[0].Bytes != 8000-4000 {
		t.Errorf("v1: %+v", ls)
	}
	write("v1", "memory.limit_in_bytes", "9223372036854771712\n")
	if ls = cgroupLimits(nil, v1, "/", "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file", "v1", 0); len(ls) != 0 {
		t.Errorf("v1 without a limit: %+v", ls)
	}
}

// TestCgroupMounts: the cgroup2 and memory v1 mounts are found where
// mountinfo puts them (a hybrid host's unified/, a co-mounted controller,
// a container's root), with escaped names.
func TestCgroupMounts(t *testing.T) {
	info := `35 31 0:32 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
36 31 0:33 /docker/abc /sys/fs/cgroup/memory,hugetlb rw,relatime shared:9 - cgroup cgroup rw,memory,hugetlb
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
42 31 0:39 / /mnt/with\040space rw - ext4 /dev/sda1 rw
`
	v2, v1 := cgroupMounts(info)
	if v2 != (mount{"/sys/fs/cgroup/unified", "/"}) || v1 != (mount{"/sys/fs/cgroup/memory,hugetlb", "/docker/abc"}) {
		t.Errorf("mounts: v2 %+v, v1 %+v", v2, v1)
	}
	if got := v1.under("/docker/abc/step"); got != "/step" {
		t.Errorf("under the container's root: %q", got)
	}
	if got := v2.under("/user.slice/x"); got != "/user.slice/x" {
		t.Errorf("under /: %q", got)
	}
	if got := unescape(`/mnt/with\040space\`); got != `/mnt/with space\` {
		t.Errorf("unescape: %q", got)
	}
	if v2, v1 := cgroupMounts("garbage\n\n1 2 3 - cgroup2\n"); v2.point != "" || v1.point != "" {
		t.Errorf("garbage: %+v %+v", v2, v1)
	}
}
