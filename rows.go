package decoreg

import (
	"fmt"

	"decoreg/data"
)

// RowSource gives a model's input rows a range at a time, so that a table
// need not be held whole as float64 features: a categorical column's
// one-hot levels take a float64 each a row, and 100,000 rows of a column
// of 2,000 levels are 1.6 GB encoded, where the rows as read hold a string
// each. A *data.Encoder is one (a frame's rows through the model's schema:
// Model.Encoder); PredictRows, EvaluateRows and CalibrationRows fill a few
// thousand rows at a time, and may fill a row more than once.
type RowSource interface {
	// Rows is the number of rows.
	Rows() int
	// Cols is the number of features a row: the model's Features.
	Cols() int
	// Fill writes rows [lo, hi) into x, (hi-lo) × Cols values, row-major.
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

// sourceRows reads a RowSource into a buffer it reuses.
type sourceRows struct {
	src RowSource
	d   int
	buf []float64
}

func (r *sourceRows) count() int              { return r.src.Rows() }
func (r *sourceRows) flat() ([]float64, bool) { return nil, false }

func (r *sourceRows) at(lo, hi int) ([]float64, error) {
	n := (hi - lo) * r.d
	if cap(r.buf) < n {
		r.buf = make([]float64, n)
	}
	r.buf = r.buf[:n]
	if err := r.src.Fill(lo, hi, r.buf); err != nil {
		return nil, fmt.Errorf("decoreg: rows %d to %d of the row source: %w", lo, hi-1, err)
	}
	return r.buf, nil
}

// reader returns the rowReader of flat rows x (rows × Features), or an
// error wrapping ErrBadInput where their shape is not that.
func (m *Model) flatReader(x []float64, rows int) (rowReader, error) {
	d := m.Features()
	if !shapeOK(len(x), rows, d) {
		return nil, fmt.Errorf("%w: %d values for %d rows of %d features", ErrBadInput, len(x), rows, d)
	}
	return flatRows{x, rows, d}, nil
}

// sourceReader returns the rowReader of src, or an error wrapping
// ErrBadInput where its rows are not the model's features.
func (m *Model) sourceReader(src RowSource) (rowReader, error) {
	if src == nil {
		return nil, fmt.Errorf("%w: no row source (nil)", ErrBadInput)
	}
	if d := m.Features(); src.Cols() != d || src.Rows() < 0 {
		return nil, fmt.Errorf("%w: a row source of %d rows of %d features, the model takes %d", ErrBadInput, src.Rows(), src.Cols(), d)
	}
	return &sourceRows{src: src, d: m.Features()}, nil
}

// checkFiniteRows is checkFinite over the rows of r, a chunk at a time.
func checkFiniteRows(r rowReader, d int) error {
	if x, ok := r.flat(); ok {
		return checkFinite(x, d)
	}
	const chunk = 4096
	for lo := 0; lo < r.count(); lo += chunk {
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
