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
