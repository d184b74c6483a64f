package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"decoreg/serve"
)

var cmdServe = &Command{
	Name:      "serve",
	UsageLine: "serve --model FILE | --models DIR [--addr HOST:PORT] [--no-batching] [limits]",
	Short:     "serve models over HTTP: JSON predictions, metrics, a page to explore p(y|x)",
	Long: `Serve answers prediction requests over HTTP for one model file (--model,
served under its file name without the extension) or for every *.model and
*.drg file of a directory (--models), which is watched: a model file that is
replaced (atomically, as 'decoreg train --out' writes) is reloaded without a
restart, a replacement that does not load is refused (logged) and the old
model kept, and files added or removed are served or dropped.

The API (JSON in and out; errors are {"error": "..."}):

	GET  /v1/models                      the models: name, head, tokenization, features, created
	POST /v1/models/NAME/predict         predictions, in request order
	GET  /healthz, /readyz               liveness; readiness (503 while
	                                     serving no model, and on an open
	                                     connection while shutting down)
	GET  /metrics                        Prometheus metrics
	GET  /                               a page to explore a model's p(y|x)

A page of another site may not POST (its browser's Origin or
Sec-Fetch-Site header says it comes from one: 403); programs and the
server's own page may. On a loopback --addr (the default) a request's Host
must be localhost (or a name under .localhost), a loopback address, or a
name of --allow-host (403 otherwise: a page of a site whose name was made
to resolve to 127.0.0.1, DNS rebinding, would send another). /v1/models names the model files' paths: serve on
another --addr only where its clients may know them.

A predict request gives its inputs as "rows" (objects keyed by feature
name) or "x" (arrays in the model's feature order) and names its
"outputs": mean, median, mode, quantiles (at "quantiles": [levels],
default 0.05,0.25,0.75,0.95), logpdf and cdf (at "y": [one per row]),
samples ("samples": {"n", "temperature", "top_k", "top_p", "centres", "seed"}; seed
defaults to 0, so a request sent again gets the same draws) and
density (the log-density on a grid: "density": {"n", "lo", "hi"}). The
default outputs are mean, median, mode and quantiles, as 'decoreg predict'
writes, with the same numbers.

	curl -s localhost:8080/v1/models/m/predict -d '{"rows":[{"x0":1.5,"x1":-2}],
	    "outputs":["mean","quantiles"],"quantiles":[0.05,0.5,0.95]}'

Requests that arrive together are predicted in one batch (one encoder
pass; the rows' summaries in groups of 8 sharing their decoder steps, one
executor per core taking batches in order): a batch closes when no
other parsed request for its model is waiting, at --max-batch-rows rows,
or --batch-wait after its first request. Past --queue waiting requests, and
past --timeout per request, the answer is 503 with Retry-After; bodies over
--max-body are 413, and bodies still arriving 30 s after their request
began 408; bad input is 400 with a message naming the field, row or
feature; a client that closes the connection before its answer is
counted 499. SIGINT, SIGTERM or SIGHUP (a closed terminal; not under
nohup, and not SIGINT where serve was started in the background by a
script, whose shell ignores it for its background jobs: send SIGTERM)
stops accepting, finishes the requests in flight (up to --grace;
past it those still being read or computed are cancelled and answered 503,
answers still being sent get one more second, and serve exits 1 if any
request was cancelled or cut) and exits 0, logging when it starts to stop;
a second signal stops it at once, saying so.

Unless the environment sets GOGC, serve sets the garbage collector's
target to 400% (Go's default is 100): the live heap is small and every
prediction allocates its tree's leaves, so the default collects every few
milliseconds under load, which shows in the latency's tail. The price is
memory: a few hundred MiB under heavy traffic of many rows or levels
(GOGC=100 to trade it back). One request at the limits' defaults can take
about half a GiB (--max-values 2^22 numbers, some 75 MB of JSON, built in
memory before it is sent): lower --max-values where memory is tight.`,
	Run: runServe,
}

var serveF struct {
	model, models, addr           string
	noBatching                    bool
	batchWait, timeout, grace     time.Duration
	reload                        time.Duration
	maxBatchRows, queue, workers  int
	maxRows, maxSamples, maxQuant int
	maxDensity, maxValues         int
	maxValuesInFlight             int
	maxBody                       int64
	allowHost                     string
}

func init() {
	fs := &cmdServe.Flag
	f := &serveF
	fs.StringVar(&f.model, "model", "", "serve the model `FILE`")
	fs.StringVar(&f.models, "models", "", "serve the *.model and *.drg files of `DIR`, reloading them when they change")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0: any free port)")
	fs.BoolVar(&f.noBatching, "no-batching", false, "predict every request on its own (for comparison)")
	fs.DurationVar(&f.batchWait, "batch-wait", 2*time.Millisecond, "the longest a batch waits for more requests after its first")
	fs.IntVar(&f.maxBatchRows, "max-batch-rows", 1024, "close a batch once it holds this many rows")
	fs.IntVar(&f.queue, "queue", 1024, "requests waiting per model (with --no-batching: being predicted) before the server answers 503")
	fs.IntVar(&f.workers, "workers", 0, "batches predicted at once per model, one executor each; idle ones lend their core to a batch's rows (0: one per core)")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "per-request deadline from the end of the body's upload (503 past it); the headers must arrive within 5s, or the connection is closed, and the whole request within 30s, or it is answered 408")
	fs.DurationVar(&f.grace, "grace", 30*time.Second, "on SIGINT, SIGTERM or SIGHUP, how long to wait for the requests in flight")
	fs.DurationVar(&f.reload, "reload-every", time.Second, "how often --models DIR is scanned for changed files")
	fs.IntVar(&f.maxRows, "max-rows", serve.DefaultLimits.MaxRows, "rows per request")
	fs.IntVar(&f.maxSamples, "max-samples", serve.DefaultLimits.MaxSamples, "samples per request (rows x n)")
	fs.IntVar(&f.maxQuant, "max-quantiles", serve.DefaultLimits.MaxQuantiles, "quantile levels per request")
	fs.IntVar(&f.maxDensity, "max-density", serve.DefaultLimits.MaxDensity, "density points per request (rows x n)")
	fs.IntVar(&f.maxValues, "max-values", serve.DefaultLimits.MaxValues, "numbers in an answer, all outputs of all rows")
	fs.IntVar(&f.maxValuesInFlight, "max-values-in-flight", 0, "numbers of the answers being made at once, all requests (0: twice --max-values; at least --max-values); past it a request waits, 503 past --timeout")
	fs.Int64Var(&f.maxBody, "max-body", 4<<20, "request body limit in bytes (413 past it); the buffers of the bodies being read take at most 16 times it plus 4 KiB at once, growing with the bytes received (a body's first 4 KiB wait for room, 503 past --timeout; a buffer with no room to grow is 503 at once: under load, large bodies are the ones refused)")
	fs.StringVar(&f.allowHost, "allow-host", "", "on a loopback --addr, the comma-separated `NAMES`, besides localhost and loopback addresses, that a request's Host may carry (a reverse proxy's public name; *.NAME for the names under NAME, * for any): others are refused 403, as a page of a site whose name was made to resolve to 127.0.0.1 sends them (DNS rebinding)")
}

func runServe(cmd *Command, args []string) error {
	const name = "serve"
	f := &serveF
	fs := &cmd.Flag
	if err := noArgs(name, args); err != nil {
		return err
	}
	serverGC()
	switch {
	case (f.model == "") == (f.models == ""):
		return inputf(name, "give --model FILE or --models DIR (one of the two)")
	case f.batchWait <= 0:
		return inputf(name, "--batch-wait must be > 0, have %v", f.batchWait)
	case f.timeout <= 0 || f.timeout > serve.MaxRequestTimeout:
		return inputf(name, "--timeout must be in (0, %v], have %v", serve.MaxRequestTimeout, f.timeout)
	case f.grace < 0:
		return inputf(name, "--grace must be >= 0, have %v", f.grace)
	case f.reload < serve.MinReloadEvery:
		return inputf(name, "--reload-every must be at least %v, have %v", serve.MinReloadEvery, f.reload)
	case f.maxBody < 1:
		return inputf(name, "--max-body must be >= 1, have %d", f.maxBody)
	case strings.TrimSpace(f.addr) == "":
		// net.Listen reads "" as every interface at a random port, which
		// the default (127.0.0.1) keeps from happening by accident.
		return inputf(name, "--addr is empty: give HOST:PORT (:PORT listens on every interface)")
	}
	lim := serve.MaxLimits
	for _, c := range []struct {
		flag        string
		v, min, max int
		zero        string // what 0 means, where it is allowed
	}{
		{"max-batch-rows", f.maxBatchRows, 1, lim.MaxRows, ""}, {"queue", f.queue, 1, serve.MaxQueueLen, ""}, {"workers", f.workers, 0, 4096, " (0: one per core)"},
		{"max-rows", f.maxRows, 1, lim.MaxRows, ""}, {"max-samples", f.maxSamples, 1, lim.MaxSamples, ""},
		{"max-quantiles", f.maxQuant, 1, lim.MaxQuantiles, ""}, {"max-density", f.maxDensity, 1, lim.MaxDensity, ""}, {"max-values", f.maxValues, 1, lim.MaxValues, ""},
	} {
		if c.v < c.min || c.v > c.max {
			return inputf(name, "--%s must be in [%d, %d]%s, have %d", c.flag, c.min, c.max, c.zero, c.v)
		}
	}
	if f.maxValuesInFlight != 0 && (f.maxValuesInFlight < f.maxValues || int64(f.maxValuesInFlight) > 1<<40) {
		return inputf(name, "--max-values-in-flight must be 0 (twice --max-values) or in [--max-values %d, 2^40], have %d", f.maxValues, f.maxValuesInFlight)
	}
	if f.maxBody > 1<<30 {
		return inputf(name, "--max-body must be at most %d (1 GiB), have %d", 1<<30, f.maxBody)
	}
	if f.noBatching {
		for _, fl := range []string{"batch-wait", "max-batch-rows"} {
			if isSet(fs, fl) {
				return inputf(name, "--%s is for batching; it has no effect with --no-batching", fl)
			}
		}
	}
	if f.model != "" && isSet(fs, "reload-every") {
		return inputf(name, "--reload-every is for --models DIR")
	}
	for _, fl := range []struct{ flag, v string }{{"model", f.model}, {"models", f.models}} {
		if fl.v == "-" {
			return inputf(name, "--%s -: models are read from files, not from standard input; give a path", fl.flag)
		}
	}
	if f.models != "" {
		if fi, err := os.Stat(f.models); err != nil {
			return inputf(name, "--models: %v", err)
		} else if !fi.IsDir() {
			return inputf(name, "--models: %s is not a directory (use --model FILE for one file)", f.models)
		}
	}
	// A closed pipe on the log's descriptor (serve 2>&1 | head, a log
	// shipper restarted) is a failed write, not a signal that ends the
	// server, from the models' first load lines on: SIGPIPE is caught
	// (signal.Ignore could not be undone) and given back to its default
	// action on return (the tests run commands in one process).
	if len(pipeSignals) > 0 {
		pipe := make(chan os.Signal, 1)
		signal.Notify(pipe, pipeSignals...)
		defer signal.Stop(pipe)
	}
	logger := log.New(errOut, "decoreg serve: ", log.LstdFlags)
	var hosts []string
	if isSet(&cmd.Flag, "allow-host") {
		fields, err := listFields(f.allowHost)
		if err != nil {
			return inputf(name, "--allow-host %v", err)
		}
		for i, h := range fields {
			if h = strings.TrimSpace(h); !serve.ValidAllowedHost(h) {
				return inputf(name, "--allow-host %q: entry %d is not a host name, *.NAME or * (give names separated by commas, without ports)", f.allowHost, i+1)
			}
			hosts = append(hosts, h)
		}
	}
	s, err := serve.New(serve.Options{
		Model: f.model, Models: f.models, ReloadEvery: f.reload,
		Limits: serve.Limits{MaxRows: f.maxRows, MaxSamples: f.maxSamples, MaxQuantiles: f.maxQuant,
			MaxDensity: f.maxDensity, MaxValues: f.maxValues},
		MaxBodyBytes: f.maxBody, RequestTimeout: f.timeout, MaxValuesInFlight: f.maxValuesInFlight,
		NoBatching: f.noBatching, BatchWait: f.batchWait, MaxBatchRows: f.maxBatchRows,
		QueueLen: f.queue, Workers: f.workers, Log: logger, AllowedHosts: hosts,
	})
	if err != nil {
		return inputErr(name, err)
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		s.Close()
		return inputf(name, "--addr: %v", err)
	}
	for _, m := range s.Models() {
		logger.Printf("serving model %q (%s head, %d features) from %q", m.Name, m.Head, len(m.Features), m.File)
	}
	var stops []string // the signals it stops at: not those it started with ignored (a script's background job, nohup)
	for _, sig := range interruptSignals {
		switch sig {
		case os.Interrupt:
			stops = append(stops, "Ctrl-C")
		case syscall.SIGTERM:
			stops = append(stops, "SIGTERM")
		case syscall.SIGHUP:
			stops = append(stops, "SIGHUP")
		}
	}
	// The first signal (SIGHUP too, unless ignored: nohup) shuts down
	// gracefully, a second ends the process at once. Through the shared
	// handlers: as process 1 they listen from the start, and a signal
	// that only signal.NotifyContext heard also ended the process at once
	// (helper-125). Watched before the line that says so: a signal
	// between them found no handler.
	ctx, cancel := context.WithCancel(context.Background()) // serve writes no files: no tracker
	defer cancel()
	_, stop := onSignals(func() {
		logger.Printf("stopping: answering the requests under way for at most --grace %v (interrupt again to stop at once)", f.grace)
		cancel()
	}, func() bool { return false })
	defer stop()
	logger.Printf("listening on http://%s (%s to stop)", ln.Addr(), orList(stops))
	err = s.Serve(ctx, ln, f.grace)
	var ge *serve.GraceError
	switch {
	case errors.As(err, &ge):
		return fmt.Errorf("serve: past --grace %v, %d request(s) still being read or computed were cancelled (answered 503 where the body had arrived) and %d answer(s) still being sent a second later were cut off", f.grace, ge.Cancelled, ge.Cut)
	case err != nil:
		return fmt.Errorf("serve: %w", err)
	}
	logger.Printf("shut down cleanly")
	return nil
}

// serverGCPercent is the garbage collector's target for serve and bench
// serve when GOGC is not set: a server's live heap is small (tens of MiB)
// and each prediction allocates its tree's leaves, so the default (100)
// collects every few milliseconds under load and the collections show in
// the latency's tail; 400 collects a quarter as often for about 2.5 times
// the heap.
const serverGCPercent = 400

// serverGC sets serverGCPercent unless the environment sets GOGC.
func serverGC() {
	if _, ok := os.LookupEnv("GOGC"); !ok {
		debug.SetGCPercent(serverGCPercent)
	}
}

// orList joins words as "a", "a or b", "a, b or c".
func orList(words []string) string {
	switch len(words) {
	case 0:
		return "kill"
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
