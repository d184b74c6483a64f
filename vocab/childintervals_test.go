package vocab

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestChildIntervals checks the one-call intervals of a prefix's children
// against Interval (proper prefixes) and Decode (complete sequences), bit
// for bit, on random prefixes of normalized tokenizations inside and
// beyond the float64 fast path, and on unnormalized ones (the fallback).
func TestChildIntervals(t *testing.T) {
	var trees []Tree
	for _, bk := range [][2]int{{2, 1}, {8, 6}, {10, 4}, {10, 16}, {2, 52}, {2, 60}, {36, 20}, {3, 33}} {
		for _, sp := range []bool{false, true} {
			n, err := NewNormalized(bk[0], bk[1], WithSpecial(sp))
			if err != nil {
				t.Fatal(err)
			}
			trees = append(trees, n)
		}
	}
	for _, bem := range [][3]int{{10, 1, 4}, {2, 2, 8}, {8, 2, 3}} {
		u, err := NewUnnormalized(bem[0], bem[1], bem[2], WithSpecial(true))
		if err != nil {
			t.Fatal(err)
		}
		trees = append(trees, u)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tr := range trees {
		for trial := 0; trial < 200; trial++ {
			// A random valid prefix of random length < Len, by Children.
			var prefix, ch []int
			want := rng.IntN(tr.Len())
			for len(prefix) < want {
				ch = tr.Children(ch[:0], prefix)
				prefix = append(prefix, ch[rng.IntN(len(ch))])
			}
			ch = tr.Children(ch[:0], prefix)
			lo, hi := make([]float64, len(ch)), make([]float64, len(ch))
			ChildIntervals(tr, prefix, ch, lo, hi)
			for j, c := range ch {
				seq := append(append([]int{}, prefix...), c)
				var wl, wh float64
				if len(seq) == tr.Len() {
					cell, err := tr.Decode(seq)
					if err != nil {
						t.Fatalf("%s: Decode(%v): %v", tr.Spec(), seq, err)
					}
					wl, wh = cell.Lo, cell.Hi
				} else {
					wl, wh = tr.Interval(seq)
				}
				if !same(lo[j], wl) || !same(hi[j], wh) {
					t.Fatalf("%s: child %v of %v: [%v, %v], want [%v, %v]", tr.Spec(), c, prefix, lo[j], hi[j], wl, wh)
				}
			}
		}
	}
}

// same is == with NaN equal to NaN (a special's interval is NaN).
func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
