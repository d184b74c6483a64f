package data

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Subset returns a new data set holding the given rows of d, in the order
// given (rows may repeat). Names are shared with d; X and Y are copied. It
// panics if a row is out of range.
func Subset(d *Dataset, rows []int) *Dataset {
	s := &Dataset{Names: d.Names, Rows: len(rows), Cols: d.Cols, Path: d.Path, TargetName: d.TargetName}
	s.X = make([]float64, 0, len(rows)*d.Cols)
	if d.Y != nil {
		s.Y = make([]float64, 0, len(rows))
	}
	for _, r := range rows {
		if r < 0 || r >= d.Rows {
			panic(fmt.Sprintf("data: Subset: row %d out of range [0, %d)", r, d.Rows))
		}
		s.X = append(s.X, d.Row(r)...)
		if d.Y != nil {
			s.Y = append(s.Y, d.Y[r])
		}
	}
	return s
}

// TrainTest splits d by a test mask (as returned by Mask.Test): rows with
// test[i] true go to test, the others to train, each in their original
// order. It panics if len(test) != d.Rows; call CheckRows first to turn that
// into an error.
func TrainTest(d *Dataset, test []bool) (train, tst *Dataset) {
	if len(test) != d.Rows {
		panic(fmt.Sprintf("data: TrainTest: mask of %d rows for %d data rows", len(test), d.Rows))
	}
	var tr, te []int
	for i, t := range test {
		if t {
			te = append(te, i)
		} else {
			tr = append(tr, i)
		}
	}
	return Subset(d, tr), Subset(d, te)
}

// ValidationSplit splits the row indices 0..n-1 into a training part and a
// validation part of round(frac*n) rows (rounding halves away from zero),
// chosen by a Fisher-Yates shuffle driven by a PCG generator seeded with
// seed, so that the split depends only on n, frac and seed. Both parts are
// returned in increasing order.
//
// frac must lie in (0, 1). If either part would be empty the error wraps
// ErrTooFewRows: the minimum n is the smallest one with round(frac*n) >= 1
// and round(frac*n) <= n-1 — 5 rows for frac = 0.1, 2 rows for frac = 0.5.
func ValidationSplit(n int, frac float64, seed uint64) (train, val []int, err error) {
	if n < 0 {
		panic("data: ValidationSplit: n < 0")
	}
	if !(frac > 0 && frac < 1) {
		return nil, nil, fmt.Errorf("data: validation fraction %v is not in (0, 1)", frac)
	}
	nv := int(math.Round(frac * float64(n)))
	if nv < 1 || nv > n-1 {
		return nil, nil, fmt.Errorf("%w: %d rows give %d for validation and %d for training at fraction %v",
			ErrTooFewRows, n, nv, n-nv, frac)
	}
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	src := rand.NewPCG(seed, pcgStream)
	for i := n - 1; i > 0; i-- {
		j := int(uniform(src, uint64(i+1)))
		perm[i], perm[j] = perm[j], perm[i]
	}
	val = append([]int(nil), perm[:nv]...)
	train = append([]int(nil), perm[nv:]...)
	slices.Sort(val)
	slices.Sort(train)
	return train, val, nil
}

// pcgStream is the second PCG seed word used by ValidationSplit.
const pcgStream = 0x9e3779b97f4a7c15

// uniform returns a uniform integer in [0, n) from src by Lemire's
// multiply-and-reject method (n > 0).
func uniform(src *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}
