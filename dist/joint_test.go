package dist

import (
	"math"
	"testing"

	"decoreg/vocab"
)

// jointFake is a fakeDec that is a JointDecoder: decoders with the same
// key share Steppers whose sequences each read their own decoder's table.
type jointFake struct {
	*fakeDec
	key    *int
	joints int // StartJoint calls
	jointN []int
}

func (j *jointFake) JointKey() any { return j.key }

func (j *jointFake) StartJoint(decs []Decoder) Stepper {
	s := &jointStep{t: j.t, v: j.v}
	for _, d := range decs {
		o, ok := d.(*jointFake)
		if !ok || o.key != j.key {
			return nil
		}
		s.decs = append(s.decs, o.fakeDec)
		s.seqs = append(s.seqs, nil)
	}
	j.joints++
	j.jointN = append(j.jointN, len(decs))
	return s
}

// jointStep steps sequences of several fakeDecs.
type jointStep struct {
	t       testing.TB
	v       int
	decs    []*fakeDec
	seqs    [][]int
	started bool
}

func (s *jointStep) N() int { return len(s.seqs) }

func (s *jointStep) Step(tokens []int, logits []float32) {
	if !s.started {
		if tokens != nil {
			s.t.Fatalf("first Step with tokens")
		}
		s.started = true
	} else {
		if len(tokens) != len(s.seqs) {
			s.t.Fatalf("Step with %d tokens for %d sequences", len(tokens), len(s.seqs))
		}
		for i, t := range tokens {
			s.seqs[i] = append(s.seqs[i], t)
		}
	}
	if len(logits) != len(s.seqs)*s.v {
		s.t.Fatalf("Step with %d logits, want %d", len(logits), len(s.seqs)*s.v)
	}
	for i, q := range s.seqs {
		copy(logits[i*s.v:(i+1)*s.v], s.decs[i].logits(q))
		s.decs[i].rows++
	}
}

func (s *jointStep) Keep(idx []int) {
	seqs := make([][]int, len(idx))
	decs := make([]*fakeDec, len(idx))
	for i, j := range idx {
		seqs[i] = append([]int(nil), s.seqs[j]...)
		decs[i] = s.decs[j]
	}
	s.seqs, s.decs = seqs, decs
}

// TestPrepareSameAnswers: Prepare over many rows (joint Steppers, walks
// riding the expansion) caches exactly the answers that every Token's own
// methods compute, for normalized (with and without specials) and
// unnormalized trees, at the default and at a tiny expansion threshold and
// under a MaxExpand cap; afterwards those answers cost no decoder work.
func TestPrepareSameAnswers(t *testing.T) {
	specs := []string{"normalized:base=4,length=4", "normalized:base=3,length=5,special=true", "unnormalized:base=4,exponent=1,mantissa=2"}
	optss := []TokenOptions{{}, {MeanTol: 1e-9, Beam: 2}, {MeanTol: -1, MaxExpand: 7, Beam: 1 << 10}}
	qs := []float64{0.05, 0.5, 0.5, 0.95, 0, 1, 0.3, math.NaN(), 1.5, 0.999999}
	for _, spec := range specs {
		tok, err := vocab.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		for oi, opts := range optss {
			key1, key2 := new(int), new(int)
			const rows = 9
			var ds, ref []Distribution
			var fakes []*jointFake
			for i := range rows {
				key := key1
				if i%3 == 2 {
					key = key2 // a second model: its own joint Stepper
				}
				sd := 1.5
				if i == 4 {
					sd = 12 // a peaked row
				}
				f := &jointFake{fakeDec: newFake(t, tok.Size(), uint64(100+i), sd), key: key}
				fakes = append(fakes, f)
				ds = append(ds, NewToken(f, tok, testAff, opts))
				ref = append(ref, NewToken(newFake(t, tok.Size(), uint64(100+i), sd), tok, testAff, opts))
			}
			// A mixture of two rows' Tokens is prepared through its
			// components.
			mix := NewMixture([]Distribution{NewToken(&jointFake{fakeDec: newFake(t, tok.Size(), 7, 2), key: key1}, tok, testAff, opts),
				NewToken(&jointFake{fakeDec: newFake(t, tok.Size(), 8, 2), key: key1}, tok, testAff, opts)})
			mixRef := NewMixture([]Distribution{NewToken(newFake(t, tok.Size(), 7, 2), tok, testAff, opts), NewToken(newFake(t, tok.Size(), 8, 2), tok, testAff, opts)})
			ds, ref = append(ds, mix), append(ref, mixRef)
			// A recalibrated row is prepared through its base.
			rc, err := NewRecalibration([]float64{0, 0.3, 0.7, 1}, []float64{0, 0.2, 0.85, 1})
			if err != nil {
				t.Fatal(err)
			}
			ds = append(ds, NewRecalibrated(NewToken(&jointFake{fakeDec: newFake(t, tok.Size(), 9, 2), key: key1}, tok, testAff, opts), rc))
			ref = append(ref, NewRecalibrated(NewToken(newFake(t, tok.Size(), 9, 2), tok, testAff, opts), rc))

			var reqs []PrepareRequest
			for _, d := range ds {
				reqs = append(reqs, PrepareRequest{d, true, qs, true})
			}
			Prepare(reqs)
			for _, f := range fakes {
				f.reset()
			}
			for i := range ds {
				m, b := meanBound(ds[i])
				wm, wb := meanBound(ref[i])
				if m != wm || b != wb {
					t.Errorf("%s opts %d row %d: prepared MeanBound %v, %v; own %v, %v", spec, oi, i, m, b, wm, wb)
				}
				got, want := Quantiles(ds[i], qs), Quantiles(ref[i], qs)
				for j := range qs {
					if !(got[j] == want[j] || math.IsNaN(got[j]) && math.IsNaN(want[j])) {
						t.Errorf("%s opts %d row %d: prepared Quantile(%v) = %v, own %v", spec, oi, i, qs[j], got[j], want[j])
					}
				}
				if ds[i].Median() != ref[i].Median() {
					t.Errorf("%s opts %d row %d: Median differs", spec, oi, i)
				}
				if ds[i].Mode() != ref[i].Mode() {
					t.Errorf("%s opts %d row %d: prepared Mode %v, own %v", spec, oi, i, ds[i].Mode(), ref[i].Mode())
				}
			}
			for i, f := range fakes {
				if f.starts != 0 || f.rows != 0 {
					t.Errorf("%s opts %d row %d: %d starts, %d sequences stepped after Prepare; want none", spec, oi, i, f.starts, f.rows)
				}
			}
			// Rows of key1 shared one joint Stepper, key2's another.
			if fakes[0].joints != 1 || fakes[2].joints != 1 || fakes[0].jointN[0] != 9 || fakes[2].jointN[0] != 3 {
				t.Errorf("%s opts %d: joint starts %v %v, want one of 9 rows (6, the mixture's 2 and the recalibrated one) and one of 3", spec, oi, fakes[0].jointN, fakes[2].jointN)
			}
		}
	}
}

// TestPrepareWalksRide: with the mean's expansion, the quantile walks add
// no decoder steps and fewer sequences than walking on their own.
func TestPrepareWalksRide(t *testing.T) {
	tok, err := vocab.NewNormalized(4, 5)
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(t, tok.Size(), 3, 1)
	d := NewToken(f, tok, testAff, TokenOptions{})
	qs := []float64{0.1, 0.25, 0.5, 0.75, 0.9}
	Prepare([]PrepareRequest{{d, true, qs, false}})
	if f.starts != 1 || f.steps != tok.Len() {
		t.Errorf("Prepare of one row: %d starts, %d steps; want 1 and %d", f.starts, f.steps, tok.Len())
	}
	both := f.rows
	f2 := newFake(t, tok.Size(), 3, 1)
	d2 := NewToken(f2, tok, testAff, TokenOptions{})
	d2.Mean()
	d2.Quantiles(qs)
	if f2.starts != 2 || both >= f2.rows {
		t.Errorf("mean and quantiles apart: %d starts, %d sequences; together %d", f2.starts, f2.rows, both)
	}
}

// TestPrepareLeavesAlone: distributions that are not tree Tokens, and
// Tokens whose summaries are cached, cost nothing and do not change.
func TestPrepareLeavesAlone(t *testing.T) {
	tok, err := vocab.NewNormalized(4, 3)
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(t, tok.Size(), 3, 1)
	d := NewToken(f, tok, testAff, TokenOptions{})
	m, q, mo := d.Mean(), d.Quantile(0.3), d.Mode()
	f.reset()
	ham, err := vocab.Parse("hamming:length=4")
	if err != nil {
		t.Fatal(err)
	}
	h := NewToken(newFake(t, ham.Size(), 1, 1), ham, testAff, TokenOptions{Samples: 10})
	l := []float64{0.3}
	Prepare([]PrepareRequest{{d, true, l, true}, {h, true, l, true}, {NewRiemann([]float64{0.5, 0.5}, testAff), true, l, true}})
	if f.starts != 0 || d.Mean() != m || d.Quantile(0.3) != q || d.Mode() != mo {
		t.Errorf("a cached Token: %d starts after Prepare", f.starts)
	}
	Prepare(nil)
}

// meanBound is d's MeanBound, or its Mean with bound 0.
func meanBound(d Distribution) (float64, float64) {
	if b, ok := d.(interface{ MeanBound() (float64, float64) }); ok {
		return b.MeanBound()
	}
	return d.Mean(), 0
}

// TestManyLevels: hundreds of levels (past the quantile cache's 64 and
// the walks' scan, so that a map finds their sequences) give the quantiles
// that each level walked alone gives, through Quantiles and through
// Prepare, for a Token and a Mixture.
func TestManyLevels(t *testing.T) {
	tok, err := vocab.NewNormalized(4, 5)
	if err != nil {
		t.Fatal(err)
	}
	var qs []float64
	for i := range 300 {
		qs = append(qs, float64(i)/299)
	}
	qs = append(qs, 0.5, 0.5, math.NaN())
	newTok := func(seed uint64) *Token {
		return NewToken(newFake(t, tok.Size(), seed, 1.2), tok, testAff, TokenOptions{})
	}
	for _, mk := range []func() Distribution{
		func() Distribution { return newTok(5) },
		func() Distribution { return NewMixture([]Distribution{newTok(5), newTok(6)}) },
	} {
		want := make([]float64, len(qs))
		for i, q := range qs {
			want[i] = Quantiles(mk(), []float64{q})[0]
		}
		d := mk()
		got := Quantiles(d, qs)
		p := mk()
		Prepare([]PrepareRequest{{Dist: p, Levels: qs}})
		gotP := Quantiles(p, qs)
		for i := range qs {
			for name, g := range map[string]float64{"Quantiles": got[i], "Prepare": gotP[i]} {
				if !(g == want[i] || math.IsNaN(g) && math.IsNaN(want[i])) {
					t.Fatalf("%T %s: level %v: %v, alone %v", d, name, qs[i], g, want[i])
				}
			}
		}
	}
}
