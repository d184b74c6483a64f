package gemm

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// SpinWait is how long a pooled worker polls for its next task after each
// one before it parks, and how long a caller polls (yielding) for its
// workers before it blocks, while the machine has cores to spare. Waking a
// parked goroutine costs tens of microseconds on a virtual machine, a
// noticeable share of a multiply or a layer that takes a few hundred.
//
// When another process keeps the cores busy, polling only takes time from
// the goroutine being waited for: a polling worker that finds its task
// late (it was descheduled) marks the machine contended, and for the next
// contendedFor nobody polls.
const SpinWait = 100 * time.Microsecond

const (
	// lateTask is the delay between sending a task to a polling worker
	// and its start beyond which the worker must have been descheduled.
	lateTask = 30 * time.Microsecond
	// contendedFor is how long polling stays off after a late task.
	contendedFor = 50 * time.Millisecond
)

// contendedUntil is the time (UnixNano) before which nobody polls.
var contendedUntil atomic.Int64

// spinFor returns how long to poll now: SpinWait, or 0 on a contended
// machine.
func spinFor() time.Duration {
	if time.Now().UnixNano() < contendedUntil.Load() {
		return 0
	}
	return SpinWait
}

// Go runs f on one of the pooled worker goroutines that the parallel
// multiplies use, starting one if none is idle. The worker polls for its
// next task for a while after f returns (see SpinWait), then parks; it
// goes back to the pool as soon as f returns. Package par runs its
// parallel loops here too, so that one set of goroutines spins on the
// cores.
func Go(f func()) {
	w := pool.take()
	w.tasks <- task{f: f, sent: time.Now()}
}

// task is a function sent to a worker, with the time it was sent.
type task struct {
	f    func()
	sent time.Time
}

// worker is a pooled goroutine running the functions sent to it.
type worker struct {
	tasks chan task
}

func (w *worker) loop() {
	for {
		var t task
		got := false
		for start, spin := time.Now(), spinFor(); !got && time.Since(start) < spin; {
			for i := 0; i < 64 && !got; i++ {
				select {
				case t = <-w.tasks:
					got = true
				default:
				}
			}
		}
		if got {
			if now := time.Now(); now.Sub(t.sent) > lateTask {
				contendedUntil.Store(now.Add(contendedFor).UnixNano())
			}
		} else {
			t = <-w.tasks
		}
		t.f()
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
	w := &worker{tasks: make(chan task, 1)}
	go w.loop()
	return w
}

func (p *workerPool) give(w *worker) {
	p.mu.Lock()
	p.idle = append(p.idle, w)
	p.mu.Unlock()
}

// Do calls f(0), ..., f(items-1) and returns when all have returned. The
// calls are independent: any goroutine may make any of them, in any order
// (a call must not wait for another). The calling goroutine and up to
// workers-1 pooled workers (Go) take the indices in turn from a shared
// counter, and Do returns as soon as every call has returned: a worker
// that starts late (its core taken by another process) finds less or
// nothing left and costs nothing. The caller polls (yielding) for SpinWait
// before it blocks, unless the machine is contended.
func Do(items, workers int, f func(i int)) {
	workers = min(workers, items)
	if workers <= 1 {
		for i := range items {
			f(i)
		}
		return
	}
	g := &doCall{f: f, n: int64(items)}
	g.left.Store(int64(items))
	g.wg.Add(items)
	for range workers - 1 {
		Go(g.run)
	}
	g.run()
	// Yield while polling: a worker that was parked may have been queued
	// on this goroutine's own P.
	for start, spin := time.Now(), spinFor(); g.left.Load() != 0 && time.Since(start) < spin; {
		runtime.Gosched()
	}
	g.wg.Wait()
}

// doCall is one Do: the calls f(i), i < n, handed out by next.
type doCall struct {
	f    func(int)
	n    int64
	next atomic.Int64
	left atomic.Int64 // calls not yet returned
	wg   sync.WaitGroup
}

// run makes calls until none is left to take.
func (g *doCall) run() {
	for {
		i := g.next.Add(1) - 1
		if i >= g.n {
			return
		}
		g.f(int(i))
		g.left.Add(-1)
		g.wg.Done()
	}
}
