package data

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"decoreg/internal/memlimit"
)

// Kind is the type of a Frame column.
type Kind string

// The kinds of column.
const (
	// Numeric: every cell that is not missing is a number.
	Numeric Kind = "numeric"
	// Categorical: text; a column is categorical when any of its cells
	// that is not missing is not a number.
	Categorical Kind = "categorical"
)

// DefaultNA are the cells (after trimming spaces, matched exactly) that
// ReadFrame reads as missing unless FrameOptions.NA says otherwise. An
// empty cell is always missing, and a marker that is a number also matches
// the cells of the same value ("-999.0" for "-999").
var DefaultNA = []string{"NA", "NaN", "?"}

// Column is one column of a Frame. Num holds a numeric column's values (0
// where missing) and is nil for a categorical column; Str holds a
// categorical column's cells' text, trimmed of surrounding spaces (""
// where missing), and may be nil for a numeric column (ReadFrame leaves it
// nil). Missing marks the missing cells. Each slice has Frame.Rows
// entries. MissingText counts the missing cells ReadFrame read by their
// text: "" for empty cells, or the missing-value marker (FrameOptions.NA)
// they held; it is nil for a column without missing cells, one built in
// memory, and in Subset's frames (Select and Reinfer keep it).
type Column struct {
	Name        string         // the header's name, trimmed of spaces ("" for a column without one)
	Kind        Kind           // Numeric or Categorical
	Field       int            // the column's position in its file, from 0 (-1 when built in memory)
	Str         []string       // a categorical column's text
	Num         []float64      // a numeric column's values
	Missing     []bool         // true where the cell is missing
	MissingText map[string]int // counts of the missing cells by their text
	// Grouped counts, in a numeric column ReadFrame read with
	// Dialect.DecimalComma, the numbers whose one point grouped thousands
	// with no decimal comma ("1.234" read as 1234; GroupedText is the
	// first), and DecimalCommas those with a decimal comma: a column of
	// the first kind alone may be decimal points read as thousands (a
	// file of "12.465" read 1000 times too large). Zero otherwise, and in
	// Subset's frames.
	Grouped, DecimalCommas int
	GroupedText            string
}

// Frame is a typed table: named columns, numeric or categorical, with
// missing cells marked. ReadFrame reads one from a CSV file; a program may
// also build one in memory (Lines nil, Field -1).
type Frame struct {
	Path    string   // the file it was read from ("" if built in memory)
	Rows    int      // the number of data rows
	Columns []Column // in ReadFrame's frames, in FrameOptions.Columns's order or the file's
	// Lines holds the file line on which each row starts; nil for a
	// frame built in memory.
	Lines []int
	// HeaderLine is the header's line: 1, unless blank lines precede it;
	// 0 for a frame built in memory.
	HeaderLine int
	// NA are the cells, besides the empty cell, that were read as missing
	// (nil: DefaultNA).
	NA []string
	// Blank counts the blank lines ReadFrame skipped between the header and
	// the last row (zero in Subset's frames).
	Blank BlankLines
	// Dialect is the file's separator and decimal mark, as read
	// (FrameOptions.Dialect): the text of a categorical column is read
	// as numbers by it (Dialect.ParseNumber), where a model wants numbers.
	Dialect Dialect
}

// FrameOptions control ReadFrame. The zero value reads every column,
// infers each column's kind, and reads DefaultNA as missing.
type FrameOptions struct {
	// NA lists the cells, besides the empty cell, read as missing (after
	// trimming spaces; matched exactly, case included, but a marker that is
	// a number matches every cell of that value, in any column: "-999"
	// matches "-999.0" and "-9.99e2", "0" matches "-0" and "0.00", "1234"
	// a code "01234"; a marker below float64's smallest, "1e-400", only
	// itself). nil means
	// DefaultNA; an empty, non-nil slice means only empty cells.
	NA []string
	// Columns names the columns to read, in the order wanted; nil reads
	// every column in file order, an empty list none. Other columns are not parsed. A name the
	// file lacks is an error wrapping ErrNoColumn.
	Columns []string
	// Kinds fixes the kind of the columns it names (as a model's schema
	// does at prediction time): a cell of a Numeric column that is neither
	// missing nor a number is an error naming its line and column. Other
	// columns' kinds, and those it maps to "" (Kind's zero value), are
	// inferred. A name that is not among the columns read is an error
	// wrapping ErrNoColumn.
	Kinds map[string]Kind
	// Dialect is the file's separator and decimal mark (the zero value:
	// comma and point). A number marking missing cells (NA) matches the
	// cells of its value read by it.
	Dialect Dialect
	// CategoricalNA, where set, tells the missing cells of the columns
	// that Kinds fixes as Categorical, in place of NA (whose markers
	// still mark the Frame's NA): a model's markers matched as its
	// training file wrote them (Schema.NATextMatcher), where NA holds them
	// in this file's notation for its numbers (Schema.NAIn).
	CategoricalNA func(cell string) bool
}

// Column returns the index of the column called name, or -1 (also for a
// nil frame).
func (f *Frame) Column(name string) int {
	if f == nil {
		return -1
	}
	for j := range f.Columns {
		if f.Columns[j].Name == name {
			return j
		}
	}
	return -1
}

// index returns each name's first column, and the names of more than one
// column (a map: frames may have a hundred thousand columns, for which a
// scan per name was quadratic).
func (f *Frame) index() (first map[string]int, twice map[string]bool) {
	first = make(map[string]int, len(f.Columns))
	twice = map[string]bool{}
	for j, c := range f.Columns {
		if _, ok := first[c.Name]; ok {
			twice[c.Name] = true
			continue
		}
		first[c.Name] = j
	}
	return first, twice
}

// Names returns the column names in order (none for a nil frame).
func (f *Frame) Names() []string {
	if f == nil {
		return nil
	}
	names := make([]string, len(f.Columns))
	for j := range f.Columns {
		names[j] = f.Columns[j].Name
	}
	return names
}

// Select returns a frame of the columns named, in that order, sharing
// their data with f. A name f lacks is an error wrapping ErrNoColumn, one
// that names two columns of f or is asked for twice an error wrapping
// ErrDuplicateColumn. "" selects the first column without a name
// (Drop("") drops them all).
func (f *Frame) Select(names ...string) (*Frame, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	s := &Frame{Path: f.Path, Rows: f.Rows, Lines: f.Lines, HeaderLine: f.HeaderLine, NA: f.NA, Blank: f.Blank, Dialect: f.Dialect}
	first, twice := f.index()
	seen := map[string]bool{}
	for _, n := range names {
		j, ok := first[n]
		if !ok {
			return nil, fmt.Errorf("%w: %s (the columns are %s)", ErrNoColumn, QuoteName(n), nameList(f.Names()))
		}
		if seen[n] && n == "" {
			return nil, fmt.Errorf("%w: %q named twice: more than one column has no name in the header (leave them out with Drop(\"\"))", ErrDuplicateColumn, n)
		}
		if seen[n] {
			return nil, fmt.Errorf("%w: %q named twice", ErrDuplicateColumn, n)
		}
		if n != "" && twice[n] {
			return nil, fmt.Errorf("%w: %q names two columns of the frame", ErrDuplicateColumn, n)
		}
		seen[n] = true
		s.Columns = append(s.Columns, f.Columns[j])
	}
	return s, nil
}

// Drop returns a frame without the columns named, sharing the others'
// data with f. A name f lacks is an error wrapping ErrNoColumn.
func (f *Frame) Drop(names ...string) (*Frame, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	first, _ := f.index()
	drop := make(map[string]bool, len(names))
	for _, n := range names {
		if _, ok := first[n]; !ok {
			return nil, fmt.Errorf("%w: %s (the columns are %s)", ErrNoColumn, QuoteName(n), nameList(f.Names()))
		}
		drop[n] = true
	}
	var keep []string
	for _, c := range f.Columns {
		if !drop[c.Name] {
			keep = append(keep, c.Name)
		}
	}
	return f.Select(keep...)
}

// Subset returns a frame of the given rows of f, in the order given
// (copied). It panics if a row is out of range or f fails Check.
func (f *Frame) Subset(rows []int) *Frame {
	if err := f.check(); err != nil {
		panic(fmt.Sprintf("data: Frame.Subset: %v", err))
	}
	s := &Frame{Path: f.Path, Rows: len(rows), Columns: make([]Column, len(f.Columns)), HeaderLine: f.HeaderLine, NA: f.NA, Dialect: f.Dialect}
	for _, r := range rows {
		if r < 0 || r >= f.Rows {
			panic(fmt.Sprintf("data: Frame.Subset: row %d out of range [0, %d)", r, f.Rows))
		}
	}
	if f.Lines != nil {
		s.Lines = make([]int, len(rows))
		for i, r := range rows {
			s.Lines[i] = f.Lines[r]
		}
	}
	for j, c := range f.Columns {
		n := Column{Name: c.Name, Kind: c.Kind, Field: c.Field, Missing: make([]bool, len(rows))}
		if c.Num != nil {
			n.Num = make([]float64, len(rows))
		}
		if c.Str != nil {
			n.Str = make([]string, len(rows))
		}
		for i, r := range rows {
			n.Missing[i] = c.Missing[r]
			if c.Num != nil {
				n.Num[i] = c.Num[r]
			}
			if c.Str != nil {
				n.Str[i] = c.Str[r]
			}
		}
		s.Columns[j] = n
	}
	return s
}

// Reinfer returns f with each categorical column whose cells that are not
// missing are all finite numbers made numeric (its values parsed), the
// kind ReadFrame would have given it had the file held only these rows:
// for a frame of training rows selected from a larger file. Other columns
// are shared with f. A frame that fails Check is returned as it is, for
// its users to refuse.
func (f *Frame) Reinfer() *Frame {
	if f.check() != nil {
		return f
	}
	g := *f
	g.Columns = slices.Clone(f.Columns)
	for j := range g.Columns {
		c := &g.Columns[j]
		if c.Kind != Categorical {
			continue
		}
		num := make([]float64, f.Rows)
		ok := true
		for i, s := range c.Str {
			if c.Missing[i] {
				continue
			}
			v, err := f.Dialect.ParseNumber(s)
			if err != nil {
				ok = false
				break
			}
			num[i] = v
		}
		if ok {
			c.Kind, c.Num = Numeric, num
		}
	}
	return &g
}

// Check reports a nil frame, or one whose slices do not hold Rows entries
// (nil slices are fine for no rows) or whose column kinds are unknown (one
// built in memory by mistake).
// Every function of this package and of decoreg that takes a frame checks
// it first.
func (f *Frame) Check() error { return f.check() }

func (f *Frame) check() error {
	if f == nil {
		return errors.New("data: nil frame")
	}
	if f.Lines != nil && len(f.Lines) != f.Rows {
		return fmt.Errorf("data: frame has %d lines for %d rows", len(f.Lines), f.Rows)
	}
	for _, c := range f.Columns {
		if len(c.Missing) != f.Rows || c.Str != nil && len(c.Str) != f.Rows || c.Num != nil && len(c.Num) != f.Rows {
			return fmt.Errorf("data: frame column %q has %d texts, %d values and %d missing flags for %d rows", c.Name, len(c.Str), len(c.Num), len(c.Missing), f.Rows)
		}
		// No rows need no slices; else a kind needs its own.
		if f.Rows > 0 && c.Kind == Numeric && c.Num == nil {
			return fmt.Errorf("data: frame column %q is numeric but has no values (Num is nil)", c.Name)
		}
		if f.Rows > 0 && c.Kind == Categorical && c.Str == nil {
			return fmt.Errorf("data: frame column %q is categorical but has no texts (Str is nil)", c.Name)
		}
		if c.Kind != Numeric && c.Kind != Categorical {
			return fmt.Errorf("data: frame column %q has kind %q", c.Name, c.Kind)
		}
	}
	return nil
}

// CellError returns err as the error of row i of column j: a *ParseError
// naming the file, line and column when the frame was read from a file,
// else an error naming the row and column (by index where f has no such
// row or column).
func (f *Frame) CellError(j, i int, err error) error {
	if f == nil || j < 0 || j >= len(f.Columns) || i < 0 || i >= f.Rows || f.Lines != nil && i >= len(f.Lines) {
		return fmt.Errorf("row %d, column %d: %w", i, j, err)
	}
	return f.cellErr(&f.Columns[j], i, err)
}

func (f *Frame) cellErr(c *Column, i int, err error) error {
	if f.Lines != nil && c.Field >= 0 {
		return &ParseError{Path: f.Path, Line: f.Lines[i], Column: c.Field + 1, Err: fmt.Errorf("%w in column %s", err, QuoteName(c.Name))}
	}
	return fmt.Errorf("row %d, column %s: %w", i, QuoteName(c.Name), err)
}

// NotNumeric returns the error of the first cell of column j that is
// neither missing nor a finite number (wrapping ErrNotNumber or
// ErrNonFinite, and naming the file, line and column for a frame read
// from a file), or nil if there is none. A frame that fails Check, or a
// column it lacks, is an error.
func (f *Frame) NotNumeric(j int) error {
	if err := f.check(); err != nil {
		return err
	}
	if j < 0 || j >= len(f.Columns) {
		return fmt.Errorf("data: column %d of a frame of %d columns", j, len(f.Columns))
	}
	c := &f.Columns[j]
	for i := range f.Rows {
		if c.Missing[i] {
			continue
		}
		if c.Kind == Numeric {
			if v := c.Num[i]; !finite(v) {
				return f.cellErr(c, i, fmt.Errorf("%w: %v", ErrNonFinite, v))
			}
		} else if _, err := f.Dialect.ParseNumber(c.Str[i]); err != nil {
			return f.cellErr(c, i, err)
		}
	}
	return nil
}

// ReadFrame reads a CSV file with a header, gzipped or not, into a Frame:
// the columns of opts.Columns (every column by default). The name ""
// stands for every column without a name in the header: each is a Column
// named "" (told apart by Field). Cells that are
// empty or among opts.NA are missing. A column whose cells are all
// numbers (or missing) is Numeric, any other Categorical, unless
// opts.Kinds fixes its kind. A Numeric column may not hold a non-finite
// number ("inf", "1e999"; "NaN" is missing by default): that is an error
// naming the file, line and column, as is malformed CSV. Errors in the
// file's contents are *ParseError values.
func ReadFrame(path string, opts FrameOptions) (*Frame, error) {
	t, err := openTable(path, opts.Dialect)
	if err != nil {
		return nil, err
	}
	defer t.close()
	na := opts.NA
	if na == nil {
		na = DefaultNA
	}
	isNA := opts.Dialect.MissingMatcher(na)

	if err := t.dupErr(opts.Columns); err != nil {
		return nil, err
	}
	names := opts.Columns
	if names == nil {
		names = t.header
	}
	f := &Frame{Path: path, HeaderLine: t.hline, NA: slices.Clone(na), Dialect: opts.Dialect}
	seen := map[string]bool{}
	for j, n := range names {
		kind := opts.Kinds[n]
		if kind != "" && kind != Numeric && kind != Categorical {
			return nil, fmt.Errorf("data: FrameOptions.Kinds[%q] is %q, want %q or %q", n, kind, Numeric, Categorical)
		}
		if opts.Columns == nil && n == "" {
			// Every column, in the file's order: each without a name
			// where it stands.
			f.Columns = append(f.Columns, Column{Field: j, Kind: kind})
			seen[n] = true
			continue
		}
		k := t.column(n)
		if k < 0 {
			return nil, &ParseError{Path: path, Line: t.hline,
				Err: fmt.Errorf("%w: %s (the file's columns are %s)", ErrNoColumn, QuoteName(n), nameList(t.header))}
		}
		if seen[n] {
			return nil, &ParseError{Path: path, Line: t.hline, Err: fmt.Errorf("%w: column %s asked for twice", ErrDuplicateColumn, QuoteName(n))}
		}
		seen[n] = true
		fields := []int{k}
		if n == "" {
			fields = t.unnamed()
		}
		for _, k := range fields {
			f.Columns = append(f.Columns, Column{Name: n, Field: k, Kind: kind})
		}
	}
	names = f.Names()
	for _, n := range slices.Sorted(maps.Keys(opts.Kinds)) {
		if !seen[n] {
			return nil, &ParseError{Path: path, Line: t.hline,
				Err: fmt.Errorf("%w: FrameOptions.Kinds names %s, which is not among the columns read (%s)", ErrNoColumn, QuoteName(n), nameList(names))}
		}
	}
	// Numbers are kept as numbers, and text only for the columns that
	// turn out categorical: a column that meets its first text cell at row
	// r (textFrom[j] = r) gets the text of its rows before r from a second
	// pass over the file. Categorical cells are interned per column.
	// nonFinite is a column's first non-finite number, an error if the
	// column stays numeric.
	text := make([]bool, len(names))
	textFrom := make([]int, len(names))
	nonFinite := make([]error, len(names))
	interned := make([]map[string]string, len(names))
	textBytes := 0 // of the texts cloned
	intern := func(j int, s string) string {
		if v, ok := interned[j][s]; ok {
			return v
		}
		textBytes += len(s)
		v := strings.Clone(s)
		if interned[j] == nil {
			interned[j] = map[string]string{}
		}
		if len(interned[j]) < 1<<16 {
			interned[j][v] = v
		}
		return v
	}
	colNA := make([]func(string) bool, len(f.Columns))
	for j := range f.Columns {
		text[j] = f.Columns[j].Kind == Categorical
		colNA[j] = isNA
		if text[j] && opts.CategoricalNA != nil {
			colNA[j] = opts.CategoricalNA
		}
	}
	for {
		rec, err := t.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(rec) != len(t.header) {
			return nil, t.fieldCountErr(rec)
		}
		f.Lines = append(f.Lines, t.line(0))
		for j := range f.Columns {
			c := &f.Columns[j]
			s := strings.TrimSpace(rec[c.Field])
			miss := colNA[j](s)
			if miss {
				if c.MissingText == nil {
					c.MissingText = map[string]int{}
				}
				c.MissingText[s]++
				s = ""
			}
			c.Missing = append(c.Missing, miss)
			if text[j] {
				c.Str = append(c.Str, intern(j, s))
				continue
			}
			v := 0.0
			if !miss {
				x, err := t.dl.ParseNumber(s)
				if err == nil && t.dl.DecimalComma {
					switch {
					case strings.Contains(s, ","):
						c.DecimalCommas++
					case strings.Count(s, ".") == 1: // ("1.234.567" can only be thousands)
						if c.Grouped++; c.Grouped == 1 {
							c.GroupedText = strings.Clone(s)
						}
					}
				}
				if err != nil {
					hint := ""
					if v, perr := strconv.ParseFloat(strings.TrimSpace(s), 64); perr == nil && math.IsNaN(v) {
						// "NaN" is missing by default; "nan" and "NAN" are
						// not, the markers matching exactly.
						hint = " (if it marks a missing cell: no missing-value marker is set besides the empty cell)"
						if len(na) > 0 {
							hint = fmt.Sprintf(" (if it marks a missing cell: the missing-value markers %s match exactly, case included)", nameList(na))
						}
					}
					perr := &ParseError{Path: t.path, Line: t.line(c.Field), Column: c.Field + 1, Err: fmt.Errorf("%w in column %s%s", err, QuoteName(c.Name), hint)}
					switch {
					case c.Kind == Numeric:
						return nil, perr
					case errors.Is(err, ErrNonFinite):
						if nonFinite[j] == nil {
							nonFinite[j] = perr
						}
					default: // text: the column is categorical
						text[j], textFrom[j] = true, f.Rows
						c.Num = nil
						c.Str = append(make([]string, f.Rows, f.Rows+1), intern(j, s))
						continue
					}
				}
				v = x
			}
			c.Num = append(c.Num, v)
		}
		if f.Rows++; f.Rows%roomEvery == 0 {
			// A line number, and per column a missing flag and a
			// number or a text's header, and the texts.
			per := 8
			for j := range f.Columns {
				per += 9
				if text[j] {
					per += 8
				}
			}
			if err := tableRoom(t.path, f.Rows, float64(f.Rows)*float64(per)+float64(textBytes), memlimit.Available); err != nil {
				return nil, err
			}
		}
	}
	if f.Rows == 0 {
		return nil, &ParseError{Path: t.path, Err: ErrNoRows}
	}
	f.Blank = t.blank
	for j := range f.Columns {
		c := &f.Columns[j]
		if text[j] {
			c.Kind = Categorical
			c.Grouped, c.DecimalCommas, c.GroupedText = 0, 0, ""
			continue
		}
		c.Kind = Numeric
		if nonFinite[j] != nil {
			return nil, nonFinite[j]
		}
	}
	if slices.ContainsFunc(textFrom, func(r int) bool { return r > 0 }) {
		if err := f.earlyText(t, textFrom, isNA, intern); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// earlyText reads the file of t again for the text of the rows before
// textFrom[j] of each column j (those rows held numbers or nothing).
func (f *Frame) earlyText(t *table, textFrom []int, isNA func(string) bool, intern func(int, string) string) error {
	t2, err := openTable(t.path, t.dl)
	if err != nil {
		return err
	}
	defer t2.close()
	changed := &ParseError{Path: t.path, Err: errors.New("the file changed while it was read")}
	if !slices.Equal(t2.header, t.header) {
		return changed
	}
	last := slices.Max(textFrom)
	for i := 0; i < last; i++ {
		rec, err := t2.next()
		if err == io.EOF || err == nil && len(rec) != len(t.header) {
			return changed
		}
		if err != nil {
			return err
		}
		for j := range f.Columns {
			if i >= textFrom[j] {
				continue
			}
			c := &f.Columns[j]
			s := strings.TrimSpace(rec[c.Field])
			if isNA(s) {
				s = ""
			}
			c.Str[i] = intern(j, s)
		}
	}
	return nil
}

// MissingMatcher returns the test ReadFrame makes of a cell, its spaces
// trimmed, for the missing-value markers na (FrameOptions.NA; nil is not
// DefaultNA here): empty, one of na (spaces trimmed), or a number equal to
// a marker that is a number (-999.0 and -9.99e2 for the marker -999; 0.0
// and -0 for 0), as pandas or a spreadsheet writes a sentinel.
func MissingMatcher(na []string) func(cell string) bool {
	return Dialect{}.MissingMatcher(na)
}

// MissingMatcher is the package's MissingMatcher for a file of dialect d:
// markers and cells are read as numbers by d.ParseNumber.
func (d Dialect) MissingMatcher(na []string) func(cell string) bool {
	text := make(map[string]bool, len(na)+1)
	text[""] = true
	var nums map[float64]bool
	for _, s := range na {
		s = strings.TrimSpace(s)
		text[s] = true
		if v, err := d.ParseNumber(s); err == nil && !underflows(s, v) {
			if nums == nil {
				nums = map[float64]bool{}
			}
			nums[v+0] = true // -0 + 0 is 0
		}
	}
	return func(s string) bool {
		if text[s] {
			return true
		}
		if nums == nil || s == "" || !strings.ContainsAny(s[:1], "+-.,0123456789") {
			return false
		}
		v, err := d.ParseNumber(s)
		return err == nil && nums[v+0]
	}
}

// underflows reports whether the number s, read as v, is 0 only because it
// is below float64's smallest ("1e-400"): a marker that would match every
// zero cell.
func underflows(s string, v float64) bool {
	if v != 0 {
		return false
	}
	m := strings.ToLower(strings.TrimLeft(s, "+-"))
	digits, exp := "123456789", "e"
	if strings.HasPrefix(m, "0x") {
		m, digits, exp = m[2:], "123456789abcdef", "p"
	}
	if k := strings.Index(m, exp); k >= 0 {
		m = m[:k]
	}
	return strings.ContainsAny(m, digits)
}

// finite reports whether v is a finite number.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
