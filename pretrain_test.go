package decoreg

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"testing"
	"time"
)

// TestPretrainConfig: Pretrain is "" or "pointwise", not for the
// pointwise head nor with AuxMSE; each refusal a ConfigError naming its
// field.
func TestPretrainConfig(t *testing.T) {
	for _, h := range []Head{HeadDecoder, HeadRiemann, HeadMDN} {
		if err := (Config{Head: h, Pretrain: PretrainPointwise}).Validate(); err != nil {
			t.Errorf("%s: %v", h, err)
		}
	}
	for _, tc := range []struct {
		cfg   Config
		field string
	}{
		{Config{Head: HeadPointwise, Pretrain: PretrainPointwise}, "Pretrain"},
		{Config{Pretrain: "mse"}, "Pretrain"},
		{Config{Pretrain: "Pointwise"}, "Pretrain"},
		{Config{Pretrain: PretrainPointwise, AuxMSE: 10}, "AuxMSE"},
	} {
		var ce *ConfigError
		if err := tc.cfg.Validate(); !errors.As(err, &ce) || ce.Field != tc.field {
			t.Errorf("%+v: %v, want a ConfigError on %s", tc.cfg, err, tc.field)
		}
	}
}

// TestPretrain: with Pretrain, every member's encoder is, bit for bit,
// the encoder of the pointwise model that FitFlat trains with the same
// settings and seed (an independent run of the pointwise head), and
// the heads are trained on it (they differ from an untrained model's);
// the pretraining's epochs are reported as Progress.Pretrain, its end
// in TrainInfo.Pretrain, and both survive Save and Load.
func TestPretrain(t *testing.T) {
	x, y := toyData(400, 1)
	for _, hc := range headCases {
		t.Run(hc.name, func(t *testing.T) {
			cfg := hc.cfg
			cfg.Ensemble = 2
			cfg.MaxEpochs = 4
			pc := cfg
			pc.Head, pc.Vocab = HeadPointwise, ""
			pw, err := FitFlat(context.Background(), x, len(y), 1, y, pc)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Pretrain = PretrainPointwise
			var pre, head int
			m, err := FitFlat(context.Background(), x, len(y), 1, y, cfg, WithProgress(func(p Progress) {
				if p.Members != 2 || p.Member < 0 || p.Member > 1 {
					t.Errorf("member %d of %d (pretraining %v)", p.Member, p.Members, p.Pretrain)
				}
				if p.Pretrain {
					pre++
					if head > 0 && p.Member == 0 {
						t.Error("a pretraining epoch of member 0 after its head's")
					}
				} else {
					head++
				}
			}))
			if err != nil {
				t.Fatal(err)
			}
			if pre == 0 || head == 0 {
				t.Errorf("%d pretraining and %d head epochs reported", pre, head)
			}
			untrained := fit(t, hc.cfg, false)
			for k := range 2 {
				got, want := m.Members()[k].net, pw.Members()[k].net
				n := got.EncoderParams()
				if n == 0 || n != want.EncoderParams() {
					t.Fatalf("member %d: encoder of %d and %d parameters", k, n, want.EncoderParams())
				}
				for i, v := range got.Params()[:n] {
					if math.Float32bits(v) != math.Float32bits(want.Params()[i]) {
						t.Fatalf("member %d: encoder parameter %d is %v, the pointwise model's %v", k, i, v, want.Params()[i])
					}
				}
				if k == 0 {
					if diff := sameParams(t, got.Params()[n:], got.Params()[n:], untrained.net.Params()[n:]); diff < (len(got.Params())-n)/2 {
						t.Errorf("the head differs from an untrained one in %d of %d parameters", diff, len(got.Params())-n)
					}
				}
			}
			info := m.Info()
			if info.Pretrain == nil || info.Pretrain.Epochs < 1 || info.Pretrain.BestEpoch < 1 || info.Pretrain.Stopped == "" {
				t.Fatalf("TrainInfo.Pretrain %+v", info.Pretrain)
			}
			if pw0 := pw.Members()[0].Info(); info.Pretrain.Epochs != pw0.Epochs || info.Pretrain.BestValLoss != pw0.BestValLoss {
				t.Errorf("pretraining %+v, the pointwise model's epochs %d, val loss %v", info.Pretrain, pw0.Epochs, pw0.BestValLoss)
			}
			info.Pretrain.Epochs = -1 // a copy
			if m.Info().Pretrain.Epochs < 1 {
				t.Error("Info's Pretrain is the model's own record")
			}
			path := filepath.Join(t.TempDir(), "m")
			if err := m.Save(path); err != nil {
				t.Fatal(err)
			}
			l, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if l.Config() != m.Config() || l.Config().Pretrain != PretrainPointwise || *l.Info().Pretrain != *m.Info().Pretrain {
				t.Errorf("loaded %+v %+v, saved %+v %+v", l.Config(), l.Info().Pretrain, m.Config(), m.Info().Pretrain)
			}
		})
	}
}

// TestPretrainDeterministic: the same seed and thread count give the
// same pretrained model, and without Pretrain another one.
func TestPretrainDeterministic(t *testing.T) {
	cfg := small(HeadDecoder, "normalized:base=4,length=3")
	cfg.Threads = 2
	plain := fit(t, cfg, true)
	cfg.Pretrain = PretrainPointwise
	a, b := fit(t, cfg, true), fit(t, cfg, true)
	if diff := sameParams(t, a.net.Params(), b.net.Params(), plain.net.Params()); diff == 0 {
		t.Error("pretraining changed no parameter")
	}
}

// TestPretrainCancel: a context cancelled during the pretraining gives
// no model and an error wrapping ErrPretrainCancelled and the cause.
func TestPretrainCancel(t *testing.T) {
	x, y := toyData(400, 1)
	cfg := small(HeadDecoder, "normalized:base=4,length=3")
	cfg.Pretrain, cfg.MaxEpochs = PretrainPointwise, 50
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m, err := FitFlat(ctx, x, len(y), 1, y, cfg, WithProgress(func(p Progress) {
		if !p.Pretrain {
			t.Error("the head trained after a cancelled pretraining")
		}
		if p.Epoch == 2 {
			cancel()
		}
	}))
	if m != nil || !errors.Is(err, context.Canceled) || !errors.Is(err, ErrPretrainCancelled) {
		t.Fatalf("model %v, error %v", m != nil, err)
	}
}

// TestTunePretrain: Tune with Pretrain pretrains every trial (their
// configs carry it, the chosen model records its first stage).
func TestTunePretrain(t *testing.T) {
	x, y := toyData(300, 2)
	base := small(HeadDecoder, "normalized:base=4,length=3")
	base.Pretrain, base.MaxEpochs = PretrainPointwise, 3
	m, rep, err := Tune(context.Background(), x, len(y), 1, y, base, TuneOptions{Trials: 3, Budget: time.Minute, grid: tinyGrid})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range rep.Trials {
		if tr.Config.Pretrain != PretrainPointwise {
			t.Errorf("trial %d: Pretrain %q", tr.N, tr.Config.Pretrain)
		}
	}
	if p := m.Info().Pretrain; p == nil || p.Epochs < 1 {
		t.Errorf("the chosen trial's pretraining %+v", p)
	}
}

// TestPretrainBytes: the memory estimates count the first stage's
// pointwise network (its training's bytes, within a tenth, for the parameters of a
// pointwise model on the same encoder), and nothing without Pretrain.
func TestPretrainBytes(t *testing.T) {
	cfg := DefaultConfig(small(HeadDecoder, "normalized:base=4,length=3"))
	if b := pretrainBytes(cfg, 3); b != 0 {
		t.Errorf("%v bytes without Pretrain", b)
	}
	plain := trainBytes(cfg, 1000, 10, 3)
	cfg.Pretrain = PretrainPointwise
	pc := cfg
	pc.Head, pc.Vocab, pc.Pretrain = HeadPointwise, "", ""
	x, y := toyData(60, 1)
	x3 := make([]float64, 0, 3*len(y))
	for _, v := range x {
		x3 = append(x3, v, v*v, -v)
	}
	pm, err := FitFlat(context.Background(), x3, len(y), 3, y, pc)
	if err != nil {
		t.Fatal(err)
	}
	want := trainBytesPer(pc) * float64(pm.net.NumParams())
	if b := pretrainBytes(cfg, 3); math.Abs(b-want) > 0.1*want { // approxParams leaves small terms out
		t.Errorf("pretrainBytes %v, the pointwise network's %v", b, want)
	}
	if b := trainBytes(cfg, 1000, 10, 3); b != plain+pretrainBytes(cfg, 3) {
		t.Errorf("trainBytes %v with Pretrain, %v without", b, plain)
	}
}
