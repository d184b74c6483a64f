package vocab

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxRepeat is the largest repeat count.
const MaxRepeat = 64

// Repeat is the error-correcting tokenization Repeat(R, inner) of the
// paper's ablation: the inner sequence written R times back to back. Every
// copy must be a valid inner sequence (Allowed applies inner.Allowed to the
// current copy's own prefix), but the copies may differ; Decode takes a
// per-position majority vote over the copies.
//
// Voting: at each position the token held by the most copies wins; among
// tokens tied for the most copies, the one whose first occurrence is in the
// earliest copy wins. If the voted sequence is not a valid inner sequence
// (the vote can mix two valid copies into an invalid one), Decode falls back
// to the copy nearest to the voted sequence in Hamming distance, the
// earliest copy among equally near ones.
//
// Repeat is many-to-one, so it is not a Tree. The likelihood a model gives
// a value under Repeat is the probability of the exact repeated sequence
// that Encode returns: a lower bound on the probability of all sequences
// that vote to the value's cell.
// The zero value is not usable: build one with NewRepeat or Parse (a zero value's
// methods panic or answer nonsense).
type Repeat struct {
	r     int
	inner Tokenizer
}

// NewRepeat returns Repeat(r, inner), 1 <= r <= MaxRepeat. inner may not be
// nil or a Repeat itself.
func NewRepeat(r int, inner Tokenizer) (*Repeat, error) {
	if err := checkRange("repeat", r, 1, MaxRepeat); err != nil {
		return nil, err
	}
	if inner == nil {
		return nil, &paramError{"repeat of no tokenization (nil)"}
	}
	if _, ok := inner.(*Repeat); ok {
		return nil, &paramError{"repeat of a repeat"}
	}
	return &Repeat{r: r, inner: inner}, nil
}

// Copies is R.
func (t *Repeat) Copies() int { return t.r }

// Inner is the repeated tokenization.
func (t *Repeat) Inner() Tokenizer { return t.inner }

// Spec is the inner spec with ",repeat=R" appended.
func (t *Repeat) Spec() string { return t.inner.Spec() + ",repeat=" + strconv.Itoa(t.r) }

// Size is the inner vocabulary size.
func (t *Repeat) Size() int { return t.inner.Size() }

// Len is R times the inner length.
func (t *Repeat) Len() int { return t.r * t.inner.Len() }

// TokenString returns the inner printed form of token tok; a token outside
// [0, Size()) panics, as the inner tokenization's does.
func (t *Repeat) TokenString(tok int) string { return t.inner.TokenString(tok) }

// ParseToken returns the inner token printed as s.
func (t *Repeat) ParseToken(s string) (int, error) { return t.inner.ParseToken(s) }

// Encode writes the inner sequence of v R times; clamped is the inner one.
func (t *Repeat) Encode(v float64) ([]int, bool, error) {
	s, clamped, err := t.inner.Encode(v)
	if err != nil {
		return nil, false, err
	}
	out := make([]int, 0, t.Len())
	for range t.r {
		out = append(out, s...)
	}
	return out, clamped, nil
}

// Allowed appends the tokens that may follow prefix: those the inner
// tokenization allows after the current copy's own prefix, provided every
// earlier copy is a valid inner sequence.
func (t *Repeat) Allowed(dst, prefix []int) []int {
	n := t.inner.Len()
	c := len(prefix) / n
	if c >= t.r {
		return dst
	}
	for j := range c {
		if !validSeq(t.inner, prefix[j*n:(j+1)*n]) {
			return dst
		}
	}
	return t.inner.Allowed(dst, prefix[c*n:])
}

// validSeq reports whether tokens is a valid complete sequence of tok,
// without decoding it when tok is one of this package's tokenizations.
func validSeq(tok Tokenizer, tokens []int) bool {
	switch v := tok.(type) {
	case *Normalized:
		return v.digitsBadAt(tokens) < 0
	case *Hamming:
		return v.digitsBadAt(tokens) < 0
	case *Unnormalized:
		_, bad := v.scan(tokens)
		return bad < 0
	}
	_, err := tok.Decode(tokens)
	return err == nil
}

// Decode checks every copy, votes (see Repeat) and decodes the voted
// inner sequence.
func (t *Repeat) Decode(tokens []int) (Cell, error) {
	if len(tokens) != t.Len() {
		return Cell{}, badLength(t.Spec(), len(tokens), t.Len())
	}
	n := t.inner.Len()
	for j := range t.r {
		if _, err := t.inner.Decode(tokens[j*n : (j+1)*n]); err != nil {
			msg := strings.TrimPrefix(err.Error(), ErrSequence.Error()+": ")
			return Cell{}, fmt.Errorf("%w: copy %d of %d of %s: %s", ErrSequence, j+1, t.r, t.Spec(), msg)
		}
	}
	return t.inner.Decode(t.vote(tokens))
}

// vote returns the voted inner sequence of a sequence of valid copies, or
// the fallback copy when the vote is not valid.
func (t *Repeat) vote(tokens []int) []int {
	n := t.inner.Len()
	voted := make([]int, n)
	for p := range n {
		best, bestCount := -1, 0
		for j := range t.r {
			tok := tokens[j*n+p]
			if tok == best {
				continue
			}
			first := true // count tok only at its first occurrence
			for i := range j {
				if tokens[i*n+p] == tok {
					first = false
					break
				}
			}
			if !first {
				continue
			}
			count := 0
			for i := j; i < t.r; i++ {
				if tokens[i*n+p] == tok {
					count++
				}
			}
			if count > bestCount { // strictly more: earlier first occurrences win ties
				best, bestCount = tok, count
			}
		}
		voted[p] = best
	}
	if _, err := t.inner.Decode(voted); err == nil {
		return voted
	}
	bestCopy, bestDist := 0, n+1
	for j := range t.r {
		d := 0
		for p := range n {
			if tokens[j*n+p] != voted[p] {
				d++
			}
		}
		if d < bestDist {
			bestCopy, bestDist = j, d
		}
	}
	return tokens[bestCopy*n : (bestCopy+1)*n]
}
