package decoreg

import (
	"decoreg/data"
	"errors"
	"fmt"
	"math"
	"slices"

	"decoreg/internal/modelfile"
	"decoreg/vocab"
)

// ErrBadModel is wrapped by Load's error for a model file that is well
// formed (its checksum holds) but whose contents cannot make a working
// model: a hand-edited or foreign file. See ModelError.
var ErrBadModel = errors.New("invalid model file")

// ModelError is the error of a model file whose contents are refused.
// Field names the header field (its JSON key, as "x_std[2]" or "y_max")
// or the parameter ("params[17]") at fault.
type ModelError struct {
	Path  string // the model file, as given to Load
	Field string // the header field or parameter at fault
	Err   error  // what is wrong
}

// Error reads "PATH: invalid model file: FIELD: what is wrong".
func (e *ModelError) Error() string {
	return e.Path + ": " + ErrBadModel.Error() + ": " + e.Field + ": " + fmt.Sprint(e.Err) // "<nil>" for no Err
}

// Unwrap returns ErrBadModel, the model-file package's "not a model" error
// and the underlying error.
func (e *ModelError) Unwrap() []error { return []error{ErrBadModel, modelfile.ErrNotModel, e.Err} }

// maxMedianZ is how many of its sds a column's training median may be from
// its training mean in a model file: one, for the same rows; the medians
// of a frame's rows and the scaling of its training rows differ, so a
// generous bound that catches only a damaged scaling.
const maxMedianZ = 1e6

// checkModel checks a decoded model file (header h, parameters params, read
// from path; cfg is h's config with defaults, validated, and tok its
// tokenization) for everything that could make Load allocate absurd sizes
// or make the model panic or answer NaN later: the scaling statistics and
// the parameters are finite, x_std > 0,
// y_min < y_max with a finite range, the feature names fit the features,
// and the file holds at least the parameters the architecture needs (so
// that a small file cannot make Load allocate a huge network). Load still
// compares the exact parameter count once the network is built.
func checkModel(path string, h *fileHeader, cfg Config, tok vocab.Tokenizer, params []float32) error {
	bad := func(field, format string, args ...any) error {
		return &ModelError{Path: path, Field: field, Err: fmt.Errorf(format, args...)}
	}
	if t := h.Temperature; t != 0 && !(t >= MinTemperature && t <= MaxTemperature) {
		return bad("temperature", "%v, want a number in [%v, %v] (or none)", t, MinTemperature, MaxTemperature)
	}
	if h.Temperature != 0 && cfg.Head == HeadPointwise {
		return bad("temperature", "%v for a pointwise model, which has no distribution to scale", h.Temperature)
	}
	d := len(h.XMean)
	switch {
	case d == 0:
		return bad("x_mean", "no features")
	case len(h.XStd) != d:
		return bad("x_std", "%d values for the %d features of x_mean", len(h.XStd), d)
	case cfg.InputTransform == data.TransformQuantile && h.XQuantiles == nil:
		return bad("x_quantiles", "missing: input transform %q needs the features' knots", cfg.InputTransform)
	case cfg.InputTransform != data.TransformQuantile && h.XQuantiles != nil:
		return bad("x_quantiles", "present for input transform %q: only %q has knots", cfg.InputTransform, data.TransformQuantile)
	case h.XQuantiles != nil && len(h.XQuantiles) != d:
		return bad("x_quantiles", "%d features' knots for %d features", len(h.XQuantiles), d)
	}
	for j, k := range h.XQuantiles {
		if len(k) == 0 || len(k) > data.QuantileKnots {
			return bad(fmt.Sprintf("x_quantiles[%d]", j), "%d knots, want 1 to %d", len(k), data.QuantileKnots)
		}
		for l, v := range k {
			if math.IsNaN(v) || math.IsInf(v, 0) || l > 0 && v < k[l-1] {
				return bad(fmt.Sprintf("x_quantiles[%d][%d]", j, l), "%v: knots must be finite and ascending", v)
			}
		}
	}
	if err := checkPLE(h, cfg, bad); err != nil {
		return err
	}
	for j, v := range h.XMean {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return bad(fmt.Sprintf("x_mean[%d]", j), "%v is not finite", v)
		}
	}
	for j, v := range h.XStd {
		if !(v > 0) || math.IsInf(v, 0) {
			return bad(fmt.Sprintf("x_std[%d]", j), "%v, want a finite value > 0", v)
		}
	}

	for _, f := range []struct {
		name string
		v    float64
	}{{"y_min", h.YMin}, {"y_max", h.YMax}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return bad(f.name, "%v is not finite", f.v)
		}
	}
	if !(h.YMin < h.YMax) {
		return bad("y_max", "y_max %v is not above y_min %v", h.YMax, h.YMin)
	}
	if math.IsInf(h.YMax-h.YMin, 0) {
		return bad("y_max", "the range y_max - y_min overflows (y_min %v, y_max %v)", h.YMin, h.YMax)
	}
	if r := h.YMax - h.YMin; r < minTargetRange {
		// Training refuses such a range: scaled by it, every cell's
		// density overflowed (eval gave a CRPS of +Inf with a bound of 0).
		return bad("y_max", "the range y_max - y_min = %v is below float64's normal numbers (%v), which training refuses", r, minTargetRange)
	}

	if h.EndsCut < 0 || h.EndsCut > endsCutRule {
		return bad("ends_cut", "%d: the rule of a fixed range's cut ends is 1 (or none), a newer decoreg's or an edited file", h.EndsCut)
	}
	// The training record's counts (shown by show and the summaries): a
	// hand-edited negative one was printed as it was.
	rec := h.Info
	for _, c := range []struct {
		name string
		v    int
	}{{"rows", rec.Rows}, {"val_rows", rec.ValRows}, {"features", rec.Features}, {"params", rec.Params}, {"epochs", rec.Epochs},
		{"best_epoch", rec.BestEpoch}, {"calibration_rows", rec.CalibrateRows}, {"isotonic_segments", rec.IsotonicSegments},
		{"members", rec.Members}, {"lr_drops", rec.LRDrops}, {"skipped_rows", rec.SkippedRows}, {"threads", rec.Threads}} {
		if c.v < 0 {
			return bad("train."+c.name, "%d is negative", c.v)
		}
	}
	if n := len(h.Names); n != 0 && n != d {
		return bad("features", "%d names for %d features", n, d)
	}
	seen := make(map[string]int, len(h.Names))
	for j, name := range h.Names {
		if k, dup := seen[name]; dup {
			return bad(fmt.Sprintf("features[%d]", j), "%q is also feature %d", name, k)
		}
		seen[name] = j
	}
	if k, dup := seen[h.Target]; dup && h.Target != "" {
		return bad("target", "%q is also feature %d", h.Target, k)
	}

	if sc := h.Schema; sc != nil {
		if err := sc.Check(); err != nil {
			return bad("schema", "%v", err)
		}
		if w := sc.Width(); w != d {
			return bad("schema", "encodes %d features, the model has %d", w, d)
		}
		if h.Names != nil && !slices.Equal(h.Names, sc.Names()) {
			return bad("features", "the names differ from the schema's encoded features")
		}
		if slices.Contains(sc.ColumnNames(), h.Target) {
			return bad("target", "%q is also a column of the schema", h.Target)
		}
		// A column's mean is within one sd of its median: a scaling far
		// from it (hand-edited) would refuse every row as if the data were
		// at fault ("59.4 is -3e+298 scale units from the training centre").
		if len(h.XMean) == d && len(h.XStd) == d {
			at := map[string]int{}
			for j, name := range sc.Names() {
				at[name] = j
			}
			for _, c := range sc.Columns {
				j, ok := at[c.Name]
				if c.Kind != data.Numeric || !ok {
					continue
				}
				if z := (c.Median - h.XMean[j]) / h.XStd[j]; !(math.Abs(z) <= maxMedianZ) {
					return bad(fmt.Sprintf("x_mean[%d]", j), "%v with x_std %v puts column %q's training median %v %.3g sds from its mean (a mean is within one sd of the median)", h.XMean[j], h.XStd[j], c.Name, c.Median, z)
				}
			}
		}
	}

	if h.Params != len(params) {
		return bad("params", "the header says %d parameters, the file holds %d", h.Params, len(params))
	}
	in := d
	if h.XBins != nil {
		in = len(h.XBinMean)
	}
	if need := minParams(cfg, in, tok); need > float64(len(params)) {
		return bad("params", "the architecture needs at least %.0f parameters, the file holds %d", need, len(params))
	}
	for i, p := range params {
		if math.IsNaN(float64(p)) || math.IsInf(float64(p), 0) {
			return bad(fmt.Sprintf("params[%d]", i), "%v is not finite", p)
		}
	}
	return nil
}

// minParams is a lower bound on the parameter count of cfg's network with
// d input features: its weight matrices, without biases and norms. It is
// float64 so that absurd sizes cannot overflow.
func minParams(cfg Config, d int, tok vocab.Tokenizer) float64 {
	w := float64(cfg.EncWidth)
	in := float64(d)
	var n float64
	if cfg.Encoder == EncoderPLR {
		// frequencies (d, K) and weights (d, D, 2K); the MLP takes d*D inputs
		k, dim := float64(cfg.PLRFrequencies), float64(cfg.PLRDim)
		n += in*k + in*dim*2*k
		in *= dim
	}
	n += in*w + float64(cfg.EncLayers-1)*w*w
	switch cfg.Head {
	case HeadDecoder:
		dw, v, t := float64(cfg.DecWidth), float64(tok.Size()), float64(tok.Len())
		n += w*dw + v*dw + t*dw + float64(cfg.DecLayers)*6*dw*dw + dw*v
	case HeadPointwise:
		n += w
	case HeadRiemann:
		n += w * float64(cfg.Bins)
	case HeadMDN:
		n += w * 3 * float64(cfg.Components)
	}
	return n
}

// checkPLE checks the ple input transform's statistics of header h
// (Config.InputTransform "ple"): present exactly for that transform, one list of edges per feature,
// each null or 2 to cfg.PLEBins+1 finite ascending edges, and a finite
// centre and a finite scale > 0 for each column of the encoding, small
// enough a scale that a binned column's values in [0, 1] standardize
// within float32.
func checkPLE(h *fileHeader, cfg Config, bad func(field, format string, args ...any) error) error {
	d := len(h.XMean)
	switch {
	case cfg.InputTransform == data.TransformPLE && h.XBins == nil:
		return bad("x_bins", "missing: input transform %q needs the features' bin edges", cfg.InputTransform)
	case cfg.InputTransform != data.TransformPLE && h.XBins != nil:
		return bad("x_bins", "present for input transform %q: only %q has bins", cfg.InputTransform, data.TransformPLE)
	case cfg.InputTransform != data.TransformPLE && (h.XBinMean != nil || h.XBinStd != nil):
		return bad("x_bin_mean", "x_bin_mean or x_bin_std present for input transform %q: only %q has them", cfg.InputTransform, data.TransformPLE)
	case h.XBins == nil:
		return nil
	case len(h.XBins) != d:
		return bad("x_bins", "%d features' edges for %d features", len(h.XBins), d)
	}
	for j, e := range h.XBins {
		if e == nil {
			continue
		}
		if len(e) < 2 || len(e) > cfg.PLEBins+1 {
			return bad(fmt.Sprintf("x_bins[%d]", j), "%d edges, want 2 to %d (ple_bins %d, or null)", len(e), cfg.PLEBins+1, cfg.PLEBins)
		}
		for l, v := range e {
			if math.IsNaN(v) || math.IsInf(v, 0) || l > 0 && !(v > e[l-1]) {
				return bad(fmt.Sprintf("x_bins[%d][%d]", j, l), "%v: edges must be finite and increasing", v)
			}
		}
	}
	w := data.PLEWidth(h.XBins)
	if len(h.XBinMean) != w || len(h.XBinStd) != w {
		return bad("x_bin_mean", "%d centres and %d scales for the encoding's %d columns", len(h.XBinMean), len(h.XBinStd), w)
	}
	for c := range w {
		if v := h.XBinMean[c]; math.IsNaN(v) || math.IsInf(v, 0) {
			return bad(fmt.Sprintf("x_bin_mean[%d]", c), "%v is not finite", v)
		}
		if v := h.XBinStd[c]; !(v > 0) || math.IsInf(v, 0) {
			return bad(fmt.Sprintf("x_bin_std[%d]", c), "%v, want a finite value > 0", v)
		}
	}
	// A binned feature's columns lie in [0, 1]: standardized, each of
	// those values must fit the network's float32 inputs, or every row
	// would be refused.
	c := 0
	for _, e := range h.XBins {
		if e == nil {
			c++
			continue
		}
		for range len(e) - 1 {
			m, sd := h.XBinMean[c], h.XBinStd[c]
			if z := max(math.Abs(m), math.Abs(1-m)) / sd; !(z <= maxStandardized) {
				return bad(fmt.Sprintf("x_bin_std[%d]", c), "%v is too small for the column's values in [0, 1] about its centre %v: standardized, they would reach %.3g, beyond float32", sd, m, z)
			}
			c++
		}
	}
	return nil
}
