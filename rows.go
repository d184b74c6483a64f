package decoreg

import (
	"context"
	"fmt"

	"decoreg/data"
)

// RowSource gives a model's input rows a range at a time, so that a table
// need not be held whole as float64 features: a categorical column's
// one-hot levels take a float64 each a row, and 100,000 rows of a column
// of 2,000 levels are 1.6 GB encoded, where the rows as read hold a string
// each. A *data.Encoder is one (a frame's rows through the model's schema:
// Model.Encoder); PredictRows, EvaluateRows and CalibrationRows fill a few
// thousand rows at a time (with OutDist too: only the distributions of
// every row are held), and may fill a row more than once. Rows and Cols
// are asked once a call.
type RowSource interface {
	// Rows is the number of rows.
	Rows() int
	// Cols is the number of features a row: the model's Features.
	Cols() int
	// Fill writes rows [lo, hi) into x, (hi-lo) × Cols values, row-major
	// (x is zeroed first: a value not written is 0).
	Fill(lo, hi int, x []float64) error
}

// rowReader is what the chunked passes read rows from: rows held whole
// (flatRows, whose ranges are slices of them) or a RowSource (filled into
// a buffer).
type rowReader interface {
	count() int
	// at returns rows [lo, hi), row-major; valid until the next call.
	at(lo, hi int) ([]float64, error)
	// flat is every row, when they are held whole (ok false otherwise).
	flat() (x []float64, ok bool)
}

// flatRows are rows held whole, row-major, d features a row.
type flatRows struct {
	x    []float64
	n, d int
}

func (r flatRows) count() int                       { return r.n }
func (r flatRows) at(lo, hi int) ([]float64, error) { return r.x[lo*r.d : hi*r.d], nil }
func (r flatRows) flat() ([]float64, bool)          { return r.x, true }

// sourceRows reads a RowSource of n rows of d features into a buffer it
// reuses.
type sourceRows struct {
	src  RowSource
	n, d int
	buf  []float64
}

func (r *sourceRows) count() int              { return r.n }
func (r *sourceRows) flat() ([]float64, bool) { return nil, false }

func (r *sourceRows) at(lo, hi int) ([]float64, error) {
	n := (hi - lo) * r.d
	if cap(r.buf) < n {
		r.buf = make([]float64, n)
	}
	r.buf = r.buf[:n]
	clear(r.buf) // a Fill that skips a value leaves 0, not the last chunk's
	if err := r.src.Fill(lo, hi, r.buf); err != nil {
		return nil, fmt.Errorf("decoreg: rows %d to %d of the row source: %w", lo, hi-1, err)
	}
	return r.buf, nil
}

// sourceReader returns the rowReader of src, or an error wrapping
// ErrBadInput where its rows are not the model's features. Its Rows and
// Cols are asked once.
func (m *Model) sourceReader(src RowSource) (rowReader, error) {
	if src == nil {
		return nil, fmt.Errorf("%w: no row source (nil)", ErrBadInput)
	}
	n, c := src.Rows(), src.Cols()
	if d := m.Features(); c != d || n < 0 {
		return nil, fmt.Errorf("%w: a row source of %d rows of %d features, the model takes %d", ErrBadInput, n, c, d)
	}
	return &sourceRows{src: src, n: n, d: c}, nil
}

// checkFiniteRows is checkFinite over the rows of r, a chunk at a time,
// stopping between chunks once ctx is done.
func checkFiniteRows(ctx context.Context, r rowReader, d int) error {
	if x, ok := r.flat(); ok {
		return checkFinite(x, d)
	}
	const chunk = 4096
	for lo := 0; lo < r.count(); lo += chunk {
		if err := stopped(ctx); err != nil {
			return err
		}
		hi := min(lo+chunk, r.count())
		x, err := r.at(lo, hi)
		if err != nil {
			return err
		}
		if err := checkFinite(x, d); err != nil {
			return shiftRow(err, lo)
		}
	}
	return nil
}

// Encoder returns a RowSource of the rows of f encoded by the model's
// schema, for PredictRows, EvaluateRows and CalibrationRows; its Warnings
// are those EncodeFrame gives. A model without a schema (Fit, FitFlat)
// has no encoder: use EncodeFrame, whose table is no wider than f.
func (m *Model) Encoder(f *data.Frame) (*data.Encoder, error) {
	if m == nil || m.net == nil {
		return nil, ErrNotFitted
	}
	if m.schema == nil {
		return nil, fmt.Errorf("%w: the model has no schema (it was fitted by Fit or FitFlat): use EncodeFrame", ErrBadInput)
	}
	if err := f.Check(); err != nil {
		return nil, badFrame(fmt.Errorf("decoreg: %w", err))
	}
	en, err := m.schema.Encoder(f)
	if err != nil {
		return nil, badFrame(wrapIn("", "", err))
	}
	return en, nil
}
