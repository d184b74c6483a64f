package vocab

import (
	"errors"
	"testing"
)

// Same tells tokenizations apart by spec and by bounds, which the spec of
// a Bounded (or of a Repeat of one) leaves out.
func TestSame(t *testing.T) {
	parse := func(s string) Tokenizer {
		t.Helper()
		tok, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	bound := func(tok Tokenizer, lo, hi float64) Tokenizer {
		t.Helper()
		b, err := Bound(tok, lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	un := parse("unnormalized:base=4,exponent=1,mantissa=2")
	rep := parse("unnormalized:base=4,exponent=1,mantissa=2,repeat=3")
	for _, c := range []struct {
		a, b Tokenizer
		want bool
	}{
		{un, parse("unnormalized:base=4,exponent=1,mantissa=2"), true},
		{un, parse("normalized:base=6,length=5"), false}, // the same sizes
		{un, bound(un, -3, 5), false},
		{bound(un, -3, 5), bound(un, -3, 5), true},
		{bound(un, -3, 5), bound(un, -3, 6), false},
		{rep, bound(rep, -3, 5), false},
		{bound(rep, -3, 5), bound(rep, -3, 5), true},
		{rep, un, false},
	} {
		if got := Same(c.a, c.b); got != c.want || Same(c.b, c.a) != c.want {
			t.Errorf("Same(%s, %s) = %v, want %v", c.a.Spec(), c.b.Spec(), got, c.want)
		}
	}
}

// TestNilTokenizer: a nil tokenization (heads without one: the
// Tokenizer of a Riemann, MDN or pointwise model) is an error for Bound,
// Usable and NewRepeat, and Same only as itself.
func TestNilTokenizer(t *testing.T) {
	n, err := NewNormalized(10, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !Same(nil, nil) || Same(nil, n) || Same(n, nil) {
		t.Error("Same with nil")
	}
	if err := Usable(nil); !errors.Is(err, ErrSpec) {
		t.Errorf("Usable(nil): %v", err)
	}
	if _, err := Bound(nil, 0, 1); !errors.Is(err, ErrSpec) {
		t.Errorf("Bound(nil): %v", err)
	}
	if _, err := NewRepeat(2, nil); !errors.Is(err, ErrSpec) {
		t.Errorf("NewRepeat(2, nil): %v", err)
	}
}
