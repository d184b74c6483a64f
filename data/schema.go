package data

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// DefaultMaxLevels is the most levels a categorical column may have unless
// SchemaOptions.MaxLevels says otherwise; MaxMaxLevels bounds that option
// (and the levels a model file may hold).
const (
	DefaultMaxLevels = 64
	MaxMaxLevels     = 1 << 16
)

// ErrTooManyLevels is wrapped by the *LevelsError of FitSchema.
var ErrTooManyLevels = errors.New("too many levels")

// MaxStrayText is the most text levels a *LevelsError lists as stray
// cells in a column of numbers (LevelsError.Text).
const MaxStrayText = 5

// LevelsError is FitSchema's error for a categorical column with more
// distinct values than the limit: such a column is usually an identifier
// or free text, which one-hot encoding cannot use.
type LevelsError struct {
	Path   string // the frame's file ("" if built in memory)
	Column string // the column's name
	Levels int    // its distinct values
	Max    int    // the limit
	// Numbers is how many of the levels are numbers (as ParseNumber
	// reads them), and Text the others, sorted, where there are numbers
	// too and the others are at most MaxStrayText, or at most 4
	// MaxStrayText and a quarter of the numbers: a numeric column made
	// categorical by a few stray cells, such as unlisted missing markers
	// ("n/a", "-", "#N/A", ...).
	Numbers int
	Text    []string // nil unless the few text levels may be stray cells
}

// Error names the column, its count of levels and the limit, with the
// ways past it.
func (e *LevelsError) Error() string {
	s := fmt.Sprintf("column %s has %d distinct text values (levels), more than the limit of %d for a categorical column; drop it, or raise the limit", QuoteName(e.Column), e.Levels, e.Max)
	if e.Numbers > 0 {
		s = fmt.Sprintf("column %s has %d distinct values (levels), %d of them numbers and %d text, more than the limit of %d for a categorical column; drop it, or raise the limit", QuoteName(e.Column), e.Levels, e.Numbers, e.Levels-e.Numbers, e.Max)
	}
	if len(e.Text) > 0 {
		q := make([]string, len(e.Text))
		for i, v := range e.Text {
			q[i] = QuoteCell(v)
		}
		s = fmt.Sprintf("column %s has %d distinct values, %d of them numbers; the text ones, %s, make it categorical, with more levels than the limit of %d: if they mark missing cells, add them to the NA markers; else drop the column, or raise the limit",
			QuoteName(e.Column), e.Levels, e.Numbers, strings.Join(q, ", "), e.Max)
	}
	if e.Path != "" {
		s = e.Path + ": " + s
	}
	return s
}

// Unwrap returns ErrTooManyLevels.
func (e *LevelsError) Unwrap() error { return ErrTooManyLevels }

// Schema is the fitted transform from the columns of a Frame to a model's
// numeric features. It is JSON-serialisable (models save it).
//
// The features of each column, in column order:
//
//   - Numeric: its value, a missing cell imputed with the training
//     median; then, if the training data had a missing cell in the column
//     (Missing), an indicator "NAME:missing" (1 where the cell is missing).
//     A missing cell in a column without an indicator is imputed all the
//     same (and counted in a Warning).
//   - Categorical: one indicator "NAME=LEVEL" per level seen in training,
//     in sorted order (one-hot); then, if the training data had a missing
//     cell in the column, an indicator "NAME:missing". A missing cell sets
//     only the missing indicator (all of them 0 if there is none); a level
//     not seen in training sets none of them (counted in a Warning). There
//     is no trained "other" feature: its weights would never have seen a 1.
type Schema struct {
	Columns []ColumnSchema `json:"columns"` // one per column of the frame fitted on, in its order
	// NA are the cells, besides the empty cell, read as missing in
	// training (FrameOptions.NA); prediction inputs are read with them
	// (NAIn).
	NA []string `json:"na"`
	// NADecimalComma is whether the training file wrote numbers with a
	// decimal comma (its Dialect.DecimalComma): a marker of NA that is a
	// number is that number in that notation ("-999,5" is -999.5). nil in
	// model files written before it (2026-12-08), whose markers are read
	// in each file's notation as they were.
	NADecimalComma *bool `json:"na_decimal_comma,omitempty"`
}

// NATextMatcher returns the matcher of the cells of a categorical column
// that are missing (FrameOptions.CategoricalNA; serve's JSON strings in
// such a column): the markers as the training file wrote them, numbers
// read in its notation, since the column's levels are its text. nil for a
// schema of an older file, without NADecimalComma (whose markers are read
// in each file's notation, every column alike).
func (s *Schema) NATextMatcher() func(cell string) bool {
	if s == nil || s.NADecimalComma == nil {
		return nil
	}
	na := s.NA
	if na == nil {
		na = DefaultNA
	}
	return Dialect{DecimalComma: *s.NADecimalComma}.MissingMatcher(na)
}

// NAIn returns the markers to read a file of dialect d with (a
// FrameOptions.NA, for its numeric columns; the categorical ones take
// NATextMatcher): NA, with each marker that is a number (read in the
// training file's notation, NADecimalComma) written in d's notation where
// d reads it otherwise, so that it marks the same numbers whatever the
// notation of the files. A model trained with --na -999,5 on a file of
// decimal commas read -999.5 as a value in a file of decimal points; a
// marker 1.234 (1234 there) would have marked 1.234. Such a marker that d
// reads as text keeps its text too (a cell written in the training
// notation). A marker that was text in training and that d reads as a
// number is left out: it would mark that number ("1,000" of a file of
// points is 1 with decimal commas). nil for a nil NA (DefaultNA, which
// holds no numbers); NA itself for a schema of an older file, without
// NADecimalComma.
func (s *Schema) NAIn(d Dialect) []string {
	if s == nil || s.NA == nil {
		return nil
	}
	if s.NADecimalComma == nil {
		return slices.Clone(s.NA)
	}
	train := Dialect{DecimalComma: *s.NADecimalComma}
	out := []string{} // not nil: an empty NA is only empty cells
	add := func(m string) {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	for _, m := range s.NA {
		t := strings.TrimSpace(m)
		v, err := train.ParseNumber(t)
		if err != nil || underflows(t, v) {
			if w, err := d.ParseNumber(t); err != nil || underflows(t, w) {
				add(m) // text, here too
			}
			continue
		}
		if w, err := d.ParseNumber(t); err == nil && w+0 == v+0 {
			add(m) // the same number there
			continue
		}
		if _, err := d.ParseNumber(t); err != nil {
			add(m) // text there, as written
		}
		n := strconv.FormatFloat(v+0, 'g', -1, 64)
		if d.DecimalComma {
			n = strings.Replace(n, ".", ",", 1)
		}
		add(n)
	}
	return out
}

// ColumnSchema is the transform of one column.
type ColumnSchema struct {
	Name    string   `json:"name"`              // the column's name, as Encode matches it
	Kind    Kind     `json:"kind"`              // Numeric or Categorical, as in the frame fitted on
	Median  float64  `json:"median,omitempty"`  // numeric: the imputed value
	Missing bool     `json:"missing,omitempty"` // the column has a "NAME:missing" indicator
	Levels  []string `json:"levels,omitempty"`  // categorical: the levels, sorted
	// Range is a numeric column's smallest and largest training value
	// (nil in model files written before it, and for a column all
	// missing): Encode counts the cells far beyond it (Warning.Far).
	Range *[2]float64 `json:"range,omitempty"`
}

// FoldLevel is the key under which levels that differ only in case or in
// how an accented letter is written are alike: "Café" and "cafe" with a
// combining accent (U+0301) have one key (their lower case in Unicode's
// composed form, NFC). Levels are matched exactly; the key only finds the
// near misses that Encode's warnings and the command line name.
func FoldLevel(s string) string { return strings.ToLower(norm.NFC.String(s)) }

// Far reports whether v lies beyond the training range r by more than
// its width (a column constant in training: by more than its value's
// magnitude, and at least 1): a value the model extrapolates to, far
// from anything it was trained on.
func Far(v float64, r [2]float64) bool {
	w := r[1] - r[0]
	if w == 0 {
		w = max(math.Abs(r[0]), 1)
	}
	return v < r[0]-w || v > r[1]+w
}

// SchemaOptions control FitSchema.
type SchemaOptions struct {
	// MaxLevels is the most levels a categorical column may have; 0 means
	// DefaultMaxLevels.
	MaxLevels int
}

// FitSchema fits the transform of every column of f (features only: the
// target is not among them), recording the missing markers f was read
// with (Frame.NA; nil: DefaultNA). Names and levels that Check refuses
// are an error (a *ParseError for a frame read from a file). A categorical column with more than
// opts.MaxLevels levels is a *LevelsError; several such columns give
// their *LevelsErrors joined (errors.Join; errors.As finds the first).
func FitSchema(f *Frame, opts SchemaOptions) (*Schema, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	maxLevels := opts.MaxLevels
	if maxLevels == 0 {
		maxLevels = DefaultMaxLevels
	}
	if maxLevels < 1 || maxLevels > MaxMaxLevels {
		return nil, fmt.Errorf("data: MaxLevels %d is outside [1, %d]", maxLevels, MaxMaxLevels)
	}
	na := f.NA
	if na == nil {
		na = DefaultNA
	}
	comma := f.Dialect.DecimalComma
	s := &Schema{NA: slices.Clone(na), NADecimalComma: &comma}
	var over []error // *LevelsErrors
	for j, c := range f.Columns {
		cs := ColumnSchema{Name: c.Name, Kind: c.Kind, Missing: slices.Contains(c.Missing, true)}
		switch c.Kind {
		case Numeric:
			var vals []float64
			for i, v := range c.Num {
				if !c.Missing[i] {
					if v == 0 {
						v = 0 // -0 too: a range [0, -0] or a median -0 is printed so
					}
					vals = append(vals, v)
				}
			}
			if len(vals) > 0 {
				slices.Sort(vals)
				cs.Median = sortedQuantile(vals, 0.5)
				cs.Range = &[2]float64{vals[0], vals[len(vals)-1]}
			}
		case Categorical:
			set := map[string]bool{}
			for i, v := range c.Str {
				if !c.Missing[i] {
					if !set[v] && !utf8.ValidString(v) {
						// A level a model file could not keep: named at its cell.
						return nil, f.cellErr(&f.Columns[j], i, fmt.Errorf("the text %s is not valid UTF-8, which a model file cannot record as a level (%s)", QuoteCell(v), NotUTF8Hint))
					}
					set[v] = true
				}
			}
			if len(set) > maxLevels {
				le := &LevelsError{Path: f.Path, Column: c.Name, Levels: len(set), Max: maxLevels}
				var text []string
				for v := range set {
					if _, err := f.Dialect.ParseNumber(v); err != nil {
						text = append(text, v)
					}
				}
				if le.Numbers = len(set) - len(text); le.Numbers > 0 && (len(text) <= MaxStrayText || len(text) <= 4*MaxStrayText && 4*len(text) <= le.Numbers) {
					slices.Sort(text)
					le.Text = text
				}
				over = append(over, le) // every such column is named, not the first only
				continue
			}
			for v := range set {
				cs.Levels = append(cs.Levels, v)
			}
			slices.Sort(cs.Levels)
		}
		s.Columns = append(s.Columns, cs)
	}
	switch len(over) {
	case 0:
	case 1:
		return nil, over[0]
	default:
		return nil, errors.Join(over...)
	}
	if err := s.Check(); err != nil {
		// Names or levels a model file cannot keep.
		if f.Path != "" {
			return nil, &ParseError{Path: f.Path, Line: f.HeaderLine, Err: err}
		}
		return nil, err
	}
	return s, nil
}

// Names returns the names of the encoded features: a numeric column's
// name, "NAME=LEVEL" for a level's indicator, "NAME:missing" for a missing
// indicator. A nil Schema has none.
func (s *Schema) Names() []string {
	if s == nil {
		return nil
	}
	var names []string
	for _, c := range s.Columns {
		if c.Kind == Numeric {
			names = append(names, c.Name)
		}
		for _, l := range c.Levels {
			names = append(names, c.Name+"="+l)
		}
		if c.Missing {
			names = append(names, c.Name+":missing")
		}
	}
	return names
}

// Width returns the number of encoded features (0 for a nil Schema).
func (s *Schema) Width() int {
	if s == nil {
		return 0
	}
	n := 0
	for _, c := range s.Columns {
		n += c.width()
	}
	return n
}

func (c *ColumnSchema) width() int {
	n := len(c.Levels)
	if c.Kind == Numeric {
		n = 1
	}
	if c.Missing {
		n++
	}
	return n
}

// Source returns, for each encoded feature, the index of the column of
// s.Columns it comes from (nil for a nil Schema).
func (s *Schema) Source() []int {
	if s == nil {
		return nil
	}
	var src []int
	for j, c := range s.Columns {
		for range c.width() {
			src = append(src, j)
		}
	}
	return src
}

// ColumnNames returns the names of the schema's columns, in order (nil
// for a nil Schema).
func (s *Schema) ColumnNames() []string {
	if s == nil {
		return nil
	}
	names := make([]string, len(s.Columns))
	for j, c := range s.Columns {
		names[j] = c.Name
	}
	return names
}

// Kinds returns each column's kind by name, for FrameOptions.Kinds (nil
// for a nil Schema).
func (s *Schema) Kinds() map[string]Kind {
	if s == nil {
		return nil
	}
	k := make(map[string]Kind, len(s.Columns))
	for _, c := range s.Columns {
		k[c.Name] = c.Kind
	}
	return k
}

// Clone returns a deep copy of s.
func (s *Schema) Clone() *Schema {
	if s == nil {
		return nil
	}
	c := &Schema{NA: slices.Clone(s.NA), Columns: slices.Clone(s.Columns)}
	if s.NADecimalComma != nil {
		comma := *s.NADecimalComma
		c.NADecimalComma = &comma
	}
	for j := range c.Columns {
		c.Columns[j].Levels = slices.Clone(c.Columns[j].Levels)
		if r := c.Columns[j].Range; r != nil {
			c.Columns[j].Range = &[2]float64{r[0], r[1]}
		}
	}
	return c
}

// checkEncode is the part of Check that Encode needs, without its
// allocations (Encode runs per batch, serve's per request).
func (s *Schema) checkEncode() error {
	if len(s.Columns) == 0 {
		return errors.New("the schema has no columns")
	}
	for j, c := range s.Columns {
		bad := func(format string, a ...any) error {
			return fmt.Errorf("column %d (%q): %s", j, c.Name, fmt.Sprintf(format, a...))
		}
		switch {
		case c.Kind != Numeric && c.Kind != Categorical:
			return bad("unknown kind %q", c.Kind)
		case !finite(c.Median):
			return bad("median %v is not finite", c.Median)
		case c.Kind == Numeric && len(c.Levels) != 0:
			return bad("a numeric column with levels")
		case c.Range != nil && (c.Kind != Numeric || !finite(c.Range[0]) || !finite(c.Range[1]) || c.Range[0] > c.Range[1]):
			return bad("range %v: want the smallest and largest training value of a numeric column", *c.Range)
		case c.Kind == Categorical && (len(c.Levels) == 0 && !c.Missing || len(c.Levels) > MaxMaxLevels):
			return bad("%d levels, want 1 to %d", len(c.Levels), MaxMaxLevels)
		}
		for l := 1; l < len(c.Levels); l++ {
			if c.Levels[l] <= c.Levels[l-1] {
				return bad("level %d (%q): the levels are not sorted without repeats", l, c.Levels[l])
			}
		}
	}
	return nil
}

// Check reports a schema that Encode could not use or that a model file
// could not keep: no columns, a column name that is repeated or
// not valid UTF-8 (a model file could not keep it), an unknown kind, a median that is not finite, levels
// of a numeric column, a categorical column without levels or with more
// than MaxMaxLevels, levels not sorted or repeated, or encoded feature
// names that collide. A nil Schema is an error too (a model fitted on
// a flat table has none: Model.Schema returns nil).
func (s *Schema) Check() error {
	if s == nil {
		return errors.New("no schema (nil)")
	}
	if err := s.checkEncode(); err != nil {
		return err
	}
	seen := map[string]bool{}
	for j, c := range s.Columns {
		bad := func(format string, a ...any) error {
			return fmt.Errorf("column %d (%q): %s", j, c.Name, fmt.Sprintf(format, a...))
		}
		switch {
		case !utf8.ValidString(c.Name):
			return bad("the name is not valid UTF-8")
		case seen[c.Name] && c.Name == "":
			return bad("more than one column has no name in the header: leave them out with Frame.Drop(\"\"), or name them")
		case seen[c.Name]:
			return bad("the name appears twice")
		}
		seen[c.Name] = true
		for l, v := range c.Levels {
			if !utf8.ValidString(v) {
				return bad("level %d (%q) is not valid UTF-8", l, v)
			}
		}
	}
	names := map[string]bool{}
	for _, n := range s.Names() {
		if names[n] {
			return fmt.Errorf("two encoded features are called %q (rename a column)", n)
		}
		names[n] = true
	}
	return nil
}

// Encoded is a frame encoded by a Schema: the model's numeric features.
type Encoded struct {
	X        []float64 // Rows x Cols, row-major
	Rows     int       // the frame's rows
	Cols     int       // the features, Schema.Width
	Names    []string  // the encoded features' names (Schema.Names)
	Warnings []Warning // one per column with cells to warn of, in the schema's order; nil for none
}

// NotUTF8Hint is the advice on text that is not UTF-8, in the messages
// about it: most such files are Latin-1 or Windows-1252 exports.
const NotUTF8Hint = "is the file Latin-1 or Windows-1252? convert it with iconv -f WINDOWS-1252 -t UTF-8"

// Warning reports, for one column, the cells Encode encoded without their
// own feature: levels not seen in training, and missing cells in a column
// that had none in training (imputed with the median, or, in a
// categorical column, encoded as no level: every indicator 0).
type Warning struct {
	Column string   // the column's name
	Unseen int      // cells with a level not seen in training
	Levels []string // up to 5 of those levels, in order of appearance
	// Near pairs those of Levels that a trained level matches but for
	// case ("Yes", "yes") or as a number ("3.0", "3") with that level:
	// levels are matched exactly.
	Near    [][2]string
	Missing int // missing cells in a column without a missing indicator
	// Far counts a numeric column's cells beyond its training range by
	// more than its width (see Far), Range that range: the model
	// extrapolates there, and its answers are not to be trusted.
	Far   int
	Range [2]float64 // the training range (ColumnSchema.Range) where Far > 0; zero otherwise
	// Categorical is whether the column is: its missing cells are
	// encoded as no level rather than imputed with the median.
	Categorical bool
}

// String describes w in one line.
func (w Warning) String() string {
	var parts []string
	if w.Unseen > 0 {
		q := make([]string, len(w.Levels))
		for i, l := range w.Levels {
			q[i] = QuoteCell(l)
		}
		more := ""
		if w.Unseen > len(w.Levels) {
			more = ", ..."
		}
		parts = append(parts, fmt.Sprintf("%d cell(s) with a level not seen in training (%s%s), encoded as no level", w.Unseen, strings.Join(q, ", "), more))
		if len(w.Near) > 0 {
			var q []string
			for _, p := range w.Near {
				a, b, how := QuoteCell(p[0]), QuoteCell(p[1]), " as a number"
				switch {
				case norm.NFC.String(p[0]) == norm.NFC.String(p[1]):
					// They print alike: shown in ASCII, to tell them apart.
					a, b, how = strconv.QuoteToASCII(p[0]), strconv.QuoteToASCII(p[1]), " but for how its accents are written (one character, or a letter and a combining mark)"
				case FoldLevel(p[0]) == FoldLevel(p[1]):
					how = " but for case"
				}
				q = append(q, a+" is "+b+how)
			}
			parts[len(parts)-1] += " (" + strings.Join(q, ", ") + ": levels are matched exactly)"
		}
		if slices.ContainsFunc(w.Levels, func(l string) bool { return !utf8.ValidString(l) }) {
			parts[len(parts)-1] += " (" + NotUTF8Hint + "; training read UTF-8)"
		}
	}
	if w.Missing > 0 {
		how := "imputed with the training median"
		if w.Categorical {
			how = "encoded as no level"
		}
		parts = append(parts, fmt.Sprintf("%d missing cell(s), where training had none, %s", w.Missing, how))
	}
	if w.Far > 0 {
		by := " (by more than its width)"
		if w.Range[0] == w.Range[1] {
			by = " (a constant in training)"
		}
		parts = append(parts, fmt.Sprintf("%d cell(s) far beyond the training range %s%s: the model extrapolates there, and its answers are not to be trusted",
			w.Far, rangeText(w.Range[0], w.Range[1]), by))
	}
	return fmt.Sprintf("column %s: %s", QuoteName(w.Column), strings.Join(parts, "; "))
}

// Encode encodes the columns of f named by the schema (matched by name;
// f's other columns are ignored) into the model's features. A categorical
// column of the schema that f holds as numbers without their text is
// matched by the numbers' shortest text ("1.5", not "1.50"): read the
// frame with FrameOptions.Kinds set to Schema.Kinds to keep a file's text. A column f
// lacks is an error wrapping ErrNoColumn; a cell of a numeric column that
// is not a finite number is an error naming it (its file, line and column
// for a frame read from a file). A schema it could not encode by (no
// columns, an unknown kind, a median that is not finite, a numeric column
// with levels, a categorical one with too many or with levels not sorted
// without repeats) is an error; the names are Check's (Load and FitSchema
// check the whole schema, once).
func (s *Schema) Encode(f *Frame) (*Encoded, error) {
	en, err := s.Encoder(f)
	if err != nil {
		return nil, err
	}
	e := &Encoded{X: make([]float64, f.Rows*en.w), Rows: f.Rows, Cols: en.w, Names: s.Names()}
	if err := en.Fill(0, f.Rows, e.X); err != nil {
		return nil, err
	}
	e.Warnings = en.Warnings()
	return e, nil
}

// Encoder encodes the rows of a frame through a schema a range at a time,
// so that a table need not be held encoded whole: a categorical column
// takes a float64 per level a row, and 100,000 rows of a column of 2,000
// levels are 1.6 GB encoded, where the frame holds a string a row. Make
// one with Schema.Encoder. It holds the frame's cells as the schema reads
// them, without pointers (a level's index a categorical cell, a float64 a
// numeric one), not the frame itself: the frame's strings, kept alive,
// cost every garbage collection a scan of them. It is not safe for
// concurrent use.
type Encoder struct {
	s    *Schema
	w    int
	rows int
	dl   Dialect  // the frame's, for Warning.Near
	cols []encCol // one per column of the schema
	// Warnings' answer, once computed.
	warnings []Warning
	warned   bool
}

// encCol is one column of an Encoder's rows.
type encCol struct {
	num     []float64 // numeric: the values (the median where missing)
	missing []bool    // numeric: the missing cells
	// code is a categorical cell's level (its index among the schema's
	// levels), codeMissing, or codeUnseen-k for a text not among the
	// levels, unseen[k].
	code   []int32
	unseen []string
}

const (
	codeMissing = -1
	codeUnseen  = -2
)

// Encoder checks f against the schema as Encode does (the same errors)
// and returns an Encoder of its rows, which does not refer to f.
func (s *Schema) Encoder(f *Frame) (*Encoder, error) {
	if s == nil {
		return nil, errors.New("data: Encode: no schema (nil)")
	}
	if err := s.checkEncode(); err != nil {
		return nil, fmt.Errorf("data: Encode: %w", err)
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	cols := make([]*Column, len(s.Columns))
	first, twice := f.index()
	for j, cs := range s.Columns {
		k, ok := first[cs.Name]
		if !ok {
			k = -1
		}
		if k >= 0 && twice[cs.Name] {
			// Which of them is the model's? (The first was taken, the
			// other ignored without a word.)
			err := fmt.Errorf("%w: %q names two columns", ErrDuplicateColumn, cs.Name)
			if f.Path != "" {
				return nil, &ParseError{Path: f.Path, Line: f.HeaderLine, Err: err}
			}
			return nil, err
		}
		if k < 0 {
			err := fmt.Errorf("%w: %s (the model's columns are %s; the data's are %s)", ErrNoColumn, QuoteName(cs.Name), nameList(s.ColumnNames()), nameList(f.Names()))
			if f.Path != "" {
				return nil, &ParseError{Path: f.Path, Line: f.HeaderLine, Err: err}
			}
			return nil, err
		}
		c := &f.Columns[k]
		if cs.Kind == Numeric {
			if c.Kind != Numeric {
				if err := f.NotNumeric(k); err != nil {
					return nil, err
				}
			}
			for i, v := range c.Num {
				if !c.Missing[i] && !finite(v) {
					return nil, f.cellErr(c, i, fmt.Errorf("%w: %v", ErrNonFinite, v))
				}
			}
		}
		cols[j] = c
	}
	en := &Encoder{s: s, w: s.Width(), rows: f.Rows, dl: f.Dialect, cols: make([]encCol, len(s.Columns))}
	for j, cs := range s.Columns {
		c, ec := cols[j], &en.cols[j]
		switch cs.Kind {
		case Numeric:
			ec.num, ec.missing = make([]float64, f.Rows), slices.Clone(c.Missing)
			for i := range f.Rows {
				switch {
				case c.Missing[i]:
					ec.num[i] = cs.Median
				case c.Num != nil:
					ec.num[i] = c.Num[i]
				default:
					ec.num[i], _ = f.Dialect.ParseNumber(c.Str[i]) // checked by NotNumeric
				}
			}
		case Categorical:
			index := make(map[string]int32, len(cs.Levels))
			for l, v := range cs.Levels {
				index[v] = int32(l)
			}
			unseen := map[string]int32{}
			ec.code = make([]int32, f.Rows)
			for i := range f.Rows {
				if c.Missing[i] {
					ec.code[i] = codeMissing
					continue
				}
				var text string
				if c.Str != nil {
					text = c.Str[i]
				} else { // a numeric column: its numbers' shortest text
					text = strconv.FormatFloat(c.Num[i], 'g', -1, 64)
				}
				if l, ok := index[text]; ok {
					ec.code[i] = l
					continue
				}
				k, ok := unseen[text]
				if !ok {
					k = int32(len(ec.unseen))
					unseen[text] = k
					ec.unseen = append(ec.unseen, text)
				}
				ec.code[i] = codeUnseen - k
			}
		}
	}
	return en, nil
}

// Rows is the number of the frame's rows (0 for a nil Encoder).
func (en *Encoder) Rows() int {
	if en == nil {
		return 0
	}
	return en.rows
}

// Cols is the number of encoded features a row (Schema.Width; 0 for a nil
// Encoder).
func (en *Encoder) Cols() int {
	if en == nil {
		return 0
	}
	return en.w
}

// Fill encodes rows [lo, hi) of the frame into x, (hi-lo) × Cols values,
// row-major, as Encode does. A range outside the frame's rows or an x of
// another length is an error.
func (en *Encoder) Fill(lo, hi int, x []float64) error {
	if en == nil {
		return errors.New("data: Encoder.Fill: a nil Encoder")
	}
	if lo < 0 || hi < lo || hi > en.rows {
		return fmt.Errorf("data: Encoder.Fill: rows [%d, %d) of a frame of %d", lo, hi, en.rows)
	}
	w := en.w
	if len(x) != (hi-lo)*w {
		return fmt.Errorf("data: Encoder.Fill: %d values for %d rows of %d features", len(x), hi-lo, w)
	}
	clear(x)
	off := 0
	for j := range en.s.Columns {
		cs, ec := &en.s.Columns[j], &en.cols[j]
		switch cs.Kind {
		case Numeric:
			for i := lo; i < hi; i++ {
				r := (i-lo)*w + off
				x[r] = ec.num[i]
				if cs.Missing && ec.missing[i] {
					x[r+1] = 1
				}
			}
		case Categorical:
			for i := lo; i < hi; i++ {
				r := (i-lo)*w + off
				switch l := ec.code[i]; {
				case l >= 0:
					x[r+int(l)] = 1
				case l == codeMissing && cs.Missing:
					x[r+len(cs.Levels)] = 1
				}
			}
		}
		off += cs.width()
	}
	return nil
}

// Warnings returns, for each column with cells to warn of, what Encode's
// Warnings give (nil for none), in the schema's order: of every row of
// the frame, whichever rows were filled.
func (en *Encoder) Warnings() []Warning {
	if en == nil {
		return nil
	}
	if !en.warned {
		en.warnings = en.warningsOf(nil)
		en.warned = true
	}
	ws := slices.Clone(en.warnings)
	for i := range ws { // a copy the caller may change
		ws[i].Levels, ws[i].Near = slices.Clone(ws[i].Levels), slices.Clone(ws[i].Near)
	}
	return ws
}

// WarningsOf is Warnings of the rows rows (indices of the frame's rows, in
// the order their examples are taken), as Encode of the frame's Subset of
// them gives. A row out of range is not counted.
func (en *Encoder) WarningsOf(rows []int) []Warning {
	if en == nil {
		return nil
	}
	return en.warningsOf(rows)
}

// warningsOf is WarningsOf, of every row for rows nil.
func (en *Encoder) warningsOf(rows []int) []Warning {
	n := len(rows)
	if rows == nil {
		n = en.rows
	}
	at := func(k int) int {
		if rows == nil {
			return k
		}
		return rows[k]
	}
	var ws []Warning
	for j := range en.s.Columns {
		cs, ec := &en.s.Columns[j], &en.cols[j]
		var nw nearWarning
		nw.Warning = Warning{Column: cs.Name, Categorical: cs.Kind == Categorical}
		for k := range n {
			i := at(k)
			if i < 0 || i >= en.rows {
				continue
			}
			switch cs.Kind {
			case Numeric:
				switch {
				case ec.missing[i]:
					if !cs.Missing {
						nw.Missing++
					}
				case cs.Range != nil && Far(ec.num[i], *cs.Range):
					nw.Far++
					nw.Range = *cs.Range
				}
			case Categorical:
				switch l := ec.code[i]; {
				case l == codeMissing:
					if !cs.Missing {
						nw.Missing++
					}
				case l <= codeUnseen:
					nw.Unseen++
					if text := ec.unseen[codeUnseen-l]; len(nw.Levels) < 5 && !slices.Contains(nw.Levels, text) {
						nw.unseen(cs, text, en.dl)
					}
				}
			}
		}
		if nw.Unseen > 0 || nw.Missing > 0 || nw.Far > 0 {
			ws = append(ws, nw.Warning)
		}
	}
	return ws
}

// Subset returns an Encoder of the rows rows of en's frame, in that order
// (as Schema.Encoder of the frame's Subset of them gives); a row out of
// range is an error.
func (en *Encoder) Subset(rows []int) (*Encoder, error) {
	if en == nil {
		return nil, errors.New("data: Encoder.Subset: a nil Encoder")
	}
	for _, i := range rows {
		if i < 0 || i >= en.rows {
			return nil, fmt.Errorf("data: Encoder.Subset: row %d of a frame of %d", i, en.rows)
		}
	}
	sub := &Encoder{s: en.s, w: en.w, rows: len(rows), dl: en.dl, cols: make([]encCol, len(en.cols))}
	for j, ec := range en.cols {
		sc := &sub.cols[j]
		if ec.num != nil {
			sc.num, sc.missing = pick(ec.num, rows), pick(ec.missing, rows)
		}
		if ec.code != nil {
			sc.code, sc.unseen = pick(ec.code, rows), ec.unseen
		}
	}
	return sub, nil
}

// pick returns the elements rows of s.
func pick[T any](s []T, rows []int) []T {
	out := make([]T, len(rows))
	for k, i := range rows {
		out[k] = s[i]
	}
	return out
}

// nearWarning is a column's Warning as encode gathers it, with the
// lookups of the levels an unseen one nearly matches (made at the first
// unseen level).
type nearWarning struct {
	Warning
	folded  map[string]string  // lower-cased level -> level
	numeric map[float64]string // a level's number -> level
}

// unseen records a new unseen level text of column cs among the
// warning's examples, with the trained level it nearly matches, if any.
func (w *nearWarning) unseen(cs *ColumnSchema, text string, dl Dialect) {
	w.Levels = append(w.Levels, text)
	if w.folded == nil {
		w.folded = make(map[string]string, len(cs.Levels))
		for _, v := range cs.Levels {
			w.folded[FoldLevel(v)] = v
		}
	}
	if v, ok := w.folded[FoldLevel(text)]; ok && len(w.Near) < 5 {
		w.Near = append(w.Near, [2]string{text, v})
	} else if x, err := dl.ParseNumber(strings.TrimSpace(text)); err == nil && len(w.Near) < 5 {
		if w.numeric == nil { // a number written otherwise: "3.0" for the level "3"
			w.numeric = map[float64]string{}
			for _, v := range cs.Levels {
				if y, err := dl.ParseNumber(v); err == nil {
					if _, dup := w.numeric[y]; !dup {
						w.numeric[y] = v
					}
				}
			}
		}
		if v, ok := w.numeric[x]; ok {
			w.Near = append(w.Near, [2]string{text, v})
		}
	}
}

// Targets returns the values of column j of f (NaN where missing), which
// must be numeric without non-finite numbers (else the error of
// NotNumeric).
func (f *Frame) Targets(j int) ([]float64, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	if j < 0 || j >= len(f.Columns) {
		return nil, fmt.Errorf("data: column %d of a frame of %d columns", j, len(f.Columns))
	}
	if err := f.NotNumeric(j); err != nil {
		return nil, err
	}
	c := &f.Columns[j]
	y := make([]float64, f.Rows)
	for i := range y {
		if c.Missing[i] {
			y[i] = math.NaN()
			continue
		}
		if c.Num != nil {
			y[i] = c.Num[i]
		} else {
			y[i], _ = f.Dialect.ParseNumber(c.Str[i]) // checked by NotNumeric
		}
	}
	return y, nil
}

// rangeText writes [lo, hi] with 6 significant digits, or as many more as
// tell lo from hi (a timestamp column's [1.7e+09, 1.7000005e+09]), as
// decoreg show writes ranges.
func rangeText(lo, hi float64) string {
	for p := 6; ; p++ {
		a, b := strconv.FormatFloat(lo, 'g', p, 64), strconv.FormatFloat(hi, 'g', p, 64)
		if a != b || lo == hi || p == 17 {
			return "[" + a + ", " + b + "]"
		}
	}
}
