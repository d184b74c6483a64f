package serve

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
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
			if mc, err = m.FitTemperature(context.Background(), x, len(y), y, c.by); err != nil || mc.Temperature() == 1 {
				t.Fatalf("FitTemperature %q: %v, T %v", c.by, err, mc.Temperature())
			}
		}
		_, ts := newTestServer(t, mc, Options{})
		if mi, b := oneModelInfo(t, ts.URL); mi.CalibrateBy != c.want || mi.Temperature != mc.Temperature() {
			t.Errorf("by %q: %s", c.by, b)
		}
	}
}

// TestModelsDepthTemperatures: a decoder calibrated per token depth lists
// its temperatures and the objective, and predicts with them (the server's
// log-density is the model's own).
func TestModelsDepthTemperatures(t *testing.T) {
	m := fitTiny(t, decoreg.HeadDecoder, 2)
	r := rand.New(rand.NewPCG(6, 6))
	var x, y []float64
	for range 100 {
		a, b := r.NormFloat64(), r.NormFloat64()
		x, y = append(x, a, b), append(y, a+b*b+0.05*r.NormFloat64())
	}
	mc, err := m.FitTemperature(context.Background(), x, len(y), y, decoreg.CalibrateByDepth)
	if err != nil {
		t.Fatal(err)
	}
	_, ts := newTestServer(t, mc, Options{})
	if mi, b := oneModelInfo(t, ts.URL); mi.CalibrateBy != "depth" || mi.Temperature != 1 || !slices.Equal(mi.DepthTemperatures, mc.DepthTemperatures()) {
		t.Errorf("/v1/models: %s", b)
	}
	code, body, _ := post(t, ts.URL+"/v1/models/m/predict", `{"x":[[0.3,-0.2]],"outputs":["logpdf"],"y":[0.4]}`)
	var p struct {
		Predictions []struct{ LogPDF float64 }
	}
	if err := json.Unmarshal(body, &p); code != 200 || err != nil || len(p.Predictions) != 1 {
		t.Fatalf("predict: %d %s (%v)", code, body, err)
	}
	d, err := mc.Dist([]float64{0.3, -0.2})
	if err != nil {
		t.Fatal(err)
	}
	u, err := m.Dist([]float64{0.3, -0.2})
	if err != nil {
		t.Fatal(err)
	}
	got, want := p.Predictions[0].LogPDF, d.LogPDF(0.4)
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) || got == u.LogPDF(0.4) {
		t.Errorf("served logpdf %v, the model's %v (uncalibrated %v)", got, want, u.LogPDF(0.4))
	}
}

// oneModelInfo returns the one model /v1/models of the server at url
// lists, and the response body.
func oneModelInfo(t *testing.T, url string) (ModelInfo, []byte) {
	t.Helper()
	resp, err := http.Get(url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var list struct{ Models []ModelInfo }
	if err := json.Unmarshal(b, &list); err != nil || len(list.Models) != 1 {
		t.Fatalf("%v: %s", err, b)
	}
	return list.Models[0], b
}
