package head

import (
	"errors"
	"math"
	"testing"

	"decoreg/dist"
	"decoreg/internal/model"
	"decoreg/vocab"
)

// TestUnits checks each unit map against values worked out by hand for
// targets in [2, 6] (range 4): y = 3 is u = 0.25.
func TestUnits(t *testing.T) {
	for _, c := range []struct {
		m             Map
		t             float64 // head units of y = 3
		offset, scale float64
		logTPerU      float64
	}{
		{U, 0.25, 2, 4, 0},
		{Shifted, -0.25, 4, 4, 0},
		{Raw, 3, 0, 1, math.Log(4)},
	} {
		s := Units{YMin: 2, YMax: 6, Map: c.m}
		if u := s.ToU(3); u != 0.25 {
			t.Errorf("map %d: ToU(3) = %v", c.m, u)
		}
		if got := s.ToHead(0.25); got != c.t {
			t.Errorf("map %d: ToHead(0.25) = %v, want %v", c.m, got, c.t)
		}
		a := s.Affine()
		if a.Offset != c.offset || a.Scale != c.scale {
			t.Errorf("map %d: affine %+v, want offset %v scale %v", c.m, a, c.offset, c.scale)
		}
		if y := a.Offset + a.Scale*c.t; y != 3 {
			t.Errorf("map %d: affine maps %v to %v, not 3", c.m, c.t, y)
		}
		if got := s.LogTPerU(); got != c.logTPerU {
			t.Errorf("map %d: LogTPerU %v, want %v", c.m, got, c.logTPerU)
		}
		if got := s.LogRange(); got != math.Log(4) {
			t.Errorf("map %d: LogRange %v", c.m, got)
		}
	}
}

// TestTable: every head is found by its name and by its network kind,
// and the decoder's units follow its tokenization.
func TestTable(t *testing.T) {
	for _, h := range Heads {
		if Lookup(h.Name) != h || Of(&model.Config{Head: h.Kind}) != h {
			t.Errorf("%s: lookup", h.Name)
		}
	}
	if Lookup("nope") != nil {
		t.Error("unknown head found")
	}
	norm, _ := vocab.Parse("normalized:base=4,length=2")
	unn, _ := vocab.Parse("unnormalized:base=4,exponent=1,mantissa=2,repeat=2")
	d := Lookup("decoder")
	for _, c := range []struct {
		tok  vocab.Tokenizer
		raw  bool
		want Map
	}{{norm, false, U}, {norm, true, U}, {unn, false, Shifted}, {unn, true, Raw}} {
		if got := d.Units(c.tok, c.raw, 0, 1).Map; got != c.want {
			t.Errorf("%s raw %v: map %d, want %d", c.tok.Spec(), c.raw, got, c.want)
		}
	}
}

// TestEncode: targets are clipped to the training range and counted;
// Riemann bins and the decoder's cell widths are as worked out by hand.
func TestEncode(t *testing.T) {
	c := &model.Config{Head: model.Riemann, Bins: 4}
	s := Units{YMin: 0, YMax: 8, Map: U}
	tg, err := Encode(c, s, []float64{-1, 0, 1.9, 2, 7.9, 8, 9})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int32{0, 0, 0, 1, 3, 3, 3}; !equal(tg.Bins, want) || tg.Clipped != 2 {
		t.Errorf("bins %v clipped %d, want %v and 2", tg.Bins, tg.Clipped, want)
	}
	if got := tg.TokenCE(0, 1.5); got != 1.5+math.Log(4) {
		t.Errorf("riemann token CE %v", got)
	}

	tok, _ := vocab.Parse("normalized:base=4,length=2")
	c = &model.Config{Head: model.Decoder, Vocab: tok}
	tg, err = Encode(c, s, []float64{2}) // u = 0.25: tokens 1 0, a cell of width 1/16
	if err != nil {
		t.Fatal(err)
	}
	if tg.Tokens[0] != 1 || tg.Tokens[1] != 0 || !(math.Abs(tg.LogWidthU(0)-math.Log(1.0/16)) <= 1e-15) {
		t.Errorf("tokens %v, log width %v", tg.Tokens, tg.LogWidthU(0))
	}
	// -log P(seq) over 2 tokens: NLL_u = -log P + log(1/16).
	if got, want := tg.TokenCE(0, 3+math.Log(1.0/16)), 1.5; !(math.Abs(got-want) <= 1e-12) {
		t.Errorf("decoder token CE %v, want %v", got, want)
	}
}

// TestDistChecks: non-finite network outputs give ErrOutput, not the
// panics of the dist constructors.
func TestDistChecks(t *testing.T) {
	net := &model.Model{Cfg: model.Config{Head: model.MDN, Components: 2}}
	a := dist.Affine{Offset: 0, Scale: 1}
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		h   string
		out []float64
	}{
		{"pointwise", []float64{nan}},
		{"pointwise", []float64{inf}},
		{"riemann", []float64{0.5, nan}},
		{"riemann", []float64{0, 0}},
		{"riemann", []float64{inf, 0}},
		{"mdn", []float64{nan, 0.5, 0, 0, 1, 1}},
		{"mdn", []float64{0.5, 0.5, inf, 0, 1, 1}},
		{"mdn", []float64{0.5, 0.5, 0, 0, inf, 1}},
		{"mdn", []float64{0, 0, 0, 0, 1, 1}},
		// Finite, but beyond dist.NewMDN's bound (it panicked): a mean
		// and an sd near the largest float64.
		{"mdn", []float64{0.5, 0.5, -1e308, 1e308, 1, 1}},
		{"mdn", []float64{0.5, 0.5, 0, 0, 8e307, 1}},
	} {
		_, err := Lookup(c.h).Dist(Row{Net: net, Out: c.out, Affine: a})
		if !errors.Is(err, ErrOutput) {
			t.Errorf("%s %v: %v", c.h, c.out, err)
		}
	}
	if _, err := Lookup("mdn").Dist(Row{Net: net, Out: []float64{0.5, 0.5, 0, 1, 1, 2}, Affine: a}); err != nil {
		t.Errorf("finite mdn: %v", err)
	}
}

func equal(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A Riemann row with logits uses them, so a bin whose float32 probability
// underflowed to 0 keeps a finite density: softmax(z/T).
func TestRiemannTemperatureFromLogits(t *testing.T) {
	r := Row{Out: []float64{1, 0}, Logits: []float64{0, -200}, Affine: dist.Affine{Offset: 0, Scale: 1}, Temp: 2}
	d, err := riemann.dist(r)
	if err != nil {
		t.Fatal(err)
	}
	// Bin 1 is [0.5, 1] with probability e^-100 / (1 + e^-100), density twice that.
	want := -100 + math.Log(2) - math.Log1p(math.Exp(-100))
	if got := d.LogPDF(0.75); !(math.Abs(got-want) <= 1e-9) {
		t.Errorf("log density in the underflowed bin: %v, want %v", got, want)
	}
	r.Temp = 1 // no temperature: still from the logits, softmax(z)
	d, _ = riemann.dist(r)
	want = -200 + math.Log(2) - math.Log1p(math.Exp(-200))
	if got := d.LogPDF(0.75); !(math.Abs(got-want) <= 1e-9) {
		t.Errorf("without a temperature: %v, want %v", got, want)
	}
	r.Logits = nil // only the probabilities: the one that underflowed is 0
	d, _ = riemann.dist(r)
	if got := d.LogPDF(0.75); !math.IsInf(got, -1) {
		t.Errorf("from probabilities alone: %v, want -Inf (the probability is 0)", got)
	}
}

// SetResolution's prefix: the deepest cell at least the resolution wide,
// whose width rounding does not narrow (base 10's cells meant to be 1e-3
// wide), for a range other than [0, 1]; other tokenizations and heads
// keep the plain NLL.
func TestResolutionPrefix(t *testing.T) {
	s := Units{YMin: 0, YMax: 8, Map: U}
	for _, tc := range []struct {
		vocab string
		res   float64
		n     int // the digits scored
	}{
		{"normalized:base=10,length=3", 1e-3, 3},
		{"normalized:base=10,length=5", 1e-3, 3},
		{"normalized:base=10,length=5", 1e-2, 2},
		{"normalized:base=8,length=8", 1.0 / (1 << 18), 6},
		{"normalized:base=2,length=20", 1.0 / (1 << 18), 18},
		{"normalized:base=4,length=3", 1.0 / (1 << 18), 3},
		{"normalized:base=8,length=2", 1.0 / 8, 1},
		{"normalized:base=8,length=2", 0.2, 0},
		{"unnormalized:base=10,exponent=1,mantissa=4", 1e-3, 7}, // sign, exponent sign and digit, mantissa: none dropped
		{"normalized:base=8,length=6", 0, 6},
	} {
		tok, err := vocab.Parse(tc.vocab)
		if err != nil {
			t.Fatal(err)
		}
		tg, err := Encode(&model.Config{Head: model.Decoder, Vocab: tok}, s, []float64{1, 7.99})
		if err != nil {
			t.Fatal(err)
		}
		tg.SetResolution(tc.res)
		if n := tok.Len() - tg.dropped; n != tc.n {
			t.Errorf("%s at %v: %d digits scored, want %d", tc.vocab, tc.res, n, tc.n)
		}
		if nt, ok := tok.(*vocab.Normalized); ok && tg.dropped > 0 {
			if w := math.Exp(tg.scoredLogW); math.Abs(w-math.Pow(float64(nt.Base()), -float64(tc.n))) > 1e-12*w {
				t.Errorf("%s at %v: cells %v wide", tc.vocab, tc.res, w)
			}
		}
	}
	tg, _ := Encode(&model.Config{Head: model.MDN, Components: 2}, s, []float64{1})
	if tg.SetResolution(1e-3); tg.dropped != 0 {
		t.Errorf("an MDN drops %d tokens", tg.dropped)
	}
}

// TestEncodeCellAsDist: a target is trained (and scored by eval) in the
// cell that its distribution reads at prediction, where t = (y -
// Offset)/Scale (dist.Token, with Affine's offset and scale). Encode took
// t = ToHead(ToU(y)), an ulp off for the unnormalized decoder: with
// --raw-target, 29 in [0, 100] was trained in [28.9, 29), predict read
// [29, 29.1) (104 of 1500 targets of three decimals in [0.1, 0.7] moved);
// shifted, y_max was trained at 0.5, the cell above the one predict read
// (review).
func TestEncodeCellAsDist(t *testing.T) {
	unnorm, _ := vocab.Parse("unnormalized:base=10,exponent=1,mantissa=3")
	norm, _ := vocab.Parse("normalized:base=10,length=3")
	for _, c := range []struct {
		tok    vocab.Tokenizer
		m      Map
		lo, hi float64
		n      int
		yOf    func(i int) float64
	}{
		{unnorm, Raw, 0, 100, 101, func(i int) float64 { return float64(i) }},
		{unnorm, Shifted, 0, 100, 101, func(i int) float64 { return float64(i) }},
		{unnorm, Raw, 0.1, 0.7, 601, func(i int) float64 { return float64(100+i) / 1000 }},
		{unnorm, Shifted, 0.1, 0.7, 601, func(i int) float64 { return float64(100+i) / 1000 }},
		{unnorm, Shifted, 0.13, 0.97, 841, func(i int) float64 { return float64(130+i) / 1000 }},
		{norm, U, 0.1, 0.7, 601, func(i int) float64 { return float64(100+i) / 1000 }},
	} {
		s := Units{YMin: c.lo, YMax: c.hi, Map: c.m}
		a := s.Affine()
		cfg := &model.Config{Head: model.Decoder, Vocab: c.tok}
		ys := make([]float64, c.n)
		for i := range ys {
			ys[i] = c.yOf(i)
		}
		// Beyond the range: clipped to its ends, read there as the ends are.
		ys = append(ys, c.lo-1, c.hi+1)
		tg, err := Encode(cfg, s, ys)
		if err != nil {
			t.Fatal(err)
		}
		moved := 0
		for i, y := range ys {
			yc := min(max(y, c.lo), c.hi)
			want, _, err := c.tok.Encode((yc - a.Offset) / a.Scale)
			if err != nil {
				t.Fatal(err)
			}
			for p, tk := range want {
				if int(tg.Tokens[i*tg.T+p]) != tk {
					moved++
					if moved <= 3 {
						t.Errorf("map %v, [%v, %v]: y = %v trained as %v, read as %v", c.m, c.lo, c.hi, y, tg.Tokens[i*tg.T:(i+1)*tg.T], want)
					}
					break
				}
			}
		}
		if moved > 0 {
			t.Errorf("map %v, [%v, %v]: %d of %d targets trained in another cell than the one read", c.m, c.lo, c.hi, moved, len(ys))
		}
		if tg.Clipped != 2 {
			t.Errorf("map %v: %d clipped, want 2", c.m, tg.Clipped)
		}
	}
}

// TestHeadUnitMaps: each head's units are those of the paper's protocol
// (DESIGN.md §6): y min-max scaled to [0, 1] for the Riemann head and the
// normalized decoder, further shifted by -0.5 for the pointwise and MDN
// heads and the unnormalized decoder, and y itself for --raw-target; the
// pointwise and MDN heads train on u - 0.5 (no test guarded the shift).
func TestHeadUnitMaps(t *testing.T) {
	norm, _ := vocab.Parse("normalized:base=4,length=3")
	unnorm, _ := vocab.Parse("unnormalized:base=10,exponent=1,mantissa=3")
	for _, c := range []struct {
		head string
		tok  vocab.Tokenizer
		raw  bool
		want Map
	}{
		{"riemann", nil, false, U},
		{"decoder", norm, false, U},
		{"pointwise", nil, false, Shifted},
		{"mdn", nil, false, Shifted},
		{"decoder", unnorm, false, Shifted},
		{"decoder", unnorm, true, Raw},
	} {
		if got := Lookup(c.head).Units(c.tok, c.raw, 2, 6).Map; got != c.want {
			t.Errorf("%s (%v, raw %v): map %d, want %d", c.head, c.tok, c.raw, got, c.want)
		}
	}
	for _, c := range []*model.Config{{Head: model.Pointwise}, {Head: model.MDN, Components: 2}} {
		s := Of(c).Units(nil, false, 2, 6)
		tg, err := Encode(c, s, []float64{2, 3, 5.5, 6})
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []float32{-0.5, -0.25, 0.375, 0.5} {
			if tg.Y[i] != want {
				t.Errorf("head %v: target %d is %v, want u - 0.5 = %v", c.Head, i, tg.Y[i], want)
			}
		}
	}
}
