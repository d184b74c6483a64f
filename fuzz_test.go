package decoreg

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"decoreg/dist"
	"decoreg/internal/modelfile"
)

// fuzzBase is one tiny saved model of each head, the seeds of the Load
// fuzz targets.
type fuzzBase struct {
	header []byte
	params []float32
}

var (
	fuzzBasesOnce sync.Once
	fuzzBases     []fuzzBase
)

func fuzzModels(tb testing.TB) []fuzzBase {
	fuzzBasesOnce.Do(func() {
		for _, cfg := range []Config{tinyDecoder(),
			{Head: HeadDecoder, Vocab: "unnormalized:base=4,exponent=1,mantissa=2", EncLayers: 1, EncWidth: 6, DecWidth: 4, DecHeads: 2},
			{Head: HeadDecoder, Vocab: "unnormalized:base=3,exponent=1,mantissa=2", RawTarget: true, EncLayers: 1, EncWidth: 4, DecWidth: 2, DecHeads: 1},
			{Head: HeadDecoder, Vocab: "hamming:length=3,repeat=2", EncLayers: 1, EncWidth: 4, DecWidth: 2, DecHeads: 1},
			{Head: HeadPointwise, EncLayers: 2, EncWidth: 4, Sigmoid: true},
			{Head: HeadRiemann, EncLayers: 1, EncWidth: 4, Bins: 5},
			{Head: HeadMDN, EncLayers: 1, EncWidth: 4, Components: 2},
		} {
			h, p := savedModel(tb, cfg)
			fuzzBases = append(fuzzBases, fuzzBase{h, p})
		}
	})
	return fuzzBases
}

// FuzzLoad loads any bytes as a model file: no panic, and every error
// names the file. A file that loads is exercised as FuzzLoadHeader does.
func FuzzLoad(f *testing.F) {
	for _, b := range fuzzModels(f) {
		var buf bytes.Buffer
		if err := modelfile.Encode(&buf, b.header, b.params); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Add([]byte("DECOREG\x00"))
	f.Add([]byte("x,y\n1,2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "m.drg")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		loadAndExercise(t, path)
	})
}

// FuzzLoadHeader loads a valid model file whose JSON header is replaced
// by the fuzzer's bytes and, optionally, one of whose parameters is set to
// any float32 bit pattern, with a valid checksum written over the result,
// so that the checksum does not hide the edit from the checks behind it.
// Load must not panic and must name the file in its errors; a model it
// accepts must answer every query without a panic and with finite values
// for inputs at the training mean.
//
// A finite edited parameter is folded into [-16, 16]: huge finite weights
// overflow float32 inside the network, which is inference's to report
// (issue 10, P2), not Load's.
func FuzzLoadHeader(f *testing.F) {
	for i, b := range fuzzModels(f) {
		f.Add(b.header, uint8(i), uint16(0), uint32(0), false)
		f.Add(b.header, uint8(i), uint16(i), math.Float32bits(float32(math.NaN())), true)
	}
	f.Add(editHeader(f, fuzzModels(f)[0].header, func(h map[string]any) { h["y_min"], h["y_max"] = -1e308, 1e308 }),
		uint8(0), uint16(0), uint32(0), false)
	f.Add(editHeader(f, fuzzModels(f)[5].header, setIndex("x_std", 0, 0)), uint8(5), uint16(0), uint32(0), false)
	// Extreme but valid: each must load and answer finitely.
	for i := range fuzzModels(f) {
		for _, edit := range []func(h map[string]any){
			func(h map[string]any) { h["y_min"], h["y_max"] = 0, 5e-324 },
			func(h map[string]any) { h["y_min"], h["y_max"] = -8e307, 8e307 },
			func(h map[string]any) { h["y_min"], h["y_max"] = 1e308, 1.7e308 },
			func(h map[string]any) { h["x_mean"], h["x_std"] = []any{1e308, -1e308}, []any{5e-324, 1e308} },
		} {
			f.Add(editHeader(f, fuzzModels(f)[i].header, edit), uint8(i), uint16(0), uint32(0), false)
		}
	}
	f.Fuzz(func(t *testing.T, header []byte, which uint8, idx uint16, bits uint32, edit bool) {
		bases := fuzzModels(t)
		params := bases[int(which)%len(bases)].params
		if edit {
			params = append([]float32(nil), params...)
			v := math.Float32frombits(bits)
			if !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) {
				v = float32(math.Remainder(float64(v), 16))
			}
			params[int(idx)%len(params)] = v
		}
		loadAndExercise(t, writeModel(t, header, params))
	})
}

// loadAndExercise loads the model at path and, if it loads, runs every
// query at the training mean of x and at the edges of the y range.
func loadAndExercise(t *testing.T, path string) {
	t.Helper()
	m, err := Load(path)
	if err != nil {
		if !strings.Contains(err.Error(), path) {
			t.Fatalf("error does not name the file: %v", err)
		}
		return
	}
	hb, _, err := modelfile.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		XMean []float64 `json:"x_mean"`
	}
	if err := json.Unmarshal(hb, &h); err != nil || len(h.XMean) != m.Features() {
		t.Fatalf("loaded, but x_mean unreadable (%v) or %d values for %d features", err, len(h.XMean), m.Features())
	}
	// Heads with unbounded support (MDN, pointwise, unnormalized
	// decoders) can place values beyond float64 when the y range nears
	// its limit (Fit accepts any finite range): there infinities are
	// accepted, NaN never.
	lo, hi := m.YRange()
	roomy := math.Max(math.Abs(lo), math.Abs(hi)) <= 1e300
	finite := func(what string, v float64) {
		t.Helper()
		if math.IsNaN(v) || roomy && math.IsInf(v, 0) {
			t.Fatalf("%s is %v", what, v)
		}
	}
	x := append(append([]float64(nil), h.XMean...), h.XMean...)
	x = append(x, h.XMean...)
	p, err := m.PredictFlat(context.Background(), x, 3, PredictOptions{Outputs: OutMean | OutMedian | OutMode | OutQuantiles | OutDist,
		Levels: []float64{0, 0.3, 1}})
	if err != nil {
		return // refused at inference, with a reason: not Load's concern
	}
	for i := range 3 {
		finite("mean", p.Mean[i])
		finite("median", p.Median[i])
		finite("mode", p.Mode[i])
		finite("quantile(0.3)", p.Quantiles[1][i])
		for j := range p.Levels { // levels 0 and 1 may be infinite (MDN)
			if math.IsNaN(p.Quantiles[j][i]) {
				t.Fatalf("quantile(%v) is NaN", p.Levels[j])
			}
		}
	}
	mid := lo + (hi-lo)/2
	head := m.Config().Head
	d := p.Dist[0]
	if c := d.CDF(mid); !(c >= 0 && c <= 1) {
		t.Fatalf("CDF(%v) = %v", mid, c)
	}
	finite("quantile(0.7)", d.Quantile(0.7))
	if head != HeadPointwise {
		if v := d.LogPDF(mid); math.IsNaN(v) || math.IsInf(v, 1) {
			t.Fatalf("LogPDF(%v) = %v", mid, v)
		}
	}
	for _, s := range d.Sample(3, dist.SampleOptions{}, rand.New(rand.NewPCG(1, 2))) {
		finite("sample", s)
	}
	e, err := m.Evaluate(context.Background(), x, 3, []float64{lo, hi, mid}, "")
	if err != nil {
		t.Fatalf("Evaluate: %v", err)
	}
	if head != HeadPointwise {
		finite("nll", e.NLL)
		finite("nll_u", e.NLLU)
	}
}
