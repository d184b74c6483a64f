package decoreg

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"decoreg/dist"
	"decoreg/internal/modelfile"
)

// smallPLR is small(h, spec) on a small PLR encoder.
func smallPLR(h Head, vocabSpec string) Config {
	c := small(h, vocabSpec)
	c.Encoder, c.PLRFrequencies, c.PLRDim, c.PLRSigma = EncoderPLR, 6, 4, 0.3
	return c
}

// TestPLRConfig: the encoder defaults to mlp, PLR's sizes default (to the
// rtdl_num_embeddings values) only for the plr encoder, and bad values
// are ConfigErrors naming their field; the MLP encoder ignores the PLR
// fields, as heads ignore other heads' fields, unless they are negative.
func TestPLRConfig(t *testing.T) {
	if c := DefaultConfig(Config{}); c.Encoder != EncoderMLP || c.PLRFrequencies != 0 || c.PLRDim != 0 || c.PLRSigma != 0 {
		t.Errorf("mlp defaults: %+v", c)
	}
	c := DefaultConfig(Config{Encoder: EncoderPLR})
	if c.PLRFrequencies != 48 || c.PLRDim != 24 || c.PLRSigma != 0.01 {
		t.Errorf("plr defaults: %d frequencies, dim %d, sigma %v", c.PLRFrequencies, c.PLRDim, c.PLRSigma)
	}
	if err := (Config{PLRFrequencies: 3, PLRDim: 1 << 30, PLRSigma: 2e9}).Validate(); err != nil {
		t.Errorf("mlp encoder with PLR fields out of their range: %v", err)
	}
	// But for negative ones, a mistake the model file would keep.
	if err := (Config{PLRFrequencies: -3, PLRDim: -1, PLRSigma: -2}).Validate(); !errors.As(err, new(*ConfigError)) {
		t.Errorf("mlp encoder with negative PLR fields: %v", err)
	}
	// Except a sigma that is not finite: ignored, it would still be saved,
	// and a model file's JSON holds no NaN or Inf.
	var ce *ConfigError
	if err := (Config{PLRSigma: math.NaN()}).Validate(); !errors.As(err, &ce) || ce.Field != "PLRSigma" {
		t.Errorf("mlp encoder with PLRSigma NaN: %v", err)
	}
	for field, c := range map[string]Config{
		"Encoder":        {Encoder: "tree"},
		"PLRFrequencies": {Encoder: EncoderPLR, PLRFrequencies: -1},
		"PLRDim":         {Encoder: EncoderPLR, PLRDim: MaxWidth + 1},
		"PLRSigma":       {Encoder: EncoderPLR, PLRSigma: -0.5},
	} {
		var ce *ConfigError
		if err := c.Validate(); !errors.As(err, &ce) || ce.Field != field || !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v", field, err)
		}
	}
	for _, c := range []Config{
		{Encoder: EncoderPLR, PLRFrequencies: MaxPLRFrequencies + 1},
		{Encoder: EncoderPLR, PLRSigma: math.Inf(1)},
		{Encoder: EncoderPLR, PLRSigma: math.NaN()},
	} {
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v accepted: %v", c, err)
		}
	}
}

// TestPLRSaveLoad: a PLR model's file records the encoder and its sizes
// and loads to the same predictions, bit for bit; an MLP model's file
// leaves the encoder out (as files written before PLR).
func TestPLRSaveLoad(t *testing.T) {
	for _, cfg := range []Config{smallPLR(HeadMDN, ""), smallPLR(HeadDecoder, "normalized:base=4,length=3")} {
		m := fit(t, cfg, true)
		path := filepath.Join(t.TempDir(), "m")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		keys := strings.Join(headerKeys(t, path), " ")
		for _, k := range []string{"encoder", "plr_frequencies", "plr_dim", "plr_sigma"} {
			if !strings.Contains(keys, k) {
				t.Errorf("%s: header keys %s lack %s", cfg.Head, keys, k)
			}
		}
		l, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if l.Config() != m.Config() {
			t.Errorf("%s: loaded config %+v, saved %+v", cfg.Head, l.Config(), m.Config())
		}
		x := []float64{-1.5, -0.3, 0, 0.7, 1.9}
		opts := PredictOptions{Outputs: OutMean | OutMedian | OutQuantiles}
		a, err := m.PredictFlat(context.Background(), x, len(x), opts)
		if err != nil {
			t.Fatal(err)
		}
		b, err := l.PredictFlat(context.Background(), x, len(x), opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range x {
			if a.Mean[i] != b.Mean[i] || a.Median[i] != b.Median[i] || a.Quantiles[0][i] != b.Quantiles[0][i] {
				t.Errorf("%s row %d: loaded model predicts %v %v, saved %v %v", cfg.Head, i, b.Mean[i], b.Median[i], a.Mean[i], a.Median[i])
			}
		}
	}
	m := fit(t, small(HeadMDN, ""), false)
	path := filepath.Join(t.TempDir(), "m")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	if keys := strings.Join(headerKeys(t, path), " "); strings.Contains(keys, "encoder") || strings.Contains(keys, "plr") {
		t.Errorf("mlp model file has header keys %s", keys)
	}
	if l, err := Load(path); err != nil || l.Config().Encoder != EncoderMLP {
		t.Errorf("mlp model loads as %+v, %v", l.Config(), err)
	}
}

// TestPLRDeterministic: the same seed and thread count give the same PLR
// model; another seed does not.
func TestPLRDeterministic(t *testing.T) {
	cfg := smallPLR(HeadRiemann, "")
	cfg.Threads = 2
	a, b := fit(t, cfg, true), fit(t, cfg, true)
	cfg.Seed++
	c := fit(t, cfg, true)
	pa, pb, pc := a.net.Params(), b.net.Params(), c.net.Params()
	if len(pa) != a.Info().Params || len(pa) != len(pc) {
		t.Fatalf("%d parameters, Info says %d, other seed %d", len(pa), a.Info().Params, len(pc))
	}
	if diff := sameParams(t, pa, pb, pc); diff < len(pa)/2 {
		t.Errorf("seeds %d and %d share %d of %d parameters", cfg.Seed-1, cfg.Seed, len(pa)-diff, len(pa))
	}
	// 1 feature: PLR adds K + D*2K + D parameters and widens the MLP's
	// first layer from 1 to D inputs.
	mlp := fit(t, small(HeadRiemann, ""), false)
	K, D, W := cfg.PLRFrequencies, cfg.PLRDim, cfg.EncWidth
	if got, want := len(pa)-mlp.Info().Params, K+D*2*K+D+(D-1)*W; got != want {
		t.Errorf("PLR adds %d parameters, want %d", got, want)
	}
}

// sinData is y = sin(8x), x ~ U(-1, 1): two and a half periods, which an
// MLP on the standardised x fits only slowly.
func sinData(n int) (x, y []float64) {
	r := rand.New(rand.NewPCG(5, 1))
	x, y = make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = 2*r.Float64() - 1
		y[i] = math.Sin(8 * x[i])
	}
	return x, y
}

// TestPLRLearnsSin: on y = sin(8x) the PLR encoder's training loss after
// 10 epochs is far below the MLP's (measured 30x at this seed, and
// at least 23x at seeds 1 to 8; the test asks for 5x). The frequency
// scale sigma is 0.3: at the default 0.01 the periodic features of a
// standardised x are nearly linear at first, and 10 epochs do not tell
// the encoders apart.
func TestPLRLearnsSin(t *testing.T) {
	x, y := sinData(1000)
	loss := func(enc string) float64 {
		cfg := Config{Head: HeadPointwise, Encoder: enc, EncLayers: 2, EncWidth: 32, MaxEpochs: 10, BatchSize: 32, LR: 3e-3,
			ValFrac: -1, Seed: 1, Threads: 1}
		if enc == EncoderPLR {
			cfg.PLRFrequencies, cfg.PLRDim, cfg.PLRSigma = 16, 8, 0.3
		}
		var last float64
		if _, err := FitFlat(context.Background(), x, len(y), 1, y, cfg, WithProgress(func(p Progress) { last = p.TrainLoss })); err != nil {
			t.Fatal(err)
		}
		return last
	}
	mlp, plr := loss(EncoderMLP), loss(EncoderPLR)
	t.Logf("training MSE (head units) after 10 epochs: mlp %.3g, plr %.3g", mlp, plr)
	if !(plr < mlp/5) {
		t.Errorf("plr's training loss %.3g is not well below mlp's %.3g", plr, mlp)
	}
}

// TestPLRHeads: every head trains on the PLR encoder and predicts finite
// values through Predict and the batched Dists path, which agree.
func TestPLRHeads(t *testing.T) {
	for _, cfg := range []Config{
		smallPLR(HeadDecoder, "normalized:base=4,length=3"),
		smallPLR(HeadDecoder, "unnormalized:base=4,exponent=1,mantissa=2"),
		smallPLR(HeadPointwise, ""),
		smallPLR(HeadRiemann, ""),
		smallPLR(HeadMDN, ""),
	} {
		m := fit(t, cfg, true)
		x := []float64{-1.9, -0.5, 0.2, 1.1}
		p, err := m.PredictFlat(context.Background(), x, len(x), PredictOptions{Outputs: OutMean})
		if err != nil {
			t.Fatal(err)
		}
		ds, err := m.Dists(context.Background(), x, len(x), dist.TokenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range p.Mean {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s %s: mean %v", cfg.Head, cfg.Vocab, v)
			}
			if cfg.Head != HeadPointwise {
				if d, err := m.Dist(x[i : i+1]); err != nil || !(math.Abs(d.Median()-ds[i].Median()) <= 1e-5*(1+math.Abs(d.Median()))) {
					t.Errorf("%s %s row %d: Dist median %v, Dists %v (%v)", cfg.Head, cfg.Vocab, i, d.Median(), ds[i].Median(), err)
				}
			}
		}
	}
}

// TestPLRModelCheck: saved PLR models pass the file check, a file whose
// PLR sizes disagree with its parameters is refused, and a small file
// that claims huge PLR sizes is refused before the network is allocated.
func TestPLRModelCheck(t *testing.T) {
	for _, cfg := range []Config{
		{Head: HeadPointwise, EncLayers: 1, EncWidth: 4, Encoder: EncoderPLR, PLRFrequencies: 1, PLRDim: 1},
		{Head: HeadMDN, EncLayers: 2, EncWidth: 4, Components: 2, Encoder: EncoderPLR},
		{Head: HeadDecoder, Vocab: "normalized:base=4,length=3", EncLayers: 1, EncWidth: 8, DecWidth: 4, DecHeads: 1, Encoder: EncoderPLR, PLRFrequencies: 3, PLRDim: 2},
	} {
		header, params := savedModel(t, cfg)
		if _, err := Load(writeModel(t, header, params)); err != nil {
			t.Errorf("%s: %v", cfg.Head, err)
		}
	}
	cfg := Config{Head: HeadPointwise, EncLayers: 1, EncWidth: 4, Encoder: EncoderPLR, PLRFrequencies: 3, PLRDim: 2}
	header, params := savedModel(t, cfg)
	for _, edit := range []func(h map[string]any){
		setConfig("plr_dim", 3), setConfig("plr_frequencies", 2), setConfig("encoder", "mlp"),
		func(h map[string]any) { delete(h["config"].(map[string]any), "encoder") },
	} {
		path := writeModel(t, editHeader(t, header, edit), params)
		if _, err := Load(path); !errors.Is(err, modelfile.ErrNotModel) || !strings.Contains(err.Error(), path) {
			t.Errorf("edited file: %v", err)
		}
	}
	path := writeModel(t, editHeader(t, header, setConfig("plr_dim", 4096)), params)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Load(path)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, modelfile.ErrNotModel) {
		t.Fatalf("huge plr_dim: %v", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Errorf("Load allocated %d bytes for a %d-parameter file", n, len(params))
	}
}
