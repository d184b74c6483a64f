package jsonfloat

import (
	"encoding/json"
	"math"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{math.NaN(), "null"}, {math.Inf(1), `"+Inf"`}, {math.Inf(-1), `"-Inf"`}, {0.1, "0.1"}, {-2.5e-300, "-2.5e-300"}} {
		b, err := json.Marshal(Float(c.v))
		if err != nil || string(b) != c.want {
			t.Errorf("%v: %s, %v, want %s", c.v, b, err, c.want)
		}
		var f Float
		if err := json.Unmarshal(b, &f); err != nil || !(float64(f) == c.v || math.IsNaN(c.v) && math.IsNaN(float64(f))) {
			t.Errorf("%s: read %v, %v", b, f, err)
		}
	}
	var f Float
	if err := json.Unmarshal([]byte(`"x"`), &f); err == nil {
		t.Error(`"x" read as a number`)
	}
}

// TestReadsOtherSpellings: "Inf" and "NaN", as show and tokenize write
// them, read too; other strings do not.
func TestReadsOtherSpellings(t *testing.T) {
	for in, want := range map[string]float64{`"Inf"`: math.Inf(1), `"+Inf"`: math.Inf(1), `"-Inf"`: math.Inf(-1)} {
		var f Float
		if err := f.UnmarshalJSON([]byte(in)); err != nil || float64(f) != want {
			t.Errorf("%s: %v, %v", in, f, err)
		}
	}
	var f Float
	if err := f.UnmarshalJSON([]byte(`"NaN"`)); err != nil || !math.IsNaN(float64(f)) {
		t.Errorf("NaN: %v, %v", f, err)
	}
	if err := f.UnmarshalJSON([]byte(`"inf"`)); err == nil {
		t.Errorf(`"inf" read as %v`, f)
	}
}
