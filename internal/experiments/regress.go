package experiments

import (
	"context"
	"math"

	"decoreg"
)

// RegressLine holds what every supervised synthetic run records: the head,
// its configuration, the test metrics and the training record.
type RegressLine struct {
	Meta
	Head       string         `json:"head"`
	Seed       int            `json:"seed"`
	N          int            `json:"n"` // training points
	Config     decoreg.Config `json:"config"`
	Point      string         `json:"point,omitempty"` // the point estimate of tau and MSE
	KendallTau Float          `json:"kendall_tau"`
	RelMSE     Float          `json:"rel_mse"`
	NLL        Float          `json:"nll"` // per unit of y; null for pointwise
	Epochs     int            `json:"epochs"`
	Stopped    string         `json:"stopped,omitempty"`
	TrainSecs  float64        `json:"train_seconds"`
	Error      string         `json:"error,omitempty"` // why the run has no model (it diverged)
}

// Failed reports whether the run failed on its data.
func (l *RegressLine) Failed() bool { return l.Error != "" }

// fitEval trains cfg on (xtr, ytr) and evaluates on (xte, yte), filling l.
// A run that fails on its data (diverges) is recorded in l.Error and
// returns a nil model and no error.
func fitEval(ctx context.Context, l *RegressLine, cfg decoreg.Config, xtr []float64, cols int, ytr, xte, yte []float64) (*decoreg.Model, error) {
	l.Config = cfg
	m, err := decoreg.FitFlat(ctx, xtr, len(ytr), cols, ytr, cfg)
	if err != nil {
		if ctx.Err() == nil && dataFailure(err) {
			l.Error = err.Error()
			l.KendallTau, l.RelMSE, l.NLL = Float(math.NaN()), Float(math.NaN()), Float(math.NaN())
			return nil, nil
		}
		return nil, err
	}
	ev, err := m.Evaluate(ctx, xte, len(yte), yte, "")
	if err != nil {
		return nil, err
	}
	info := m.Info()
	l.Point, l.KendallTau, l.RelMSE, l.NLL = ev.Point, Float(ev.KendallTau), Float(ev.RelMSE), Float(ev.NLL)
	l.Epochs, l.Stopped, l.TrainSecs = info.Epochs, info.Stopped, info.Seconds
	return m, nil
}
