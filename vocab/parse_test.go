package vocab

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParse(t *testing.T) {
	for _, c := range []struct{ in, spec string }{
		{"normalized:base=10,length=4", "normalized:base=10,length=4"},
		{"normalized:length=4,base=10", "normalized:base=10,length=4"},
		{"normalized:base=10,length=4,special=false", "normalized:base=10,length=4"},
		{"normalized:special=true,base=2,length=8", "normalized:base=2,length=8,special=true"},
		{"unnormalized:base=10,exponent=1,mantissa=4", "unnormalized:base=10,exponent=1,mantissa=4"},
		{"unnormalized:mantissa=8,base=36,exponent=2,special=1", "unnormalized:base=36,exponent=2,mantissa=8,special=true"},
		{"hamming:length=8", "hamming:length=8"},
		{"hamming:repeat=3,length=8,special=true", "hamming:length=8,special=true,repeat=3"},
		{"normalized:base=4,length=6,repeat=1", "normalized:base=4,length=6,repeat=1"},
		{"unnormalized:base=10,exponent=1,mantissa=4,repeat=5", "unnormalized:base=10,exponent=1,mantissa=4,repeat=5"},
	} {
		tok, err := Parse(c.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.in, err)
		}
		if tok.Spec() != c.spec {
			t.Errorf("Parse(%q).Spec() = %q; want %q", c.in, tok.Spec(), c.spec)
		}
		again, err := Parse(tok.Spec())
		if err != nil || again.Spec() != tok.Spec() || again.Size() != tok.Size() || again.Len() != tok.Len() {
			t.Errorf("Spec %q does not round-trip: %v", tok.Spec(), err)
		}
		for _, v := range []float64{0, 0.25, 1} {
			a, _, _ := tok.Encode(v)
			b, _, _ := again.Encode(v)
			if !slices.Equal(a, b) {
				t.Errorf("%s: the parsed Spec encodes %v differently", c.spec, v)
			}
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", `unknown kind ""`},
		{"foo:base=2", `unknown kind "foo" (want normalized, unnormalized or hamming)`},
		{"normalized:base=10,lenght=4", `unknown key "lenght" for normalized (want base, length, special, repeat)`},
		{"hamming:length=8,base=2", `unknown key "base" for hamming`},
		{"normalized:base=ten,length=4", `bad number "ten" for key "base"`},
		{"normalized:base=10,length=4.5", `bad number "4.5" for key "length"`},
		{"normalized:base=10", `missing key "length"`},
		{"normalized", `missing key "base"`},
		{"normalized:base=10,length", `"length" is not KEY=VALUE`},
		{"normalized:base=10,base=2,length=4", `key "base" given twice`},
		{"normalized:base=1,length=4", "base 1 out of range [2, 36]"},
		{"normalized:base=37,length=4", "base 37 out of range [2, 36]"},
		{"normalized:base=10,length=0", "length 0 out of range [1, 256]"},
		{"unnormalized:base=10,exponent=0,mantissa=4", "exponent 0 out of range"},
		{"unnormalized:base=36,exponent=13,mantissa=4", "exponent 13 too long for base 36"},
		{"unnormalized:base=10,exponent=1,mantissa=300", "mantissa 300 out of range"},
		{"hamming:length=63", "length 63 out of range [1, 62], and above 50 a Hamming code has cells finer than float64 resolves"},
		{"normalized:base=10,length=1000", "length 1000 out of range [1, 256], and above 15 base 10 has cells finer than float64 resolves"},
		{"hamming:length=8,special=maybe", `bad value "maybe" for key "special"`},
		{"hamming:length=8,repeat=0", "repeat 0 out of range [1, 64]"},
		{"hamming:length=8,repeat=two", `bad number "two" for key "repeat"`},
	} {
		_, err := Parse(c.in)
		wantErr(t, err, ErrSpec, c.want)
		if want := `vocab: bad spec "` + c.in + `": ` + c.want; len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
			t.Errorf("Parse(%q) error = %q; want prefix %q", c.in, err, want)
		}
	}
	// The hint of the usable bound is for lengths above it only.
	if _, err := NewNormalized(10, 0); err == nil || err.Error() != "vocab: length 0 out of range [1, 256]" {
		t.Errorf("NewNormalized(10, 0) error = %v", err)
	}
	if _, err := NewNormalized(1, 4); !errors.Is(err, ErrSpec) || err.Error() != "vocab: base 1 out of range [2, 36]" {
		t.Errorf("NewNormalized(1, 4) error = %v", err)
	}
}

func TestTokenStrings(t *testing.T) {
	for _, spec := range []string{"normalized:base=36,length=2,special=true", "unnormalized:base=16,exponent=1,mantissa=2,special=true", "hamming:length=3"} {
		tok, _ := Parse(spec)
		seen := map[string]bool{}
		for i := range tok.Size() {
			s := tok.TokenString(i)
			if seen[s] {
				t.Fatalf("%s: token string %q twice", spec, s)
			}
			seen[s] = true
			if j, err := tok.ParseToken(s); j != i || err != nil {
				t.Fatalf("%s: ParseToken(%q) = %d, %v; want %d", spec, s, j, err, i)
			}
		}
	}
	n, _ := NewNormalized(36, 2)
	if got, err := n.ParseToken("Z"); got != 35 || err != nil {
		t.Errorf(`ParseToken("Z") = %d, %v; want 35`, got, err)
	}
	for _, bad := range []string{"+", "10", "", "NaN"} {
		_, err := n.ParseToken(bad)
		wantErr(t, err, ErrToken, "want digits 0..z")
	}
	defer func() {
		if recover() == nil {
			t.Error("TokenString(36) did not panic")
		}
	}()
	n.TokenString(36)
}

// TestParseLongSpecClipped: a long spec, or a long value in it, is quoted
// in the error by its first bytes and its length (a spec of 100 KB was
// echoed whole, twice).
func TestParseLongSpecClipped(t *testing.T) {
	for _, spec := range []string{strings.Repeat("x", 100000), "normalized:base=10,length=" + strings.Repeat("9", 100000), "normalized:base=10,length=3," + strings.Repeat("é", 50000) + "=1"} {
		_, err := Parse(spec)
		if err == nil || !errors.Is(err, ErrSpec) || len(err.Error()) > 400 || !strings.Contains(err.Error(), "bytes)") {
			t.Errorf("a spec of %d bytes: %.500v", len(spec), err)
		}
		if err != nil && !utf8.ValidString(err.Error()) {
			t.Errorf("a clipped quote cut a character: %q", err.Error()[:200])
		}
	}
	if _, err := Parse("normalized:base=10,length=x"); err == nil || !strings.Contains(err.Error(), `bad number "x" for key "length"`) || strings.Contains(err.Error(), "bytes)") {
		t.Errorf("a short spec: %v", err)
	}
}
