package serve

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are a Server's Prometheus metrics, in a registry of its own.
type metrics struct {
	reg        *prometheus.Registry
	requests   *prometheus.CounterVec
	errors     *prometheus.CounterVec
	latency    *prometheus.HistogramVec
	batchRows  prometheus.Histogram
	batchReqs  prometheus.Histogram
	reloads    *prometheus.CounterVec
	faults     *prometheus.CounterVec
	refused    *prometheus.CounterVec
	queueDesc  *prometheus.Desc
	modelsDesc *prometheus.Desc

	nBatches, nRequests, nRows atomic.Int64 // the batch histograms' count and sums
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "decoreg_http_requests_total", Help: "HTTP requests by route and status code.",
		}, []string{"route", "code"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "decoreg_http_request_errors_total", Help: "HTTP requests answered with a status code of 400 or more, by route and code.",
		}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "decoreg_http_request_duration_seconds", Help: "Time from a request's arrival to its answer, by route.",
			Buckets: []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .2, .5, 1, 2, 5, 10, 30},
		}, []string{"route"}),
		batchRows: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "decoreg_batch_rows", Help: "Rows per predicted batch.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 14),
		}),
		batchReqs: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "decoreg_batch_requests", Help: "Requests per predicted batch.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 11),
		}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "decoreg_model_loads_total", Help: "Model files loaded from the model directory (result ok) or refused (result error).",
		}, []string{"result"}),
		faults: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "decoreg_model_faults_total", Help: "Requests answered 500 because the model's prediction overflowed for a row like its training data (the model, not the row, at fault), by model.",
		}, []string{"model"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "decoreg_http_refused_total", Help: "Requests refused 403 before their route: a browser's cross-origin request (reason cross-origin), or a Host that is not a name of a server on a loopback address (reason host).",
		}, []string{"reason"}),
		queueDesc:  prometheus.NewDesc("decoreg_queue_length", "Requests waiting for a batch, by model.", []string{"model"}, nil),
		modelsDesc: prometheus.NewDesc("decoreg_models", "Models being served.", nil, nil),
	}
	m.reg.MustRegister(m.requests, m.errors, m.latency, m.batchRows, m.batchReqs, m.reloads, m.faults, m.refused,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) observeRequest(route string, code int, d time.Duration) {
	c := strconv.Itoa(code)
	m.requests.WithLabelValues(route, c).Inc()
	if code >= 400 {
		m.errors.WithLabelValues(route, c).Inc()
	}
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

func (m *metrics) observeBatch(requests, rows int) {
	m.nBatches.Add(1)
	m.nRequests.Add(int64(requests))
	m.nRows.Add(int64(rows))
	m.batchReqs.Observe(float64(requests))
	m.batchRows.Observe(float64(rows))
}

func (m *metrics) reload(ok bool) {
	r := "ok"
	if !ok {
		r = "error"
	}
	m.reloads.WithLabelValues(r).Inc()
}

// queueCollector reports the queue length of every model being served.
type queueCollector struct {
	reg               *registry
	queue, modelsDesc *prometheus.Desc
}

func (c queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.queue
	ch <- c.modelsDesc
}

func (c queueCollector) Collect(ch chan<- prometheus.Metric) {
	es := c.reg.all()
	for _, e := range es {
		ch <- prometheus.MustNewConstMetric(c.queue, prometheus.GaugeValue, float64(len(e.b.queue)), e.info.Name)
	}
	ch <- prometheus.MustNewConstMetric(c.modelsDesc, prometheus.GaugeValue, float64(len(es)))
}
