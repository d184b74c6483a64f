package gemm

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestGo runs many tasks through the pool from several goroutines at once,
// some of them starting tasks of their own: every task runs exactly once.
func TestGo(t *testing.T) {
	const callers, per = 4, 50
	var ran atomic.Int32
	var wg sync.WaitGroup
	wg.Add(callers * per * 2)
	for range callers {
		go func() {
			for range per {
				Go(func() {
					ran.Add(1)
					Go(func() { ran.Add(1); wg.Done() }) // nested
					wg.Done()
				})
			}
		}()
	}
	wg.Wait()
	if got := ran.Load(); got != callers*per*2 {
		t.Fatalf("%d tasks ran, want %d", got, callers*per*2)
	}
}
