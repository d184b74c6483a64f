package vocab

import (
	"fmt"
	"math"
)

// MaxHamming is the longest Hamming code NewHamming makes; Parse and
// Usable take at most MaxCellBits (50): longer codes' cells are finer than
// float64 resolves.
const MaxHamming = 62

// Hamming is the tokenization Hamming(L) of y in [0, 1] (Qin 2018, the
// paper's appendix): the cell index i of y is that of Normalized(2, L), and
// its code is the i-th of all 2^L bit strings ordered by number of ones,
// then lexicographically (L = 3: 000, 001, 010, 100, 011, 101, 110, 111).
// Every bit string is valid. Its prefixes are not intervals, so it is not a
// Tree.
// The zero value is not usable: build one with NewHamming or Parse (a zero value's
// methods panic or answer nonsense).
type Hamming struct {
	alphabet
	l     int
	norm  *Normalized
	binom [][]uint64 // binom[n][k] = C(n, k), n <= L
}

// NewHamming returns Hamming(length), 1 <= length <= MaxHamming.
func NewHamming(length int, opts ...Option) (*Hamming, error) {
	if err := checkRange("length", length, 1, MaxHamming); err != nil {
		return nil, usableHint(err, length, 2, "a Hamming code has")
	}
	o := collect(opts)
	norm, err := NewNormalized(2, length)
	if err != nil {
		return nil, err
	}
	h := &Hamming{alphabet: alphabet{base: 2, special: o.special}, l: length, norm: norm}
	h.binom = make([][]uint64, length+1)
	for n := range h.binom {
		h.binom[n] = make([]uint64, n+1)
		h.binom[n][0], h.binom[n][n] = 1, 1
		for k := 1; k < n; k++ {
			h.binom[n][k] = h.binom[n-1][k-1] + h.binom[n-1][k]
		}
	}
	return h, nil
}

func (h *Hamming) choose(n, k int) uint64 {
	if k < 0 || k > n {
		return 0
	}
	return h.binom[n][k]
}

// Length is L.
func (h *Hamming) Length() int { return h.l }

// Special reports whether the special tokens are on.
func (h *Hamming) Special() bool { return h.special }

// Spec returns "hamming:length=L" (",special=true" appended when the
// special tokens are on).
func (h *Hamming) Spec() string { return fmt.Sprintf("hamming:length=%d", h.l) + h.specSuffix() }

// Size is 2, plus 3 with special tokens.
func (h *Hamming) Size() int { return h.size() }

// Len is L.
func (h *Hamming) Len() int { return h.l }

// TokenString returns the printed form of token t; it panics when t is
// not in [0, Size()).
func (h *Hamming) TokenString(t int) string { return h.tokenString(t) }

// ParseToken returns the token printed as s.
func (h *Hamming) ParseToken(s string) (int, error) { return h.parseToken(s) }

// Encode returns the code of the cell that contains v. Values outside
// [0, 1] are an error (ErrRange); it never clamps.
func (h *Hamming) Encode(v float64) ([]int, bool, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		s, err := h.nonFinite(v, h.l, h.Spec())
		return s, false, err
	}
	if !(v >= 0 && v <= 1) {
		return nil, false, fmt.Errorf("%w: %v is outside [0, 1] of %s", ErrRange, v, h.Spec())
	}
	s := make([]int, h.l)
	h.unrank(s, h.norm.indexU64(v))
	return s, false, nil
}

// unrank writes the i-th code into dst.
func (h *Hamming) unrank(dst []int, i uint64) {
	w := 0
	for i >= h.choose(h.l, w) {
		i -= h.choose(h.l, w)
		w++
	}
	for p := range dst {
		// Codes with a 0 here: the w ones in the l-p-1 remaining places.
		if c := h.choose(h.l-p-1, w); i < c {
			dst[p] = 0
		} else {
			i -= c
			dst[p] = 1
			w--
		}
	}
}

// rank is the index of a code.
func (h *Hamming) rank(code []int) uint64 {
	w := 0
	for _, b := range code {
		w += b
	}
	var i uint64
	for j := 0; j < w; j++ {
		i += h.choose(h.l, j)
	}
	for p, b := range code {
		if b == 1 {
			i += h.choose(h.l-p-1, w)
			w--
		}
	}
	return i
}

// Decode returns the cell of a complete, valid sequence.
func (h *Hamming) Decode(tokens []int) (Cell, error) {
	if len(tokens) != h.l {
		return Cell{}, badLength(h.Spec(), len(tokens), h.l)
	}
	if i := h.digitsBadAt(tokens); i >= 0 {
		return Cell{}, badToken(h.Spec(), tokens, i, h.size(), h.tokenString)
	}
	if h.isSpecial(tokens[0]) {
		return h.specialCell(tokens[0]), nil
	}
	return h.norm.cellU64(h.rank(tokens)), nil
}

// Allowed appends the tokens that may follow prefix: 0 and 1, plus the
// specials at position 0, or only the special that the sequence started
// with. An invalid or complete prefix allows nothing.
func (h *Hamming) Allowed(dst, prefix []int) []int {
	if len(prefix) >= h.l || h.digitsBadAt(prefix) >= 0 {
		return dst
	}
	if len(prefix) > 0 && h.isSpecial(prefix[0]) {
		return append(dst, prefix[0])
	}
	dst = append(dst, 0, 1)
	if len(prefix) == 0 && h.special {
		for k := NaN; k <= NegInf; k++ {
			dst = append(dst, h.specialToken(k))
		}
	}
	return dst
}
