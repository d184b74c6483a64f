// Package par is decoreg's deterministic parallel-for.
//
// For splits an index range into contiguous chunks and runs them on the
// calling goroutine and a pool of workers (see Do). The contract that keeps results bit-identical for any thread
// count: the kernel computes every output it writes from inputs alone, owns
// the outputs of the indices in its chunk exclusively, and visits them in
// a fixed order. Reductions across chunks are not offered: a sum over the
// parallel index must instead be reorganised so that one chunk owns each
// sum (for example, column sums are split over columns, not rows).
package par

import (
	"sync/atomic"

	"decoreg/internal/gemm"
)

// MinWork is the least estimated work (n*cost, in rough flops) given to one
// goroutine; below it the overhead of starting a goroutine (about a
// microsecond) would dominate.
const MinWork = 1 << 15

var threads atomic.Int64

// Threads reports the number of goroutines For uses at most: the value
// last given to SetThreads, or else gemm.Threads(), so that by default the
// layers and the matrix multiply share the cores alike (set the count for
// both with gemm.SetThreads).
func Threads() int {
	if n := int(threads.Load()); n > 0 {
		return n
	}
	return gemm.Threads()
}

// SetThreads overrides the number of goroutines For uses; n <= 0 restores
// the default (follow gemm.Threads()).
func SetThreads(n int) { threads.Store(int64(max(n, 0))) }

// Kernel is the body of a parallel loop: Run(lo, hi) processes indices
// lo..hi-1. A kernel is a small struct whose fields are the loop's
// arguments (slices and sizes), so that a serial For allocates nothing.
type Kernel interface {
	Run(lo, hi int)
}

// For calls k.Run(lo, hi) on contiguous chunks that partition [0, n), in
// parallel, and returns when all have returned. cost is the estimated work
// per index; when n*cost < 2*MinWork, or Threads() is 1, k.Run(0, n) runs
// on the calling goroutine without allocating. The chunk boundaries depend
// on n, cost and Threads(); see the package comment for how kernels stay
// deterministic anyway.
func For[K Kernel](n, cost int, k K) {
	if n <= 0 {
		return
	}
	chunks := Chunks(n, cost)
	if chunks == 1 {
		k.Run(0, n)
		return
	}
	j := &forJob[K]{k: k, n: n, chunks: chunks}
	Do(chunks, j.run)
}

// forJob is one parallel For: chunk c covers [c*n/chunks, (c+1)*n/chunks).
type forJob[K Kernel] struct {
	k         K
	n, chunks int
}

func (j *forJob[K]) run(c int) { j.k.Run(c*j.n/j.chunks, (c+1)*j.n/j.chunks) }

// Do calls f(0), ..., f(n-1), on the calling goroutine and up to n-1
// pooled workers, and returns when all have returned: gemm.Do with n
// workers. The calls are independent (any goroutine may make any of them;
// none may wait for another); a worker that starts late finds less to do.
func Do(n int, f func(w int)) { gemm.Do(n, n, f) }

// Func adapts a closure to a Kernel: For(n, cost, Func(f)). Convenient,
// but the closure usually costs one heap allocation per call.
type Func func(lo, hi int)

// Run calls f(lo, hi).
func (f Func) Run(lo, hi int) { f(lo, hi) }

// Chunks reports how many chunks For(n, cost, f) uses.
func Chunks(n, cost int) int {
	if n <= 0 {
		return 0
	}
	work := n * max(cost, 1)
	c := min(Threads(), n, work/MinWork)
	return max(c, 1)
}
