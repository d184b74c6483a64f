package vocab

import (
	"fmt"
	"math"
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
		return checkCells("length", 2, v.l, "cells of [0, 1]")
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
	maxN := 0
	for {
		if _, ok := powAtMost(base, maxN+1, 1<<MaxCellBits); !ok {
			break
		}
		maxN++
	}
	width := fmt.Sprintf("%d^-%d", base, n)
	if base != 2 {
		width += fmt.Sprintf(" (about 2^-%.1f)", float64(n)*math.Log2(float64(base)))
	}
	return &paramError{fmt.Sprintf("%s %d too long for base %d: %s of relative width %s are finer than float64 resolves (base^%s must be at most 2^%d, so %s <= %d for base %d)",
		key, n, base, what, width, key, MaxCellBits, key, maxN, base)}
}
