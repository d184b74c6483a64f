package decoreg

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
)

// TestAuxMSE: the decoder's auxiliary squared error is trained (the model
// differs from one without it, from the same seed), saved and loaded with
// the model (the same predictions, bit for bit), bounded like every
// weight, and ignored by the heads it is not for.
func TestAuxMSE(t *testing.T) {
	x, y := toyData(300, 4)
	base := Config{Head: HeadDecoder, EncLayers: 1, EncWidth: 16, MaxEpochs: 3, Threads: 1, Vocab: "normalized:base=4,length=4"}
	aux := base
	aux.AuxMSE = 50
	m0, err := FitFlat(context.Background(), x, len(y), 1, y, base)
	if err != nil {
		t.Fatal(err)
	}
	m1, err := FitFlat(context.Background(), x, len(y), 1, y, aux)
	if err != nil {
		t.Fatal(err)
	}
	if m1.Config().AuxMSE != 50 || m1.Info().Params != m0.Info().Params+16+1 {
		t.Errorf("AuxMSE %v, %d parameters against %d without it", m1.Config().AuxMSE, m1.Info().Params, m0.Info().Params)
	}
	opts := PredictOptions{Outputs: OutMean | OutQuantiles}
	p0, _ := m0.PredictFlat(context.Background(), x[:20], 20, opts)
	p1, _ := m1.PredictFlat(context.Background(), x[:20], 20, opts)
	if slices.Equal(p0.Mean, p1.Mean) {
		t.Error("the auxiliary loss changed nothing")
	}
	back := reload(t, m1)
	p2, _ := back.PredictFlat(context.Background(), x[:20], 20, opts)
	if !slices.Equal(p1.Mean, p2.Mean) || back.Config().AuxMSE != 50 {
		t.Errorf("after Save and Load: means %v against %v, AuxMSE %v", p2.Mean[:3], p1.Mean[:3], back.Config().AuxMSE)
	}
	for _, bad := range []float64{-1, math.NaN(), math.Inf(1), 1e300, MaxAuxMSE * 1.01} {
		c := aux
		c.AuxMSE = bad
		var ce *ConfigError
		if _, err := FitFlat(context.Background(), x, len(y), 1, y, c); !errors.As(err, &ce) || ce.Field != "AuxMSE" {
			t.Errorf("AuxMSE %v: %v", bad, err)
		}
	}
	mdn := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 16, MaxEpochs: 2, Threads: 1, AuxMSE: 3}
	if _, err := FitFlat(context.Background(), x, len(y), 1, y, mdn); err != nil {
		t.Errorf("an MDN with the decoder's AuxMSE set: %v (the field is the decoder's; others ignore it)", err)
	}
	// Ignored, but saved with the model: a NaN would make the file's JSON
	// fail after training, so it is refused for every head (PLRSigma too).
	for _, c := range []Config{{AuxMSE: math.NaN()}, {PLRSigma: math.Inf(1)}} {
		c.Head, c.EncLayers, c.EncWidth, c.MaxEpochs, c.Threads = HeadMDN, 1, 16, 2, 1
		if _, err := FitFlat(context.Background(), x, len(y), 1, y, c); err == nil {
			t.Errorf("an MDN with %+v: accepted", c)
		}
	}
}
