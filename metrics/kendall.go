package metrics

import (
	"cmp"
	"math"
	"slices"
)

// KendallTau returns Kendall's tau-b rank correlation of x and y,
//
//	tau_b = (C - D) / sqrt((n0 - n1) (n0 - n2))
//
// where C and D count the concordant and discordant pairs, n0 = n(n-1)/2,
// n1 counts the pairs tied in x and n2 those tied in y (pairs tied in both
// count in n1 and n2 and in neither C nor D). It matches
// scipy.stats.kendalltau's default.
//
// It takes O(n log n) time by Knight's algorithm: sort by (x, y), count the
// ties, then count the discordant pairs as the exchanges a merge sort of
// the y values makes.
//
// The result lies in [-1, 1] (rounding is clamped). It is NaN if n < 2,
// if every x or every y is the same (the denominator is 0), or if any
// value is NaN.
func KendallTau(x, y []float64) float64 {
	checkLen("KendallTau", x, y)
	n := len(x)
	if n < 2 {
		return math.NaN()
	}
	for i := range x {
		if math.IsNaN(x[i]) || math.IsNaN(y[i]) {
			return math.NaN()
		}
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(x[a], x[b]); c != 0 {
			return c
		}
		return cmp.Compare(y[a], y[b])
	})

	// n1: pairs tied in x; n3: pairs tied in x and y (adjacent after the
	// sort).
	var n1, n3 int64
	for i := 0; i < n; {
		j := i + 1
		for j < n && x[idx[j]] == x[idx[i]] {
			j++
		}
		n1 += pairs(j - i)
		for k := i; k < j; {
			l := k + 1
			for l < j && y[idx[l]] == y[idx[k]] {
				l++
			}
			n3 += pairs(l - k)
			k = l
		}
		i = j
	}

	ys := make([]float64, n)
	for i, k := range idx {
		ys[i] = y[k]
	}
	dis := mergeCount(ys, make([]float64, n))

	var n2 int64 // pairs tied in y (ys is now sorted)
	for i := 0; i < n; {
		j := i + 1
		for j < n && ys[j] == ys[i] {
			j++
		}
		n2 += pairs(j - i)
		i = j
	}

	n0 := pairs(n)
	// One square root of the product: when n1 == n2 and the product is
	// exact (below 2^53), the root is exactly n0 - n1, so perfectly
	// concordant data give exactly 1. Rounding elsewhere may still leave
	// |tau| a hair above 1; the clamp keeps it in [-1, 1].
	den := math.Sqrt(float64(n0-n1) * float64(n0-n2))
	if den == 0 {
		return math.NaN()
	}
	return max(-1, min(1, float64(n0-n1-n2+n3-2*dis)/den))
}

// pairs returns k(k-1)/2.
func pairs(k int) int64 { return int64(k) * int64(k-1) / 2 }

// mergeCount sorts a in place by a bottom-up merge sort, using buf
// (len(buf) >= len(a)), and returns the number of pairs i < j with
// a[i] > a[j] (equal values are not counted).
func mergeCount(a, buf []float64) int64 {
	n := len(a)
	var swaps int64
	for width := 1; width < n; width *= 2 {
		for lo := 0; lo < n-width; lo += 2 * width {
			mid, hi := lo+width, min(lo+2*width, n)
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if a[j] < a[i] {
					buf[k] = a[j]
					j++
					swaps += int64(mid - i)
				} else {
					buf[k] = a[i]
					i++
				}
				k++
			}
			k += copy(buf[k:], a[i:mid])
			copy(buf[k:], a[j:hi])
			copy(a[lo:hi], buf[lo:hi])
		}
	}
	return swaps
}
