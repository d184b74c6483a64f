package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"decoreg"
	"decoreg/dist"
	"decoreg/internal/jsonfloat"
)

// The outputs a predict request may ask for.
const (
	outMean      = "mean"
	outMedian    = "median"
	outMode      = "mode"
	outQuantiles = "quantiles"
	outLogPDF    = "logpdf"
	outCDF       = "cdf"
	outSamples   = "samples"
	outDensity   = "density"
)

// Outputs lists the outputs of POST /v1/models/{name}/predict, in the
// order of the answer's fields.
var Outputs = []string{outMean, outMedian, outMode, outQuantiles, outLogPDF, outCDF, outSamples, outDensity}

// DefaultOutputs are the outputs of a request that names none: the
// columns of 'decoreg predict' (without logpdf).
var DefaultOutputs = []string{outMean, outMedian, outMode, outQuantiles}

// Request is the body of POST /v1/models/{name}/predict.
type Request struct {
	// Rows are the inputs as objects keyed by feature name; X gives them
	// instead as arrays in the model's feature order. Exactly one of the
	// two is set.
	Rows []map[string]json.RawMessage `json:"rows,omitempty"`
	X    [][]json.RawMessage          `json:"x,omitempty"`
	// Outputs are what to compute (Outputs lists them); default
	// DefaultOutputs.
	Outputs []string `json:"outputs,omitempty"`
	// Quantiles are the levels of the quantiles output, each in [0, 1];
	// default decoreg.DefaultLevels.
	Quantiles []jsonfloat.Float `json:"quantiles,omitempty"`
	// Y holds one target value per row, where logpdf and cdf are
	// evaluated.
	Y []jsonfloat.Float `json:"y,omitempty"`
	// Samples sets the samples output.
	Samples *SampleSpec `json:"samples,omitempty"`
	// Density sets the density output: the log-density on a grid.
	Density *DensitySpec `json:"density,omitempty"`
}

// SampleSpec sets the samples output. Temperature, TopK and TopP apply to
// decoder heads (as in 'decoreg sample'); Seed makes the draws
// reproducible: row i of a request draws from its own generator seeded
// with (Seed, i), so the answer does not depend on how requests were
// batched.
type SampleSpec struct {
	N           int      `json:"n"`
	Temperature *float64 `json:"temperature,omitempty"` // default 1
	TopK        int      `json:"top_k,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"` // default 1
	Seed        uint64   `json:"seed,omitempty"`
}

// DensitySpec sets the density output: N points (default 200) evenly
// spaced on [Lo, Hi], by default the row's 0.001 and 0.999 quantiles
// widened by 5% of their distance on each side.
type DensitySpec struct {
	N  int      `json:"n,omitempty"`
	Lo *float64 `json:"lo,omitempty"`
	Hi *float64 `json:"hi,omitempty"`
}

// Response is the answer of a predict request.
type Response struct {
	Model       string       `json:"model"`
	Predictions []Prediction `json:"predictions"`
}

// Prediction is the answer for one row; outputs not asked for are absent.
// Non-finite numbers are written as in decoreg's JSON: null for NaN and
// the strings "+Inf" and "-Inf" (a logpdf outside the support).
type Prediction struct {
	Mean      *jsonfloat.Float  `json:"mean,omitempty"`
	Median    *jsonfloat.Float  `json:"median,omitempty"`
	Mode      *jsonfloat.Float  `json:"mode,omitempty"`
	Quantiles []jsonfloat.Float `json:"quantiles,omitempty"`
	LogPDF    *jsonfloat.Float  `json:"logpdf,omitempty"`
	CDF       *jsonfloat.Float  `json:"cdf,omitempty"`
	Samples   []jsonfloat.Float `json:"samples,omitempty"`
	Density   *Density          `json:"density,omitempty"`
}

// Density is the log-density of p(y|x) at the points Y.
type Density struct {
	Y      []jsonfloat.Float `json:"y"`
	LogPDF []jsonfloat.Float `json:"logpdf"`
}

// Limits bound what one request may ask for. The zero value of a field
// means its default (DefaultLimits).
type Limits struct {
	MaxRows      int // rows per request
	MaxSamples   int // samples per request, rows x n
	MaxQuantiles int // quantile levels per request
	MaxDensity   int // density points per request, rows x n
}

// DefaultLimits are the limits of a zero Limits.
var DefaultLimits = Limits{MaxRows: 10000, MaxSamples: 1 << 20, MaxQuantiles: 1000, MaxDensity: 1 << 20}

func (l Limits) withDefaults() Limits {
	if l.MaxRows <= 0 {
		l.MaxRows = DefaultLimits.MaxRows
	}
	if l.MaxSamples <= 0 {
		l.MaxSamples = DefaultLimits.MaxSamples
	}
	if l.MaxQuantiles <= 0 {
		l.MaxQuantiles = DefaultLimits.MaxQuantiles
	}
	if l.MaxDensity <= 0 {
		l.MaxDensity = DefaultLimits.MaxDensity
	}
	return l
}

// Defaults of a density request.
const (
	defaultDensityN = 200
	densityTail     = 0.001 // the default grid spans these tail quantiles
)

// query is a validated request: the rows in feature order and what to
// compute for them.
type query struct {
	x      []float64 // rows x features, row-major
	rows   int
	want   map[string]bool
	levels []float64
	y      []float64
	sample dist.SampleOptions
	n      int // samples per row
	seed   uint64
	dens   DensitySpec // N set, Lo/Hi nil for the default range
}

// badRequest is an error that is the client's fault (HTTP 400).
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

func badf(format string, a ...any) error { return &badRequest{fmt.Sprintf(format, a...)} }

// model is what parseRequest needs to know of a model.
type modelSpec struct {
	features []string
	head     decoreg.Head
}

// parseRequest decodes and validates a predict request's body for model
// ms within limits. Every error is a *badRequest with a message that names
// the offending field, row or feature.
func parseRequest(body []byte, ms modelSpec, lim Limits) (*query, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var r Request
	if err := dec.Decode(&r); err != nil {
		return nil, badf("bad JSON: %v", jsonErr(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, badf("bad JSON: more than one value in the body")
	}
	q := &query{want: map[string]bool{}}
	if err := q.rowsFrom(&r, ms, lim); err != nil {
		return nil, err
	}
	outs := r.Outputs
	if len(outs) == 0 {
		outs = DefaultOutputs
	}
	for _, o := range outs {
		if !slices.Contains(Outputs, o) {
			return nil, badf("unknown output %q (outputs are %s)", o, strings.Join(Outputs, ", "))
		}
		if q.want[o] {
			return nil, badf("output %q is asked for twice", o)
		}
		q.want[o] = true
	}
	if ms.head == decoreg.HeadPointwise && (q.want[outLogPDF] || q.want[outDensity]) {
		return nil, badf("output %q: a pointwise model has no density", firstOf(q.want, outLogPDF, outDensity))
	}
	// Options for outputs that were not asked for are mistakes, not noise.
	switch {
	case len(r.Quantiles) > 0 && !q.want[outQuantiles]:
		return nil, badf(`"quantiles" levels are given but the output "quantiles" is not asked for`)
	case r.Y != nil && !q.want[outLogPDF] && !q.want[outCDF]:
		return nil, badf(`"y" is given but neither output "logpdf" nor "cdf" is asked for`)
	case r.Samples != nil && !q.want[outSamples]:
		return nil, badf(`"samples" options are given but the output "samples" is not asked for`)
	case r.Density != nil && !q.want[outDensity]:
		return nil, badf(`"density" options are given but the output "density" is not asked for`)
	}
	if q.want[outQuantiles] {
		q.levels = decoreg.DefaultLevels
		if len(r.Quantiles) > 0 {
			q.levels = make([]float64, len(r.Quantiles))
			for i, l := range r.Quantiles {
				q.levels[i] = float64(l) + 0 // -0 is 0
			}
		}
		if len(q.levels) > lim.MaxQuantiles {
			return nil, badf("%d quantile levels: at most %d per request", len(q.levels), lim.MaxQuantiles)
		}
		for i, l := range q.levels {
			if !(l >= 0 && l <= 1) {
				return nil, badf("quantiles[%d] = %v is outside [0, 1]", i, l)
			}
		}
	}
	if q.want[outLogPDF] || q.want[outCDF] {
		if len(r.Y) != q.rows {
			return nil, badf(`outputs "logpdf" and "cdf" need "y" with one value per row: %d values for %d rows`, len(r.Y), q.rows)
		}
		q.y = make([]float64, len(r.Y))
		for i, v := range r.Y {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, badf("y[%d] is not a finite number", i)
			}
			q.y[i] = float64(v)
		}
	}
	if q.want[outSamples] {
		if err := q.samplesFrom(r.Samples, ms, lim); err != nil {
			return nil, err
		}
	}
	if q.want[outDensity] {
		if err := q.densityFrom(r.Density, lim); err != nil {
			return nil, err
		}
	}
	return q, nil
}

func firstOf(want map[string]bool, names ...string) string {
	for _, n := range names {
		if want[n] {
			return n
		}
	}
	return ""
}

// jsonErr shortens encoding/json's errors (which name Go types).
func jsonErr(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	case errors.As(err, &te):
		if te.Field != "" {
			return fmt.Sprintf("field %q: cannot use a JSON %s here", te.Field, te.Value)
		}
		return fmt.Sprintf("cannot use a JSON %s here", te.Value)
	case err == io.EOF:
		return "empty body"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the body ends in the middle of a value"
	}
	return err.Error()
}

// rowsFrom fills q.x and q.rows from r.Rows or r.X.
func (q *query) rowsFrom(r *Request, ms modelSpec, lim Limits) error {
	d := len(ms.features)
	switch {
	case r.Rows != nil && r.X != nil:
		return badf(`give the inputs as "rows" or as "x", not both`)
	case r.Rows == nil && r.X == nil:
		return badf(`no inputs: give "rows" (objects keyed by feature name) or "x" (arrays in feature order: %s)`, strings.Join(ms.features, ", "))
	}
	n := max(len(r.Rows), len(r.X))
	if n == 0 {
		return badf("no rows")
	}
	if n > lim.MaxRows {
		return badf("%d rows: at most %d per request", n, lim.MaxRows)
	}
	q.rows = n
	q.x = make([]float64, n*d)
	if r.X != nil {
		for i, row := range r.X {
			if len(row) != d {
				return badf("x[%d] has %d values; the model takes %d features (%s)", i, len(row), d, strings.Join(ms.features, ", "))
			}
			for j, raw := range row {
				v, err := number(raw)
				if err != nil {
					return badf("x[%d][%d] (feature %q): %v", i, j, ms.features[j], err)
				}
				q.x[i*d+j] = v
			}
		}
		return nil
	}
	col := make(map[string]int, d)
	for j, f := range ms.features {
		col[f] = j
	}
	for i, row := range r.Rows {
		if row == nil {
			return badf("rows[%d] is null", i)
		}
		for k, raw := range row {
			j, ok := col[k]
			if !ok {
				return badf("rows[%d]: unknown feature %q (the model's features are %s)", i, k, strings.Join(ms.features, ", "))
			}
			v, err := number(raw)
			if err != nil {
				return badf("rows[%d]: feature %q: %v", i, k, err)
			}
			q.x[i*d+j] = v
		}
		if len(row) != d {
			for _, f := range ms.features {
				if _, ok := row[f]; !ok {
					return badf("rows[%d]: feature %q is missing", i, f)
				}
			}
		}
	}
	return nil
}

// number parses one feature value: a finite JSON number.
func number(raw json.RawMessage) (float64, error) {
	s := strings.TrimSpace(string(raw))
	switch {
	case s == "null":
		return 0, errors.New("is null (missing values are not supported)")
	case s == "" || !(s[0] == '-' || s[0] >= '0' && s[0] <= '9'):
		return 0, fmt.Errorf("%s is not a number", clip(s))
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s is not a finite number", clip(s))
	}
	return v, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

func (q *query) samplesFrom(s *SampleSpec, ms modelSpec, lim Limits) error {
	if s == nil || s.N < 1 {
		return badf(`output "samples" needs "samples": {"n": N} with N >= 1`)
	}
	if s.N > lim.MaxSamples || q.rows*s.N > lim.MaxSamples {
		return badf("%d samples for %d rows: at most %d samples per request", s.N, q.rows, lim.MaxSamples)
	}
	o := dist.SampleOptions{TopK: s.TopK, TopP: 1, Temperature: 1}
	if s.Temperature != nil {
		if !(*s.Temperature > 0) {
			return badf("samples.temperature must be > 0, have %v", *s.Temperature)
		}
		o.Temperature = *s.Temperature
	}
	if s.TopP != nil {
		if !(*s.TopP > 0) {
			return badf("samples.top_p must be in (0, 1], have %v", *s.TopP)
		}
		o.TopP = *s.TopP
	}
	if err := o.Validate(); err != nil {
		return badf("samples: %v", strings.TrimPrefix(err.Error(), "dist: "))
	}
	if ms.head != decoreg.HeadDecoder && (s.Temperature != nil || s.TopK != 0 || s.TopP != nil) {
		return badf("samples.temperature, top_k and top_p are for decoder heads; this is a %s model", ms.head)
	}
	q.sample, q.n, q.seed = o, s.N, s.Seed
	return nil
}

func (q *query) densityFrom(s *DensitySpec, lim Limits) error {
	q.dens = DensitySpec{N: defaultDensityN}
	if s == nil {
		return nil
	}
	if s.N != 0 {
		if s.N < 2 {
			return badf("density.n must be >= 2, have %d", s.N)
		}
		q.dens.N = s.N
	}
	if q.dens.N > lim.MaxDensity || q.rows*q.dens.N > lim.MaxDensity {
		return badf("density: %d points for %d rows: at most %d points per request", q.dens.N, q.rows, lim.MaxDensity)
	}
	if (s.Lo == nil) != (s.Hi == nil) {
		return badf("density: give both lo and hi, or neither")
	}
	if s.Lo != nil {
		lo, hi := *s.Lo, *s.Hi
		if !(lo < hi) || math.IsInf(hi-lo, 0) {
			return badf("density: need finite lo < hi, have lo %v, hi %v", lo, hi)
		}
		q.dens.Lo, q.dens.Hi = &lo, &hi
	}
	return nil
}
