package vocab

import (
	"math"
	"math/bits"
	"slices"
	"sort"
	"testing"
)

// TestHammingExhaustive checks every code of Hamming(L), L <= 12, against
// the order of all bit strings sorted by (ones, lexicographic), and every
// cell against Normalized(2, L).
func TestHammingExhaustive(t *testing.T) {
	for l := 1; l <= 12; l++ {
		h, err := NewHamming(l)
		if err != nil {
			t.Fatal(err)
		}
		norm, _ := NewNormalized(2, l)
		// Reference order: as integers with the first bit most
		// significant, lexicographic order is numeric order.
		codes := make([]uint64, 1<<l)
		for i := range codes {
			codes[i] = uint64(i)
		}
		sort.Slice(codes, func(i, j int) bool {
			a, b := bits.OnesCount64(codes[i]), bits.OnesCount64(codes[j])
			return a < b || a == b && codes[i] < codes[j]
		})
		for i, code := range codes {
			want := refDigits(t, h, int64(code), 2, l)
			idx := refDigits(t, norm, int64(i), 2, l)
			nc := mustDecode(t, norm, idx)
			checkAllowedPath(t, h, want)
			c := mustDecode(t, h, want)
			if c != nc {
				t.Fatalf("L=%d: code %s decodes to %+v; want cell %d %+v", l, str(h, want), c, i, nc)
			}
			for _, v := range []float64{nc.Lo, nc.Center, math.Nextafter(nc.Hi, 0)} {
				wantEncode(t, h, v, want)
			}
			if i == len(codes)-1 {
				wantEncode(t, h, 1, want)
			}
		}
	}
}

// TestHammingPaperExample is the appendix's list for L = 3.
func TestHammingPaperExample(t *testing.T) {
	h, _ := NewHamming(3)
	want := []string{"0 0 0", "0 0 1", "0 1 0", "1 0 0", "0 1 1", "1 0 1", "1 1 0", "1 1 1"}
	for i, w := range want {
		got := mustEncode(t, h, (float64(i)+0.5)/8)
		if str(h, got) != w {
			t.Errorf("code %d = %s; want %s", i, str(h, got), w)
		}
	}
}

// TestHammingLong checks rank and unrank against each other at the
// longest length, and values against Normalized(2, 62).
func TestHammingLong(t *testing.T) {
	h, _ := NewHamming(MaxHamming)
	norm, _ := NewNormalized(2, MaxHamming)
	for _, y := range []float64{0, 1, 0.5, 1 - 0x1p-53, 0x1p-60, math.SmallestNonzeroFloat64, 0.3} {
		s := mustEncode(t, h, y)
		c := mustDecode(t, h, s)
		nc := mustDecode(t, norm, mustEncode(t, norm, y))
		if c != nc {
			t.Fatalf("%v: Hamming cell %+v, Normalized cell %+v", y, c, nc)
		}
	}
	code := make([]int, MaxHamming)
	for _, i := range []uint64{0, 1, 62, 63, 1<<62 - 1, 1 << 61, 123456789012345} {
		h.unrank(code, i)
		if got := h.rank(code); got != i {
			t.Fatalf("rank(unrank(%d)) = %d", i, got)
		}
	}
	if !slices.Equal(h.Allowed(nil, code[:10]), []int{0, 1}) {
		t.Fatal("Hamming must allow both bits everywhere")
	}
}
