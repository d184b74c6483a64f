// Package heapwatch measures, for tests, the most heap that a piece of
// work keeps live: what a garbage collection found reachable while it ran,
// above what was live before. It checks that memory does not grow with
// what a command or a request is given (rows, members), not timings.
package heapwatch

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

const liveBytes = "/gc/heap/live:bytes"

func live() uint64 {
	s := []metrics.Sample{{Name: liveBytes}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// PeakLive runs f and returns the most heap that a garbage collection
// found live meanwhile (sampled every 2 ms, and once more after a
// collection at f's end), above what was live before it.
func PeakLive(f func()) uint64 {
	runtime.GC()
	base := live()
	var peak atomic.Uint64
	note := func(v uint64) {
		for {
			p := peak.Load()
			if v <= p || peak.CompareAndSwap(p, v) {
				return
			}
		}
	}
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			note(live())
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	f()
	runtime.GC()
	close(done)
	<-stopped
	note(live())
	return max(peak.Load(), base) - base
}
