package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"decoreg"
	"decoreg/data"
	"decoreg/internal/gemm"
	"decoreg/serve"
	"decoreg/synth"
)

var benchServeCmd = &Command{
	Name:      "bench serve",
	UsageLine: "bench serve [--model FILE] [--clients C,...] [--rows R,...] [--requests N] [--batching on,off] [--outputs LIST]",
	Short:     "measure 'decoreg serve': requests/s and latency under concurrent clients",
	Long: `Bench serve starts 'decoreg serve' on 127.0.0.1 (a free port, in this
process) and drives it with C concurrent clients, each sending its next
request as soon as the last is answered, until --requests requests are
answered, for every combination of --rows (rows per request), --clients
and --batching (on: the micro-batcher; off: every request predicted on its
own). The requests ask for --outputs (default: mean and the quantiles
0.1, ..., 0.9) of rows drawn from the model's training distribution. It
prints one JSON object per combination:

	{"rows":1,"clients":16,"batching":true,"requests_per_s":...,"rows_per_s":...,
	 "p50_ms":...,"p95_ms":...,"p99_ms":...,"errors":0,"mean_batch_requests":...,
	 "mean_batch_rows":...,"peak_rss_mb":...,"seconds":...}

Each combination gets a new server and a warm-up of --warmup requests that
are not counted. errors counts requests that failed or were not answered
200, with a warning on standard error naming the first failure; the rates
and latencies are those of the requests answered (every one failing is an
error). peak_rss_mb is the peak resident memory of this process so far
(server and clients together). The clients run in the same process and
share its cores with the server.
As serve, bench serve sets GOGC to 400 unless the environment sets it.

Without --model, it trains a model first (a few seconds): the decoder head
with the defaults of 'decoreg train' (encoder 2x256, normalized:base=8,
length=6) on 5,000 rows of the demo's problem (y|x a Gaussian mixture).

Ctrl-C stops the benchmark (the lines printed are the combinations
measured before it), removes the model it trained, if any, and ends by
the signal (a shell's status 130).`,
}

func init() {
	registerBench(&benchCommand{Name: "serve", Short: benchServeCmd.Short, Run: runBenchServe})
}

type serveBenchResult struct {
	Rows              int     `json:"rows"`
	Clients           int     `json:"clients"`
	Batching          bool    `json:"batching"`
	Outputs           string  `json:"outputs"`
	RequestsPerS      float64 `json:"requests_per_s"`
	RowsPerS          float64 `json:"rows_per_s"`
	P50ms             float64 `json:"p50_ms"`
	P95ms             float64 `json:"p95_ms"`
	P99ms             float64 `json:"p99_ms"`
	Requests          int     `json:"requests"`
	Errors            int     `json:"errors"`
	MeanBatchRequests float64 `json:"mean_batch_requests"`
	MeanBatchRows     float64 `json:"mean_batch_rows"`
	PeakRSSMB         float64 `json:"peak_rss_mb"`
	Seconds           float64 `json:"seconds"`
	Head              string  `json:"head"`
	Kernel            string  `json:"kernel"`
	GOMAXPROCS        int     `json:"gomaxprocs"`
}

func parseInts(flag, s string, lo, hi int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < lo || v > hi {
			return nil, usagef("bench serve: --%s: %s is not a whole number in [%d, %d]", flag, strconv.Quote(f), lo, hi)
		}
		if slices.Contains(out, v) {
			return nil, usagef("bench serve: --%s: %d appears twice", flag, v)
		}
		out = append(out, v)
	}
	return out, nil
}

func runBenchServe(args []string) error {
	serverGC() // as serve: the server runs in this process
	fs := newFlagSet(benchServeCmd)
	modelPath := fs.String("model", "", "serve the model `FILE` (default: train one on built-in data)")
	clientsF := fs.String("clients", "1,16,64", "comma-separated numbers of concurrent `CLIENTS`")
	rowsF := fs.String("rows", "1,100", "comma-separated `ROWS` per request")
	requests := fs.Int("requests", 2000, "answered requests per combination (requests of 100 rows or more: a tenth of it, at least 100 or --requests if fewer)")
	warmup := fs.Int("warmup", 100, "requests before timing, per combination (requests of 100 rows or more: at most as many as are timed)")
	batchingF := fs.String("batching", "on,off", "on, off or on,off")
	outputsF := fs.String("outputs", "mean,quantiles", "the requests' `OUTPUTS` (quantiles: 0.1, ..., 0.9; samples: 100 per row; density: 200 points)")
	if err := parseFlags(benchServeCmd, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("bench serve: unexpected argument %q", fs.Arg(0))
	}
	clients, err := parseInts("clients", *clientsF, 1, 4096)
	if err != nil {
		return err
	}
	rowsList, err := parseInts("rows", *rowsF, 1, serve.DefaultLimits.MaxRows)
	if err != nil {
		return err
	}
	switch {
	case *requests < 1 || *requests > 1e7:
		return usagef("bench serve: --requests must be in [1, 10000000], have %d", *requests)
	case *warmup > 1e7:
		return usagef("bench serve: --warmup must be at most 10000000, have %d", *warmup)
	case *warmup < 0:
		return usagef("bench serve: --warmup must be >= 0, have %d", *warmup)
	}
	var modes []bool
	for _, f := range strings.Split(*batchingF, ",") {
		switch strings.TrimSpace(f) {
		case "on":
			modes = append(modes, true)
		case "off":
			modes = append(modes, false)
		default:
			return usagef("bench serve: --batching: %s is not on or off", strconv.Quote(f))
		}
	}
	if repeated(modes) >= 0 {
		return usagef("bench serve: --batching: %s names a mode twice", strconv.Quote(*batchingF))
	}
	outputs := strings.Split(*outputsF, ",")
	for i, o := range outputs {
		outputs[i] = strings.TrimSpace(o)
		if !slices.Contains(serve.Outputs, outputs[i]) || outputs[i] == "logpdf" || outputs[i] == "cdf" {
			return usagef("bench serve: --outputs: %s is not one of mean, median, mode, quantiles, samples, density", strconv.Quote(o))
		}
		if slices.Contains(outputs[:i], outputs[i]) {
			return usagef("bench serve: --outputs: %s appears twice", strconv.Quote(o))
		}
	}

	dir, err := os.MkdirTemp("", "decoreg-bench-serve-")
	if err != nil {
		return fmt.Errorf("bench serve: %v", err)
	}
	defer os.RemoveAll(dir)
	// A first interrupt stops the benchmark after the requests in flight
	// (the results printed are whole lines), a second at once; the model's
	// directory is removed either way (a killed run had left it).
	ctx, stop := onInterrupt(func() { os.RemoveAll(dir) })
	defer stop()
	var m *decoreg.Model
	if *modelPath == "" {
		prob := synth.NewMixture(1)
		x, y := prob.Sample(5000, 1)
		m, err = decoreg.FitFlat(ctx, x, 5000, 1, y, decoreg.Config{MaxEpochs: 20, Seed: 1})
		if ctx.Err() != nil {
			return interruptedf("bench serve", "interrupted while training the model; nothing measured")
		}
		if err != nil {
			return fmt.Errorf("bench serve: training the model: %v", err)
		}
		*modelPath = filepath.Join(dir, "bench.model")
		if err := m.Save(*modelPath); err != nil {
			return fmt.Errorf("bench serve: %v", err)
		}
	} else if m, err = loadModel("bench serve", *modelPath); err != nil {
		return err
	}
	if m.Config().Head == decoreg.HeadPointwise && (slices.Contains(outputs, "density")) {
		return usagef("bench serve: --outputs density: %s is a pointwise model, without a density", *modelPath)
	}
	d := m.Features()
	enc := json.NewEncoder(stdout)
	for _, rows := range rowsList {
		n, w := *requests, *warmup
		if rows >= 100 {
			// Large requests: a tenth as many, but never more than asked
			// (--requests 5 --rows 10000 made 100 requests of a million rows).
			n = max(min(n, 100), n/10)
			w = min(w, n)
		}
		body := benchBody(d, m.Schema(), rows, outputs)
		for _, c := range clients {
			for _, batching := range modes {
				r, err := benchServeOnce(ctx, *modelPath, body, rows, c, n, w, batching)
				if ctx.Err() != nil {
					return interruptedf("bench serve", "interrupted; the lines above are the cases measured before it")
				}
				if err != nil {
					return err
				}
				r.Outputs = strings.Join(outputs, ",")
				r.Head = string(m.Config().Head)
				enc.Encode(r)
			}
		}
	}
	return nil
}

// benchBody is a request of rows rows of d features in [-1, 1], or, for a
// model with a schema sc (a table's raw columns), of rows by column name:
// its numeric columns' values in [-1, 1] and its categorical ones' levels
// in turn (the server encodes them, as it does for any such model).
func benchBody(d int, sc *data.Schema, rows int, outputs []string) []byte {
	v := func(i, j int) float64 { return math.Round((math.Mod(float64(i*7+j*3), 21)/10-1)*1000) / 1000 }
	req := map[string]any{"outputs": outputs}
	if sc != nil {
		objs := make([]map[string]any, rows)
		for i := range objs {
			objs[i] = map[string]any{}
			for j, c := range sc.Columns {
				switch {
				case c.Kind == data.Categorical && len(c.Levels) > 0:
					objs[i][c.Name] = c.Levels[(i+j)%len(c.Levels)]
				case c.Kind == data.Categorical:
					objs[i][c.Name] = nil // no level seen in training: a missing cell
				default:
					objs[i][c.Name] = v(i, j)
				}
			}
		}
		req["rows"] = objs
	} else {
		x := make([][]float64, rows)
		for i := range x {
			x[i] = make([]float64, d)
			for j := range x[i] {
				x[i][j] = v(i, j)
			}
		}
		req["x"] = x
	}
	if slices.Contains(outputs, "quantiles") {
		req["quantiles"] = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}
	}
	if slices.Contains(outputs, "samples") {
		req["samples"] = map[string]any{"n": 100}
	}
	b, _ := json.Marshal(req)
	return b
}

// benchServeOnce measures one case; once ictx is done (an interrupt), no
// request is sent and those in flight are cancelled.
func benchServeOnce(ictx context.Context, path string, body []byte, rows, clients, n, warmup int, batching bool) (*serveBenchResult, error) {
	s, err := serve.New(serve.Options{Model: path, NoBatching: !batching, QueueLen: 4 * clients, Log: log.New(io.Discard, "", 0)})
	if err != nil {
		return nil, fmt.Errorf("bench serve: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("bench serve: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln, 10*time.Second) }()
	defer func() { cancel(); <-served }()
	name := s.Models()[0].Name
	url := "http://" + ln.Addr().String() + "/v1/models/" + name + "/predict"
	tr := &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients, IdleConnTimeout: time.Minute}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: time.Minute}
	// post sends the body to u, cancelled by an interrupt.
	post := func(u string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ictx, http.MethodPost, u, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		return client.Do(req)
	}
	// do sends one request: its time, and why it failed ("" if it did not).
	do := func() (time.Duration, string) {
		u := url
		if h := benchServeURLHook.Load(); h != nil {
			u = (*h)(url)
		}
		t := time.Now()
		resp, err := post(u)
		if err != nil {
			return time.Since(t), err.Error()
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case err != nil:
			return time.Since(t), err.Error()
		case resp.StatusCode != http.StatusOK:
			return time.Since(t), fmt.Sprintf("%d %s", resp.StatusCode, clipMsg(strings.TrimSpace(string(b)), 300))
		}
		return time.Since(t), ""
	}
	// run sends total requests from the clients; lat, if not nil, gets
	// each successful request's time (a failed one's is left 0).
	var firstErr atomic.Pointer[string]
	run := func(total int, lat []time.Duration) (errs int, secs float64) {
		var next, bad atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for range clients {
			wg.Go(func() {
				for {
					i := int(next.Add(1)) - 1
					if i >= total || ictx.Err() != nil {
						return
					}
					dt, why := do()
					if why != "" {
						bad.Add(1)
						firstErr.CompareAndSwap(nil, &why)
						continue
					}
					if lat != nil {
						lat[i] = dt
					}
				}
			})
		}
		wg.Wait()
		return int(bad.Load()), time.Since(start).Seconds()
	}
	// One request first: one the server refuses (too large for its
	// limits, say) would make every timed request an error.
	resp, err := post(url)
	if err != nil {
		if ictx.Err() != nil {
			return nil, ictx.Err()
		}
		return nil, fmt.Errorf("bench serve: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, usagef("bench serve: the server refuses the request of %d rows: %d %s", rows, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	if warmup > 0 {
		run(warmup, nil)
	}
	b0, q0, r0 := s.BatchTotals()
	firstErr.Store(nil) // the warm-up's failures are not counted
	lat := make([]time.Duration, n)
	errs, secs := run(n, lat)
	if err := ictx.Err(); err != nil {
		// Interrupted (in the warm-up or the timed requests): nothing
		// measured that could be reported (with no request answered,
		// the percentiles had no latency to read and panicked).
		return nil, err
	}
	b1, q1, r1 := s.BatchTotals()
	// The rates and latencies are the answered requests' (a failed one's
	// time is a timeout's: 59 of 64 requests answered 503 after 30 s gave
	// 10,300 rows/s for about 800, and percentiles of the timeouts).
	lat = slices.DeleteFunc(lat, func(d time.Duration) bool { return d == 0 })
	ok := n - errs
	if ok == 0 {
		return nil, fmt.Errorf("bench serve: every one of the %d timed requests of %d rows (%d clients, batching %v) failed: %s", n, rows, clients, batching, *firstErr.Load())
	}
	if errs > 0 {
		fmt.Fprintf(errOut, "bench serve: warning: %d of the %d timed requests of %d rows (%d clients, batching %v) failed, the first: %s; the rates and latencies are the other %d's\n",
			errs, n, rows, clients, batching, *firstErr.Load(), ok)
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		i := min(len(lat)-1, int(math.Ceil(p*float64(len(lat))))-1)
		return math.Round(lat[max(i, 0)].Seconds()*1e6) / 1e3
	}
	r := &serveBenchResult{
		Rows: rows, Clients: clients, Batching: batching,
		RequestsPerS: roundSig(float64(ok) / secs), RowsPerS: roundSig(float64(ok*rows) / secs),
		P50ms: pct(0.50), P95ms: pct(0.95), P99ms: pct(0.99), Requests: n, Errors: errs,
		PeakRSSMB: roundSig(peakRSSMB()), Seconds: roundSig(secs), Kernel: gemm.Kernel(), GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
	if nb := b1 - b0; nb > 0 {
		r.MeanBatchRequests = roundSig(float64(q1-q0) / float64(nb))
		r.MeanBatchRows = roundSig(float64(r1-r0) / float64(nb))
	}
	return r, nil
}

// benchServeURLHook, when not nil, gives the URL of each timed or warm-up
// request from the model's (tests make some of them fail).
var benchServeURLHook atomic.Pointer[func(string) string]

// clipMsg is s cut to at most n bytes (at a rune's start), marked "..."
// where cut.
func clipMsg(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
