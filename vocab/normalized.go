package vocab

import (
	"fmt"
	"math"
	"math/big"
)

// MaxLength bounds the digit counts: Normalized's length and
// Unnormalized's mantissa.
const MaxLength = 256

// Normalized is the tokenization Normalized(B, K) of y in [0, 1]. The cell
// index of y is the largest i < B^K whose left edge fl(i / B^K) is <= y (so
// y = 1 belongs to the last cell), cell i is [fl(i/B^K), fl((i+1)/B^K)),
// and its tokens are the K base-B digits of i, most significant first.
// The zero value is not usable: build one with NewNormalized or Parse (a zero value's
// methods panic or answer nonsense).
type Normalized struct {
	alphabet
	k  int
	n  uint64   // B^K when at most 2^52 (the float64 fast path), else 0
	bn *big.Int // B^K
}

var _ Tree = (*Normalized)(nil)

// NewNormalized returns Normalized(base, length): 2 <= base <= 36,
// 1 <= length <= MaxLength.
func NewNormalized(base, length int, opts ...Option) (*Normalized, error) {
	if err := checkRange("base", base, 2, MaxBase); err != nil {
		return nil, err
	}
	if err := checkRange("length", length, 1, MaxLength); err != nil {
		return nil, usableHint(err, length, base, fmt.Sprintf("base %d has", base))
	}
	o := collect(opts)
	t := &Normalized{alphabet: alphabet{base: base, special: o.special}, k: length, bn: bigPow(base, length)}
	if n, ok := powAtMost(base, length, fastLimit); ok {
		t.n = n
	}
	return t, nil
}

// Base is B.
func (t *Normalized) Base() int { return t.base }

// Length is K, the number of digits.
func (t *Normalized) Length() int { return t.k }

// Special reports whether the special tokens are on.
func (t *Normalized) Special() bool { return t.special }

// Spec returns "normalized:base=B,length=K" (",special=true" appended when
// the special tokens are on).
func (t *Normalized) Spec() string {
	return fmt.Sprintf("normalized:base=%d,length=%d", t.base, t.k) + t.specSuffix()
}

// Size is B, plus 3 with special tokens.
func (t *Normalized) Size() int { return t.size() }

// Len is K.
func (t *Normalized) Len() int { return t.k }

// TokenString returns the printed form of token t; it panics when t is
// not in [0, Size()).
func (t *Normalized) TokenString(tok int) string { return t.tokenString(tok) }

// ParseToken returns the token printed as s.
func (t *Normalized) ParseToken(s string) (int, error) { return t.parseToken(s) }

// Encode returns the digits of the cell that contains v. Values outside
// [0, 1] are an error (ErrRange): callers clip and count them. It never
// clamps.
func (t *Normalized) Encode(v float64) ([]int, bool, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		s, err := t.nonFinite(v, t.k, t.Spec())
		return s, false, err
	}
	if !(v >= 0 && v <= 1) {
		return nil, false, fmt.Errorf("%w: %v is outside [0, 1] of %s", ErrRange, v, t.Spec())
	}
	tokens := make([]int, t.k)
	if t.n != 0 {
		putDigits(tokens, t.base, t.indexFast(v))
	} else {
		putDigitsBig(tokens, t.base, t.indexExact(v))
	}
	return tokens, false, nil
}

// indexFast is the cell index of y in [0, 1] when B^K <= 2^52: a float64
// guess, corrected against the exactly rounded edges float64(i)/float64(n).
// Neighbouring edges differ by at least 2^-52, so the guess is at most one
// cell off.
func (t *Normalized) indexFast(y float64) uint64 {
	n := t.n
	i := uint64(y * float64(n))
	if i > n-1 {
		i = n - 1
	}
	for i > 0 && float64(i)/float64(n) > y {
		i--
	}
	for i+1 < n && float64(i+1)/float64(n) <= y {
		i++
	}
	return i
}

// indexExact is the cell index of y in [0, 1] for any B^K: the largest i
// whose exact edge i/B^K rounds to a float64 <= y (see halfUp), clipped.
func (t *Normalized) indexExact(y float64) *big.Int {
	T, s, tie := halfUp(y)
	i := floorBelow(T, s, tie, t.bn, big.NewInt(1))
	if i.Cmp(t.bn) >= 0 {
		i.Sub(t.bn, big.NewInt(1))
	}
	return i
}

// indexU64 is the cell index of y in [0, 1], for B^K < 2^64.
func (t *Normalized) indexU64(y float64) uint64 {
	if t.n != 0 {
		return t.indexFast(y)
	}
	return t.indexExact(y).Uint64()
}

// Decode returns the cell of a complete, valid sequence.
func (t *Normalized) Decode(tokens []int) (Cell, error) {
	if err := t.check(tokens); err != nil {
		return Cell{}, err
	}
	if t.isSpecial(tokens[0]) {
		return t.specialCell(tokens[0]), nil
	}
	if t.n != 0 {
		var i uint64
		for _, d := range tokens {
			i = i*uint64(t.base) + uint64(d)
		}
		return t.cellU64(i), nil
	}
	return t.cellBig(digitsValue(tokens, t.base)), nil
}

// cellU64 is the cell of index i < B^K.
func (t *Normalized) cellU64(i uint64) Cell {
	if t.n == 0 {
		return t.cellBig(new(big.Int).SetUint64(i))
	}
	n := float64(t.n)
	lo := float64(i) / n
	hi := float64(i+1) / n
	c := float64(2*i+1) / (2 * n)
	return Cell{Lo: lo, Hi: hi, Center: fixCenter(lo, c, hi)}
}

func (t *Normalized) cellBig(i *big.Int) Cell {
	one := big.NewInt(1)
	lo := nearest(i, t.bn)
	hi := nearest(new(big.Int).Add(i, one), t.bn)
	c2 := new(big.Int).Lsh(i, 1)
	c := nearest(c2.Add(c2, one), new(big.Int).Lsh(t.bn, 1))
	return Cell{Lo: lo, Hi: hi, Center: fixCenter(lo, c, hi)}
}

func (t *Normalized) check(tokens []int) error {
	if len(tokens) != t.k {
		return badLength(t.Spec(), len(tokens), t.k)
	}
	if i := t.digitsBadAt(tokens); i >= 0 {
		return badToken(t.Spec(), tokens, i, t.size(), t.tokenString)
	}
	return nil
}

// Allowed appends the tokens that may follow prefix, in increasing token
// order: every digit, plus the specials at position 0, or only the special
// that the sequence started with. An invalid or complete prefix allows
// nothing.
func (t *Normalized) Allowed(dst, prefix []int) []int {
	if len(prefix) >= t.k || t.digitsBadAt(prefix) >= 0 {
		return dst
	}
	if len(prefix) > 0 && t.isSpecial(prefix[0]) {
		return append(dst, prefix[0])
	}
	for d := 0; d < t.base; d++ {
		dst = append(dst, d)
	}
	if len(prefix) == 0 && t.special {
		for k := NaN; k <= NegInf; k++ {
			dst = append(dst, t.specialToken(k))
		}
	}
	return dst
}

// Children appends the tokens allowed after prefix in increasing numeric
// order: -inf, the digits 0..B-1, inf, then nan (NaN has no order; it comes
// last).
func (t *Normalized) Children(dst, prefix []int) []int {
	if len(prefix) >= t.k || t.digitsBadAt(prefix) >= 0 {
		return dst
	}
	if len(prefix) > 0 && t.isSpecial(prefix[0]) {
		return append(dst, prefix[0])
	}
	first := len(prefix) == 0 && t.special
	if first {
		dst = append(dst, t.specialToken(NegInf))
	}
	for d := 0; d < t.base; d++ {
		dst = append(dst, d)
	}
	if first {
		dst = append(dst, t.specialToken(PosInf), t.specialToken(NaN))
	}
	return dst
}

// Interval returns [lo, hi], the union of the cells under prefix:
// [fl(P/B^p), fl((P+1)/B^p)] for the p digits P. The empty prefix covers
// [0, 1]; a special prefix covers its special value. An invalid prefix
// panics.
func (t *Normalized) Interval(prefix []int) (lo, hi float64) {
	if len(prefix) > t.k || t.digitsBadAt(prefix) >= 0 {
		panic("vocab: Interval: invalid prefix")
	}
	if len(prefix) > 0 && t.isSpecial(prefix[0]) {
		c := t.specialCell(prefix[0])
		return c.Lo, c.Hi
	}
	if n, ok := powAtMost(t.base, len(prefix), fastLimit); ok {
		var p uint64
		for _, d := range prefix {
			p = p*uint64(t.base) + uint64(d)
		}
		return float64(p) / float64(n), float64(p+1) / float64(n)
	}
	p, n := digitsValue(prefix, t.base), bigPow(t.base, len(prefix))
	return nearest(p, n), nearest(p.Add(p, big.NewInt(1)), n)
}

// ChildIntervals writes to lo[j] and hi[j] the interval of the sequence
// prefix + [children[j]], bit for bit what Interval returns for it, or
// for a complete sequence the Lo and Hi of its cell (Decode). It checks
// prefix once, not once per child, which is what makes it cheaper than
// Interval in a loop. lo and hi need len(children) elements; an invalid
// prefix or child panics, as Interval does.
func (t *Normalized) ChildIntervals(prefix, children []int, lo, hi []float64) {
	_, _ = lo[:len(children)], hi[:len(children)]
	n, ok := powAtMost(t.base, len(prefix)+1, fastLimit)
	if ok && len(prefix) < t.k && t.digitsBadAt(prefix) < 0 && (len(prefix) == 0 || !t.isSpecial(prefix[0])) {
		var p uint64
		for _, d := range prefix {
			p = p*uint64(t.base) + uint64(d)
		}
		p *= uint64(t.base)
		fn := float64(n)
		if n&(n-1) == 0 {
			// A power of two: multiplying by its reciprocal (exact)
			// rounds as the division does, and costs less.
			inv := 1 / fn
			for j, c := range children {
				if c < 0 || c >= t.base {
					goto slow
				}
				i := p + uint64(c)
				lo[j], hi[j] = float64(i)*inv, float64(i+1)*inv
			}
			return
		}
		for j, c := range children {
			if c < 0 || c >= t.base {
				goto slow
			}
			i := p + uint64(c)
			lo[j], hi[j] = float64(i)/fn, float64(i+1)/fn
		}
		return
	}
slow:
	childIntervalsSlow(t, prefix, children, lo, hi)
}

// childIntervalsSlow is ChildIntervals by Interval and Decode.
func childIntervalsSlow(t Tree, prefix, children []int, lo, hi []float64) {
	seq := make([]int, len(prefix)+1)
	copy(seq, prefix)
	for j, c := range children {
		seq[len(prefix)] = c
		if len(seq) == t.Len() {
			cell, err := t.Decode(seq)
			if err != nil {
				panic("vocab: ChildIntervals: " + err.Error())
			}
			lo[j], hi[j] = cell.Lo, cell.Hi
			continue
		}
		lo[j], hi[j] = t.Interval(seq)
	}
}

// ChildIntervals writes to lo[j] and hi[j] the interval of prefix +
// [children[j]] as Interval returns it, or for a complete sequence the Lo
// and Hi of its cell (Decode). A Tree that does not implement
// ChildIntervaler gets it by Interval and Decode, one child at a time. It
// panics, as Interval does, for an invalid prefix or child, and if lo or
// hi is shorter than children.
func ChildIntervals(t Tree, prefix, children []int, lo, hi []float64) {
	if ci, ok := t.(ChildIntervaler); ok {
		ci.ChildIntervals(prefix, children, lo, hi)
		return
	}
	childIntervalsSlow(t, prefix, children, lo, hi)
}

// putDigits writes i in base b into dst, most significant digit first.
func putDigits(dst []int, b int, i uint64) {
	for j := len(dst) - 1; j >= 0; j-- {
		dst[j] = int(i % uint64(b))
		i /= uint64(b)
	}
}

func putDigitsBig(dst []int, b int, i *big.Int) {
	i = new(big.Int).Set(i)
	bb, r := big.NewInt(int64(b)), new(big.Int)
	for j := len(dst) - 1; j >= 0; j-- {
		i.QuoRem(i, bb, r)
		dst[j] = int(r.Int64())
	}
}

// digitsValue is the integer whose base-b digits are ds.
func digitsValue(ds []int, b int) *big.Int {
	v, bb := new(big.Int), big.NewInt(int64(b))
	for _, d := range ds {
		v.Mul(v, bb)
		v.Add(v, big.NewInt(int64(d)))
	}
	return v
}
