package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"decoreg"
	"decoreg/dist"
	"decoreg/internal/heapwatch"
	"decoreg/internal/jsonfloat"
)

// tinyRows are fitTiny's 400 rows of 2 features, y = x0 + x1^2 + noise.
func tinyRows(seed uint64) (x, y []float64) {
	r := rand.New(rand.NewPCG(seed, 1))
	const n, d = 400, 2
	x = make([]float64, n*d)
	y = make([]float64, n)
	for i := range n {
		a, b := r.NormFloat64(), r.NormFloat64()
		x[i*d], x[i*d+1] = a, b
		y[i] = a + b*b + 0.3*r.NormFloat64()
	}
	return x, y
}

// fitTiny trains a small model of head h on y = x0 + x1^2 + noise, fast.
func fitTiny(t testing.TB, h decoreg.Head, seed uint64) *decoreg.Model {
	t.Helper()
	cfg := decoreg.Config{Head: h, EncLayers: 1, EncWidth: 32, MaxEpochs: 3, Seed: seed, Threads: 1}
	if h == decoreg.HeadDecoder {
		cfg.Vocab = "normalized:base=4,length=4"
	}
	return fitConfig(t, cfg)
}

// fitConfig trains cfg on tinyRows(cfg.Seed) and names the columns a, b
// and y.
func fitConfig(t testing.TB, cfg decoreg.Config) *decoreg.Model {
	t.Helper()
	x, y := tinyRows(cfg.Seed)
	m, err := decoreg.FitFlat(context.Background(), x, len(y), 2, y, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SetNames([]string{"a", "b"}, "y"); err != nil {
		t.Fatal(err)
	}
	return m
}

func saveModel(t testing.TB, m *decoreg.Model, path string) {
	t.Helper()
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
}

func quietLog() *log.Logger { return log.New(io.Discard, "", 0) }

// newTestServer serves one model file and returns the server and its
// httptest front.
func newTestServer(t testing.TB, m *decoreg.Model, o Options) (*Server, *httptest.Server) {
	t.Helper()
	if o.Model == "" && o.Models == "" {
		o.Model = filepath.Join(t.TempDir(), "m.model")
		saveModel(t, m, o.Model)
	}
	if o.Log == nil {
		o.Log = quietLog()
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	return s, ts
}

// post posts body to url and returns the answer's status, body and
// header; a request that fails is an error of the test with status -1
// (not t.Fatal, which from the goroutine of a request sent in the
// background would end it without its status, and the test would wait).
func post(t testing.TB, url, body string) (int, []byte, http.Header) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return -1, nil, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header
}

func decode(t testing.TB, b []byte) Response {
	t.Helper()
	var r Response
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return r
}

func eq(a jsonfloat.Float, b float64) bool {
	return float64(a) == b || math.IsNaN(float64(a)) && math.IsNaN(b)
}

// TestPredictMatchesLibrary: every output of the server equals what the
// library computes for the same rows, for every head, whether the rows
// come one per request or many.
func TestPredictMatchesLibrary(t *testing.T) {
	for _, h := range decoreg.Heads {
		t.Run(string(h), func(t *testing.T) {
			m := fitTiny(t, h, 1)
			_, ts := newTestServer(t, m, Options{})
			rows := [][]float64{{0, 0}, {1.5, -2}, {-3, 0.25}, {10, 10}}
			ys := []float64{0.5, 4, -1, 100}
			levels := []float64{0.01, 0.1, 0.5, 0.9, 0.99}
			want, err := m.Predict(context.Background(), rows, decoreg.PredictOptions{Outputs: decoreg.OutMean | decoreg.OutMedian | decoreg.OutMode | decoreg.OutQuantiles | decoreg.OutDist, Levels: levels})
			if err != nil {
				t.Fatal(err)
			}
			outs, dens := `"mean","median","mode","quantiles","cdf","samples"`, ""
			if h != decoreg.HeadPointwise {
				outs += `,"logpdf","density"`
				dens = `,"density":{"n":11,"lo":-5,"hi":15}`
			}
			var objs []string
			for _, r := range rows {
				objs = append(objs, fmt.Sprintf(`{"a":%v,"b":%v}`, r[0], r[1]))
			}
			ysJSON, _ := json.Marshal(ys)
			body := fmt.Sprintf(`{"rows":[%s],"outputs":[%s],"quantiles":[0.01,0.1,0.5,0.9,0.99],"y":%s,"samples":{"n":5,"seed":7}%s}`,
				strings.Join(objs, ","), outs, ysJSON, dens)
			code, b, _ := post(t, ts.URL+"/v1/models/m/predict", body)
			if code != 200 {
				t.Fatalf("%d %s", code, b)
			}
			got := decode(t, b)
			if got.Model != "m" || len(got.Predictions) != len(rows) {
				t.Fatalf("answer %s", b)
			}
			for i, p := range got.Predictions {
				dd := want.Dist[i]
				if !eq(*p.Mean, want.Mean[i]) || !eq(*p.Median, want.Median[i]) || !eq(*p.Mode, want.Mode[i]) {
					t.Errorf("row %d: mean/median/mode %v %v %v, library %v %v %v", i, *p.Mean, *p.Median, *p.Mode, want.Mean[i], want.Median[i], want.Mode[i])
				}
				for j := range levels {
					if !eq(p.Quantiles[j], want.Quantiles[j][i]) {
						t.Errorf("row %d: quantile %v = %v, library %v", i, levels[j], p.Quantiles[j], want.Quantiles[j][i])
					}
				}
				if !eq(*p.CDF, dd.CDF(ys[i])) {
					t.Errorf("row %d: cdf %v, library %v", i, *p.CDF, dd.CDF(ys[i]))
				}
				smp := dd.Sample(5, dist.SampleOptions{}, rand.New(rand.NewPCG(7, uint64(i))))
				for k := range smp {
					if !eq(p.Samples[k], smp[k]) {
						t.Errorf("row %d: sample %d = %v, library %v", i, k, p.Samples[k], smp[k])
					}
				}
				if h == decoreg.HeadPointwise {
					continue
				}
				if h == decoreg.HeadDecoder || h == decoreg.HeadRiemann {
					// The cells' centres: the library's with Centres.
					body := fmt.Sprintf(`{"rows":[%s],"outputs":["samples"],"samples":{"n":5,"seed":7,"centres":true}}`, objs[i])
					code, b, _ := post(t, ts.URL+"/v1/models/m/predict", body)
					if code != 200 {
						t.Fatalf("centres: %d %s", code, b)
					}
					c := decode(t, b).Predictions[0].Samples
					smp := dd.Sample(5, dist.SampleOptions{Centres: true}, rand.New(rand.NewPCG(7, 0)))
					for k := range smp {
						if !eq(c[k], smp[k]) {
							t.Errorf("row %d: centres' sample %d = %v, library %v", i, k, c[k], smp[k])
						}
					}
				}
				if !eq(*p.LogPDF, dd.LogPDF(ys[i])) {
					t.Errorf("row %d: logpdf %v, library %v", i, *p.LogPDF, dd.LogPDF(ys[i]))
				}
				if len(p.Density.Y) != 11 || p.Density.Y[0] != -5 || p.Density.Y[10] != 15 {
					t.Fatalf("row %d: density grid %v", i, p.Density.Y)
				}
				for k, y := range p.Density.Y {
					if !eq(p.Density.LogPDF[k], dd.LogPDF(float64(y))) {
						t.Errorf("row %d: density at %v = %v, library %v", i, y, p.Density.LogPDF[k], dd.LogPDF(float64(y)))
					}
				}
			}
			// The same rows as "x", one request per row, answer the same.
			for i, r := range rows {
				code, b, _ := post(t, ts.URL+"/v1/models/m/predict", fmt.Sprintf(`{"x":[[%v,%v]],"outputs":["mean","quantiles"],"quantiles":[0.01,0.1,0.5,0.9,0.99]}`, r[0], r[1]))
				if code != 200 {
					t.Fatalf("%d %s", code, b)
				}
				p := decode(t, b).Predictions[0]
				if !eq(*p.Mean, want.Mean[i]) || !eq(p.Quantiles[2], want.Quantiles[2][i]) {
					t.Errorf("row %d alone: mean %v median %v, library %v %v", i, *p.Mean, p.Quantiles[2], want.Mean[i], want.Quantiles[2][i])
				}
			}
		})
	}
}

// TestBadRequests: every malformed request is a 4xx with a JSON error that
// names the problem; none is a 500.
func TestBadRequests(t *testing.T) {
	m := fitTiny(t, decoreg.HeadDecoder, 1)
	_, ts := newTestServer(t, m, Options{Limits: Limits{MaxRows: 5, MaxSamples: 100, MaxDensity: 300, MaxValues: 1000}, MaxBodyBytes: 20000})
	pw := fitTiny(t, decoreg.HeadPointwise, 1)
	_, tsp := newTestServer(t, pw, Options{})
	u := ts.URL + "/v1/models/m/predict"
	cases := []struct {
		url, body string
		code      int
		want      string
	}{
		{u, ``, 400, "empty body"},
		{u, `{`, 400, "bad JSON"},
		{u, `[1,2]`, 400, "must be a JSON object"},
		{u, `{"ROWS":[{"a":1,"b":2}]}`, 400, `unknown field "ROWS"`},
		{u, `{"rows":[{"a":1,"b":2}],"rows":[]}`, 400, `key "rows" appears twice`},
		{u, `{"rows":[{"a":1,"b":2,"a":3}]}`, 400, `rows[0]: key "a" appears twice`},
		{u, `{"rows":[{"a":1,"b":2}],"outputs":["samples"],"samples":{"N":3}}`, 400, `"samples": unknown field "N"`},
		{u, `{"rows":[{"a":1,"b":2}],"outputs":["samples"],"samples":{"n":"3"}}`, 400, `samples.n`},
		{u, `{"rows":[{"a":1,"b":2,"` + strings.Repeat("q", 5000) + `":1}]}`, 400, `unknown feature "qqqq`},
		{u, `{"x":[[1,2]],"outputs":["quantiles"],"quantiles":[1e400]}`, 400, "quantiles[0] = 1e400"},
		{u, `{"x":[[1,2]],"outputs":["quantiles"],"quantiles":[]}`, 400, `"quantiles" is empty`},
		{u, `{"x":[[1,2]],"outputs":["cdf"],"y":["x"]}`, 400, `y[0]: "x" is not a number`},
		{u, `{"x":[[1,2]],"outputs":["cdf"],"y":[true]}`, 400, `y[0]: true is not a number`},
		{u, `{"x":[[1,2],[1,2]],"outputs":["density"]}`, 400, "at most 300 points"},
		{u, `{"x":[[1,2],[1,2],[1,2],[1,2],[1,2]],"outputs":["quantiles"],"quantiles":[` + strings.TrimSuffix(strings.Repeat("0.5,", 250), ",") + `]}`, 400, "at most 1000 numbers"},
		{u, `{"x":[[1,2]],"outputs":["samples"],"samples":{"n":9223372036854775807}}`, 400, "at most 100 samples"},
		{u, `{"rows":[{"a":1,"b":2}]} {}`, 400, "more than one value"},
		{u, `{"rows":[{"a":1,"b":2}],"bogus":1}`, 400, `unknown field "bogus"`},
		{u, `{}`, 400, "no inputs"},
		{u, `{"rows":[]}`, 400, "no rows"},
		{u, `{"rows":[{"a":1,"b":2}],"x":[[1,2]]}`, 400, "not both"},
		{u, `{"rows":[{"a":1}]}`, 400, `feature "b" is missing`},
		{u, `{"rows":[{"a":1,"b":2,"c":3}]}`, 400, `unknown feature "c"`},
		{u, `{"rows":[{"a":"1","b":2}]}`, 400, `feature "a": "1" is not a number`},
		{u, `{"rows":[{"a":null,"b":2}]}`, 400, `feature "a": is null`},
		{u, `{"rows":[{"a":1e999,"b":2}]}`, 400, "not a finite number"},
		{u, `{"rows":[null]}`, 400, "rows[0] is null"},
		{u, `{"x":[[1]]}`, 400, "x[0] has 1 values"},
		{u, `{"x":[[1,true]]}`, 400, `x[0][1] (feature "b")`},
		{u, `{"x":[[1,2],[1,2],[1,2],[1,2],[1,2],[1,2]]}`, 400, "6 rows: at most 5"},
		{u, `{"x":[[1,2]],"outputs":["avg"]}`, 400, `unknown output "avg"`},
		{u, `{"x":[[1,2]],"outputs":["mean",null]}`, 400, `outputs[1]: unknown output ""`}, // which one (review)
		{u, `{"x":[[1,2]],"outputs":["mean","mean"]}`, 400, "twice"},
		{u, `{"x":[[1,2]],"outputs":["quantiles"],"quantiles":[1.5]}`, 400, "quantiles[0] = 1.5 is not a number in [0, 1]"},
		{u, `{"x":[[1,2]],"outputs":["quantiles"],"quantiles":[null]}`, 400, "quantiles[0] = null"},
		{u, `{"x":[[1,2]],"outputs":["mean"],"quantiles":[0.5]}`, 400, `"quantiles" is not asked for`},
		{u, `{"x":[[1,2]],"outputs":["logpdf"]}`, 400, `need "y"`},
		{u, `{"x":[[1,2]],"outputs":["cdf"],"y":["+Inf"]}`, 400, `y[0]: "+Inf" is not a number`},
		{u, `{"x":[[1,2]],"outputs":["cdf"],"y":[1e999]}`, 400, `y[0]: 1e999 is not a finite number`},
		{u, `{"x":[[1,2]],"outputs":["mean"],"y":[1]}`, 400, `"y" is given`},
		{u, `{"x":[[1,2]],"outputs":["samples"]}`, 400, `"n": N`},
		{u, `{"x":[[1,2]],"outputs":["samples"],"samples":{"n":101}}`, 400, "at most 100 samples"},
		{u, `{"x":[[1,2]],"outputs":["samples"],"samples":{"n":1,"temperature":0}}`, 400, "temperature must be > 0"},
		{u, `{"x":[[1,2]],"outputs":["samples"],"samples":{"n":1,"top_p":1.5}}`, 400, "samples.top_p must be in (0, 1], have 1.5"}, // as for 0 (review)
		{u, `{"x":[[1,2]],"outputs":["samples"],"samples":{"n":1,"top_k":-1}}`, 400, "top-k"},
		{u, `{"x":[[1,2]],"outputs":["samples"],"samples":{"n":-1}}`, 400, `"n": N`},
		{u, `{"x":[[1,2]],"outputs":["density"],"density":{"n":1}}`, 400, "density.n must be >= 2"},
		{u, `{"x":[[1,2]],"outputs":["density"],"density":{"n":0}}`, 400, "density.n must be >= 2, have 0 (leave it out"}, // it read as the default
		{u, `{"x":[[1,2]],"outputs":["density"],"density":{"n":-0}}`, 400, "density.n must be >= 2, have 0 (leave it out"},
		{u, `{"x":[[1,2]],"outputs":["density"],"density":{"lo":1}}`, 400, "both lo and hi"},
		{u, `{"x":[[1,2]],"outputs":["density"],"density":{"lo":1,"hi":1}}`, 400, "lo < hi"},
		{u, `{"x":[[1,2]],"outputs":["density"],"density":{"lo":-1e308,"hi":1e308}}`, 400, "hi - lo overflows"},
		{u, `{"x":[[1e300,2]]}`, 400, `x[0]: feature "a"`},
		{u, `{"rows":[{"a":1e300,"b":2}]}`, 400, `rows[0]: feature "a"`},
		{ts.URL + "/v1/models//predict", `{}`, 404, "no such endpoint"},
		{ts.URL + "/v1/models/../v1/models/m/predict", `{}`, 404, "no such endpoint"},
		{u, `{"x":[[1,2]],"pad":"` + strings.Repeat("z", 30000) + `"}`, 413, "larger than the server's limit of 20000 bytes"},
		{ts.URL + "/v1/models/nope/predict", `{}`, 404, `no model "nope"`},
		{ts.URL + "/v2/models", `{}`, 404, "no such endpoint"},
		{tsp.URL + "/v1/models/m/predict", `{"x":[[1,2]],"outputs":["logpdf"],"y":[1]}`, 400, "pointwise model has no density"},
		{tsp.URL + "/v1/models/m/predict", `{"x":[[1,2]],"outputs":["samples"],"samples":{"n":1,"top_k":2}}`, 400, "for decoder heads"},
		{tsp.URL + "/v1/models/m/predict", `{"x":[[1,2]],"outputs":["samples"],"samples":{"n":1,"centres":true}}`, 400, "samples.centres is for decoder and Riemann heads"},
	}
	for _, c := range cases {
		code, b, h := post(t, c.url, c.body)
		var e struct{ Error string }
		if err := json.Unmarshal(b, &e); err != nil || code != c.code || !strings.Contains(e.Error, c.want) {
			t.Errorf("%.80s: %d %s, want %d and an error containing %q", c.body, code, b, c.code, c.want)
		}
		if ct := h.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%.80s: Content-Type %q", c.body, ct)
		}
	}
	// The wrong method is a 405 with Allow, in JSON.
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" || !strings.Contains(string(b), `"error"`) {
		t.Errorf("GET predict: %d %s", resp.StatusCode, b)
	}
	// A GET endpoint takes HEAD too, and says so.
	resp, err = http.Post(strings.TrimSuffix(u, "/m/predict"), "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /v1/models: %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

// TestEndpoints: the model list, health, readiness, the page and the
// metrics.
func TestEndpoints(t *testing.T) {
	m := fitTiny(t, decoreg.HeadDecoder, 1)
	s, ts := newTestServer(t, m, Options{})
	get := func(path string) (int, string) {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, b := get("/v1/models")
	var list struct{ Models []ModelInfo }
	if err := json.Unmarshal([]byte(b), &list); code != 200 || err != nil || len(list.Models) != 1 {
		t.Fatalf("%d %s", code, b)
	}
	mi := list.Models[0]
	if mi.Name != "m" || mi.Head != "decoder" || mi.Tokenization != "normalized:base=4,length=4" || len(mi.Features) != 2 ||
		mi.Features[1].Name != "b" || mi.Features[1].Type != "number" || mi.Features[1].Levels != nil || mi.Target != "y" || mi.Created == "" {
		t.Errorf("model info %+v", mi)
	}
	if code, b := get("/healthz"); code != 200 || !strings.Contains(b, "ok") {
		t.Errorf("healthz %d %s", code, b)
	}
	if code, b := get("/readyz"); code != 200 || !strings.Contains(b, "ready") {
		t.Errorf("readyz %d %s", code, b)
	}
	if code, b := get("/"); code != 200 || !strings.Contains(b, "<canvas") {
		t.Errorf("page %d %.200s", code, b)
	}
	post(t, ts.URL+"/v1/models/m/predict", `{"x":[[1,2]]}`)
	post(t, ts.URL+"/v1/models/m/predict", `{"x":[[1]]}`)
	code, b = get("/metrics")
	if code != 200 {
		t.Fatalf("metrics: %d", code)
	}
	for _, want := range []string{
		`decoreg_http_requests_total{code="200",route="/v1/models/{name}/predict"} 1`,
		`decoreg_http_request_errors_total{code="400",route="/v1/models/{name}/predict"} 1`,
		`decoreg_http_request_duration_seconds_bucket{route="/v1/models/{name}/predict",le="+Inf"} 2`,
		"decoreg_batch_rows_count 1", "decoreg_batch_requests_count 1",
		`decoreg_queue_length{model="m"} 0`, "decoreg_models 1", "go_goroutines", "process_resident_memory_bytes",
	} {
		if !strings.Contains(b, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	s.Close()
	if code, _ := get("/readyz"); code != 503 {
		t.Errorf("readyz after Close: %d", code)
	}
	if code, b, h := post(t, ts.URL+"/v1/models/m/predict", `{"x":[[1,2]]}`); code != 503 || h.Get("Retry-After") == "" {
		t.Errorf("predict after Close: %d %s", code, b)
	}
}

// TestLoad: many concurrent clients with mixed requests all get the right
// answers, and requests are batched together.
func TestLoad(t *testing.T) {
	m := fitTiny(t, decoreg.HeadDecoder, 2)
	s, ts := newTestServer(t, m, Options{BatchWait: 20 * time.Millisecond})
	const clients, each = 16, 12
	var wg sync.WaitGroup
	errs := make(chan error, clients*each)
	for c := range clients {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(c), 9))
			for k := range each {
				n := 1 + r.IntN(6)
				x := make([][]float64, n)
				for i := range x {
					x[i] = []float64{r.NormFloat64() * 2, r.NormFloat64() * 2}
				}
				want, err := m.Predict(context.Background(), x, decoreg.PredictOptions{Outputs: decoreg.OutMean | decoreg.OutQuantiles, Levels: []float64{0.1, 0.9}})
				if err != nil {
					errs <- err
					return
				}
				body, _ := json.Marshal(map[string]any{"x": x, "outputs": []string{"mean", "quantiles"}, "quantiles": []float64{0.1, 0.9}})
				resp, err := http.Post(ts.URL+"/v1/models/m/predict", "application/json", bytes.NewReader(body))
				if err != nil {
					errs <- err
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					errs <- fmt.Errorf("client %d request %d: %d %s", c, k, resp.StatusCode, b)
					return
				}
				var got Response
				if err := json.Unmarshal(b, &got); err != nil || len(got.Predictions) != n {
					errs <- fmt.Errorf("client %d request %d: %v %s", c, k, err, b)
					return
				}
				for i, p := range got.Predictions {
					if !eq(*p.Mean, want.Mean[i]) || !eq(p.Quantiles[0], want.Quantiles[0][i]) || !eq(p.Quantiles[1], want.Quantiles[1][i]) {
						errs <- fmt.Errorf("client %d request %d row %d: %v %v, want %v %v %v", c, k, i, *p.Mean, p.Quantiles, want.Mean[i], want.Quantiles[0][i], want.Quantiles[1][i])
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var batches, requests float64
	for _, mf := range gather(t, s) {
		switch mf.name {
		case "decoreg_batch_requests_count":
			batches = mf.v
		case "decoreg_batch_requests_sum":
			requests = mf.v
		}
	}
	if requests != clients*each || !(batches < requests) {
		t.Errorf("%v requests in %v batches: want every request answered and some batched together", requests, batches)
	}
	t.Logf("%v requests in %v batches", requests, batches)
}

type sample struct {
	name string
	v    float64
}

// gather reads the server's metrics without labels.
func gather(t testing.TB, s *Server) []sample {
	mfs, err := s.metrics.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []sample
	for _, mf := range mfs {
		for _, m := range mf.Metric {
			if h := m.Histogram; h != nil {
				out = append(out, sample{mf.GetName() + "_count", float64(h.GetSampleCount())}, sample{mf.GetName() + "_sum", h.GetSampleSum()})
			}
			if g := m.Gauge; g != nil && len(m.Label) == 0 {
				out = append(out, sample{mf.GetName(), g.GetValue()})
			}
			if c := m.Counter; c != nil && len(m.Label) == 0 {
				out = append(out, sample{mf.GetName(), c.GetValue()})
			}
		}
	}
	return out
}

// TestQueueFullAndDeadline: past the queue the answer is 503 with
// Retry-After, and so is a request past its deadline.
func TestQueueFullAndDeadline(t *testing.T) {
	m := fitTiny(t, decoreg.HeadDecoder, 1)
	// One executor (Workers 1), so that one slow batch occupies them all.
	s, ts := newTestServer(t, m, Options{QueueLen: 1, Workers: 1})
	e := s.reg.get("m")
	blocker := &job{ctx: context.Background(), q: &query{rows: 1, x: []float64{0, 0}, want: map[string]bool{outMean: true}}, done: make(chan struct{})}
	// A queue of one that is full: put a job in while the executor is
	// busy with a slow batch of many samples.
	slow := `{"x":[` + strings.TrimSuffix(strings.Repeat("[1,2],", 2000), ",") + `],"outputs":["samples"],"samples":{"n":200}}`
	var wg sync.WaitGroup
	wg.Go(func() { post(t, ts.URL+"/v1/models/m/predict", slow) })
	batches := func() float64 {
		for _, g := range gather(t, s) {
			if g.name == "decoreg_batch_requests_count" {
				return g.v
			}
		}
		return 0
	}
	for end := time.Now().Add(5 * time.Second); batches() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the slow request never started")
		}
	}
	e.b.queue <- blocker // the queue is now full
	code, b, h := post(t, ts.URL+"/v1/models/m/predict", `{"x":[[1,2]]}`)
	if code != 503 || h.Get("Retry-After") == "" || !strings.Contains(string(b), "queue is full") {
		t.Errorf("with a full queue: %d %s", code, b)
	}
	wg.Wait()
	<-blocker.done

	// A deadline shorter than the work.
	_, ts2 := newTestServer(t, m, Options{RequestTimeout: time.Millisecond})
	code, b, h = post(t, ts2.URL+"/v1/models/m/predict", slow)
	if code != 503 || h.Get("Retry-After") == "" || !strings.Contains(string(b), "longer than the server's limit") {
		t.Errorf("past the deadline: %d %.200s", code, b)
	}
}

// TestReload: a model directory's files are served; a file replaced
// atomically is reloaded, a corrupt replacement is refused and the old
// model kept, a removed file is no longer served.
func TestReload(t *testing.T) {
	dir := t.TempDir()
	m1 := fitTiny(t, decoreg.HeadDecoder, 1)
	m2 := fitTiny(t, decoreg.HeadRiemann, 2)
	saveModel(t, m1, filepath.Join(dir, "a.model"))
	saveModel(t, m1, filepath.Join(dir, "b.drg"))
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a model"), 0o644)
	os.WriteFile(filepath.Join(dir, ".a.model.tmp123"), []byte("half a model"), 0o644)
	s, ts := newTestServer(t, nil, Options{Models: dir, ReloadEvery: 10 * time.Millisecond})
	heads := func() map[string]string {
		out := map[string]string{}
		for _, mi := range s.Models() {
			out[mi.Name] = mi.Head
		}
		return out
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for end := time.Now().Add(5 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("timed out waiting for %s; serving %v", what, heads())
			}
		}
	}
	if h := heads(); len(h) != 2 || h["a"] != "decoder" || h["b"] != "decoder" {
		t.Fatalf("serving %v", h)
	}
	// Replace a.model atomically (write elsewhere, rename over).
	tmp := filepath.Join(dir, ".a.model.new")
	saveModel(t, m2, tmp)
	os.Rename(tmp, filepath.Join(dir, "a.model"))
	waitFor("the reload", func() bool { return heads()["a"] == "riemann" })
	want, _ := m2.Predict(context.Background(), [][]float64{{1, 2}}, decoreg.PredictOptions{Outputs: decoreg.OutMean})
	code, b, _ := post(t, ts.URL+"/v1/models/a/predict", `{"x":[[1,2]],"outputs":["mean"]}`)
	if code != 200 || !eq(*decode(t, b).Predictions[0].Mean, want.Mean[0]) {
		t.Errorf("after the reload: %d %s, want mean %v", code, b, want.Mean[0])
	}
	// A corrupt replacement is refused; the old model stays.
	good, _ := os.ReadFile(filepath.Join(dir, "a.model"))
	os.WriteFile(tmp, good[:len(good)/2], 0o644)
	os.Rename(tmp, filepath.Join(dir, "a.model"))
	refusals := func() float64 {
		mfs, _ := s.metrics.reg.Gather()
		for _, mf := range mfs {
			if mf.GetName() == "decoreg_model_loads_total" {
				for _, m := range mf.Metric {
					if m.Label[0].GetValue() == "error" {
						return m.Counter.GetValue()
					}
				}
			}
		}
		return 0
	}
	waitFor("the refusal", func() bool { return refusals() >= 1 })
	// A refused file is not tried again while it is unchanged, but is once
	// its mode changes (a file made readable).
	time.Sleep(50 * time.Millisecond)
	if n := refusals(); n != 1 {
		t.Errorf("an unchanged refused file was tried %v times", n)
	}
	os.Chmod(filepath.Join(dir, "a.model"), 0o600)
	waitFor("the retry after chmod", func() bool { return refusals() >= 2 })
	if code, b, _ := post(t, ts.URL+"/v1/models/a/predict", `{"x":[[1,2]],"outputs":["mean"]}`); code != 200 || !eq(*decode(t, b).Predictions[0].Mean, want.Mean[0]) {
		t.Errorf("after a corrupt replacement: %d %s, want the old model's mean %v", code, b, want.Mean[0])
	}
	// Removed: no longer served.
	os.Remove(filepath.Join(dir, "b.drg"))
	waitFor("the removal", func() bool { _, ok := heads()["b"]; return !ok })
	if code, _, _ := post(t, ts.URL+"/v1/models/b/predict", `{"x":[[1,2]]}`); code != 404 {
		t.Errorf("removed model: %d", code)
	}
}

// TestNewErrors: what New refuses.
func TestNewErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "bad.model"), []byte("garbage"), 0o644)
	for _, o := range []Options{
		{},
		{Model: "a", Models: "b"},
		{Model: filepath.Join(dir, "missing.model")},
		{Model: filepath.Join(dir, "bad.model")},
		{Models: dir},
		{Models: filepath.Join(dir, "nodir")},
	} {
		o.Log = quietLog()
		if s, err := New(o); err == nil {
			s.Close()
			t.Errorf("New(%+v) accepted", o)
		}
	}
	// Negative settings were taken as the defaults; the doc says 0 is.
	for name, o := range map[string]Options{
		"ReloadEvery": {ReloadEvery: -1}, "MaxBodyBytes": {MaxBodyBytes: -1}, "RequestTimeout": {RequestTimeout: -1},
		"BatchWait": {BatchWait: -1}, "MaxBatchRows": {MaxBatchRows: -1}, "QueueLen": {QueueLen: -1}, "Workers": {Workers: -1},
		"Limits.MaxRows": {Limits: Limits{MaxRows: -1}}, "Limits.MaxValues": {Limits: Limits{MaxValues: -5}},
	} {
		o.Model, o.Log = filepath.Join(dir, "bad.model"), quietLog()
		if _, err := New(o); err == nil || !strings.Contains(err.Error(), name+" is negative") {
			t.Errorf("%s negative: %v", name, err)
		}
	}
}

// serveModel serves a tiny decoder model, as "m", with options o on a
// loopback port through Serve with the grace period grace; cancel stops
// it and served receives Serve's result.
func serveModel(t *testing.T, o Options, grace time.Duration) (s *Server, addr string, cancel func(), served chan error) {
	t.Helper()
	o.Model = filepath.Join(t.TempDir(), "m.model")
	saveModel(t, fitTiny(t, decoreg.HeadDecoder, 1), o.Model)
	o.Log = quietLog()
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served = make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln, grace) }()
	return s, ln.Addr().String(), cancel, served
}

// TestGracefulShutdown: cancelling Serve's context lets the request in
// flight finish with its answer, refuses new connections, and returns nil.
func TestGracefulShutdown(t *testing.T) {
	s, addr, cancel, served := serveModel(t, Options{}, 10*time.Second)
	url := "http://" + addr + "/v1/models/m/predict"
	slow := `{"x":[` + strings.TrimSuffix(strings.Repeat("[1,2],", 500), ",") + `],"outputs":["samples"],"samples":{"n":200}}`
	type result struct {
		code int
		n    int
	}
	res := make(chan result, 1)
	go func() {
		code, b, _ := post(t, url, slow)
		var r Response
		json.Unmarshal(b, &r)
		res <- result{code, len(r.Predictions)}
	}()
	for b, _, _ := s.BatchTotals(); b == 0; b, _, _ = s.BatchTotals() { // the request is being predicted
		time.Sleep(time.Millisecond)
	}
	cancel()
	if r := <-res; r.code != 200 || r.n != 500 {
		t.Errorf("the request in flight: %d with %d predictions", r.code, r.n)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if _, err := http.Post(url, "application/json", strings.NewReader(`{"x":[[1,2]]}`)); err == nil {
		t.Error("a request after the shutdown was answered")
	}
}

// rawPost sends the headers of a POST now and returns a function that
// sends the body and reads the answer's status line and body.
func rawPost(t *testing.T, addr, path, body string) func() (string, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", path, len(body))
	return func() (string, string) {
		defer c.Close()
		io.WriteString(c, body)
		b, _ := io.ReadAll(c)
		head, rest, _ := strings.Cut(string(b), "\r\n\r\n")
		status, _, _ := strings.Cut(head, "\r\n")
		return status, rest
	}
}

// TestReplacedWhileUploading: a model replaced by one with other features
// while a request's body is on its way answers with the new model, reading
// the row by the names the client gave.
func TestReplacedWhileUploading(t *testing.T) {
	dir := t.TempDir()
	m1 := fitTiny(t, decoreg.HeadRiemann, 1)
	m2 := fitTiny(t, decoreg.HeadRiemann, 2)
	if err := m2.SetNames([]string{"b", "a"}, "y"); err != nil { // the same features, the other order
		t.Fatal(err)
	}
	saveModel(t, m1, filepath.Join(dir, "s.model"))
	s, ts := newTestServer(t, nil, Options{Models: dir, ReloadEvery: MinReloadEvery})
	finish := rawPost(t, strings.TrimPrefix(ts.URL, "http://"), "/v1/models/s/predict", `{"rows":[{"a":1,"b":0}],"outputs":["mean"]}`)
	tmp := filepath.Join(dir, ".s.new")
	saveModel(t, m2, tmp)
	os.Rename(tmp, filepath.Join(dir, "s.model"))
	for end := time.Now().Add(5 * time.Second); s.reg.get("s").spec.features[0] != "b"; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("no reload")
		}
	}
	status, body := finish()
	want, _ := m2.Predict(context.Background(), [][]float64{{0, 1}}, decoreg.PredictOptions{Outputs: decoreg.OutMean}) // b=0, a=1
	if !strings.Contains(status, "200") || !eq(*decode(t, []byte(body)).Predictions[0].Mean, want.Mean[0]) {
		t.Errorf("%s %s; want the new model's mean %v", status, body, want.Mean[0])
	}
}

// TestStalledUploadsDoNotDelay: requests still uploading their bodies do
// not hold a batch open: a lone complete request is answered at once.
func TestStalledUploadsDoNotDelay(t *testing.T) {
	m := fitTiny(t, decoreg.HeadMDN, 1)
	_, ts := newTestServer(t, m, Options{BatchWait: 2 * time.Second})
	addr := strings.TrimPrefix(ts.URL, "http://")
	for range 3 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /v1/models/m/predict HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n{\"x\":")
	}
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	if code, b, _ := post(t, ts.URL+"/v1/models/m/predict", `{"x":[[1,2]],"outputs":["mean"]}`); code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("a lone request took %v behind stalled uploads (batch wait 2s)", d)
	}
}

// TestTimeoutStopsWork: a request past its deadline stops computing, so
// the next request is not stuck behind it; the default quantile levels do
// not count against MaxQuantiles; a density grid on huge bounds stays
// finite.
func TestTimeoutStopsWork(t *testing.T) {
	m := fitTiny(t, decoreg.HeadDecoder, 1)
	_, ts := newTestServer(t, m, Options{RequestTimeout: time.Second, Limits: Limits{MaxQuantiles: 2, MaxDensity: 1 << 24, MaxValues: 1 << 26}})
	code, b, _ := post(t, ts.URL+"/v1/models/m/predict", `{"x":[[1,2]],"outputs":["density"],"density":{"n":3000000}}`)
	if code != 503 {
		t.Errorf("a density of 3M points: %d %.100s", code, b)
	}
	start := time.Now()
	if code, b, _ := post(t, ts.URL+"/v1/models/m/predict", `{"x":[[1,2]]}`); code != 200 {
		t.Errorf("the next request: %d %s", code, b)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Logf("the next request took %v", d)
	}
	code, b, _ = post(t, ts.URL+"/v1/models/m/predict", `{"x":[[1,2]],"outputs":["density"],"density":{"n":5,"lo":-8e307,"hi":8e307}}`)
	if code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	ys := decode(t, b).Predictions[0].Density.Y
	for k, y := range ys {
		if v := float64(y); math.IsInf(v, 0) || v < -8e307 || v > 8e307 || k > 0 && !(v > float64(ys[k-1])) {
			t.Errorf("grid %v", ys)
			break
		}
	}
}

// TestGraceExpires: past the grace period, the work still running is
// cancelled, its client gets 503, and Serve returns DeadlineExceeded soon.
func TestGraceExpires(t *testing.T) {
	s, addr, cancel, served := serveModel(t, Options{Limits: Limits{MaxDensity: 1 << 24, MaxValues: 1 << 26}}, 100*time.Millisecond)
	codes := make(chan int, 1)
	go func() {
		code, _, _ := post(t, "http://"+addr+"/v1/models/m/predict", `{"x":[[1,2]],"outputs":["density"],"density":{"n":16000000}}`)
		codes <- code
	}()
	for b, _, _ := s.BatchTotals(); b == 0; b, _, _ = s.BatchTotals() {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	cancel()
	err := <-served
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Serve: %v, want DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("shutdown took %v with a grace of 100ms", d)
	}
	var ge *GraceError
	if !errors.As(err, &ge) || ge.Cancelled != 1 || ge.Cut != 0 || ge.Requests != 1 {
		t.Errorf("Serve: %v, want 1 request cancelled", err)
	}
	if code := <-codes; code != 503 && code != 0 {
		t.Errorf("the cancelled request: %d", code)
	}
}

// TestGraceAnswerSent: an answer being sent when the grace period ends,
// which its client then reads whole within the second the connections are
// given, is not counted cut: Serve returns nil (it counted it cancelled,
// and serve exited 1 though the client had its answer, helper-121).
func TestGraceAnswerSent(t *testing.T) {
	s, addr, cancel, served := serveModel(t, Options{Limits: Limits{MaxDensity: 1 << 24, MaxValues: 1 << 26}}, 100*time.Millisecond)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	body := `{"x":[[1,2]],"outputs":["density"],"density":{"n":400000}}` // an answer of some 16 MB, more than the sockets hold
	fmt.Fprintf(c, "POST /v1/models/m/predict HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	waitAnswering(t, s)
	cancel()
	time.Sleep(300 * time.Millisecond) // past the grace period, the answer not read
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 || int64(len(b)) != resp.ContentLength {
		t.Errorf("the answer: %d, %d of %d bytes, %v", resp.StatusCode, len(b), resp.ContentLength, err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v, want nil (the answer arrived whole)", err)
	}
}

// TestGraceAnswerCut: an answer still being sent a second after the grace
// period (its client does not read) is counted cut, not cancelled.
func TestGraceAnswerCut(t *testing.T) {
	s, addr, cancel, served := serveModel(t, Options{Limits: Limits{MaxDensity: 1 << 24, MaxValues: 1 << 26}}, 100*time.Millisecond)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"x":[[1,2]],"outputs":["density"],"density":{"n":400000}}` // some 16 MB, more than the sockets hold
	fmt.Fprintf(c, "POST /v1/models/m/predict HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	waitAnswering(t, s)
	cancel()
	var ge *GraceError
	if err := <-served; !errors.As(err, &ge) || ge.Cut != 1 || ge.Cancelled != 0 || ge.Requests != 1 {
		t.Errorf("Serve: %v, want 1 answer cut", err)
	}
}

// TestGraceIdleConnection: a connection that sent no request keeps
// Shutdown waiting past grace (net/http waits up to 5 s for a new
// connection's request), but no request was cut: Serve returns nil.
// A request cut at the grace's end is counted in the *GraceError.
func TestGraceIdleConnection(t *testing.T) {
	_, addr, cancel, served := serveModel(t, Options{}, 100*time.Millisecond)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	time.Sleep(50 * time.Millisecond) // accepted
	cancel()
	if err := <-served; err != nil {
		t.Errorf("Serve with an idle connection: %v, want nil", err)
	}
}

// rawRequest sends a POST with body to addr on its own connection, calls
// after (nil: nothing) once it is sent, and returns the answer's status
// and body.
func rawRequest(t *testing.T, addr, path, body string, after func(*net.TCPConn)) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", path, len(body), body); err != nil {
		t.Fatalf("sending: %v", err)
	}
	if after != nil {
		after(c.(*net.TCPConn))
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestBodyEdges: a client that sends a whole body over the limit before
// reading gets the 413 (the connection was reset while it sent); a client
// that closes its sending side gets 499 with a JSON error, not 200 with an
// empty body; a cut-off body is named so, not "empty body"; a byte order
// mark is skipped; messages do not escape < and >.
func TestBodyEdges(t *testing.T) {
	_, addr, cancel, served := serveModel(t, Options{MaxBodyBytes: 1000, Limits: Limits{MaxDensity: 1 << 24, MaxValues: 1 << 26}}, time.Second)
	defer func() { cancel(); <-served }()
	const path = "/v1/models/m/predict"
	big := `{"x":[[1,2]],"pad":"` + strings.Repeat("a", 4<<20) + `"}`
	if code, body := rawRequest(t, addr, path, big, nil); code != 413 || !strings.Contains(body, "larger than the server's limit") {
		t.Errorf("a large body sent whole: %d %s", code, body)
	}
	slow := `{"x":[[1,2]],"outputs":["density"],"density":{"n":16000000}}`
	if len(slow) > 1000 {
		t.Fatal("the request is over the limit")
	}
	code, body := rawRequest(t, addr, path, slow, func(c *net.TCPConn) { c.CloseWrite() })
	if code != 499 || !strings.Contains(body, "closed the connection") {
		t.Errorf("a client that closed its sending side: %d %q", code, body)
	}
	for req, want := range map[string]string{
		"":             "empty body",
		"  ":           "empty body",
		"{":            "ends in the middle of a value",
		`{"x":`:        "ends in the middle of a value",
		`{"x":[[1,2]]`: "ends in the middle of a value",
		"\ufeff" + `{"x":[[1,2]],"outputs":["mean"]}`: "",
	} {
		code, b, _ := post(t, "http://"+addr+path, req)
		if want == "" {
			if code != 200 {
				t.Errorf("%q: %d %s", req, code, b)
			}
			continue
		}
		if code != 400 || !strings.Contains(string(b), want) {
			t.Errorf("%q: %d %s, want %q", req, code, b, want)
		}
	}
	code, b, _ := post(t, "http://"+addr+path, `{"x":[[1,2]],"outputs":["samples"],"samples":{"n":2,"temperature":-1}}`)
	if code != 400 || !strings.Contains(string(b), "must be > 0") {
		t.Errorf("an error with > or <: %d %s", code, b)
	}
}

// TestReloadOddFiles: with --models DIR, a file name that is not UTF-8 is
// served under a valid name (its label broke /metrics as a whole); a
// broken file does not keep another file of the same name from being
// served; a served model's file replaced by a directory keeps the model;
// and /readyz is 503 once no model is served.
func TestReloadOddFiles(t *testing.T) {
	dir := t.TempDir()
	m1 := fitTiny(t, decoreg.HeadDecoder, 1)
	saveModel(t, m1, filepath.Join(dir, "bad\xff.model"))
	saveModel(t, m1, filepath.Join(dir, "a.model"))
	os.WriteFile(filepath.Join(dir, "a.drg"), []byte("junk"), 0o644) // before a.model in the directory's order
	s, ts := newTestServer(t, nil, Options{Models: dir, ReloadEvery: 10 * time.Millisecond})
	names := map[string]string{}
	for _, mi := range s.Models() {
		names[mi.Name] = mi.File
	}
	if names["bad\uFFFD"] == "" || names["a"] != filepath.Join(dir, "a.model") || len(names) != 2 {
		t.Fatalf("serving %v", names)
	}
	res, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "decoreg_") {
		t.Errorf("/metrics: %d %.300s", res.StatusCode, body)
	}
	// a.model replaced by a directory (through a link renamed over it, so
	// that no scan sees it gone, as one between a removal and a mkdir did):
	// still served.
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, ".link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, ".link"), filepath.Join(dir, "a.model")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if code, b, _ := post(t, ts.URL+"/v1/models/a/predict", `{"x":[[1,2]],"outputs":["mean"]}`); code != 200 {
		t.Errorf("a.model replaced by a directory: %d %s", code, b)
	}
	// Every file gone: not ready.
	for _, f := range []string{"a.model", "a.drg", "bad\xff.model"} {
		os.RemoveAll(filepath.Join(dir, f))
	}
	for end := time.Now().Add(5 * time.Second); len(s.Models()) > 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("still serving %v", s.Models())
		}
	}
	res, err = http.Get(ts.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz with no model: %d", res.StatusCode)
	}
}

// lockedLog is a log destination the watcher and the test share.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestWatchedDirectoryGone: a --models directory that disappears is logged
// once, not at every scan, while its models are still served; when it is
// back, that is logged once and its files are served again.
func TestWatchedDirectoryGone(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "models")
	os.Mkdir(dir, 0o755)
	saveModel(t, fitTiny(t, decoreg.HeadDecoder, 1), filepath.Join(dir, "a.model"))
	var logs lockedLog
	_, ts := newTestServer(t, nil, Options{Models: dir, ReloadEvery: MinReloadEvery, Log: log.New(&logs, "", 0)})
	if err := os.Rename(dir, filepath.Join(root, "away")); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(5 * time.Second); !strings.Contains(logs.String(), "no such file"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the missing directory not logged:\n%s", logs.String())
		}
	}
	time.Sleep(200 * time.Millisecond) // about 100 more scans
	if n := strings.Count(logs.String(), "no such file"); n != 1 {
		t.Errorf("the missing directory logged %d times, want once:\n%s", n, logs.String())
	}
	if code, b, _ := post(t, ts.URL+"/v1/models/a/predict", `{"x":[[1,2]],"outputs":["mean"]}`); code != 200 {
		t.Errorf("with the directory gone: %d %s", code, b)
	}
	if err := os.Rename(filepath.Join(root, "away"), dir); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(5 * time.Second); !strings.Contains(logs.String(), "readable again"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the directory's return not logged:\n%s", logs.String())
		}
	}
	time.Sleep(50 * time.Millisecond)
	if n := strings.Count(logs.String(), "readable again"); n != 1 {
		t.Errorf("the return logged %d times:\n%s", n, logs.String())
	}
}

// TestBodyRefusedBeforeReading: a declared Content-Length over the limit
// is 413 at once (with "Expect: 100-continue" the client was invited to
// upload it first), and a compressed body is 415 with a message, not a
// JSON syntax error about its first byte.
func TestBodyRefusedBeforeReading(t *testing.T) {
	_, ts := newTestServer(t, fitTiny(t, decoreg.HeadMDN, 1), Options{MaxBodyBytes: 1000})
	u := ts.URL + "/v1/models/m/predict"
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/models/m/predict HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\nExpect: 100-continue\r\n\r\n")
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.Contains(line, "413") {
		t.Errorf("Expect: 100-continue with 1e9 bytes: %q %v, want 413", line, err)
	}
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader("\x1f\x8b\x08\x00"))
	req.Header.Set("Content-Encoding", "gzip")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusUnsupportedMediaType || !strings.Contains(string(b), "Content-Encoding") {
		t.Errorf("a gzip body: %d %s", res.StatusCode, b)
	}
}

// TestTooManyValues: a body with more values than the row limit allows
// (one row of 2 million numbers) is refused before it is decoded, and
// commas inside strings do not count.
func TestTooManyValues(t *testing.T) {
	_, ts := newTestServer(t, fitTiny(t, decoreg.HeadMDN, 1), Options{Limits: Limits{MaxRows: 10}})
	var b strings.Builder
	b.WriteString(`{"x":[[0`)
	for range 2_000_000 {
		b.WriteString(",0")
	}
	b.WriteString(`]]}`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, body, _ := post(t, ts.URL+"/v1/models/m/predict", b.String())
	runtime.ReadMemStats(&after)
	if code != 400 || !strings.Contains(string(body), "values") {
		t.Errorf("2 million values: %d %s", code, body)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("refusing it allocated %d MiB", grew>>20)
	}
	if n := separators([]byte(`{"a":"x,y,\"z,",  "b":[1,2]}`)); n != 2 {
		t.Errorf("separators: %d, want 2", n)
	}
}

// TestTrimExt: a model's name from its file, one that a URL path reaches.
func TestTrimExt(t *testing.T) {
	for in, want := range map[string]string{"d/m.drg": "m", "d/.m": ".m", "d/..drg": "..drg", "d/...drg": "...drg", "m": "m", "a.b.model": "a.b"} {
		if got := trimExt(in); got != want {
			t.Errorf("trimExt(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestModelsDirNotRegular: in --models DIR, a link to nothing named like a
// model file is logged once as not served (it was skipped without a word,
// where a bad regular file is logged), not at every scan.
func TestModelsDirNotRegular(t *testing.T) {
	dir := t.TempDir()
	saveModel(t, fitTiny(t, decoreg.HeadDecoder, 1), filepath.Join(dir, "a.model"))
	if err := os.Symlink(filepath.Join(dir, "nothing"), filepath.Join(dir, "b.drg")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	var logs lockedLog
	s, _ := newTestServer(t, nil, Options{Models: dir, ReloadEvery: MinReloadEvery, Log: log.New(&logs, "", 0)})
	time.Sleep(100 * time.Millisecond) // about 50 scans
	if n := strings.Count(logs.String(), "b.drg\" not served: not a regular file"); n != 1 {
		t.Errorf("the dangling link logged %d times, want once:\n%s", n, logs.String())
	}
	if ms := s.Models(); len(ms) != 1 || ms[0].Name != "a" {
		t.Errorf("serving %v", ms)
	}
}

// TestModelsDirNotRegularAgain: an entry that is not a regular file, then
// a regular file that does not load, then not a regular file again, is
// logged each time it turns (the second turn went unlogged).
func TestModelsDirNotRegularAgain(t *testing.T) {
	dir := t.TempDir()
	saveModel(t, fitTiny(t, decoreg.HeadDecoder, 1), filepath.Join(dir, "a.model"))
	b := filepath.Join(dir, "b.drg")
	if err := os.Symlink(filepath.Join(dir, "nothing"), b); err != nil {
		t.Skip("no symbolic links:", err)
	}
	var logs lockedLog
	newTestServer(t, nil, Options{Models: dir, ReloadEvery: MinReloadEvery, Log: log.New(&logs, "", 0)})
	wait := func(what string, n int) {
		t.Helper()
		for end := time.Now().Add(5 * time.Second); strings.Count(logs.String(), what) < n; time.Sleep(2 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("want %d of %q in:\n%s", n, what, logs.String())
			}
		}
	}
	wait("b.drg\" not served: not a regular file", 1)
	os.Remove(b)
	os.WriteFile(b, []byte("junk"), 0o644) // regular, does not load
	wait("b.drg\" not served: ", 2)
	os.Remove(b)
	os.Symlink(filepath.Join(dir, "nothing"), b)
	wait("b.drg\" not served: not a regular file", 2)
}

// TestModelsDirPartialCopy: a model copied into the directory in place
// (not renamed into it) was refused, logged and counted as a failed load
// at every scan until the copy ended (review: 14 lines for a slow copy).
// A file that does not load is left to its writer until it has not
// changed for loadSettle; an old one is refused at once, as before.
func TestModelsDirPartialCopy(t *testing.T) {
	dir := t.TempDir()
	saveModel(t, fitTiny(t, decoreg.HeadDecoder, 1), filepath.Join(dir, "a.model"))
	whole := filepath.Join(t.TempDir(), "b.drg")
	saveModel(t, fitTiny(t, decoreg.HeadMDN, 2), whole)
	full, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	var logs lockedLog
	s, _ := newTestServer(t, nil, Options{Models: dir, ReloadEvery: MinReloadEvery, Log: log.New(&logs, "", 0)})
	b := filepath.Join(dir, "b.drg")
	for _, n := range []int{len(full) / 3, 2 * len(full) / 3} {
		if err := os.WriteFile(b, full[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		time.Sleep(60 * time.Millisecond) // a few scans
	}
	if strings.Contains(logs.String(), "b.drg") {
		t.Errorf("the copy under way was logged:\n%s", logs.String())
	}
	if err := os.WriteFile(b, full, 0o644); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(5 * time.Second); len(s.Models()) < 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the whole copy was not loaded:\n%s", logs.String())
		}
	}
	if strings.Contains(logs.String(), "not served") {
		t.Errorf("a refusal was logged:\n%s", logs.String())
	}
	// A file that does not load and has not changed for loadSettle is
	// refused at once, and once.
	c := filepath.Join(dir, "c.drg")
	os.WriteFile(c, full[:100], 0o644)
	old := time.Now().Add(-time.Minute)
	os.Chtimes(c, old, old)
	for end := time.Now().Add(5 * time.Second); !strings.Contains(logs.String(), "c.drg\" not served"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("an old bad file was not refused:\n%s", logs.String())
		}
	}
	time.Sleep(60 * time.Millisecond)
	if n := strings.Count(logs.String(), "c.drg\" not served"); n != 1 {
		t.Errorf("an old bad file logged %d times", n)
	}
}

// TestModelsReloadError: a served model's file that changes and does not
// load keeps the model served, and /v1/models now says so (reload_error):
// only the log and a counter did (review); a file that loads again clears
// it.
func TestModelsReloadError(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.model")
	saveModel(t, fitTiny(t, decoreg.HeadDecoder, 1), a)
	good, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	s, ts := newTestServer(t, nil, Options{Models: dir, ReloadEvery: MinReloadEvery})
	until := func(ok func(ModelInfo) bool) ModelInfo {
		t.Helper()
		for end := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if ms := s.Models(); len(ms) == 1 && ok(ms[0]) {
				return ms[0]
			}
			if time.Now().After(end) {
				t.Fatalf("models %+v", s.Models())
			}
		}
	}
	until(func(m ModelInfo) bool { return m.ReloadError == "" })
	// A truncated file renamed over the served one, then the served one
	// (kept as a backup) moved back: the same file again clears it (it
	// stayed; review).
	backup := filepath.Join(dir, ".backup")
	if err := os.Link(a, backup); err != nil { // the served file, as a backup keeps it
		t.Skip("no hard links:", err)
	}
	bad := filepath.Join(dir, ".bad")
	os.WriteFile(bad, good[:len(good)/2], 0o644)
	old := time.Now().Add(-time.Minute) // settled
	os.Chtimes(bad, old, old)
	os.Rename(bad, a)
	until(func(m ModelInfo) bool { return m.ReloadError != "" })
	os.Rename(backup, a)
	until(func(m ModelInfo) bool { return m.ReloadError == "" })
	os.WriteFile(a, good[:len(good)/2], 0o644)
	os.Chtimes(a, old, old)
	m := until(func(m ModelInfo) bool { return m.ReloadError != "" })
	if !strings.Contains(m.ReloadError, "truncated") || m.Name != "a" {
		t.Errorf("reload_error %q", m.ReloadError)
	}
	resp, err := http.Get(ts.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"reload_error":`) {
		t.Errorf("GET /v1/models: %s", b)
	}
	os.WriteFile(a, good, 0o644)
	until(func(m ModelInfo) bool { return m.ReloadError == "" })
}

// TestDensityGridInSupport: the default density grid of a bounded head
// stays within its support, so that every point has a density (a grid of
// 2 points lay outside it: both -Inf); an unbounded head's is widened.
func TestDensityGridInSupport(t *testing.T) {
	for _, h := range []decoreg.Head{decoreg.HeadDecoder, decoreg.HeadRiemann, decoreg.HeadMDN, "unnormalized"} {
		var m *decoreg.Model
		if h == "unnormalized" { // a bounded tokenization
			m = fitVocab(t, "unnormalized:base=10,exponent=1,mantissa=3")
			h = decoreg.HeadDecoder
		} else {
			m = fitTiny(t, h, 1)
		}
		_, ts := newTestServer(t, m, Options{})
		dd, err := m.Dist([]float64{1, 2})
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := dd.Quantile(0), dd.Quantile(1)
		for _, n := range []int{2, 3, 200} {
			code, b, _ := post(t, ts.URL+"/v1/models/m/predict", fmt.Sprintf(`{"x":[[1,2]],"outputs":["density"],"density":{"n":%d}}`, n))
			if code != 200 {
				t.Fatalf("%v n %d: %d %s", h, n, code, b)
			}
			p := decode(t, b).Predictions[0].Density
			ys, lp := p.Y, p.LogPDF
			if len(ys) != n || len(lp) != n {
				t.Fatalf("%v n %d: %d points, %d densities", h, n, len(ys), len(lp))
			}
			for k := range ys {
				y, l := float64(ys[k]), float64(lp[k])
				if y < lo || y > hi || math.IsInf(l, 0) || math.IsNaN(l) {
					t.Errorf("%v n %d: point %d: logpdf(%v) = %v, support [%v, %v]", h, n, k, y, l, lo, hi)
				}
			}
			if h == decoreg.HeadMDN && !(float64(ys[0]) < dd.Quantile(0.001)) {
				t.Errorf("MDN n %d: grid from %v, not below the 0.001 quantile %v", n, ys[0], dd.Quantile(0.001))
			}
		}
	}
}

// fitVocab trains a small decoder of tokenization spec on fitTiny's data.
func fitVocab(t testing.TB, spec string) *decoreg.Model {
	t.Helper()
	return fitConfig(t, decoreg.Config{Vocab: spec, EncLayers: 1, EncWidth: 32, MaxEpochs: 3, Seed: 1, Threads: 1})
}

// TestDensityGridHamming: a Hamming tokenization's 0 and 1 quantiles are
// the least and greatest of its draws, with density beyond them: the
// default grid is not cut there.
func TestDensityGridHamming(t *testing.T) {
	m := fitVocab(t, "hamming:length=8")
	_, ts := newTestServer(t, m, Options{})
	dd, err := m.Dist([]float64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	q := dist.Quantiles(dd, []float64{0, 0.001, 0.999, 1})
	code, b, _ := post(t, ts.URL+"/v1/models/m/predict", `{"x":[[1,2]],"outputs":["density"],"density":{"n":3}}`)
	if code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	ys := decode(t, b).Predictions[0].Density.Y
	lo := q[1] - 0.05*(q[2]-q[1])
	if !(lo < q[0]) {
		t.Fatalf("the widened grid's start %v is not below the least draw %v: the test shows nothing", lo, q[0])
	}
	if float64(ys[0]) != lo {
		t.Errorf("grid from %v, want the 0.001 quantile %v less 5%% of the span, %v (not the least draw %v)", ys[0], q[1], lo, q[0])
	}
}

// TestClientGoneMidAnswer: a client that closes the connection while a
// large answer is being sent is counted 499, not 200 (helper-121: its
// 200 had gone out, but not the answer).
func TestClientGoneMidAnswer(t *testing.T) {
	_, addr, cancel, served := serveModel(t, Options{Limits: Limits{MaxDensity: 1 << 24, MaxValues: 1 << 26}}, time.Second)
	defer func() { cancel(); <-served }()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	body := `{"x":[[1,2]],"outputs":["density"],"density":{"n":400000}}` // some 16 MB, more than the sockets hold
	fmt.Fprintf(c, "POST /v1/models/m/predict HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	if _, err := io.ReadFull(c, make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	c.(*net.TCPConn).SetLinger(0) // a reset: the server's next write fails
	c.Close()
	want := `decoreg_http_request_errors_total{code="499",route="/v1/models/{name}/predict"} 1`
	var b []byte
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), want) {
			return
		}
	}
	t.Errorf("metrics lack %q:\n%s", want, grepLines(string(b), "decoreg_http_request"))
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// failWriter is a ResponseWriter whose body writes fail with err.
type failWriter struct {
	http.ResponseWriter
	err error
}

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }

// A failed answer write counts 499 only where the client went: not at the
// server's own write deadline, which also cancels the request's context
// (helper-126), nor while shutting down.
func TestWriteBodyCodes(t *testing.T) {
	s := &Server{}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		err     error
		closing bool
		want    int
	}{
		{errors.New("connection reset by peer"), false, statusClientClosed},
		{&net.OpError{Op: "write", Err: os.ErrDeadlineExceeded}, false, 200},
		{errors.New("connection reset by peer"), true, 200},
		{nil, false, 200},
	} {
		s.closing.Store(c.closing)
		w := &answerWriter{ResponseWriter: failWriter{httptest.NewRecorder(), c.err}, s: s, st: &reqState{}, rctx: gone}
		s.reqs = map[*reqState]struct{}{}
		if got := writeBody(w, 200, []byte("{}")); got != c.want {
			t.Errorf("write error %v, closing %v: code %d, want %d", c.err, c.closing, got, c.want)
		}
	}
}

// waitAnswering waits until a request of s has begun its answer.
func waitAnswering(t *testing.T, s *Server) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(time.Millisecond) {
		s.reqMu.Lock()
		answering := false
		for st := range s.reqs {
			answering = answering || st.answering
		}
		s.reqMu.Unlock()
		if answering {
			return
		}
		if time.Now().After(end) {
			t.Fatal("no answer begun")
		}
	}
}

// TestBatchLetsGoOfDists: a batch lets go of each row's distribution once
// the row is answered. The caches its summaries fill (a decoder's tree
// expansion, an ensemble's members' pieces) were held for every row until
// the whole batch was answered: one legal request of 10,000 rows of an
// ensemble of 3 took 5-8 GB where predict took 390 MB (helper-141).
func TestBatchLetsGoOfDists(t *testing.T) {
	m := fitConfig(t, decoreg.Config{Head: decoreg.HeadDecoder, Vocab: "normalized:base=8,length=5", EncLayers: 1, EncWidth: 16, MaxEpochs: 1, Ensemble: 3, Threads: 1})
	_, ts := newTestServer(t, m, Options{RequestTimeout: time.Minute})
	var b strings.Builder
	b.WriteString(`{"outputs":["mean","quantiles"],"quantiles":[0.1,0.5,0.9],"x":[`)
	const rows = 1500 // 400 MB live before
	for i := range rows {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "[%g,%g]", float64(i%17)/8-1, float64(i%13)/6-1)
	}
	b.WriteString("]}")
	var code int
	peak := heapwatch.PeakLive(func() { code, _, _ = post(t, ts.URL+"/v1/models/m/predict", b.String()) })
	t.Logf("%d rows: %.1f MB live at the peak", rows, float64(peak)/(1<<20))
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	if peak > 64<<20 {
		t.Errorf("a request of %d rows of an ensemble of 3: %.0f MB live at the peak; want the caches of the rows being answered, not of every row", rows, float64(peak)/(1<<20))
	}
}

// listenServe serves s on a new loopback listener (Serve, with a grace of
// 1 s) until the test ends, and returns its address.
func listenServe(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln, time.Second) }()
	t.Cleanup(func() { cancel(); <-served })
	return ln.Addr().String()
}

// TestStalledUploadTimesOut: a body still arriving at the server's read
// timeout is answered 408, saying so, without the socket's addresses; it
// was a 400 "reading the body: read tcp 127.0.0.1:...->...: i/o timeout"
// (helper-141).
func TestStalledUploadTimesOut(t *testing.T) {
	// With a short --timeout the write deadline (the timeout plus a
	// grace, from the end of the headers) passes before the read timeout:
	// the 408 was counted but not sent (helper-144).
	for _, short := range []bool{false, true} {
		o := Options{Model: filepath.Join(t.TempDir(), "m.model"), Log: quietLog()}
		if short {
			o.RequestTimeout = 50 * time.Millisecond
		}
		saveModel(t, fitTiny(t, decoreg.HeadMDN, 1), o.Model)
		s, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		s.readTimeout = 400 * time.Millisecond
		if short {
			s.writeGrace = 100 * time.Millisecond
		}
		c, err := net.Dial("tcp", listenServe(t, s))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /v1/models/m/predict HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"x\":")
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("short timeout %v: %v", short, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), "read timeout of 400ms") || strings.Contains(string(b), "127.0.0.1") {
			t.Errorf("a stalled upload (short timeout %v): %d %s", short, resp.StatusCode, b)
		}
	}
}
