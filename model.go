package decoreg

import (
	"errors"
	"math"
	"strings"
	"time"

	"decoreg/dist"
	imodel "decoreg/internal/model"
	"decoreg/vocab"
)

// ErrNotFitted is returned by a Model that has not been trained or loaded.
var ErrNotFitted = errors.New("decoreg: model is not fitted")

// Model is a trained regression model: the network, its tokenization, and
// the scaling statistics of the training set.
//
// Concurrency: Predict, PredictFlat, Score, Dist, Dists, Save and the
// getters only read the model, so any number of goroutines may call them at
// once; the distributions they return are safe for concurrent use too
// (see dist.Token; Sample needs a *rand.Rand per goroutine). Evaluate runs
// the network's training forward pass on the model's own scratch buffers
// and SetNames writes the model: neither may run concurrently with any
// other method.
type Model struct {
	cfg  Config
	tok  vocab.Tokenizer
	net  *imodel.Model
	info TrainInfo

	xMean, xStd []float64 // per-feature standardisation (std 0 -> 1)
	yMin, yMax  float64   // training targets' range

	features []string // optional column names, for files
	target   string
}

// TrainInfo describes how a model was trained.
type TrainInfo struct {
	Rows        int     `json:"rows"`          // training rows (including validation rows)
	ValRows     int     `json:"val_rows"`      // rows held out for early stopping
	Features    int     `json:"features"`      // input dimension
	Params      int     `json:"params"`        // number of parameters
	Epochs      int     `json:"epochs"`        // epochs run
	BestEpoch   int     `json:"best_epoch"`    // epoch whose weights were kept (1-based)
	BestValLoss float64 `json:"best_val_loss"` // 0 when trained without validation
	Stopped     string  `json:"stopped"`       // "early-stopping", "max-epochs" or "cancelled"
	Seconds     float64 `json:"seconds"`       // wall time of Fit
	Kernel      string  `json:"kernel"`        // GEMM kernel used
	Threads     int     `json:"threads"`
	Version     string  `json:"version"` // decoreg version that trained it
	Created     string  `json:"created"` // RFC 3339 time
}

// Version is decoreg's version, recorded in model files.
const Version = "0.1.0"

// Config returns the model's configuration (with defaults filled in).
func (m *Model) Config() Config { return m.cfg }

// Info returns how the model was trained.
func (m *Model) Info() TrainInfo { return m.info }

// Features is the input dimension.
func (m *Model) Features() int { return len(m.xMean) }

// YRange returns the training targets' minimum and maximum.
func (m *Model) YRange() (lo, hi float64) { return m.yMin, m.yMax }

// SetNames records the names of the feature columns and of the target,
// saved with the model so that prediction inputs can be matched by name.
func (m *Model) SetNames(features []string, target string) {
	m.features = append([]string(nil), features...)
	m.target = target
}

// Names returns the names recorded by SetNames (nil if none).
func (m *Model) Names() (features []string, target string) { return m.features, m.target }

// Tokenizer returns the decoder's tokenization (nil for other heads).
func (m *Model) Tokenizer() vocab.Tokenizer { return m.tok }

// unnormalized reports whether the decoder uses a sign/exponent/mantissa
// tokenization (possibly repeated).
func (m *Model) unnormalized() bool {
	return m.tok != nil && strings.Contains(m.tok.Spec(), "unnormalized")
}

// shifted reports whether the head models u - 0.5 rather than u.
func (m *Model) shifted() bool {
	switch m.cfg.Head {
	case HeadPointwise, HeadMDN:
		return true
	case HeadDecoder:
		return m.unnormalized() && !m.cfg.RawTarget
	}
	return false
}

func (m *Model) raw() bool { return m.cfg.Head == HeadDecoder && m.unnormalized() && m.cfg.RawTarget }

// yRange is y_max - y_min (> 0 for a fitted model).
func (m *Model) yRange() float64 { return m.yMax - m.yMin }

// affine maps head units t to y.
func (m *Model) affine() dist.Affine {
	r := m.yRange()
	switch {
	case m.raw():
		return dist.Affine{Offset: 0, Scale: 1}
	case m.shifted():
		return dist.Affine{Offset: m.yMin + 0.5*r, Scale: r}
	default:
		return dist.Affine{Offset: m.yMin, Scale: r}
	}
}

// toU maps y to u = (y - y_min)/(y_max - y_min).
func (m *Model) toU(y float64) float64 { return (y - m.yMin) / m.yRange() }

// uToHead maps u in [0,1] to head units t.
func (m *Model) uToHead(u float64) float64 {
	switch {
	case m.raw():
		return m.yMin + u*m.yRange()
	case m.shifted():
		return u - 0.5
	}
	return u
}

// logTPerU is log(dt/du): NLL_u = NLL_t - logTPerU.
func (m *Model) logTPerU() float64 {
	if m.raw() {
		return math.Log(m.yRange())
	}
	return 0
}

// standardize writes the standardised float32 features of rows x (n x d,
// row-major) into dst.
func (m *Model) standardize(dst []float32, x []float64, n int) {
	d := len(m.xMean)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			dst[i*d+j] = float32((x[i*d+j] - m.xMean[j]) / m.xStd[j])
		}
	}
}

func since(t time.Time) float64 { return time.Since(t).Seconds() }
