package decoreg

import (
	"context"
	"errors"
	"strings"
	"testing"

	"decoreg/data"
)

// TestErrorsInContext: the library's errors that say where they happened
// start "decoreg: " once, with the context before the cause's own message
// (they read "member 2: decoreg: model is not fitted", or had no prefix),
// and wrap what they say.
func TestErrorsInContext(t *testing.T) {
	f, err := data.ReadFrame(mixedPath, data.FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Head: HeadMDN, EncLayers: 1, EncWidth: 8, MaxEpochs: 1, Threads: 1}
	m, err := FitFrame(context.Background(), f, "price", cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, errTarget := FitFrame(context.Background(), f, "city", cfg)
	g, err := f.Select("area", "rooms")
	if err != nil {
		t.Fatal(err)
	}
	_, errColumn := m.PredictFrame(context.Background(), g, PredictOptions{})
	_, errMember := NewEnsemble(m, nil)
	ctx, cancel := context.WithCancel(context.Background())
	ens := cfg
	ens.Ensemble, ens.MaxEpochs = 2, 50
	_, errCancel := FitFrame(ctx, f, "price", ens, WithProgress(func(p Progress) {
		if p.Member == 1 {
			cancel()
		}
	}))
	for _, c := range []struct {
		err  error
		want string
		is   error
	}{
		{errTarget, "decoreg: the target is not numeric: ", ErrBadInput},
		{errColumn, "decoreg: " + mixedPath + ": line 1: no such column: ", data.ErrNoColumn},
		{errMember, "decoreg: member 2: model is not fitted", ErrNotFitted},
		{errCancel, "decoreg: ensemble member 2 of 2: training cancelled", context.Canceled},
	} {
		if c.err == nil || !strings.HasPrefix(c.err.Error(), c.want) || strings.Count(c.err.Error(), "decoreg: ") != 1 || !errors.Is(c.err, c.is) {
			t.Errorf("%v: want it to start %q, say decoreg: once, and wrap %v", c.err, c.want, c.is)
		}
	}
}
