package serve

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
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
// predicted in one encoder pass, and their rows' decoder steps are shared
// (dist.Prepare). Workers executors take batches from one queue, each
// batch on one core (spare cores are lent to it: a lone request does not
// wait for a busy one), so that batches run side by side instead of one
// at a time, and requests are served in the order they came. A batch
// closes when it holds maxRows rows, when no other request is on its way
// (parsed and about to be queued), or wait after its first request,
// whichever comes first; so a lone request never waits.
type batcher struct {
	m       *decoreg.Model
	queue   chan *job
	wait    time.Duration
	maxRows int
	workers int
	pending atomic.Int64 // requests parsed and on their way into a batch (queued or about to be)
	busy    atomic.Int64 // executors (or, without batching, requests) computing
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
	var wg sync.WaitGroup
	for range b.workers {
		wg.Go(b.loop)
	}
	go func() {
		wg.Wait()
		close(b.exited)
	}()
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
			b.busy.Add(1)
			defer b.busy.Add(-1)
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

// close stops taking jobs; the executors finish the queued ones and exit.
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

// loop is one executor: it takes the next request, gathers a batch behind
// it, and predicts the batch.
func (b *batcher) loop() {
	var batch []*job
	for {
		j, ok := <-b.queue
		if !ok {
			return
		}
		b.pending.Add(-1)
		batch = append(batch[:0], j)
		rows := j.q.rows
		// Let the goroutines that are reading requests run first: with
		// every core busy predicting, they would otherwise wait for the
		// scheduler's preemption, and each batch would hold one request.
		runtime.Gosched()
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
		b.busy.Add(1)
		b.run(batch)
		b.busy.Add(-1)
		clear(batch)
	}
}

// batchChunk is how many rows of a batch dists encodes and hands to the
// network at once: the network's own chunk of rows (so that the rows are
// its batches as in one call), and a table of rows × encoded features
// not held whole.
const batchChunk = 1024

// dists returns the distributions of the rows of jobs (rows in all), in
// order, encoded and built batchChunk rows at a time across the jobs. A
// *decoreg.DataError's row is a row of the jobs' rows together.
func (b *batcher) dists(jobs []*job, rows int, opts dist.TokenOptions) ([]dist.Distribution, error) {
	d := b.m.Features()
	all := make([]dist.Distribution, 0, rows)
	x := make([]float64, min(rows, batchChunk)*d)
	k, i := 0, 0 // the next row to encode: row i of jobs[k]
	for lo := 0; lo < rows; lo += batchChunk {
		n := min(batchChunk, rows-lo)
		for got := 0; got < n; {
			q := jobs[k].q
			m := min(n-got, q.rows-i)
			if err := q.fill(i, i+m, d, x[got*d:(got+m)*d]); err != nil {
				return nil, err
			}
			got, i = got+m, i+m
			if i == q.rows {
				k, i = k+1, 0
			}
		}
		ds, err := b.m.Dists(context.Background(), x[:n*d], n, opts)
		if err != nil {
			var de *decoreg.DataError
			if errors.As(err, &de) && de.Row >= 0 {
				c := *de
				c.Row += lo
				return nil, &c
			}
			return nil, err
		}
		all = append(all, ds...)
	}
	return all, nil
}

// prepareGroup is the most rows whose decoder steps one dist.Prepare
// shares (as decoreg's PredictFlat does).
const prepareGroup = 8

// run predicts a batch: one Dists call over all its rows, then their
// summaries, prepared in groups of rows, on the cores that no other
// batch (or request) is using, at least one.
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
	cores := max(1, b.workers-int(b.busy.Load())+1)
	ds := make([][]dist.Distribution, len(live))
	// A row's decoder steps use the spare cores when the rows are fewer.
	opts := dist.TokenOptions{Threads: max(1, cores/rows)}
	all, err := b.dists(live, rows, opts)
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
			ds[k], j.err = b.dists(live[k:k+1], j.q.rows, opts)
		}
	}
	// The rows of all jobs, in order, in groups shared among the cores.
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
	group := max(1, min(prepareGroup, (len(tasks)+cores-1)/cores))
	groups := (len(tasks) + group - 1) / group
	var next atomic.Int64
	work := func() {
		for {
			g := int(next.Add(1)) - 1
			if g >= groups {
				return
			}
			answerGroup(live, ds, tasks[g*group:min((g+1)*group, len(tasks))])
		}
	}
	var wg sync.WaitGroup
	for range min(cores, groups) - 1 {
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

// task is row i of job k of a batch.
type task struct{ k, i int }

// answerGroup computes the rows of tasks: their summaries prepared
// together (dist.Prepare: the decoder steps of the rows' mean expansions
// and quantile walks shared), then each row's answer.
func answerGroup(live []*job, ds [][]dist.Distribution, tasks []task) {
	reqs := make([]dist.PrepareRequest, 0, len(tasks))
	for _, t := range tasks {
		j := live[t.k]
		if j.ctx.Err() != nil {
			continue
		}
		q := j.q
		r := dist.PrepareRequest{Dist: ds[t.k][t.i], Mean: q.want[outMean], Mode: q.want[outMode]}
		if q.want[outQuantiles] {
			r.Levels = q.levels
		}
		if q.want[outMedian] {
			r.Levels = append(slices.Clip(r.Levels), 0.5)
		}
		reqs = append(reqs, r)
	}
	if !prepare(live, tasks, reqs) {
		return
	}
	for _, t := range tasks {
		if j := live[t.k]; j.ctx.Err() == nil {
			answerRow(j, ds[t.k][t.i], t.i)
		}
		// Answered: its distribution, with the tree expansion or the
		// members' pieces its summaries cached (up to hundreds of KB),
		// is let go, not held until the whole batch is answered (10,000
		// rows of an ensemble of 3 took 5 GB).
		ds[t.k][t.i] = nil
	}
}

// prepare runs dist.Prepare(reqs). A panic (the library does not panic on
// valid input; this is the last line of defence) fails the tasks' jobs
// with an internal error instead of crashing the server.
func prepare(live []*job, tasks []task, reqs []dist.PrepareRequest) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprintf("preparing a group of %d rows: %v", len(tasks), r)
			for _, t := range tasks {
				live[t.k].panicked.CompareAndSwap(nil, &msg)
			}
			ok = false
		}
	}()
	dist.Prepare(reqs)
	return true
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
