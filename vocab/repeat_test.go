package vocab

import (
	"errors"
	"slices"
	"testing"
)

func newRepeat(t *testing.T, spec string) *Repeat {
	tok, err := Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return tok.(*Repeat)
}

func TestRepeatEncode(t *testing.T) {
	r := newRepeat(t, "unnormalized:base=10,exponent=1,mantissa=4,repeat=3")
	s, clamped, err := r.Encode(-1000)
	want := toks(t, r, "- + 3 1 0 0 0 - + 3 1 0 0 0 - + 3 1 0 0 0")
	if err != nil || clamped || !slices.Equal(s, want) {
		t.Fatalf("Encode(-1000) = %s, %v, %v", str(r, s), clamped, err)
	}
	checkAllowedPath(t, r, s)
	if c := mustDecode(t, r, s); c.Lo != -1001 || c.Hi != -1000 {
		t.Fatalf("Decode = %+v", c)
	}
	if _, clamped, _ := r.Encode(1e300); !clamped {
		t.Fatal("clamping not passed through")
	}
	if r.Len() != 21 || r.Size() != 12 || r.Copies() != 3 || r.Inner().Spec() != "unnormalized:base=10,exponent=1,mantissa=4" {
		t.Fatalf("Len %d Size %d Copies %d Inner %s", r.Len(), r.Size(), r.Copies(), r.Inner().Spec())
	}
}

// TestRepeatVote checks the majority vote and its tie rule: the most
// frequent token wins; among tied tokens the one that occurs first wins.
func TestRepeatVote(t *testing.T) {
	for _, c := range []struct {
		spec, seq, want string
	}{
		{"normalized:base=10,length=2,repeat=3", "1 2 3 2 1 4", "1 2"},         // 2 of 3 at each position
		{"normalized:base=10,length=2,repeat=2", "1 2 3 4", "1 2"},             // ties: the first copy
		{"normalized:base=10,length=2,repeat=2", "3 4 1 2", "3 4"},             // ties: the first copy, not the smaller
		{"normalized:base=10,length=2,repeat=4", "6 1 5 1 5 2 6 2", "6 1"},     // 2-2 ties, first occurrence wins
		{"normalized:base=10,length=2,repeat=4", "7 1 8 2 9 2 9 3", "9 2"},     // plurality, not majority
		{"normalized:base=10,length=2,repeat=3", "7 0 8 0 9 0", "7 0"},         // all different: the first
		{"normalized:base=10,length=2,repeat=5", "1 1 2 2 2 2 1 1 3 3", "1 1"}, // 1 and 2 tie at 2 each, 1 occurs first
	} {
		r := newRepeat(t, c.spec)
		got := str(r.Inner(), r.vote(toks(t, r, c.seq)))
		if got != c.want {
			t.Errorf("%s: vote(%s) = %s; want %s", c.spec, c.seq, got, c.want)
		}
		cell := mustDecode(t, r, toks(t, r, c.seq))
		if want := mustDecode(t, r.Inner(), toks(t, r, c.want)); cell != want {
			t.Errorf("%s: Decode(%s) = %+v; want %+v", c.spec, c.seq, cell, want)
		}
	}
}

// TestRepeatVoteFallback: a vote that mixes valid copies into an invalid
// sequence falls back to the copy nearest the vote (the earliest of the
// nearest).
func TestRepeatVoteFallback(t *testing.T) {
	r := newRepeat(t, "unnormalized:base=10,exponent=2,mantissa=1,repeat=5")
	// Votes: "+", "-" (3 of 5), "0" (4 of 5), "0" (2 of 5, first among the
	// tied), "1": "+ - 0 0 1", an exponent -00, which is not canonical.
	seq := "+ - 7 7 1  + - 0 3 1  + + 0 0 1  + - 0 8 1  + + 0 0 1"
	s := toks(t, r, seq)
	if _, err := r.Inner().Decode(toks(t, r, "+ - 0 0 1")); err == nil {
		t.Fatal("the vote should be invalid")
	}
	// Distances to the vote: 2, 1, 1, 1, 1: the second copy wins.
	if got := str(r.Inner(), r.vote(s)); got != "+ - 0 3 1" {
		t.Fatalf("vote = %s; want the second copy + - 0 3 1", got)
	}
	c := mustDecode(t, r, s)
	if c.Lo != 0.001 || c.Hi != 0.002 {
		t.Fatalf("Decode = %+v; want [0.001, 0.002)", c)
	}
	// Signs "-" (2 of 4, first) and m_1 = 0 (2 of 4) vote "- - 9 0 0":
	// m_1 = 0 is valid only under "+". Every copy is at distance 1, so the
	// first copy wins.
	r4 := newRepeat(t, "unnormalized:base=10,exponent=1,mantissa=2,repeat=4")
	s4 := toks(t, r4, "- - 9 1 0  + - 9 0 0  - - 9 2 0  + - 9 0 0")
	if got := str(r4.Inner(), r4.vote(s4)); got != "- - 9 1 0" {
		t.Fatalf("vote = %s; want the first copy - - 9 1 0", got)
	}
	if c := mustDecode(t, r4, s4); c.Lo != -1.1e-9 || c.Hi != -1e-9 {
		t.Fatalf("Decode = %+v; want (-1.1e-9, -1e-9]", c)
	}
	// A copy that is not canonical makes the whole sequence invalid.
	_, err := r4.Decode(toks(t, r4, "+ - 9 0 0  - - 9 1 0  - - 9 0 0  + - 9 0 0"))
	wantErr(t, err, ErrSequence, "copy 3 of 4")
}

func TestRepeatAllowedPerCopy(t *testing.T) {
	r := newRepeat(t, "unnormalized:base=10,exponent=1,mantissa=2,repeat=2")
	// After the zero path in copy 1, copy 2 starts afresh.
	p := toks(t, r, "+ - 9 0 0 + + 3")
	if got := r.Allowed(nil, p); slices.Contains(got, 0) || len(got) != 9 {
		t.Fatalf("Allowed(%s) = %v; want 1..9", str(r, p), got)
	}
	p = toks(t, r, "+ - 9 0 0 + - 9")
	if got := r.Allowed(nil, p); !slices.Contains(got, 0) {
		t.Fatalf("Allowed(%s) = %v; want the zero path open", str(r, p), got)
	}
	// An invalid first copy allows nothing.
	bad := toks(t, r, "+ + 3 0 0 +")
	if got := r.Allowed(nil, bad); len(got) != 0 {
		t.Fatalf("Allowed(%s) = %v; want nothing", str(r, bad), got)
	}
	_, err := r.Decode(toks(t, r, "+ + 3 1 0 + + 3 0 0"))
	wantErr(t, err, ErrSequence, "copy 2 of 2")
	_, err = r.Decode(toks(t, r, "+ + 3 1 0"))
	wantErr(t, err, ErrSequence, "got 5 tokens")
	if _, err := NewRepeat(2, r); !errors.Is(err, ErrSpec) {
		t.Fatalf("repeat of a repeat: %v", err)
	}
}
