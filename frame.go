package decoreg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	"decoreg/data"
	"decoreg/internal/modelfile"
)

// FitFrame trains a model on the typed table f (see data.ReadFrame) to
// predict its column target from every other column. It fits a
// data.Schema to the feature columns (numeric columns imputed with their
// median, with a missing indicator where the training data had a missing
// cell; categorical columns one-hot encoded, at most data.DefaultMaxLevels
// levels unless WithMaxLevels says otherwise), saves it with the model, and
// trains as FitFlat on the encoded features. Rows whose target is missing
// are left out (counted in TrainInfo.SkippedRows). Each column's kind is
// f's: a program may make a column of numbers categorical (set its Kind
// and Str); for training rows selected from a larger table, Frame.Reinfer
// gives the kinds of those rows alone.
//
// The target must be numeric: a cell that is not a number is an error
// naming it (its file, line and column). A *DataError from training names
// the row of f and the column of f (Row and Column index f's rows and
// f.Columns, not the encoded features).
func FitFrame(ctx context.Context, f *data.Frame, target string, cfg Config, opts ...FitOption) (*Model, error) {
	return fitFrame(f, target, cfg.Ensemble, opts, func(x []float64, rows, cols int, y []float64) (*Model, error) {
		return FitFlat(ctx, x, rows, cols, y, cfg, opts...)
	})
}

// TuneFrame is Tune on the typed table f, as FitFrame is FitFlat: the
// schema is fitted once and shared by every trial, and saved with the
// chosen model (or ensemble). Of opts only WithMaxLevels applies.
func TuneFrame(ctx context.Context, f *data.Frame, target string, cfg Config, topts TuneOptions, opts ...FitOption) (*Model, *TuneReport, error) {
	var rep *TuneReport
	m, err := fitFrame(f, target, cfg.Ensemble, opts, func(x []float64, rows, cols int, y []float64) (*Model, error) {
		m, r, err := Tune(ctx, x, rows, cols, y, cfg, topts)
		rep = r
		return m, err
	})
	return m, rep, err
}

// fitFrame encodes f's features with a schema fitted to them and trains
// with fit on the rows whose target is not missing; members is the most
// members the model may have (Config.Ensemble), whose headers each hold
// the features' names.
func fitFrame(f *data.Frame, target string, members int, opts []FitOption, fit func(x []float64, rows, cols int, y []float64) (*Model, error)) (*Model, error) {
	var o fitOptions
	for _, fn := range opts {
		if fn != nil {
			fn(&o)
		}
	}
	if o.maxLevels < 0 || o.maxLevels > data.MaxMaxLevels {
		// The caller's setting, not the table: a ConfigError (FitSchema's
		// error would be wrapped as bad input).
		return nil, configErr("MaxLevels", "WithMaxLevels(%d) is outside [1, %d] (0: the default, %d)", o.maxLevels, data.MaxMaxLevels, data.DefaultMaxLevels)
	}
	if err := f.Check(); err != nil {
		return nil, badFrame(fmt.Errorf("decoreg: %w", err))
	}
	tj := f.Column(target)
	if tj < 0 {
		return nil, badFrame(fmt.Errorf("decoreg: %w: the target %q is not a column of the frame (%d columns)", data.ErrNoColumn, target, len(f.Columns)))
	}
	// Drop would leave out every column of the target's name: one would be
	// the target, the others lost without a word.
	if n := countName(f, target); n > 1 {
		return nil, badFrame(fmt.Errorf("decoreg: %w: the target %q names %d columns", data.ErrDuplicateColumn, target, n))
	}
	if !utf8.ValidString(target) {
		// As the features' names are refused when fitted (it was refused
		// only by Save, after the training).
		return nil, fmt.Errorf("%w: the target's name %q is not valid UTF-8, which a model file cannot record", ErrBadInput, target)
	}
	y, err := f.Targets(tj)
	if err != nil {
		return nil, badFrame(wrapIn("the target is not numeric", "", err))
	}
	keep, yk := presentTargets(y)
	if f.Rows == 0 {
		return nil, fmt.Errorf("%w: the frame has no rows", ErrTooFewRows)
	}
	if len(keep) == 0 {
		return nil, fmt.Errorf("%w: every one of the %d rows has a missing target", ErrTooFewRows, f.Rows)
	}
	feats, err := f.Drop(target)
	if err != nil {
		return nil, badFrame(err)
	}
	if len(feats.Columns) == 0 {
		return nil, fmt.Errorf("%w: no feature columns besides the target %q", ErrBadInput, target)
	}
	for j := range feats.Columns {
		// A NaN or infinity not marked missing, in a row trained on,
		// named at its cell as PredictFrame names it (FitSchema's range
		// check reported it as the schema's "range [NaN 3.3]"); the
		// rows without a target are left out, whatever they hold.
		if c := &feats.Columns[j]; c.Kind == data.Numeric {
			for _, i := range keep {
				if v := c.Num[i]; !c.Missing[i] && (math.IsNaN(v) || math.IsInf(v, 0)) {
					return nil, badFrame(wrapIn("", "", feats.CellError(j, i, fmt.Errorf("%w: %v", data.ErrNonFinite, v))))
				}
			}
		}
	}
	if len(keep) < f.Rows {
		feats = feats.Subset(keep)
	}
	schema, err := data.FitSchema(feats, data.SchemaOptions{MaxLevels: o.maxLevels})
	if err != nil {
		return nil, badFrame(err)
	}
	// The encoded table (float64, a column per numeric feature, level and
	// missing indicator) is made before Fit checks the memory: a 12 MB
	// file of 65,536 levels asked for 34 GB, and the runtime's fatal
	// out-of-memory error was what the user saw.
	// 8 bytes a cell for the table, 16 for training's copies of it
	// (trainBytes).
	if err := checkEncoded(schema, feats.Rows, 24, "fewer categorical levels (a lower --max-levels or WithMaxLevels, or leave out the column with the most) or fewer rows"); err != nil {
		return nil, err
	}
	if err := checkHeaderRoom(schema, members); err != nil {
		return nil, err
	}
	enc, err := schema.Encode(feats)
	if err != nil {
		return nil, badFrame(err)
	}
	if slices.Contains(enc.Names, target) {
		return nil, fmt.Errorf("%w: the target's name %q is also the name of an encoded feature", ErrBadInput, target)
	}
	m, err := fit(enc.X, enc.Rows, enc.Cols, yk)
	err = frameErr(err, keep, colSource(schema, enc), f)
	if m != nil {
		m.schema = schema
		if nerr := m.SetNames(enc.Names, target); nerr != nil && err == nil {
			return nil, nerr // not expected: fitFrame refused such names before training
		}
		m.info.SkippedRows = f.Rows - len(keep)
	}
	return m, err
}

// badFrame marks err, an error about a frame's contents or shape (package
// data's, or this package's about the frame), as bad input: it then wraps
// ErrBadInput beside what it wrapped, its message unchanged. Such errors
// (a NaN cell, a missing column, a malformed frame) did not, though the
// package's errors section says bad data does; nil stays nil.
func badFrame(err error) error {
	if err == nil || errors.Is(err, ErrBadInput) {
		return err
	}
	return badInputErr{err}
}

// badInputErr is badFrame's error.
type badInputErr struct{ err error }

func (e badInputErr) Error() string   { return e.err.Error() }
func (e badInputErr) Unwrap() []error { return []error{e.err, ErrBadInput} }

// checkEncoded refuses, with checkMemoryAdvice, the bytesPerCell bytes a
// cell of rows rows encoded by s would take (s.Width() columns: a
// numeric feature, a level, a missing indicator each).
func checkEncoded(s *data.Schema, rows int, bytesPerCell float64, advice string) error {
	w := s.Width()
	return checkMemoryAdvice(bytesPerCell*float64(rows)*float64(w),
		fmt.Sprintf("the encoded features (%d rows x %d columns, categorical levels one-hot)", rows, w), advice)
}

// checkHeaderRoom refuses, before training, a schema whose names and
// levels would not fit in a model file's header (modelfile.MaxHeader, less
// a MiB for the rest of it): the schema holds each column's name and
// levels, and the header of each of the model's members (an ensemble's
// too) the encoded features' names, "NAME", "NAME=LEVEL" and
// "NAME:missing". A cell of 40 MB made a level that Save refused after
// the training (and after a whole Tune budget).
func checkHeaderRoom(s *data.Schema, members int) error {
	jsonLen := func(v string) int {
		b, _ := json.Marshal(v)
		return len(b) + 1 // and a comma
	}
	const room = modelfile.MaxHeader - 1<<20
	size := make([]int, len(s.Columns)) // each column's bytes
	for j, c := range s.Columns {
		size[j] = jsonLen(c.Name) + 64 // its record, with a median and a range
		for _, l := range c.Levels {
			size[j] += jsonLen(l)
		}
	}
	src := s.Source()
	for k, n := range s.Names() { // in every member's header
		size[src[k]] += max(members, 1) * jsonLen(n)
	}
	total, worst := 0, 0
	for j, n := range size {
		total += n
		if n > size[worst] {
			worst = j
		}
	}
	worstSize := size[worst]
	if total <= room {
		return nil
	}
	c := s.Columns[worst]
	what := "its name"
	if len(c.Levels) > 0 {
		longest := slices.MaxFunc(c.Levels, func(a, b string) int { return len(a) - len(b) })
		what = fmt.Sprintf("its name and %d levels, the longest %d bytes", len(c.Levels), len(longest))
	}
	in := "a model file"
	if members > 1 {
		in = fmt.Sprintf("a model file of %d members (each member's header repeats the features' names)", members)
	}
	return fmt.Errorf("%w: the feature columns' names and categorical levels would take about %d bytes in %s, more than the %d bytes its header may give them (64 MiB, less 1 MiB for the rest); the column %s takes the most, %d bytes (%s): leave it out (--drop, or Frame.Drop), or shorten its values",
		ErrBadInput, total, in, room, data.QuoteName(c.Name), worstSize, what)
}

// countName is the number of f's columns called name.
func countName(f *data.Frame, name string) int {
	n := 0
	for _, c := range f.Columns {
		if c.Name == name {
			n++
		}
	}
	return n
}

// frameErr translates a *DataError about encoded rows and features into
// one about the rows and columns of f: encoded row r is row rows[r] of f
// (rows nil: the same), and encoded feature j comes from the column of f
// called source[j].
func frameErr(err error, rows []int, source []string, f *data.Frame) error {
	var de *DataError
	if err == nil || !errors.As(err, &de) {
		return err
	}
	n := *de
	if n.Row >= 0 && rows != nil && n.Row < len(rows) {
		n.Row = rows[n.Row]
	}
	if n.Column >= 0 && n.Column < len(source) {
		n.Column = f.Column(source[n.Column])
	}
	return &n
}

// colSource returns the column each encoded feature of enc comes from:
// by the schema s, or, without one, the feature's own name.
func colSource(s *data.Schema, enc *data.Encoded) []string {
	if s == nil {
		return enc.Names
	}
	src := s.Source()
	names := make([]string, len(src))
	for j, k := range src {
		names[j] = s.Columns[k].Name
	}
	return names
}

// Schema returns a copy of the model's column transform (nil for a model
// fitted on numbers with Fit or FitFlat, or saved before schemas existed).
func (m *Model) Schema() *data.Schema {
	if m == nil {
		return nil
	}
	return m.schema.Clone()
}

// Columns returns the names of the input columns the model reads: the
// schema's columns (the original columns of the table it was trained on)
// when it has one, else the feature names of SetNames (nil if none).
// Names returns the encoded features' names instead ("sex=M",
// "age:missing").
func (m *Model) Columns() []string {
	if m == nil {
		return nil
	}
	if m.schema != nil {
		return m.schema.ColumnNames()
	}
	return slices.Clone(m.features)
}

// EncodeFrame encodes the input columns of f as the model's features. With
// a schema, columns are matched by name, other columns are ignored, and
// missing cells and levels not seen in training are encoded as the schema
// documents (counted in the result's Warnings). Without one (a model of
// Fit or FitFlat), f must hold the model's features, by name when the
// model has names (SetNames) and otherwise by position, all numeric and
// with no missing cell.
func (m *Model) EncodeFrame(f *data.Frame) (*data.Encoded, error) {
	if m == nil || m.net == nil {
		return nil, ErrNotFitted
	}
	if err := f.Check(); err != nil {
		return nil, badFrame(fmt.Errorf("decoreg: %w", err))
	}
	if m.schema != nil {
		// One-hot levels can make the table far wider than the frame.
		if err := checkEncoded(m.schema, f.Rows, 8, "give fewer rows at a time"); err != nil {
			return nil, err
		}
		enc, err := m.schema.Encode(f)
		if err != nil {
			return nil, badFrame(wrapIn("", "", err))
		}
		return enc, nil
	}
	g := f
	if m.features != nil {
		var err error
		if g, err = f.Select(m.features...); err != nil {
			if f.Path != "" {
				return nil, badFrame(wrapIn("", "", &data.ParseError{Path: f.Path, Line: f.HeaderLine, Err: err}))
			}
			return nil, badFrame(wrapIn("", "", err))
		}
	} else if len(f.Columns) != m.Features() {
		return nil, fmt.Errorf("%w: %d columns for the model's %d features", ErrBadInput, len(f.Columns), m.Features())
	}
	d := m.Features()
	e := &data.Encoded{X: make([]float64, f.Rows*d), Rows: f.Rows, Cols: d, Names: g.Names()}
	for j := range g.Columns {
		c := &g.Columns[j]
		if c.Kind != data.Numeric {
			if err := g.NotNumeric(j); err != nil {
				return nil, badFrame(err)
			}
		}
		y, err := g.Targets(j)
		if err != nil {
			return nil, badFrame(err)
		}
		for i, v := range y {
			if c.Missing[i] {
				return nil, badFrame(g.CellError(j, i, fmt.Errorf("%w: a missing value (the model has no schema to impute it)", data.ErrNotNumber)))
			}
			e.X[i*d+j] = v
		}
	}
	return e, nil
}

// PredictFrame predicts the rows of f as PredictFlat, after EncodeFrame;
// the Prediction's Warnings are EncodeFrame's. A *DataError's Row and
// Column index f's rows and f.Columns. A model with a schema encodes the
// rows a chunk at a time (PredictRows of Encoder), so that its one-hot
// table is not held whole.
func (m *Model) PredictFrame(ctx context.Context, f *data.Frame, opts PredictOptions) (*Prediction, error) {
	if m != nil && m.net != nil && m.schema != nil {
		en, err := m.Encoder(f)
		if err != nil {
			return nil, err
		}
		p, err := m.PredictRows(ctx, en, opts)
		if err != nil {
			return nil, frameErr(err, nil, colSource(m.schema, nil), f)
		}
		p.Warnings = en.Warnings()
		return p, nil
	}
	enc, err := m.EncodeFrame(f)
	if err != nil {
		return nil, err
	}
	p, err := m.PredictFlat(ctx, enc.X, enc.Rows, opts)
	if err != nil {
		return nil, frameErr(err, nil, colSource(m.schema, enc), f)
	}
	p.Warnings = enc.Warnings
	return p, nil
}

// EvaluateFrame evaluates the model as Evaluate on the rows of f whose
// column target is not missing; the others are left out and counted in
// Eval.Skipped. The target must be numeric (an error names the first cell
// that is not) and may not be one of the model's input columns (Columns):
// that is an error wrapping ErrBadInput. A model without names (Fit or
// FitFlat, no SetNames) takes the columns other than the target as its
// features, in order. Errors are as PredictFrame's.
func (m *Model) EvaluateFrame(ctx context.Context, f *data.Frame, target, point string) (*Eval, error) {
	if m == nil || m.net == nil {
		return nil, ErrNotFitted
	}
	if err := f.Check(); err != nil {
		return nil, badFrame(fmt.Errorf("decoreg: %w", err))
	}
	if slices.Contains(m.Columns(), target) {
		return nil, fmt.Errorf("%w: the target %q is one of the model's feature columns", ErrBadInput, target)
	}
	tj := f.Column(target)
	if tj < 0 {
		return nil, badFrame(fmt.Errorf("decoreg: %w: the target %q is not a column of the frame", data.ErrNoColumn, target))
	}
	if n := countName(f, target); n > 1 {
		return nil, badFrame(fmt.Errorf("decoreg: %w: the target %q names %d columns", data.ErrDuplicateColumn, target, n))
	}
	y, err := f.Targets(tj)
	if err != nil {
		return nil, badFrame(wrapIn("", "", err))
	}
	keep, yk := presentTargets(y)
	if f.Rows == 0 {
		return nil, fmt.Errorf("%w: the frame has no rows: nothing to evaluate", ErrBadInput)
	}
	if len(keep) == 0 {
		return nil, fmt.Errorf("%w: every one of the %d rows has a missing target: nothing to evaluate", ErrBadInput, f.Rows)
	}
	g := f
	if len(keep) < f.Rows {
		g = f.Subset(keep)
	}
	if m.schema == nil && m.features == nil {
		// Features matched by position: the columns but the target.
		if g, err = g.Drop(target); err != nil {
			return nil, badFrame(err)
		}
	}
	if m.schema != nil {
		// A chunk of rows at a time, as PredictFrame.
		en, err := m.Encoder(g)
		if err != nil {
			return nil, err
		}
		e, err := m.EvaluateRows(ctx, en, yk, point)
		if err != nil {
			return nil, frameErr(err, keep, colSource(m.schema, nil), f)
		}
		e.Skipped = f.Rows - len(keep)
		e.Warnings = en.Warnings()
		return e, nil
	}
	enc, err := m.EncodeFrame(g)
	if err != nil {
		return nil, err
	}
	e, err := m.Evaluate(ctx, enc.X, enc.Rows, yk, point)
	if err != nil {
		return nil, frameErr(err, keep, colSource(m.schema, enc), f)
	}
	e.Skipped = f.Rows - len(keep)
	e.Warnings = enc.Warnings
	return e, nil
}

// presentTargets returns the rows whose target y is not missing (NaN) and
// their targets.
func presentTargets(y []float64) (keep []int, yk []float64) {
	for i, v := range y {
		if !math.IsNaN(v) {
			keep = append(keep, i)
			yk = append(yk, v)
		}
	}
	return keep, yk
}
