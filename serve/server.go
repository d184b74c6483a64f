package serve

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"decoreg"
)

// Options configure a Server. The zero value of a field means its
// default; New refuses a negative one.
type Options struct {
	// Model is a model file to serve, under its file name without the
	// extension; Models a directory whose *.model and *.drg files are
	// served and watched: a file replaced (atomically, by renaming over
	// it, as 'decoreg train --out' does) is reloaded without a restart,
	// a replacement that does not load is refused and the old model kept.
	// Exactly one of the two is set.
	Model, Models string
	// ReloadEvery is how often Models is scanned (default 1s, at least
	// MinReloadEvery).
	ReloadEvery time.Duration

	Limits                       // per request
	MaxBodyBytes   int64         // request body limit (default 4 MiB); larger bodies get 413
	RequestTimeout time.Duration // per-request deadline (default 30s, at most MaxRequestTimeout); past it, 503
	// MaxValuesInFlight bounds the numbers of the answers being made at
	// once, over every request and model (default twice Limits.MaxValues;
	// at least Limits.MaxValues): each number costs about 120 bytes until
	// its answer is encoded, whose bytes then count (120 a number) until
	// they are sent; the per-request limit alone let a few concurrent
	// requests take gigabytes. A request past it waits its turn
	// (first come, first served), and is answered 503 with Retry-After
	// past RequestTimeout.
	MaxValuesInFlight int

	// NoBatching predicts every request on its own (for comparison);
	// otherwise requests that arrive together share one pass.
	NoBatching bool
	// BatchWait is the longest a batch waits for more requests after its
	// first (default 2ms); it closes earlier once no other parsed request
	// for its model is waiting, or at MaxBatchRows rows (default 1024).
	BatchWait    time.Duration
	MaxBatchRows int // see BatchWait
	// QueueLen bounds the requests waiting per model (default 1024); past
	// it the server answers 503 with Retry-After.
	QueueLen int
	// Workers is the number of executors per model, each predicting one
	// batch at a time; the cores they leave idle are lent to a batch's
	// rows (default GOMAXPROCS). Without batching it is the number of
	// cores that requests predicted at once share.
	Workers int

	// Log receives one line per model load, reload and refusal (default:
	// standard error).
	Log *log.Logger

	// AllowedHosts are the names, besides localhost and loopback
	// addresses, that the Host header of a request may carry when Serve
	// listens on a loopback address ("*.NAME": the names under NAME; "*":
	// any); see Serve.
	AllowedHosts []string
}

// MaxQueueLen is the largest Options.QueueLen.
const MaxQueueLen = 1 << 20

// readTimeout is how long a request may take to arrive, headers and body
// (http.Server.ReadTimeout); a body still arriving then is answered 408.
// writeGrace is how long past its deadline (Options.RequestTimeout) an
// answer may take to write, and how long the 408 may.
const (
	readTimeout = 30 * time.Second
	writeGrace  = 10 * time.Second
)

// MinReloadEvery is the shortest Options.ReloadEvery (a scan every few
// nanoseconds kept a core busy), MaxRequestTimeout the longest
// Options.RequestTimeout (the write deadline adds 10s to it, which
// overflowed near Go's longest duration and cut every answer).
const (
	MinReloadEvery    = 10 * time.Millisecond
	MaxRequestTimeout = 24 * time.Hour
)

func (o Options) withDefaults() Options {
	if o.ReloadEvery <= 0 {
		o.ReloadEvery = time.Second
	}
	o.Limits = o.Limits.withDefaults()
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 4 << 20
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 30 * time.Second
	}
	if o.MaxValuesInFlight <= 0 {
		o.MaxValuesInFlight = 2 * o.MaxValues
	}
	if o.BatchWait <= 0 {
		o.BatchWait = 2 * time.Millisecond
	}
	if o.MaxBatchRows <= 0 {
		o.MaxBatchRows = 1024
	}
	if o.QueueLen <= 0 {
		o.QueueLen = 1024
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Log == nil {
		o.Log = log.New(os.Stderr, "decoreg serve: ", log.LstdFlags)
	}
	return o
}

// Server serves models over HTTP; see the package documentation for the
// API. Create it with New, serve Handler (or call Serve), and Close it.
type Server struct {
	opts    Options
	reg     *registry
	metrics *metrics
	mux     http.Handler
	values  *budget // Options.MaxValuesInFlight
	bodies  *budget // the same, for the request bodies being read

	faultLog rateLog // the log lines of ErrModelFault's 500s
	closing  atomic.Bool
	// readTimeout is readTimeout, writeGrace writeGrace (tests shorten
	// them before Serve).
	readTimeout, writeGrace time.Duration
	// reqs are the requests in a handler, for the end of the grace period
	// to tell those still being computed (cancelled) from those whose
	// answer is being sent (cut only if still sending at the close).
	reqMu sync.Mutex
	reqs  map[*reqState]struct{}
	// graceAnswered counts the requests counted cancelled that answered
	// 2xx all the same (their work did not stop in time): not cancelled.
	graceAnswered int64
	stopWatch     chan struct{}
	watchDone     chan struct{}
	closeOnce     sync.Once
}

// New loads the models of o and returns a Server for them. A model file
// that does not load is an error; with Models, a directory in which no
// model loads is an error, and files that fail are logged and skipped.
func New(o Options) (*Server, error) {
	for _, f := range []struct {
		name string
		neg  bool
	}{
		{"ReloadEvery", o.ReloadEvery < 0}, {"MaxBodyBytes", o.MaxBodyBytes < 0}, {"RequestTimeout", o.RequestTimeout < 0},
		{"BatchWait", o.BatchWait < 0}, {"MaxBatchRows", o.MaxBatchRows < 0}, {"QueueLen", o.QueueLen < 0}, {"Workers", o.Workers < 0},
		{"Limits.MaxRows", o.MaxRows < 0}, {"Limits.MaxSamples", o.MaxSamples < 0}, {"Limits.MaxQuantiles", o.MaxQuantiles < 0},
		{"Limits.MaxDensity", o.MaxDensity < 0}, {"Limits.MaxValues", o.MaxValues < 0}, {"MaxValuesInFlight", o.MaxValuesInFlight < 0},
	} {
		if f.neg {
			return nil, fmt.Errorf("serve: %s is negative (0 takes its default)", f.name)
		}
	}
	o = o.withDefaults()
	if err := o.Limits.check(); err != nil {
		return nil, err
	}
	switch {
	case o.QueueLen > MaxQueueLen:
		return nil, fmt.Errorf("serve: QueueLen = %d is above its maximum %d", o.QueueLen, MaxQueueLen)
	case o.MaxBatchRows > MaxLimits.MaxRows:
		return nil, fmt.Errorf("serve: MaxBatchRows = %d is above its maximum %d", o.MaxBatchRows, MaxLimits.MaxRows)
	case o.Workers > 4096:
		return nil, fmt.Errorf("serve: Workers = %d is above its maximum 4096", o.Workers)
	case o.ReloadEvery < MinReloadEvery:
		return nil, fmt.Errorf("serve: ReloadEvery = %v is below its minimum %v", o.ReloadEvery, MinReloadEvery)
	case o.RequestTimeout > MaxRequestTimeout:
		return nil, fmt.Errorf("serve: RequestTimeout = %v is above its maximum %v", o.RequestTimeout, MaxRequestTimeout)
	case o.MaxBodyBytes > MaxBodyBytes:
		return nil, fmt.Errorf("serve: MaxBodyBytes = %d is above its maximum %d", o.MaxBodyBytes, MaxBodyBytes)
	case o.MaxValuesInFlight < o.MaxValues:
		return nil, fmt.Errorf("serve: MaxValuesInFlight = %d is below Limits.MaxValues (%d): a request at that limit could never be answered", o.MaxValuesInFlight, o.MaxValues)
	}
	for _, h := range o.AllowedHosts {
		if !ValidAllowedHost(h) {
			return nil, fmt.Errorf("serve: AllowedHosts entry %q is not a host name (nor *.NAME, nor *): give names without ports", h)
		}
	}
	if (o.Model == "") == (o.Models == "") {
		return nil, errors.New("serve: give a model file or a model directory, not both or neither")
	}
	s := &Server{opts: o, metrics: newMetrics(), values: newBudget(o.MaxValuesInFlight), bodies: newBudget(bodiesUnits(o.MaxBodyBytes)), stopWatch: make(chan struct{}), watchDone: make(chan struct{}), reqs: map[*reqState]struct{}{}, readTimeout: readTimeout, writeGrace: writeGrace}
	s.reg = &registry{
		opts: &s.opts, models: map[string]*entry{}, failed: map[string]fileStamp{}, dupLogged: map[string]bool{},
		obs: s.metrics.observeBatch, log: func(format string, a ...any) { o.Log.Print(oneLine(fmt.Sprintf(format, a...))) },
		reloads: func(ok bool) { s.metrics.reload(ok) },
	}
	s.metrics.reg.MustRegister(queueCollector{s.reg, s.metrics.queueDesc, s.metrics.modelsDesc})
	s.faultLog.flush = func(name string, n int) {
		o.Log.Print(oneLine(fmt.Sprintf("model %q: answered 500 to %d more request(s) for the fault logged last (decoreg_model_faults_total counts them all)", name, n)))
	}
	if o.Model != "" {
		name := modelName(o.Model)
		if name == "" {
			name = validName(trimExt(o.Model))
		}
		e, err := s.reg.load(name, o.Model)
		if err != nil {
			return nil, err
		}
		s.reg.put(e)
		close(s.watchDone)
	} else {
		n, err := s.reg.scan(o.Models)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: %w (it serves the files ending in %v that load)", o.Models, errNoModels, modelExts())
		}
		go s.watch()
	}
	s.routes()
	return s, nil
}

// loopbackHosts refuses the requests to a server listening on a loopback
// address addr whose Host is not localhost (or a name under it), a
// loopback address, or one of Options.AllowedHosts: a page of a site
// whose name was made to resolve to 127.0.0.1 (DNS rebinding) is same-origin
// to its browser, and could read the models and their predictions
// (review). A request without a Host (HTTP/1.0) is let through.
func (s *Server) loopbackHosts(h http.Handler, addr string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if hh, _, err := net.SplitHostPort(host); err == nil {
			host = hh
		}
		host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
		ip := net.ParseIP(host)
		ok := host == "" || host == "localhost" || strings.HasSuffix(host, ".localhost") || ip != nil && ip.IsLoopback() ||
			slices.ContainsFunc(s.opts.AllowedHosts, func(a string) bool { return hostMatches(a, host) })
		if !ok {
			drainRefused(r)
			s.metrics.refused.WithLabelValues("host").Inc()
			writeError(w, http.StatusForbidden, fmt.Sprintf("Host %q is not a name of this server, which listens on the loopback address %s: refused, as a page of another site whose name resolves here would send it (DNS rebinding); the server's --allow-host lets a name through", clip(r.Host), addr))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// ValidAllowedHost reports whether h is an entry Options.AllowedHosts
// takes: a host name without a port, *.NAME, or *.
func ValidAllowedHost(h string) bool {
	name := strings.TrimPrefix(h, "*.")
	return h == "*" || name != "" && name != "." && !strings.ContainsAny(name, " /:@*[]")
}

// hostMatches reports whether the lower-cased host matches the allowed
// name a: equal to it but for case and a final point, or, for a of the
// form *.NAME, a name under NAME.
func hostMatches(a, host string) bool {
	a = strings.ToLower(strings.TrimSuffix(a, "."))
	if suffix, ok := strings.CutPrefix(a, "*."); ok {
		return strings.HasSuffix(host, "."+suffix)
	}
	return a == host
}

// trimExt is path's file name without its extension (a hidden file's
// whole name: ".m" stays ".m"; so does "..drg", whose "." would be a name
// no URL path reaches).
func trimExt(path string) string {
	base := filepath.Base(path)
	if n := strings.TrimSuffix(base, filepath.Ext(base)); n != "" && n != "." && n != ".." {
		return n
	}
	return base
}

func (s *Server) watch() {
	defer close(s.watchDone)
	t := time.NewTicker(s.opts.ReloadEvery)
	defer t.Stop()
	var failing string // the last scan's error, logged once until it changes or the scan succeeds
	for {
		select {
		case <-s.stopWatch:
			return
		case <-t.C:
			_, err := s.reg.scan(s.opts.Models)
			switch {
			case err != nil && err.Error() != failing:
				failing = err.Error()
				s.opts.Log.Print(oneLine(fmt.Sprintf("%v (still serving the models loaded before; logged again only if this changes)", err)))
			case err == nil && failing != "":
				failing = ""
				s.opts.Log.Printf("%q: readable again", s.opts.Models)
			}
		}
	}
}

// BatchTotals returns the number of batches predicted so far and the
// requests and rows in them (the sums behind the decoreg_batch_requests
// and decoreg_batch_rows histograms).
func (s *Server) BatchTotals() (batches, requests, rows int64) {
	return s.metrics.nBatches.Load(), s.metrics.nRequests.Load(), s.metrics.nRows.Load()
}

// Models describes the models being served, sorted by name.
func (s *Server) Models() []ModelInfo { return s.reg.list() }

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.mux }

// Serve answers on ln until ctx is done, then shuts down gracefully: it
// stops accepting, answers 503 to new requests on open connections, and
// finishes the requests in flight. Past grace it cancels those still
// being read or computed (their clients get 503), gives the answers being
// sent one more second, closes the connections and returns a *GraceError
// (which wraps context.DeadlineExceeded) counting the requests cancelled
// and the answers cut off; after a clean shutdown, where only connections
// without a request in a handler were left at grace's end (idle, or still
// sending their headers), and where every answer being sent arrived whole
// in that second, it returns nil.
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	base, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	handler := s.mux
	if a, ok := ln.Addr().(*net.TCPAddr); ok && a.IP.IsLoopback() && !slices.Contains(s.opts.AllowedHosts, "*") {
		handler = s.loopbackHosts(handler, ln.Addr().String())
	}
	hs := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       s.readTimeout,
		WriteTimeout:      s.opts.RequestTimeout + s.writeGrace,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          s.opts.Log,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		s.Close()
		return err
	case <-ctx.Done():
	}
	s.closing.Store(true)
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := hs.Shutdown(sctx)
	if err != nil {
		// Past grace: stop the work still running, give its requests a
		// moment to answer 503 (and answers being sent a moment to
		// finish), then drop the connections. A request whose answer was
		// being sent and then arrived whole is not counted (it was: exit
		// 1 for a client that had its answer, helper-121).
		var ge GraceError
		s.reqMu.Lock()
		s.graceAnswered = 0
		for st := range s.reqs {
			if !st.answering {
				st.cancelled = true
				ge.Cancelled++
			}
		}
		s.reqMu.Unlock()
		cancelBase()
		wait, cancelWait := context.WithTimeout(context.Background(), time.Second)
		hs.Shutdown(wait)
		cancelWait()
		s.reqMu.Lock()
		for st := range s.reqs {
			if !st.cancelled {
				ge.Cut++
			}
		}
		ge.Cancelled -= s.graceAnswered // answered whole after all
		s.reqMu.Unlock()
		hs.Close()
		if err = nil; ge.Cancelled+ge.Cut > 0 {
			ge.Requests = ge.Cancelled + ge.Cut
			err = &ge
		}
	}
	<-errc
	s.Close()
	return err
}

// GraceError is Serve's error when the end of the grace period cut
// requests short: Requests = Cancelled + Cut.
type GraceError struct {
	Requests int64 // cancelled or cut
	// Cancelled were being read or computed when the grace period ended:
	// their work was stopped (answered 503 where the body had arrived and
	// the connection lasted).
	Cancelled int64
	// Cut were sending their answers when the grace period ended and were
	// still sending them a second later, when the connections were
	// closed: their clients got part of the answer.
	Cut int64
}

// Error says how many requests the end of the grace period cut short.
func (e *GraceError) Error() string {
	return fmt.Sprintf("serve: %d requests still in flight at the end of the grace period were cancelled, and %d answers still being sent were cut off", e.Cancelled, e.Cut)
}

// Unwrap returns context.DeadlineExceeded.
func (e *GraceError) Unwrap() error { return context.DeadlineExceeded }

// Close stops watching the model directory and stops the batchers once
// their queued requests are answered. Requests after Close get 503.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.closing.Store(true)
		s.faultLog.stop()
		close(s.stopWatch)
		<-s.watchDone
		for _, e := range s.reg.all() {
			e.b.close()
			<-e.b.exited
		}
	})
}

//go:embed page.html
var page []byte

func (s *Server) routes() {
	mux := http.NewServeMux()
	handle := func(pattern, route string, methods string, h func(w http.ResponseWriter, r *http.Request) int) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			st := &reqState{}
			s.reqMu.Lock()
			s.reqs[st] = struct{}{}
			s.reqMu.Unlock()
			defer func() {
				s.reqMu.Lock()
				delete(s.reqs, st)
				s.reqMu.Unlock()
			}()
			w = &answerWriter{ResponseWriter: w, s: s, st: st, rctx: r.Context()}
			start := time.Now()
			code := 0
			if r.Method != methods && !(methods == http.MethodGet && r.Method == http.MethodHead) {
				allow := methods
				if methods == http.MethodGet {
					allow = "GET, HEAD" // HEAD is answered as GET
				}
				w.Header().Set("Allow", allow)
				drainRefused(r)
				code = writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: use %s", r.Method, r.URL.Path, methods))
			} else {
				code = h(w, r)
			}
			late := false
			if s.closing.Load() { // cancelled is set only while closing: no lock on the hot path
				s.reqMu.Lock()
				late = st.cancelled && code/100 == 2
				s.reqMu.Unlock()
			}
			if late && http.NewResponseController(w).Flush() == nil {
				// Counted cancelled at the end of the grace period, its
				// work ended without seeing that, and its answer went
				// out whole in the second the connections had left.
				s.reqMu.Lock()
				s.graceAnswered++
				s.reqMu.Unlock()
			}
			s.metrics.observeRequest(route, code, time.Since(start))
		})
	}
	handle("/v1/models", "/v1/models", http.MethodGet, s.listModels)
	handle("/v1/models/{name}/predict", "/v1/models/{name}/predict", http.MethodPost, s.predict)
	handle("/healthz", "/healthz", http.MethodGet, func(w http.ResponseWriter, _ *http.Request) int {
		return writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	handle("/readyz", "/readyz", http.MethodGet, func(w http.ResponseWriter, _ *http.Request) int {
		if s.closing.Load() {
			return writeError(w, http.StatusServiceUnavailable, "shutting down")
		}
		n := len(s.reg.list())
		if n == 0 { // every file of --models DIR gone or refused
			return writeError(w, http.StatusServiceUnavailable, "no model is served")
		}
		return writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "models": n})
	})
	metricsH := promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
	handle("/metrics", "/metrics", http.MethodGet, func(w http.ResponseWriter, r *http.Request) int {
		metricsH.ServeHTTP(w, r)
		return http.StatusOK
	})
	handle("/{$}", "/", http.MethodGet, func(w http.ResponseWriter, _ *http.Request) int {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; frame-ancestors 'none'")
		w.Write(page)
		return http.StatusOK
	})
	notFound := func(w http.ResponseWriter, r *http.Request) {
		drainRefused(r)
		code := writeError(w, http.StatusNotFound, fmt.Sprintf("no such endpoint: %s (see GET /v1/models and POST /v1/models/{name}/predict)", clip(r.URL.Path)))
		s.metrics.observeRequest("other", code, 0)
	}
	mux.HandleFunc("/", notFound)
	// ServeMux redirects unclean paths (//, /./, /../) with a 307 that is
	// not JSON: answer them 404 here instead.
	clean := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == "" || p[0] != '/' || path.Clean(p) != p && p != "/" {
			notFound(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
	// A page of another site may not post to the server: its browser
	// sends a POST of text/plain without asking first, which the server
	// predicted (a density of 2^20 points: 400 MB) though the page could
	// not read the answer (review). Requests without the browsers'
	// Sec-Fetch-Site and Origin headers (curl, programs) are let through.
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		drainRefused(r)
		s.metrics.refused.WithLabelValues("cross-origin").Inc()
		writeError(w, http.StatusForbidden, "cross-origin request refused: a page of another site may not send requests to this server (its browser's Sec-Fetch-Site or Origin header says so)")
	}))
	protected := cop.Handler(clean)
	s.mux = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff") // every answer: JSON, the page, the metrics
		protected.ServeHTTP(w, r)
	})
}

func (s *Server) listModels(w http.ResponseWriter, _ *http.Request) int {
	return writeJSON(w, http.StatusOK, map[string]any{"models": s.reg.list()})
}

func (s *Server) predict(w http.ResponseWriter, r *http.Request) int {
	if s.closing.Load() {
		w.Header().Set("Retry-After", "1")
		return writeError(w, http.StatusServiceUnavailable, "shutting down")
	}
	name := r.PathValue("name")
	if s.reg.get(name) == nil {
		drainRefused(r)
		return s.noModel(w, name)
	}
	if r.ContentLength > s.opts.MaxBodyBytes {
		// Refused before reading: a client that sent "Expect: 100-continue"
		// gets 413 instead of an invitation to upload it. Another is sending
		// the body: up to drainBytes of it is read first, or a client that
		// reads only once it has sent everything (Python's urllib) met a
		// reset connection instead of the 413.
		drainRefused(r)
		return writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body (%d bytes) is larger than the server's limit of %d bytes", r.ContentLength, s.opts.MaxBodyBytes))
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		drainRefused(r)
		return writeError(w, http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Encoding %q: the body must be plain JSON", ce))
	}
	// The body, its buffer's room taken from the bodies' budget as it
	// grows with the bytes received, and given back once the request is
	// queued or refused: bodies that clients sent slowly, or stalled, were
	// bounded only by the connections (100 stalled uploads of 4 MiB took
	// 1 GB; review); a room taken by the declared length let 16 clients
	// that sent headers alone stop every request (review). A budget of its
	// own: a request holding its body's room and waiting for its answer's
	// cannot block another's answer (a new body's first chunk may wait
	// for it; a request holding answer room never waits for body room).
	bodyUnits := 0
	freeBody := func() {
		s.bodies.give(bodyUnits)
		bodyUnits = 0
	}
	defer freeBody()
	body, err := s.readBody(w, r, &bodyUnits)
	if err != nil {
		freeBody() // before draining at the client's pace
		var mb *http.MaxBytesError
		switch {
		case errors.As(err, &mb):
			drain(r.Body) // as above
			return writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than the server's limit of %d bytes", mb.Limit))
		case errors.Is(err, errBodyRoom):
			if errors.Is(err, errBodyGrow) {
				drain(r.Body) // read from: a client that sent "Expect: 100-continue" is sending it
			} else {
				drainRefused(r)
			}
			w.Header().Set("Retry-After", "1")
			switch {
			case errors.Is(err, errBodyGrow):
				return writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("the server is reading other large request bodies (their buffers at most 16 times --max-body plus 4 KiB, %d bytes, at once), and had no room for more of this one's: send it again", bodiesInFlight(s.opts.MaxBodyBytes)))
			case errors.Is(err, context.DeadlineExceeded):
				return writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("the server is reading other large request bodies (their buffers at most 16 times --max-body plus 4 KiB, %d bytes, at once): this one waited past its limit of %v for room", bodiesInFlight(s.opts.MaxBodyBytes), s.opts.RequestTimeout))
			case s.closing.Load():
				return writeError(w, http.StatusServiceUnavailable, "shut down before the request was answered")
			}
			return writeError(w, statusClientClosed, "the client closed the connection before the answer")
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			// The server's read timeout (a stalled or trickling upload):
			// not a malformed body, and the socket's addresses are not
			// the client's business. The write deadline, which ran from
			// the end of the headers (--timeout plus 10 s), may have
			// passed: the answer gets its own.
			http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.writeGrace))
			return writeError(w, http.StatusRequestTimeout, fmt.Sprintf("the request did not arrive whole within the server's read timeout of %v: send the body faster, or smaller", s.readTimeout))
		}
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Err != nil {
			err = oe.Err
		}
		return writeError(w, http.StatusBadRequest, "reading the body: "+err.Error())
	}
	body = bytes.TrimPrefix(body, []byte("\ufeff")) // a byte order mark, as the CSV reader skips it
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.RequestTimeout)
	defer cancel()
	// The write deadline counts from here too (net/http's WriteTimeout runs
	// from the end of the headers, and a slow upload would leave no time
	// for the 503 of --timeout).
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.opts.RequestTimeout + s.writeGrace))
	// The body is parsed against the model that will answer it: if the
	// model is replaced between parsing and queueing, the new version
	// parses it again (its features may differ).
	var e *entry
	var j *job
	taken := 0 // of s.values: all but its bytes' share given back once the answer is encoded, the rest once sent (or at a refusal)
	defer func() { s.values.give(taken) }()
	for try := 0; ; try++ {
		if e = s.reg.get(name); e == nil {
			return s.noModel(w, name)
		}
		q, err := parseRequest(body, e.spec, s.opts.Limits)
		if err != nil {
			return writeError(w, http.StatusBadRequest, err.Error())
		}
		if q.values > taken {
			// Room for the answer among those being made (the same size
			// for every version of the model: it is the request's).
			if err := s.values.take(ctx, q.values-taken); err != nil {
				w.Header().Set("Retry-After", "1")
				switch {
				case errors.Is(err, context.DeadlineExceeded):
					return writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("the server is making other large answers (--max-values-in-flight): this one, of %d numbers, waited past its limit of %v for its turn", q.values, s.opts.RequestTimeout))
				case s.closing.Load():
					return writeError(w, http.StatusServiceUnavailable, "shut down before the request was answered")
				}
				return writeError(w, statusClientClosed, "the client closed the connection before the answer")
			}
			taken = q.values
		}
		j = &job{ctx: ctx, q: q, done: make(chan struct{})}
		// Queued once parsed: a batch never waits for a request that is
		// still uploading.
		err = e.b.submit(j)
		if err == nil {
			break
		}
		if err == errRetired && try < 3 {
			continue
		}
		w.Header().Set("Retry-After", "1")
		return writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("model %q cannot take more requests now: %v", name, err))
	}
	freeBody() // queued: the body is parsed, and read no more
	select {
	case <-j.done:
		err = j.err
	case <-ctx.Done():
		select {
		case <-j.done:
			err = j.err
		default: // the batch drops the job's remaining rows
			err = ctx.Err()
		}
	}
	if err != nil {
		var ie *internalError
		var de *decoreg.DataError
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			w.Header().Set("Retry-After", "1")
			return writeError(w, http.StatusServiceUnavailable, fmt.Sprintf("the request took longer than the server's limit of %v", s.opts.RequestTimeout))
		case errors.Is(err, context.Canceled):
			if s.closing.Load() {
				w.Header().Set("Retry-After", "1")
				return writeError(w, http.StatusServiceUnavailable, "shut down before the request was answered")
			}
			// The client closed the connection (or only its sending side:
			// net/http cancels the request's context either way, and a
			// handler that writes nothing sends 200 with an empty body).
			return writeError(w, statusClientClosed, "the client closed the connection before the answer")
		case errors.Is(err, decoreg.ErrModelFault):
			// The model's fault (a prediction that overflows for a row
			// like the training data): counted by model, and logged at
			// most once a second a model, as every such request would be.
			s.metrics.faults.WithLabelValues(name).Inc()
			if n, ok := s.faultLog.take(name, time.Now()); ok {
				more := ""
				if n > 0 {
					more = fmt.Sprintf(" (and %d more such answers since the last line)", n)
				}
				s.opts.Log.Print(oneLine(fmt.Sprintf("model %q: answered 500: %v%s", name, err, more)))
			}
			return writeError(w, http.StatusInternalServerError, err.Error())
		case errors.As(err, &ie):
			s.opts.Log.Print(oneLine(fmt.Sprintf("model %q: %v", name, err)))
			return writeError(w, http.StatusInternalServerError, err.Error())
		case errors.As(err, &de) && de.Row >= 0 && de.Column >= 0 && de.Column < len(e.spec.features):
			// An input the network overflows on, named as the client named it.
			where := "rows"
			if j.q.asX {
				where = "x"
			}
			return writeError(w, http.StatusBadRequest, fmt.Sprintf("%s[%d]: feature %q: %v", where, de.Row, e.spec.features[de.Column], de.Err))
		default:
			return writeError(w, http.StatusBadRequest, err.Error())
		}
	}
	b, err := marshal(Response{Model: name, Predictions: j.preds, Warnings: j.q.warns})
	// The answer is made: the room of its numbers goes to the next but
	// for its encoded bytes, held until they are sent (bytesPerValue a
	// unit: about a sixth of it), so that a client that reads slowly, or
	// not at all, holds up others little and its bytes still count.
	j.preds = nil
	keep := min(taken, (len(b)+bytesPerValue-1)/bytesPerValue)
	s.values.give(taken - keep)
	taken = keep
	if err != nil {
		return writeError(w, http.StatusInternalServerError, "encoding the answer: "+err.Error())
	}
	return writeBody(w, http.StatusOK, b)
}

func (s *Server) noModel(w http.ResponseWriter, name string) int {
	return writeError(w, http.StatusNotFound, fmt.Sprintf("no model %q (GET /v1/models lists them)", clip(name)))
}

// bodiesInFlight is how many bytes of buffers the request bodies being
// read may take at once: 16 bodies at the limit maxBody (64 MiB at the
// default 4 MiB; 100 stalled uploads of 4 MiB had taken 1 GB).
func bodiesInFlight(maxBody int64) int64 { return 16 * (maxBody + bodyChunk) }

// bodiesUnits is the bodies' budget in units of bytesPerValue (rounded
// up: 16 bodies at the limit fit, their buffers grown in up to 64
// steps). maxBody is at most MaxBodyBytes.
func bodiesUnits(maxBody int64) int {
	return int((bodiesInFlight(maxBody)+bytesPerValue-1)/bytesPerValue) + 16*64 // and each growth's rounding up
}

// MaxBodyBytes is the largest Options.MaxBodyBytes.
const MaxBodyBytes = 1 << 30

// bodyChunk is a body buffer's first size (or the declared length and a
// byte, if less), and the least it grows by.
const bodyChunk = 4 << 10

// errBodyRoom marks readBody's refusals for want of room: a first chunk's
// wait that ended (the request's limit, the client gone, the server shut
// down), or errBodyGrow.
var errBodyRoom = errors.New("no room for the body")

// errBodyGrow marks a buffer that could not grow at once: a request that
// holds room never waits for more (requests holding room and waiting for
// more could only wait on each other: 40 uploads half sent when the
// budget filled all waited out the timeout; review), nor ahead of another
// in line (one growth waiting first made a request of 13 bytes wait for
// it; review).
var errBodyGrow = fmt.Errorf("%w: the buffer could not grow", errBodyRoom)

// readBody reads r's body (at most Options.MaxBodyBytes: a
// *http.MaxBytesError past it) into a buffer whose capacity, in units of
// bytesPerValue, it takes from s.bodies, adding them to *units: its first
// chunk's room is waited for, in line, up to RequestTimeout (an error
// wrapping errBodyRoom and the context's error past it); the buffer then
// doubles as the bytes arrive (to the declared length and a byte at
// most), each growth's room taken only if it is free at once, else an
// error wrapping errBodyGrow. A client holds at most twice the room of
// what it sent, and a chunk.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request, units *int) ([]byte, error) {
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.RequestTimeout)
	defer cancel()
	limit := s.opts.MaxBodyBytes
	rd := http.MaxBytesReader(w, r.Body, limit)
	var buf []byte
	for {
		if len(buf) == cap(buf) {
			// Twice the size, a chunk at least; at most the declared
			// length and a byte (to see the end), or for a body of
			// unknown length the limit and a chunk (the reader fails
			// past the limit).
			to := cap(buf) + max(min(cap(buf), int(limit)), bodyChunk) // no overflow of 2*cap on 32 bits
			if r.ContentLength >= 0 && r.ContentLength < limit {
				to = min(to, int(r.ContentLength)+1)
			}
			to = min(to, int(limit)+bodyChunk)
			if to <= cap(buf) { // cannot happen: the reader ends first
				return nil, fmt.Errorf("serve: a body buffer of %d bytes cannot grow (limit %d)", cap(buf), limit)
			}
			u := (to - cap(buf) + bytesPerValue - 1) / bytesPerValue
			if buf == nil {
				if err := s.bodies.take(ctx, u); err != nil {
					return nil, fmt.Errorf("%w: %w", errBodyRoom, err)
				}
			} else if !s.bodies.tryTake(u) {
				return nil, errBodyGrow
			}
			*units += u
			buf = append(make([]byte, 0, to), buf...)
		}
		n, err := rd.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// bytesPerValue is about the memory a number of an answer takes while it
// is made (one answer of 2^21 numbers raised the server's peak memory by
// 227 MB, about 110 bytes a number; 8 at once peaked at 1.65 GB),
// the unit of Options.MaxValuesInFlight in which an encoded answer's
// bytes are counted until they are sent.
const bytesPerValue = 120

// statusClientClosed is the status of a request whose client closed the
// connection before its answer (nginx's 499), written in case the client
// still reads, and counted so in the metrics.
const statusClientClosed = 499

// drainBytes is the most of a refused body that drain reads.
const drainBytes = 32 << 20

// drain reads and drops up to drainBytes of a body that is refused, so
// that a client still sending it can read the answer; a larger rest is
// left, and the connection closed (ReadTimeout bounds a slow one).
func drain(body io.Reader) { io.CopyN(io.Discard, body, drainBytes) }

// drainRefused drains the body of a request refused before it was read
// (an unknown model or endpoint, a wrong method or encoding), unless its
// client waits to be invited to send it ("Expect: 100-continue"): a
// client that reads only once it has sent everything met a reset
// connection instead of the refusal.
func drainRefused(r *http.Request) {
	if r.Header.Get("Expect") == "" {
		drain(r.Body)
	}
}

// marshal encodes v as one line of JSON, without escaping <, > and & (an
// answer is not HTML, and "\u003e" in an error read badly).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // the line ends with '\n'
		return nil, err
	}
	return b.Bytes(), nil
}

func writeJSON(w http.ResponseWriter, code int, v any) int {
	b, err := marshal(v)
	if err != nil {
		return writeError(w, http.StatusInternalServerError, "encoding the answer: "+err.Error())
	}
	return writeBody(w, code, b)
}

// writeBody writes b, JSON, with status code, and returns the code, or
// statusClientClosed where the client closed the connection while the
// answer was being sent (a write that failed while the client was gone;
// a small answer's failure, in net/http's buffer, is not seen).
func writeBody(w http.ResponseWriter, code int, b []byte) int {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(code)
	if _, err := w.Write(b); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) && clientGone(w) {
		// (net/http cancels the request's context at any failed write, its
		// own write deadline's too: the server's cut keeps its code,
		// helper-126.)
		return statusClientClosed
	}
	return code
}

func writeError(w http.ResponseWriter, code int, msg string) int {
	b, _ := marshal(map[string]string{"error": msg})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	w.Write(b)
	return code
}

// oneLine escapes the control characters of a log line but tabs (a file
// name or an error holding a line break could forge the lines that
// follow, an escape sequence rewrite a terminal's): \n and \r as such,
// C0, DEL and C1 as \xNN or \u00NN, the line and paragraph separators as
// \u2028 and \u2029, a byte that is not UTF-8 in the 8-bit controls'
// range (0x80 to 0x9f: CSI on an 8-bit terminal) as \xNN; other bytes as
// they are.
func oneLine(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == utf8.RuneError && n == 1 && s[i] >= 0x80 && s[i] <= 0x9f,
			r < 0x20 && r != '\t', r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r >= 0x80 && r <= 0x9f, r == 0x2028, r == 0x2029:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// rateLog lets one log line a key through per second, counting those it
// holds back. With flush set, the count of lines held back is given to
// flush a second after the last line let through, unless a line let
// through has reported it (else a burst's count waited for the next
// fault, perhaps for good): at most a line and a count a second.
type rateLog struct {
	mu      sync.Mutex
	last    map[string]time.Time
	held    map[string]int
	pending map[string]*time.Timer // a flush is scheduled
	stopped bool                   // by stop: no more flushes
	flush   func(key string, held int)
}

// stop cancels the scheduled flushes (a closed server logs no more).
func (r *rateLog) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
	for _, t := range r.pending {
		t.Stop()
	}
}

// take reports whether a line for key may be logged at now, and how many
// were held back since the last one.
func (r *rateLog) take(key string, now time.Time) (held int, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last == nil {
		r.last, r.held = map[string]time.Time{}, map[string]int{}
	}
	if t, seen := r.last[key]; seen && now.Sub(t) < time.Second {
		r.held[key]++
		if r.flush != nil && !r.stopped && r.pending[key] == nil {
			if r.pending == nil {
				r.pending = map[string]*time.Timer{}
			}
			r.pending[key] = time.AfterFunc(time.Second-now.Sub(t), func() { r.flushHeld(key) })
		}
		return 0, false
	}
	held = r.held[key]
	r.last[key], r.held[key] = now, 0
	return held, true
}

// flushHeld gives flush the count of key's lines held back, if any. The
// second of the last line let through is left as it was, so that the next
// line, with its own message, is let through (a flush taking the slot
// left only counts in the log under steady faults). flush is called
// under the lock: after stop, none is.
func (r *rateLog) flushHeld(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.pending, key)
	if n := r.held[key]; n > 0 && !r.stopped {
		r.held[key] = 0
		r.flush(key, n)
	}
}

// reqState is a request in a handler (Server.reqs), guarded by reqMu.
type reqState struct {
	answering bool // its answer's header was written
	cancelled bool // counted cancelled at the end of the grace period
}

// answerWriter marks its request answering at the answer's first write.
type answerWriter struct {
	http.ResponseWriter
	s     *Server
	st    *reqState
	rctx  context.Context // the request's: done when the client goes
	begun bool
}

// clientGone reports whether a failed write of w's answer is the client's
// doing (its connection closed, the server not shutting down) rather than
// the server's (a write deadline, the close at the end of --grace).
func clientGone(w http.ResponseWriter) bool {
	a, ok := w.(*answerWriter)
	return ok && a.rctx.Err() != nil && !a.s.closing.Load()
}

func (a *answerWriter) begin() {
	if !a.begun {
		a.begun = true
		a.s.reqMu.Lock()
		a.st.answering = true
		a.s.reqMu.Unlock()
	}
}

// WriteHeader implements http.ResponseWriter.
func (a *answerWriter) WriteHeader(code int) {
	a.begin()
	a.ResponseWriter.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (a *answerWriter) Write(p []byte) (int, error) {
	a.begin()
	return a.ResponseWriter.Write(p)
}

// Unwrap returns the ResponseWriter wrapped (for http.ResponseController).
func (a *answerWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// inFlight is the number of requests in a handler.
func (s *Server) inFlight() int {
	s.reqMu.Lock()
	defer s.reqMu.Unlock()
	return len(s.reqs)
}
