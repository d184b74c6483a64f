package vocab

import (
	"math"
	"math/big"
	"math/bits"
)

// Exact arithmetic. A float64 operation on exact operands rounds once to the
// nearest float64, so i/N is exact-then-rounded whenever i and N are exact
// in float64 (at most 2^53). Everything else goes through math/big.

// fastLimit bounds the integers used by the float64 fast paths: with
// integers up to 2^52, also 2i+1 and 2N stay exact.
const fastLimit = 1 << 52

// powAtMost returns b^k and true when b^k <= limit, else false.
func powAtMost(b, k int, limit uint64) (uint64, bool) {
	p := uint64(1)
	for i := 0; i < k; i++ {
		hi, lo := bits.Mul64(p, uint64(b))
		if hi != 0 || lo > limit {
			return 0, false
		}
		p = lo
	}
	return p, true
}

func bigPow(b, k int) *big.Int {
	return new(big.Int).Exp(big.NewInt(int64(b)), big.NewInt(int64(k)), nil)
}

// nearest returns the float64 nearest num/den (ties to even), +Inf when it
// is beyond the float64 range. num >= 0, den > 0.
func nearest(num, den *big.Int) float64 {
	f, _ := new(big.Rat).SetFrac(num, den).Float64()
	return f
}

// halfUp describes the midpoint t = T * 2^s between a finite a >= 0 and
// the next float64 above it (2^1024 above MaxFloat64). A real number x has
// fl(x) <= a exactly when x < t, or x == t and tieDown (ties go to the
// float64 with an even significand).
func halfUp(a float64) (T uint64, s int, tieDown bool) {
	b := math.Float64bits(a) &^ (1 << 63)
	exp := int(b >> 52)
	f := b & (1<<52 - 1)
	x := -1074
	if exp != 0 {
		f |= 1 << 52
		x = exp - 1075
	}
	// a = f * 2^x and the next float64 is (f+1) * 2^x.
	return 2*f + 1, x - 1, f&1 == 0
}

// floorBelow returns the largest integer q with q*div/mul < t, or
// q*div/mul <= t when tieDown, where t = T * 2^s (see halfUp): the largest q
// whose edge q*div/mul rounds to a float64 <= a. mul, div > 0.
func floorBelow(T uint64, s int, tieDown bool, mul, div *big.Int) *big.Int {
	num := new(big.Int).SetUint64(T)
	num.Mul(num, mul)
	den := new(big.Int).Set(div)
	if s >= 0 {
		num.Lsh(num, uint(s))
	} else {
		den.Lsh(den, uint(-s))
	}
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	if r.Sign() == 0 && !tieDown {
		q.Sub(q, big.NewInt(1))
	}
	return q
}
