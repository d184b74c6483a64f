package dist

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"decoreg/vocab"
)

// fakeDec is a Decoder whose next-token logits are an explicit table: for
// every prefix, V logits drawn once from N(0, sd^2) by a generator seeded
// with the prefix (so the table is fixed without enumerating it). Logits of
// tokens the tokenization does not allow are drawn too, so a sampler that
// forgets the mask is caught. It counts its calls and checks the Stepper
// protocol.
type fakeDec struct {
	t       testing.TB
	v       int
	seed    uint64
	sd      float64
	uniform bool // every logit 0
	table   map[uint64][]float32

	starts, steps, rows int // Start calls, Step calls, sequences stepped
	startN              []int
}

func newFake(t testing.TB, v int, seed uint64, sd float64) *fakeDec {
	return &fakeDec{t: t, v: v, seed: seed, sd: sd, table: map[uint64][]float32{}}
}

// key packs a prefix into a uint64 in base v+1 (short prefixes only).
func (f *fakeDec) key(prefix []int) uint64 {
	k := uint64(len(prefix))
	for _, t := range prefix {
		k = k*uint64(f.v+1) + uint64(t+1)
	}
	return k
}

func (f *fakeDec) logits(prefix []int) []float32 {
	k := f.key(prefix)
	if l, ok := f.table[k]; ok {
		return l
	}
	l := make([]float32, f.v)
	if !f.uniform {
		r := rand.New(rand.NewPCG(f.seed, k))
		for i := range l {
			l[i] = float32(f.sd * r.NormFloat64())
		}
	}
	f.table[k] = l
	return l
}

// prob is the test's own masked softmax: P(tok | prefix) over allowed.
func (f *fakeDec) prob(prefix []int, allowed []int, tok int) float64 {
	l := f.logits(prefix)
	m := math.Inf(-1)
	for _, a := range allowed {
		m = max(m, float64(l[a]))
	}
	s, pt := 0.0, 0.0
	for _, a := range allowed {
		e := math.Exp(float64(l[a]) - m)
		s += e
		if a == tok {
			pt = e
		}
	}
	return pt / s
}

func (f *fakeDec) Start(n int) Stepper {
	f.starts++
	f.startN = append(f.startN, n)
	return &fakeStep{f: f, seqs: make([][]int, n)}
}

func (f *fakeDec) reset() { f.starts, f.steps, f.rows, f.startN = 0, 0, 0, nil }

type fakeStep struct {
	f       *fakeDec
	seqs    [][]int
	started bool
}

func (s *fakeStep) N() int { return len(s.seqs) }

func (s *fakeStep) Step(tokens []int, logits []float32) {
	f := s.f
	if !s.started {
		if tokens != nil {
			f.t.Fatalf("first Step with tokens")
		}
		s.started = true
	} else {
		if len(tokens) != len(s.seqs) {
			f.t.Fatalf("Step with %d tokens for %d sequences", len(tokens), len(s.seqs))
		}
		for i, t := range tokens {
			s.seqs[i] = append(s.seqs[i], t)
		}
	}
	if len(logits) != len(s.seqs)*f.v {
		f.t.Fatalf("Step with %d logits, want %d", len(logits), len(s.seqs)*f.v)
	}
	f.steps++
	f.rows += len(s.seqs)
	for i, q := range s.seqs {
		copy(logits[i*f.v:(i+1)*f.v], f.logits(q))
	}
}

func (s *fakeStep) Keep(idx []int) {
	seqs := make([][]int, len(idx))
	for i, j := range idx {
		seqs[i] = append([]int(nil), s.seqs[j]...)
	}
	s.seqs = seqs
}

// bfSeq is one complete sequence with its probability and cell.
type bfSeq struct {
	toks []int
	p    float64 // unconditional probability under the masked softmax
	cell vocab.Cell
}

// brute enumerates every valid sequence of tok with tok.Allowed (not
// Children) and its probability under f, by the test's own softmax.
func brute(t testing.TB, f *fakeDec, tok vocab.Tokenizer) []bfSeq {
	var out []bfSeq
	var rec func(prefix []int, p float64)
	rec = func(prefix []int, p float64) {
		if len(prefix) == tok.Len() {
			c, err := tok.Decode(prefix)
			if err != nil {
				t.Fatalf("Decode(%v): %v", prefix, err)
			}
			out = append(out, bfSeq{append([]int(nil), prefix...), p, c})
			return
		}
		allowed := tok.Allowed(nil, prefix)
		for _, a := range allowed {
			rec(append(prefix, a), p*f.prob(prefix, allowed, a))
		}
	}
	rec(make([]int, 0, tok.Len()), 1)
	return out
}

// bfCell is a finite cell with its probability conditional on being finite
// (several sequences may share one under Repeat).
type bfCell struct {
	lo, hi, center float64
	p              float64
}

// finiteCells merges the sequences into cells, conditions on a finite
// value, and sorts by lower edge; pSpecial is the special mass.
func finiteCells(seqs []bfSeq) (cells []bfCell, pSpecial float64) {
	m := map[[2]float64]int{}
	for _, s := range seqs {
		if s.cell.Kind != vocab.Finite {
			pSpecial += s.p
			continue
		}
		k := [2]float64{s.cell.Lo, s.cell.Hi}
		if i, ok := m[k]; ok {
			cells[i].p += s.p
			continue
		}
		m[k] = len(cells)
		cells = append(cells, bfCell{s.cell.Lo, s.cell.Hi, s.cell.Center, s.p})
	}
	for i := range cells {
		cells[i].p /= 1 - pSpecial
	}
	sort.Slice(cells, func(i, j int) bool { return cells[i].lo < cells[j].lo })
	return cells, pSpecial
}

// bfCDF is the piecewise-linear CDF of the cells at head-unit t.
func bfCDF(cells []bfCell, t float64) float64 {
	s := 0.0
	for _, c := range cells {
		switch {
		case t >= c.hi:
			s += c.p
		case t > c.lo:
			s += c.p * (t - c.lo) / (c.hi - c.lo)
		}
	}
	return s
}

// bfQuantile inverts bfCDF by bisection over the cells' range (every cell
// has positive mass, so the CDF is strictly increasing there).
func bfQuantile(cells []bfCell, q float64) float64 {
	lo, hi := cells[0].lo, cells[len(cells)-1].hi
	for range 200 {
		mid := 0.5*lo + 0.5*hi
		if mid == lo || mid == hi {
			break
		}
		if bfCDF(cells, mid) < q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 0.5*lo + 0.5*hi
}

func bfMean(cells []bfCell) float64 {
	s := 0.0
	for _, c := range cells {
		s += c.p * (c.lo + c.hi) / 2
	}
	return s
}

func parseTok(t testing.TB, spec string) vocab.Tokenizer {
	tok, err := vocab.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// near reports |a-b| <= tol*max(1,|b|).
func near(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*max(1, math.Abs(b))
}

// chiSquare returns the statistic and degrees of freedom of observed
// counts against probabilities p (n draws), pooling cells expected below 5.
func chiSquare(counts []int, p []float64, n int) (stat float64, df int) {
	var poolO, poolE float64
	for i, c := range counts {
		e := p[i] * float64(n)
		if e < 5 {
			poolO += float64(c)
			poolE += e
			continue
		}
		stat += (float64(c) - e) * (float64(c) - e) / e
		df++
	}
	if poolE > 0 {
		stat += (poolO - poolE) * (poolO - poolE) / poolE
		df++
	} else if poolO > 0 {
		return math.Inf(1), df
	}
	return stat, df - 1
}

// chiOK is a deterministic acceptance bound, about p = 1e-6.
func chiOK(stat float64, df int) bool {
	return stat <= float64(df)+7*math.Sqrt(2*float64(df))+10
}
