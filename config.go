package decoreg

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"decoreg/data"
	"decoreg/internal/head"
	"decoreg/vocab"
)

// Head names a regression head.
type Head string

// The regression heads.
const (
	HeadDecoder   Head = "decoder"   // causal Transformer decoder over a tokenization (the paper's head)
	HeadPointwise Head = "pointwise" // linear to one scalar, MSE
	HeadRiemann   Head = "riemann"   // softmax over uniform bins (histogram)
	HeadMDN       Head = "mdn"       // mixture density network
)

// Heads lists the heads in a fixed order (a copy for reading: the package
// does not read it).
var Heads = []Head{HeadDecoder, HeadPointwise, HeadRiemann, HeadMDN}

// The encoders: how the features enter the encoder's MLP (Config.Encoder).
const (
	EncoderMLP = "mlp" // the (transformed) features go straight into the MLP
	// EncoderPLR embeds each feature with PLR (Gorishniy et al., "On
	// Embeddings for Numerical Features in Tabular Deep Learning", 2022)
	// before the MLP: ReLU(W_j [cos(2π c_j x_j), sin(2π c_j x_j)] + b_j),
	// with PLRFrequencies learned frequencies c_j and a linear map to PLRDim
	// values of each feature's own.
	EncoderPLR = "plr"
)

// Encoders lists the encoders in a fixed order (a copy for reading: the
// package does not read it).
var Encoders = []string{EncoderMLP, EncoderPLR}

// Defaults. They were chosen once from the paper's grid (its Appendix,
// DESIGN.md section 6) and are the same for every dataset.
const (
	DefaultVocab        = "normalized:base=8,length=6"                 // paper grid: B in {2,4,8}, K in {4,6,8}
	DefaultUnnormalized = "unnormalized:base=10,exponent=1,mantissa=4" // paper grid: B in {4,8,10}, E in {1,2,4} (4 for B=4 only: vocab.Trainable), M in {2,4,8}
	DefaultEncLayers    = 2                                            // paper grid: 2..5
	DefaultEncWidth     = 256                                          // paper grid: 256, 512, 2048
	DefaultDecLayers    = 1                                            // paper: (1 layer, 32 units, 1 head) or (3, 128, 4)
	DefaultDecWidth     = 32
	DefaultDecHeads     = 1
	DefaultBins         = 256 // paper grid: 16 .. 16384
	DefaultComponents   = 5   // paper grid: 1 .. 1000
	DefaultLR           = 5e-4
	DefaultBatchSize    = 32 // not in the paper; Keras's default (the reference code is Keras); on protein split 0 it beat 256 by 0.14 nats at 2.3x the time
	DefaultMaxEpochs    = 300
	DefaultPatience     = 5
	DefaultValFrac      = 0.1
	// DefaultLRDropFactor is Config.LRDropFactor's default, Keras's
	// ReduceLROnPlateau's example's 0.2.
	DefaultLRDropFactor = 0.2
	// The PLR encoder's defaults are those of the rtdl_num_embeddings
	// package's PeriodicEmbeddings (version 0.0.10, by the paper's authors):
	// n_frequencies 48, d_embedding 24, frequency_init_scale 0.01.
	DefaultPLRFrequencies = 48
	DefaultPLRDim         = 24
	DefaultPLRSigma       = 0.01
)

// Config holds the hyper-parameters of a model and of its training. The zero
// value of a field means its default (see the constants above); use
// DefaultConfig to see them filled in. A Config is plain data: comparable
// with ==, and its JSON form (snake_case keys) is what model files and
// benchmark results record.
type Config struct {
	Head Head `json:"head"` // default HeadDecoder

	// Vocab is the decoder's tokenization, as a vocab.Parse spec such as
	// "normalized:base=8,length=6" or
	// "unnormalized:base=10,exponent=1,mantissa=4,repeat=3".
	Vocab string `json:"vocab,omitempty"`
	// RawTarget makes an unnormalized decoder tokenize the original y
	// instead of the scaled u - 0.5.
	RawTarget bool `json:"raw_target,omitempty"`
	// UnmaskedLoss trains the decoder with the plain softmax over the whole
	// vocabulary, as the reference code does; by default the loss uses the
	// allowed-token constraint (probabilities renormalised over valid
	// tokens), as likelihoods and sampling always do. Only an unnormalized
	// tokenization has tokens that are not valid everywhere: with another,
	// it is refused.
	UnmaskedLoss bool `json:"unmasked_loss,omitempty"`
	// AuxMSE, when > 0, adds to the decoder's training loss AuxMSE times
	// the squared error of a linear read-out of the encoder's output phi(x)
	// against the scaled target u - 0.5 (the pointwise head's loss): a
	// smooth regression signal for the encoder beside the token-by-token
	// cross-entropy, which on small tables ranks worse than a pointwise
	// model on the same encoder. The read-out is used only in training: the
	// predictive distribution, the reported losses (Progress) and early
	// stopping are the decoder's alone. 0 (the default) trains the paper's
	// model.
	AuxMSE float64 `json:"aux_mse,omitempty"`
	// SoftTargets, when > 0, trains a decoder with the normalized
	// tokenization on soft token targets: at each position whose next
	// digit's cells are at most 5 SoftTargets wide, the cross-entropy is
	// taken against the distribution of the next digit of
	// y' ~ N(u, SoftTargets^2) truncated to the target prefix's cell (u is
	// the target scaled to [0, 1] over the training range, so SoftTargets
	// is a fraction of that range) instead of the one-hot target digit;
	// coarser positions keep the target digit. It is the histogram loss
	// with Gaussian smoothing (HL-Gauss; Imani and White, 2018) on each
	// digit, which tells the decoder which digits are near the target. As
	// the decoder learns a prefix's later digits from the rows with that
	// prefix, mass given to a neighbouring cell may land anywhere in it, so
	// the density is smoothed at between SoftTargets and about 5
	// SoftTargets (README: on integer targets, which lie on cell edges, the
	// latter). The reported losses, early stopping and the predictive
	// distribution are the decoder's NLL as without it. 0 (the default)
	// trains the paper's model. Refused with another tokenization.
	SoftTargets float64 `json:"soft_targets,omitempty"`
	// Unbounded leaves an unnormalized decoder's tokenization whole: by
	// default it may only produce cells that meet the training range
	// widened by BoundMargin. Unbounded is the paper's (and the reference
	// code's) behaviour, whose rare huge samples sway means; it is here for
	// ablations.
	Unbounded bool `json:"unbounded,omitempty"`

	// The MLP encoder: layers x width, ReLU.
	EncLayers int `json:"enc_layers"` // 1 to MaxLayers, the first taking the inputs (default DefaultEncLayers)
	EncWidth  int `json:"enc_width"`  // units per layer, 1 to MaxWidth (default DefaultEncWidth)
	// Encoder is EncoderMLP (the default, "" too) or EncoderPLR, which
	// embeds every feature (after InputTransform) with PLRFrequencies
	// frequencies and PLRDim outputs, so that the MLP's first layer takes
	// features x PLRDim inputs (the ple input transform's columns x PLRDim
	// with it). The frequencies start N(0, PLRSigma^2),
	// truncated to +-3 PLRSigma, as in rtdl_num_embeddings; PLRSigma is
	// the one to tune (at first a frequency's period spans about 1/PLRSigma
	// standard deviations of a standardised feature). The PLR fields
	// are ignored by the MLP encoder, as other heads' fields are by a head
	// (but a PLRSigma, AuxMSE or SoftTargets that is not finite is refused
	// whatever the encoder or head: the model file keeps them, and its JSON
	// cannot).
	// A model file of an MLP encoder leaves the encoder out, as files
	// written before PLR did (and read as "mlp").
	Encoder        string  `json:"encoder,omitempty"`
	PLRFrequencies int     `json:"plr_frequencies,omitempty"` // frequencies per feature, 1 to MaxPLRFrequencies (default DefaultPLRFrequencies)
	PLRDim         int     `json:"plr_dim,omitempty"`         // outputs per feature, 1 to MaxWidth (default DefaultPLRDim)
	PLRSigma       float64 `json:"plr_sigma,omitempty"`       // the frequencies' initial standard deviation, in (0, MaxPLRSigma] (default DefaultPLRSigma)
	// Dropout is the probability with which training zeroes each output of
	// every layer of the encoder's MLP (after its ReLU; not the PLR
	// embeddings; inverted dropout, so the kept ones are scaled by
	// 1/(1-Dropout)), in [0, MaxDropout]; 0, the default, drops nothing.
	// Every head; validation, calibration and prediction never drop, but
	// the training loss reported each epoch (Progress.TrainLoss) is the
	// dropped network's. The masks come from Seed, the epoch and the
	// mini-batch, so the same seed and thread count still give the same
	// model.
	Dropout float64 `json:"dropout,omitempty"`
	// Pretrain, PretrainPointwise ("pointwise"), trains in two stages:
	// first the encoder under the pointwise head (the squared error of the
	// scaled target, with this config's training settings, seed and
	// validation rows, early-stopped on their MSE), then the head alone on
	// that encoder, frozen. The pointwise head's smooth loss shapes the
	// encoder where the decoder's token-by-token cross-entropy ranks worse
	// on small tables (README: `--pretrain`); the head then models the
	// distribution on those features. Each stage has its own MaxEpochs and
	// Patience (so a run may take twice MaxEpochs epochs), and Dropout
	// still drops the frozen encoder's outputs while the head trains.
	// Cancelled during the first stage, which gives no model, Fit returns
	// ErrPretrainCancelled. "" (the default) trains the encoder and head
	// together, the paper's model. Every head but pointwise; not with
	// AuxMSE (which shapes the encoder, frozen here).
	Pretrain string `json:"pretrain,omitempty"`
	// The decoder: blocks, model width, attention heads.
	DecLayers int `json:"dec_layers,omitempty"` // 1 to MaxLayers (default DefaultDecLayers)
	DecWidth  int `json:"dec_width,omitempty"`  // 1 to MaxWidth, a multiple of DecHeads (default DefaultDecWidth)
	DecHeads  int `json:"dec_heads,omitempty"`  // default DefaultDecHeads

	Bins       int  `json:"bins,omitempty"`       // Riemann bins
	Components int  `json:"components,omitempty"` // MDN components
	Sigmoid    bool `json:"sigmoid,omitempty"`    // pointwise: squash the output to [-0.5, 0.5]

	LR          float64 `json:"lr"`           // Adam learning rate
	WeightDecay float64 `json:"weight_decay"` // L2 penalty (added to the gradient) unless AdamW
	// AdamW decouples the weight decay (AdamW). It needs a WeightDecay > 0:
	// AdamW without one is refused (it would train exactly as Adam does).
	AdamW bool `json:"adamw,omitempty"`
	// EMA, in [0, 1), is the decay per optimizer step of a moving average
	// of the weights (bias-corrected, as Adam's moments are): validation,
	// early stopping and the model kept use the average, while training
	// steps go on from the raw weights. 0.99 averages over about the last
	// hundred steps. The training loss reported each epoch is the raw
	// weights'. 0, the default, keeps the raw weights; where it is 0,
	// Tune's trials and members use TuneOptions.EMA (default
	// DefaultTuneEMA, 0.99).
	EMA       float64 `json:"ema,omitempty"`
	BatchSize int     `json:"batch_size"` // rows per mini-batch and optimizer step (default DefaultBatchSize)
	MaxEpochs int     `json:"max_epochs"` // the most epochs trained (default DefaultMaxEpochs)
	// Patience is the number of epochs without a better validation loss
	// before training stops; the best weights are restored. Without
	// validation rows (ValFrac < 0) there is no early stopping, and a
	// Patience other than 0 and DefaultPatience is refused (the default's
	// value is accepted, as the command line always passes one).
	Patience int `json:"patience"`
	// LRDrops is the number of times the learning rate is cut by
	// LRDropFactor on a plateau: where early stopping would stop (Patience
	// epochs without a better validation loss), the learning rate is
	// multiplied by LRDropFactor and training goes on from the current
	// weights with the patience started again; the plateau after the last
	// drop stops it, and the best epoch's weights are kept as always
	// (Keras's ReduceLROnPlateau before its EarlyStopping). 0, the default,
	// stops at the first plateau. It needs validation rows, at most
	// MaxLRDrops. The cut scales every step, AdamW's decoupled decay too.
	LRDrops int `json:"lr_drops,omitempty"`
	// LRDropFactor, in (0, 1), is LRDrops's factor: 0 means
	// DefaultLRDropFactor (0.2) where LRDrops is above 0; set without
	// LRDrops it is refused (it would change nothing), as is one that
	// rounds to 1 in float32 or whose LRDrops cuts take LR to 0 there.
	LRDropFactor float64 `json:"lr_drop_factor,omitempty"`
	// StopBy is what early stopping scores the validation rows by, each
	// epoch (and so what Tune compares trials by): StopByNLL ("nll"; ""
	// too, the default), their NLL, or StopByDepth ("depth"; decoder head
	// only, with at least 20 validation rows), their NLL at the
	// temperatures per token depth fitted on them as CalibrateByDepth
	// fits them for one model (each no sharper than min(1, T), T the one
	// temperature that minimises their NLL): a decoder whose finer digits overfit first
	// then trains on while its coarser ones improve, and the epoch kept is
	// the best once calibrated per depth. Use it with CalibrateByDepth.
	// Or StopByCRPS ("crps"; every head but pointwise, a decoder's
	// tokenization a bounded tree, an MDN of at most 256 components),
	// their mean CRPS in u units (the first 1,000 of them at most; Tune's
	// greedy ensemble selection then scores mixtures by it too, on fewer
	// where many bins or components make that costly): it keeps a later
	// epoch than the NLL when the finer digits overfit before the coarser
	// ones stop improving, for a better point and CRPS at some cost in NLL
	// (README: on small tables). Each epoch then costs a prediction of
	// those rows (for an unnormalized decoder, whose expansions are deep,
	// it can cost far more than an epoch of training).
	StopBy string `json:"stop_by,omitempty"`
	// ValFrac is the fraction of the training rows held out for early
	// stopping: 0 means the default DefaultValFrac (0.1), a negative value
	// holds out nothing and trains on all rows for MaxEpochs epochs. (The
	// command line's --val-frac differs: there 0 means none.)
	ValFrac float64 `json:"val_frac"`
	// TargetMin and TargetMax, unless both are 0, fix the range that y is
	// scaled by (u = (y - TargetMin) / (TargetMax - TargetMin)) in place of
	// the training targets' min and max: a known range, such as [0, 1] for
	// a density on the unit interval, so that the heads' cells and bins lie
	// on that range's grid. Training targets outside it are refused.
	TargetMin float64 `json:"target_min,omitempty"`
	TargetMax float64 `json:"target_max,omitempty"` // when fixed: finite, above TargetMin by at least the smallest normal float64
	// Seed draws the network's initial weights, the validation rows held
	// out, the order of the mini-batches and the dropout masks; an
	// ensemble's member k uses Seed+k, with Seed's validation rows. Tune
	// also draws its trials' settings with it. 0 is a seed like any other.
	Seed uint64 `json:"seed"`
	// Threads is the number of threads of the network's kernels (0: all
	// cores). The same seed and thread count give the same model.
	Threads int `json:"threads"`
	// InputTransform maps each feature before the encoder: "standard" (the
	// default, "" too): (x - mean) / sd; "robust": (x - median) / IQR;
	// "quantile": the inverse normal CDF of the training values' ECDF
	// (interpolated between up to 1,000 quantiles; values beyond the
	// training range map to about +-5.2), which makes skewed or heavy-tailed
	// features normal and outliers harmless; "ple": the piecewise linear
	// encoding of Gorishniy et al. ("On Embeddings for Numerical Features
	// in Tabular Deep Learning", 2022) over quantile bins: each
	// non-constant feature becomes up to PLEBins columns, column t
	// clip((x - e_{t-1}) / (e_t - e_{t-1}), 0, 1) for the training quantiles
	// e_0 < ... < e_T at levels t/PLEBins (equal ones merged; data.FitPLE),
	// a constant one stays one column, and every column is then
	// standardized. Unlike the authors' rtdl_num_embeddings package, the
	// first and last bins are clipped too. The network then takes the encoding's columns instead of
	// the features (with EncoderPLR, each column is embedded). The
	// transform is fitted on the training rows and saved in the model.
	InputTransform string `json:"input_transform,omitempty"`
	// PLEBins is the ple input transform's most bins per feature, 2 to
	// data.MaxPLEBins (default data.DefaultPLEBins); ignored by the other
	// transforms (but refused out of that range: with Tune, it is the
	// bins of the ple seeds' members, TuneOptions.PLESeeds).
	PLEBins int `json:"ple_bins,omitempty"`
	// Calibrate fits a temperature (Model.Temperature) after training, by
	// the NLL of the validation rows: one number that widens or sharpens
	// every predictive distribution. It needs validation rows (ValFrac not
	// negative) and a head with a density (not pointwise).
	Calibrate bool `json:"calibrate,omitempty"`
	// CalibrateBy is Calibrate's objective: CalibrateByNLL ("nll"; "" too,
	// the default) or CalibrateByPIT ("pit": the temperature whose
	// validation PIT values are closest to uniform, which aims at the
	// coverage of the predictive intervals; decoders need a tree
	// tokenization), or CalibrateByIsotonic ("isotonic": the NLL
	// temperature, then a monotone map of the CDF fitted to the validation
	// PIT values; see CalibrateByIsotonic), or CalibrateByDepth ("depth":
	// a decoder's temperatures per token depth, by NLL). Without
	// Calibrate a known objective is ignored; an unknown name is refused
	// all the same.
	CalibrateBy string `json:"calibrate_by,omitempty"`
	// Ensemble, when 2 or more, trains that many members with seeds Seed,
	// Seed+1, ... (their initialisations and mini-batches differ; they hold
	// out the same validation rows, those of Seed) and predicts with their
	// equal mixture (see NewEnsemble); 0 or 1 trains one model. With
	// Calibrate, one temperature is fitted for the mixture.
	Ensemble int `json:"ensemble,omitempty"`
}

// Progress reports one finished epoch to the function given WithProgress.
type Progress struct {
	Epoch, MaxEpochs int     // the epoch just finished (from 1) and Config.MaxEpochs
	TrainLoss        float64 // mean training loss of the epoch (for the decoder: NLL in u units, from the training objective's probabilities)
	ValLoss          float64 // validation loss (NLL in u units, for Tune's seeds' members at TuneReport.Resolution; MSE in head units for pointwise); NaN without validation
	Best             bool    // this epoch has the best validation loss so far
	// Elapsed is the wall time since the training began: since FitFlat
	// was called (its members and stages together), or, for Tune's
	// TuneOptions.MemberProgress, since the seeds' members began.
	Elapsed time.Duration
	// Member is the ensemble member being trained (0-based) of Members
	// (Config.Ensemble; 0 or 1 for a single model).
	Member, Members int
	// Pretrain marks the epochs of Config.Pretrain's first stage, the
	// encoder's training under the pointwise head (its losses are MSEs);
	// the head's epochs follow, numbered from 1 again.
	Pretrain bool
}

// FitOption is an option of Fit and FitFlat that is not a hyper-parameter.
type FitOption func(*fitOptions)

type fitOptions struct {
	progress  func(Progress)
	maxLevels int // FitFrame: 0 means data.DefaultMaxLevels
	// resolution: Tune's seeds' members are early-stopped at
	// TuneOptions.Resolution (0: plain NLL)
	resolution float64
	// members, when > 0, is Progress.Members in place of the config's
	// Ensemble: Tune's seeds' members, plain and soft, may be more than
	// Config.Ensemble allows (2N-1 for --ensemble N).
	members int
	// pretrain: the member is Config.Pretrain's pointwise stage
	pretrain bool
}

// WithMaxLevels sets the most levels FitFrame accepts in a categorical
// column (default data.DefaultMaxLevels); a column with more is a
// *data.LevelsError. Fit and FitFlat ignore it.
func WithMaxLevels(n int) FitOption {
	return func(o *fitOptions) { o.maxLevels = n }
}

// WithProgress makes Fit call f after every epoch.
func WithProgress(f func(Progress)) FitOption {
	return func(o *fitOptions) { o.progress = f }
}

// DefaultConfig returns c with its zero sizes, rates and names set to their
// defaults, as Fit sets them: the head, encoder, layers and widths, the
// head's own sizes, the learning rate, batch size, epochs, patience and
// validation fraction, the PLE bins with the ple input transform, the PLR
// sizes with the plr encoder, the drop factor with LRDrops. Fields whose
// zero value is itself the default stay zero: InputTransform ""
// (standard), StopBy and CalibrateBy "" (nll), and the others that Config
// documents so; so do the PLE and PLR sizes when their transform or
// encoder is not chosen.
func DefaultConfig(c Config) Config {
	if c.Head == "" {
		c.Head = HeadDecoder
	}
	if hs := headSpecs[c.Head]; hs != nil {
		hs.defaults(&c)
	}
	setInt(&c.EncLayers, DefaultEncLayers)
	setInt(&c.EncWidth, DefaultEncWidth)
	if c.Encoder == "" {
		c.Encoder = EncoderMLP
	}
	if c.InputTransform == data.TransformPLE {
		setInt(&c.PLEBins, data.DefaultPLEBins)
	}
	if c.Encoder == EncoderPLR {
		setInt(&c.PLRFrequencies, DefaultPLRFrequencies)
		setInt(&c.PLRDim, DefaultPLRDim)
		if c.PLRSigma == 0 {
			c.PLRSigma = DefaultPLRSigma
		}
	}
	if c.LR == 0 {
		c.LR = DefaultLR
	}
	setInt(&c.BatchSize, DefaultBatchSize)
	setInt(&c.MaxEpochs, DefaultMaxEpochs)
	setInt(&c.Patience, DefaultPatience)
	if c.LRDrops > 0 && c.LRDropFactor == 0 {
		c.LRDropFactor = DefaultLRDropFactor
	}
	if c.ValFrac == 0 {
		c.ValFrac = DefaultValFrac
	}
	return c
}

// PretrainPointwise is Config.Pretrain's one value: the encoder trained
// first under the pointwise head, then frozen while the head trains.
const PretrainPointwise = "pointwise"

// ErrConfig is wrapped by every error about an invalid Config.
var ErrConfig = errors.New("invalid config")

// ConfigError is the error of an invalid Config or other options: Field
// names the field at fault ("LR", "Vocab", "EncWidth", ...; the first one
// when several share the fault; TuneOptions' as "Budget", PredictOptions'
// as "Levels" or "Token.Beam", and "Point", "Temperature" or "MaxLevels"
// for the arguments of those names) and Err says what is wrong. errors.Is(err, ErrConfig)
// holds for it, so callers can map a field to their own option names (the
// command line maps it to a flag) without parsing the message.
type ConfigError struct {
	Field string // the field's Go name: a Config field, or another option's ("Budget" of TuneOptions, "Token.Beam" of PredictOptions, ...)
	Err   error  // what is wrong
}

// Error returns "invalid config: FIELD: REASON".
func (e *ConfigError) Error() string {
	return ErrConfig.Error() + ": " + e.Field + ": " + fmt.Sprint(e.Err) // "<nil>" for no Err
}

// Unwrap returns ErrConfig and the underlying error.
func (e *ConfigError) Unwrap() []error { return []error{ErrConfig, e.Err} }

func configErr(field, format string, args ...any) error {
	return &ConfigError{Field: field, Err: fmt.Errorf(format, args...)}
}

// MaxThreads is the most threads a Config (for training) or
// dist.TokenOptions (for Predict) may ask for: far above any machine's
// cores, and a count past it is a typo rather than a wish (it was taken,
// and recorded in experiments' results as given).
const MaxThreads = 4096

// Validate checks c as Fit does before it looks at the data: nil, or an
// error wrapping ErrConfig that says what is wrong. Zero fields take their
// defaults (DefaultConfig) first. The size limits leave out the input
// layer, whose size depends on the number of features.
func (c Config) Validate() error {
	if _, err := DefaultConfig(c).validateTrain(); err != nil {
		return err
	}
	return seedRoom(c.Seed, c.Ensemble)
}

// seedRoom refuses a Seed that leaves no room for the seeds of n members,
// Seed + k for k < n: none may wrap past the largest. It is checked on
// the settings a fit starts from, not on its members' (member k's Seed is
// Seed + k, its Ensemble the whole's), nor on a saved model's.
func seedRoom(seed uint64, n int) error {
	if n > 1 && seed > math.MaxUint64-uint64(n-1) {
		return configErr("Seed", "%d leaves no room for the seeds of %d members (Seed + member)", seed, n)
	}
	return nil
}

// validateTrain is validate and the checks of the settings that only
// training reads (a saved model's Config is checked by validate alone, so
// that files written before these checks still load).
func (c Config) validateTrain() (vocab.Tokenizer, error) {
	tok, err := c.validate()
	if err != nil {
		return nil, err
	}
	if tok != nil {
		if err := vocab.Trainable(tok); err != nil {
			return nil, configErr("Vocab", "%q: %v", c.Vocab, err)
		}
	}
	if c.Head == HeadDecoder && (c.RawTarget || c.Unbounded) && !vocab.IsUnnormalized(tok) {
		field := pick(c.RawTarget, "RawTarget", "Unbounded")
		return nil, configErr(field, "for an unnormalized tokenization only; %q is not one, and would be left as it is", c.Vocab)
	}
	if c.Head == HeadDecoder && c.UnmaskedLoss && !vocab.IsUnnormalized(tok) {
		// Every token of a normalized or Hamming tokenization is valid at
		// every position: the loss would be the same (it was taken, to
		// no effect: review).
		return nil, configErr("UnmaskedLoss", "for an unnormalized tokenization only; every token of %q is valid at every position, so the loss is the same without it", c.Vocab)
	}
	// Another head's or encoder's sizes are ignored, but a negative one is
	// a mistake, which the model file would keep.
	for _, f := range []struct {
		name string
		v    int
	}{{"Bins", c.Bins}, {"Components", c.Components}, {"DecLayers", c.DecLayers}, {"DecWidth", c.DecWidth}, {"DecHeads", c.DecHeads},
		{"PLRFrequencies", c.PLRFrequencies}, {"PLRDim", c.PLRDim}, {"PLEBins", c.PLEBins}} {
		if f.v < 0 {
			return nil, configErr(f.name, "must be >= 0 (0 for the default), have %d", f.v)
		}
	}
	if c.PLRSigma < 0 {
		return nil, configErr("PLRSigma", "must be >= 0 (0 for the default), have %v", c.PLRSigma)
	}
	if float32(c.LR) == 0 {
		// Adam keeps the rate in float32: below about 1e-45 it is 0, and
		// training returned the initial weights without a word.
		return nil, configErr("LR", "the learning rate %v is 0 in float32, in which the optimizer keeps it: use a larger one", c.LR)
	}
	if c.Threads > MaxThreads {
		return nil, configErr("Threads", "threads must be at most %d (MaxThreads; 0 uses every core), have %d", MaxThreads, c.Threads)
	}
	if c.AdamW && c.WeightDecay == 0 {
		return nil, configErr("AdamW", "AdamW decouples the weight decay, which is 0: set a weight decay > 0 or leave AdamW off")
	}
	if r := c.TargetMax - c.TargetMin; c.FixedRange() && r < minTargetRange {
		return nil, configErr("TargetMax", "the fixed target range [%v, %v] is %v wide, below float64's normal numbers (%v): rescale the target", c.TargetMin, c.TargetMax, r, minTargetRange)
	}
	if c.ValFrac < 0 && c.Patience != DefaultPatience {
		return nil, configErr("Patience", "patience %d has no effect without a validation split: early stopping needs validation rows", c.Patience)
	}
	if c.LRDrops < 0 || c.LRDrops > MaxLRDrops {
		return nil, configErr("LRDrops", "the learning-rate drops must be in [0, %d], have %d", MaxLRDrops, c.LRDrops)
	}
	if c.LRDrops == 0 && c.LRDropFactor != 0 {
		return nil, configErr("LRDropFactor", "a learning-rate drop factor (%v) without drops changes nothing: set LRDrops too, or leave it 0", c.LRDropFactor)
	}
	if c.LRDrops > 0 && !(c.LRDropFactor > 0 && c.LRDropFactor < 1) {
		return nil, configErr("LRDropFactor", "the learning-rate drop factor must be in (0, 1), have %v", c.LRDropFactor)
	}
	if c.LRDrops > 0 {
		// The rate is cut in float32, as Adam keeps it: a factor that rounds
		// to 1 would cut nothing, and drops that take the rate to 0 would
		// stop the training without saying so.
		f := float32(c.LRDropFactor)
		if f == 1 {
			return nil, configErr("LRDropFactor", "the learning-rate drop factor %v rounds to 1 in float32, which would not cut the rate: use one below 1 - 1e-7", c.LRDropFactor)
		}
		lr := float32(c.LR)
		for range c.LRDrops {
			lr *= f
		}
		if lr == 0 {
			return nil, configErr("LRDropFactor", "%d drops by %v would take the learning rate %v to 0 in float32: use a larger factor or fewer drops", c.LRDrops, c.LRDropFactor, c.LR)
		}
	}
	if c.ValFrac < 0 && c.LRDrops > 0 {
		return nil, configErr("LRDrops", "the learning rate is cut on a plateau of the validation loss, which needs validation rows")
	}
	return tok, nil
}

// validate checks a defaulted config and returns its tokenization (nil for
// heads without one).
func (c Config) validate() (vocab.Tokenizer, error) {
	hs := headSpecs[c.Head]
	if hs == nil {
		return nil, configErr("Head", "unknown head %q (want decoder, pointwise, riemann or mdn)", c.Head)
	}
	if c.EncLayers < 1 || c.EncWidth < 1 {
		return nil, configErr(pick(c.EncLayers < 1, "EncLayers", "EncWidth"), "encoder needs at least 1 layer of width >= 1, have %d x %d", c.EncLayers, c.EncWidth)
	}
	if err := c.checkEncoder(); err != nil {
		return nil, err
	}
	tok, err := hs.check(c)
	if err != nil {
		return nil, err
	}
	if c.EncLayers > MaxLayers || c.DecLayers > MaxLayers || c.EncWidth > MaxWidth || c.DecWidth > MaxWidth {
		return nil, configErr(sizeField(c), "layers are limited to %d and widths to %d, have encoder %d x %d, decoder %d x %d",
			MaxLayers, MaxWidth, c.EncLayers, c.EncWidth, c.DecLayers, c.DecWidth)
	}
	if n := c.approxParams(); n > MaxParams {
		return nil, configErr(sizeField(c), "the network would have about %.3g parameters (%.3g in the encoder's hidden layers, %.3g in the %s head), more than the %d allowed",
			n, c.encParams(), headSpecs[c.Head].params(c), c.Head, MaxParams)
	}
	if !(c.LR > 0) || math.IsInf(c.LR, 0) {
		return nil, configErr("LR", "learning rate must be finite and > 0, have %v", c.LR)
	}
	if !(c.WeightDecay >= 0) || math.IsInf(c.WeightDecay, 0) {
		return nil, configErr("WeightDecay", "weight decay must be finite and >= 0, have %v", c.WeightDecay)
	}
	if !(c.EMA >= 0 && c.EMA < 1) {
		return nil, configErr("EMA", "the moving average's decay must be in [0, 1) (0 for none), have %v", c.EMA)
	}
	// Fields another head or encoder ignores are still saved in the model
	// file, whose JSON has no NaN or Inf: refused for every head.
	if !(c.AuxMSE >= 0 && c.AuxMSE <= MaxAuxMSE) {
		return nil, configErr("AuxMSE", "the auxiliary loss's weight must be in [0, %g], have %v", MaxAuxMSE, c.AuxMSE)
	}
	if !(c.Dropout >= 0 && c.Dropout <= MaxDropout) {
		return nil, configErr("Dropout", "the dropout probability must be in [0, %g], have %v", MaxDropout, c.Dropout)
	}
	if math.IsNaN(c.PLRSigma) || math.IsInf(c.PLRSigma, 0) {
		return nil, configErr("PLRSigma", "must be finite, have %v", c.PLRSigma)
	}
	if !(c.SoftTargets >= 0 && c.SoftTargets <= MaxSoftTargets) {
		return nil, configErr("SoftTargets", "the soft targets' standard deviation must be in [0, %g] (a fraction of the target range), have %v", float64(MaxSoftTargets), c.SoftTargets)
	}
	if c.BatchSize < 1 || c.MaxEpochs < 1 || c.Patience < 1 {
		// The one that is not (it said "batch size, epochs and patience
		// must be >= 1, have -5, 300, 5": helper-146).
		f := countField(c)
		v := map[string]int{"BatchSize": c.BatchSize, "MaxEpochs": c.MaxEpochs, "Patience": c.Patience}[f]
		what := map[string]string{"BatchSize": "the batch size", "MaxEpochs": "the number of epochs", "Patience": "the patience"}[f]
		return nil, configErr(f, "%s must be >= 1, have %d", what, v)
	}
	if c.ValFrac >= 1 || math.IsNaN(c.ValFrac) || math.IsInf(c.ValFrac, 0) {
		return nil, configErr("ValFrac", "validation fraction must be finite and < 1, have %v", c.ValFrac)
	}
	if c.Threads < 0 {
		return nil, configErr("Threads", "threads must be >= 0, have %d", c.Threads)
	}
	if c.InputTransform != "" && !slices.Contains(data.Transforms, c.InputTransform) {
		return nil, configErr("InputTransform", "unknown input transform %q (want %s)", c.InputTransform, strings.Join(data.Transforms, ", "))
	}
	if (c.InputTransform == data.TransformPLE || c.PLEBins != 0) && (c.PLEBins < 2 || c.PLEBins > data.MaxPLEBins) {
		return nil, configErr("PLEBins", "the ple input transform needs 2 to %d bins per feature, have %d", data.MaxPLEBins, c.PLEBins)
	}
	if c.Ensemble < 0 || c.Ensemble > MaxEnsemble {
		return nil, configErr("Ensemble", "an ensemble has 0 (one model) to %d members, have %d", MaxEnsemble, c.Ensemble)
	}
	if c.Calibrate && c.Head == HeadPointwise {
		return nil, configErr("Calibrate", "the pointwise head has no distribution to calibrate")
	}
	if c.Calibrate && c.ValFrac < 0 {
		return nil, configErr("Calibrate", "calibration needs validation rows (ValFrac >= 0)")
	}
	if err := checkCalibrateBy(c.CalibrateBy); err != nil {
		return nil, err
	}
	if _, tree := tok.(vocab.Tree); c.Calibrate && (c.CalibrateBy == CalibrateByPIT || c.CalibrateBy == CalibrateByIsotonic) && c.Head == HeadDecoder && !tree {
		return nil, configErr("CalibrateBy", "the %s objective needs a tree tokenization (normalized or unnormalized, without repeat), have %s", c.CalibrateBy, c.Vocab)
	}
	switch c.StopBy {
	case "", StopByNLL:
	case StopByDepth:
		if c.Head != HeadDecoder {
			return nil, configErr("StopBy", "early stopping by depth needs the decoder head, have %s", c.Head)
		}
		if c.ValFrac < 0 {
			return nil, configErr("StopBy", "early stopping by depth needs validation rows (ValFrac >= 0)")
		}
	case StopByCRPS:
		if c.Head == HeadPointwise {
			return nil, configErr("StopBy", "early stopping by CRPS needs a head with a distribution, have %s (its validation loss is the MSE)", c.Head)
		}
		if c.ValFrac < 0 {
			return nil, configErr("StopBy", "early stopping by CRPS needs validation rows (ValFrac >= 0)")
		}
		if _, tree := tok.(vocab.Tree); c.Head == HeadDecoder && !tree {
			return nil, configErr("StopBy", "early stopping by CRPS needs a tree tokenization (normalized or unnormalized, without repeat), whose CRPS follows from its cells, have %s", c.Vocab)
		}
		if c.Head == HeadDecoder && c.Unbounded {
			return nil, configErr("StopBy", "early stopping by CRPS needs a bounded tokenization: an unbounded one's cells reach far beyond the targets, whose mass, however small, sways the CRPS")
		}
		if c.Head == HeadMDN && c.Components > maxCRPSComponents {
			return nil, configErr("StopBy", "early stopping by CRPS of an MDN costs the square of its components per row: at most %d components, have %d", maxCRPSComponents, c.Components)
		}
	default:
		return nil, configErr("StopBy", "unknown early-stopping score %q (want nll, depth or crps)", c.StopBy)
	}
	switch c.Pretrain {
	case "":
	case PretrainPointwise:
		if c.Head == HeadPointwise {
			return nil, configErr("Pretrain", "pretraining trains the encoder under the pointwise head, then another head on it: the pointwise head needs none")
		}
		if c.AuxMSE > 0 {
			return nil, configErr("AuxMSE", "the auxiliary read-out shapes the encoder, which is frozen after pretraining: use one or the other")
		}
	default:
		return nil, configErr("Pretrain", "unknown pretraining %q (want %q, or \"\" for none)", c.Pretrain, PretrainPointwise)
	}
	if c.Calibrate && c.CalibrateBy == CalibrateByDepth && c.Head != HeadDecoder {
		return nil, configErr("CalibrateBy", "the depth objective needs the decoder head, have %s", c.Head)
	}
	if c.FixedRange() && !(c.TargetMin < c.TargetMax && !math.IsInf(c.TargetMax-c.TargetMin, 0)) {
		return nil, configErr(pick(math.IsInf(c.TargetMin, 0) || math.IsNaN(c.TargetMin), "TargetMin", "TargetMax"),
			"a fixed target range needs finite TargetMin < TargetMax whose difference is finite, have [%v, %v]", c.TargetMin, c.TargetMax)
	}
	return tok, nil
}

// checkEncoder checks Encoder and, for PLR, its sizes.
func (c Config) checkEncoder() error {
	switch c.Encoder {
	case EncoderMLP:
		return nil
	case EncoderPLR:
	default:
		return configErr("Encoder", "unknown encoder %q (want %s)", c.Encoder, EncoderMLP+" or "+EncoderPLR)
	}
	switch {
	case c.PLRFrequencies < 1 || c.PLRFrequencies > MaxPLRFrequencies:
		return configErr("PLRFrequencies", "the plr encoder needs 1 to %d frequencies per feature, have %d", MaxPLRFrequencies, c.PLRFrequencies)
	case c.PLRDim < 1 || c.PLRDim > MaxWidth:
		return configErr("PLRDim", "the plr encoder needs 1 to %d outputs per feature, have %d", MaxWidth, c.PLRDim)
	case !(c.PLRSigma > 0) || math.IsInf(c.PLRSigma, 0):
		return configErr("PLRSigma", "the plr encoder's frequency scale must be finite and > 0, have %v", c.PLRSigma)
	case c.PLRSigma > MaxPLRSigma:
		return configErr("PLRSigma", "the plr encoder's frequency scale is at most %v (standardized features with frequencies that large give float32 phases of noise), have %v", MaxPLRSigma, c.PLRSigma)
	}
	return nil
}

// Limits on the network's size, far above the paper's grid (encoders up to
// 5 x 2048, 16384 bins, 1000 components): sizes beyond them are refused
// with ErrConfig rather than tried (and failing to allocate).
const (
	MaxLayers     = 64      // encoder or decoder layers
	MaxWidth      = 1 << 14 // encoder or decoder width
	MaxBins       = 1 << 20 // Riemann bins
	MaxComponents = 1 << 14 // MDN components
	// MaxPLRFrequencies limits Config.PLRFrequencies (PLRDim is limited to
	// MaxWidth), so that one feature's PLR weights stay below 2^27.
	MaxPLRFrequencies = 1 << 12
	MaxParams         = 1 << 28 // about 1 GiB of float32 weights (4 GiB with gradients and Adam's moments)
	MaxEnsemble       = 64      // ensemble members
	MaxPLRSigma       = 1000    // the PLR frequencies' scale
	// MaxAuxMSE limits Config.AuxMSE: the weight enters float32 gradients
	// (1e300 became +Inf there, and training diverged with a hint about
	// the learning rate); Adam's step hardly changes beyond 1e4.
	MaxAuxMSE = 1e6
	// MaxLRDrops is the largest Config.LRDrops: ten drops at the default
	// factor take the default rate to about 5e-11, whose steps are below
	// the float32 resolution of a weight near 0.1 (about 7e-9).
	MaxLRDrops = 10
	// MaxDropout is the largest Config.Dropout.
	MaxDropout = 0.9
	// MaxSoftTargets limits Config.SoftTargets, a fraction of the target
	// range: beyond it every digit's target is nearly uniform.
	MaxSoftTargets = 10
)

// approxParams estimates the network's parameter count without the input
// layer (whose size depends on the features): the hidden encoder layers,
// the decoder blocks and the output layer.
func (c Config) approxParams() float64 {
	return c.encParams() + headSpecs[c.Head].params(c)
}

// inputParams estimates the parameters that depend on the number of
// features cols: the encoder's first layer and, for the PLR encoder, the
// embeddings.
func (c Config) inputParams(cols int) float64 {
	return c.inputParamsFor(c.inputWidth(cols))
}

// inputParamsFor is inputParams for a network of width inputs.
func (c Config) inputParamsFor(width int) float64 {
	n, ew := float64(width), float64(c.EncWidth)
	if c.Encoder == EncoderPLR {
		k, d := float64(c.PLRFrequencies), float64(c.PLRDim)
		return n*k + n*d*(2*k+1) + n*d*ew + ew
	}
	return n*ew + ew
}

// inputWidth bounds the network's inputs for cols features: cols, or
// with the ple input transform PLEBins columns per feature at most (the
// bound that the memory estimates and Tune's costs use; the size check
// counts the columns once the encoding is fitted).
func (c Config) inputWidth(cols int) int {
	if c.InputTransform == data.TransformPLE {
		return cols * c.PLEBins
	}
	return cols
}

// checkSize refuses a configuration whose network for cols features, of
// width inputs (cols, or the columns of their ple encoding), would have
// more than MaxParams parameters, naming the field that makes it so.
func (c Config) checkSize(cols, width int) error {
	in := c.inputParamsFor(width)
	if n := c.approxParams() + in; n > MaxParams {
		field := sizeField(c)
		if in > c.approxParams() {
			field = "EncWidth"
			switch {
			case width > cols && c.approxParams()+c.inputParamsFor(cols) <= MaxParams:
				field = "PLEBins" // it fits without the encoding's columns
			case c.Encoder == EncoderPLR:
				field = "PLRDim"
			}
		}
		what := fmt.Sprintf("%d features", cols)
		if c.InputTransform == data.TransformPLE {
			what += fmt.Sprintf(" (%d columns of their ple encoding)", width)
		}
		return configErr(field, "the network for %s would have about %.3g parameters (%.3g for the input layer and embeddings), more than the %d allowed",
			what, n, in, MaxParams)
	}
	return nil
}

// encParams estimates the parameters of the encoder's hidden layers.
func (c Config) encParams() float64 {
	ew := float64(c.EncWidth)
	return float64(max(c.EncLayers-1, 0)) * ew * (ew + 1)
}

// sizeField names the size field that breaks a limit: a layer count or
// width above its own limit, else, for the parameter limit, the field of
// the part with the most parameters: the head's own size field (DecWidth,
// Bins, Components) when the head has more than the encoder's hidden
// layers, else EncWidth.
func sizeField(c Config) string {
	switch {
	case c.EncWidth > MaxWidth:
		return "EncWidth"
	case c.DecWidth > MaxWidth:
		return "DecWidth"
	case c.EncLayers > MaxLayers:
		return "EncLayers"
	case c.DecLayers > MaxLayers:
		return "DecLayers"
	case headSpecs[c.Head].sizeField != "" && headSpecs[c.Head].params(c) > c.encParams():
		return headSpecs[c.Head].sizeField
	}
	return "EncWidth"
}

// countField names the first of BatchSize, MaxEpochs and Patience below 1.
func countField(c Config) string {
	switch {
	case c.BatchSize < 1:
		return "BatchSize"
	case c.MaxEpochs < 1:
		return "MaxEpochs"
	}
	return "Patience"
}

func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// headSpec is the Config side of a head: its own fields, their defaults
// and checks, and the size of its layers. Its behaviour in training and
// inference is impl, from the one table of heads (package internal/head).
type headSpec struct {
	impl      *head.Head
	fields    []string                                // the Config fields only this head uses
	defaults  func(c *Config)                         // sets its zero fields to their defaults
	check     func(c Config) (vocab.Tokenizer, error) // checks its fields (defaults applied)
	params    func(c Config) float64                  // parameters of the layers after the encoder
	sizeField string                                  // the field that makes it big ("": the encoder's)
}

var headSpecs = map[Head]*headSpec{
	HeadDecoder: {
		impl:   head.Lookup("decoder"),
		fields: []string{"Vocab", "RawTarget", "UnmaskedLoss", "Unbounded", "DecLayers", "DecWidth", "DecHeads", "AuxMSE", "SoftTargets"},
		defaults: func(c *Config) {
			if c.Vocab == "" {
				c.Vocab = DefaultVocab
			}
			setInt(&c.DecLayers, DefaultDecLayers)
			setInt(&c.DecWidth, DefaultDecWidth)
			setInt(&c.DecHeads, DefaultDecHeads)
		},
		check: func(c Config) (vocab.Tokenizer, error) {
			tok, err := vocab.Parse(c.Vocab)
			if err != nil {
				return nil, configErr("Vocab", "%v", err) // it quotes the spec
			}
			if c.DecLayers < 1 || c.DecWidth < 1 || c.DecHeads < 1 {
				return nil, configErr(pick(c.DecLayers < 1, "DecLayers", pick(c.DecWidth < 1, "DecWidth", "DecHeads")), "decoder needs layers, width and heads >= 1, have %d, %d, %d", c.DecLayers, c.DecWidth, c.DecHeads)
			}
			if c.DecWidth%c.DecHeads != 0 {
				return nil, configErr("DecWidth", "decoder width %d is not a multiple of its %d heads", c.DecWidth, c.DecHeads)
			}
			if _, ok := tok.(*vocab.Normalized); c.SoftTargets > 0 && !ok {
				return nil, configErr("SoftTargets", "soft targets need the normalized tokenization, not %q", c.Vocab)
			}
			return tok, nil
		},
		params: func(c Config) float64 {
			ew, dw := float64(c.EncWidth), float64(c.DecWidth)
			return ew*dw + float64(c.DecLayers)*12*dw*dw
		},
		sizeField: "DecWidth",
	},
	HeadPointwise: {
		impl:     head.Lookup("pointwise"),
		fields:   []string{"Sigmoid"},
		defaults: func(*Config) {},
		check:    func(Config) (vocab.Tokenizer, error) { return nil, nil },
		params:   func(Config) float64 { return 0 },
	},
	HeadRiemann: {
		impl:     head.Lookup("riemann"),
		fields:   []string{"Bins"},
		defaults: func(c *Config) { setInt(&c.Bins, DefaultBins) },
		check: func(c Config) (vocab.Tokenizer, error) {
			if c.Bins > MaxBins {
				return nil, configErr("Bins", "riemann bins are limited to %d, have %d", MaxBins, c.Bins)
			}
			if c.Bins < 2 {
				return nil, configErr("Bins", "riemann needs at least 2 bins, have %d", c.Bins)
			}
			return nil, nil
		},
		params:    func(c Config) float64 { return float64(c.EncWidth) * float64(c.Bins) },
		sizeField: "Bins",
	},
	HeadMDN: {
		impl:     head.Lookup("mdn"),
		fields:   []string{"Components"},
		defaults: func(c *Config) { setInt(&c.Components, DefaultComponents) },
		check: func(c Config) (vocab.Tokenizer, error) {
			if c.Components > MaxComponents {
				return nil, configErr("Components", "mdn components are limited to %d, have %d", MaxComponents, c.Components)
			}
			if c.Components < 1 {
				return nil, configErr("Components", "mdn needs at least 1 component, have %d", c.Components)
			}
			return nil, nil
		},
		params:    func(c Config) float64 { return 3 * float64(c.EncWidth) * float64(c.Components) },
		sizeField: "Components",
	},
}

// Fields returns the names of the Config fields that only head h uses
// (nil for an unknown head): a caller can refuse them for other heads.
func (h Head) Fields() []string {
	if hs := headSpecs[h]; hs != nil {
		return append([]string(nil), hs.fields...)
	}
	return nil
}

// minTargetRange is the narrowest target range that Fit scales y by: the
// smallest normal float64. Below it (a subnormal range) y's units lose
// their precision, and values outside the range scale to infinities.
const minTargetRange = 0x1p-1022

// FixedRange reports whether c fixes the target range (TargetMin and
// TargetMax are not both 0).
func (c Config) FixedRange() bool { return c.TargetMin != 0 || c.TargetMax != 0 }

func setInt(p *int, v int) {
	if *p == 0 {
		*p = v
	}
}

// depthTemps is train.Settings.DepthTemps for c: the temperatures' range
// with StopByDepth, none otherwise.
func (c Config) depthTemps() [2]float64 {
	if c.StopBy == StopByDepth {
		return [2]float64{MinTemperature, MaxTemperature}
	}
	return [2]float64{}
}
