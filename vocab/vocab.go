package vocab

// Kind says what a decoded cell stands for.
type Kind uint8

const (
	Finite Kind = iota // an interval of real numbers
	NaN                // the special token NaN
	PosInf             // the special token +Inf
	NegInf             // the special token -Inf
)

// Cell is what a complete token sequence decodes to: the interval of real
// numbers it stands for, and its centre (the decoded value). For special
// sequences Lo, Hi and Center are NaN, +Inf or -Inf and Kind says which.
type Cell struct {
	Lo, Hi float64 // the cell's edges (float64 nearest the exact edges)
	Center float64 // the decoded value
	Kind   Kind    // Finite, or which special token the sequence is
}

// Width is Hi - Lo for a finite cell and 0 otherwise.
func (c Cell) Width() float64 {
	if c.Kind != Finite {
		return 0
	}
	return c.Hi - c.Lo
}

// Tokenizer is a bijection between valid token sequences of a fixed length
// and cells that tile the representable range. Tokens are integers in
// [0, Size()).
type Tokenizer interface {
	// Spec is the canonical specification string, parseable by Parse.
	Spec() string
	// Size is the number of tokens in the vocabulary.
	Size() int
	// Len is the length of every valid token sequence.
	Len() int
	// TokenString is the printed form of token t ("+", "-", "0".."9",
	// "a".."z", "nan", "inf", "-inf").
	TokenString(t int) string
	// ParseToken is the inverse of TokenString.
	ParseToken(s string) (int, error)
	// Encode returns the tokens of the cell that contains v. clamped is
	// true when v lies outside the representable range and was clamped to
	// the extreme cell (where the tokenization clamps); values it cannot
	// represent at all (NaN, ±Inf without special tokens, out of [0,1] for
	// normalized ones) are an error.
	Encode(v float64) (tokens []int, clamped bool, err error)
	// Decode returns the cell of a complete, valid sequence; an invalid
	// sequence is an error.
	Decode(tokens []int) (Cell, error)
	// Allowed appends to dst the tokens that may follow prefix
	// (len(prefix) < Len()) in increasing token order, and returns it.
	Allowed(dst []int, prefix []int) []int
}

// Tree is a tokenization whose every prefix stands for a contiguous
// interval, nested in its parent's, so that a distribution over sequences
// is a tree of nested intervals (Normalized, Unnormalized).
type Tree interface {
	Tokenizer
	// Interval returns the interval [lo, hi] covered by all the complete
	// sequences that start with prefix (finite cells only).
	Interval(prefix []int) (lo, hi float64)
	// Children appends to dst the allowed next tokens after prefix, in
	// increasing numeric order of their intervals, and returns it.
	Children(dst []int, prefix []int) []int
}

// ChildIntervaler is a Tree that gives the intervals of many children of
// one prefix at once (see ChildIntervals, which falls back to Interval
// and Decode for a Tree without it).
type ChildIntervaler interface {
	ChildIntervals(prefix, children []int, lo, hi []float64)
}
