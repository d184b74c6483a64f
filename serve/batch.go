package serve

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"decoreg"
	"decoreg/dist"
)

// A job is one request's rows waiting to be predicted.
type job struct {
	ctx   context.Context
	q     *query
	preds []Prediction
	err   error
	done  chan struct{}

	panicked atomic.Pointer[string] // the first panic of its rows
}

var (
	errQueueFull = errors.New("the model's queue is full")
	errRetired   = errors.New("the model was replaced")
)

// batcher is one model's micro-batcher: requests that arrive together are
// predicted in one encoder pass, their rows' summaries spread over the
// worker goroutines. A batch closes when it holds maxRows rows, when no
// other request is on its way (parsed and about to be queued), or wait
// after its first request, whichever comes first; so a lone request never
// waits.
type batcher struct {
	m       *decoreg.Model
	queue   chan *job
	wait    time.Duration
	maxRows int
	workers int
	pending atomic.Int64 // requests parsed and on their way into a batch (queued or about to be)
	observe func(requests, rows int)

	mu     sync.RWMutex
	closed bool
	exited chan struct{}

	slots chan struct{} // without batching: one per request being predicted
}

func newBatcher(m *decoreg.Model, o *Options, observe func(requests, rows int)) *batcher {
	b := &batcher{
		m: m, queue: make(chan *job, o.QueueLen), wait: o.BatchWait, maxRows: o.MaxBatchRows,
		workers: o.Workers, observe: observe, exited: make(chan struct{}),
	}
	if o.NoBatching {
		b.slots = make(chan struct{}, o.QueueLen)
		close(b.exited)
		return b
	}
	go b.loop()
	return b
}

// submit queues j, or returns errQueueFull or errRetired at once. Without
// batching it predicts j at once on the caller's goroutine, if fewer than
// QueueLen requests are being predicted.
func (b *batcher) submit(j *job) error {
	if b.slots != nil {
		select {
		case b.slots <- struct{}{}:
		default:
			return errQueueFull
		}
		go func() {
			defer func() { <-b.slots }()
			b.run([]*job{j})
		}()
		return nil
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return errRetired
	}
	b.pending.Add(1)
	select {
	case b.queue <- j:
		return nil
	default:
		b.pending.Add(-1)
		return errQueueFull
	}
}

// close stops taking jobs; the loop finishes the queued ones and exits.
func (b *batcher) close() {
	if b.slots != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		close(b.queue)
	}
}

func (b *batcher) loop() {
	defer close(b.exited)
	var batch []*job
	for {
		j, ok := <-b.queue
		if !ok {
			return
		}
		b.pending.Add(-1)
		batch = append(batch[:0], j)
		rows := j.q.rows
		open := true
		var timer *time.Timer
		for open && rows < b.maxRows && b.pending.Load() > 0 {
			if timer == nil {
				timer = time.NewTimer(b.wait)
			}
			select {
			case j, ok := <-b.queue:
				if !ok {
					open = false
					break
				}
				b.pending.Add(-1)
				batch = append(batch, j)
				rows += j.q.rows
			case <-timer.C:
				open = false
			}
		}
		if timer != nil {
			timer.Stop()
		}
		b.run(batch)
		clear(batch)
	}
}

// run predicts a batch: one Dists call over all its rows, then every row's
// outputs on the workers.
func (b *batcher) run(batch []*job) {
	live := batch[:0:0]
	rows := 0
	for _, j := range batch {
		if err := j.ctx.Err(); err != nil {
			j.err = err
			close(j.done)
			continue
		}
		live = append(live, j)
		rows += j.q.rows
	}
	if len(live) == 0 {
		return
	}
	if b.observe != nil {
		b.observe(len(live), rows)
	}
	ds := make([][]dist.Distribution, len(live))
	x := live[0].q.x
	if len(live) > 1 {
		x = make([]float64, 0, rows*b.m.Features())
		for _, j := range live {
			x = append(x, j.q.x...)
		}
	}
	// The rows are spread over the workers, each row's decoder steps on
	// one core; fewer rows than workers (and, without batching, fewer
	// requests in flight) lend the spare cores to each row's steps.
	busy := rows
	if b.slots != nil {
		busy = max(rows, len(b.slots))
	}
	opts := dist.TokenOptions{Threads: max(1, b.workers/busy)}
	all, err := b.m.Dists(x, rows, opts)
	switch {
	case err == nil:
		lo := 0
		for k, j := range live {
			ds[k] = all[lo : lo+j.q.rows]
			lo += j.q.rows
		}
	case len(live) == 1:
		live[0].err = err
	default:
		// Some row overflowed: find whose, one job at a time.
		for k, j := range live {
			ds[k], j.err = b.m.Dists(j.q.x, j.q.rows, opts)
		}
	}
	// The rows of all jobs, in order, shared among the workers.
	type task struct{ k, i int }
	var tasks []task
	for k, j := range live {
		if j.err != nil {
			continue
		}
		j.preds = make([]Prediction, j.q.rows)
		for i := range j.q.rows {
			tasks = append(tasks, task{k, i})
		}
	}
	var next atomic.Int64
	work := func() {
		for {
			t := int(next.Add(1)) - 1
			if t >= len(tasks) {
				return
			}
			k, i := tasks[t].k, tasks[t].i
			if j := live[k]; j.ctx.Err() == nil {
				answerRow(j, ds[k][i], i)
			}
		}
	}
	var wg sync.WaitGroup
	for range min(b.workers, len(tasks)) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	for _, j := range live {
		if j.err == nil {
			j.err = j.ctx.Err()
		}
		if p := j.panicked.Load(); j.err == nil && p != nil {
			j.err = &internalError{*p}
		}
		close(j.done)
	}
}

// answerRow computes row i of j. A panic (the library does not panic on
// valid input; this is the last line of defence) fails the job with an
// internal error instead of crashing the server.
func answerRow(j *job, dd dist.Distribution, i int) {
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprintf("row %d: %v", i, r)
			j.panicked.CompareAndSwap(nil, &msg)
		}
	}()
	j.preds[i] = j.q.answer(j.ctx, dd, i)
}

// internalError is a failure that is not the client's fault (HTTP 500).
type internalError struct{ msg string }

func (e *internalError) Error() string { return "internal error: " + e.msg }
