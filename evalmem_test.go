package decoreg

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"decoreg/dist"
	"decoreg/internal/heapwatch"
)

// TestEvaluateMemoryFlat: Evaluate holds a chunk of rows' distributions
// and network inputs at a time (helper-143): an MDN kept every row's
// distribution (0.85 KB a row), and a token head's NLL pass made every
// row's inputs at once (a PLE encoding's features x bins: 4 GB for 400,000
// rows of 20 features at 64 bins). The scores are those of the whole pass
// (the chunks keep RowNLL's batches).
func TestEvaluateMemoryFlat(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	const rows, d = 20000, 20
	x, y := make([]float64, rows*d), make([]float64, rows)
	for i := range rows {
		s := 0.0
		for j := range d {
			v := r.NormFloat64()
			x[i*d+j] = v
			s += v * v
		}
		y[i] = s + 0.1*r.NormFloat64()
	}
	for _, c := range []struct {
		name string
		cfg  Config
		most uint64
	}{
		{"mdn", Config{Head: HeadMDN, Components: 3}, 8 << 20},                           // every row's distributions: 12 MB
		{"ple", Config{Head: HeadRiemann, InputTransform: "ple", PLEBins: 64}, 48 << 20}, // every row's inputs: 98 MB
	} {
		cfg := c.cfg
		cfg.EncLayers, cfg.EncWidth, cfg.MaxEpochs, cfg.Threads = 1, 8, 1, 1
		m, err := FitFlat(context.Background(), x[:2000*d], 2000, d, y[:2000], cfg)
		if err != nil {
			t.Fatal(err)
		}
		var e *Eval
		peak := heapwatch.PeakLive(func() { e, err = m.Evaluate(context.Background(), x, rows, y, "") })
		t.Logf("%s: %.1f MB live at the peak", c.name, float64(peak)/(1<<20))
		if err != nil {
			t.Fatal(err)
		}
		if peak > c.most {
			t.Errorf("%s: Evaluate of %d rows: %.0f MB live at the peak, want at most %d MB", c.name, rows, float64(peak)/(1<<20), c.most>>20)
		}
		// The same scores as the rows scored in pieces of the chunks' sizes.
		a, err := m.Evaluate(context.Background(), x[:5000*d], 5000, y[:5000], "")
		if err != nil {
			t.Fatal(err)
		}
		b, err := m.Evaluate(context.Background(), x[5000*d:], rows-5000, y[5000:], "")
		if err != nil {
			t.Fatal(err)
		}
		if whole := (a.NLLU*5000 + b.NLLU*(rows-5000)) / rows; !(math.Abs(whole-e.NLLU) <= 1e-12*math.Abs(whole)) {
			t.Errorf("%s: NLL_u %v over the rows, %v from two parts", c.name, e.NLLU, whole)
		}
	}
}

// TestOutLogPDF: OutLogPDF gives each row's Dists(x).LogPDF(y), across
// PredictFlat's chunks of rows, and a Y of another length is refused
// naming it.
func TestOutLogPDF(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 1))
	const rows, d = 1500, 2
	x, y := make([]float64, rows*d), make([]float64, rows)
	for i := range rows {
		x[i*d], x[i*d+1] = r.NormFloat64(), r.NormFloat64()
		y[i] = x[i*d] + x[i*d+1]*x[i*d+1] + 0.1*r.NormFloat64()
	}
	m, err := FitFlat(context.Background(), x, rows, d, y, Config{Head: HeadRiemann, EncLayers: 1, EncWidth: 8, MaxEpochs: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.PredictFlat(context.Background(), x, rows, PredictOptions{Outputs: OutMean | OutLogPDF, Y: y})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := m.Dists(context.Background(), x, rows, dist.TokenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.LogPDF) != rows || p.Dist != nil {
		t.Fatalf("%d log densities for %d rows; distributions kept: %v", len(p.LogPDF), rows, p.Dist != nil)
	}
	for i, dd := range ds {
		if want := dd.LogPDF(y[i]); p.LogPDF[i] != want {
			t.Fatalf("row %d: LogPDF %v, want %v", i, p.LogPDF[i], want)
		}
	}
	var ce *ConfigError
	if _, err := m.PredictFlat(context.Background(), x, rows, PredictOptions{Outputs: OutLogPDF, Y: y[1:]}); !errors.As(err, &ce) || ce.Field != "Y" {
		t.Errorf("a short Y: %v", err)
	}
}
