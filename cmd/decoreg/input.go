package main

import (
	"context"

	"decoreg"
	"decoreg/data"
)

// input is a data file's rows as a model reads them. For a model with a
// schema (trained by 'decoreg train') the Dataset's X is nil and the
// rows are encoded a chunk at a time by en: a categorical column takes a
// float64 per level a row encoded, so that 100,000 rows of a column of
// 2,000 levels held whole took 2.4 GB in predict. Names and Cols are then
// the encoded features'.
type input struct {
	*data.Dataset
	en *data.Encoder // the model's columns as read, through its schema; nil without one
}

// rows returns the rows idx of in (in itself when idx is every row in
// order).
func (in *input) rows(idx []int) (*input, error) {
	if len(idx) == in.Rows {
		return in, nil
	}
	if in.en == nil {
		return &input{Dataset: data.Subset(in.Dataset, idx)}, nil
	}
	d := *in.Dataset
	d.Rows = len(idx)
	d.Lines, d.Y = pickRows(in.Lines, idx), pickRows(in.Y, idx)
	en, err := in.en.Subset(idx)
	if err != nil {
		return nil, err
	}
	return &input{Dataset: &d, en: en}, nil
}

// pickRows returns the elements idx of s (nil for a nil s).
func pickRows[T any](s []T, idx []int) []T {
	if s == nil {
		return nil
	}
	out := make([]T, len(idx))
	for k, i := range idx {
		out[k] = s[i]
	}
	return out
}

// at returns the features of rows [lo, hi), row-major: a slice of X, or
// encoded into a new slice.
func (in *input) at(lo, hi int) ([]float64, error) {
	if in.en == nil {
		return in.X[lo*in.Cols : hi*in.Cols], nil
	}
	x := make([]float64, (hi-lo)*in.Cols)
	return x, in.en.Fill(lo, hi, x)
}

// predict is m.PredictFlat, or PredictRows, of in's rows.
func (in *input) predict(ctx context.Context, m *decoreg.Model, opts decoreg.PredictOptions) (*decoreg.Prediction, error) {
	if in.en != nil {
		return m.PredictRows(ctx, in.en, opts)
	}
	return m.PredictFlat(ctx, in.X, in.Rows, opts)
}

// evaluate is m.Evaluate, or EvaluateRows, of in's rows and targets.
func (in *input) evaluate(ctx context.Context, m *decoreg.Model, point string) (*decoreg.Eval, error) {
	if in.en != nil {
		return m.EvaluateRows(ctx, in.en, in.Y, point)
	}
	return m.Evaluate(ctx, in.X, in.Rows, in.Y, point)
}

// calibration is m.Calibration, or CalibrationRows, of in's rows and
// targets.
func (in *input) calibration(ctx context.Context, m *decoreg.Model) (*decoreg.Calibration, error) {
	if in.en != nil {
		return m.CalibrationRows(ctx, in.en, in.Y)
	}
	return m.Calibration(ctx, in.X, in.Rows, in.Y)
}
