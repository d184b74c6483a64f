package vocab

import (
	"fmt"
	"math"
	"slices"
)

// Bounded is a tree tokenization restricted to the cells that meet a closed
// interval [lo, hi]: from the cell that holds lo to the cell that holds hi,
// in the tree's numeric order. Allowed and Children offer only the tokens
// whose subtree holds such a cell, so a model that uses it (in training and
// at inference) puts no mass on the other cells. The special tokens of the
// inner tokenization stay allowed. Build one with Bound.
//
// Its Spec, Size, Len and token strings are the inner tokenization's: the
// bounds are not part of the spec, and whoever stores the spec re-applies
// the bound after Parse.
// The zero value is not usable (its methods panic or answer nonsense).
type Bounded struct {
	inner  Tree
	lo, hi float64
	first  []int // the sequence of the first cell (the one holding lo)
	last   []int // the sequence of the last cell (the one holding hi)
	firstC Cell
	lastC  Cell
	spec   func(int) bool
	// endLo and endHi are the least and greatest values the extreme cells
	// hold: their union's ends, or ends given to BoundEnds a rounding
	// beyond them, or BoundCut's ends.
	endLo, endHi float64
	// cut: the extreme cells are firstC and lastC, cut or extended to
	// endLo and endHi (BoundCut), not the inner cells.
	cut bool
}

var _ Tree = (*Bounded)(nil)

// Bound returns t restricted to the cells that meet [lo, hi] (see Bounded).
// t must be a Tree (Normalized, Unnormalized, or a Bounded, whose bound is
// intersected) or a Repeat of one, which gives the Repeat of the bounded
// inner tokenization; other tokenizations (Hamming, whose prefixes are not
// intervals) are an error wrapping ErrSpec. lo and hi are clipped to the
// tree's range; lo > hi, NaN, or an interval that misses the range is an
// error, and so is a nil t.
func Bound(t Tokenizer, lo, hi float64) (Tokenizer, error) {
	switch v := t.(type) {
	case nil:
		return nil, &paramError{"no tokenization (nil) to bound"}
	case *Repeat:
		in, err := Bound(v.inner, lo, hi)
		if err != nil {
			return nil, err
		}
		return NewRepeat(v.r, in)
	case *Bounded:
		return bound(v.inner, max(lo, v.lo), min(hi, v.hi))
	case Tree:
		return bound(v, lo, hi)
	}
	return nil, fmt.Errorf("%w: %s is not a tree tokenization; it cannot be bounded", ErrSpec, t.Spec())
}

type specialer interface{ isSpecial(t int) bool }

func bound(t Tree, lo, hi float64) (*Bounded, error) {
	if !(lo <= hi) {
		return nil, fmt.Errorf("%w: bound [%v, %v] of %s is empty or NaN", ErrSpec, lo, hi, t.Spec())
	}
	rlo, rhi := t.Interval(nil)
	if hi < rlo || lo > rhi {
		return nil, fmt.Errorf("%w: bound [%v, %v] misses the range [%v, %v] of %s", ErrSpec, lo, hi, rlo, rhi, t.Spec())
	}
	lo = min(max(lo, rlo, -math.MaxFloat64), math.MaxFloat64)
	hi = min(max(hi, -math.MaxFloat64), rhi, math.MaxFloat64)
	b := &Bounded{inner: t, lo: lo, hi: hi, spec: func(int) bool { return false }}
	if s, ok := t.(specialer); ok {
		b.spec = s.isSpecial
	}
	var err error
	if b.first, _, err = t.Encode(lo); err != nil {
		return nil, fmt.Errorf("%w: bound %v of %s: %v", ErrSpec, lo, t.Spec(), err)
	}
	if b.last, _, err = t.Encode(hi); err != nil {
		return nil, fmt.Errorf("%w: bound %v of %s: %v", ErrSpec, hi, t.Spec(), err)
	}
	if b.firstC, err = t.Decode(b.first); err != nil {
		return nil, err
	}
	if b.lastC, err = t.Decode(b.last); err != nil {
		return nil, err
	}
	b.endLo, b.endHi = b.firstC.Lo, b.lastC.Hi
	return b, nil
}

// BoundEnds is Bound, whose extreme cells also hold the values out to
// endLo and endHi where those lie beyond the cells by at most tol, and by
// at most a thousandth of the extreme cell's width: the ends of a fixed
// target range as the model's arithmetic ((y - offset) / scale) gives
// them, which round beyond a cell's edge (by about 1e-13 for [100.1,
// 100.7] in head units; tol bounds that rounding), so that targets on
// them are the extreme cells' and score there. An end further beyond (a
// cell the bound leaves out lies between it and the extreme cell, or the
// cells are finer than the rounding) is not: values there stay clamped,
// and their density 0.
func BoundEnds(t Tokenizer, lo, hi, endLo, endHi, tol float64) (Tokenizer, error) {
	b, bd, err := boundOf(t, lo, hi)
	if err != nil || bd == nil {
		return b, err
	}
	if gap, w := bd.endLo-endLo, bd.firstC.Hi-bd.firstC.Lo; gap > 0 && gap <= tol && gap <= 1e-3*w {
		bd.endLo = endLo
	}
	if gap, w := endHi-bd.endHi, bd.lastC.Hi-bd.lastC.Lo; gap > 0 && gap <= tol && gap <= 1e-3*w {
		bd.endHi = endHi
	}
	return b, nil
}

// BoundCut is Bound, whose extreme cells end exactly at endLo and endHi:
// cut there where an end lies inside its cell, and extended to it where it
// lies beyond the cell by at most tol (the cells Bound leaves out between
// them, finer than tol, join the extreme cell). The cells then tile
// [endLo, endHi]: the extreme cells' widths, centres and intervals are the
// cut ones, and a value outside [endLo, endHi] is clamped, also inside an
// inner cell cut off. It is how a fixed target range is honoured: where
// the range's ends are not cell edges (an odd base, a raw end the base
// cannot write, 0 inside the zero cell), a bound keeping the extreme cells
// whole puts mass up to a cell beyond the range. An end beyond the cell by
// more than tol (a cell the bound keeps out lies between, or the range
// reaches past the tokenization's) is not taken: that side is as Bound's.
// endLo < endHi is required.
func BoundCut(t Tokenizer, lo, hi, endLo, endHi, tol float64) (Tokenizer, error) {
	if !(endLo < endHi) {
		return nil, fmt.Errorf("%w: ends [%v, %v] of %s are empty or NaN", ErrSpec, endLo, endHi, t.Spec())
	}
	b, bd, err := boundOf(t, lo, hi)
	if err != nil || bd == nil {
		return b, err
	}
	single := slices.Equal(bd.first, bd.last)
	if f := bd.firstC; endLo < f.Hi && (endLo >= f.Lo || f.Lo-endLo <= tol) {
		bd.firstC = cutCell(f, endLo, f.Hi)
		bd.endLo = endLo
	}
	if single {
		bd.lastC.Lo = bd.firstC.Lo
	}
	if l := bd.lastC; endHi > l.Lo && (endHi <= l.Hi || endHi-l.Hi <= tol) {
		bd.lastC = cutCell(l, l.Lo, endHi)
		bd.endHi = endHi
	}
	if single {
		bd.firstC = bd.lastC
	}
	bd.cut = true
	return b, nil
}

// boundOf returns Bound(t, lo, hi) and the Bounded it is or repeats (nil
// for none).
func boundOf(t Tokenizer, lo, hi float64) (Tokenizer, *Bounded, error) {
	b, err := Bound(t, lo, hi)
	if err != nil {
		return nil, nil, err
	}
	return b, bounded(b), nil
}

// cutCell is c with edges lo and hi, centred between them.
func cutCell(c Cell, lo, hi float64) Cell {
	c.Lo, c.Hi = lo, hi
	c.Center = fixCenter(lo, lo+(hi-lo)/2, hi)
	return c
}

// Cut reports whether the extreme cells end at BoundCut's ends.
func (b *Bounded) Cut() bool { return b.cut }

// Inner is the unbounded tokenization.
func (b *Bounded) Inner() Tree { return b.inner }

// Bounds returns the interval the cells meet (clipped to the inner range).
func (b *Bounded) Bounds() (lo, hi float64) { return b.lo, b.hi }

// Spec is the inner spec (the bound is not part of it).
func (b *Bounded) Spec() string { return b.inner.Spec() }

// Size is the inner vocabulary size.
func (b *Bounded) Size() int { return b.inner.Size() }

// Len is the inner sequence length.
func (b *Bounded) Len() int { return b.inner.Len() }

// TokenString returns the inner printed form of token t; a token outside
// [0, Size()) panics, as the inner tokenization's does.
func (b *Bounded) TokenString(t int) string { return b.inner.TokenString(t) }

// ParseToken returns the inner token printed as s.
func (b *Bounded) ParseToken(s string) (int, error) { return b.inner.ParseToken(s) }

// rankIn is the position of t in the inner Children of prefix, or -1.
func (b *Bounded) rankIn(ch []int, t int) int {
	for j, c := range ch {
		if c == t {
			return j
		}
	}
	return -1
}

// locate walks prefix (valid in the inner tree) and reports whether every
// token keeps it inside [first, last] in the tree order, and whether the
// prefix is still a prefix of first and of last.
func (b *Bounded) locate(prefix []int) (in, onFirst, onLast bool) {
	onFirst, onLast = true, true
	if len(prefix) > len(b.first) {
		return false, false, false
	}
	if len(prefix) > 0 && b.spec(prefix[0]) {
		return true, false, false
	}
	var ch []int
	for l, t := range prefix {
		if !onFirst && !onLast {
			break
		}
		ch = b.inner.Children(ch[:0], prefix[:l])
		j := b.rankIn(ch, t)
		if j < 0 {
			return false, false, false
		}
		if onFirst {
			if jf := b.rankIn(ch, b.first[l]); j < jf {
				return false, false, false
			}
			onFirst = t == b.first[l]
		}
		if onLast {
			if jl := b.rankIn(ch, b.last[l]); j > jl {
				return false, false, false
			}
			onLast = t == b.last[l]
		}
	}
	return true, onFirst, onLast
}

// keep filters ch (the inner Children or Allowed of prefix, prefix inside
// the bound) in place to the tokens that stay inside it.
func (b *Bounded) keep(ch []int, prefix []int, onFirst, onLast bool) []int {
	l := len(prefix)
	if !onFirst && !onLast || len(ch) == 0 || l >= len(b.first) {
		return ch
	}
	order := b.inner.Children(nil, prefix)
	jf, jl := 0, len(order)
	if onFirst {
		jf = b.rankIn(order, b.first[l])
	}
	if onLast {
		jl = b.rankIn(order, b.last[l])
	}
	out := ch[:0]
	for _, t := range ch {
		if b.spec(t) {
			out = append(out, t)
			continue
		}
		if j := b.rankIn(order, t); j >= jf && j <= jl {
			out = append(out, t)
		}
	}
	return out
}

// Allowed appends the inner Allowed tokens after prefix whose subtrees meet
// the bound, in increasing token order; a prefix outside the bound allows
// nothing.
func (b *Bounded) Allowed(dst, prefix []int) []int {
	in, onF, onL := b.locate(prefix)
	if !in {
		return dst
	}
	start := len(dst)
	dst = b.inner.Allowed(dst, prefix)
	return append(dst[:start], b.keep(dst[start:], prefix, onF, onL)...)
}

// Children is Allowed in the inner Children order (numeric order).
func (b *Bounded) Children(dst, prefix []int) []int {
	in, onF, onL := b.locate(prefix)
	if !in {
		return dst
	}
	start := len(dst)
	dst = b.inner.Children(dst, prefix)
	return append(dst[:start], b.keep(dst[start:], prefix, onF, onL)...)
}

// Encode returns the inner sequence of v; a finite v whose cell lies outside
// the bound goes to the first or last cell of the bound, with clamped true.
func (b *Bounded) Encode(v float64) ([]int, bool, error) {
	s, clamped, err := b.inner.Encode(v)
	if err != nil || b.spec(s[0]) {
		return s, clamped, err
	}
	if in, _, _ := b.locate(s); in {
		if b.cut {
			// BoundCut's cells tile [endLo, endHi], both ends included:
			// its extreme cells hold less than the inner ones, and an end
			// the inner tokenization cannot write (its largest value,
			// which it clamps) is the extreme cell's edge.
			return s, !(v >= b.endLo && v <= b.endHi), nil
		}
		return s, clamped, nil
	}
	// The bound's cells cover [first.Lo, last.Hi], both ends included (as
	// a normalized tokenization's [0, 1]), and out to the ends BoundEnds
	// gives: a value there is the extreme cell's, not beyond the bound
	// (targets on a fixed range's ends were refused as beyond the
	// tokenization, and scored -Inf). Further beyond, the density is 0,
	// as the CDF says.
	if v < b.lo {
		return append([]int(nil), b.first...), !(v >= b.endLo), nil
	}
	return append([]int(nil), b.last...), !(v <= b.endHi), nil
}

// Decode returns the inner cell of a sequence inside the bound (an extreme
// cell as BoundCut cut it); a sequence outside it is an error
// (ErrSequence).
func (b *Bounded) Decode(tokens []int) (Cell, error) {
	c, err := b.inner.Decode(tokens)
	if err != nil {
		return c, err
	}
	in, onF, onL := b.locate(tokens)
	if !in {
		return Cell{}, fmt.Errorf("%w: %s is outside the bound [%v, %v] of %s", ErrSequence, joinTokens(tokens, b.TokenString), b.lo, b.hi, b.Spec())
	}
	if b.cut && len(tokens) == len(b.first) {
		if onF {
			return b.firstC, nil
		}
		if onL {
			return b.lastC, nil
		}
	}
	return c, nil
}

// Interval returns the union of the cells under prefix inside the bound:
// the inner interval, cut at the first cell's low edge when prefix leads to
// the first cell and at the last cell's high edge when it leads to the last.
// The empty prefix covers [first.Lo, last.Hi]. An invalid prefix, or one
// outside the bound, panics.
func (b *Bounded) Interval(prefix []int) (lo, hi float64) {
	in, onF, onL := b.locate(prefix)
	if !in {
		panic("vocab: Interval: prefix outside the bound")
	}
	lo, hi = b.inner.Interval(prefix)
	if onF {
		lo = b.firstC.Lo
	}
	if onL {
		hi = b.lastC.Hi
	}
	return lo, hi
}

// Same reports whether a and b are the same tokenization: the same spec
// and the same bounds, if any, with the same extreme cells (BoundCut). A Bounded's spec is its inner
// tokenization's (see Bounded), so the spec alone does not tell a bounded
// tree from the unbounded one, whose cells and children differ. Two nil
// tokenizations (heads without one, see Model.Tokenizer) are the same.
func Same(a, b Tokenizer) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if a.Spec() != b.Spec() {
		return false
	}
	ab, bb := bounded(a), bounded(b)
	if ab == nil || bb == nil {
		return ab == nil && bb == nil
	}
	return ab.lo == bb.lo && ab.hi == bb.hi && ab.cut == bb.cut && ab.firstC == bb.firstC && ab.lastC == bb.lastC && ab.endLo == bb.endLo && ab.endHi == bb.endHi
}

// bounded returns a Bounded tokenization, or the one a Repeat repeats;
// nil for an unbounded one.
func bounded(t Tokenizer) *Bounded {
	switch v := t.(type) {
	case *Bounded:
		return v
	case *Repeat:
		return bounded(v.inner)
	}
	return nil
}
