package decoreg

import (
	"bytes"
	"errors"
	"fmt"
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
		var me *ModelError
		if !errors.As(err, &me) || !errors.Is(err, ErrBadModel) || !strings.Contains(err.Error(), path) || !strings.Contains(me.Field, c.field) || !strings.Contains(err.Error(), "more than") {
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

// TestHeaderContainerLists: a list of objects or lists has an entry per
// feature at most, so it is bounded by params/enc_width, far below the
// bound of a list of numbers: 4.6M empty columns ("{}", 256 bytes decoded
// each) beside a model of as many parameters took 1.2 GB (review).
func TestHeaderContainerLists(t *testing.T) {
	header, params := savedModel(t, tinyDecoder()) // enc_width 8
	limit := len(params)/8 + 256
	list := "[" + strings.Repeat("{},", limit) + "{}]"
	hb := append([]byte(`{"schema":{"columns":`+list+`},`), header[1:]...)
	_, err := Load(writeModel(t, hb, params))
	var me *ModelError
	if !errors.As(err, &me) || me.Field != "schema.columns" || !strings.Contains(err.Error(), fmt.Sprintf("more than %d objects or lists", limit)) {
		t.Errorf("%d empty columns: %v", limit+1, err)
	}
	// As many numbers pass the scan (the decoder then refuses the file
	// for what they are).
	nums := "[" + strings.Repeat("0,", limit) + "0]"
	if e := checkHeaderLists(append([]byte(`{"x_mean":`+nums+`,`), header[1:]...), len(params)); e != nil {
		t.Errorf("%d numbers: %v", limit+1, e)
	}
}

func TestHeaderEncWidth(t *testing.T) {
	for hb, want := range map[string]int{
		`{"config":{"enc_width":512}}`:                                                                             512,
		`{"CONFIG":{"Enc_Width":64,"x":[1,{"enc_width":3}]}}`:                                                      64,
		`{"config":{"enc_width":64},"config":{"head":"mdn"}}`:                                                      64, // json merges the two objects
		`{"config":{"enc_width":64},"config":{"enc_width":8}}`:                                                     8,
		`{"train":{"config":{"enc_width":3}},"config":{"enc_layers":2}}`:                                           0, // a config elsewhere does not count
		`{"x":{"config":{"enc_width":1}},"config":{"enc_width":512}}`:                                              512,
		`{"config":{"enc_width":512},"members":[{"config":{"enc_width":2}},{"train":{"config":{"enc_width":1}}}]}`: 2,
		`{"config":{"enc_width":2048},"members":[{"config":{"enc_width":256}}]}`:                                   256,
		`{"config":{"enc_width":"512"}}`:                                                                           0,
		`{"config":{"enc_width":-5}}`:                                                                              0,
		`{"x":"{\"config\":{\"enc_width\":9}}","config":{"enc_width":7}}`:                                          7,
		`[{"config":{"enc_width":9}}]`:                                                                             0,
		`{"configs":{"enc_width":9}}`:                                                                              0,
		``:                                                                                                         0,
		`}]{`:                                                                                                      0, // found by FuzzLoadHeader: an index of -1
	} {
		if got := headerEncWidth([]byte(hb)); got != want {
			t.Errorf("headerEncWidth(%s) = %d, want %d", hb, got, want)
		}
	}
}

// TestHeaderListsTotal: many lists, each within its bound, are bounded
// together: 255 columns of 65,537 levels beside a model of 129 parameters
// took 860 MB (review). Here 280 columns of 3,000 empty levels.
func TestHeaderListsTotal(t *testing.T) {
	header, params := savedModel(t, tinyDecoder())
	col := `{"name":"c","kind":"categorical","levels":[` + strings.Repeat(`"",`, 2999) + `""]}`
	cols := "[" + strings.Repeat(col+",", 279) + col + "]"
	hb := append([]byte(`{"schema":{"columns":`+cols+`},`), header[1:]...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Load(writeModel(t, hb, params))
	runtime.ReadMemStats(&after)
	var me *ModelError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "entries in the header's lists together") {
		t.Errorf("840,000 levels in all: %v", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 4*uint64(len(hb))+8<<20 {
		t.Errorf("Load of a %d-byte header allocated %d bytes", len(hb), n)
	}
}
