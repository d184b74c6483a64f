package vocab

import (
	"flag"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

var long = flag.Bool("vocab.long", false, "run the long exhaustive and sweep tests")

// checkNormalizedCells checks every cell of t against the exact reference:
// the i-th sequence in Children order holds the digits of i, and its edges
// and centre are the float64 values nearest i/N, (i+1)/N and (2i+1)/2N.
func checkNormalizedCells(t *testing.T, tok *Normalized, n int64) {
	seqs := walkTree(t, tok)
	want := n
	if tok.Special() {
		want += 3
	}
	if int64(len(seqs)) != want {
		t.Fatalf("%s: %d sequences, want %d", tok.Spec(), len(seqs), want)
	}
	i := int64(0)
	nr := big.NewInt(n)
	lo := 0.0
	for _, s := range seqs {
		c := mustDecode(t, tok, s)
		if c.Kind != Finite {
			continue
		}
		if w := refDigits(t, tok, i, tok.Base(), tok.Length()); !slices.Equal(s, w) {
			t.Fatalf("%s: cell %d in Children order is %s, want %s", tok.Spec(), i, str(tok, s), str(tok, w))
		}
		hi := refNearestFrac(big.NewInt(i+1), nr)
		mid := refNearestFrac(big.NewInt(2*i+1), new(big.Int).Lsh(nr, 1))
		if mid >= hi {
			mid = math.Nextafter(hi, 0)
		}
		if c.Lo != lo || c.Hi != hi || c.Center != mid {
			t.Fatalf("%s: cell %d = [%v, %v) centre %v; want [%v, %v) centre %v", tok.Spec(), i, c.Lo, c.Hi, c.Center, lo, hi, mid)
		}
		i, lo = i+1, hi
	}
	checkTiling(t, tok, seqs)
	first := refDigits(t, tok, 0, tok.Base(), tok.Length())
	last := refDigits(t, tok, n-1, tok.Base(), tok.Length())
	wantEncode(t, tok, 0, first)
	wantEncode(t, tok, math.Copysign(0, -1), first)
	wantEncode(t, tok, 1, last)
	wantEncode(t, tok, math.Nextafter(1, 0), last)
}

func TestNormalizedExhaustive(t *testing.T) {
	configs := [][2]int{{2, 16}, {10, 5}, {36, 3}, {11, 2}}
	if *long {
		configs = append(configs, [2]int{3, 10}, [2]int{16, 4}, [2]int{7, 5}, [2]int{4, 8}, [2]int{6, 6})
	}
	for _, bk := range configs {
		tok, err := NewNormalized(bk[0], bk[1])
		if err != nil {
			t.Fatal(err)
		}
		n, _ := powAtMost(bk[0], bk[1], 1e5)
		checkNormalizedCells(t, tok, int64(n))
	}
	tok, _ := NewNormalized(5, 3, WithSpecial(true))
	checkNormalizedCells(t, tok, 125)
}

// TestNormalizedFastMatchesExact compares the float64 fast path with the
// math/big path on random values and values at and next to cell edges.
func TestNormalizedFastMatchesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for b := 2; b <= 36; b++ {
		for k := 1; ; k++ {
			tok, _ := NewNormalized(b, k)
			if tok.n == 0 {
				break
			}
			for range 50 {
				y := r.Float64()
				switch r.IntN(4) {
				case 0:
					y = float64(r.Uint64N(tok.n)) / float64(tok.n)
					y = []float64{y, math.Nextafter(y, 0), math.Nextafter(y, 1)}[r.IntN(3)]
				case 1:
					y = math.Ldexp(r.Float64(), -r.IntN(1100))
				}
				if f, x := tok.indexFast(y), tok.indexExact(y); x.Cmp(new(big.Int).SetUint64(f)) != 0 {
					t.Fatalf("%s: index of %v: fast %d, exact %v", tok.Spec(), y, f, x)
				}
			}
		}
	}
}

// TestNormalizedLong checks the math/big path (B^K > 2^52) against the
// reference: digits from exact arithmetic on the double, edges nearest.
func TestNormalizedLong(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, bk := range [][2]int{{2, 53}, {2, 64}, {10, 16}, {10, 20}, {36, 40}, {7, 200}} {
		tok, _ := NewNormalized(bk[0], bk[1])
		n := bigPowRef(bk[0], bk[1])
		for range 100 {
			y := r.Float64()
			if r.IntN(3) == 0 {
				y = math.Ldexp(y, -r.IntN(1000))
			}
			s := mustEncode(t, tok, y)
			c := mustDecode(t, tok, s)
			if !contains(c, y) {
				t.Fatalf("%s: %v not in its cell [%v, %v)", tok.Spec(), y, c.Lo, c.Hi)
			}
			i := new(big.Int)
			for _, d := range s {
				i.Mul(i, big.NewInt(int64(bk[0])))
				i.Add(i, big.NewInt(int64(d)))
			}
			lo := refNearestFrac(i, n)
			hi := refNearestFrac(new(big.Int).Add(i, bigOne), n)
			if c.Lo != lo || c.Hi != hi {
				t.Fatalf("%s: cell of %v = [%v, %v); want [%v, %v)", tok.Spec(), y, c.Lo, c.Hi, lo, hi)
			}
			for j := range s {
				l, h := tok.Interval(s[:j])
				if !(l <= c.Lo && c.Hi <= h) {
					t.Fatalf("%s: Interval(%d digits) = [%v, %v] misses the cell [%v, %v)", tok.Spec(), j, l, h, c.Lo, c.Hi)
				}
			}
			if l, h := tok.Interval(s); l != c.Lo || h != c.Hi {
				t.Fatalf("%s: Interval of a complete sequence = [%v, %v]; want [%v, %v)", tok.Spec(), l, h, c.Lo, c.Hi)
			}
		}
	}
}

func bigPowRef(b, k int) *big.Int {
	n := big.NewInt(1)
	for range k {
		n.Mul(n, big.NewInt(int64(b)))
	}
	return n
}
