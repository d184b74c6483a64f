package data

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Sentinel errors wrapped by *ParseError (and, for ErrRowCount and
// ErrSplitRange, by the errors of CheckRows and Mask.Test). Test for them
// with errors.Is.
var (
	ErrEmpty           = errors.New("empty file")
	ErrNoRows          = errors.New("no data rows (header only)")
	ErrFieldCount      = errors.New("wrong number of fields")
	ErrNotNumber       = errors.New("not a number")
	ErrEmptyCell       = errors.New("empty cell") // wrapped with ErrNotNumber
	ErrNonFinite       = errors.New("not a finite number")
	ErrDuplicateColumn = errors.New("duplicate column name")
	ErrHeaderRow       = errors.New("a data row repeats the header")
	ErrCRLineEnds      = errors.New("lines end with a carriage return alone (CR)")
	ErrUTF16           = errors.New("the file is UTF-16 text (it starts with a UTF-16 byte order mark)")
	ErrUTF32           = errors.New("the file is UTF-32 text (it starts with a UTF-32 byte order mark)")
	ErrBinary          = errors.New("not a CSV table")
	ErrNoColumn        = errors.New("no such column")
	ErrNoFeatures      = errors.New("no feature columns")
	ErrMaskHeader      = errors.New("bad mask header")
	ErrMaskValue       = errors.New("mask value is not 0 or 1")
	ErrRowCount        = errors.New("row counts differ")
	ErrSplitRange      = errors.New("split index out of range")
	ErrLongLine        = errors.New("line too long")
	ErrTooLarge        = errors.New("the table is too large for the memory left")
)

// NotNumberError is ParseNumber's error for a cell that is not empty and
// not a number: Text is the cell. It wraps ErrNotNumber.
type NotNumberError struct {
	Text string // the cell as given to ParseNumber, spaces not trimmed
}

// Error returns "not a number: " and the cell, quoted.
func (e *NotNumberError) Error() string { return "not a number: " + QuoteCell(e.Text) }

// Unwrap returns ErrNotNumber.
func (e *NotNumberError) Unwrap() error { return ErrNotNumber }

// ParseError is an error in the contents of a file. Line is the file's
// own, counted from 1 (the header is line 1 unless blank lines precede
// it), and is 0 when the error concerns the whole file; Column
// is the field number counted from 1, and 0 when the error concerns a whole
// line or file.
type ParseError struct {
	Path   string // the file, as given to the reader
	Line   int    // line number, from 1; 0 for the whole file
	Column int    // field number, from 1; 0 for the whole line
	Err    error  // wraps one of the sentinel errors
}

// Error reads "PATH: line L, column C: ERR", leaving out the column or the
// line where they are 0.
func (e *ParseError) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %v", e.Path, e.Err)
	case e.Column == 0:
		return fmt.Sprintf("%s: line %d: %v", e.Path, e.Line, e.Err)
	default:
		return fmt.Sprintf("%s: line %d, column %d: %v", e.Path, e.Line, e.Column, e.Err)
	}
}

// Unwrap returns e.Err.
func (e *ParseError) Unwrap() error { return e.Err }

// quoteMax is the longest cell QuoteCell quotes whole, in bytes.
const quoteMax = 80

// QuoteCell quotes a cell's text for a message, as strconv.Quote, cut
// after about 60 bytes (at a character's start where the text is UTF-8)
// with its length when it is longer than quoteMax: a 1 MB cell made a
// 1 MB error line.
func QuoteCell(s string) string { return quoteCut(s, quoteMax, 60) }

// nameMax is the longest name QuoteName quotes whole, in bytes.
const nameMax = 160

// QuoteName quotes a column's name for a message, as strconv.Quote, whole
// up to nameMax bytes (long names, as a survey's questions are, often
// share their first 60 bytes, and a "did you mean" must show where they
// differ), and beyond it cut after about 140 bytes with its length, as
// QuoteCell cuts a cell: a column named by a 1 MB header cell made
// megabytes of messages.
func QuoteName(s string) string { return quoteCut(s, nameMax, 140) }

// quoteCut is strconv.Quote(s) for s of at most max bytes, else s cut after
// about at bytes (at a character's start where it is UTF-8), with its length.
func quoteCut(s string, max, at int) string {
	if len(s) <= max {
		return strconv.Quote(s)
	}
	cut := at
	for cut > at-4 && !utf8.RuneStart(s[cut]) { // a character is at most 4 bytes; bytes that are no text are cut anywhere
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(s[:cut]), len(s))
}
