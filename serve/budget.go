package serve

import (
	"context"
	"sync"
)

// budget is a count of units (the numbers of answers being made) that
// requests take before their work and give back once answered: a weighted
// semaphore, first come first served, so that a large request is not
// starved by small ones passing it.
type budget struct {
	mu    sync.Mutex
	free  int
	waits []*budgetWait // in arrival order
}

type budgetWait struct {
	n     int
	ready chan struct{} // closed once the units are taken for it
}

func newBudget(n int) *budget { return &budget{free: n} }

// take takes n units (at most the budget's total), waiting for them until
// ctx is done, whose error it then returns, with nothing taken.
func (b *budget) take(ctx context.Context, n int) error {
	b.mu.Lock()
	if len(b.waits) == 0 && n <= b.free {
		b.free -= n
		b.mu.Unlock()
		return nil
	}
	w := &budgetWait{n: n, ready: make(chan struct{})}
	b.waits = append(b.waits, w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.ready: // taken for it meanwhile: given back
		b.free += n
	default:
		for i, o := range b.waits {
			if o == w {
				b.waits = append(b.waits[:i], b.waits[i+1:]...)
				break
			}
		}
	}
	b.grant() // the first waiting may have changed
	return ctx.Err()
}

// tryTake takes n units if they are free now, ahead of the requests
// waiting (a body's buffer growing: a request that holds room never waits
// for more, so that requests holding room cannot wait on each other).
func (b *budget) tryTake(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.free {
		return false
	}
	b.free -= n
	return true
}

// give gives back n units taken.
func (b *budget) give(n int) {
	b.mu.Lock()
	b.free += n
	b.grant()
	b.mu.Unlock()
}

// grant takes units for the waiting requests in order, while the first
// one's fit.
func (b *budget) grant() {
	for len(b.waits) > 0 && b.waits[0].n <= b.free {
		w := b.waits[0]
		b.waits = b.waits[1:]
		b.free -= w.n
		close(w.ready)
	}
}
