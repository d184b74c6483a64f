package vocab

import (
	"fmt"
	"math"
	"math/big"
)

// Unnormalized is the tokenization Unnormalized(B, E, M) of y in R: the
// sequence s, s_e, e_1..e_E, m_1..m_M stands for s * m * B^(e-M+1), where
// e = s_e * (e_1..e_E)_B lies in [-emax, emax], emax = B^E - 1, and the
// mantissa integer m = (m_1..m_M)_B is canonical: m_1 != 0. The exponent 0
// is written with s_e = "+" only. The cell of (s, e, m) holds the
// magnitudes [fl(m*B^(e-M+1)), fl((m+1)*B^(e-M+1))), with sign s (see the
// package doc for negative values).
//
// The zero sequence "+", "-", e_i = B-1, m_i = 0 is the only one with
// m_1 = 0 and holds (-fl(B^-emax), fl(B^-emax)), 0 and -0. Magnitudes at or
// above fl(B^(emax+1)) clamp to the extreme cell (largest exponent, all
// mantissa digits B-1) of their sign.
// The zero value is not usable: build one with NewUnnormalized or Parse (a zero value's
// methods panic or answer nonsense).
type Unnormalized struct {
	alphabet
	e, m     int
	emax     int      // B^E - 1
	low, top *big.Int // B^(M-1), B^M: the canonical mantissa integers are [low, top)

	fast         bool     // B^M <= 2^52: mantissas fit float64 exactly
	low64, top64 uint64   // low and top when fast
	pows         []uint64 // pows[j] = B^j for every B^j <= 2^52
	log2B        float64

	zero float64 // fl(B^-emax): the zero cell is (-zero, zero)
	ceil float64 // fl(B^(emax+1)): magnitudes from here on clamp
}

var _ Tree = (*Unnormalized)(nil)

// NewUnnormalized returns Unnormalized(base, exponent, mantissa):
// 2 <= base <= 36, exponent >= 1 with base^exponent <= 2^62, and
// 1 <= mantissa <= MaxLength.
func NewUnnormalized(base, exponent, mantissa int, opts ...Option) (*Unnormalized, error) {
	if err := checkRange("base", base, 2, MaxBase); err != nil {
		return nil, err
	}
	if err := checkRange("exponent", exponent, 1, 62); err != nil {
		return nil, err
	}
	ex, ok := powAtMost(base, exponent, 1<<62)
	if !ok {
		return nil, &paramError{fmt.Sprintf("exponent %d too long for base %d (base^exponent must be at most 2^62)", exponent, base)}
	}
	if err := checkRange("mantissa", mantissa, 1, MaxLength); err != nil {
		return nil, err
	}
	o := collect(opts)
	u := &Unnormalized{
		alphabet: alphabet{base: base, signs: true, special: o.special},
		e:        exponent,
		m:        mantissa,
		emax:     int(ex) - 1,
		low:      bigPow(base, mantissa-1),
		top:      bigPow(base, mantissa),
		log2B:    math.Log2(float64(base)),
	}
	for p := uint64(1); p <= fastLimit; p *= uint64(base) {
		u.pows = append(u.pows, p)
	}
	if top, ok := powAtMost(base, mantissa, fastLimit); ok {
		u.fast = true
		u.top64 = top
		u.low64 = top / uint64(base)
	}
	one := big.NewInt(1)
	u.zero = u.scaled(one, -u.emax, 1)
	u.ceil = u.scaled(one, u.emax+1, 1)
	return u, nil
}

// Base is B.
func (u *Unnormalized) Base() int { return u.base }

// Exponent is E, the number of exponent digits.
func (u *Unnormalized) Exponent() int { return u.e }

// Mantissa is M, the number of mantissa digits.
func (u *Unnormalized) Mantissa() int { return u.m }

// Special reports whether the special tokens are on.
func (u *Unnormalized) Special() bool { return u.special }

// Spec returns "unnormalized:base=B,exponent=E,mantissa=M" (",special=true"
// appended when the special tokens are on).
func (u *Unnormalized) Spec() string {
	return fmt.Sprintf("unnormalized:base=%d,exponent=%d,mantissa=%d", u.base, u.e, u.m) + u.specSuffix()
}

// Size is B+2, plus 3 with special tokens.
func (u *Unnormalized) Size() int { return u.size() }

// Len is 2+E+M.
func (u *Unnormalized) Len() int { return 2 + u.e + u.m }

// Plus is the token "+".
func (u *Unnormalized) Plus() int { return u.plus() }

// Minus is the token "-".
func (u *Unnormalized) Minus() int { return u.minus() }

// TokenString returns the printed form of token t; it panics when t is
// not in [0, Size()).
func (u *Unnormalized) TokenString(t int) string { return u.tokenString(t) }

// ParseToken returns the token printed as s.
func (u *Unnormalized) ParseToken(s string) (int, error) { return u.parseToken(s) }

// Range returns the magnitudes the finite cells hold: the zero cell is
// (-zero, zero) and magnitudes at or above ceil clamp.
func (u *Unnormalized) Range() (zero, ceil float64) { return u.zero, u.ceil }

// Encode returns the tokens of the cell that contains v (by magnitude, see
// the package doc); clamped is true when |v| >= fl(B^(emax+1)) and v went
// to the extreme cell of its sign. NaN and ±Inf are an error without
// special tokens.
func (u *Unnormalized) Encode(v float64) ([]int, bool, error) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		s, err := u.nonFinite(v, u.Len(), u.Spec())
		return s, false, err
	}
	a, neg := math.Abs(v), v < 0
	switch {
	case a == 0 || a < u.zero:
		return u.zeroSeq(), false, nil
	case a >= u.ceil:
		return u.extremeSeq(neg), true, nil
	}
	if u.fast {
		if e, m, ok := u.locateFast(a); ok {
			s := u.seq(neg, e)
			putDigits(s[2+u.e:], u.base, m)
			return s, false, nil
		}
	}
	e, m, where := u.locateExact(a)
	if where != 0 { // cannot happen after the zero and ceil tests above
		panic("vocab: Unnormalized.Encode: inconsistent range")
	}
	s := u.seq(neg, e)
	putDigitsBig(s[2+u.e:], u.base, m)
	return s, false, nil
}

// locateFast finds the cell (e, m) of a magnitude in [zero, ceil) by a
// float64 guess corrected against the exactly rounded edges; ok is false
// when the exponent leaves the fast range or the guess is too far off.
func (u *Unnormalized) locateFast(a float64) (e int, m uint64, ok bool) {
	e = int(math.Floor(math.Log(a) / math.Log(float64(u.base))))
	e = max(-u.emax, min(u.emax, e))
	k := e - u.m + 1
	if k >= len(u.pows) || -k >= len(u.pows) {
		return 0, 0, false
	}
	var g float64
	if k >= 0 {
		g = a / float64(u.pows[k])
	} else {
		g = a * float64(u.pows[-k])
	}
	m = uint64(max(float64(u.low64), min(float64(u.top64-1), g)))
	for range 8 {
		k := e - u.m + 1
		if k >= len(u.pows) || -k >= len(u.pows) || e < -u.emax || e > u.emax {
			return 0, 0, false
		}
		lo, hi, _ := u.cellFast(m, k)
		switch {
		case a < lo:
			if m--; m < u.low64 {
				e, m = e-1, u.top64-1
			}
		case a >= hi:
			if m++; m >= u.top64 {
				e, m = e+1, u.low64
			}
		default:
			return e, m, true
		}
	}
	return 0, 0, false
}

// locateExact finds the cell of a finite magnitude a > 0 with math/big:
// where is -1 below the canonical cells (the zero cell), +1 above them
// (clamp), 0 in cell (e, m).
func (u *Unnormalized) locateExact(a float64) (e int, m *big.Int, where int) {
	T, s, tie := halfUp(a)
	e = int(math.Floor(math.Log(a) / math.Log(float64(u.base))))
	e = max(-u.emax, min(u.emax, e))
	one := big.NewInt(1)
	for {
		k := e - u.m + 1
		mul, div := one, one
		if k >= 0 {
			div = bigPow(u.base, k)
		} else {
			mul = bigPow(u.base, -k)
		}
		q := floorBelow(T, s, tie, mul, div)
		switch {
		case q.Cmp(u.low) < 0:
			if e <= -u.emax {
				return 0, nil, -1
			}
			e--
		case q.Cmp(u.top) >= 0:
			if e >= u.emax {
				return 0, nil, 1
			}
			e++
		default:
			return e, q, 0
		}
	}
}

// seq returns a sequence with the sign and exponent tokens of (neg, e)
// filled in and a zero mantissa.
func (u *Unnormalized) seq(neg bool, e int) []int {
	s := make([]int, u.Len())
	s[0], s[1] = u.plus(), u.plus()
	if neg {
		s[0] = u.minus()
	}
	if e < 0 {
		s[1], e = u.minus(), -e
	}
	putDigits(s[2:2+u.e], u.base, uint64(e))
	return s
}

func (u *Unnormalized) zeroSeq() []int {
	s := u.seq(false, -u.emax)
	return s
}

func (u *Unnormalized) extremeSeq(neg bool) []int {
	s := u.seq(neg, u.emax)
	for i := 2 + u.e; i < len(s); i++ {
		s[i] = u.base - 1
	}
	return s
}

// cellFast returns the magnitude edges and centre of mantissa m, scale
// B^k, with float64 arithmetic on exact operands (m < 2^52, |k| < len(pows)).
func (u *Unnormalized) cellFast(m uint64, k int) (lo, hi, c float64) {
	if k >= 0 {
		p := float64(u.pows[k])
		lo, hi = float64(m)*p, float64(m+1)*p
		c = float64(2*m+1) * p * 0.5 // exact halving: the product is >= 1
	} else {
		p := float64(u.pows[-k])
		lo, hi = float64(m)/p, float64(m+1)/p
		c = float64(2*m+1) / (2 * p)
	}
	return lo, hi, fixCenter(lo, c, hi)
}

// cellBig is cellFast for any m and k.
func (u *Unnormalized) cellBig(m *big.Int, k int) (lo, hi, c float64) {
	one := big.NewInt(1)
	lo = u.scaled(m, k, 1)
	hi = u.scaled(new(big.Int).Add(m, one), k, 1)
	c2 := new(big.Int).Lsh(m, 1)
	c = u.scaled(c2.Add(c2, one), k, 2)
	return lo, hi, fixCenter(lo, c, hi)
}

// scaled returns the float64 nearest num * B^k / den, num > 0, den > 0
// small. Values far outside the float64 range give +Inf or 0 without
// computing B^k.
func (u *Unnormalized) scaled(num *big.Int, k int, den int64) float64 {
	bl, lg := float64(num.BitLen()), float64(k)*u.log2B
	switch {
	case bl-1+lg-math.Log2(float64(den)) > 1030: // value >= 2^1030
		return math.Inf(1)
	case bl+lg < -1080: // value < 2^-1080
		return 0
	}
	n, d := new(big.Int).Set(num), big.NewInt(den)
	if k >= 0 {
		n.Mul(n, bigPow(u.base, k))
	} else {
		d.Mul(d, bigPow(u.base, -k))
	}
	return nearest(n, d)
}

// Decode returns the cell of a complete, valid sequence.
func (u *Unnormalized) Decode(tokens []int) (Cell, error) {
	if len(tokens) != u.Len() {
		return Cell{}, badLength(u.Spec(), len(tokens), u.Len())
	}
	if _, bad := u.scan(tokens); bad >= 0 {
		return Cell{}, badToken(u.Spec(), tokens, bad, u.size(), u.tokenString)
	}
	if u.isSpecial(tokens[0]) {
		return u.specialCell(tokens[0]), nil
	}
	mant := tokens[2+u.e:]
	if mant[0] == 0 {
		return Cell{Lo: -u.zero, Hi: u.zero, Center: 0}, nil
	}
	e := 0
	for _, d := range tokens[2 : 2+u.e] {
		e = e*u.base + d
	}
	if tokens[1] == u.minus() {
		e = -e
	}
	k := e - u.m + 1
	var lo, hi, c float64
	if u.fast && k < len(u.pows) && -k < len(u.pows) {
		var m uint64
		for _, d := range mant {
			m = m*uint64(u.base) + uint64(d)
		}
		lo, hi, c = u.cellFast(m, k)
	} else {
		lo, hi, c = u.cellBig(digitsValue(mant, u.base), k)
	}
	if tokens[0] == u.minus() {
		return Cell{Lo: -hi, Hi: -lo, Center: -c}, nil
	}
	return Cell{Lo: lo, Hi: hi, Center: c}, nil
}

// uState is what the validity rules need to know about a prefix.
type uState struct {
	n              int // tokens seen
	special        int // the special token at position 0, or -1
	sign, esign    int
	expZero, expMx bool // the exponent digits so far are all 0 / all B-1
	m1             int  // the first mantissa digit, or -1
}

// ok reports whether t may follow the prefix described by st.
func (u *Unnormalized) ok(st *uState, t int) bool {
	pos := st.n
	switch {
	case t < 0 || t >= u.size() || pos >= u.Len():
		return false
	case st.special >= 0:
		return t == st.special
	case pos == 0:
		return t == u.plus() || t == u.minus() || u.isSpecial(t)
	case pos == 1:
		return t == u.plus() || t == u.minus()
	case !u.isDigit(t):
		return false
	case pos < 2+u.e: // exponent digit: "-" with an all-zero exponent is not canonical
		return !(pos == 1+u.e && st.esign == u.minus() && st.expZero && t == 0)
	case pos == 2+u.e: // m_1: 0 only on the zero path
		return t != 0 || (st.sign == u.plus() && st.esign == u.minus() && st.expMx)
	default:
		return st.m1 != 0 || t == 0
	}
}

func (u *Unnormalized) push(st *uState, t int) {
	switch pos := st.n; {
	case pos == 0:
		st.sign = t
		if u.isSpecial(t) {
			st.special = t
		}
	case st.special >= 0:
	case pos == 1:
		st.esign = t
	case pos < 2+u.e:
		st.expZero = st.expZero && t == 0
		st.expMx = st.expMx && t == u.base-1
	case pos == 2+u.e:
		st.m1 = t
	}
	st.n++
}

// scan returns the state after prefix and the position of its first token
// that is not allowed, or -1.
func (u *Unnormalized) scan(prefix []int) (uState, int) {
	st := uState{special: -1, expZero: true, expMx: true, m1: -1}
	for i, t := range prefix {
		if !u.ok(&st, t) {
			return st, i
		}
		u.push(&st, t)
	}
	return st, -1
}

// Allowed appends the tokens that may follow prefix, in increasing token
// order. The rules: position 0 takes "+", "-" (and the specials, after
// which only the same special follows); position 1 takes "+", "-"; the
// exponent digits take any digit except that "-" with an all-zero exponent
// is refused; m_1 takes 1..B-1, and also 0 on the zero path ("+", "-", all
// exponent digits B-1), after which only 0 follows. An invalid or complete
// prefix allows nothing.
func (u *Unnormalized) Allowed(dst, prefix []int) []int {
	st, bad := u.scan(prefix)
	if bad >= 0 {
		return dst
	}
	for t := 0; t < u.size(); t++ {
		if u.ok(&st, t) {
			dst = append(dst, t)
		}
	}
	return dst
}

// Children appends the tokens allowed after prefix in increasing numeric
// order of their intervals: at position 0 -inf, "-", "+", inf, nan (NaN
// has no order; it comes last). Under "-" larger magnitudes come first, and
// under a "-" exponent sign larger exponent digits mean smaller
// magnitudes, so exponent digits run downwards when exactly one of s, s_e
// is "-", and mantissa digits run downwards under s = "-".
func (u *Unnormalized) Children(dst, prefix []int) []int {
	st, bad := u.scan(prefix)
	if bad >= 0 || st.n >= u.Len() {
		return dst
	}
	add := func(t int) {
		if u.ok(&st, t) {
			dst = append(dst, t)
		}
	}
	digits := func(up bool) {
		for i := 0; i < u.base; i++ {
			if up {
				add(i)
			} else {
				add(u.base - 1 - i)
			}
		}
	}
	switch pos := st.n; {
	case st.special >= 0:
		add(st.special)
	case pos == 0:
		if u.special {
			add(u.specialToken(NegInf))
		}
		add(u.minus())
		add(u.plus())
		if u.special {
			add(u.specialToken(PosInf))
			add(u.specialToken(NaN))
		}
	case pos == 1:
		if st.sign == u.plus() {
			add(u.minus())
			add(u.plus())
		} else {
			add(u.plus())
			add(u.minus())
		}
	case pos < 2+u.e:
		digits((st.sign == u.plus()) == (st.esign == u.plus()))
	default:
		digits(st.sign == u.plus())
	}
	return dst
}

// Interval returns [lo, hi], the union of the cells under prefix. The empty
// prefix covers [-ceil, ceil] (see Range); "+" covers (-zero, ceil) since
// the zero cell lies under it; a special prefix covers its special value.
// An invalid prefix (a token not allowed there, or longer than Len) panics.
func (u *Unnormalized) Interval(prefix []int) (lo, hi float64) {
	return treeInterval(u, u.alphabet, prefix)
}
