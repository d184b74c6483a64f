package gemm

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// SpinWait is how long a pooled worker polls for its next task after each
// one before it parks, and how long a caller polls (yielding) for its
// workers before it blocks. Waking a parked goroutine costs tens of
// microseconds on a virtual machine, a noticeable share of a multiply or
// a layer that takes a few hundred.
const SpinWait = 100 * time.Microsecond

// Go runs f on one of the pooled worker goroutines that the parallel
// multiplies use, starting one if none is idle. The worker polls for its
// next task for SpinWait after f returns, then parks; it goes back to the
// pool as soon as f returns. Package par runs its parallel loops here too,
// so that one set of goroutines spins on the cores.
func Go(f func()) {
	w := pool.take()
	w.tasks <- f
}

// worker is a pooled goroutine running the functions sent to it.
type worker struct {
	tasks chan func()
}

func (w *worker) loop() {
	for {
		var task func()
		for start := time.Now(); task == nil && time.Since(start) < SpinWait; {
			for i := 0; i < 64 && task == nil; i++ {
				select {
				case task = <-w.tasks:
				default:
				}
			}
		}
		if task == nil {
			task = <-w.tasks
		}
		task()
		pool.give(w)
	}
}

// workerPool holds the idle workers, most recently idle last (those are
// likely still polling). Workers are created on demand, so that concurrent
// callers never wait for each other's workers, and live for the rest of
// the process, parked when idle.
type workerPool struct {
	mu   sync.Mutex
	idle []*worker
}

var pool workerPool

func (p *workerPool) take() *worker {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return w
	}
	p.mu.Unlock()
	w := &worker{tasks: make(chan func(), 1)}
	go w.loop()
	return w
}

func (p *workerPool) give(w *worker) {
	p.mu.Lock()
	p.idle = append(p.idle, w)
	p.mu.Unlock()
}

// parallel runs f(0), ..., f(n-1) at the same time, f(0) on the caller's
// goroutine and the others on pooled workers, and waits for all of them.
// The calls may wait for each other (the teams of a multiply meet at
// barriers).
func parallel(n int, f func(w int)) {
	if n <= 1 {
		f(0)
		return
	}
	var pending atomic.Int32
	pending.Store(int32(n - 1))
	var wg sync.WaitGroup
	wg.Add(n - 1)
	for i := 1; i < n; i++ {
		Go(func() {
			f(i)
			pending.Add(-1)
			wg.Done()
		})
	}
	f(0)
	// Yield while polling: a worker that was parked may have been queued
	// on this goroutine's own P.
	for start := time.Now(); pending.Load() != 0 && time.Since(start) < SpinWait; {
		runtime.Gosched()
	}
	wg.Wait()
}
