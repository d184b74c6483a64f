package heapwatch

import (
	"runtime"
	"testing"
)

var sink [][]byte

// TestPeakLive: memory held until f returns is seen; memory let go as
// f goes is mostly not.
func TestPeakLive(t *testing.T) {
	held := PeakLive(func() {
		for range 64 {
			sink = append(sink, make([]byte, 1<<20))
			runtime.GC() // a collection sees what is held so far
		}
		sink = nil
	})
	if held < 48<<20 {
		t.Errorf("64 MiB held until the end: peak %d MiB", held>>20)
	}
	passing := PeakLive(func() {
		for range 64 {
			sink = [][]byte{make([]byte, 1<<20)}
			runtime.GC()
		}
		sink = nil
	})
	if passing > 16<<20 {
		t.Errorf("1 MiB at a time: peak %d MiB", passing>>20)
	}
}
