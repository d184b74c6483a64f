package decoreg

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"decoreg/internal/train"
)

// Errors returned for data a model cannot train on or answer for. Errors
// about particular rows or columns are *DataError values wrapping one of
// them; test with errors.Is.
var (
	// ErrConstantTarget: every training target has the same value, so the
	// min-max scaling of y is undefined.
	ErrConstantTarget = errors.New("decoreg: the training target is constant")
	// ErrTooFewRows: too few rows to hold out a validation split (at least
	// 2 rows are needed unless Config.ValFrac < 0) or no rows at all.
	ErrTooFewRows = errors.New("decoreg: too few training rows")
	// ErrDiverged: the training loss became NaN or Inf.
	ErrDiverged = train.ErrDiverged
	// ErrBadInput: features or targets are malformed (wrong lengths, NaN
	// or Inf) or out of the range the model's arithmetic can represent.
	ErrBadInput = errors.New("decoreg: bad input")
	// ErrCalibrationCancelled: training (or tuning) ended and its context
	// was cancelled during Config.Calibrate's fit. Fit, Tune and their
	// variants then return the trained model, not calibrated, with an
	// error wrapping both this and the context's error.
	ErrCalibrationCancelled = errors.New("decoreg: calibration cancelled; the model is not calibrated")
	// ErrPretrainCancelled: the context was cancelled during
	// Config.Pretrain's first stage (the encoder's training under the
	// pointwise head), of which no model is kept: Fit and FitFlat return
	// no model (or the ensemble's members trained before it) with an error
	// wrapping both this and the context's error.
	ErrPretrainCancelled = errors.New("decoreg: cancelled while pretraining the encoder (its first stage gives no model)")
	// ErrTooLarge: training (or tuning) would need more memory than a
	// hard limit leaves this process (on Linux: ulimit -v, a cgroup's
	// memory limit, the machine's available memory and swap): refused
	// before allocating, where the allocation would end the process.
	ErrTooLarge = errors.New("decoreg: too large for the memory this process may use")

	// ErrModelFault is wrapped, beside ErrBadInput, by the error of a row
	// whose prediction overflows though the row is like the training data:
	// the model (its weights, or a target range near float64's limits),
	// not the row, is at fault. A server answers it as its own error.
	ErrModelFault = errors.New("decoreg: the model, not the input, is at fault")

	// ErrBudgetTooShort: Tune's budget ended before any trial finished an
	// epoch.
	ErrBudgetTooShort = errors.New("decoreg: no trial finished an epoch within the budget")
)

// errBeyondTokenization is ErrBadInput for a training target beyond the
// range of a raw-target tokenization: a setting that Tune's drawn trials
// may make, refused for them as a ConfigError is.
var errBeyondTokenization = fmt.Errorf("%w: a target beyond the tokenization's range", ErrBadInput)

// DataError is an error about the data: Row and Column are the 0-based
// row and feature column at fault, -1 when the error is not about one row
// or one feature column (errors about the target have Column -1 and say
// "target"). Err says what is wrong and wraps ErrBadInput or
// ErrConstantTarget (a row whose prediction overflows through no fault of
// its own: ErrBadInput and ErrModelFault), so errors.Is(err, ErrBadInput)
// holds for a DataError about bad input. Too few rows to train on is not a
// DataError: that error wraps ErrTooFewRows alone. Callers can map Row and
// Column to their own names (a file line, a column header) and print Err.
type DataError struct {
	Row, Column int   // 0-based; -1 when not about one row or one feature column
	Err         error // what is wrong
}

// Error returns "decoreg: row R, column C: ..." (without the parts that
// are -1).
func (e *DataError) Error() string {
	s := "decoreg: "
	if e.Row >= 0 {
		s += "row " + strconv.Itoa(e.Row)
		if e.Column >= 0 {
			s += ", "
		}
	}
	if e.Column >= 0 {
		s += "column " + strconv.Itoa(e.Column)
	}
	if e.Row >= 0 || e.Column >= 0 {
		s += ": "
	}
	return s + fmt.Sprint(e.Err) // "<nil>" for no Err
}

// Unwrap returns Err.
func (e *DataError) Unwrap() error { return e.Err }

// reason is a DataError's Err: a message that wraps a sentinel without
// repeating its text.
type reason struct {
	kind error
	msg  string
}

func (r *reason) Error() string { return r.msg }
func (r *reason) Unwrap() error { return r.kind }

// dataErr returns a *DataError about row and column whose Err wraps kind.
func dataErr(row, column int, kind error, format string, args ...any) *DataError {
	return &DataError{Row: row, Column: column, Err: &reason{kind: kind, msg: fmt.Sprintf(format, args...)}}
}

// inContext is an error of the library's that says where errs happened:
// its message is "decoreg: " and the context, the first error's message
// without its own "decoreg: " ("decoreg: ensemble member 2 of 5: training
// cancelled", not "ensemble member 2 of 5: decoreg: training cancelled"),
// and a suffix; it wraps every one of errs.
type inContext struct {
	msg  string
	errs []error
}

func (e *inContext) Error() string   { return e.msg }
func (e *inContext) Unwrap() []error { return e.errs }

// wrapIn returns errs[0] in context (see inContext), "" for none, then
// suffix; errs[1:] are wrapped too, their messages left out.
func wrapIn(context, suffix string, errs ...error) error {
	msg := "decoreg: "
	if context != "" {
		msg += context + ": "
	}
	return &inContext{msg: msg + strings.TrimPrefix(errs[0].Error(), "decoreg: ") + suffix, errs: errs}
}
