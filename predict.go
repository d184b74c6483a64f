package decoreg

import (
	"fmt"
	"math"

	"decoreg/dist"
	"decoreg/metrics"
)

// Output selects what Predict computes; combine with |.
type Output uint

// The outputs of Predict.
const (
	OutMean Output = 1 << iota
	OutMedian
	OutMode
	OutQuantiles
	OutDist // keep each row's Distribution
)

// PredictOptions control Predict.
type PredictOptions struct {
	Outputs Output    // default OutMean|OutMedian|OutMode
	Levels  []float64 // quantile levels for OutQuantiles; default 0.1, 0.2, ..., 0.9
	// Token tunes token heads' summaries; a zero MeanTol means
	// dist.DefaultMeanTol, as for Dist, so that Predict's mean and
	// Dist(x).Mean() agree.
	Token dist.TokenOptions
}

// DefaultLevels are the quantile levels Predict uses when none are given.
var DefaultLevels = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}

// Prediction holds Predict's answers in original y units, one entry per row.
// Fields that were not requested are nil.
type Prediction struct {
	Mean, Median, Mode []float64
	Levels             []float64   // the quantile levels
	Quantiles          [][]float64 // [len(Levels)][rows]
	Dist               []dist.Distribution
}

// quantiler is implemented by distributions that answer several quantile
// queries in one batched pass.
type quantiler interface {
	Quantiles(qs []float64) []float64
}

// Dist returns the predictive distribution of one input x (len Features()).
func (m *Model) Dist(x []float64) (dist.Distribution, error) {
	ds, err := m.dists(x, 1, dist.TokenOptions{})
	if err != nil {
		return nil, err
	}
	return ds[0], nil
}

// Dists returns the predictive distributions of rows x (rows x Features(),
// row-major), encoding every input once.
func (m *Model) Dists(x []float64, rows int, opts dist.TokenOptions) ([]dist.Distribution, error) {
	return m.dists(x, rows, opts)
}

func (m *Model) dists(x []float64, rows int, opts dist.TokenOptions) ([]dist.Distribution, error) {
	if m == nil || m.net == nil {
		return nil, ErrNotFitted
	}
	d := m.Features()
	if len(x) != rows*d {
		return nil, fmt.Errorf("%w: %d values for %d rows of %d features", ErrBadInput, len(x), rows, d)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: feature %d of row %d is %v", ErrBadInput, i%d, i/d, v)
		}
	}
	xs := make([]float32, rows*d)
	m.standardize(xs, x, rows)
	width := m.cfg.EncWidth
	phi := make([]float32, rows*width)
	const chunk = 1024
	for lo := 0; lo < rows; lo += chunk {
		n := min(chunk, rows-lo)
		m.net.Encode(xs[lo*d:(lo+n)*d], n, phi[lo*width:(lo+n)*width])
	}
	aff := m.affine()
	out := make([]dist.Distribution, rows)
	switch m.cfg.Head {
	case HeadDecoder:
		for i := range out {
			out[i] = dist.NewToken(m.net.Decoder(phi[i*width:(i+1)*width]), m.tok, aff, opts)
		}
	default:
		var k int
		switch m.cfg.Head {
		case HeadPointwise:
			k = 1
		case HeadRiemann:
			k = m.cfg.Bins
		case HeadMDN:
			k = 3 * m.cfg.Components
		}
		ho := make([]float32, rows*k)
		for lo := 0; lo < rows; lo += chunk {
			n := min(chunk, rows-lo)
			m.net.HeadOutputs(phi[lo*width:(lo+n)*width], n, ho[lo*k:(lo+n)*k])
		}
		for i := range out {
			row := f64(ho[i*k : (i+1)*k])
			switch m.cfg.Head {
			case HeadPointwise:
				out[i] = dist.NewPoint(aff.Offset + aff.Scale*row[0])
			case HeadRiemann:
				out[i] = dist.NewRiemann(row, aff)
			case HeadMDN:
				c := m.cfg.Components
				out[i] = dist.NewMDN(row[:c], row[c:2*c], row[2*c:], aff)
			}
		}
	}
	return out, nil
}

func f64(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// Predict computes the requested summaries of p(y|x) for every row of X.
func (m *Model) Predict(X [][]float64, opts PredictOptions) (*Prediction, error) {
	if m == nil || m.net == nil {
		return nil, ErrNotFitted
	}
	d := m.Features()
	flat := make([]float64, 0, len(X)*d)
	for i, row := range X {
		if len(row) != d {
			return nil, fmt.Errorf("%w: row %d has %d features, the model takes %d", ErrBadInput, i, len(row), d)
		}
		flat = append(flat, row...)
	}
	return m.PredictFlat(flat, len(X), opts)
}

// PredictFlat is Predict for rows x (rows x Features(), row-major).
func (m *Model) PredictFlat(x []float64, rows int, opts PredictOptions) (*Prediction, error) {
	if m == nil || m.net == nil {
		return nil, ErrNotFitted
	}
	what := opts.Outputs
	if what == 0 {
		what = OutMean | OutMedian | OutMode
	}
	levels := opts.Levels
	if what&OutQuantiles != 0 && len(levels) == 0 {
		levels = DefaultLevels
	}
	for _, q := range levels {
		if !(q >= 0 && q <= 1) {
			return nil, fmt.Errorf("%w: quantile level %v is outside [0, 1]", ErrBadInput, q)
		}
	}
	ds, err := m.dists(x, rows, opts.Token)
	if err != nil {
		return nil, err
	}
	p := &Prediction{}
	if what&OutMean != 0 {
		p.Mean = make([]float64, rows)
	}
	if what&OutMedian != 0 {
		p.Median = make([]float64, rows)
	}
	if what&OutMode != 0 {
		p.Mode = make([]float64, rows)
	}
	if what&OutQuantiles != 0 {
		p.Levels = append([]float64(nil), levels...)
		p.Quantiles = make([][]float64, len(levels))
		for j := range p.Quantiles {
			p.Quantiles[j] = make([]float64, rows)
		}
	}
	if what&OutDist != 0 {
		p.Dist = ds
	}
	for i, dd := range ds {
		if p.Mean != nil {
			p.Mean[i] = dd.Mean()
		}
		if p.Median != nil {
			p.Median[i] = dd.Median()
		}
		if p.Mode != nil {
			p.Mode[i] = dd.Mode()
		}
		if p.Quantiles != nil {
			var qs []float64
			if bq, ok := dd.(quantiler); ok {
				qs = bq.Quantiles(levels)
			} else {
				qs = make([]float64, len(levels))
				for j, q := range levels {
					qs[j] = dd.Quantile(q)
				}
			}
			for j := range levels {
				p.Quantiles[j][i] = qs[j]
			}
		}
	}
	return p, nil
}

// Eval holds evaluation metrics on a labelled set.
type Eval struct {
	N    int     `json:"n"`
	NLL  float64 `json:"nll"`   // mean negative log-density per unit of the original y (NaN for pointwise)
	NLLU float64 `json:"nll_u"` // the same per unit of the normalized u = (y - y_min)/(y_max - y_min)
	// NLLToken is the mean cross-entropy per token, in nats, of the test
	// targets' token sequences: -log P(sequence) / K for a decoder (its
	// masked probabilities, K tokens), -log P(bin) for Riemann; NaN for MDN
	// and pointwise, which have no tokens. It is a probability, not a
	// density: it ignores the cells' widths, so it is not comparable across
	// tokenizations; it is the training loss per token.
	NLLToken   float64 `json:"nll_token"`
	MSE        float64 `json:"mse"`
	RelMSE     float64 `json:"rel_mse"` // MSE / variance of the targets
	KendallTau float64 `json:"kendall_tau"`
	Clipped    int     `json:"clipped"` // targets outside the training range (clipped to it for the NLL)
	Point      string  `json:"point"`   // the point estimate used for MSE and tau
}

// DefaultPoint is the point estimate Evaluate uses when none is named:
// "median" for unnormalized decoders (whose means are swayed by rare huge
// samples), "mean" otherwise.
func (m *Model) DefaultPoint() string {
	if m.unnormalized() {
		return "median"
	}
	return "mean"
}

// Evaluate computes the NLL (both units), the cross-entropy per token, and
// the MSE, relative MSE and Kendall's tau of the point estimate point
// ("mean", "median", "mode"; "" for DefaultPoint) on rows x with targets y.
func (m *Model) Evaluate(x []float64, rows int, y []float64, point string) (*Eval, error) {
	if m == nil || m.net == nil {
		return nil, ErrNotFitted
	}
	if point == "" {
		point = m.DefaultPoint()
	}
	var out Output
	switch point {
	case "mean":
		out = OutMean
	case "median":
		out = OutMedian
	case "mode":
		out = OutMode
	default:
		return nil, fmt.Errorf("%w: unknown point estimate %q (want mean, median or mode)", ErrBadInput, point)
	}
	if len(y) != rows || rows < 1 {
		return nil, fmt.Errorf("%w: %d targets for %d rows", ErrBadInput, len(y), rows)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: target of row %d is %v", ErrBadInput, i, v)
		}
	}
	p, err := m.PredictFlat(x, rows, PredictOptions{Outputs: out})
	if err != nil {
		return nil, err
	}
	pred := p.Mean
	switch point {
	case "median":
		pred = p.Median
	case "mode":
		pred = p.Mode
	}
	e := &Eval{N: rows, Point: point}
	e.MSE = metrics.MSE(pred, y)
	e.RelMSE = metrics.RelMSE(pred, y)
	e.KendallTau = metrics.KendallTau(pred, y)
	e.NLL, e.NLLU, e.NLLToken = math.NaN(), math.NaN(), math.NaN()
	tg, err := m.targets(y)
	if err != nil {
		return nil, err
	}
	e.Clipped = tg.clipped
	if m.cfg.Head != HeadPointwise {
		d := m.Features()
		xs := make([]float32, rows*d)
		m.standardize(xs, x, rows)
		idx := make([]int, rows)
		for i := range idx {
			idx[i] = i
		}
		rows := make([]float64, len(idx))
		m.rowNLL(tg, xs, d, idx, rows)
		var su, st float64
		for i, v := range rows {
			su += v
			switch m.cfg.Head {
			case HeadDecoder: // -log P(seq) = NLL_u - log(width in u)
				st += (v - tg.logW[i] + m.logTPerU()) / float64(tg.T)
			case HeadRiemann: // density p*n_bins: -log P(bin) = NLL_u + log(n_bins)
				st += v + math.Log(float64(m.cfg.Bins))
			}
		}
		e.NLLU = su / float64(len(idx))
		e.NLL = e.NLLU + math.Log(m.yRange())
		if m.cfg.Head == HeadDecoder || m.cfg.Head == HeadRiemann {
			e.NLLToken = st / float64(len(idx))
		}
	}
	return e, nil
}

// Score returns the coefficient of determination R² of the mean prediction
// (1 is best, 0 is the constant mean predictor; it can be negative).
func (m *Model) Score(X [][]float64, y []float64) (float64, error) {
	if m == nil || m.net == nil {
		return math.NaN(), ErrNotFitted
	}
	p, err := m.Predict(X, PredictOptions{Outputs: OutMean})
	if err != nil {
		return math.NaN(), err
	}
	if len(y) != len(p.Mean) {
		return math.NaN(), fmt.Errorf("%w: %d targets for %d rows", ErrBadInput, len(y), len(p.Mean))
	}
	return metrics.R2(p.Mean, y), nil
}
