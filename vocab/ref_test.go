package vocab

import (
	"errors"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Independent references for the tests: they share no code with the
// package beyond the public API.

var bigOne = big.NewInt(1)

// refNearest is the float64 nearest r (ties to the even significand),
// found without big.Rat.Float64: see refNearestFrac.
func refNearest(r *big.Rat) float64 {
	if r.Sign() < 0 {
		return -refNearestFrac(new(big.Int).Neg(r.Num()), r.Denom())
	}
	return refNearestFrac(r.Num(), r.Denom())
}

// refNearestFrac is the float64 nearest p/q (p >= 0, q > 0; ties to the
// even significand): a 64-bit big.Float guess, then exact integer
// comparison of the distances from p/q to the guess and its neighbours,
// all scaled by q * 2^shift.
func refNearestFrac(p, q *big.Int) float64 {
	if p.Sign() == 0 {
		return 0
	}
	// 2^1024 - 2^970, the midpoint above MaxFloat64, rounds to +Inf.
	over := new(big.Int).Sub(new(big.Int).Lsh(bigOne, 1024), new(big.Int).Lsh(bigOne, 970))
	if p.Cmp(new(big.Int).Mul(over, q)) >= 0 {
		return math.Inf(1)
	}
	g, _ := new(big.Float).SetPrec(64).Quo(new(big.Float).SetInt(p), new(big.Float).SetInt(q)).Float64()
	if math.IsInf(g, 1) {
		g = math.MaxFloat64
	}
	cands := []float64{math.Nextafter(g, 0), g, math.Nextafter(g, math.Inf(1))}
	shift := 0 // every candidate times 2^shift is an integer
	for _, c := range cands {
		if _, exp := math.Frexp(c); c != 0 {
			shift = max(shift, 53-exp)
		}
	}
	ps := new(big.Int).Lsh(p, uint(shift))
	best := math.NaN()
	var bestD *big.Int
	for _, c := range cands {
		if math.IsInf(c, 0) {
			continue
		}
		frac, exp := math.Frexp(c) // c = frac * 2^exp, frac*2^53 an integer
		cs := new(big.Int).SetInt64(int64(frac * (1 << 53)))
		if sh := exp - 53 + shift; sh >= 0 {
			cs.Lsh(cs, uint(sh))
		} else {
			cs.Rsh(cs, uint(-sh)) // only for c = 0
		}
		d := cs.Mul(cs, q)
		d.Sub(ps, d)
		d.Abs(d)
		if bestD == nil || d.Cmp(bestD) < 0 || (d.Cmp(bestD) == 0 && math.Float64bits(c)&1 == 0) {
			best, bestD = c, d
		}
	}
	return best
}

// ratPow is num * b^k / den as an exact rational.
func ratPow(num int64, b, k int, den int64) *big.Rat {
	p := new(big.Int).Exp(big.NewInt(int64(b)), big.NewInt(int64(abs(k))), nil)
	r := new(big.Rat).SetFrac(big.NewInt(num), big.NewInt(den))
	if k >= 0 {
		return r.Mul(r, new(big.Rat).SetInt(p))
	}
	return r.Quo(r, new(big.Rat).SetInt(p))
}

func abs(k int) int {
	if k < 0 {
		return -k
	}
	return k
}

// refDigits writes v in base b with width digits (strconv's digits, an
// independent digit extraction) and parses them back as tokens of t.
func refDigits(t *testing.T, tok Tokenizer, v int64, b, width int) []int {
	s := strconv.FormatInt(v, b)
	if len(s) > width {
		t.Fatalf("refDigits: %d has more than %d base-%d digits", v, width, b)
	}
	s = strings.Repeat("0", width-len(s)) + s
	out := make([]int, len(s))
	for i := range s {
		d, err := tok.ParseToken(s[i : i+1])
		if err != nil {
			t.Fatal(err)
		}
		out[i] = d
	}
	return out
}

// toks parses a space-separated token string.
func toks(t *testing.T, tok Tokenizer, s string) []int {
	t.Helper()
	var out []int
	for _, f := range strings.Fields(s) {
		d, err := tok.ParseToken(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

func str(tok Tokenizer, s []int) string {
	parts := make([]string, len(s))
	for i, t := range s {
		parts[i] = tok.TokenString(t)
	}
	return strings.Join(parts, " ")
}

func mustEncode(t *testing.T, tok Tokenizer, v float64) []int {
	s, _, err := tok.Encode(v)
	if err != nil {
		t.Helper()
		t.Fatalf("%s: Encode(%v): %v", tok.Spec(), v, err)
	}
	return s
}

func mustDecode(t *testing.T, tok Tokenizer, s []int) Cell {
	c, err := tok.Decode(s)
	if err != nil {
		t.Helper()
		t.Fatalf("%s: Decode(%s): %v", tok.Spec(), str(tok, s), err)
	}
	return c
}

// wantEncode checks that v encodes to want.
func wantEncode(t *testing.T, tok Tokenizer, v float64, want []int) {
	got, _, err := tok.Encode(v)
	if err != nil || !slices.Equal(got, want) {
		t.Helper()
		t.Fatalf("%s: Encode(%v) = %s, %v; want %s", tok.Spec(), v, str(tok, got), err, str(tok, want))
	}
}

// checkAllowedPath checks that each token of s is allowed after its prefix.
func checkAllowedPath(t *testing.T, tok Tokenizer, s []int) {
	t.Helper()
	var buf []int
	for i := range s {
		buf = tok.Allowed(buf[:0], s[:i])
		if !slices.Contains(buf, s[i]) {
			t.Fatalf("%s: token %q at %d of %s not in Allowed = %v", tok.Spec(), tok.TokenString(s[i]), i, str(tok, s), buf)
		}
		if !slices.IsSorted(buf) {
			t.Fatalf("%s: Allowed(%s) = %v not increasing", tok.Spec(), str(tok, s[:i]), buf)
		}
	}
	if buf = tok.Allowed(buf[:0], s); len(buf) != 0 {
		t.Fatalf("%s: Allowed of a complete sequence = %v", tok.Spec(), buf)
	}
}

// randomValid builds a valid sequence by choosing among Allowed with pick.
func randomValid(tok Tokenizer, pick []byte) []int {
	var s, buf []int
	for i := 0; i < tok.Len(); i++ {
		buf = tok.Allowed(buf[:0], s)
		if len(buf) == 0 {
			return nil
		}
		j := 0
		if i < len(pick) {
			j = int(pick[i]) % len(buf)
		}
		s = append(s, buf[j])
	}
	return s
}

// contains reports whether v belongs to the finite cell c: lo <= v < hi
// for cells of non-negative values, lo < v <= hi (the mirror image) for
// those of negative values, and lo < v < hi or v = 0 for the zero cell,
// which is recognised by lo < 0 < hi or lo = -0, hi = 0.
func contains(c Cell, v float64) bool {
	switch {
	case c.Lo < 0 && c.Hi > 0:
		return c.Lo < v && v < c.Hi || v == 0
	case c.Lo == 0 && c.Hi == 0 && math.Signbit(c.Lo):
		return v == 0
	case c.Lo < 0:
		return c.Lo < v && v <= c.Hi
	}
	return c.Lo <= v && v < c.Hi
}

// walkTree lists the complete sequences of tr in Children order. At every
// prefix it checks that Children is a permutation of Allowed and that
// Interval spans the finite cells of the subtree.
func walkTree(t *testing.T, tr Tree) [][]int {
	t.Helper()
	var out [][]int
	var rec func(prefix []int) (lo, hi float64, finite bool)
	rec = func(prefix []int) (lo, hi float64, finite bool) {
		if len(prefix) == tr.Len() {
			s := slices.Clone(prefix)
			out = append(out, s)
			c := mustDecode(t, tr, s)
			return c.Lo, c.Hi, c.Kind == Finite
		}
		ch := tr.Children(nil, prefix)
		al := tr.Allowed(nil, prefix)
		sorted := slices.Clone(ch)
		slices.Sort(sorted)
		if len(ch) == 0 || !slices.Equal(sorted, al) {
			t.Fatalf("%s: Children(%s) = %v, Allowed = %v", tr.Spec(), str(tr, prefix), ch, al)
		}
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, c := range ch {
			l, h, f := rec(append(prefix, c))
			if f {
				lo, hi, finite = min(lo, l), max(hi, h), true
			}
		}
		if finite {
			il, ih := tr.Interval(prefix)
			if il != lo || ih != hi {
				t.Fatalf("%s: Interval(%s) = [%v, %v], cells span [%v, %v]", tr.Spec(), str(tr, prefix), il, ih, lo, hi)
			}
		}
		return lo, hi, finite
	}
	rec(make([]int, 0, tr.Len()))
	return out
}

// checkTiling checks the finite cells of seqs, in Children order: each
// one's Hi is the next one's Lo, Lo increases strictly (between cells that
// hold a float64), and each of Lo, its successor, Center, the predecessor
// of Hi and Hi belongs (by contains) to exactly one of the cell and its
// neighbours, and encodes to that cell (values beyond the two outermost
// edges are skipped).
func checkTiling(t *testing.T, tr Tree, seqs [][]int) {
	t.Helper()
	var cells []Cell
	var fs [][]int
	for _, s := range seqs {
		if c := mustDecode(t, tr, s); c.Kind == Finite {
			cells, fs = append(cells, c), append(fs, s)
		}
	}
	for j, c := range cells {
		if j > 0 {
			p := cells[j-1]
			if p.Hi != c.Lo || (p.Lo < p.Hi && c.Lo < c.Hi && !(p.Lo < c.Lo)) || c.Lo > c.Hi {
				t.Fatalf("%s: cells %s [%v, %v] and %s [%v, %v] do not tile", tr.Spec(), str(tr, fs[j-1]), p.Lo, p.Hi, str(tr, fs[j]), c.Lo, c.Hi)
			}
		}
		for _, v := range []float64{c.Lo, math.Nextafter(c.Lo, math.Inf(1)), c.Center, math.Nextafter(c.Hi, math.Inf(-1)), c.Hi} {
			if math.IsInf(v, 0) {
				continue
			}
			owner, n := -1, 0
			for k := max(0, j-1); k <= min(len(cells)-1, j+1); k++ {
				if contains(cells[k], v) {
					owner, n = k, n+1
				}
			}
			if n == 0 && (v < cells[0].Lo || v >= cells[len(cells)-1].Hi || v <= cells[0].Lo) {
				continue
			}
			if n != 1 {
				t.Fatalf("%s: %v belongs to %d cells near %s [%v, %v]", tr.Spec(), v, n, str(tr, fs[j]), c.Lo, c.Hi)
			}
			if v == c.Center && c.Lo < c.Hi && owner != j {
				t.Fatalf("%s: centre %v outside its cell %s [%v, %v]", tr.Spec(), v, str(tr, fs[j]), c.Lo, c.Hi)
			}
			wantEncode(t, tr, v, fs[owner])
		}
	}
}

func wantErr(t *testing.T, err, target error, substr string) {
	t.Helper()
	if err == nil || !errors.Is(err, target) || !strings.Contains(err.Error(), substr) {
		t.Fatalf("error %v; want %v containing %q", err, target, substr)
	}
}
