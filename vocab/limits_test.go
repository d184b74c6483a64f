package vocab

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestP3ParseRefusesUnresolvedCells: Parse accepted tokenizations whose
// cells float64 cannot resolve (normalized base 10 length 17 encoded 0.5 as
// 5,0,...,0,5; widths rounded to 0 gave "nll": null; beam search and the
// quantile walk panicked) and sequences too long to decode.
func TestP3ParseRefusesUnresolvedCells(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"normalized:base=36,length=256", "length 256 too long for base 36"},
		{"normalized:base=10,length=17", "length 17 too long for base 10"},
		{"normalized:base=10,length=16", "so length <= 15 for base 10"},
		{"normalized:base=2,length=51", "so length <= 50 for base 2"},
		{"normalized:base=2,length=56,special=true", "length 56 too long for base 2"},
		{"normalized:base=2,length=60,repeat=3,special=true", "length 60 too long for base 2"},
		{"normalized:base=36,length=10", "so length <= 9 for base 36"},
		{"hamming:length=62", "length 62 too long: a Hamming code's 2^62 cells"},
		{"hamming:length=51", "(length <= 50)"},
		{"unnormalized:base=10,exponent=1,mantissa=16", "mantissa 16 too long for base 10"},
		{"unnormalized:base=2,exponent=1,mantissa=51", "so mantissa <= 50 for base 2"},
		{"normalized:base=2,length=50,repeat=6", "sequences of 300 tokens are longer than 256"},
		{"unnormalized:base=10,exponent=4,mantissa=15,repeat=13", "sequences of 273 tokens"},
	} {
		_, err := Parse(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v; want an error containing %q", c.spec, err, c.want)
			continue
		}
		wantErr(t, err, ErrSpec, c.want)
	}
	// The limits themselves are accepted, and their cells hold several
	// float64 values: edges strictly increasing, centres inside.
	for _, spec := range []string{
		"normalized:base=10,length=15", "normalized:base=2,length=50", "normalized:base=36,length=9",
		"hamming:length=50", "unnormalized:base=10,exponent=2,mantissa=15", "unnormalized:base=2,exponent=9,mantissa=50",
		"normalized:base=2,length=50,repeat=5,special=true", "unnormalized:base=10,exponent=4,mantissa=4",
	} {
		tok, err := Parse(spec)
		if err != nil {
			t.Errorf("Parse(%q): %v", spec, err)
			continue
		}
		r := rand.New(rand.NewPCG(1, 2))
		for range 200 {
			v := r.Float64()
			if r.IntN(2) == 0 {
				v = 1 - v*1e-6 // near 1, where float64 is coarsest in [0, 1]
			}
			s, _, err := tok.Encode(v)
			if err != nil {
				t.Fatalf("%s: Encode(%v): %v", spec, v, err)
			}
			c, err := tok.Decode(s)
			if err != nil {
				t.Fatalf("%s: Decode: %v", spec, err)
			}
			if ulps := (c.Hi - c.Lo) / (math.Nextafter(c.Lo, 2) - c.Lo); !(ulps >= 4) || !(c.Lo <= v && v < c.Hi) && !(v == 1 && c.Hi == 1) {
				t.Fatalf("%s: %v in cell [%v, %v) of %v float64 values", spec, v, c.Lo, c.Hi, ulps)
			}
		}
	}
}

// enumerate lists every valid sequence of tok (small tokenizations only).
func enumerate(tok Tokenizer) [][]int {
	var out [][]int
	var rec func(prefix []int)
	rec = func(prefix []int) {
		if len(prefix) == tok.Len() {
			out = append(out, slices.Clone(prefix))
			return
		}
		for _, a := range tok.Allowed(nil, prefix) {
			rec(append(prefix, a))
		}
	}
	rec(nil)
	return out
}

// TestP4Bound checks Bound against brute force: its valid sequences are
// exactly the inner ones whose cells meet [lo, hi] (plus the specials),
// Children lists them in numeric order, Interval is the hull of their
// cells, Encode clamps outside the bound and Decode refuses what is
// outside.
func TestP4Bound(t *testing.T) {
	for _, c := range []struct {
		spec   string
		lo, hi float64
	}{
		{"unnormalized:base=4,exponent=1,mantissa=2,special=true", -0.37, 0.61},
		{"unnormalized:base=4,exponent=1,mantissa=2", 2.3, 17.1},
		{"unnormalized:base=3,exponent=2,mantissa=2", -123.4, -0.0021},
		{"unnormalized:base=4,exponent=1,mantissa=2", -1e-9, 1e-9},
		{"unnormalized:base=10,exponent=1,mantissa=2", -1e300, 1e300},
		{"normalized:base=3,length=3", 0.13, 0.77},
		{"normalized:base=3,length=3,special=true", -5, 0.5},
	} {
		inner, err := Parse(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := Bound(inner, c.lo, c.hi)
		if err != nil {
			t.Fatalf("Bound(%s, %v, %v): %v", c.spec, c.lo, c.hi, err)
		}
		tr := tok.(Tree)
		// Brute force: the inner cells that meet [lo, hi] (no bound lies on
		// a cell edge, so open and closed ends do not matter).
		want := map[string]Cell{}
		var wlo, whi = math.Inf(1), math.Inf(-1)
		for _, s := range enumerate(inner) {
			cell, _ := inner.Decode(s)
			if cell.Kind != Finite || cell.Lo < c.hi && cell.Hi > c.lo || cell.Lo == 0 && cell.Hi == 0 && c.lo <= 0 && c.hi >= 0 {
				want[joinTokens(s, inner.TokenString)] = cell
				if cell.Kind == Finite {
					wlo, whi = min(wlo, cell.Lo), max(whi, cell.Hi)
				}
			}
		}
		got := enumerate(tok)
		if len(got) != len(want) {
			t.Errorf("%s [%v, %v]: %d sequences, brute force %d", c.spec, c.lo, c.hi, len(got), len(want))
		}
		for _, s := range got {
			if _, ok := want[joinTokens(s, inner.TokenString)]; !ok {
				t.Errorf("%s [%v, %v]: %v allowed, its cell misses the bound", c.spec, c.lo, c.hi, s)
			}
			if _, err := tok.Decode(s); err != nil {
				t.Errorf("Decode(%v): %v", s, err)
			}
		}
		if lo, hi := tr.Interval(nil); lo != wlo || hi != whi {
			t.Errorf("%s [%v, %v]: Interval() = [%v, %v], brute force [%v, %v]", c.spec, c.lo, c.hi, lo, hi, wlo, whi)
		}
		// Children: the allowed tokens in numeric order; prefix intervals
		// are the hull of their cells.
		var walk func(prefix []int) (lo, hi float64)
		walk = func(prefix []int) (lo, hi float64) {
			if len(prefix) == tok.Len() {
				cell, _ := tok.Decode(prefix)
				return cell.Lo, cell.Hi
			}
			ch := tr.Children(nil, prefix)
			al := tr.Allowed(nil, prefix)
			if s := slices.Sorted(slices.Values(ch)); !slices.Equal(s, al) {
				t.Fatalf("%v: Children %v, Allowed %v", prefix, ch, al)
			}
			lo, hi = math.Inf(1), math.Inf(-1)
			prev := math.Inf(-1)
			for _, x := range ch {
				if len(prefix) == 0 && SpecialKind(tok, x) != Finite {
					continue
				}
				a, b := walk(append(slices.Clone(prefix), x))
				if a < prev {
					t.Errorf("%v: children out of order at %d", prefix, x)
				}
				prev = b
				lo, hi = min(lo, a), max(hi, b)
			}
			if len(prefix) > 0 && SpecialKind(tok, prefix[0]) != Finite {
				return tr.Interval(prefix)
			}
			if ilo, ihi := tr.Interval(prefix); ilo != lo || ihi != hi {
				t.Errorf("%v: Interval [%v, %v], hull of the cells [%v, %v]", prefix, ilo, ihi, lo, hi)
			}
			return lo, hi
		}
		walk(nil)
		// Encode: values in the bound keep their cell; outside it they go
		// to the first or last cell, clamped, but for the ends of the
		// cells' union, which an extreme cell leaves open: they are its (a
		// fixed target range's ends were refused as beyond it).
		// (Where the bound reaches past the inner tokenization's range, its
		// ends are the inner's, which clamps them as without a bound.)
		ilo, ihi := inner.(Tree).Interval(nil)
		ends := map[float64]bool{wlo: wlo > ilo, whi: whi < ihi}
		for _, v := range []float64{c.lo, c.hi, (c.lo + c.hi) / 2, c.lo - 1, c.hi + 1, c.lo * 1.5, c.hi * 1.5,
			wlo, whi, math.Nextafter(wlo, math.Inf(-1)), math.Nextafter(whi, math.Inf(1))} {
			s, clamped, err := tok.Encode(v)
			if err != nil {
				if v < 0 || v > 1 {
					continue // Normalized refuses what is outside [0, 1]
				}
				t.Fatalf("Encode(%v): %v", v, err)
			}
			cell, err := tok.Decode(s)
			if err != nil {
				t.Fatalf("%s: Encode(%v) = %v does not decode: %v", c.spec, v, s, err)
			}
			is, iclamped, _ := inner.Encode(v)
			if in := slices.Equal(s, is); in && clamped != iclamped || !in && clamped == ends[v] {
				t.Errorf("%s: Encode(%v) = %v, clamped %v; inner %v", c.spec, v, s, clamped, is)
			}
			if ends[v] && (cell.Lo != v && cell.Hi != v || clamped) {
				t.Errorf("%s: Encode(%v), at an end of the bound's cells, = %v (%v), clamped %v", c.spec, v, s, cell, clamped)
			}
			if clamped && cell.Lo != wlo && cell.Hi != whi {
				t.Errorf("%s: Encode(%v) clamped to %v, not an end cell", c.spec, v, cell)
			}
		}
		for _, s := range enumerate(inner) {
			if _, ok := want[joinTokens(s, inner.TokenString)]; !ok {
				if _, err := tok.Decode(s); err == nil {
					t.Errorf("Decode(%v) outside the bound: no error", s)
				}
			}
		}
	}
	// Repeat of a tree: the repeat of the bounded tree. Hamming: an error.
	rep, _ := Parse("unnormalized:base=4,exponent=1,mantissa=2,repeat=2")
	if b, err := Bound(rep, -1, 1); err != nil || b.(*Repeat).Inner().(*Bounded) == nil || b.Spec() != rep.Spec() {
		t.Errorf("Bound of a Repeat: %v, %v", b, err)
	}
	h, _ := Parse("hamming:length=4")
	if _, err := Bound(h, 0, 1); err == nil {
		t.Error("Bound of Hamming: no error")
	}
	u, _ := Parse("unnormalized:base=4,exponent=1,mantissa=2")
	for _, b := range [][2]float64{{1, -1}, {math.NaN(), 1}, {1e300, math.Inf(1)}} {
		if _, err := Bound(u, b[0], b[1]); err == nil {
			t.Errorf("Bound(%v, %v): no error", b[0], b[1])
		}
	}
	if !IsUnnormalized(rep) || !IsUnnormalized(u) || IsUnnormalized(h) {
		t.Error("IsUnnormalized")
	}
}

// FuzzBound: any bound of any small tree, any prefix: Allowed, Children,
// Encode, Decode and Interval never panic on a prefix Allowed offers, and
// what Allowed offers stays inside the bound.
func FuzzBound(f *testing.F) {
	f.Add("unnormalized:base=4,exponent=1,mantissa=2,special=true", -0.3, 0.7, []byte{1, 2, 3})
	f.Add("normalized:base=3,length=3", 0.2, 0.5, []byte{0, 9, 200})
	f.Add("unnormalized:base=2,exponent=10,mantissa=3,repeat=2", -1e300, 1e-300, []byte{7, 7, 7, 7, 7, 7, 7, 7})
	f.Fuzz(func(t *testing.T, spec string, lo, hi float64, picks []byte) {
		inner, err := Parse(spec)
		if err != nil || inner.Len() > 32 {
			return
		}
		tok, err := Bound(inner, lo, hi)
		if err != nil {
			return
		}
		var prefix []int
		for _, p := range picks {
			if len(prefix) == tok.Len() {
				break
			}
			al := tok.Allowed(nil, prefix)
			if tr, ok := tok.(Tree); ok {
				tr.Children(nil, prefix)
				tr.Interval(prefix)
			}
			if len(al) == 0 {
				t.Fatalf("%s [%v, %v]: nothing allowed after %v", spec, lo, hi, prefix)
			}
			prefix = append(prefix, al[int(p)%len(al)])
		}
		tok.Allowed(nil, append(slices.Clone(prefix), 0, 0)) // invalid or too long: no panic
		if len(prefix) == tok.Len() {
			if _, err := tok.Decode(prefix); err != nil {
				t.Fatalf("%s [%v, %v]: allowed sequence %v: %v", spec, lo, hi, prefix, err)
			}
		}
		for _, v := range []float64{lo, hi, 0, 0.5, -1, 1e308} {
			if s, _, err := tok.Encode(v); err == nil {
				if _, err := tok.Decode(s); err != nil {
					t.Fatalf("%s [%v, %v]: Encode(%v) = %v does not decode: %v", spec, lo, hi, v, s, err)
				}
			}
		}
	})
}

// TestTrainable: every constructible Unnormalized(B, E, M) with base^E up to
// 2^14 (and the largest mantissa Usable allows, or 1) is Trainable exactly
// when its zero cell and the lowest cells above it, decoded from their
// token sequences, all have a positive width; the refusal names the
// largest exponent that trains, which is then Trainable. Special tokens,
// in any wrapper, are refused; other kinds are Trainable when Usable.
func TestTrainable(t *testing.T) {
	checked, refused := 0, 0
	for b := 2; b <= MaxBase; b++ {
		for e := 1; ; e++ {
			if p, ok := powAtMost(b, e, 1<<14); !ok || p < 1 {
				break
			}
			for _, m := range []int{1, 2, maxMantissa(b)} {
				u, err := NewUnnormalized(b, e, m)
				if err != nil || Usable(u) != nil {
					t.Fatalf("(%d, %d, %d): %v", b, e, m, err)
				}
				zeroWidth := false
				for _, s := range lowestCells(u, 64) {
					c, err := u.Decode(s)
					if err != nil {
						t.Fatalf("(%d, %d, %d): Decode(%v): %v", b, e, m, s, err)
					}
					zeroWidth = zeroWidth || !(c.Hi > c.Lo)
				}
				err = Trainable(u)
				checked++
				if (err == nil) == zeroWidth {
					t.Errorf("Unnormalized(%d, %d, %d): Trainable %v, a cell of width 0: %v", b, e, m, err, zeroWidth)
				}
				if err != nil {
					refused++
					wantErr(t, err, ErrSpec, "to train on")
					var maxE int
					if _, err := fmt.Sscanf(err.Error()[strings.Index(err.Error(), "use exponent <= "):], "use exponent <= %d", &maxE); err != nil || maxE >= e {
						t.Errorf("(%d, %d, %d): %v", b, e, m, err)
					} else if u2, _ := NewUnnormalized(b, maxE, m); Trainable(u2) != nil {
						t.Errorf("(%d, %d, %d): the advised exponent %d: %v", b, e, m, maxE, Trainable(u2))
					}
				}
			}
		}
	}
	t.Logf("%d of %d refused", refused, checked)
	if refused == 0 || refused == checked {
		t.Errorf("%d of %d refused", refused, checked)
	}
	for _, spec := range []string{"normalized:base=10,length=3,special=true", "hamming:length=4,special=true,repeat=2", "unnormalized:base=10,exponent=1,mantissa=3,special=true"} {
		tok, err := Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		wantErr(t, Trainable(tok), ErrSpec, "leave special out")
	}
	for _, spec := range []string{"normalized:base=10,length=15", "hamming:length=50,repeat=5", "unnormalized:base=2,exponent=10,mantissa=50", "unnormalized:base=10,exponent=2,mantissa=15"} {
		tok, err := Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		if err := Trainable(tok); err != nil {
			t.Errorf("%s: %v", spec, err)
		}
	}
	if err := Trainable(nil); err == nil {
		t.Error("Trainable(nil) = nil")
	}
}

// maxMantissa is the largest mantissa Usable allows for base b.
func maxMantissa(b int) int {
	m := 1
	for {
		if _, ok := powAtMost(b, m+1, 1<<MaxCellBits); !ok {
			return m
		}
		m++
	}
}

// lowestCells returns the token sequences of u's zero cell and of its n
// lowest positive cells (exponent -emax, mantissas B^(M-1), B^(M-1)+1, ...),
// written digit by digit.
func lowestCells(u *Unnormalized, n int) [][]int {
	b, plus, minus := u.Base(), u.Plus(), u.Minus()
	digits := func(v, k int) []int {
		d := make([]int, k)
		for i := k - 1; i >= 0; i-- {
			d[i], v = v%b, v/b
		}
		return d
	}
	emax := u.emax
	zero := append([]int{plus, minus}, digits(emax, u.Exponent())...)
	zero = append(zero, make([]int, u.Mantissa())...)
	out := [][]int{zero}
	low := 1
	for range u.Mantissa() - 1 {
		low *= b
	}
	for m := low; m < low*b && len(out) <= n; m++ {
		s := append([]int{plus, minus}, digits(emax, u.Exponent())...)
		out = append(out, append(s, digits(m, u.Mantissa())...))
	}
	return out
}

// TestBoundEnds: BoundEnds's extreme cells also hold the values out to the
// ends given, where those lie beyond the cells by at most the rounding
// tol and a thousandth of a cell (a fixed range's ends as the model's
// arithmetic rounds them), and not beyond them; an end further beyond is
// not taken (values there stay clamped). Through a Repeat too.
func TestBoundEnds(t *testing.T) {
	for _, spec := range []string{"unnormalized:base=10,exponent=1,mantissa=4", "unnormalized:base=10,exponent=1,mantissa=4,repeat=2"} {
		inner, err := Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := -0.5+1e-12, 0.5-1e-12 // the cells (-0.5, -0.4999] .. [0.4999, 0.5)
		endLo, endHi := -0.5-2.4e-14, 0.5+2.4e-14
		tok, err := BoundEnds(inner, lo, hi, endLo, endHi, 1e-13)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			v       float64
			clamped bool
		}{
			{-0.5, false}, {endLo, false}, {math.Nextafter(endLo, math.Inf(-1)), true}, {-0.50001, true},
			{0.5, false}, {endHi, false}, {math.Nextafter(endHi, math.Inf(1)), true}, {0.50001, true},
		} {
			s, clamped, err := tok.Encode(c.v)
			if err != nil || clamped != c.clamped {
				t.Errorf("%s: Encode(%v) = %v, clamped %v (%v); want clamped %v", spec, c.v, s, clamped, err, c.clamped)
			}
		}
		// An end a cell or more beyond the extreme cell is not taken.
		far, err := BoundEnds(inner, lo, hi, -0.5002, 0.5002, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []float64{-0.50015, 0.50015} {
			if _, clamped, _ := far.Encode(v); !clamped {
				t.Errorf("%s: Encode(%v) beyond the extreme cell by more than its width: not clamped", spec, v)
			}
		}
		// Nor one beyond the rounding tol, nor beyond a thousandth of the
		// cell (0.0001 wide here) whatever tol.
		for _, c := range []struct{ end, tol float64 }{{-0.5 - 2e-13, 1e-13}, {-0.5 - 2e-7, 1}} {
			tk, err := BoundEnds(inner, lo, hi, c.end, 0.5, c.tol)
			if err != nil {
				t.Fatal(err)
			}
			if _, clamped, _ := tk.Encode(c.end); !clamped {
				t.Errorf("%s: end %v with tol %v taken", spec, c.end, c.tol)
			}
		}
	}
}

// TestBoundCut: BoundCut's extreme cells end at the given ends, cut where
// an end lies inside a cell (base 3 cannot write ±0.5) and extended over
// the left-out cells where it lies beyond by at most tol; the cells then
// tile [endLo, endHi] (Interval, Decode, Encode agree), a value cut off
// from an inner cell is clamped, and Same tells the cut tokenization from
// the uncut one. Through a Repeat too.
func TestBoundCut(t *testing.T) {
	for _, spec := range []string{"unnormalized:base=3,exponent=1,mantissa=2", "unnormalized:base=3,exponent=1,mantissa=2,repeat=3"} {
		inner, err := Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := -0.5+1e-12, 0.5-1e-12
		whole, err := BoundEnds(inner, lo, hi, -0.5, 0.5, 1e-13)
		if err != nil {
			t.Fatal(err)
		}
		cut, err := BoundCut(inner, lo, hi, -0.5, 0.5, 1e-13)
		if err != nil {
			t.Fatal(err)
		}
		if Same(whole, cut) || !Same(cut, cut) {
			t.Errorf("%s: Same(whole, cut) = %v, Same(cut, cut) = %v", spec, Same(whole, cut), Same(cut, cut))
		}
		tr := bounded(cut)
		if a, b := tr.Interval(nil); a != -0.5 || b != 0.5 {
			t.Errorf("%s: Interval(nil) = [%v, %v], want [-0.5, 0.5]", spec, a, b)
		}
		wa, wb := bounded(whole).Interval(nil)
		if !(wa < -0.5 && wb > 0.5) {
			t.Fatalf("%s: the uncut cells [%v, %v] do not reach past ±0.5: the test shows nothing", spec, wa, wb)
		}
		for _, c := range []struct {
			v       float64
			clamped bool
			lo, hi  float64 // the cell's edges, NaN for "not an end"
		}{
			{-0.5, false, -0.5, math.NaN()}, {0.5, false, math.NaN(), 0.5},
			{math.Nextafter(-0.5, -1), true, -0.5, math.NaN()}, {math.Nextafter(0.5, 1), true, math.NaN(), 0.5},
			{(wa - 0.5) / 2, true, -0.5, math.NaN()}, {(wb + 0.5) / 2, true, math.NaN(), 0.5},
			{wa - 1e-3, true, -0.5, math.NaN()}, {wb + 1e-3, true, math.NaN(), 0.5},
			{-0.49, false, -0.5, math.NaN()}, {0.49, false, math.NaN(), 0.5},
		} {
			s, clamped, err := cut.Encode(c.v)
			if err != nil || clamped != c.clamped {
				t.Errorf("%s: Encode(%v) = %v, clamped %v (%v); want clamped %v", spec, c.v, s, clamped, err, c.clamped)
				continue
			}
			cell, err := cut.Decode(s)
			if err != nil {
				t.Fatal(err)
			}
			if !math.IsNaN(c.lo) && cell.Lo != c.lo || !math.IsNaN(c.hi) && cell.Hi != c.hi || !(cell.Lo < cell.Center && cell.Center < cell.Hi) {
				t.Errorf("%s: the cell of %v is %+v", spec, c.v, cell)
			}
			if !clamped && !(cell.Lo <= c.v && c.v <= cell.Hi) {
				t.Errorf("%s: %v scored in the cell %+v that does not hold it", spec, c.v, cell)
			}
		}
	}

	// Ends beyond the extreme cells: taken over the left-out cells within
	// tol, not beyond it.
	inner, err := Parse("unnormalized:base=10,exponent=2,mantissa=1")
	if err != nil {
		t.Fatal(err)
	}
	ext, err := BoundCut(inner, 1.05e-12, 1, 1e-13, 1, 2e-12)
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := bounded(ext).Interval(nil); a != 1e-13 {
		t.Errorf("extended: the cells start at %v, want 1e-13", a)
	}
	for _, c := range []struct {
		v       float64
		clamped bool
	}{{1e-13, false}, {5e-13, false}, {1.05e-12, false}, {9e-14, true}, {0, true}} {
		if s, clamped, err := ext.Encode(c.v); err != nil || clamped != c.clamped {
			t.Errorf("extended: Encode(%v) = %v, clamped %v (%v); want clamped %v", c.v, s, clamped, err, c.clamped)
		} else if cell, _ := ext.Decode(s); !clamped && !(cell.Lo <= c.v && c.v <= cell.Hi) {
			t.Errorf("extended: %v in the cell %+v", c.v, cell)
		}
	}
	far, err := BoundCut(inner, 1.05e-12, 1, 1e-14, 1, 1e-13)
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := bounded(far).Interval(nil); a != 1e-12 {
		t.Errorf("an end beyond tol: the cells start at %v, want the kept cell's 1e-12", a)
	}
	if _, clamped, _ := far.Encode(1e-14); !clamped {
		t.Errorf("an end beyond tol: Encode(1e-14) not clamped")
	}

	// One cell across both ends: cut at both.
	one, err := BoundCut(inner, 0.31, 0.34, 0.305, 0.345, 0)
	if err != nil {
		t.Fatal(err)
	}
	s, clamped, err := one.Encode(0.33)
	if err != nil || clamped {
		t.Fatal(s, clamped, err)
	}
	if cell, _ := one.Decode(s); cell.Lo != 0.305 || cell.Hi != 0.345 {
		t.Errorf("one cell: %+v, want [0.305, 0.345]", cell)
	}
	if a, b := bounded(one).Interval(nil); a != 0.305 || b != 0.345 {
		t.Errorf("one cell: Interval(nil) = [%v, %v]", a, b)
	}
	if _, err := BoundCut(inner, 0.31, 0.34, 0.345, 0.305, 0); err == nil {
		t.Error("ends in the wrong order accepted")
	}
}
