package vocab

import (
	"fmt"
	"math"
	"math/big"
)

// Limits of what Parse accepts. The constructors (NewNormalized, ...) accept
// more, for exact-arithmetic work; Parse refuses what cannot be used end to
// end by a model.
const (
	// MaxCellBits bounds the resolution: base^length (Normalized),
	// 2^length (Hamming) and base^mantissa (Unnormalized) must be at most
	// 2^MaxCellBits. A cell of [0, 1] is then at least 2^-50 wide, so it
	// holds at least 8 float64 values (their spacing is at most 2^-53 below
	// 1), and a mantissa cell [m, m+1)*B^k is at least 2^-50 of its values,
	// at least 4 float64 values (relative spacing at most 2^-52). Finer cells
	// hold one float64 or none: their width rounds to 0 (an infinite
	// density, "nll": null), decoding is no longer a bijection (0.5 encodes as
	// 5,0,...,0,5 with base 10, length 17), and a model's summaries can
	// meet zero-width cells only.
	MaxCellBits = 50
	// MaxSeqLen bounds the length of a whole sequence (repeat included):
	// the decoder takes one step per token, attention costs grow with the
	// square of the length, and sampling-based summaries take Samples such
	// sequences.
	MaxSeqLen = 256
)

// Usable reports whether a model can use t end to end: its cells are
// resolved by float64 (see MaxCellBits) and its sequences are at most
// MaxSeqLen tokens long. Parse returns only usable tokenizations; the error
// wraps ErrSpec and says the limit. A nil t is not usable.
func Usable(t Tokenizer) error {
	if t == nil {
		return &paramError{"no tokenization (nil)"}
	}
	if t.Len() > MaxSeqLen {
		return &paramError{fmt.Sprintf("sequences of %d tokens are longer than %d (MaxSeqLen)", t.Len(), MaxSeqLen)}
	}
	switch v := t.(type) {
	case *Repeat:
		return Usable(v.inner)
	case *Bounded:
		return Usable(v.inner)
	case *Normalized:
		return checkCells("length", v.base, v.k, "cells of [0, 1]")
	case *Hamming:
		if err := checkCells("length", 2, v.l, "cells of [0, 1]"); err != nil {
			// A Hamming code has no base: its 2^length cells in its terms.
			return &paramError{fmt.Sprintf("length %d too long: a Hamming code's 2^%d cells of [0, 1] are finer than float64 resolves (length <= %d)", v.l, v.l, MaxCellBits)}
		}
		return nil
	case *Unnormalized:
		return checkCells("mantissa", v.base, v.m, "mantissa cells")
	}
	return nil
}

// checkCells refuses base^n > 2^MaxCellBits.
func checkCells(key string, base, n int, what string) error {
	if _, ok := powAtMost(base, n, 1<<MaxCellBits); ok {
		return nil
	}
	maxN := maxCellDigits(base)
	width := fmt.Sprintf("%d^-%d", base, n)
	if base != 2 {
		width += fmt.Sprintf(" (about 2^-%.1f)", float64(n)*math.Log2(float64(base)))
	}
	return &paramError{fmt.Sprintf("%s %d too long for base %d: %s of relative width %s are finer than float64 resolves (base^%s must be at most 2^%d, so %s <= %d for base %d)",
		key, n, base, what, width, key, MaxCellBits, key, maxN, base)}
}

// MinExp2 is the exponent of float64's smallest positive number, 2^-1074
// (a subnormal): a finer cell of an Unnormalized tokenization has width 0
// in float64.
const MinExp2 = -1074

// Trainable reports whether a model can be trained on t: t is Usable, has
// no special tokens (training targets are finite, so the tokens nan, inf
// and -inf would never be trained, and samples would draw them at their
// initial odds), and every finite cell has a positive width in float64, so
// that every target has a finite density. An Unnormalized tokenization
// fails the last when B^-(emax+M-1), the width of its smallest cells, is
// below 2^-1074: then its zero cell (-fl(B^-emax), fl(B^-emax)) or the
// cells above it round to width 0, and a target there (0, say) has an
// infinite density. The error wraps ErrSpec and says the largest exponent
// that can be trained.
func Trainable(t Tokenizer) error {
	if err := Usable(t); err != nil {
		return err
	}
	if s, ok := Base(t).(interface{ alpha() alphabet }); ok && s.alpha().special {
		return &paramError{"special=true adds the tokens nan, inf and -inf for non-finite targets, which training never sees (its targets are finite): they would stay untrained and samples would draw them; leave special out"}
	}
	u, ok := Base(t).(*Unnormalized)
	if !ok || smallestCellResolved(u.base, u.emax+u.m-1) {
		return nil
	}
	maxE := 0
	for e := 1; ; e++ {
		ex, ok := powAtMost(u.base, e, 1<<62)
		if !ok || !smallestCellResolved(u.base, int(ex)-1+u.m-1) {
			break
		}
		maxE = e
	}
	width := fmt.Sprintf("%d^-%d", u.base, u.emax+u.m-1)
	if u.base != 2 {
		width += fmt.Sprintf(" (about 2^-%.0f)", float64(u.emax+u.m-1)*u.log2B)
	}
	return &paramError{fmt.Sprintf("exponent %d too long for base %d to train on: the smallest cells, of width %s, are finer than float64's smallest number 2^%d, so the zero cell or the cells above it have width 0 and a target in them an infinite density (use exponent <= %d for base %d and mantissa %d)",
		u.e, u.base, width, MinExp2, maxE, u.base, u.m)}
}

// smallestCellResolved reports whether base^-n >= 2^MinExp2, that is
// base^n <= 2^1074, exactly.
func smallestCellResolved(base, n int) bool {
	if l := float64(n) * math.Log2(float64(base)); l > -MinExp2+8 {
		return false
	} else if l < -MinExp2-8 {
		return true
	}
	return bigPow(base, n).Cmp(new(big.Int).Lsh(big.NewInt(1), -MinExp2)) <= 0
}

// usableHint adds to a range error err of a value v above the most that
// Usable then accepts for base (the range is the tokenization's own:
// "length 63 out of range [1, 62]" was followed, for 51, by "length <=
// 50"; review) that bound.
func usableHint(err error, v, base int, what string) error {
	pe, ok := err.(*paramError)
	if !ok {
		return err
	}
	maxN := maxCellDigits(base)
	if v <= maxN {
		return err
	}
	return &paramError{fmt.Sprintf("%s, and above %d %s cells finer than float64 resolves", pe.msg, maxN, what)}
}

// maxCellDigits is the most digits of base whose cells float64 resolves:
// the largest n with base^n <= 2^MaxCellBits.
func maxCellDigits(base int) int {
	n := 0
	for {
		if _, ok := powAtMost(base, n+1, 1<<MaxCellBits); !ok {
			return n
		}
		n++
	}
}
