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
