package decoreg

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"decoreg/internal/train"
)

// atomData returns rows whose targets sit on the integers 0..8, set by the
// first of two features (plus a few continuous ones at the ends, so that
// the atoms are not on the edges of the tokenization's cells).
func atomData(n int, seed uint64) (x, y []float64) {
	r := rand.New(rand.NewPCG(seed, 1))
	for i := range n {
		k := r.IntN(9)
		x = append(x, float64(k)+0.1*r.NormFloat64(), r.NormFloat64())
		switch i {
		case 0:
			y = append(y, -1.37)
		case 1:
			y = append(y, 10.21)
		default:
			y = append(y, float64(k))
		}
	}
	return x, y
}

// A decoder's validation NLL at a resolution is the density averaged over
// the resolution's cell of u that holds the target, from the predictive
// CDF (an independent path: dist.Token's CDF, not the training loss);
// it is the plain NLL to the bit where the cells are that wide, and never
// below log(resolution).
func TestValNLLAtResolution(t *testing.T) {
	x, y := atomData(600, 1)
	for _, tc := range []struct {
		vocab string
		res   float64
		finer bool // cells narrower than res
	}{
		{"normalized:base=8,length=6", 1.0 / (1 << 12), true},
		{"normalized:base=4,length=8", 1.0 / (1 << 12), true},
		{"normalized:base=2,length=12", 1.0 / (1 << 12), false}, // exactly res wide
		{"normalized:base=8,length=3", 1.0 / (1 << 12), false},
		// Cells meant to be 1e-3 wide, some a few ulps narrower.
		{"normalized:base=10,length=3", 1e-3, false},
		{"normalized:base=10,length=5", 1e-3, true},
	} {
		res := tc.res
		cfg := Config{Head: HeadDecoder, Vocab: tc.vocab, EncLayers: 1, EncWidth: 32, MaxEpochs: 15, Patience: 100, LR: 3e-3, Seed: 2, Threads: 1}
		m, err := FitFlat(context.Background(), x, len(y), 2, y, cfg)
		if err != nil {
			t.Fatal(err)
		}
		base := DefaultConfig(cfg)
		plain, err := valRowNLL([]*Model{m}, x, len(y), 2, y, base, 0)
		if err != nil {
			t.Fatal(err)
		}
		at, err := valRowNLL([]*Model{m}, x, len(y), 2, y, base, res)
		if err != nil {
			t.Fatal(err)
		}
		val, _ := train.Split(len(y), base.ValFrac, base.Seed)
		lo, hi := m.YRange()
		var below int
		for k, i := range val {
			if !tc.finer {
				if at[0][k] != plain[0][k] {
					t.Fatalf("%s row %d: %v at the resolution, %v plain: cells as wide must score the same", tc.vocab, i, at[0][k], plain[0][k])
				}
				continue
			}
			if at[0][k] < math.Log(res)-1e-9 {
				t.Fatalf("%s row %d: %v below log(res) %v", tc.vocab, i, at[0][k], math.Log(res))
			}
			if at[0][k] < plain[0][k]-1e-9 {
				below++
			}
			d, err := m.Dist(x[2*i : 2*i+2])
			if err != nil {
				t.Fatal(err)
			}
			u := (y[i] - lo) / (hi - lo)
			a := math.Floor(u/res) * res
			p := d.CDF(lo+(a+res)*(hi-lo)) - d.CDF(lo+a*(hi-lo))
			want := -math.Log(p / res)
			if math.Abs(at[0][k]-want) > 1e-3*max(1, math.Abs(want)) {
				t.Fatalf("%s row %d (y %v): %v at the resolution, want %v from the CDF (plain %v)", tc.vocab, i, y[i], at[0][k], want, plain[0][k])
			}
		}
		if tc.finer && below > len(val)/2 {
			t.Fatalf("%s: %d of %d rows scored lower at the resolution than plain", tc.vocab, below, len(val))
		}
		var sp, sa float64
		for k := range val {
			sp += plain[0][k]
			sa += at[0][k]
		}
		t.Logf("%s: mean NLL_u plain %.3f, at %v %.3f", tc.vocab, sp/float64(len(val)), res, sa/float64(len(val)))
	}
}

// Tune compares its trials at TuneOptions.Resolution: on targets on a few
// values a finer tokenization no longer wins by its cells' width; every
// trial's validation loss is then at least log(Resolution); a negative
// Resolution compares plain NLLs; NaN and 1 are refused.
func TestTuneResolution(t *testing.T) {
	x, y := atomData(500, 3)
	base := Config{Head: HeadDecoder, Vocab: "normalized:base=8,length=4", EncLayers: 1, EncWidth: 32, MaxEpochs: 12, Patience: 3, LR: 3e-3, Seed: 1, Threads: 1}
	grid := func(Config) []tuneAxis {
		return []tuneAxis{{"vocab", []string{"normalized:base=8,length=8"}, func(c *Config, v string) { c.Vocab = v }}}
	}
	run := func(res float64) *TuneReport {
		_, rep, err := Tune(context.Background(), x, len(y), 2, y, base, TuneOptions{Trials: 2, Rung: 12, Budget: time.Minute, Resolution: res, grid: grid})
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range rep.Trials {
			t.Logf("resolution %v: %d %s loss %.3f chosen %v", rep.Resolution, tr.N, tr.Label, tr.ValLoss, tr.Chosen)
		}
		return rep
	}
	plain := run(-1)
	if plain.Resolution != 0 || !plain.Trials[1].Chosen || plain.Trials[1].ValLoss > plain.Trials[0].ValLoss-math.Log(8) {
		t.Fatalf("plain NLL: the finer trial should win by its cells (about log 8^4 on atoms): %+v", plain.Trials)
	}
	rep := run(0)
	if rep.Resolution != DefaultTuneResolution {
		t.Fatalf("resolution %v, want the default %v", rep.Resolution, DefaultTuneResolution)
	}
	rep = run(1.0 / (1 << 12)) // the base's cells
	for _, tr := range rep.Trials {
		if tr.ValLoss < math.Log(1.0/(1<<12))-1e-9 {
			t.Fatalf("trial %d: loss %v below log(resolution)", tr.N, tr.ValLoss)
		}
	}
	if d := math.Abs(rep.Trials[1].ValLoss - rep.Trials[0].ValLoss); d > 1 {
		t.Fatalf("at the base's resolution the trials differ by %.2f nats: %+v", d, rep.Trials)
	}
	for _, bad := range []float64{math.NaN(), 1, 2, 0.2} { // 0.2: wider than base 8's first digit

		_, _, err := Tune(context.Background(), x, len(y), 2, y, base, TuneOptions{Trials: 2, Resolution: bad, grid: grid})
		if err == nil || !strings.Contains(err.Error(), "Resolution") {
			t.Fatalf("Resolution %v: %v", bad, err)
		}
	}
}

// The resolution applies where every trial is a decoder of the normalized
// tokenization; elsewhere Tune compares plain NLLs and says so.
func TestTuneResolutionApplies(t *testing.T) {
	norm := Config{Head: HeadDecoder, Vocab: "normalized:base=8,length=4"}
	for _, tc := range []struct {
		cfgs []Config
		want float64
	}{
		{[]Config{norm, {Head: HeadDecoder, Vocab: "normalized:base=2,length=8"}}, 1e-3},
		{[]Config{{Head: HeadDecoder, Vocab: "hamming:length=12"}, norm}, 0},
		{[]Config{{Head: HeadDecoder, Vocab: "normalized:base=8,length=4,repeat=2"}, norm}, 0},
		{[]Config{{Head: HeadDecoder, Vocab: "unnormalized:base=10,exponent=1,mantissa=4"}}, 0},
		{[]Config{{Head: HeadMDN}}, 0},
		{[]Config{{Head: HeadRiemann, Bins: 1 << 20}}, 0},
	} {
		got, err := tuneResolution(tc.cfgs, 1e-3)
		if err != nil || got != tc.want {
			t.Errorf("%+v: %v, %v; want %v", tc.cfgs, got, err, tc.want)
		}
	}
	if _, err := tuneResolution([]Config{norm, {Head: HeadDecoder, Vocab: "normalized:base=10,length=4"}}, 0.11); err == nil || !strings.Contains(err.Error(), "1/10") {
		t.Errorf("a resolution wider than base 10's first digit: %v", err)
	}
	x, y := atomData(200, 5)
	_, rep, err := Tune(context.Background(), x, len(y), 2, y, Config{Head: HeadDecoder, Vocab: "hamming:length=10", EncLayers: 1, EncWidth: 8, MaxEpochs: 2, Threads: 1},
		TuneOptions{Trials: 2, Rung: 1, Budget: time.Minute})
	if err != nil || rep.Resolution != 0 {
		t.Fatalf("a Hamming base: resolution %v, %v", rep.Resolution, err)
	}
}
