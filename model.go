package decoreg

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"decoreg/data"
	"decoreg/dist"
	"decoreg/internal/head"
	imodel "decoreg/internal/model"
	"decoreg/vocab"
)

// ErrNotFitted is returned by a Model that has not been trained or loaded.
var ErrNotFitted = errors.New("decoreg: model is not fitted")

// Model is a trained regression model: the network, its tokenization, and
// the scaling statistics of the training set.
//
// Concurrency: Predict, PredictFlat, PredictFrame, PredictRows,
// EncodeFrame, Encoder, Score, Dist, Dists, Calibration, CalibrationRows,
// Evaluate, EvaluateFrame, EvaluateRows, FitTemperature, WithTemperature,
// Members, Save and the getters do not change the model (a RowSource is
// the caller's: one per goroutine, as a *data.Encoder is not safe for
// concurrent use),
// so any number of goroutines may call them at once, also on models that
// share its weights (WithTemperature's and FitTemperature's copies,
// Members, NewEnsemble's members and the models it was made from); the
// distributions they return are safe for concurrent use too (see
// dist.Token; Sample needs a *rand.Rand per goroutine). Evaluate,
// EvaluateFrame and FitTemperature score the rows through scratch buffers
// of the network, which they take in turn: calls on models sharing weights
// wait for each other there. SetNames writes the model: it may not run
// concurrently with any other method.
type Model struct {
	cfg   Config
	h     *head.Head
	tok   vocab.Tokenizer
	net   *imodel.Model
	units head.Units // y <-> u <-> head units
	info  TrainInfo

	xMean, xStd []float64   // per-feature centre and scale (standard: mean and sd; robust: median and IQR)
	xKnots      [][]float64 // the quantile transform's knots per feature (nil for the others)
	// The ple input transform's bin edges per feature (data.FitPLE; nil
	// for a feature kept as one column) and the centre and scale of each of
	// the encoding's columns; all nil for the other transforms.
	xBins         [][]float64
	xbMean, xbStd []float64

	temp float64 // calibration temperature; 0 means none (1)
	// depthT holds a decoder's temperatures per token depth
	// (CalibrateByDepth), one per token of its tokenization, in place of
	// temp (then 0); nil for none.
	depthT []float64
	// recal is the map of the CDF of CalibrateByIsotonic, applied after
	// the temperature to every distribution dists makes (an ensemble's
	// mixture, not its members); nil for none.
	recal *dist.Recalibration

	features []string // optional column names, for files
	target   string

	// others are an ensemble's members after the first, which is the
	// model itself (see NewEnsemble); nil for a single model. The
	// ensemble's temperature (temp) applies to every member.
	others []*Model

	// schema maps a data.Frame's columns to the features (FitFrame); nil
	// for models fitted on numbers (Fit, FitFlat) and older model files.
	schema *data.Schema

	// endsCut is the rule by which an unnormalized decoder's extreme
	// cells end at the fixed target range's ends (vocab.BoundCut;
	// endsCutRule for every model fitted now, the model file's ends_cut);
	// 0 for files from before, which keep the cells across the ends whole
	// (vocab.BoundEnds), as they were trained and scored, and where the
	// model has no fixed range's bound.
	endsCut int
}

// TrainInfo describes how a model was trained.
type TrainInfo struct {
	Rows      int `json:"rows"`       // training rows (including validation rows)
	ValRows   int `json:"val_rows"`   // rows held out for early stopping
	Features  int `json:"features"`   // input dimension
	Params    int `json:"params"`     // number of parameters
	Epochs    int `json:"epochs"`     // epochs completed
	BestEpoch int `json:"best_epoch"` // epoch whose weights were kept (1-based)
	// BestValLoss is the best validation loss (NLL in u units; the
	// pointwise head's MSE; with Config.StopBy "crps" the mean CRPS in u
	// units, with "depth" the NLL calibrated per depth), 0 when trained
	// without validation (always finite); for a tuned decoder at
	// TuneReport.Resolution.
	BestValLoss float64 `json:"best_val_loss"`
	// With Config.Calibrate (or made by FitTemperature): the temperature
	// found, the objective that chose it (CalibrateByNLL, CalibrateByPIT,
	// CalibrateByIsotonic or CalibrateByDepth; empty in files written
	// before the PIT objective, which were all NLL, and for a temperature
	// set by WithTemperature) and the validation rows' NLL (in u units, as
	// BestValLoss, but always the plain NLL) at temperature 1 and at it;
	// with the PIT objective also their metrics.PITError at both.
	Temperature  float64 `json:"temperature,omitempty"`
	CalibrateBy  string  `json:"calibrate_by,omitempty"`             // the objective
	ValNLLBefore float64 `json:"val_nll_uncalibrated,omitempty"`     // the NLL at temperature 1
	ValNLLAfter  float64 `json:"val_nll_calibrated,omitempty"`       // the NLL once calibrated
	ValPITBefore float64 `json:"val_pit_ece_uncalibrated,omitempty"` // PIT and isotonic objectives: the PIT error at temperature 1 (else 0)
	// DepthTemperatures are CalibrateByDepth's temperatures, one per
	// token depth (Temperature is then 0).
	DepthTemperatures []float64 `json:"depth_temperatures,omitempty"`
	ValPITAfter       float64   `json:"val_pit_ece_calibrated,omitempty"` // PIT and isotonic objectives: the PIT error once calibrated (else 0)
	CalibrateRows     int       `json:"calibration_rows,omitempty"`       // the rows the calibration was fitted on (at most 4,000)
	// With CalibrateByIsotonic: the map's segments and the identity's
	// weight in it (its smallest slope). ValNLLAfter is then the NLL after
	// the map, and the PIT errors are at temperature 1 and after the map
	// (on the rows it was fitted on).
	IsotonicSegments int     `json:"isotonic_segments,omitempty"`
	IsotonicWeight   float64 `json:"isotonic_identity_weight,omitempty"` // max(IsotonicFloor, p/(CalibrateRows+p)), p = dist.RecalibrationPrior
	// Members is an ensemble's number of members (0 for a single model);
	// the other fields are the first member's, but Seconds is the whole
	// ensemble's.
	Members int `json:"members,omitempty"`
	// Stopped is how training ended: "early-stopping", "max-epochs" or
	// "cancelled"; a model of Tune's also "halved", "budget" or
	// "diverged", as its TuneTrial.Status says.
	Stopped string `json:"stopped"`
	// LRDrops is the number of learning-rate drops made on plateaus
	// (Config.LRDrops).
	LRDrops int `json:"lr_drops,omitempty"`
	// SkippedRows counts the rows FitFrame left out because their target
	// was missing (not included in Rows).
	SkippedRows int     `json:"skipped_rows,omitempty"`
	Seconds     float64 `json:"seconds"` // wall time of Fit
	Kernel      string  `json:"kernel"`  // GEMM kernel used
	Threads     int     `json:"threads"` // threads its kernels trained on (Config.Threads, or GOMAXPROCS where that is 0)
	Version     string  `json:"version"` // decoreg version that trained it
	Created     string  `json:"created"` // RFC 3339 time
	// Tune is the trial history of a model made by Tune.
	Tune *TuneReport `json:"tune,omitempty"`
	// Pretrain is how Config.Pretrain's first stage ended (the first
	// member's, for an ensemble); nil without it.
	Pretrain *PretrainInfo `json:"pretrain,omitempty"`
}

// PretrainInfo is how the encoder's training under the pointwise head
// (Config.Pretrain) ended, as TrainInfo's fields of the same names say
// of a model: its BestValLoss is the validation MSE of the scaled target.
type PretrainInfo struct {
	Epochs      int     `json:"epochs"`        // epochs completed
	BestEpoch   int     `json:"best_epoch"`    // the epoch whose encoder was kept (1-based)
	BestValLoss float64 `json:"best_val_loss"` // the validation MSE of the scaled target; 0 without validation
	Stopped     string  `json:"stopped"`       // "early-stopping" or "max-epochs"
	// Seconds is the wall time at the stage's end, counted from FitFlat's
	// start (for a Tune trial, from the stage's own start; for Tune's
	// seeds' members, from the start of the first of them): for a single
	// model or an ensemble's first member, about the stage's own time.
	Seconds float64 `json:"seconds"`
}

// Version is decoreg's version, recorded in model files.
const Version = "0.1.0"

// newModel makes the model of a validated, defaulted cfg with tokenization
// tok (nil for heads without one), for inputs standardized with xMean and
// xStd and targets in [yMin, yMax]; it creates the network with seed.
// cutEnds cuts a fixed target range's extreme cells at its ends (see
// Model.endsCut): Fit's models, and files that say so. Fit
// and Load both make their models here, once the target range is known:
// the tokenizer the network and the distributions use is fixed here.
func newModel(cfg Config, tok vocab.Tokenizer, xMean, xStd []float64, ple *pleStats, yMin, yMax float64, seed uint64, cutEnds int) (*Model, error) {
	m := &Model{cfg: cfg, h: headSpecs[cfg.Head].impl, xMean: xMean, xStd: xStd, endsCut: cutEnds}
	if ple != nil {
		m.xBins, m.xbMean, m.xbStd = ple.bins, ple.mean, ple.std
	}
	m.units = m.h.Units(tok, cfg.RawTarget, yMin, yMax)
	// The tokenizer is final from here: the network's masks, the training
	// targets and the distributions all use m.tok.
	m.tok = tok
	m.tok = m.boundedVocab()
	net, err := imodel.New(m.netConfig(m.inWidth()), seed)
	if err != nil {
		return nil, &ConfigError{Field: "EncWidth", Err: err}
	}
	m.net = net
	return m, nil
}

// netConfig is the internal network's configuration (fields of other
// heads are ignored by the network).
func (m *Model) netConfig(in int) imodel.Config {
	c := m.cfg
	return imodel.Config{
		In: in, EncLayers: c.EncLayers, EncWidth: c.EncWidth, Threads: c.Threads,
		Encoder: encoderKind(c.Encoder), PLRFreqs: c.PLRFrequencies, PLRDim: c.PLRDim, PLRSigma: c.PLRSigma, Dropout: c.Dropout,
		Head: m.h.Kind,
		// Decoder.
		Vocab: m.tok, DecLayers: c.DecLayers, DecWidth: c.DecWidth, DecHeads: c.DecHeads, DFF: c.DecWidth,
		MaskLoss: !c.UnmaskedLoss,
		AuxMSE:   auxMSE(c), SoftSigma: softSigma(c),
		// Riemann, MDN, pointwise.
		Bins: c.Bins, Components: c.Components, Sigmoid: c.Sigmoid,
	}
}

// auxMSE is the network's AuxMSE: c.AuxMSE for a decoder; other heads
// ignore the field, as they do every decoder field.
func auxMSE(c Config) float64 {
	if c.Head != HeadDecoder {
		return 0
	}
	return c.AuxMSE
}

// softSigma is the network's SoftSigma: c.SoftTargets for a decoder.
func softSigma(c Config) float64 {
	if c.Head != HeadDecoder {
		return 0
	}
	return c.SoftTargets
}

// encoderKind is the network's encoder of a validated Config.Encoder.
func encoderKind(enc string) imodel.EncoderKind {
	if enc == EncoderPLR {
		return imodel.PLREncoder
	}
	return imodel.MLPEncoder
}

// Config returns the model's configuration (with defaults filled in).
func (m *Model) Config() Config {
	if m == nil {
		return Config{}
	}
	return m.cfg
}

// Info returns how the model was trained.
func (m *Model) Info() TrainInfo {
	if m == nil {
		return TrainInfo{}
	}
	info := m.info
	info.Tune = info.Tune.clone() // a copy: the caller cannot change the model's record
	if info.Pretrain != nil {
		p := *info.Pretrain
		info.Pretrain = &p
	}
	return info
}

// The range of calibration temperatures: Config.Calibrate searches it,
// WithTemperature and Load accept it.
const (
	MinTemperature = 0.05
	MaxTemperature = 20.0
)

// Temperature returns the model's calibration temperature: 1 unless it
// was trained with Config.Calibrate or made by WithTemperature (and 1 for
// a decoder calibrated per token depth: see DepthTemperatures). A
// temperature T divides the decoder's and the Riemann head's logits by T
// (T > 1 spreads p(y|x), T < 1 sharpens it) and multiplies the MDN's
// standard deviations by T.
func (m *Model) Temperature() float64 {
	if m == nil || m.temp == 0 {
		return 1
	}
	return m.temp
}

// DepthTemperatures returns a copy of the decoder's temperatures per
// token depth (CalibrateByDepth): the k-th token's logits (0-based) are
// divided by the k-th; nil when it has none.
func (m *Model) DepthTemperatures() []float64 {
	if m == nil {
		return nil
	}
	return slices.Clone(m.depthT)
}

// scaled reports whether m has a temperature other than 1, or
// temperatures per token depth.
func (m *Model) scaled() bool { return m.temp != 0 && m.temp != 1 || m.depthT != nil }

// WithTemperature returns a copy of m, sharing its weights, whose
// predictive distributions use temperature t (see Temperature), without
// the map of CalibrateByIsotonic (fitted at m's temperature) or the
// temperatures per token depth of CalibrateByDepth; t = 1 gives
// the uncalibrated distributions. A t outside [MinTemperature,
// MaxTemperature] is a *ConfigError, and so is a pointwise model.
func (m *Model) WithTemperature(t float64) (*Model, error) {
	if m == nil || m.net == nil {
		return nil, ErrNotFitted
	}
	if !m.h.Density {
		return nil, configErr("Temperature", "a %s model has no distribution to scale", m.cfg.Head)
	}
	if !(t >= MinTemperature && t <= MaxTemperature) {
		return nil, configErr("Temperature", "%v is outside [%v, %v]", t, MinTemperature, MaxTemperature)
	}
	c := *m
	c.temp, c.recal, c.depthT = t, nil, nil
	c.info.clearCalibration()
	if t != 1 {
		c.info.Temperature = t
	}
	return &c, nil
}

// clearCalibration drops the record of a calibration's fit (a temperature
// set by hand, or a fit about to be made, replaces it).
func (i *TrainInfo) clearCalibration() {
	i.Temperature, i.CalibrateBy, i.CalibrateRows, i.DepthTemperatures = 0, "", 0, nil
	i.ValNLLBefore, i.ValNLLAfter, i.ValPITBefore, i.ValPITAfter = 0, 0, 0, 0
	i.IsotonicSegments, i.IsotonicWeight = 0, 0
}

// Recalibration returns the map of the CDF that CalibrateByIsotonic
// fitted (see dist.Recalibrated), or nil.
func (m *Model) Recalibration() *dist.Recalibration {
	if m == nil {
		return nil
	}
	return m.recal
}

// Calibrated reports whether the model's distributions are calibrated: a
// temperature other than 1, temperatures per token depth, or a map of the
// CDF.
func (m *Model) Calibrated() bool { return m != nil && (m.scaled() || m.recal != nil) }

// Features is the input dimension.
func (m *Model) Features() int {
	if m == nil {
		return 0
	}
	return len(m.xMean)
}

// YRange returns the training targets' minimum and maximum.
func (m *Model) YRange() (lo, hi float64) {
	if m == nil {
		return math.NaN(), math.NaN()
	}
	return m.units.YMin, m.units.YMax
}

// SetNames records the names of the feature columns and of the target,
// saved with the model so that prediction inputs can be matched by name.
// features must hold one name per feature (Features()), each valid UTF-8,
// no name twice and the target not among them; a model read from a table
// (FitFrame) keeps its schema's feature names (none given keeps them) and
// takes a target that is none of its columns. Other names are an error and
// leave the model as it was (Save checks them again). Otherwise no
// features at all records the target alone. On a nil Model it does
// nothing; an unfitted one is ErrNotFitted.
func (m *Model) SetNames(features []string, target string) error {
	if m == nil {
		return nil
	}
	if m.net == nil {
		return ErrNotFitted // no features to count the names against
	}
	if len(features) == 0 && m.schema != nil {
		features = m.schema.Names()
	}
	if err := m.checkNames(features, target); err != nil {
		return err
	}
	m.features = append([]string(nil), features...)
	m.target = target
	if len(m.others) > 0 {
		// New copies of the members: an ensemble shares them with the
		// models it was made from (WithTemperature's copy, the caller's
		// members until NewEnsemble copied them), which keep their names.
		others := make([]*Model, len(m.others))
		for k, o := range m.others {
			c := *o
			c.features, c.target = m.features, target
			others[k] = &c
		}
		m.others = others
	}
	return nil
}

// Names returns the names recorded by SetNames (nil if none).
func (m *Model) Names() (features []string, target string) {
	if m == nil {
		return nil, ""
	}
	return slices.Clone(m.features), m.target // a copy, as Columns and Schema give
}

// Tokenizer returns the decoder's tokenization (nil for other heads).
func (m *Model) Tokenizer() vocab.Tokenizer {
	if m == nil {
		return nil
	}
	return m.tok
}

// maxStandardized bounds the standardized features the network is given:
// float32's largest finite value.
const maxStandardized = math.MaxFloat32

// inWidth is the number of the network's inputs: the features, or with
// the ple input transform the columns of their encoding.
func (m *Model) inWidth() int {
	if m.xBins != nil {
		return len(m.xbMean)
	}
	return len(m.xMean)
}

// standardize writes the standardised float32 features of rows x (n x d,
// row-major) into dst (n x inWidth). A value whose standardized form
// float32 cannot hold gives a *DataError naming its row and column.
func (m *Model) standardize(dst []float32, x []float64, n int) error {
	d := len(m.xMean)
	if m.xBins != nil {
		w := len(m.xbMean)
		enc := make([]float64, w)
		for i := 0; i < n; i++ {
			if err := pleRow(enc, m.xBins, x[i*d:(i+1)*d], i); err != nil {
				return err
			}
			for c, v := range enc {
				z := (v - m.xbMean[c]) / m.xbStd[c]
				if !(math.Abs(z) <= maxStandardized) {
					j := pleFeature(m.xBins, c)
					return dataErr(i, j, ErrBadInput, "feature value %v: column %d of the ple encoding, %v, is %.3g scale units from the column's training centre %.6g, beyond what the network's float32 arithmetic can hold",
						x[i*d+j], c, v, z, m.xbMean[c])
				}
				dst[i*w+c] = float32(z)
			}
		}
		return nil
	}
	if m.xKnots != nil {
		for i := 0; i < n; i++ {
			for j := 0; j < d; j++ {
				dst[i*d+j] = float32(data.QuantileTransform(m.xKnots[j], x[i*d+j]))
			}
		}
		return nil
	}
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			z := (x[i*d+j] - m.xMean[j]) / m.xStd[j]
			if !(math.Abs(z) <= maxStandardized) {
				return dataErr(i, j, ErrBadInput, "feature value %v is %.3g scale units from the training centre %.6g, beyond what the network's float32 arithmetic can hold",
					x[i*d+j], z, m.xMean[j])
			}
			dst[i*d+j] = float32(z)
		}
	}
	return nil
}

// overflowBlameZ is how many scale units from the training rows' centre
// a network input must be for an overflowing prediction to be blamed on
// the feature it comes from.
const overflowBlameZ = 10

// overflow is the error of row i whose network outputs are not finite
// (its float32 arithmetic overflowed) or whose distribution in y units is
// beyond float64. It blames the feature behind the row's largest network
// input (the one furthest from the training data, as the input transform
// gives it: a quantile-transformed feature far outside the training range
// reaches the network clipped, so it is not blamed for more than its
// clipped value, and a binned ple feature never) when that input is more than
// overflowBlameZ scale units out; otherwise the row is like the training
// data and the model is at fault (its weights, or a target range near
// float64's limits), which the error says, naming the row only.
func (m *Model) overflow(x []float64, i int, err error) error {
	d := len(m.xMean)
	row := x[i*d : (i+1)*d]
	in := make([]float32, m.inWidth())
	j, zmax := 0, -1.0
	if m.standardize(in, row, 1) == nil {
		c := 0 // feature f's first network input
		for f := range d {
			if m.xBins != nil && m.xBins[f] != nil {
				// A binned ple column lies in [0, 1], and the training
				// rows hold both ends: never outside them, whatever its
				// standardized value (a top bin's, rarely nonzero, is
				// large for a row inside the training range).
				c += len(m.xBins[f]) - 1
				continue
			}
			if z := math.Abs(float64(in[c])); z > zmax {
				j, zmax = f, z
			}
			c++
		}
	}
	// Both kinds: ErrBadInput for the caller, the cause (head.ErrOutput)
	// for the calibration, which skips a temperature that overflows.
	kind := fmt.Errorf("%w: %w", ErrBadInput, err)
	if !(zmax > overflowBlameZ) {
		within := fmt.Sprintf("every network input is within %.3g scale units of the training rows' centre", zmax)
		if zmax < 0 {
			within = "every feature reaches the network as ple bins, within the training rows' range"
		}
		return dataErr(i, -1, fmt.Errorf("%w: %w", ErrModelFault, kind), "the model's prediction for this row overflows (%v), though %s: the model, not the row, is at fault (its weights, or a target range near float64's limits)",
			err, within)
	}
	return dataErr(i, j, kind, "feature value %v gives the network an input %.3g scale units from the training rows' centre: the prediction for this row overflows (%v)",
		row[j], zmax, err)
}

func since(t time.Time) float64 { return time.Since(t).Seconds() }

// shapeOK reports whether n values are rows rows of cols values each, without
// overflowing rows*cols.
func shapeOK(n, rows, cols int) bool {
	return rows >= 0 && cols > 0 && n%cols == 0 && n/cols == rows
}
