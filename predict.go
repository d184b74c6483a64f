package decoreg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"decoreg/data"
	"decoreg/dist"
	"decoreg/internal/head"
	"decoreg/internal/jsonfloat"
	"decoreg/metrics"
	"decoreg/vocab"
)

// Output selects what Predict computes; combine with |.
type Output uint

// The outputs of Predict.
const (
	OutMean Output = 1 << iota
	OutMedian
	OutMode
	OutQuantiles
	// OutDist keeps each row's Distribution. Each caches what its
	// summaries compute (a decoder's tree expansion: tens of KB a row
	// once summarised; an ensemble's, per member: about 150 KB a row for
	// 5 members), so that many rows' distributions, kept, take GBs: the
	// other outputs are computed a few hundred rows at a time.
	OutDist
	// OutLogPDF is each row's log density at its target
	// PredictOptions.Y[i] (per unit of y, as Distribution.LogPDF), made
	// with the other outputs, a chunk of rows at a time.
	OutLogPDF

	outAll = OutMean | OutMedian | OutMode | OutQuantiles | OutDist | OutLogPDF
)

// PredictOptions control Predict.
type PredictOptions struct {
	Outputs Output // default OutMean|OutMedian|OutMode; other bits are refused
	// Levels are the quantile levels for OutQuantiles, each in [0, 1]; nil
	// means DefaultLevels. An empty, non-nil slice asks for no levels and
	// is refused with OutQuantiles (a *ConfigError naming "Levels"), as
	// the command line's --levels "" is; without OutQuantiles Levels is
	// not used.
	Levels []float64
	// Token tunes token heads' summaries; a zero MeanTol means the
	// dist package's default (dist.DefaultMeanTolNormalized or
	// dist.DefaultMeanTol), as for Dist, so that Predict's mean and
	// Dist(x).Mean() agree. Token.Threads 0 summarises the rows in
	// parallel, one core per row.
	Token dist.TokenOptions
	// Y are the rows' targets for OutLogPDF, one a row; without
	// OutLogPDF Y is not used.
	Y []float64
}

// DefaultLevels are the quantile levels Predict uses when none are given
// (the command line's predict writes the same): the 50% and 90% central
// intervals. It is a copy for reading: the package does not read it, so
// changing it changes nothing.
var DefaultLevels = defaultLevels()

// defaultLevels returns DefaultLevels' values, new each call.
func defaultLevels() []float64 { return []float64{0.05, 0.25, 0.75, 0.95} }

// Prediction holds Predict's answers in original y units, one entry per row.
// Fields that were not requested are nil.
type Prediction struct {
	Mean, Median, Mode []float64           // the point estimates asked for (OutMean, OutMedian, OutMode)
	Levels             []float64           // the quantile levels
	Quantiles          [][]float64         // [len(Levels)][rows]
	Dist               []dist.Distribution // the rows' distributions (OutDist)
	LogPDF             []float64           // the log density at each row's target (OutLogPDF)
	// Warnings are PredictFrame's notes on cells encoded without their
	// own feature (levels not seen in training, missing cells in columns
	// that had none) and on cells far beyond their column's training range
	// (data.Far); nil from Predict and PredictFlat.
	Warnings []data.Warning
}

// Dist returns the predictive distribution of one input x (len Features()).
// Features that are NaN or infinite, or so far from the training data that
// the network's float32 arithmetic overflows, give a *DataError naming the
// column (row 0).
func (m *Model) Dist(x []float64) (dist.Distribution, error) {
	ds, err := m.dists(context.Background(), x, 1, dist.TokenOptions{})
	if err != nil {
		return nil, err
	}
	return ds[0], nil
}

// Dists returns the predictive distributions of rows x (rows x Features(),
// row-major), encoding every input once; a model calibrated by
// CalibrateByIsotonic gives *dist.Recalibrated ones (an ensemble's: of
// its *dist.Mixture). Errors are as Dist's, naming the
// row; options dist.NewToken refuses give a *ConfigError ("Token.Beam",
// ...). The encoding and the building of the rows' distributions stop
// between chunks of rows once ctx is done, with an error wrapping
// ctx.Err() (a nil ctx is context.Background()); the distributions'
// summaries (Mean, Quantile, ...) are computed when asked for, outside
// Dists, and cached in the distributions (see OutDist: hold many rows'
// only as memory allows).
func (m *Model) Dists(ctx context.Context, x []float64, rows int, opts dist.TokenOptions) ([]dist.Distribution, error) {
	return m.dists(orBackground(ctx), x, rows, opts)
}

func (m *Model) dists(ctx context.Context, x []float64, rows int, opts dist.TokenOptions) ([]dist.Distribution, error) {
	if m == nil || m.net == nil {
		return nil, ErrNotFitted
	}
	mk := m.memberDists
	if len(m.others) > 0 {
		mk = m.mixDists
	}
	out, err := mk(ctx, x, rows, opts)
	if err != nil {
		return nil, err
	}
	if m.recal != nil {
		for i, d := range out {
			out[i] = dist.NewRecalibrated(d, m.recal)
		}
	}
	return out, nil
}

// distChunk is how many rows' distributions dists builds between looks at
// its context (each is a head's softmax or mixture, microseconds).
const distChunk = 4096

// memberDists is dists for a single model (an ensemble's first member
// alone).
func (m *Model) memberDists(ctx context.Context, x []float64, rows int, opts dist.TokenOptions) ([]dist.Distribution, error) {
	rs, err := m.memberRows(ctx, x, rows, opts)
	if err != nil {
		return nil, err
	}
	out := make([]dist.Distribution, rows)
	for i, r := range rs {
		if i%distChunk == 0 && i > 0 {
			if err := stopped(ctx); err != nil {
				return nil, err
			}
		}
		dd, err := m.h.Dist(r)
		if err != nil {
			return nil, m.overflow(x, i, err)
		}
		out[i] = dd
	}
	return out, nil
}

// memberRows returns what a single model's distributions of rows x are
// built from (head.Row, with m's temperature): the network runs once
// here. A Riemann head's rows hold its raw logits, not its probabilities:
// its distribution is made from them in float64 at any temperature (the
// float32 probabilities may underflow to 0, the log-density then to -Inf).
// It stops between chunks of rows once ctx is done (stopped).
func (m *Model) memberRows(ctx context.Context, x []float64, rows int, opts dist.TokenOptions) ([]head.Row, error) {
	logits := m.cfg.Head == HeadRiemann
	d := m.Features()
	if !shapeOK(len(x), rows, d) {
		return nil, fmt.Errorf("%w: %d values for %d rows of %d features", ErrBadInput, len(x), rows, d)
	}
	if err := checkTokenOptions(opts); err != nil {
		return nil, err
	}
	if err := checkFinite(x, d); err != nil {
		return nil, err
	}
	xs := make([]float32, rows*m.inWidth())
	if err := m.standardize(xs, x, rows); err != nil {
		return nil, err
	}
	d = m.inWidth()
	width := m.cfg.EncWidth
	phi := make([]float32, rows*width)
	const chunk = 1024
	for lo := 0; lo < rows; lo += chunk {
		if err := stopped(ctx); err != nil {
			return nil, err
		}
		n := min(chunk, rows-lo)
		m.net.Encode(xs[lo*d:(lo+n)*d], n, phi[lo*width:(lo+n)*width])
	}
	k := m.h.Width(&m.net.Cfg)
	var ho []float32
	if k > 0 {
		ho = make([]float32, rows*k)
		for lo := 0; lo < rows; lo += chunk {
			if err := stopped(ctx); err != nil {
				return nil, err
			}
			n := min(chunk, rows-lo)
			if logits {
				m.net.HeadLogits(phi[lo*width:(lo+n)*width], n, ho[lo*k:(lo+n)*k])
			} else {
				m.net.HeadOutputs(phi[lo*width:(lo+n)*width], n, ho[lo*k:(lo+n)*k])
			}
		}
	}
	out := make([]head.Row, rows)
	for i := range out {
		r := head.Row{Net: m.net, Affine: m.units.Affine(), Opts: opts, Temp: m.temp, DepthTemp: m.depthT, Phi: phi[i*width : (i+1)*width]}
		switch {
		case logits:
			r.Logits = f64(ho[i*k : (i+1)*k])
		case k > 0:
			r.Out = f64(ho[i*k : (i+1)*k])
		}
		out[i] = r
	}
	return out, nil
}

// sourceChunk is how many rows of a RowSource predictRows builds the
// distributions of at once, where it builds every row's (OutDist): the
// network's chunk of rows (memberRows).
const sourceChunk = 1024

// predictChunk is the most rows whose distributions PredictFlat (without
// OutDist), Evaluate and Calibration hold at once: a token head's
// distribution caches its tree expansion (tens of KB), and an ensemble's
// one per member, so an ensemble's chunks are smaller (rowChunk).
const predictChunk = 512

// rowChunk is how many rows' distributions m's chunked passes hold at
// once: predictChunk shared among the members, at least 32 rows (512 rows
// of a 16-member decoder ensemble held 1.2 GB in predict and 2.2 GB in
// Evaluate, helper-143).
func (m *Model) rowChunk() int { return max(32, predictChunk/(1+len(m.others))) }

// shiftRow returns err with a *DataError's row moved by off (the error of
// a chunk of rows starting at row off).
func shiftRow(err error, off int) error {
	var de *DataError
	if off == 0 || !errors.As(err, &de) || de.Row < 0 {
		return err
	}
	c := *de
	c.Row += off
	return &c
}

// Limits on dist.TokenOptions, far above the defaults: larger values are
// refused rather than tried (and failing to allocate).
const (
	maxTokenSamples = 1 << 20
	maxTokenExpand  = 1 << 24
	maxTokenBeam    = 1 << 16
)

// checkTokenOptions returns a *ConfigError for options that
// dist.NewToken refuses.
func checkTokenOptions(o dist.TokenOptions) error {
	switch {
	case o.MaxExpand < 0:
		return configErr("Token.MaxExpand", "must be >= 0, have %d", o.MaxExpand)
	case o.Beam < 0:
		return configErr("Token.Beam", "must be >= 0, have %d", o.Beam)
	case o.Samples < 0 || o.Samples > maxTokenSamples:
		return configErr("Token.Samples", "must be in [0, %d], have %d", maxTokenSamples, o.Samples)
	case o.MaxExpand > maxTokenExpand:
		return configErr("Token.MaxExpand", "must be at most %d, have %d", maxTokenExpand, o.MaxExpand)
	case o.Beam > maxTokenBeam:
		return configErr("Token.Beam", "must be at most %d, have %d", maxTokenBeam, o.Beam)
	case math.IsNaN(o.MeanTol):
		return configErr("Token.MeanTol", "is NaN")
	case o.Threads < 0 || o.Threads > MaxThreads:
		return configErr("Token.Threads", "must be in [0, %d], have %d", MaxThreads, o.Threads)
	}
	return nil
}

func f64(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// Predict computes the requested summaries of p(y|x) for every row of X.
// A row it cannot answer for gives a *DataError (see Dists); bad options a
// *ConfigError naming the field ("Levels", "Token.Beam", ...). The work
// stops between groups of rows once ctx is done, with an error wrapping
// ctx.Err() and no Prediction (a nil ctx is context.Background()).
func (m *Model) Predict(ctx context.Context, X [][]float64, opts PredictOptions) (*Prediction, error) {
	if m == nil || m.net == nil {
		return nil, ErrNotFitted
	}
	d := m.Features()
	flat := make([]float64, 0, len(X)*d)
	for i, row := range X {
		if len(row) != d {
			return nil, dataErr(i, -1, ErrBadInput, "the row has %d features, the model takes %d", len(row), d)
		}
		flat = append(flat, row...)
	}
	return m.PredictFlat(ctx, flat, len(X), opts)
}

// PredictFlat is Predict for rows x (rows x Features(), row-major).
func (m *Model) PredictFlat(ctx context.Context, x []float64, rows int, opts PredictOptions) (*Prediction, error) {
	if m == nil || m.net == nil {
		return nil, ErrNotFitted
	}
	return m.predictRows(orBackground(ctx), flatRows{x, rows, m.Features()}, opts)
}

// PredictRows is Predict for the rows of src, read a chunk of rows at a
// time (with OutDist, every row at once).
func (m *Model) PredictRows(ctx context.Context, src RowSource, opts PredictOptions) (*Prediction, error) {
	if m == nil || m.net == nil {
		return nil, ErrNotFitted
	}
	r, err := m.sourceReader(src)
	if err != nil {
		return nil, err
	}
	return m.predictRows(orBackground(ctx), r, opts)
}

// predictRows is PredictFlat for the rows of r; a flatRows's shape is
// checked here.
func (m *Model) predictRows(ctx context.Context, r rowReader, opts PredictOptions) (*Prediction, error) {
	rows := r.count()
	what := opts.Outputs
	if what == 0 {
		what = OutMean | OutMedian | OutMode
	}
	if what&^outAll != 0 {
		return nil, configErr("Outputs", "unknown output bits %#x (the outputs are OutMean, OutMedian, OutMode, OutQuantiles, OutDist and OutLogPDF)", uint(what&^outAll))
	}
	if what&OutLogPDF != 0 && len(opts.Y) != rows {
		return nil, configErr("Y", "%d targets for OutLogPDF of %d rows", len(opts.Y), rows)
	}
	levels := opts.Levels
	if what&OutQuantiles != 0 && levels == nil {
		levels = defaultLevels()
	}
	if what&OutQuantiles != 0 && len(levels) == 0 {
		return nil, configErr("Levels", "no quantile levels given for OutQuantiles (an empty list; nil means DefaultLevels)")
	}
	for _, q := range levels {
		if !(q >= 0 && q <= 1) {
			return nil, configErr("Levels", "quantile level %v is outside [0, 1]", q)
		}
	}
	if chunk := m.rowChunk(); what&OutDist == 0 && rows > chunk {
		// In chunks: the distributions (and the tree expansions they
		// cache) of one chunk at a time.
		d := m.Features()
		if x, ok := r.flat(); ok && !shapeOK(len(x), rows, d) {
			return nil, fmt.Errorf("%w: %d values for %d rows of %d features", ErrBadInput, len(x), rows, d)
		}
		out := &Prediction{}
		for lo := 0; lo < rows; lo += chunk {
			if err := stopped(ctx); err != nil {
				return nil, err
			}
			hi := min(lo+chunk, rows)
			co := opts
			if what&OutLogPDF != 0 {
				co.Y = opts.Y[lo:hi]
			}
			xc, err := r.at(lo, hi)
			if err != nil {
				return nil, err
			}
			p, err := m.predictRows(ctx, flatRows{xc, hi - lo, d}, co)
			if err != nil {
				return nil, shiftRow(err, lo)
			}
			out.Mean = append(out.Mean, p.Mean...)
			out.Median = append(out.Median, p.Median...)
			out.Mode = append(out.Mode, p.Mode...)
			out.LogPDF = append(out.LogPDF, p.LogPDF...)
			out.Levels = p.Levels
			if p.Quantiles != nil && out.Quantiles == nil {
				out.Quantiles = make([][]float64, len(p.Quantiles))
			}
			for j := range p.Quantiles {
				out.Quantiles[j] = append(out.Quantiles[j], p.Quantiles[j]...)
			}
		}
		return out, nil
	}
	// Rows are summarised in parallel, each on one core (a row's decoder
	// steps are too small to share), unless the caller set Token.Threads.
	tok, workers := opts.Token, 1
	if tok.Threads == 0 && rows > 1 {
		if workers = min(m.net.Threads(), rows); workers > 1 {
			tok.Threads = 1
		}
	}
	var ds []dist.Distribution
	if x, ok := r.flat(); ok {
		var err error
		if ds, err = m.dists(ctx, x, rows, tok); err != nil {
			return nil, err
		}
	} else {
		// A source's rows (OutDist, or a chunk's) are built sourceChunk
		// at a time: the distributions of every row are held, not their
		// table (the network's own chunks: the same rows together as
		// one call's).
		ds = make([]dist.Distribution, 0, rows)
		for lo := 0; lo < rows; lo += sourceChunk {
			hi := min(lo+sourceChunk, rows)
			x, err := r.at(lo, hi)
			if err != nil {
				return nil, err
			}
			dc, err := m.dists(ctx, x, hi-lo, tok)
			if err != nil {
				return nil, shiftRow(err, lo)
			}
			ds = append(ds, dc...)
		}
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
	if what&OutLogPDF != 0 {
		p.LogPDF = make([]float64, rows)
	}
	// Groups of rows share their decoder steps (dist.Prepare), a group
	// on a core.
	var prep []float64
	if p.Quantiles != nil {
		prep = levels
	}
	if p.Median != nil {
		prep = append(slices.Clone(prep), 0.5)
	}
	group := max(1, min(prepareGroup, (rows+workers-1)/workers))
	groups := (rows + group - 1) / group
	var quit atomic.Bool // ctx found done: the groups left are skipped
	eachRow(workers, groups, func(g int) {
		if quit.Load() || ctx.Err() != nil {
			quit.Store(true)
			return // reported below
		}
		lo, hi := g*group, min((g+1)*group, rows)
		reqs := make([]dist.PrepareRequest, hi-lo)
		for i := range reqs {
			reqs[i] = dist.PrepareRequest{Dist: ds[lo+i], Mean: p.Mean != nil, Levels: prep, Mode: p.Mode != nil}
		}
		dist.Prepare(reqs)
		for i := lo; i < hi; i++ {
			dd := ds[i]
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
				qs := dist.Quantiles(dd, levels)
				for j := range levels {
					p.Quantiles[j][i] = qs[j]
				}
			}
			if p.LogPDF != nil {
				p.LogPDF[i] = dd.LogPDF(opts.Y[i])
			}
		}
	})
	if err := stopped(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// orBackground is ctx, or context.Background() for a nil ctx.
func orBackground(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

// stopped returns nil while ctx is live, and once it is done an error
// wrapping ctx.Err() (errors.Is(err, context.Canceled) or
// context.DeadlineExceeded).
func stopped(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("decoreg: stopped: %w", err)
	}
	return nil
}

// prepareGroup is the most rows PredictFlat prepares together: enough
// that every level of their trees is one decoder step of dozens of
// sequences or more (a step costs a few microseconds beyond its
// sequences), few enough that the rows still spread over the cores.
const prepareGroup = 8

// eachRow calls f(i) for every i in [0, rows) on up to workers goroutines
// (rows taken in turn, so uneven rows balance). A panic in f is re-raised
// on the caller's goroutine.
func eachRow(workers, rows int, f func(i int)) {
	if workers <= 1 || rows <= 1 {
		for i := range rows {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var panicked atomic.Pointer[any]
	work := func() {
		defer func() {
			if r := recover(); r != nil {
				panicked.CompareAndSwap(nil, &r)
			}
		}()
		for {
			i := int(next.Add(1)) - 1
			if i >= rows || panicked.Load() != nil {
				return
			}
			f(i)
		}
	}
	var wg sync.WaitGroup
	for range min(workers, rows) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	if r := panicked.Load(); r != nil {
		panic(*r)
	}
}

// Eval holds evaluation metrics on a labelled set. Its JSON form writes
// NaN (the NLL of the pointwise head, metrics of degenerate sets) as null
// and the infinities as "+Inf" and "-Inf"; decoding reverses that and reads
// absent numbers as NaN.
type Eval struct {
	N    int     `json:"n"`     // the rows evaluated
	NLL  float64 `json:"nll"`   // mean negative log-density per unit of the original y (NaN for pointwise)
	NLLU float64 `json:"nll_u"` // the same per unit of the normalized u = (y - y_min)/(y_max - y_min)
	// NLLToken is the mean cross-entropy per token, in nats, of the test
	// targets' token sequences: -log P(sequence) / K for a decoder (its
	// masked probabilities, K tokens), -log P(bin) for Riemann; NaN for MDN
	// and pointwise, which have no tokens. It is a probability, not a
	// density: it ignores the cells' widths, so it is not comparable across
	// tokenizations; it is the training loss per token. NaN after a map of
	// the CDF (CalibrateByIsotonic), which is no distribution over tokens.
	NLLToken   float64 `json:"nll_token"`
	MSE        float64 `json:"mse"`         // mean squared error of the point estimate, in units of y squared
	RelMSE     float64 `json:"rel_mse"`     // MSE / variance of the targets
	KendallTau float64 `json:"kendall_tau"` // Kendall's tau-b between the point estimates and the targets
	Clipped    int     `json:"clipped"`     // targets outside the training range (clipped to it for the NLL)
	Point      string  `json:"point"`       // the point estimate used for MSE and tau
	// Skipped counts the rows EvaluateFrame left out for a missing target
	// (not in N).
	Skipped int `json:"skipped_rows,omitempty"`
	// Warnings are EvaluateFrame's encoding notes (see Prediction).
	Warnings []data.Warning `json:"-"`
}

// evalJSON is Eval's JSON form: its float fields shadow Eval's.
type evalJSON struct {
	*plainEval
	NLL        jsonfloat.Float `json:"nll"`
	NLLU       jsonfloat.Float `json:"nll_u"`
	NLLToken   jsonfloat.Float `json:"nll_token"`
	MSE        jsonfloat.Float `json:"mse"`
	RelMSE     jsonfloat.Float `json:"rel_mse"`
	KendallTau jsonfloat.Float `json:"kendall_tau"`
}

type plainEval Eval // Eval without its methods

// MarshalJSON implements json.Marshaler.
func (e Eval) MarshalJSON() ([]byte, error) {
	return json.Marshal(evalJSON{(*plainEval)(&e), jsonfloat.Float(e.NLL), jsonfloat.Float(e.NLLU),
		jsonfloat.Float(e.NLLToken), jsonfloat.Float(e.MSE), jsonfloat.Float(e.RelMSE), jsonfloat.Float(e.KendallTau)})
}

// UnmarshalJSON implements json.Unmarshaler.
func (e *Eval) UnmarshalJSON(b []byte) error {
	nan := jsonfloat.Float(math.NaN())
	j := evalJSON{(*plainEval)(e), nan, nan, nan, nan, nan, nan}
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	e.NLL, e.NLLU, e.NLLToken = float64(j.NLL), float64(j.NLLU), float64(j.NLLToken)
	e.MSE, e.RelMSE, e.KendallTau = float64(j.MSE), float64(j.RelMSE), float64(j.KendallTau)
	return nil
}

// DefaultPoint is the point estimate Evaluate uses when none is named:
// "median" for unnormalized decoders (whose means are swayed by rare huge
// samples), "mean" otherwise.
func (m *Model) DefaultPoint() string {
	if m != nil && m.tok != nil && vocab.IsUnnormalized(m.tok) {
		return "median"
	}
	return "mean"
}

// Evaluate computes the NLL (both units), the cross-entropy per token, and
// the MSE, relative MSE and Kendall's tau of the point estimate point
// ("mean", "median", "mode"; "" for DefaultPoint) on rows x with targets y.
// Calibration scores the predictive distributions themselves. ctx stops it
// as it stops Predict.
func (m *Model) Evaluate(ctx context.Context, x []float64, rows int, y []float64, point string) (*Eval, error) {
	if m == nil || m.net == nil {
		return nil, ErrNotFitted
	}
	return m.evaluate(orBackground(ctx), flatRows{x, rows, m.Features()}, y, point)
}

// EvaluateRows is Evaluate for the rows of src, read a chunk of rows at
// a time (more than once).
func (m *Model) EvaluateRows(ctx context.Context, src RowSource, y []float64, point string) (*Eval, error) {
	if m == nil || m.net == nil {
		return nil, ErrNotFitted
	}
	r, err := m.sourceReader(src)
	if err != nil {
		return nil, err
	}
	return m.evaluate(orBackground(ctx), r, y, point)
}

// evaluate is Evaluate for the rows of r.
func (m *Model) evaluate(ctx context.Context, r rowReader, y []float64, point string) (*Eval, error) {
	rows := r.count()
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
		return nil, configErr("Point", "unknown point estimate %q (want mean, median or mode)", point)
	}
	if len(y) != rows || rows < 1 {
		return nil, fmt.Errorf("%w: %d targets for %d rows", ErrBadInput, len(y), rows)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, dataErr(i, -1, ErrBadInput, "the target is %v", v)
		}
	}
	if x, ok := r.flat(); ok && !shapeOK(len(x), rows, m.Features()) {
		return nil, fmt.Errorf("%w: %d values for %d rows of %d features", ErrBadInput, len(x), rows, m.Features())
	}
	// The NLL at a temperature, or of a mixture, scores the distributions:
	// computed with the predictions, in chunks of rows.
	var distNLL, distTokCE []float64
	var p *Prediction
	// So is an MDN's NLL (its float64 mixture's density).
	if m.h.Density && (m.Calibrated() || len(m.others) > 0 || !m.h.Tokens) {
		p = &Prediction{}
		chunk := m.rowChunk()
		for lo := 0; lo < rows; lo += chunk {
			if err := stopped(ctx); err != nil {
				return nil, err
			}
			hi := min(lo+chunk, rows)
			xc, err := r.at(lo, hi)
			if err != nil {
				return nil, err
			}
			yc := y[lo:hi]
			pc, err := m.PredictFlat(ctx, xc, hi-lo, PredictOptions{Outputs: out | OutDist})
			if err != nil {
				return nil, shiftRow(err, lo)
			}
			p.Mean, p.Median, p.Mode = append(p.Mean, pc.Mean...), append(p.Median, pc.Median...), append(p.Mode, pc.Mode...)
			bd, extra := m.recalNLL(pc.Dist, yc)
			if len(m.others) > 0 {
				nll, tokCE, err := m.ensembleNLLU(bd, xc, hi-lo, yc)
				if err != nil {
					return nil, shiftRow(err, lo)
				}
				distNLL = append(distNLL, addTo(nll, extra)...)
				if tokCE == nil || extra != nil {
					distTokCE = nil
				} else if lo == 0 || distTokCE != nil {
					distTokCE = append(distTokCE, tokCE...)
				}
				continue
			}
			tgc, err := head.Encode(&m.net.Cfg, m.units, yc)
			if err != nil {
				break // reported below, for the whole set
			}
			distNLL = append(distNLL, addTo(m.nllU(bd, tgc, yc), extra)...)
		}
	} else {
		var err error
		if p, err = m.predictRows(ctx, r, PredictOptions{Outputs: out}); err != nil {
			return nil, err
		}
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
	tg, err := head.Encode(&m.net.Cfg, m.units, y)
	if err != nil {
		var re *head.RowError
		if errors.As(err, &re) {
			return nil, dataErr(re.Row, -1, ErrBadInput, "target %v: %v", y[re.Row], re.Err)
		}
		return nil, err
	}
	e.Clipped = tg.Clipped
	if err := stopped(ctx); err != nil {
		return nil, err // before the NLL's pass over every row
	}
	if m.h.Density && len(m.others) > 0 {
		e.NLLU = metrics.Mean(distNLL)
		e.NLL = e.NLLU + m.units.LogRange()
		if len(distTokCE) == rows {
			e.NLLToken = metrics.Mean(distTokCE)
		}
	} else if m.h.Density {
		var nll []float64
		if m.Calibrated() || !m.h.Tokens {
			// The training forward knows no temperature or map: the
			// distributions themselves scored the cells RowNLL scores.
			// An MDN's density is its float64 mixture's, as predict's
			// logpdf: the training forward's float32 loss saturates on
			// rows far outside the training range (an NLL of 1e19
			// where the density gives 1e50).
			nll = distNLL
		} else {
			// The training forward, scoreChunk rows at a time: the
			// network's inputs of every row at once (a PLE encoding's
			// features x bins) took 4 GB for 400,000 rows of 20
			// features (helper-143). RowNLL batches 1,024 rows, so the
			// chunks leave its batches, and so the scores, as they were.
			const scoreChunk = 4096
			d, f := m.inWidth(), m.Features()
			n := min(rows, scoreChunk)
			xs := make([]float32, n*d)
			idx := make([]int, n)
			for i := range idx {
				idx[i] = i
			}
			nll = make([]float64, rows)
			var bad []int      // rows whose NLL is not finite
			var xbad []float64 // and their features
			for lo := 0; lo < rows; lo += scoreChunk {
				if err := stopped(ctx); err != nil {
					return nil, err
				}
				hi := min(lo+scoreChunk, rows)
				xc, err := r.at(lo, hi)
				if err != nil {
					return nil, err
				}
				if err := m.standardize(xs[:(hi-lo)*d], xc, hi-lo); err != nil {
					return nil, shiftRow(err, lo)
				}
				tgc, err := head.Encode(&m.net.Cfg, m.units, y[lo:hi])
				if err != nil {
					return nil, err // not expected: tg holds the same rows
				}
				tgc.RowNLL(m.net, xs[:(hi-lo)*d], d, idx[:hi-lo], nll[lo:hi])
				bad, xbad = nonFinite(bad, xbad, nll[lo:hi], lo, xc, f)
			}
			if err := m.refineNLL(nll, bad, xbad, y); err != nil {
				return nil, err
			}
		}
		var su, st float64
		for i, v := range nll {
			su += v
			if m.h.Tokens {
				st += tg.TokenCE(i, v)
			}
		}
		e.NLLU = su / float64(rows)
		e.NLL = e.NLLU + m.units.LogRange()
		if m.h.Tokens && m.recal == nil {
			e.NLLToken = st / float64(rows)
		}
	}
	return e, nil
}

// nonFinite appends to bad and xb the rows whose NLL (nll, from row off)
// is not finite, and their features (x, f a row).
func nonFinite(bad []int, xb []float64, nll []float64, off int, x []float64, f int) ([]int, []float64) {
	for i, v := range nll {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			bad = append(bad, off+i)
			xb = append(xb, x[i*f:(i+1)*f]...)
		}
	}
	return bad, xb
}

// refineNLL scores again, from m's float64 distributions, the rows bad
// (with features xb, row-major) whose NLL (in u units) a token head's
// training forward gave as not finite: its float32 overflows where the
// probability is tiny but positive, which the distributions, as
// predict's logpdf, still give. Rows whose distribution has no density at
// the target stay +Inf.
func (m *Model) refineNLL(nll []float64, bad []int, xb, y []float64) error {
	if len(bad) == 0 {
		return nil
	}
	yb := make([]float64, len(bad))
	for k, i := range bad {
		yb[k] = y[i]
	}
	ds, err := m.memberDists(context.Background(), xb, len(bad), dist.TokenOptions{})
	if err == nil {
		var tgb *head.Targets
		if tgb, err = head.Encode(&m.net.Cfg, m.units, yb); err == nil {
			for k, v := range m.nllU(ds, tgb, yb) {
				nll[bad[k]] = v
			}
			return nil
		}
	}
	// A row of the subset is row bad[k] of the set.
	var de *DataError
	if errors.As(err, &de) && de.Row >= 0 && de.Row < len(bad) {
		c := *de
		c.Row = bad[c.Row]
		return &c
	}
	return err
}

// recalNLL returns the distributions of ds before m's map of the CDF and
// what the map adds to each row's NLL at targets y: -log R'(F(y)), with F
// the distribution before the map and y clipped to the training range as
// the NLL scores it; extra is nil without a map.
func (m *Model) recalNLL(ds []dist.Distribution, y []float64) (base []dist.Distribution, extra []float64) {
	if m.recal == nil {
		return ds, nil
	}
	base = make([]dist.Distribution, len(ds))
	extra = make([]float64, len(ds))
	for i, d := range ds {
		base[i] = d.(*dist.Recalibrated).Base()
		// At the target clipped into the training range as it is, not a
		// hair inside (clipY): LogPDF reads the map's slope at the
		// target's CDF, and at the range's edge the two CDFs can lie in
		// different segments of the map (a raw unnormalized decoder's
		// zero cell, 1e-100 wide, holds the mass of the targets at 0).
		lo, hi := m.YRange()
		extra[i] = -m.recal.LogSlope(base[i].CDF(min(max(y[i], lo), hi)))
	}
	return base, extra
}

// addTo adds extra (nil: nothing) to v element-wise and returns v.
func addTo(v, extra []float64) []float64 {
	for i := range extra {
		v[i] += extra[i]
	}
	return v
}

// Score returns the coefficient of determination R² of the mean prediction
// (1 is best, 0 is the constant mean predictor; it can be negative). It is
// NaN, with no error, where the targets are all equal (one row among
// them): R² divides by their variance. No rows is an error wrapping
// ErrBadInput. ctx stops it as it stops Predict.
func (m *Model) Score(ctx context.Context, X [][]float64, y []float64) (float64, error) {
	if m == nil || m.net == nil {
		return math.NaN(), ErrNotFitted
	}
	if len(X) == 0 && len(y) == 0 {
		return math.NaN(), fmt.Errorf("%w: no rows to score", ErrBadInput)
	}
	p, err := m.Predict(ctx, X, PredictOptions{Outputs: OutMean})
	if err != nil {
		return math.NaN(), err
	}
	if len(y) != len(p.Mean) {
		return math.NaN(), fmt.Errorf("%w: %d targets for %d rows", ErrBadInput, len(y), len(p.Mean))
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return math.NaN(), dataErr(i, -1, ErrBadInput, "target is %v", v)
		}
	}
	return metrics.R2(p.Mean, y), nil
}
