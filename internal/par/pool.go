package par

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// SpinWait is how long a pooled worker polls for its next task after each
// one before it parks, and how long a caller of Do polls (yielding) for
// its workers before it blocks, while the machine has cores to spare.
// Waking a parked goroutine costs tens of microseconds on a virtual
// machine, a noticeable share of a multiply or a layer that takes a few
// hundred.
const SpinWait = 100 * time.Microsecond

// When another process keeps a core busy, the operating system deschedules
// one of our threads for milliseconds at a time: polling then only takes
// time from the goroutine being waited for, and a worker descheduled in
// the middle of a work item holds up the whole multiply. Two signs of it
// mark the machine contended: a polling worker that starts its task late,
// and a caller that waits for its workers much longer than a work item
// takes. Two signs close together start a contended spell: nobody polls
// and the parallel loops run on the calling goroutine alone (the results
// do not depend on it); the spell lasts contendedMin, doubling up to
// contendedMax while the signs recur.
const (
	latePolled   = 500 * time.Microsecond // start delay of a polling worker
	lateWait     = time.Millisecond       // wait beyond twice a work item
	contendedMin = 50 * time.Millisecond
	contendedMax = 2 * time.Second
	// contendedConfirm is the longest gap between two signs that starts a
	// spell.
	contendedConfirm = 100 * time.Millisecond
)

var (
	contendedUntil atomic.Int64 // UnixNano
	contendedSpan  atomic.Int64 // length of the last spell, ns
	contendedLast  atomic.Int64 // UnixNano of the last spell's start
	lastSign       atomic.Int64 // UnixNano of the last sign
)

// Contended reports whether the machine is marked contended now (see
// SpinWait): Do then runs every call on the calling goroutine, and callers
// that plan their own split of the work (gemm) plan for one thread.
func Contended() bool { return time.Now().UnixNano() < contendedUntil.Load() }

// markContended records a sign of contention. A sign within
// contendedConfirm of the previous one starts a contended spell: twice as
// long as the last one if that began less than contendedMax ago, else
// contendedMin. (A lone sign is more likely a garbage collection or a
// short-lived process.)
func markContended() {
	now := time.Now().UnixNano()
	if prev := lastSign.Swap(now); now-prev > int64(contendedConfirm) {
		return
	}
	span := int64(contendedMin)
	if now-contendedLast.Load() < int64(contendedMax)+contendedSpan.Load() {
		span = min(2*contendedSpan.Load(), int64(contendedMax))
	}
	span = max(span, int64(contendedMin))
	contendedLast.Store(now)
	contendedSpan.Store(span)
	contendedUntil.Store(now + span)
}

// spinFor returns how long to poll now: SpinWait, or 0 on a contended
// machine.
func spinFor() time.Duration {
	if Contended() {
		return 0
	}
	return SpinWait
}

// goWorker runs f on one of the pooled worker goroutines, starting one if
// none is idle. The worker polls for its next task for a while after f
// returns (see SpinWait), then parks; it goes back to the pool as soon as
// f returns. Every parallel loop of the engine (For here, and gemm's
// multiplies through Do) runs on this one pool, so that one set of
// goroutines spins on the cores.
func goWorker(f func()) {
	w := pool.take()
	w.tasks <- task{f: f, sent: time.Now()}
}

// task is a function sent to a worker, with the time it was sent.
type task struct {
	f    func()
	sent time.Time
}

// spinning counts the workers polling for a task.
var spinning atomic.Int32

// worker is a pooled goroutine running the functions sent to it.
type worker struct {
	tasks chan task
}

func (w *worker) loop() {
	for {
		var t task
		got := false
		// At most GOMAXPROCS-1 workers poll, yielding as they go, so that
		// polling never keeps the goroutine that has work from running.
		if spinning.Add(1) < int32(runtime.GOMAXPROCS(0)) {
			for start, spin := time.Now(), spinFor(); !got && time.Since(start) < spin; {
				for i := 0; i < 64 && !got; i++ {
					select {
					case t = <-w.tasks:
						got = true
					default:
					}
				}
				runtime.Gosched()
			}
		}
		spinning.Add(-1)
		if got && time.Since(t.sent) > latePolled {
			markContended()
		}
		if !got {
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
// workers-1 pooled workers take the indices in turn from a shared
// counter, and Do returns as soon as every call has returned: a worker
// that starts late (its core taken by another process) finds less or
// nothing left and costs nothing. The caller polls (yielding) for SpinWait
// before it blocks. On a contended machine (see SpinWait) the calling
// goroutine makes all the calls.
func Do(items, workers int, f func(i int)) {
	workers = min(workers, items)
	if workers > 1 && Contended() {
		workers = 1
	}
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
		goWorker(func() { g.run() })
	}
	t0 := time.Now()
	mine := g.run()
	t1 := time.Now()
	// Yield while polling: a worker that was parked may have been queued
	// on this goroutine's own P.
	for spin := spinFor(); g.left.Load() != 0 && time.Since(t1) < spin; {
		runtime.Gosched()
	}
	g.wg.Wait()
	if wait, item := time.Since(t1), t1.Sub(t0)/time.Duration(max(mine, 1)); wait > 2*item+lateWait {
		markContended()
	}
}

// doCall is one Do: the calls f(i), i < n, handed out by next.
type doCall struct {
	f    func(int)
	n    int64
	next atomic.Int64
	left atomic.Int64 // calls not yet returned
	wg   sync.WaitGroup
}

// run makes calls until none is left to take and returns how many it
// made.
func (g *doCall) run() (calls int) {
	for {
		i := g.next.Add(1) - 1
		if i >= g.n {
			return calls
		}
		g.f(int(i))
		g.left.Add(-1)
		g.wg.Done()
		calls++
	}
}
