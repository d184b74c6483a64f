package vocab

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Errors returned (wrapped) by the tokenizations; test with errors.Is.
var (
	// ErrSpec reports a specification or parameter that is not valid.
	ErrSpec = errors.New("vocab: bad spec")
	// ErrRange reports a finite value that the tokenization cannot hold
	// (outside [0, 1] for Normalized and Hamming).
	ErrRange = errors.New("vocab: value out of range")
	// ErrNonFinite reports NaN or ±Inf given to a tokenization without
	// special tokens.
	ErrNonFinite = errors.New("vocab: non-finite value")
	// ErrSequence reports a token sequence that is not valid.
	ErrSequence = errors.New("vocab: invalid token sequence")
	// ErrToken reports a token string that is not in the vocabulary.
	ErrToken = errors.New("vocab: unknown token")
)

// MaxBase is the largest base: the digits print as 0-9 then a-z.
const MaxBase = 36

const digitChars = "0123456789abcdefghijklmnopqrstuvwxyz"

var specialNames = [3]string{"nan", "inf", "-inf"}

// An Option changes a tokenization built by NewNormalized, NewUnnormalized
// or NewHamming.
type Option func(*options)

type options struct {
	special bool
}

// WithSpecial turns the special tokens nan, inf and -inf on or off (off by
// default).
func WithSpecial(on bool) Option {
	return func(o *options) { o.special = on }
}

func collect(opts []Option) options {
	var o options
	for _, f := range opts {
		f(&o)
	}
	return o
}

// paramError is a bad constructor argument; Parse reports it inside the
// spec that caused it.
type paramError struct{ msg string }

func (e *paramError) Error() string { return "vocab: " + e.msg }
func (e *paramError) Unwrap() error { return ErrSpec }

func checkRange(name string, v, lo, hi int) error {
	if v < lo || v > hi {
		return &paramError{fmt.Sprintf("%s %d out of range [%d, %d]", name, v, lo, hi)}
	}
	return nil
}

// alphabet is the token set shared by the tokenizations: the digits
// 0..base-1, then "+" and "-" when signs is set, then the specials.
type alphabet struct {
	base    int
	signs   bool
	special bool
}

func (a alphabet) size() int {
	n := a.base
	if a.signs {
		n += 2
	}
	if a.special {
		n += 3
	}
	return n
}

func (a alphabet) plus() int  { return a.base }
func (a alphabet) minus() int { return a.base + 1 }

func (a alphabet) firstSpecial() int {
	if a.signs {
		return a.base + 2
	}
	return a.base
}

func (a alphabet) isDigit(t int) bool { return t >= 0 && t < a.base }

func (a alphabet) isSpecial(t int) bool {
	f := a.firstSpecial()
	return a.special && t >= f && t < f+3
}

// specialToken returns the token of k (NaN, PosInf or NegInf).
func (a alphabet) specialToken(k Kind) int { return a.firstSpecial() + int(k-NaN) }

func (a alphabet) specialKind(t int) Kind { return NaN + Kind(t-a.firstSpecial()) }

func (a alphabet) tokenString(t int) string {
	switch {
	case a.isDigit(t):
		return digitChars[t : t+1]
	case a.signs && t == a.plus():
		return "+"
	case a.signs && t == a.minus():
		return "-"
	case a.isSpecial(t):
		return specialNames[t-a.firstSpecial()]
	}
	panic(fmt.Sprintf("vocab: token %d out of range [0, %d)", t, a.size()))
}

// parseToken is the inverse of tokenString; letters may be upper case.
func (a alphabet) parseToken(s string) (int, error) {
	ls := strings.ToLower(s)
	for t := 0; t < a.size(); t++ {
		if a.tokenString(t) == ls {
			return t, nil
		}
	}
	return 0, fmt.Errorf("%w %q (want %s)", ErrToken, s, a.describe())
}

func (a alphabet) describe() string {
	s := "digits 0.." + digitChars[a.base-1:a.base]
	if a.signs {
		s += ", +, -"
	}
	if a.special {
		s += ", nan, inf, -inf"
	}
	return s
}

func (a alphabet) specSuffix() string {
	if a.special {
		return ",special=true"
	}
	return ""
}

// nonFinite encodes NaN or ±Inf as a special sequence of length n, or
// reports that the tokenization has no special tokens.
func (a alphabet) nonFinite(v float64, n int, spec string) ([]int, error) {
	if !a.special {
		return nil, fmt.Errorf("%w %v: %s has no special tokens (add special=true)", ErrNonFinite, v, spec)
	}
	k := NaN
	switch {
	case math.IsInf(v, 1):
		k = PosInf
	case math.IsInf(v, -1):
		k = NegInf
	}
	s := make([]int, n)
	for i := range s {
		s[i] = a.specialToken(k)
	}
	return s, nil
}

// specialCell is the cell of a special sequence starting with token t.
func (a alphabet) specialCell(t int) Cell {
	k := a.specialKind(t)
	v := math.NaN()
	switch k {
	case PosInf:
		v = math.Inf(1)
	case NegInf:
		v = math.Inf(-1)
	}
	return Cell{Lo: v, Hi: v, Center: v, Kind: k}
}

// badToken reports token t at position i, which is not allowed there.
func badToken(spec string, tokens []int, i int, size int, str func(int) string) error {
	t := tokens[i]
	if t < 0 || t >= size {
		return fmt.Errorf("%w: token id %d at position %d out of range [0, %d) for %s", ErrSequence, t, i, size, spec)
	}
	return fmt.Errorf("%w: token %q not allowed at position %d of %s (after %s)", ErrSequence, str(t), i, spec, joinTokens(tokens[:i], str))
}

func badLength(spec string, got, want int) error {
	return fmt.Errorf("%w: got %d tokens, %s needs %d", ErrSequence, got, spec, want)
}

func joinTokens(tokens []int, str func(int) string) string {
	if len(tokens) == 0 {
		return "nothing"
	}
	parts := make([]string, len(tokens))
	for i, t := range tokens {
		parts[i] = str(t)
	}
	return strings.Join(parts, " ")
}

// fixCenter returns c, moved below hi when it rounded to hi although the
// cell [lo, hi) holds float64 values.
func fixCenter(lo, c, hi float64) float64 {
	if c >= hi && lo < hi {
		return math.Nextafter(hi, math.Inf(-1))
	}
	return c
}

// digitsBadAt returns the position of the first token of prefix that is not
// allowed by the digit-only rules of Normalized and Hamming (any digit, or a
// special at position 0 repeated throughout), or -1.
func (a alphabet) digitsBadAt(prefix []int) int {
	for i, t := range prefix {
		switch {
		case i > 0 && a.isSpecial(prefix[0]):
			if t != prefix[0] {
				return i
			}
		case i == 0 && a.isSpecial(t):
		case !a.isDigit(t):
			return i
		}
	}
	return -1
}
