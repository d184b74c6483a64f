package decoreg

import (
	"bytes"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// TestHeaderListsBounded: a header of long lists of empty objects took
// gigabytes to decode before any count was checked (a tuning trial "{}" is
// 3 bytes of the file and 456 decoded; 8 MiB of them took 5 GB, 64 MiB ran
// serve out of memory). Lists are now counted first: trials against
// MaxTuneTrials under every spelling encoding/json accepts for the key,
// other lists against the file's parameter count.
func TestHeaderListsBounded(t *testing.T) {
	header, params := savedModel(t, tinyDecoder())
	list := func(n int, entry string) string {
		return "[" + strings.Repeat(entry+",", n-1) + entry + "]"
	}
	cases := []struct {
		name, insert, field string
	}{
		{"trials", `"train":{"tune":{"trials":` + list(300000, "{}") + `}}`, "train.tune.trials"},
		{"trials in capitals", `"TRAIN":{"Tune":{"TRIALS":` + list(300000, "{}") + `}}`, "TRAIN.Tune.TRIALS"},
		{"trials escaped", `"train":{"tune":{"tri\u0061ls":` + list(300000, "{}") + `}}`, "train.tune.tri"},
		{"trials folded", `"train":{"tune":{"trial\u017f":` + list(300000, "{}") + `}}`, "train.tune.trial"},
		{"columns", `"schema":{"columns":` + list(300000, "{}") + `}`, "schema.columns"},
		{"numbers", `"x_mean":` + list(300000, "0"), "x_mean"},
		{"nested", `"x_quantiles":[[0],` + list(300000, "0") + `]`, "x_quantiles (a list in it)"},
	}
	if len(params) > 1<<16 {
		t.Fatalf("the tiny model has %d parameters: the lists must be longer", len(params))
	}
	for _, c := range cases {
		hb := append([]byte("{"+c.insert+","), header[1:]...)
		path := writeModel(t, hb, params)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Load(path)
		runtime.ReadMemStats(&after)
		if err == nil || !errors.Is(err, ErrBadModel) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.field) || !strings.Contains(err.Error(), "more than") {
			t.Errorf("%s: %v, want a bad model naming %s and the list %s", c.name, err, path, c.field)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 4*uint64(len(hb))+8<<20 {
			t.Errorf("%s: Load of a %d-byte header allocated %d bytes", c.name, len(hb), n)
		}
	}
	// Long lists a model may have, and brackets inside strings, pass.
	ok := append([]byte(`{"target":"y]]]}}[[[\"","x_quantiles":[`+list(3, list(1000, "0.5"))+`],`), header[1:]...)
	if err := checkHeaderLists(ok, len(params)); err != nil {
		t.Errorf("a header with knots of 1000 and brackets in a string: %v", err)
	}
	if err := checkHeaderLists(bytes.Repeat([]byte("]"), 10), 0); err != nil {
		t.Errorf("not JSON: %v, want it left to the decoder", err)
	}
}

func TestKeyIs(t *testing.T) {
	for raw, want := range map[string]bool{
		"trials": true, "Trials": true, "TRIALS": true, `tri\u0061ls`: true, "trial\u017f": true, `trial\u017f`: true,
		"trial": false, "trialss": false, `trials\n`: false, `tri\als`: false, "": false,
	} {
		if got := keyIs([]byte(raw), "trials"); got != want {
			t.Errorf("keyIs(%q) = %v, want %v", raw, got, want)
		}
	}
}
