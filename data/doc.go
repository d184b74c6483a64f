// Package data reads regression data sets and test-split masks from CSV
// files, splits and scales them.
//
// # Layout
//
// A Dataset holds its features row-major in one flat slice: the value of
// feature j in row i is X[i*Cols+j]. Targets are Y[i]. Values are float64 in
// memory; models convert to float32 where they need to.
//
// # Files
//
// Data files are CSV with a header line, optionally gzip-compressed (detected
// from the file's first bytes, not its name). Cells are decimal numbers as
// accepted by strconv.ParseFloat, surrounding spaces allowed; NaN and
// infinities are rejected, as are values that overflow float64. The target
// is the last column unless ReadOptions.Target names another one. A
// Dialect (ReadOptions.Dialect, FrameOptions.Dialect, and the methods
// ReadFeatures, ReadHeaderLine and MissingMatcher) reads files separated
// by another character than the comma (Sep) and numbers written with a
// decimal comma (DecimalComma); mask files are always read as commas.
//
// ReadCSV and ReadFeatures read numbers only. ReadFrame reads a table as
// it comes into a Frame: each column numeric or categorical (text), with
// its missing cells (empty, or one of FrameOptions.NA, by default
// DefaultNA) marked. A Schema, fitted to a frame's feature columns by
// FitSchema and saved with a model, encodes frames as numbers: numeric
// columns with missing cells imputed by the training median (plus a
// "NAME:missing" indicator for columns that had missing cells), categorical
// columns one-hot ("NAME=LEVEL", at most DefaultMaxLevels levels unless
// SchemaOptions.MaxLevels says otherwise; more is a *LevelsError).
//
// A name that stands twice in a header is refused (ErrDuplicateColumn)
// where its column is read: by ReadCSV, which reads every column, and by
// ReadFrame and ReadFeatures when it is among the columns asked for;
// columns not read are ignored, as their cells are.
//
// Mask files (the UCI benchmark's test_mask.csv.gz) have the header
// split0,...,split{k-1} and one 0/1 value per split and row; row r is a test
// row of split k iff its column k is 1.
//
// # Errors
//
// Problems with a file's contents are reported as *ParseError, which names
// the file, the line (the file's own, counted from 1: the header is line 1
// unless blank lines precede it) and the
// column (the field number counted from 1, or 0 when the error concerns a
// whole line or file), and wraps one of the sentinel errors ErrEmpty,
// ErrNoRows, ErrFieldCount, ErrNotNumber, ErrNonFinite, ErrDuplicateColumn,
// ErrHeaderRow, ErrCRLineEnds, ErrUTF16, ErrUTF32, ErrBinary, ErrNoColumn, ErrNoFeatures,
// ErrMaskHeader or ErrMaskValue, so that callers can branch with errors.Is. A blank cell wraps
// ErrEmptyCell as well as ErrNotNumber. A file that cannot be opened gives
// the *fs.PathError of package os, which names the path.
package data
