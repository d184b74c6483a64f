package decoreg

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
)

// TestSoftTargets: a decoder trained on soft digit targets differs from
// one without them (the same seed), gives the same model for the same
// seed, is saved and loaded with the setting, and the setting is refused
// out of range or with a tokenization other than the normalized one, and
// ignored by the heads it is not for.
func TestSoftTargets(t *testing.T) {
	x, y := toyData(300, 4)
	base := Config{Head: HeadDecoder, EncLayers: 1, EncWidth: 16, MaxEpochs: 3, Threads: 1, Vocab: "normalized:base=4,length=4"}
	soft := base
	soft.SoftTargets = 0.03
	fit := func(c Config) *Model {
		t.Helper()
		m, err := FitFlat(context.Background(), x, len(y), 1, y, c)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m0, m1, m2 := fit(base), fit(soft), fit(soft)
	opts := PredictOptions{Outputs: OutMean | OutQuantiles}
	p0, _ := m0.PredictFlat(context.Background(), x[:20], 20, opts)
	p1, _ := m1.PredictFlat(context.Background(), x[:20], 20, opts)
	p2, _ := m2.PredictFlat(context.Background(), x[:20], 20, opts)
	if slices.Equal(p0.Mean, p1.Mean) {
		t.Error("soft targets changed nothing")
	}
	if !slices.Equal(p1.Mean, p2.Mean) {
		t.Error("the same seed gave two models")
	}
	if m1.Info().Params != m0.Info().Params {
		t.Errorf("%d parameters with soft targets against %d", m1.Info().Params, m0.Info().Params)
	}
	// Below a fifth of the finest cell (4^-4) no position is soft: the
	// model is the hard one bit for bit; just above it, the last digit's
	// targets are soft and the model differs.
	tiny, small := base, base
	tiny.SoftTargets, small.SoftTargets = 0.9/(5*256), 1.1/(5*256)
	pt, _ := fit(tiny).PredictFlat(context.Background(), x[:20], 20, opts)
	ps, _ := fit(small).PredictFlat(context.Background(), x[:20], 20, opts)
	if !slices.Equal(pt.Mean, p0.Mean) || slices.Equal(ps.Mean, p0.Mean) {
		t.Errorf("SoftTargets %v: the hard model %v (want true); %v: the hard model %v (want false)",
			tiny.SoftTargets, slices.Equal(pt.Mean, p0.Mean), small.SoftTargets, slices.Equal(ps.Mean, p0.Mean))
	}
	back := reload(t, m1)
	p3, _ := back.PredictFlat(context.Background(), x[:20], 20, opts)
	if !slices.Equal(p1.Mean, p3.Mean) || back.Config().SoftTargets != 0.03 {
		t.Errorf("after Save and Load: SoftTargets %v, means equal %v", back.Config().SoftTargets, slices.Equal(p1.Mean, p3.Mean))
	}
	for _, bad := range []float64{-0.1, math.NaN(), math.Inf(1), MaxSoftTargets * 1.01} {
		c := soft
		c.SoftTargets = bad
		var ce *ConfigError
		if _, err := FitFlat(context.Background(), x, len(y), 1, y, c); !errors.As(err, &ce) || ce.Field != "SoftTargets" {
			t.Errorf("SoftTargets %v: %v", bad, err)
		}
	}
	un := soft
	un.Vocab = "unnormalized:base=10,exponent=1,mantissa=3"
	var ce *ConfigError
	if _, err := FitFlat(context.Background(), x, len(y), 1, y, un); !errors.As(err, &ce) || ce.Field != "SoftTargets" {
		t.Errorf("soft targets with an unnormalized tokenization: %v", err)
	}
	mdn := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 16, MaxEpochs: 2, Threads: 1, SoftTargets: 0.03}
	if _, err := FitFlat(context.Background(), x, len(y), 1, y, mdn); err != nil {
		t.Errorf("an MDN with the decoder's SoftTargets set: %v (the field is the decoder's; others ignore it)", err)
	}
}
