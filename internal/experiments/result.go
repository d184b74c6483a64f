package experiments

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"decoreg"
	"decoreg/internal/jsonfloat"
	"decoreg/internal/outfile"
)

// Float is a float64 that survives JSON: NaN encodes as null and the
// infinities as the strings "+Inf" and "-Inf"; decoding reverses that.
type Float = jsonfloat.Float

// SweepTrial is one candidate of a sweep.
type SweepTrial struct {
	Label   string         `json:"label"`
	Config  decoreg.Config `json:"config"`
	ValLoss Float          `json:"val_loss"` // best validation loss (NLL in u units; MSE for pointwise)
	Epochs  int            `json:"epochs"`
	Seconds float64        `json:"seconds"`
	Error   string         `json:"error,omitempty"`
}

// Sweep records a hyper-parameter selection.
type Sweep struct {
	Trials []SweepTrial `json:"trials"`
	Chosen int          `json:"chosen"` // index into Trials
}

// Result is one (dataset, head, split) run of the UCI benchmark.
type Result struct {
	Dataset    string             `json:"dataset"`
	Head       string             `json:"head"`
	Split      int                `json:"split"`
	Config     decoreg.Config     `json:"config"` // the configuration trained (the chosen one after a sweep)
	Eval       *decoreg.Eval      `json:"eval,omitempty"`
	Train      *decoreg.TrainInfo `json:"train,omitempty"`
	Sweep      *Sweep             `json:"sweep,omitempty"`
	Error      string             `json:"error,omitempty"` // why the run produced no model (e.g. it diverged)
	TrainRows  int                `json:"train_rows"`
	TestRows   int                `json:"test_rows"`
	Seconds    float64            `json:"seconds"` // wall time of the run: training (every sweep candidate) and evaluation
	Started    string             `json:"started"` // RFC 3339
	Finished   string             `json:"finished"`
	Commit     string             `json:"commit,omitempty"` // the commit the binary was built from (GitCommit)
	Kernel     string             `json:"kernel,omitempty"`
	GoMaxProcs int                `json:"gomaxprocs"`
	GoVersion  string             `json:"go_version"`
	Host       string             `json:"host,omitempty"`
	// Data is the fingerprint of the dataset's files (DataFingerprint);
	// absent in results written before it was recorded.
	Data string `json:"data,omitempty"`
}

// ResultPath returns the file of a run's result under dir:
// dir/<dataset>/<head>/split<k>.json.
func ResultPath(dir, dataset, head string, split int) string {
	return filepath.Join(dir, dataset, head, fmt.Sprintf("split%d.json", split))
}

// WriteResult writes r to path atomically, creating its directories.
func WriteResult(path string, r *Result) error {
	return writeResult(context.Background(), path, r)
}

// writeResult is WriteResult under ctx, whose values count (an
// outfile.Tracker removes the temporary file if the process must exit at
// once) but not its cancellation: a finished run's result is kept.
func writeResult(ctx context.Context, path string, r *Result) error {
	return putResult(ctx, path, r, outfile.WriteFile)
}

// writeNewResult is writeResult for a result that must not exist yet: an
// error wrapping fs.ErrExist where it does, also where another process
// wrote it meanwhile (outfile.WriteFileNew), and the file is kept.
func writeNewResult(ctx context.Context, path string, r *Result) error {
	return putResult(ctx, path, r, outfile.WriteFileNew)
}

// putResult writes r's JSON to path by write (an outfile writer), creating
// its directories.
func putResult(ctx context.Context, path string, r *Result, write func(context.Context, string, func(io.Writer) error) error) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	b = append(b, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return write(context.WithoutCancel(ctx), path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// ReadResult reads a result file. A file that is not a result, or not a
// regular file (a FIFO blocked the read for ever), gives an error naming
// it.
func ReadResult(path string) (*Result, error) {
	if fi, err := os.Stat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a result file: not a regular file", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Result
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: not a result file: %v", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: not a result file: something follows its JSON object", path)
	}
	// nll_token, absent from results written before it was measured,
	// reads as NaN, not 0 (as every absent number of an Eval).
	if r.Dataset == "" || r.Head == "" {
		return nil, fmt.Errorf("%s: not a result file: no dataset or head", path)
	}
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("%s: malformed result: %v", path, err)
	}
	return &r, nil
}

// maxRunSeconds bounds a run's recorded time (about three years): a
// larger one is no run's, and made the report's total +Inf.
const maxRunSeconds = 1e8

// check refuses values no run writes: a result with neither an evaluation
// nor an error, negative counts or times, and metrics outside their range
// (Kendall's tau outside [-1, 1], a negative MSE or cross-entropy, more
// clipped targets than test rows). NaN stands for a value not measured.
func (r *Result) check() error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	switch {
	case r.Split < 0:
		return fmt.Errorf("split %d is negative", r.Split)
	case r.Error == "" && r.Eval == nil:
		return errors.New("it has neither an eval nor an error")
	case bad(r.Seconds) || r.Seconds < 0 || r.Seconds > maxRunSeconds:
		return fmt.Errorf("seconds %v is not a run's time (in [0, %g])", r.Seconds, maxRunSeconds)
	case r.TrainRows < 0 || r.TestRows < 0:
		return fmt.Errorf("train_rows %d and test_rows %d must be >= 0", r.TrainRows, r.TestRows)
	case r.Train != nil && (bad(r.Train.Seconds) || r.Train.Seconds < 0 || r.Train.Seconds > maxRunSeconds):
		return fmt.Errorf("train: seconds %v is not a run's time (in [0, %g])", r.Train.Seconds, maxRunSeconds)
	}
	// (A finish before the start is not refused: the wall clock may be
	// set back during a run.)
	for _, t := range []struct{ name, v string }{{"started", r.Started}, {"finished", r.Finished}} {
		if _, err := time.Parse(time.RFC3339, t.v); t.v != "" && err != nil {
			return fmt.Errorf("%s %q is not an RFC 3339 time", t.name, t.v)
		}
	}
	e := r.Eval
	if e == nil {
		return nil
	}
	switch {
	case e.N < 1:
		return fmt.Errorf("eval: n %d: an evaluation scores at least one row", e.N)
	case r.Head != Pointwise && math.IsNaN(e.NLL):
		return fmt.Errorf("eval: nll is null, but the %s head has a density", r.Head)
	case e.KendallTau < -1 || e.KendallTau > 1:
		return fmt.Errorf("eval: kendall_tau %v is outside [-1, 1]", e.KendallTau)
	case e.MSE < 0, e.RelMSE < 0:
		return fmt.Errorf("eval: mse %v and rel_mse %v must be >= 0", e.MSE, e.RelMSE)
	case e.NLLToken < 0:
		return fmt.Errorf("eval: nll_token %v is negative (a cross-entropy)", e.NLLToken)
	case e.Clipped < 0 || e.Clipped > e.N:
		return fmt.Errorf("eval: clipped %d is not in [0, n = %d]", e.Clipped, e.N)
	}
	return nil
}

// logNum formats v by verb for the progress lines, or "n/a" where it is
// NaN (a score that is undefined: tau on tied or too few test targets).
func logNum(verb string, v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf(verb, v)
}
