package par

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// funcKernel adapts a closure to a Kernel.
type funcKernel func(lo, hi int)

func (f funcKernel) Run(lo, hi int) { f(lo, hi) }

func TestForCoversOnce(t *testing.T) {
	for _, th := range []int{1, 2, 3, 8} {
		for _, n := range []int{0, 1, 2, 5, 100, 1001} {
			for _, cost := range []int{1, MinWork, 10 * MinWork} {
				hits := make([]atomic.Int32, n)
				var calls atomic.Int32
				For(th, n, cost, funcKernel(func(lo, hi int) {
					calls.Add(1)
					if lo >= hi {
						t.Errorf("empty chunk [%d,%d)", lo, hi)
					}
					for i := lo; i < hi; i++ {
						hits[i].Add(1)
					}
				}))
				for i := range hits {
					if hits[i].Load() != 1 {
						t.Fatalf("threads %d n %d cost %d: index %d visited %d times", th, n, cost, i, hits[i].Load())
					}
				}
				if want := Chunks(th, n, cost); int(calls.Load()) != want {
					t.Fatalf("threads %d n %d cost %d: %d calls, Chunks says %d", th, n, cost, calls.Load(), want)
				}
				if n > 0 && cost >= MinWork && int(calls.Load()) != min(th, n) {
					t.Fatalf("threads %d n %d cost %d: %d chunks, want %d", th, n, cost, calls.Load(), min(th, n))
				}
			}
		}
	}
}

func TestSmallWorkSerial(t *testing.T) {
	if c := Chunks(4, 100, 1); c != 1 {
		t.Fatalf("tiny work split into %d chunks", c)
	}
	for _, th := range []int{0, -3} {
		if c := Chunks(th, 100, 10*MinWork); c != 1 {
			t.Fatalf("threads %d: %d chunks, want 1", th, c)
		}
	}
}

func TestResolve(t *testing.T) {
	if got := Resolve(3); got != 3 {
		t.Errorf("Resolve(3) = %d", got)
	}
	for _, n := range []int{0, -1} {
		if got, want := Resolve(n), runtime.GOMAXPROCS(0); got != want {
			t.Errorf("Resolve(%d) = %d, want GOMAXPROCS %d", n, got, want)
		}
	}
}

type fill struct{ out []float32 }

func (k fill) Run(lo, hi int) {
	for i := lo; i < hi; i++ {
		k.out[i] = float32(i)
	}
}

func TestSerialForAllocatesNothing(t *testing.T) {
	out := make([]float32, 1000)
	if a := testing.AllocsPerRun(10, func() { For(1, len(out), 1000, fill{out}) }); a != 0 {
		t.Errorf("serial For: %v allocations", a)
	}
	For(2, len(out), MinWork, fill{out})
	for i, v := range out {
		if v != float32(i) {
			t.Fatalf("out[%d] = %v", i, v)
		}
	}
}

func TestDo(t *testing.T) {
	for n := 0; n <= 5; n++ {
		for rep := range 3 { // later rounds reuse the pooled workers
			hits := make([]atomic.Int32, n)
			Do(n, n, func(w int) {
				hits[w].Add(1)
				if rep == 2 && w > 0 {
					// a nested loop inside a worker gets workers of its own
					var inner atomic.Int32
					Do(3, 3, func(int) { inner.Add(1) })
					if inner.Load() != 3 {
						t.Errorf("nested Do ran %d of 3", inner.Load())
					}
				}
			})
			for w := range hits {
				if hits[w].Load() != 1 {
					t.Fatalf("n %d: f(%d) called %d times", n, w, hits[w].Load())
				}
			}
		}
	}
}
