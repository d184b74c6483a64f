package vocab

import (
	"math"
	"slices"
	"testing"
)

func TestSpecialTokens(t *testing.T) {
	for _, spec := range []string{
		"normalized:base=10,length=3,special=true",
		"unnormalized:base=10,exponent=1,mantissa=3,special=true",
		"hamming:length=4,special=true",
		"normalized:base=4,length=2,special=true,repeat=3",
	} {
		tok, err := Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			v    float64
			name string
			kind Kind
		}{{math.NaN(), "nan", NaN}, {math.Inf(1), "inf", PosInf}, {math.Inf(-1), "-inf", NegInf}} {
			s, clamped, err := tok.Encode(c.v)
			if err != nil || clamped || len(s) != tok.Len() {
				t.Fatalf("%s: Encode(%v) = %v, %v, %v", spec, c.v, s, clamped, err)
			}
			for _, x := range s {
				if tok.TokenString(x) != c.name {
					t.Fatalf("%s: Encode(%v) = %s; want %s repeated", spec, c.v, str(tok, s), c.name)
				}
			}
			checkAllowedPath(t, tok, s)
			cell := mustDecode(t, tok, s)
			if cell.Kind != c.kind || !sameFloat(cell.Lo, c.v) || !sameFloat(cell.Hi, c.v) || !sameFloat(cell.Center, c.v) || cell.Width() != 0 {
				t.Fatalf("%s: Decode(%s) = %+v", spec, str(tok, s), cell)
			}
			// A special followed by anything else is invalid.
			bad := slices.Clone(s)
			bad[1] = 0
			_, err = tok.Decode(bad)
			wantErr(t, err, ErrSequence, "not allowed at position 1")
			if got := tok.Allowed(nil, s[:1]); !slices.Equal(got, s[:1]) {
				t.Fatalf("%s: Allowed(%s) = %v; want only %s", spec, c.name, got, c.name)
			}
		}
		// Specials may not follow a finite start.
		nan, _ := tok.ParseToken("nan")
		first := tok.Allowed(nil, nil)[0]
		if got := tok.Allowed(nil, []int{first}); slices.Contains(got, nan) {
			t.Fatalf("%s: nan allowed at position 1: %v", spec, got)
		}
		if got := tok.Allowed(nil, nil); !slices.Contains(got, nan) {
			t.Fatalf("%s: Allowed() = %v lacks nan", spec, got)
		}
	}
}

func sameFloat(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

func TestSpecialOff(t *testing.T) {
	for _, spec := range []string{"normalized:base=10,length=3", "unnormalized:base=10,exponent=1,mantissa=3", "hamming:length=4"} {
		tok, _ := Parse(spec)
		for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			_, _, err := tok.Encode(v)
			wantErr(t, err, ErrNonFinite, "no special tokens")
		}
		_, err := tok.ParseToken("nan")
		wantErr(t, err, ErrToken, `"nan"`)
	}
}

func TestSpecialTokenIDs(t *testing.T) {
	n, _ := NewNormalized(10, 2, WithSpecial(true))
	u, _ := NewUnnormalized(10, 1, 2, WithSpecial(true))
	h, _ := NewHamming(3, WithSpecial(true))
	for _, c := range []struct {
		tok  Tokenizer
		size int
		ids  map[string]int
	}{
		{n, 13, map[string]int{"0": 0, "9": 9, "nan": 10, "inf": 11, "-inf": 12}},
		{u, 15, map[string]int{"0": 0, "9": 9, "+": 10, "-": 11, "nan": 12, "inf": 13, "-inf": 14}},
		{h, 5, map[string]int{"0": 0, "1": 1, "nan": 2, "inf": 3, "-inf": 4}},
	} {
		if c.tok.Size() != c.size {
			t.Errorf("%s: Size() = %d; want %d", c.tok.Spec(), c.tok.Size(), c.size)
		}
		for s, id := range c.ids {
			if got, err := c.tok.ParseToken(s); got != id || err != nil || c.tok.TokenString(id) != s {
				t.Errorf("%s: ParseToken(%q) = %d, %v; want %d", c.tok.Spec(), s, got, err, id)
			}
		}
	}
}

// TestSpecialTree checks the numeric order and intervals of the specials:
// -inf first, then the finite cells, inf, and nan last.
func TestSpecialTree(t *testing.T) {
	n, _ := NewNormalized(3, 2, WithSpecial(true))
	u, _ := NewUnnormalized(3, 1, 2, WithSpecial(true))
	for _, tr := range []Tree{n, u} {
		ch := tr.Children(nil, nil)
		names := make([]string, len(ch))
		for i, c := range ch {
			names[i] = tr.TokenString(c)
		}
		if names[0] != "-inf" || names[len(names)-2] != "inf" || names[len(names)-1] != "nan" {
			t.Fatalf("%s: Children() = %v", tr.Spec(), names)
		}
		for _, c := range []struct {
			name string
			v    float64
		}{{"nan", math.NaN()}, {"inf", math.Inf(1)}, {"-inf", math.Inf(-1)}} {
			tok, _ := tr.ParseToken(c.name)
			if lo, hi := tr.Interval([]int{tok}); !sameFloat(lo, c.v) || !sameFloat(hi, c.v) {
				t.Fatalf("%s: Interval(%s) = [%v, %v]", tr.Spec(), c.name, lo, hi)
			}
		}
	}
	if lo, hi := n.Interval(nil); lo != 0 || hi != 1 {
		t.Fatalf("normalized Interval() = [%v, %v]; want [0, 1]", lo, hi)
	}
	_, ceil := u.Range()
	if lo, hi := u.Interval(nil); lo != -ceil || hi != ceil {
		t.Fatalf("unnormalized Interval() = [%v, %v]; want ±%v", lo, hi, ceil)
	}
}
