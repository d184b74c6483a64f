// Package par is decoreg's deterministic parallel-for.
//
// For splits an index range into contiguous chunks and runs one chunk per
// goroutine. The contract that keeps results bit-identical for any thread
// count: the body computes every output it writes from inputs alone, owns
// the outputs of the indices in its chunk exclusively, and visits them in
// a fixed order. Reductions across chunks are not offered: a sum over the
// parallel index must instead be reorganised so that one chunk owns each
// sum (for example, column sums are split over columns, not rows).
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// MinWork is the least estimated work (n*cost, in rough flops) given to one
// goroutine; below it the overhead of starting a goroutine (about a
// microsecond) would dominate.
const MinWork = 1 << 15

var threads atomic.Int64

// Threads reports the number of goroutines For uses at most: the value
// last given to SetThreads, or runtime.GOMAXPROCS(0) when unset or set to
// 0. It should agree with the GEMM's thread count so that the two kinds of
// work share the cores alike.
func Threads() int {
	if n := int(threads.Load()); n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// SetThreads sets the number of goroutines For uses; n <= 0 restores the
// default (GOMAXPROCS).
func SetThreads(n int) { threads.Store(int64(max(n, 0))) }

// For calls f(lo, hi) on contiguous chunks that partition [0, n), in
// parallel, and returns when all have returned. cost is the estimated work
// per index; when n*cost < 2*MinWork, or Threads() is 1, f(0, n) runs on
// the calling goroutine. The chunk boundaries depend on n, cost and
// Threads(); see the package comment for how bodies stay deterministic
// anyway.
func For(n, cost int, f func(lo, hi int)) {
	if n <= 0 {
		return
	}
	chunks := Chunks(n, cost)
	if chunks == 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	wg.Add(chunks - 1)
	for c := 1; c < chunks; c++ {
		lo, hi := c*n/chunks, (c+1)*n/chunks
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	f(0, n/chunks)
	wg.Wait()
}

// Chunks reports how many chunks For(n, cost, f) uses.
func Chunks(n, cost int) int {
	if n <= 0 {
		return 0
	}
	work := n * max(cost, 1)
	c := min(Threads(), n, work/MinWork)
	return max(c, 1)
}
