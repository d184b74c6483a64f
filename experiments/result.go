package experiments

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"decoreg"
	"decoreg/internal/outfile"
)

// Float is a float64 that survives JSON: NaN encodes as null and the
// infinities as the strings "+Inf" and "-Inf"; decoding reverses that.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte("null"), nil
	case math.IsInf(v, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (f *Float) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "null":
		*f = Float(math.NaN())
		return nil
	case `"+Inf"`:
		*f = Float(math.Inf(1))
		return nil
	case `"-Inf"`:
		*f = Float(math.Inf(-1))
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("not a number: %s", b)
	}
	*f = Float(v)
	return nil
}

// RunConfig is a decoreg.Config without its callback, as recorded in result
// files.
type RunConfig = decoreg.SavedConfig

// NewRunConfig copies c's settings.
func NewRunConfig(c decoreg.Config) RunConfig { return c.Saved() }

// Eval is decoreg.Eval with JSON-safe numbers (the NLL of the pointwise
// head is NaN, written as null).
type Eval struct {
	N          int    `json:"n"`
	NLL        Float  `json:"nll"`       // per unit of the original y
	NLLU       Float  `json:"nll_u"`     // per unit of u = (y - y_min)/(y_max - y_min), train range
	NLLToken   Float  `json:"nll_token"` // cross-entropy per token, nats (decoders, Riemann); null if absent
	MSE        Float  `json:"mse"`
	RelMSE     Float  `json:"rel_mse"`
	KendallTau Float  `json:"kendall_tau"`
	Clipped    int    `json:"clipped"` // test targets outside the train range
	Point      string `json:"point"`   // point estimate of MSE and tau
}

func newEval(e *decoreg.Eval) *Eval {
	return &Eval{N: e.N, NLL: Float(e.NLL), NLLU: Float(e.NLLU), NLLToken: Float(e.NLLToken), MSE: Float(e.MSE),
		RelMSE: Float(e.RelMSE), KendallTau: Float(e.KendallTau), Clipped: e.Clipped, Point: e.Point}
}

// Train is decoreg.TrainInfo with JSON-safe numbers.
type Train struct {
	Rows        int     `json:"rows"`
	ValRows     int     `json:"val_rows"`
	Features    int     `json:"features"`
	Params      int     `json:"params"`
	Epochs      int     `json:"epochs"`
	BestEpoch   int     `json:"best_epoch"`
	BestValLoss Float   `json:"best_val_loss"`
	Stopped     string  `json:"stopped"`
	Seconds     float64 `json:"seconds"`
	Kernel      string  `json:"kernel"`
	Threads     int     `json:"threads"`
	Version     string  `json:"version"`
}

func newTrain(t decoreg.TrainInfo) *Train {
	return &Train{t.Rows, t.ValRows, t.Features, t.Params, t.Epochs, t.BestEpoch, Float(t.BestValLoss),
		t.Stopped, t.Seconds, t.Kernel, t.Threads, t.Version}
}

// SweepTrial is one candidate of a sweep.
type SweepTrial struct {
	Label   string    `json:"label"`
	Config  RunConfig `json:"config"`
	ValLoss Float     `json:"val_loss"` // best validation loss (NLL in u units; MSE for pointwise)
	Epochs  int       `json:"epochs"`
	Seconds float64   `json:"seconds"`
	Error   string    `json:"error,omitempty"`
}

// Sweep records a hyper-parameter selection.
type Sweep struct {
	Trials []SweepTrial `json:"trials"`
	Chosen int          `json:"chosen"` // index into Trials
}

// Result is one (dataset, head, split) run of the UCI benchmark.
type Result struct {
	Dataset    string    `json:"dataset"`
	Head       string    `json:"head"`
	Split      int       `json:"split"`
	Config     RunConfig `json:"config"` // the configuration trained (the chosen one after a sweep)
	Eval       *Eval     `json:"eval,omitempty"`
	Train      *Train    `json:"train,omitempty"`
	Sweep      *Sweep    `json:"sweep,omitempty"`
	Error      string    `json:"error,omitempty"` // why the run produced no model (e.g. it diverged)
	TrainRows  int       `json:"train_rows"`
	TestRows   int       `json:"test_rows"`
	Seconds    float64   `json:"seconds"` // wall time of the run: training (every sweep candidate) and evaluation
	Started    string    `json:"started"` // RFC 3339
	Finished   string    `json:"finished"`
	Commit     string    `json:"commit,omitempty"` // the commit the binary was built from (GitCommit)
	Kernel     string    `json:"kernel,omitempty"`
	GoMaxProcs int       `json:"gomaxprocs"`
	GoVersion  string    `json:"go_version"`
	Host       string    `json:"host,omitempty"`
}

// ResultPath returns the file of a run's result under dir:
// dir/<dataset>/<head>/split<k>.json.
func ResultPath(dir, dataset, head string, split int) string {
	return filepath.Join(dir, dataset, head, fmt.Sprintf("split%d.json", split))
}

// WriteResult writes r to path atomically, creating its directories.
func WriteResult(path string, r *Result) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	b = append(b, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return outfile.WriteFile(context.Background(), path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// ReadResult reads a result file. A file that is not a result gives an
// error naming it.
func ReadResult(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Result
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: not a result file: %v", path, err)
	}
	// nll_token, absent from results written before it was measured,
	// reads as NaN, not 0.
	var has struct {
		Eval *struct {
			NLLToken *Float `json:"nll_token"`
		} `json:"eval"`
	}
	if err := json.Unmarshal(b, &has); err == nil && r.Eval != nil && has.Eval != nil && has.Eval.NLLToken == nil {
		r.Eval.NLLToken = Float(math.NaN())
	}
	if r.Dataset == "" || r.Head == "" {
		return nil, fmt.Errorf("%s: not a result file: no dataset or head", path)
	}
	return &r, nil
}
