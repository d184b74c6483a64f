package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"decoreg"
	"decoreg/data"
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
// order of the answer's fields. It is a copy for reading: the package does
// not read it, so changing it changes nothing.
var Outputs = outputs()

// DefaultOutputs are the outputs of a request that names none: the
// columns of 'decoreg predict' (without logpdf). A copy for reading, as
// Outputs.
var DefaultOutputs = defaultOutputs()

func outputs() []string {
	return []string{outMean, outMedian, outMode, outQuantiles, outLogPDF, outCDF, outSamples, outDensity}
}

func defaultOutputs() []string { return []string{outMean, outMedian, outMode, outQuantiles} }

// defaultLevels are decoreg.DefaultLevels' values (TestDefaultsCopied),
// new each call: the package does not read the exported variable.
func defaultLevels() []float64 { return []float64{0.05, 0.25, 0.75, 0.95} }

// Request is the body of POST /v1/models/{name}/predict.
type Request struct {
	// Rows are the inputs as objects keyed by feature name; X gives them
	// instead as arrays in the model's feature order. Exactly one of the
	// two is set.
	Rows []json.RawMessage   `json:"rows,omitempty"`
	X    [][]json.RawMessage `json:"x,omitempty"` // see Rows
	// Outputs are what to compute (Outputs lists them); default
	// DefaultOutputs.
	Outputs []string `json:"outputs,omitempty"`
	// Quantiles are the levels of the quantiles output, each in [0, 1];
	// default decoreg.DefaultLevels.
	Quantiles []json.RawMessage `json:"quantiles,omitempty"`
	// Y holds one target value per row, where logpdf and cdf are
	// evaluated.
	Y []json.RawMessage `json:"y,omitempty"`
	// Samples sets the samples output.
	Samples *SampleSpec `json:"samples,omitempty"`
	// Density sets the density output: the log-density on a grid.
	Density *DensitySpec `json:"density,omitempty"`
}

// SampleSpec sets the samples output. Temperature, TopK and TopP apply to
// decoder heads (as in 'decoreg sample'); Centres draws the cells' (a
// decoder's) or bins' (a Riemann head's) centres instead of values
// uniform within them (sample --centres). Row i of a request draws from
// its own generator seeded with (Seed, i), so the answer does not depend
// on how requests were batched, and the draws are reproducible: Seed
// defaults to 0, as sample's --seed does, so a request sent again gets the
// same draws; another Seed gives others.
type SampleSpec struct {
	N           int      `json:"n"`                     // draws per row, at least 1 (Limits.MaxSamples over the rows at most)
	Temperature *float64 `json:"temperature,omitempty"` // default 1
	TopK        int      `json:"top_k,omitempty"`       // the most probable tokens kept at each step; 0 keeps all
	TopP        *float64 `json:"top_p,omitempty"`       // default 1
	Centres     bool     `json:"centres,omitempty"`     // the cells' or bins' centres, not values within them
	Seed        uint64   `json:"seed,omitempty"`        // the draws' seed, with the row's index
}

// DensitySpec sets the density output: N points (default 200) evenly
// spaced on [Lo, Hi], by default the row's 0.001 and 0.999 quantiles
// widened by 5% of their distance on each side, but not past the ends of
// a bounded support. N 0 is the default; a request that gives "n": 0 is
// refused.
type DensitySpec struct {
	N  int      `json:"n,omitempty"`  // points per row
	Lo *float64 `json:"lo,omitempty"` // the grid's first point
	Hi *float64 `json:"hi,omitempty"` // the grid's last point
}

// Response is the answer of a predict request.
type Response struct {
	Model       string       `json:"model"`       // the model's name
	Predictions []Prediction `json:"predictions"` // one per row, in the request's order
	// Warnings note inputs of a model with a schema that were encoded
	// without their own feature (levels not seen in training, and null
	// values of columns that had no missing value in training) or that lie
	// far beyond a column's training range (data.Far).
	Warnings []string `json:"warnings,omitempty"`
}

// Float is the number type of the answers: a float64 whose JSON form is a
// number, null for NaN, or the strings "+Inf" and "-Inf"; decoding
// reverses that. Convert with float64(f) and Float(v).
type Float = jsonfloat.Float

// Prediction is the answer for one row; outputs not asked for are absent.
// Non-finite numbers are written as in decoreg's JSON: null for NaN and
// the strings "+Inf" and "-Inf" (a logpdf outside the support).
type Prediction struct {
	Mean      *Float   `json:"mean,omitempty"` // the point estimates, as predict writes them
	Median    *Float   `json:"median,omitempty"`
	Mode      *Float   `json:"mode,omitempty"`
	Quantiles []Float  `json:"quantiles,omitempty"` // at the request's levels, in their order
	LogPDF    *Float   `json:"logpdf,omitempty"`    // log p(y|x) at the row's y, per unit of y
	CDF       *Float   `json:"cdf,omitempty"`       // P(Y <= y) at the row's y
	Samples   []Float  `json:"samples,omitempty"`   // SampleSpec.N draws
	Density   *Density `json:"density,omitempty"`   // the log-density on DensitySpec's grid
}

// Density is the log-density of p(y|x) at the points Y.
type Density struct {
	Y      []Float `json:"y"`      // the grid's points, ascending
	LogPDF []Float `json:"logpdf"` // log p(y|x) at each, per unit of y
}

// Limits bound what one request may ask for. The zero value of a field
// means its default (DefaultLimits).
type Limits struct {
	MaxRows      int // rows per request
	MaxSamples   int // samples per request, rows x n
	MaxQuantiles int // quantile levels per request
	MaxDensity   int // density points per request, rows x n
	MaxValues    int // numbers in an answer, all outputs of all rows
}

// DefaultLimits are the limits of a zero Limits; MaxLimits the largest
// that New accepts (beyond them one request could exhaust the memory of
// the machine).
var (
	DefaultLimits = Limits{MaxRows: 10000, MaxSamples: 1 << 20, MaxQuantiles: 1000, MaxDensity: 1 << 20, MaxValues: 1 << 22}
	MaxLimits     = Limits{MaxRows: 1 << 20, MaxSamples: 1 << 24, MaxQuantiles: 1 << 16, MaxDensity: 1 << 24, MaxValues: 1 << 26}
)

// check returns an error naming the first limit above MaxLimits.
func (l Limits) check() error {
	for _, c := range []struct {
		name   string
		v, max int
	}{
		{"MaxRows", l.MaxRows, MaxLimits.MaxRows}, {"MaxSamples", l.MaxSamples, MaxLimits.MaxSamples},
		{"MaxQuantiles", l.MaxQuantiles, MaxLimits.MaxQuantiles}, {"MaxDensity", l.MaxDensity, MaxLimits.MaxDensity},
		{"MaxValues", l.MaxValues, MaxLimits.MaxValues},
	} {
		if c.v > c.max {
			return fmt.Errorf("serve: Limits.%s = %d is above its maximum %d", c.name, c.v, c.max)
		}
	}
	return nil
}

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
	if l.MaxValues <= 0 {
		l.MaxValues = DefaultLimits.MaxValues
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
	x      []float64     // rows x features, row-major (nil with enc)
	enc    *data.Encoder // a model with a schema: its rows, encoded a chunk at a time
	rows   int
	want   map[string]bool
	levels []float64
	y      []float64
	sample dist.SampleOptions
	n      int // samples per row
	seed   uint64
	dens   DensitySpec // N set, Lo/Hi nil for the default range
	warns  []string    // encoding warnings (models with a schema)
	asX    bool        // the inputs came as "x", arrays, not as "rows"
	values int         // the numbers of the answer (Options.MaxValuesInFlight counts them)
}

// fill writes rows [lo, hi) of the query's inputs into x, d features a
// row.
func (q *query) fill(lo, hi, d int, x []float64) error {
	if q.enc != nil {
		return q.enc.Fill(lo, hi, x)
	}
	copy(x, q.x[lo*d:hi*d])
	return nil
}

// badRequest is an error that is the client's fault (HTTP 400).
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

func badf(format string, a ...any) error { return &badRequest{fmt.Sprintf(format, a...)} }

// model is what parseRequest needs to know of a model.
type modelSpec struct {
	features []string // the network's inputs (encoded, with a schema)
	head     decoreg.Head
	schema   *data.Schema // nil: rows are keyed by features, numbers only
	recal    bool         // a map of the CDF: samples by inverse CDF
}

// parseRequest decodes and validates a predict request's body for model
// ms within limits. Every error is a *badRequest with a message that names
// the offending field, row or feature.
func parseRequest(body []byte, ms modelSpec, lim Limits) (*query, error) {
	// Before decoding: a body of more values than the limits allow is
	// refused at the cost of one scan (decoding 2 million numbers of one
	// row held about 60 times the body's size in memory before the row's
	// length was checked).
	cols := len(ms.features)
	if ms.schema != nil {
		cols = max(cols, len(ms.schema.Columns))
	}
	if n, most := separators(body), lim.MaxRows*(cols+2)+lim.MaxQuantiles+64; n > most {
		return nil, badf("the body holds over %d values, more than %d rows of %d features with their \"y\" and %d quantile levels can need", n, lim.MaxRows, cols, lim.MaxQuantiles)
	}
	var r Request
	raw, err := strictDecode(body, &r, requestFields, "the body")
	if err != nil {
		return nil, err
	}
	// The nested objects' keys, checked as strictly (their values are in r).
	for _, sub := range []struct {
		key   string
		known map[string]bool
	}{{"samples", sampleFields}, {"density", densityFields}} {
		if b, ok := raw[sub.key]; ok && strings.TrimSpace(string(b)) != "null" {
			keys, vals, err := objectFields(b, `"`+sub.key+`"`)
			if err != nil {
				return nil, err
			}
			if err := checkFields(keys, sub.known, `"`+sub.key+`"`); err != nil {
				return nil, err
			}
			// density.n is optional, but a 0 given is a mistake, as
			// samples.n's 0 is (it read as the default 200).
			if n, ok := vals["n"]; ok && sub.key == "density" {
				if v, err := number(n); err == nil && v == 0 {
					return nil, badf("density.n must be >= 2, have 0 (leave it out for the default %d)", defaultDensityN)
				}
			}
		}
	}
	q := &query{want: map[string]bool{}, asX: r.X != nil}
	if err := q.rowsFrom(&r, ms, lim); err != nil {
		return nil, err
	}
	outs := r.Outputs
	if len(outs) == 0 {
		outs = defaultOutputs()
	}
	for i, o := range outs {
		if !slices.Contains(outputs(), o) {
			// outputs[i]: a null is read as "" (it said unknown output "").
			return nil, badf("outputs[%d]: unknown output %q (outputs are %s)", i, clip(o), strings.Join(outputs(), ", "))
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
	case r.Quantiles != nil && !q.want[outQuantiles]:
		return nil, badf(`"quantiles" levels are given but the output "quantiles" is not asked for`)
	case r.Y != nil && !q.want[outLogPDF] && !q.want[outCDF]:
		return nil, badf(`"y" is given but neither output "logpdf" nor "cdf" is asked for`)
	case r.Samples != nil && !q.want[outSamples]:
		return nil, badf(`"samples" options are given but the output "samples" is not asked for`)
	case r.Density != nil && !q.want[outDensity]:
		return nil, badf(`"density" options are given but the output "density" is not asked for`)
	}
	if q.want[outQuantiles] {
		q.levels = defaultLevels()
		if r.Quantiles != nil {
			if len(r.Quantiles) == 0 {
				return nil, badf(`"quantiles" is empty: give levels in [0, 1], or leave it out for the defaults`)
			}
			if len(r.Quantiles) > lim.MaxQuantiles {
				return nil, badf("%d quantile levels: at most %d per request", len(r.Quantiles), lim.MaxQuantiles)
			}
			q.levels = make([]float64, len(r.Quantiles))
			for i, raw := range r.Quantiles {
				l, err := number(raw)
				if err != nil || !(l >= 0 && l <= 1) {
					return nil, badf("quantiles[%d] = %s is not a number in [0, 1]", i, clip(string(raw)))
				}
				q.levels[i] = l + 0 // -0 is 0
			}
		}
	}
	if q.want[outLogPDF] || q.want[outCDF] {
		if len(r.Y) != q.rows {
			return nil, badf(`outputs "logpdf" and "cdf" need "y" with one value per row: %d values for %d rows`, len(r.Y), q.rows)
		}
		q.y = make([]float64, len(r.Y))
		for i, raw := range r.Y {
			v, err := number(raw)
			if err != nil {
				return nil, badf("y[%d]: %v", i, err)
			}
			q.y[i] = v
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
	// The size of the answer: every number of every row.
	per := len(q.levels) + q.n + 2*q.dens.N
	for _, o := range []string{outMean, outMedian, outMode, outLogPDF, outCDF} {
		if q.want[o] {
			per++
		}
	}
	if per > lim.MaxValues/q.rows {
		return nil, badf("the answer would hold %d rows x %d numbers: at most %d numbers per request", q.rows, per, lim.MaxValues)
	}
	q.values = per * q.rows
	return q, nil
}

// The JSON names of the request's objects' fields.
var (
	requestFields = jsonFields(Request{})
	sampleFields  = jsonFields(SampleSpec{})
	densityFields = jsonFields(DensitySpec{})
)

// strictDecode decodes the JSON object b into v (a pointer to a struct
// whose JSON names are known), refusing what encoding/json lets pass: keys
// that match a field only case-insensitively, duplicate keys, unknown
// keys, and anything after the value. It returns the object's fields
// undecoded. what names b in messages.
func strictDecode(b []byte, v any, known map[string]bool, what string) (map[string]json.RawMessage, error) {
	keys, vals, err := objectFields(b, what)
	if err != nil {
		return nil, err
	}
	if err := checkFields(keys, known, what); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return nil, badf("bad JSON in %s: %v", what, jsonErr(err))
	}
	return vals, nil
}

// checkFields refuses the first of keys that is not known.
func checkFields(keys []string, known map[string]bool, what string) error {
	for _, k := range keys {
		if !known[k] {
			return badf("%s: unknown field %q", what, clip(k))
		}
	}
	return nil
}

// objectFields returns the keys of the JSON object b in order and its
// values undecoded, refusing duplicate keys, a value that is not an
// object, and trailing data.
func objectFields(b []byte, what string) ([]string, map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, badf("bad JSON in %s: %v", what, jsonErr(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, badf("%s must be a JSON object", what)
	}
	// Past the opening brace, the end of the input is a value cut off,
	// not an empty body.
	cut := func(err error) error {
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	var keys []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, badf("bad JSON in %s: %v", what, jsonErr(cut(err)))
		}
		k := tok.(string) // object keys are strings
		if _, dup := vals[k]; dup {
			return nil, nil, badf("%s: key %q appears twice", what, clip(k))
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, badf("bad JSON in %s: %v", what, jsonErr(cut(err)))
		}
		keys = append(keys, k)
		vals[k] = v
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, nil, badf("bad JSON in %s: %v", what, jsonErr(cut(err)))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, badf("bad JSON in %s: more than one value", what)
	}
	return keys, vals, nil
}

// jsonFields returns the JSON names of the fields of the struct v.
func jsonFields(v any) map[string]bool {
	t := reflect.TypeOf(v)
	out := map[string]bool{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		out[name] = true
	}
	return out
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
	if ms.schema != nil {
		return q.rowsFromSchema(r, ms, lim)
	}
	d := len(ms.features)
	switch {
	case r.Rows != nil && r.X != nil:
		return badf(`give the inputs as "rows" or as "x", not both`)
	case r.Rows == nil && r.X == nil:
		return badf(`no inputs: give "rows" (objects keyed by feature name) or "x" (arrays in feature order: %s)`, clipList(ms.features))
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
				return badf("x[%d] has %d values; the model takes %d features (%s)", i, len(row), d, clipList(ms.features))
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
	for i, raw := range r.Rows {
		what := fmt.Sprintf("rows[%d]", i)
		if strings.TrimSpace(string(raw)) == "null" {
			return badf("%s is null", what)
		}
		keys, row, err := objectFields(raw, what)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if _, ok := col[k]; !ok {
				return badf("%s: unknown feature %q (the model's features are %s)", what, clip(k), clipList(ms.features))
			}
		}
		if len(keys) != d {
			for _, f := range ms.features {
				if !slices.Contains(keys, f) {
					return badf("%s: feature %q is missing", what, f)
				}
			}
		}
		for _, f := range ms.features {
			v, err := number(row[f])
			if err != nil {
				return badf("%s: feature %q: %v", what, f, err)
			}
			q.x[i*d+col[f]] = v
		}
	}
	return nil
}

// clipList joins names for a message, at most 20 of them.
func clipList(names []string) string {
	if len(names) > 20 {
		return strings.Join(names[:20], ", ") + fmt.Sprintf(", ... (%d in all)", len(names))
	}
	return strings.Join(names, ", ")
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
	if s.N > lim.MaxSamples/q.rows {
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
		if !(*s.TopP > 0 && *s.TopP <= 1) { // one message for both ends (1.5 had the library's "[0, 1]")
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
	if ms.recal && (s.Temperature != nil || s.TopK != 0 || s.TopP != nil) {
		return badf("samples.temperature, top_k and top_p reshape the decoder's ancestral sampling; this model is recalibrated (calibrate_by isotonic) and samples by inverse CDF")
	}
	if s.Centres {
		switch {
		case ms.head != decoreg.HeadDecoder && ms.head != decoreg.HeadRiemann:
			return badf("samples.centres is for decoder and Riemann heads, whose draws fall in cells; this is a %s model", ms.head)
		case ms.recal:
			return badf("samples.centres is for the cells of ancestral sampling; this model is recalibrated (calibrate_by isotonic) and samples by inverse CDF")
		}
		o.Centres = true
	}
	q.sample, q.n, q.seed = o, s.N, s.Seed
	return nil
}

func (q *query) densityFrom(s *DensitySpec, lim Limits) error {
	q.dens = DensitySpec{N: defaultDensityN}
	if s != nil && s.N != 0 {
		if s.N < 2 {
			return badf("density.n must be >= 2, have %d", s.N)
		}
		q.dens.N = s.N
	}
	if q.dens.N > lim.MaxDensity/q.rows {
		return badf("density: %d points for %d rows: at most %d points per request", q.dens.N, q.rows, lim.MaxDensity)
	}
	if s == nil {
		return nil
	}
	if (s.Lo == nil) != (s.Hi == nil) {
		return badf("density: give both lo and hi, or neither")
	}
	if s.Lo != nil {
		lo, hi := *s.Lo, *s.Hi
		if !(lo < hi) {
			return badf("density: need finite lo < hi, have lo %v, hi %v", lo, hi)
		}
		if math.IsInf(hi-lo, 0) {
			return badf("density: hi - lo overflows float64 (lo %v, hi %v): give a narrower grid", lo, hi)
		}
		q.dens.Lo, q.dens.Hi = &lo, &hi
	}
	return nil
}

// separators counts the commas of JSON text b outside its strings: one
// fewer than the values of a flat array, a bound on any body's values less
// its containers.
func separators(b []byte) int {
	n, in, esc := 0, false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case c == ',' && !in:
			n++
		}
	}
	return n
}
