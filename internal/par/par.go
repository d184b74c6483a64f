// Package par is decoreg's deterministic parallel-for and the pool of
// worker goroutines that every parallel loop of the engine runs on (its
// own For, and the matrix multiplies of package gemm through Do).
//
// The thread count is an argument of every call, never a package setting:
// two models trained at once on different thread counts do not disturb
// each other. What is shared is the pool of goroutines and its record of
// whether another process keeps the cores busy (see SpinWait, Contended),
// neither of which changes any result.
//
// For splits an index range into contiguous chunks and runs them on the
// calling goroutine and pooled workers (see Do). The contract that keeps
// results bit-identical for any thread count: the kernel computes every
// output it writes from inputs alone, owns the outputs of the indices in
// its chunk exclusively, and visits them in a fixed order. Reductions
// across chunks are not offered: a sum over the parallel index must
// instead be reorganised so that one chunk owns each sum (for example,
// column sums are split over columns, not rows).
//
// The package imports nothing else of decoreg's.
package par

import "runtime"

// MinWork is the least estimated work (n*cost, in rough flops) given to one
// goroutine; below it the overhead of starting a goroutine (about a
// microsecond) would dominate.
const MinWork = 1 << 15

// Resolve returns the thread count that a setting of n stands for: n
// itself when positive, else runtime.GOMAXPROCS(0) (all cores). Settings
// (a model's Config.Threads) use 0 for "all cores"; the calls of the
// engine take the resolved count.
func Resolve(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// Kernel is the body of a parallel loop: Run(lo, hi) processes indices
// lo..hi-1. A kernel is a small struct whose fields are the loop's
// arguments (slices and sizes), so that a serial For allocates nothing.
type Kernel interface {
	Run(lo, hi int)
}

// For calls k.Run(lo, hi) on contiguous chunks that partition [0, n), on
// up to threads goroutines (the caller's and pooled workers; threads < 1
// counts as 1), and returns when all have returned. cost is the estimated
// work per index; when n*cost < 2*MinWork, or threads is 1, k.Run(0, n)
// runs on the calling goroutine without allocating. The chunk boundaries
// depend on threads, n and cost (see Chunks); see the package comment for
// how kernels stay deterministic anyway.
func For[K Kernel](threads, n, cost int, k K) {
	if n <= 0 {
		return
	}
	chunks := Chunks(threads, n, cost)
	if chunks == 1 {
		k.Run(0, n)
		return
	}
	j := &forJob[K]{k: k, n: n, chunks: chunks}
	Do(chunks, chunks, j.run)
}

// forJob is one parallel For: chunk c covers [c*n/chunks, (c+1)*n/chunks).
type forJob[K Kernel] struct {
	k         K
	n, chunks int
}

func (j *forJob[K]) run(c int) { j.k.Run(c*j.n/j.chunks, (c+1)*j.n/j.chunks) }

// Chunks reports how many chunks For(threads, n, cost, k) uses: at most
// threads, at most n, and few enough that each has MinWork.
func Chunks(threads, n, cost int) int {
	if n <= 0 {
		return 0
	}
	work := n * max(cost, 1)
	c := min(threads, n, work/MinWork)
	return max(c, 1)
}
