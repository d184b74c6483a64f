package serve

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"testing"

	"decoreg"
)

// TestModelsCalibrateBy: /v1/models lists a calibrated model's temperature
// with the objective that chose it, and no objective for an uncalibrated
// one.
func TestModelsCalibrateBy(t *testing.T) {
	m := fitTiny(t, decoreg.HeadMDN, 2)
	r := rand.New(rand.NewPCG(5, 5))
	var x, y []float64
	for range 100 {
		a, b := r.NormFloat64(), r.NormFloat64()
		x, y = append(x, a, b), append(y, a+b*b+0.05*r.NormFloat64())
	}
	for _, c := range []struct {
		by   string
		want string
	}{{"", ""}, {decoreg.CalibrateByPIT, "pit"}, {decoreg.CalibrateByNLL, "nll"}} {
		mc := m
		if c.want != "" {
			var err error
			if mc, err = m.FitTemperature(x, len(y), y, c.by); err != nil || mc.Temperature() == 1 {
				t.Fatalf("FitTemperature %q: %v, T %v", c.by, err, mc.Temperature())
			}
		}
		_, ts := newTestServer(t, mc, Options{})
		resp, err := http.Get(ts.URL + "/v1/models")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var list struct{ Models []ModelInfo }
		if err := json.Unmarshal(b, &list); err != nil || len(list.Models) != 1 {
			t.Fatalf("%v: %s", err, b)
		}
		if mi := list.Models[0]; mi.CalibrateBy != c.want || mi.Temperature != mc.Temperature() {
			t.Errorf("by %q: %s", c.by, b)
		}
	}
}
