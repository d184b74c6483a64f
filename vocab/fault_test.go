package vocab

// Regression tests for the faults of the public reference code listed in
// DESIGN.md section 9 that concern tokenization, plus the edge values of
// issue 2.

import (
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestFault_PowerOfBaseExponent: exact powers of the base decoded wrongly
// (1000 -> 100 with B = 10). Every power B^e in the float64 range encodes
// with exponent e and mantissa 1 0 .. 0, for every base.
func TestFault_PowerOfBaseExponent(t *testing.T) {
	u := newU(t, 10, 1, 4)
	wantEncode(t, u, 1000, toks(t, u, "+ + 3 1 0 0 0"))
	wantEncode(t, u, -1000, toks(t, u, "- + 3 1 0 0 0"))
	wantEncode(t, u, 0.001, toks(t, u, "+ - 3 1 0 0 0"))
	if c := mustDecode(t, u, toks(t, u, "+ + 3 1 0 0 0")); c.Lo != 1000 || c.Hi != 1001 {
		t.Fatalf("1000's cell = [%v, %v)", c.Lo, c.Hi)
	}
	for b := 2; b <= 36; b++ {
		e := 2
		if b < 6 {
			e = 4
		}
		u := newU(t, b, e, 4)
		emax := int(math.Pow(float64(b), float64(e))) - 1
		one := refDigits(t, u, int64(b*b*b), b, 4)
		for x := -emax; x <= emax; x++ {
			v := refScaled(1, b, x, 1)
			if v < 0x1p-1022 || math.IsInf(v, 0) {
				continue
			}
			for _, neg := range []bool{false, true} {
				s := mustEncode(t, u, math.Copysign(v, map[bool]float64{false: 1, true: -1}[neg]))
				want := append(refUSeq(t, u, neg, x, 0)[:2+e], one...)
				if !slices.Equal(s, want) {
					t.Fatalf("%s: Encode(%v) = %s; want %s", u.Spec(), v, str(u, s), str(u, want))
				}
			}
			if x > -emax {
				prev := append(refUSeq(t, u, false, x-1, 0)[:2+e], refDigits(t, u, int64(b*b*b*b-1), b, 4)...)
				wantEncode(t, u, math.Nextafter(v, 0), prev)
			}
		}
	}
	// Normalized: B^-j encodes as the digit 1 at place j.
	for b := 2; b <= 36; b++ {
		n, _ := NewNormalized(b, 5)
		for j := 1; j <= 5; j++ {
			want := make([]int, 5)
			want[j-1] = 1
			wantEncode(t, n, refScaled(1, b, -j, 1), want)
		}
	}
}

// TestFault_MantissaTruncation: truncating a float product dropped a unit
// in the last digit (0.018 -> mantissa 1799). Every decimal with four
// significant digits and exponent -9..9 encodes with exactly its digits,
// and every four-digit fraction 0.dddd with Normalized(10, 4) too.
func TestFault_MantissaTruncation(t *testing.T) {
	u := newU(t, 10, 1, 4)
	wantEncode(t, u, 0.018, toks(t, u, "+ - 2 1 8 0 0"))
	for e := -9; e <= 9; e++ {
		for m := 1000; m <= 9999; m++ {
			v, err := strconv.ParseFloat(fmt.Sprintf("%d.%03de%d", m/1000, m%1000, e), 64)
			if err != nil {
				t.Fatal(err)
			}
			s := mustEncode(t, u, v)
			got := 0
			for _, d := range s[3:] {
				got = got*10 + d
			}
			ge := s[2]
			if s[1] == u.Minus() {
				ge = -ge
			}
			if s[0] != u.Plus() || ge != e || got != m {
				t.Fatalf("Encode(%v) = %s; want mantissa %d, exponent %d", v, str(u, s), m, e)
			}
		}
	}
	n, _ := NewNormalized(10, 4)
	for i := range 10000 {
		v, _ := strconv.ParseFloat(fmt.Sprintf("0.%04d", i), 64)
		wantEncode(t, n, v, refDigits(t, n, int64(i), 10, 4))
	}
	wantEncode(t, n, 0.3, toks(t, n, "3 0 0 0"))
}

// TestFault_BasesAbove10: bases above 10 broke. Letters print and parse,
// and values land in the right cells.
func TestFault_BasesAbove10(t *testing.T) {
	n, _ := NewNormalized(16, 2)
	wantEncode(t, n, 255.0/256, toks(t, n, "f f"))
	wantEncode(t, n, 0xa0/256.0, toks(t, n, "a 0"))
	u := newU(t, 36, 1, 2)
	wantEncode(t, u, 35, toks(t, u, "+ + 0 z 0"))
	wantEncode(t, u, 36, toks(t, u, "+ + 1 1 0"))
	wantEncode(t, u, -(10*36 + 35), toks(t, u, "- + 1 a z"))
	if c := mustDecode(t, u, toks(t, u, "+ - 1 z z")); c.Lo != refScaled(36*36-1, 36, -2, 1) || c.Hi != 1 {
		t.Fatalf("z z / 36 cell = %+v", c)
	}
	for b := 11; b <= 36; b++ {
		n, _ := NewNormalized(b, 2)
		for i := range b * b {
			y := (float64(i) + 0.5) / float64(b*b)
			if s := mustEncode(t, n, y); s[0] != i/b || s[1] != i%b || n.TokenString(s[0]) != strconv.FormatInt(int64(i/b), b) {
				t.Fatalf("%s: Encode(%v) = %s", n.Spec(), y, str(n, s))
			}
		}
	}
}

// TestFault_Float32FreeLongSequences: decoding in float32 lost precision
// for long sequences. Long sequences decode to the float64 nearest the
// exact value, and no file of the package mentions float32.
func TestFault_Float32FreeLongSequences(t *testing.T) {
	n, _ := NewNormalized(10, 15)
	s := mustEncode(t, n, 0.123456789012345)
	if str(n, s) != "1 2 3 4 5 6 7 8 9 0 1 2 3 4 5" {
		t.Fatalf("Encode = %s", str(n, s))
	}
	if c := mustDecode(t, n, s); c.Lo != 0.123456789012345 || c.Center != 0.1234567890123455 {
		t.Fatalf("cell = %+v", c)
	}
	b2, _ := NewNormalized(2, 52)
	ones := slices.Repeat([]int{1}, 52)
	if c := mustDecode(t, b2, ones); c.Lo != 1-0x1p-52 || c.Hi != 1 || c.Center != 1-0x1p-53 {
		t.Fatalf("all-ones cell = %+v", c)
	}
	u := newU(t, 10, 3, 15)
	s = mustEncode(t, u, 1234567.89012345)
	if str(u, s) != "+ + 0 0 6 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5" {
		t.Fatalf("Encode = %s", str(u, s))
	}
	if c := mustDecode(t, u, s); c.Lo != 1234567.89012345 || c.Hi != 1234567.89012346 {
		t.Fatalf("cell = %+v", c)
	}
	u = newU(t, 2, 11, 53)
	v := math.Pi * 0x1p-1000
	if c := mustDecode(t, u, mustEncode(t, u, v)); c.Lo != v || c.Hi != math.Nextafter(v, 2) {
		t.Fatalf("binary 53-digit cell of %v = %+v", v, c)
	}
	files, _ := filepath.Glob("*.go")
	bad := "float" + "32"
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(src), bad) {
			t.Errorf("%s mentions %s", f, bad)
		}
	}
}

// TestFault_NonCanonicalRejected: the reference code allowed leading-zero
// mantissas, so one value had many codes. Each non-canonical form is
// refused by Decode and by Allowed.
func TestFault_NonCanonicalRejected(t *testing.T) {
	u := newU(t, 10, 1, 4)
	for _, c := range []struct{ seq, why string }{
		{"+ + 3 0 1 0 0", "leading zero mantissa"},
		{"- + 3 0 0 0 0", "zero mantissa off the zero path"},
		{"- - 9 0 0 0 0", "negative zero sequence"},
		{"+ - 8 0 0 0 0", "zero mantissa below the largest exponent"},
		{"+ - 9 0 1 0 0", "zero path with a non-zero digit"},
		{"+ - 0 1 0 0 0", "exponent -0"},
		{"+ + 0 1 0 0", "too short"},
		{"+ + + 1 0 0 0", "sign in the exponent"},
		{"3 + 0 1 0 0 0", "digit as sign"},
	} {
		s := toks(t, u, c.seq)
		if _, err := u.Decode(s); err == nil {
			t.Errorf("Decode(%s) accepted a %s", c.seq, c.why)
		}
		allowed := true
		for i := range s {
			if !slices.Contains(u.Allowed(nil, s[:i]), s[i]) {
				allowed = false
			}
		}
		if allowed && len(s) == u.Len() {
			t.Errorf("Allowed accepts %s, a %s", c.seq, c.why)
		}
	}
	// The zero sequence itself is valid and unique.
	z := toks(t, u, "+ - 9 0 0 0 0")
	if c := mustDecode(t, u, z); c.Lo != -1e-9 || c.Hi != 1e-9 || c.Center != 0 {
		t.Fatalf("zero cell = %+v", c)
	}
	wantEncode(t, u, 0, z)
	wantEncode(t, u, 1e-10, z)
	wantEncode(t, u, -1e-10, z)
}

// TestEdgeValues covers the values issue 2 names: 1-2^-53, -0,
// subnormals, MaxFloat64, SmallestNonzeroFloat64 and y = 1.
func TestEdgeValues(t *testing.T) {
	n, _ := NewNormalized(10, 4)
	wantEncode(t, n, 1-0x1p-53, toks(t, n, "9 9 9 9"))
	wantEncode(t, n, 1, toks(t, n, "9 9 9 9"))
	wantEncode(t, n, math.Copysign(0, -1), toks(t, n, "0 0 0 0"))
	wantEncode(t, n, math.SmallestNonzeroFloat64, toks(t, n, "0 0 0 0"))
	for _, v := range []float64{-math.SmallestNonzeroFloat64, 1 + 0x1p-52, math.MaxFloat64, -1} {
		_, _, err := n.Encode(v)
		wantErr(t, err, ErrRange, "outside [0, 1]")
	}
	// With 2^K > 2^53 the cells near 1 are finer than the float64 spacing:
	// the cell of y is the last whose left edge rounds to a float64 <= y.
	// 1-2^-53 has an odd significand, so the edge 1-2^-54 rounds up to 1,
	// and y's cell is 2^K - 2^(K-54) - 1 for K >= 55.
	for _, k := range []int{53, 54, 55, 60, 64} {
		b2, _ := NewNormalized(2, k)
		y := 1 - 0x1p-53
		s := mustEncode(t, b2, y)
		i := digitsValue(s, 2)
		nk := new(big.Int).Lsh(bigOne, uint(k))
		next := new(big.Int).Add(i, bigOne)
		if lo, hi := refNearestFrac(i, nk), refNearestFrac(next, nk); !(lo <= y && y < hi) {
			t.Fatalf("K=%d: 1-2^-53 in cell %v = [%v, %v)", k, i, lo, hi)
		}
		if k >= 55 {
			want := new(big.Int).Sub(nk, new(big.Int).Lsh(bigOne, uint(k-54)))
			if want.Sub(want, bigOne); i.Cmp(want) != 0 {
				t.Fatalf("K=%d: index of 1-2^-53 = %v; want %v", k, i, want)
			}
		}
		s = mustEncode(t, b2, 1)
		if slices.Contains(s, 0) {
			t.Fatalf("K=%d: 1 must be in the last cell, got %s", k, str(b2, s))
		}
	}
	// Subnormals: below 2^-1071 the binary cells of M = 4 are finer than
	// the float64 spacing 2^-1074, so several of them round to the same
	// edges and some hold no float64 at all; each value goes to the last
	// cell whose left edge rounds to at most it (for 2^-1074: m = 1011,
	// cell [2^-1074, 2^-1073), because 1.5 * 2^-1074 ties to the even 2^-1073).
	u := newU(t, 2, 11, 4)
	tiny := math.SmallestNonzeroFloat64
	wantEncode(t, u, tiny, refUSeq(t, u, false, -1074, 11))
	if c := mustDecode(t, u, refUSeq(t, u, false, -1074, 11)); c.Lo != tiny || c.Hi != 2*tiny || c.Center != tiny {
		t.Fatalf("cell of 2^-1074 = %+v", c)
	}
	if c := mustDecode(t, u, refUSeq(t, u, false, -1074, 9)); c.Lo != tiny || c.Hi != tiny {
		t.Fatalf("cell m = 1001 at 2^-1074 = %+v; want the empty [2^-1074, 2^-1074)", c)
	}
	for _, a := range []float64{tiny, 2 * tiny, 3 * tiny, 5 * tiny, 0x1p-1022 - tiny, 0x1p-1060 + tiny} {
		e, m, where := refULocate(2, 4, 2047, a)
		if where != 0 {
			t.Fatalf("refULocate(%v) = %d", a, where)
		}
		wantEncode(t, u, a, refUSeq(t, u, false, e, m))
		wantEncode(t, u, -a, refUSeq(t, u, true, e, m))
	}
	wantEncode(t, u, math.MaxFloat64, refUSeq(t, u, false, 1023, 15))
	wantEncode(t, u, math.Copysign(0, -1), refUSeq(t, u, false, -2047, 0))
}
