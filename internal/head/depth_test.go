package head

import (
	"math"
	"math/rand/v2"
	"testing"

	"decoreg/internal/model"
	"decoreg/vocab"
)

// TestDepthScores: at temperature 1 at every depth the levels' NLLs plus
// the cells' log width are RowNLL's mean (the network's own loss, summed
// in float32), with and without a resolution; a level's NLL at another
// temperature is the masked softmax of the logits divided by it, by hand
// from the decoder's own logits (dist.Token's path); and Fit's
// temperatures give each level an NLL no higher than temperature 1's.
func TestDepthScores(t *testing.T) {
	for _, tc := range []struct {
		vocab string
		res   float64
	}{
		{"normalized:base=4,length=4", 0},
		{"normalized:base=2,length=8", 1.0 / 64},
		{"unnormalized:base=10,exponent=1,mantissa=2", 0},
	} {
		tok, err := vocab.Parse(tc.vocab)
		if err != nil {
			t.Fatal(err)
		}
		cfg := model.Config{In: 3, EncLayers: 1, EncWidth: 8, Head: model.Decoder, Vocab: tok, DecLayers: 1, DecWidth: 8, DecHeads: 2, MaskLoss: true, Threads: 1}
		net, err := model.New(cfg, 7)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(3, 4))
		const rows = 60
		xs := make([]float32, rows*3)
		for i := range xs {
			xs[i] = float32(r.NormFloat64())
		}
		y := make([]float64, rows)
		for i := range y {
			y[i] = 8 * r.Float64()
		}
		units := Units{YMin: 0, YMax: 8, Map: U}
		if _, ok := tok.(*vocab.Unnormalized); ok {
			units.Map = Shifted
		}
		tg, err := Encode(&cfg, units, y)
		if err != nil {
			t.Fatal(err)
		}
		tg.SetResolution(tc.res)
		idx := make([]int, rows)
		for i := range idx {
			idx[i] = i
		}
		out := make([]float64, rows)
		tg.RowNLL(net, xs, 3, idx, out)
		want := 0.0
		for _, v := range out {
			want += v / rows
		}
		d := tg.DepthScores(net, xs, 3, idx)
		if d.Levels() != tok.Len()-tg.dropped {
			t.Fatalf("%s: %d levels, want %d", tc.vocab, d.Levels(), tok.Len()-tg.dropped)
		}
		got := 0.0
		for _, w := range d.logW {
			got += w / rows
		}
		for k := range d.Levels() {
			got += d.LevelNLL(k, 1)
		}
		if math.Abs(got-want) > 1e-4 {
			t.Errorf("%s at resolution %v: levels at T=1 sum to %v, RowNLL's mean %v", tc.vocab, tc.res, got, want)
		}
		// Level k at T = 2 from the decoder's own logits (the distribution
		// path: dist.Decoder steps), by hand.
		k := d.Levels() - 1
		hand := 0.0
		for i := range rows {
			phi := make([]float32, cfg.EncWidth)
			net.Encode(xs[i*3:(i+1)*3], 1, phi)
			dec := net.DecoderThreads(phi, 1)
			st := dec.Start(1)
			logits := make([]float32, net.VocabSize())
			toks := tg.Tokens[i*tg.T : (i+1)*tg.T]
			st.Step(nil, logits)
			for j := range k {
				st.Step([]int{int(toks[j])}, logits)
			}
			prefix := make([]int, k)
			for j := range prefix {
				prefix[j] = int(toks[j])
			}
			allowed := tok.Allowed(nil, prefix)
			m := math.Inf(-1)
			for _, u := range allowed {
				m = max(m, float64(logits[u])/2)
			}
			z := 0.0
			for _, u := range allowed {
				z += math.Exp(float64(logits[u])/2 - m)
			}
			hand -= (float64(logits[toks[k]])/2 - m - math.Log(z)) / rows
		}
		if got := d.LevelNLL(k, 2); math.Abs(got-hand) > 1e-4 {
			t.Errorf("%s: level %d at T=2: %v, by hand %v", tc.vocab, k, got, hand)
		}
		ts, nll := d.Fit(0.05, 20)
		// The one temperature t0 of all levels, by a grid: the floor is
		// min(1, t0).
		t0, best := 1.0, math.Inf(1)
		for g := -300; g <= 300; g++ {
			tt := math.Exp(float64(g) / 100)
			if tt < 0.05 || tt > 20 {
				continue
			}
			s := 0.0
			for k := range d.Levels() {
				s += d.LevelNLL(k, tt)
			}
			if s < best {
				t0, best = tt, s
			}
		}
		floor := min(1, t0) * 0.99 // the grid's step
		per := make([]float64, rows)
		d.RowNLL(ts, per)
		sum, rowSum := 0.0, 0.0
		for i, w := range d.logW {
			sum += w / rows
			rowSum += per[i] / rows
		}
		if math.Abs(rowSum-nll) > 1e-12 {
			t.Errorf("%s: RowNLL at Fit's temperatures averages %v, Fit's NLL %v", tc.vocab, rowSum, nll)
		}
		for k, tk := range ts {
			// Each level's temperature is its best at or above the floor
			// min(1, t0): no better nearby (5% either way, within the range).
			for _, f := range []float64{1.05, 1 / 1.05} {
				if u := tk * f; u >= floor && u <= 20 && d.LevelNLL(k, u) < d.LevelNLL(k, tk)-1e-9 {
					t.Errorf("%s: level %d's temperature %v: NLL %v, at %v %v", tc.vocab, k, tk, d.LevelNLL(k, tk), u, d.LevelNLL(k, u))
				}
			}
			if !(tk >= floor && tk <= 20) {
				t.Errorf("%s: level %d's temperature %v outside [%v, 20]", tc.vocab, k, tk, floor)
			}
			sum += d.LevelNLL(k, tk)
		}
		if math.Abs(sum-nll) > 1e-12 || nll > got {
			t.Errorf("%s: Fit's NLL %v, its levels' %v, at T=1 %v", tc.vocab, nll, sum, got)
		}
	}
}
