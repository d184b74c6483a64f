package par

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestGoWorker runs many tasks through the pool from several goroutines at once,
// some of them starting tasks of their own: every task runs exactly once.
func TestGoWorker(t *testing.T) {
	const callers, per = 4, 50
	var ran atomic.Int32
	var wg sync.WaitGroup
	wg.Add(callers * per * 2)
	for range callers {
		go func() {
			for range per {
				goWorker(func() {
					ran.Add(1)
					goWorker(func() { ran.Add(1); wg.Done() }) // nested
					wg.Done()
				})
			}
		}()
	}
	wg.Wait()
	if got := ran.Load(); got != callers*per*2 {
		t.Fatalf("%d tasks ran, want %d", got, callers*per*2)
	}
}

// TestContendedSpells checks the back-off of the contended spells and that
// a contended Do runs every call on the caller, in order.
func TestContendedSpells(t *testing.T) {
	defer func() {
		contendedUntil.Store(0)
		contendedSpan.Store(0)
		contendedLast.Store(0)
		lastSign.Store(0)
	}()
	contendedUntil.Store(0)
	contendedSpan.Store(0)
	contendedLast.Store(0)
	if Contended() {
		t.Fatal("contended before any sign")
	}
	lastSign.Store(0)
	markContended() // a lone sign
	if Contended() {
		t.Fatal("contended after one sign")
	}
	want := contendedMin
	for range 8 {
		markContended()
		if !Contended() || time.Duration(contendedSpan.Load()) != want {
			t.Fatalf("spell %v, want %v (contended %v)", time.Duration(contendedSpan.Load()), want, Contended())
		}
		want = min(2*want, contendedMax)
	}
	var order []int
	Do(5, 4, func(i int) { order = append(order, i) }) // no race: one goroutine
	if !slices.Equal(order, []int{0, 1, 2, 3, 4}) {
		t.Fatalf("contended Do made the calls %v", order)
	}
	// a sign long after the last spell starts short again
	contendedLast.Store(time.Now().Add(-2 * contendedMax).UnixNano())
	contendedSpan.Store(int64(contendedMax))
	markContended() // confirms the sign just before
	if time.Duration(contendedSpan.Load()) != contendedMin {
		t.Fatalf("spell after a quiet while %v, want %v", time.Duration(contendedSpan.Load()), contendedMin)
	}
}
