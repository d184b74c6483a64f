package memlimit

import (
	"runtime"
	"testing"
)

// TestAvailable: on Linux some limit is known (the machine's memory at
// least), positive and below a petabyte; smallest picks the least.
func TestAvailable(t *testing.T) {
	l, ok := Available()
	if runtime.GOOS == "linux" && (!ok || !(l.Bytes > 0 && l.Bytes < 1e15) || l.What == "") {
		t.Errorf("Available() = %+v, %v", l, ok)
	}
	if m, ok := smallest([]Limit{{3, "a"}, {1, "b"}, {2, "c"}}); !ok || m.What != "b" {
		t.Errorf("smallest = %+v", m)
	}
	if _, ok := smallest(nil); ok {
		t.Error("smallest of none")
	}
}
