package vocab

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// refScaled is the float64 nearest num * b^k / den, with the shortcut that
// values far outside the float64 range are 0 or +Inf.
func refScaled(num int64, b, k int, den int64) float64 {
	lg := math.Log2(float64(num)/float64(den)) + float64(k)*math.Log2(float64(b))
	switch {
	case lg > 1100:
		return math.Inf(1)
	case lg < -1200:
		return 0
	}
	return refNearest(ratPow(num, b, k, den))
}

// refUCell is the reference magnitude cell of (e, m) of Unnormalized(b, ·, mm).
func refUCell(b, mm, e int, m int64) (lo, hi, c float64) {
	k := e - mm + 1
	lo, hi = refScaled(m, b, k, 1), refScaled(m+1, b, k, 1)
	c = refScaled(2*m+1, b, k, 2)
	if c >= hi && lo < hi {
		c = math.Nextafter(hi, 0)
	}
	return lo, hi, c
}

// refUSeq builds the tokens of (neg, e, m) from strconv digits.
func refUSeq(t *testing.T, u *Unnormalized, neg bool, e int, m int64) []int {
	s := []int{u.Plus(), u.Plus()}
	if neg {
		s[0] = u.Minus()
	}
	if e < 0 {
		s[1] = u.Minus()
	}
	s = append(s, refDigits(t, u, int64(abs(e)), u.Base(), u.Exponent())...)
	return append(s, refDigits(t, u, m, u.Base(), u.Mantissa())...)
}

// refULocate finds, by binary search over the reference edges, the cell
// (e, m) of a magnitude a > 0 of Unnormalized(b, E, M) with b^M < 2^62:
// where is -1 for the zero cell, +1 for clamping, else 0.
func refULocate(b, mm, emax int, a float64) (e int, m int64, where int) {
	low, top := int64(1), int64(1)
	for range mm - 1 {
		low *= int64(b)
	}
	top = low * int64(b)
	lo := func(e int, m int64) float64 { return refScaled(m, b, e-mm+1, 1) }
	if a < lo(-emax, low) {
		return 0, 0, -1
	}
	if a >= refScaled(1, b, emax+1, 1) {
		return 0, 0, 1
	}
	// Largest e with lo(e, low) <= a, then largest m.
	el, eh := -emax, emax
	for el < eh {
		mid := el + (eh-el+1)/2
		if lo(mid, low) <= a {
			el = mid
		} else {
			eh = mid - 1
		}
	}
	ml, mh := low, top-1
	for ml < mh {
		mid := ml + (mh-ml+1)/2
		if lo(el, mid) <= a {
			ml = mid
		} else {
			mh = mid - 1
		}
	}
	return el, ml, 0
}

func newU(t *testing.T, b, e, m int, opts ...Option) *Unnormalized {
	u, err := NewUnnormalized(b, e, m, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func checkUnnormalizedCells(t *testing.T, u *Unnormalized) {
	b, mm := u.Base(), u.Mantissa()
	emax := 1
	for range u.Exponent() {
		emax *= b
	}
	emax--
	low := int64(math.Pow(float64(b), float64(mm-1)))
	seqs := walkTree(t, u)
	want := 2*(2*emax+1)*int(low*int64(b-1)) + 1
	if u.Special() {
		want += 3
	}
	if len(seqs) != want {
		t.Fatalf("%s: %d sequences, want %d", u.Spec(), len(seqs), want)
	}
	checkTiling(t, u, seqs)
	valid := map[string]bool{}
	for _, s := range seqs {
		valid[str(u, s)] = true
	}
	// Every canonical cell decodes to the reference edges.
	for _, neg := range []bool{false, true} {
		for e := -emax; e <= emax; e++ {
			for m := low; m < low*int64(b); m++ {
				s := refUSeq(t, u, neg, e, m)
				if !valid[str(u, s)] {
					t.Fatalf("%s: %s (e=%d, m=%d) not reached by Children", u.Spec(), str(u, s), e, m)
				}
				c := mustDecode(t, u, s)
				lo, hi, mid := refUCell(b, mm, e, m)
				if neg {
					lo, hi, mid = -hi, -lo, -mid
				}
				if c.Lo != lo || c.Hi != hi || c.Center != mid || c.Kind != Finite {
					t.Fatalf("%s: %s = [%v, %v] centre %v; want [%v, %v] centre %v", u.Spec(), str(u, s), c.Lo, c.Hi, c.Center, lo, hi, mid)
				}
			}
		}
	}
	// The zero cell.
	zs := refUSeq(t, u, false, -emax, 0)
	zero := refScaled(1, b, -emax, 1)
	c := mustDecode(t, u, zs)
	if c.Lo != -zero || c.Hi != zero || c.Center != 0 {
		t.Fatalf("%s: zero cell = [%v, %v] centre %v; want (%v, %v) centre 0", u.Spec(), c.Lo, c.Hi, c.Center, -zero, zero)
	}
	for _, v := range []float64{0, math.Copysign(0, -1), math.Nextafter(zero, 0), -math.Nextafter(zero, 0)} {
		wantEncode(t, u, v, zs)
	}
	wantEncode(t, u, zero, refUSeq(t, u, false, -emax, low))
	wantEncode(t, u, -zero, refUSeq(t, u, true, -emax, low))
	// Clamping at the top edge.
	ceil := refScaled(1, b, emax+1, 1)
	top := low*int64(b) - 1
	for _, v := range []float64{ceil, math.MaxFloat64, -ceil, -math.MaxFloat64} {
		s, clamped, err := u.Encode(v)
		if w := refUSeq(t, u, v < 0, emax, top); err != nil || !clamped || !slices.Equal(s, w) {
			t.Fatalf("%s: Encode(%v) = %s, %v, %v; want %s clamped", u.Spec(), v, str(u, s), clamped, err, str(u, w))
		}
	}
	for _, v := range []float64{math.Nextafter(ceil, 0), -math.Nextafter(ceil, 0)} {
		if _, clamped, _ := u.Encode(v); clamped {
			t.Fatalf("%s: Encode(%v) clamped below the top edge %v", u.Spec(), v, ceil)
		}
	}
	if zl, zh := u.Range(); zl != zero || zh != ceil {
		t.Fatalf("%s: Range() = %v, %v; want %v, %v", u.Spec(), zl, zh, zero, ceil)
	}
}

func TestUnnormalizedExhaustive(t *testing.T) {
	checkUnnormalizedCells(t, newU(t, 4, 2, 3))
	checkUnnormalizedCells(t, newU(t, 4, 2, 3, WithSpecial(true)))
	checkUnnormalizedCells(t, newU(t, 10, 1, 2))
	checkUnnormalizedCells(t, newU(t, 2, 3, 4))
	checkUnnormalizedCells(t, newU(t, 36, 1, 1))
}

// TestUnnormalizedAllTuples decodes every tuple of tokens of
// Unnormalized(4, 2, 3): exactly the 2977 canonical sequences are valid,
// Allowed agrees with Decode on every prefix of every tuple, and no two
// valid sequences share a cell.
func TestUnnormalizedAllTuples(t *testing.T) {
	u := newU(t, 4, 2, 3)
	n, size := u.Len(), u.Size()
	s := make([]int, n)
	count := 0
	seen := map[float64]bool{}
	var buf []int
	for {
		_, err := u.Decode(s)
		allowed := true
		for i := range s {
			buf = u.Allowed(buf[:0], s[:i])
			if !slices.Contains(buf, s[i]) {
				allowed = false
				break
			}
		}
		if (err == nil) != allowed {
			t.Fatalf("%s: Decode error %v but Allowed says %v", str(u, s), err, allowed)
		}
		if err == nil {
			count++
			c := mustDecode(t, u, s)
			if seen[c.Lo] {
				t.Fatalf("%s: a second sequence with Lo = %v", str(u, s), c.Lo)
			}
			seen[c.Lo] = true
		}
		i := n - 1
		for ; i >= 0; i-- {
			if s[i]++; s[i] < size {
				break
			}
			s[i] = 0
		}
		if i < 0 {
			break
		}
	}
	if count != 2*31*48+1 {
		t.Fatalf("%d valid sequences, want %d", count, 2*31*48+1)
	}
}

// TestUnnormalizedEdgeValues checks the extreme float64 values against the
// binary-search reference, for configurations whose range covers them or
// clamps them.
func TestUnnormalizedEdgeValues(t *testing.T) {
	values := []float64{
		math.SmallestNonzeroFloat64, 2 * math.SmallestNonzeroFloat64, 3 * math.SmallestNonzeroFloat64,
		0x1p-1022, math.Nextafter(0x1p-1022, 0), math.MaxFloat64, math.Nextafter(math.MaxFloat64, 0),
		1 - 0x1p-53, 1, 1 + 0x1p-52, 0.1, 1e-300, 1e300, 7e-310,
	}
	for _, cfg := range [][3]int{{10, 3, 4}, {2, 11, 4}, {10, 2, 4}, {16, 3, 5}, {36, 2, 3}, {3, 7, 6}} {
		u := newU(t, cfg[0], cfg[1], cfg[2])
		emax := int(math.Pow(float64(cfg[0]), float64(cfg[1]))) - 1
		for _, a := range values {
			for _, neg := range []bool{false, true} {
				v := a
				if neg {
					v = -a
				}
				e, m, where := refULocate(cfg[0], cfg[2], emax, a)
				var want []int
				switch where {
				case -1:
					want = refUSeq(t, u, false, -emax, 0)
				case 1:
					want = refUSeq(t, u, neg, emax, int64(math.Pow(float64(cfg[0]), float64(cfg[2])))-1)
				default:
					want = refUSeq(t, u, neg, e, m)
				}
				s, clamped, err := u.Encode(v)
				if err != nil || !slices.Equal(s, want) || clamped != (where == 1) {
					t.Fatalf("%s: Encode(%v) = %s, clamped %v, %v; want %s", u.Spec(), v, str(u, s), clamped, err, str(u, want))
				}
				if where == 0 {
					c := mustDecode(t, u, s)
					if !contains(c, v) {
						t.Fatalf("%s: %v not in its cell [%v, %v]", u.Spec(), v, c.Lo, c.Hi)
					}
				}
			}
		}
	}
}

// TestUnnormalizedFastMatchesExact compares the float64 fast path with the
// math/big path over random magnitudes of many configurations.
func TestUnnormalizedFastMatchesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	fast := 0
	for b := 2; b <= 36; b++ {
		for _, mm := range []int{1, 3, 6} {
			u := newU(t, b, 2, mm)
			if !u.fast {
				continue
			}
			for range 300 {
				a := math.Ldexp(1+r.Float64(), r.IntN(400)-200)
				if r.IntN(4) == 0 { // a value at or next to a cell edge
					k := r.IntN(20) - 10
					m := int64(math.Pow(float64(b), float64(mm-1))) + r.Int64N(int64(b-1))
					a = refScaled(m, b, k, 1)
					a = []float64{a, math.Nextafter(a, 0), math.Nextafter(a, math.Inf(1))}[r.IntN(3)]
				}
				if a < u.zero || a >= u.ceil || a == 0 {
					continue
				}
				ef, mf, ok := u.locateFast(a)
				ex, mx, where := u.locateExact(a)
				if where != 0 {
					t.Fatalf("%s: locateExact(%v) where = %d", u.Spec(), a, where)
				}
				if ok && (ef != ex || mf != mx.Uint64()) {
					t.Fatalf("%s: %v: fast (%d, %d), exact (%d, %v)", u.Spec(), a, ef, mf, ex, mx)
				}
				if ok {
					fast++
				}
			}
		}
	}
	if fast < 10000 {
		t.Fatalf("only %d values took the fast path", fast)
	}
}

// TestUnnormalizedBigExponent checks a configuration whose exponents reach
// far beyond the float64 range: cells there decode to 0 or +Inf edges, and
// the extreme values still encode to the reference cells.
func TestUnnormalizedBigExponent(t *testing.T) {
	u := newU(t, 36, 4, 3)
	if z, c := u.Range(); z != 0 || !math.IsInf(c, 1) {
		t.Fatalf("Range() = %v, %v; want 0, +Inf", z, c)
	}
	top := toks(t, u, "+ + z z z z z z z")
	if c := mustDecode(t, u, top); !math.IsInf(c.Lo, 1) || !math.IsInf(c.Center, 1) {
		t.Fatalf("top cell = %+v; want +Inf edges", c)
	}
	if c := mustDecode(t, u, toks(t, u, "- - z z z z 1 0 0")); c.Lo != 0 || c.Hi != 0 || !math.Signbit(c.Lo) {
		t.Fatalf("tiny negative cell = %+v; want -0 edges", c)
	}
	wantEncode(t, u, 0, toks(t, u, "+ - z z z z 0 0 0"))
	wantEncode(t, u, math.Copysign(0, -1), toks(t, u, "+ - z z z z 0 0 0"))
	emax := 36*36*36*36 - 1
	for _, a := range []float64{math.SmallestNonzeroFloat64, math.MaxFloat64, 1, 1e-310} {
		e, m, where := refULocate(36, 3, emax, a)
		if where != 0 {
			t.Fatalf("refULocate(%v) where = %d", a, where)
		}
		wantEncode(t, u, a, refUSeq(t, u, false, e, m))
		wantEncode(t, u, -a, refUSeq(t, u, true, e, m))
	}
	if _, clamped, _ := u.Encode(math.MaxFloat64); clamped {
		t.Fatal("MaxFloat64 clamped although the range is unbounded")
	}
}

// TestUnnormalizedLongMantissa exercises the math/big path (B^M > 2^52)
// against the reference.
func TestUnnormalizedLongMantissa(t *testing.T) {
	u := newU(t, 10, 3, 17)
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		a := math.Ldexp(1+r.Float64(), r.IntN(2000)-1000)
		e, m, where := refULocate(10, 17, 999, a)
		if where != 0 {
			t.Fatalf("refULocate(%v) where = %d", a, where)
		}
		s := mustEncode(t, u, a)
		if w := refUSeq(t, u, false, e, m); !slices.Equal(s, w) {
			t.Fatalf("Encode(%v) = %s; want %s", a, str(u, s), str(u, w))
		}
		c := mustDecode(t, u, s)
		lo, hi, mid := refUCell(10, 17, e, m)
		if c.Lo != lo || c.Hi != hi || c.Center != mid || !contains(c, a) {
			t.Fatalf("%v: cell [%v, %v] centre %v; want [%v, %v] centre %v", a, c.Lo, c.Hi, c.Center, lo, hi, mid)
		}
	}
}
