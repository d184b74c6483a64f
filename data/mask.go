package data

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Mask is a set of test splits read from a mask file: for each split and
// row, whether the row is a test row of that split.
type Mask struct {
	Path   string // the file it was read from
	rows   int
	splits int
	test   []bool // (rows, splits) row-major
}

// ReadMask reads a mask file (gzipped or not): the header
// split0,...,split{k-1} and one row of k values 0 or 1 per data row.
// Errors in the file's contents are *ParseError values wrapping ErrEmpty,
// ErrNoRows, ErrFieldCount, ErrMaskHeader or ErrMaskValue.
func ReadMask(path string) (*Mask, error) {
	t, err := openTable(path, Dialect{})
	if err != nil {
		return nil, err
	}
	defer t.close()
	for j, name := range t.header {
		if want := "split" + strconv.Itoa(j); name != want {
			return nil, &ParseError{Path: path, Line: t.hline, Column: j + 1,
				Err: fmt.Errorf("%w: column %d is %q, want %q", ErrMaskHeader, j+1, name, want)}
		}
	}
	m := &Mask{Path: path, splits: len(t.header)}
	for {
		rec, err := t.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(rec) != m.splits {
			return nil, &ParseError{Path: path, Line: t.line(0),
				Err: fmt.Errorf("%w: %d fields, the header has %d", ErrFieldCount, len(rec), m.splits)}
		}
		for j, cell := range rec {
			switch strings.TrimSpace(cell) {
			case "0":
				m.test = append(m.test, false)
			case "1":
				m.test = append(m.test, true)
			default:
				return nil, &ParseError{Path: path, Line: t.line(j), Column: j + 1,
					Err: fmt.Errorf("%w: %q", ErrMaskValue, cell)}
			}
		}
		m.rows++
	}
	if m.rows == 0 {
		return nil, &ParseError{Path: path, Err: ErrNoRows}
	}
	return m, nil
}

// NewMask returns a mask of rows rows and splits splits from test, which is
// (rows, splits) row-major and is copied. It panics unless rows and
// splits are at least 1 and len(test) is their product.
func NewMask(rows, splits int, test []bool) *Mask {
	if rows < 1 || splits < 1 || len(test)%splits != 0 || len(test)/splits != rows {
		panic("data: NewMask: bad sizes")
	}
	return &Mask{rows: rows, splits: splits, test: append([]bool(nil), test...)}
}

// Rows returns the number of data rows the mask covers (0 for a nil mask).
func (m *Mask) Rows() int {
	if m == nil {
		return 0
	}
	return m.rows
}

// Splits returns the number of splits (0 for a nil mask).
func (m *Mask) Splits() int {
	if m == nil {
		return 0
	}
	return m.splits
}

// Test returns, for each row, whether it is a test row of the given split
// (a new slice). A split outside [0, Splits()-1] is an error wrapping
// ErrSplitRange that names the range and the file.
func (m *Mask) Test(split int) ([]bool, error) {
	if m == nil {
		return nil, fmt.Errorf("mask: %w: split %d of no mask (nil)", ErrSplitRange, split)
	}
	if split < 0 || split >= m.splits {
		return nil, fmt.Errorf("%s: %w: split %d, want 0 to %d", m.name(), ErrSplitRange, split, m.splits-1)
	}
	out := make([]bool, m.rows)
	for i := range out {
		out[i] = m.test[i*m.splits+split]
	}
	return out, nil
}

func (m *Mask) name() string {
	if m.Path == "" {
		return "mask"
	}
	return m.Path
}

// CheckRows returns an error wrapping ErrRowCount, naming both files and
// both counts, when m and d do not have the same number of rows; a nil
// mask or data set is an error too.
func CheckRows(m *Mask, d *Dataset) error {
	if m == nil || d == nil {
		return errors.New("data: CheckRows: a nil mask or data set")
	}
	if m.rows == d.Rows {
		return nil
	}
	dn := d.Path
	if dn == "" {
		dn = "data"
	}
	return fmt.Errorf("%w: mask %s has %d rows but data %s has %d", ErrRowCount, m.name(), m.rows, dn, d.Rows)
}
