package vocab

import (
	"errors"
	"math"
	"math/big"
	"slices"
	"testing"
)

// Fuzz targets: value -> tokens -> a cell that contains the value, with
// reference edges; random valid sequences -> allowed at every prefix,
// decodable, and (for cells that hold a float64) re-encoded to themselves.
// The seeds run with the default go test; fuzz with, e.g.,
//
//	go test ./vocab -run '^$' -fuzz FuzzUnnormalized -fuzztime 20s

func addSeeds(f *testing.F, pick []byte, values ...float64) {
	for i, v := range values {
		f.Add(uint8(i*7), uint8(i*3+1), v, pick)
	}
}

var seedValues = []float64{0, 0.3, 1, 0.018, 1000, -3.5, 1 - 0x1p-53, math.SmallestNonzeroFloat64,
	math.MaxFloat64, -math.MaxFloat64, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 0x1p-1022, 2.5e-310}

// checkEncoded checks Encode(v) for tokenizations that reject finite
// values outside [0, 1] (unit) or clamp them (not unit).
func checkEncoded(t *testing.T, tok Tokenizer, v float64, special, unit bool) (s []int, c Cell, ok bool) {
	s, clamped, err := tok.Encode(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		if !special {
			if !errors.Is(err, ErrNonFinite) {
				t.Fatalf("%s: Encode(%v) error = %v", tok.Spec(), v, err)
			}
			return nil, c, false
		}
	case unit && !(v >= 0 && v <= 1):
		if !errors.Is(err, ErrRange) {
			t.Fatalf("%s: Encode(%v) error = %v", tok.Spec(), v, err)
		}
		return nil, c, false
	}
	if err != nil || len(s) != tok.Len() {
		t.Fatalf("%s: Encode(%v) = %v, %v", tok.Spec(), v, s, err)
	}
	checkAllowedPath(t, tok, s)
	c = mustDecode(t, tok, s)
	switch {
	case math.IsNaN(v):
		if c.Kind != NaN {
			t.Fatalf("%s: NaN decodes to %+v", tok.Spec(), c)
		}
	case math.IsInf(v, 0):
		if c.Kind == Finite || c.Lo != v {
			t.Fatalf("%s: %v decodes to %+v", tok.Spec(), v, c)
		}
	case clamped:
		if unit {
			t.Fatalf("%s: %v clamped", tok.Spec(), v)
		}
	default:
		if !contains(c, v) && !(v == 1 && c.Hi == 1) {
			t.Fatalf("%s: %v encodes to %s, cell [%v, %v] centre %v", tok.Spec(), v, str(tok, s), c.Lo, c.Hi, c.Center)
		}
	}
	return s, c, !clamped && c.Kind == Finite
}

// checkPicked builds a valid sequence from pick and checks it.
func checkPicked(t *testing.T, tok Tokenizer, pick []byte) {
	s := randomValid(tok, pick)
	if s == nil {
		t.Fatalf("%s: Allowed ran dry on a valid prefix", tok.Spec())
	}
	checkAllowedPath(t, tok, s)
	c := mustDecode(t, tok, s)
	if c.Kind != Finite || !(c.Lo < c.Hi) {
		return
	}
	if !contains(c, c.Center) {
		t.Fatalf("%s: centre %v outside [%v, %v]", tok.Spec(), c.Center, c.Lo, c.Hi)
	}
	if r, ok := tok.(*Repeat); ok {
		// Re-encoding gives the voted copy, repeated.
		got := mustEncode(t, tok, c.Center)
		if gc := mustDecode(t, r.Inner(), got[:r.Inner().Len()]); gc != c {
			t.Fatalf("%s: centre %v re-encodes to %+v, not %+v", tok.Spec(), c.Center, gc, c)
		}
		return
	}
	if math.Abs(c.Center) < 0x1p-1022 {
		// A cell at the bottom of float64's range: its centre underflows
		// (to 0 or a subnormal), which another cell encodes.
		return
	}
	wantEncode(t, tok, c.Center, s)
}

func FuzzNormalized(f *testing.F) {
	addSeeds(f, []byte{3, 1, 4, 1, 5, 9, 2, 6}, seedValues...)
	f.Add(uint8(8), uint8(3), 0.3, []byte{})
	f.Add(uint8(0), uint8(59), 0.7, []byte{1})
	f.Fuzz(func(t *testing.T, b, k uint8, v float64, pick []byte) {
		special := len(pick)%2 == 1
		tok, err := NewNormalized(2+int(b)%35, 1+int(k)%60, WithSpecial(special))
		if err != nil {
			t.Fatal(err)
		}
		if s, c, ok := checkEncoded(t, tok, v, special, true); ok {
			i := digitsValue(s, tok.Base())
			n := bigPowRef(tok.Base(), tok.Length())
			lo, hi := refNearestFrac(i, n), refNearestFrac(new(big.Int).Add(i, bigOne), n)
			if c.Lo != lo || c.Hi != hi {
				t.Fatalf("%s: cell of %v = [%v, %v); want [%v, %v)", tok.Spec(), v, c.Lo, c.Hi, lo, hi)
			}
			if tok.n != 0 && tok.indexExact(v).Uint64() != tok.indexFast(v) {
				t.Fatalf("%s: fast and exact paths differ at %v", tok.Spec(), v)
			}
		}
		checkPicked(t, tok, pick)
	})
}

func FuzzUnnormalized(f *testing.F) {
	addSeeds(f, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8}, seedValues...)
	f.Add(uint8(8), uint8(0), 1000.0, []byte{})
	f.Add(uint8(8), uint8(0), 0.018, []byte{1, 1})
	f.Fuzz(func(t *testing.T, b, em uint8, v float64, pick []byte) {
		special := len(pick)%2 == 1
		base, e, m := 2+int(b)%35, 1+int(em)%3, 1+int(em/3)%18
		u, err := NewUnnormalized(base, e, m, WithSpecial(special))
		if err != nil {
			t.Fatal(err)
		}
		s, c, ok := checkEncoded(t, u, v, special, false)
		if ok && math.Pow(float64(base), float64(m)) < 0x1p62 {
			ex, mx, where := refULocate(base, m, u.emax, math.Abs(v))
			var want []int
			switch {
			case v == 0 || where == -1:
				want = refUSeq(t, u, false, -u.emax, 0)
			case where == 1:
				t.Fatalf("%s: %v not clamped, the reference clamps", u.Spec(), v)
			default:
				want = refUSeq(t, u, v < 0, ex, mx)
			}
			if !slices.Equal(s, want) {
				t.Fatalf("%s: Encode(%v) = %s; want %s (cell %+v)", u.Spec(), v, str(u, s), str(u, want), c)
			}
		}
		checkPicked(t, u, pick)
	})
}

func FuzzHamming(f *testing.F) {
	addSeeds(f, []byte{1, 0, 1, 1, 0}, seedValues...)
	f.Fuzz(func(t *testing.T, l, _ uint8, v float64, pick []byte) {
		special := len(pick)%2 == 1
		h, err := NewHamming(1+int(l)%MaxHamming, WithSpecial(special))
		if err != nil {
			t.Fatal(err)
		}
		if s, c, ok := checkEncoded(t, h, v, special, true); ok {
			n := h.norm
			if nc := mustDecode(t, n, mustEncode(t, n, v)); nc != c {
				t.Fatalf("%s: cell of %v = %+v; Normalized(2, L) gives %+v", h.Spec(), v, c, nc)
			}
			i := h.rank(s)
			if h.unrank(s, i); h.rank(s) != i {
				t.Fatalf("%s: rank and unrank disagree at %d", h.Spec(), i)
			}
		}
		checkPicked(t, h, pick)
	})
}

var repeatInners = []string{
	"normalized:base=10,length=3",
	"unnormalized:base=10,exponent=1,mantissa=2",
	"unnormalized:base=4,exponent=2,mantissa=3,special=true",
	"hamming:length=5",
	"normalized:base=2,length=4,special=true",
}

// refVote is the voting rule written plainly: counts per token, the
// largest count, and among the tokens with it the earliest occurrence.
func refVote(tokens []int, r, n int) []int {
	out := make([]int, n)
	for p := range n {
		count := map[int]int{}
		for j := range r {
			count[tokens[j*n+p]]++
		}
		most := 0
		for _, c := range count {
			most = max(most, c)
		}
		for j := range r {
			if tok := tokens[j*n+p]; count[tok] == most {
				out[p] = tok
				break
			}
		}
	}
	return out
}

func FuzzRepeat(f *testing.F) {
	addSeeds(f, []byte{5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}, seedValues...)
	f.Fuzz(func(t *testing.T, r, kind uint8, v float64, pick []byte) {
		inner, err := Parse(repeatInners[int(kind)%len(repeatInners)])
		if err != nil {
			t.Fatal(err)
		}
		rep, err := NewRepeat(1+int(r)%5, inner)
		if err != nil {
			t.Fatal(err)
		}
		want, wantClamped, wantErr := inner.Encode(v)
		s, clamped, err := rep.Encode(v)
		if (err == nil) != (wantErr == nil) || clamped != wantClamped {
			t.Fatalf("%s: Encode(%v) = %v, %v; inner %v, %v", rep.Spec(), v, clamped, err, wantClamped, wantErr)
		}
		if err == nil {
			if !slices.Equal(s, slices.Repeat(want, rep.Copies())) {
				t.Fatalf("%s: Encode(%v) = %s", rep.Spec(), v, str(rep, s))
			}
			checkAllowedPath(t, rep, s)
			if c, ic := mustDecode(t, rep, s), mustDecode(t, inner, want); c != ic && !(c.Kind == NaN && ic.Kind == NaN) {
				t.Fatalf("%s: Decode = %+v; inner %+v", rep.Spec(), c, ic)
			}
		}
		// Copies drawn independently, then the vote.
		n := inner.Len()
		var seq []int
		for j := range rep.Copies() {
			off := j * n % max(1, len(pick))
			seq = append(seq, randomValid(inner, append(slices.Clone(pick[off:]), pick[:off]...))...)
		}
		checkAllowedPath(t, rep, seq)
		c := mustDecode(t, rep, seq)
		voted := refVote(seq, rep.Copies(), n)
		if vc, err := inner.Decode(voted); err == nil {
			if c != vc && !(c.Kind == NaN && vc.Kind == NaN) {
				t.Fatalf("%s: Decode(%s) = %+v; the vote %s gives %+v", rep.Spec(), str(rep, seq), c, str(inner, voted), vc)
			}
		} else {
			found := false
			for j := range rep.Copies() {
				cc := mustDecode(t, inner, seq[j*n:(j+1)*n])
				found = found || cc == c || (cc.Kind == NaN && c.Kind == NaN)
			}
			if !found {
				t.Fatalf("%s: fallback of %s is no copy's cell: %+v", rep.Spec(), str(rep, seq), c)
			}
		}
		checkPicked(t, rep, pick)
	})
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"normalized:base=10,length=4", "unnormalized:base=10,exponent=1,mantissa=4,special=true",
		"hamming:length=8,repeat=3", "normalized:length=2,base=36,repeat=2,special=false", "x:y=z", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		tok, err := Parse(spec)
		if err != nil {
			if !errors.Is(err, ErrSpec) {
				t.Fatalf("Parse(%q) error %v does not wrap ErrSpec", spec, err)
			}
			return
		}
		again, err := Parse(tok.Spec())
		if err != nil || again.Spec() != tok.Spec() {
			t.Fatalf("Spec %q of %q does not round-trip: %v", tok.Spec(), spec, err)
		}
	})
}
