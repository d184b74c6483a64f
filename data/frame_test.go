package data

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const frameCSV = "age, sex ,city,score,y\n" +
	"31,M,Lyon,1.5,10\n" +
	"NA, F,Paris,?,11\n" +
	"45,F, ,2,\n" +
	"?,M,inf,NaN,13\n" +
	"52,X,Lyon,3,14\n"

// TestReadFrame: kinds are inferred (a text cell makes a column
// categorical; "inf" there is a level), missing markers and blank cells
// are missing, cells are trimmed, and every row knows its line.
func TestReadFrame(t *testing.T) {
	p := writeFile(t, frameCSV)
	f, err := ReadFrame(p, FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Rows != 5 || strings.Join(f.Names(), ",") != "age,sex,city,score,y" || !slices.Equal(f.Lines, []int{2, 3, 4, 5, 6}) {
		t.Fatalf("%d rows, columns %v, lines %v", f.Rows, f.Names(), f.Lines)
	}
	kinds := []Kind{Numeric, Categorical, Categorical, Numeric, Numeric}
	for j, c := range f.Columns {
		if c.Kind != kinds[j] || c.Field != j {
			t.Errorf("column %q: kind %s, field %d", c.Name, c.Kind, c.Field)
		}
	}
	age := f.Columns[0]
	if !slices.Equal(age.Missing, []bool{false, true, false, true, false}) || !slices.Equal(age.Num, []float64{31, 0, 45, 0, 52}) {
		t.Errorf("age: %v %v", age.Num, age.Missing)
	}
	sex, city := f.Columns[1], f.Columns[2]
	if !slices.Equal(sex.Str, []string{"M", "F", "F", "M", "X"}) || sex.Num != nil {
		t.Errorf("sex: %q", sex.Str)
	}
	if !slices.Equal(city.Str, []string{"Lyon", "Paris", "", "inf", "Lyon"}) || !city.Missing[2] {
		t.Errorf("city: %q %v", city.Str, city.Missing)
	}
	if y := f.Columns[4]; !y.Missing[2] || y.Num[4] != 14 {
		t.Errorf("y: %v %v", y.Num, y.Missing)
	}
	// The missing cells counted by their text; none in sex.
	for j, want := range []map[string]int{{"NA": 1, "?": 1}, nil, {"": 1}, {"?": 1, "NaN": 1}, {"": 1}} {
		if got := f.Columns[j].MissingText; !maps.Equal(got, want) || (want == nil) != (got == nil) {
			t.Errorf("column %q: MissingText %v, want %v", f.Columns[j].Name, got, want)
		}
	}
	if s := f.Subset([]int{0, 1}); s.Columns[0].MissingText != nil {
		t.Errorf("Subset kept MissingText %v", s.Columns[0].MissingText)
	}

	// Other markers: "?" is then text, which makes age categorical.
	f, err = ReadFrame(p, FrameOptions{NA: []string{"NaN", "NA"}, Columns: []string{"age", "sex"}})
	if err != nil {
		t.Fatal(err)
	}
	if f.Columns[0].Kind != Categorical || !slices.Equal(f.Columns[0].Str, []string{"31", "", "45", "?", "52"}) || len(f.Columns) != 2 {
		t.Errorf("age with ? not missing: %s %q", f.Columns[0].Kind, f.Columns[0].Str)
	}
}

// TestReadFrameErrors: errors name the file, line and column.
func TestReadFrameErrors(t *testing.T) {
	p := writeFile(t, frameCSV)
	cases := []struct {
		opts FrameOptions
		body string
		want []string
		is   error
	}{
		// With no markers, NaN is a non-finite number in a numeric column.
		{FrameOptions{NA: []string{"?", "NA"}}, frameCSV, []string{"line 5, column 4", "NaN"}, ErrNonFinite},
		{FrameOptions{}, "a,b\n1,2\n1e999,3\n", []string{"line 3, column 1", "overflows"}, ErrNonFinite},
		{FrameOptions{}, "a,b\n1,2\n-inf,3\n", []string{"line 3, column 1"}, ErrNonFinite},
		{FrameOptions{Kinds: map[string]Kind{"sex": Numeric}}, frameCSV, []string{"line 2, column 2", `"M"`, `column "sex"`}, ErrNotNumber},
		{FrameOptions{Columns: []string{"age", "nope"}}, frameCSV, []string{"line 1", `"nope"`}, ErrNoColumn},
		{FrameOptions{Columns: []string{"age", "age"}}, frameCSV, []string{"line 1", `"age"`}, ErrDuplicateColumn},
		// Kinds naming a column the file lacks, or one not read.
		{FrameOptions{Kinds: map[string]Kind{"nope": Numeric}}, frameCSV, []string{"line 1", `"nope"`, "Kinds"}, ErrNoColumn},
		{FrameOptions{Columns: []string{"age"}, Kinds: map[string]Kind{"sex": Categorical}}, frameCSV, []string{"line 1", `"sex"`, "not among the columns read"}, ErrNoColumn},
		{FrameOptions{}, "a,b\n1,2\n3\n", []string{"line 3"}, ErrFieldCount},
		{FrameOptions{}, "a,b\n", nil, ErrNoRows},
	}
	for _, c := range cases {
		path := p
		if c.body != frameCSV {
			path = writeFile(t, c.body)
		}
		_, err := ReadFrame(path, c.opts)
		var pe *ParseError
		if !errors.As(err, &pe) || !errors.Is(err, c.is) || !strings.Contains(err.Error(), path) {
			t.Errorf("%q %+v: %v, want a *ParseError wrapping %v", c.body, c.opts, err, c.is)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q %+v: %v does not contain %q", c.body, c.opts, err, w)
			}
		}
	}
}

// TestSchema: fitting, the encoded names and values, unseen levels and
// missing cells, and the JSON round trip.
func TestSchema(t *testing.T) {
	p := writeFile(t, frameCSV)
	f, err := ReadFrame(p, FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, err = f.Drop("y")
	if err != nil {
		t.Fatal(err)
	}
	s, err := FitSchema(f, SchemaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantNames := []string{"age", "age:missing", "sex=F", "sex=M", "sex=X", "city=Lyon", "city=Paris", "city=inf", "city:missing", "score", "score:missing"}
	if !slices.Equal(s.Names(), wantNames) || s.Width() != len(wantNames) || len(s.Source()) != len(wantNames) {
		t.Fatalf("names %q, want %q", s.Names(), wantNames)
	}
	if s.Columns[0].Median != 45 || s.Columns[3].Median != 2 || !slices.Equal(s.NA, DefaultNA) {
		t.Errorf("medians %v, %v; NA %q", s.Columns[0].Median, s.Columns[3].Median, s.NA)
	}
	e, err := s.Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{
		{31, 0, 0, 1, 0, 1, 0, 0, 0, 1.5, 0},
		{45, 1, 1, 0, 0, 0, 1, 0, 0, 2, 1},
		{45, 0, 1, 0, 0, 0, 0, 0, 1, 2, 0},
		{45, 1, 0, 1, 0, 0, 0, 1, 0, 2, 1},
		{52, 0, 0, 0, 1, 1, 0, 0, 0, 3, 0},
	}
	for i, row := range want {
		if got := e.X[i*e.Cols : (i+1)*e.Cols]; !slices.Equal(got, row) {
			t.Errorf("row %d: %v, want %v", i, got, row)
		}
	}
	if len(e.Warnings) != 0 {
		t.Errorf("warnings on the training data: %v", e.Warnings)
	}

	// JSON round trip.
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var s2 Schema
	if err := json.Unmarshal(b, &s2); err != nil || s2.Check() != nil {
		t.Fatal(err, s2.Check())
	}
	// New data: an unseen level, a missing sex (no indicator), a missing
	// city (indicator).
	g := writeFile(t, "sex,y,city,age,score,other\nM,1,Nice,40,1,a\n,2,NA,41,2,b\nZ,3,Paris,,,c\n")
	h, err := ReadFrame(g, FrameOptions{Kinds: s2.Kinds()})
	if err != nil {
		t.Fatal(err)
	}
	e, err = s2.Encode(h)
	if err != nil {
		t.Fatal(err)
	}
	want = [][]float64{
		{40, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0},
		{41, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0},
		{45, 1, 0, 0, 0, 0, 1, 0, 0, 2, 1},
	}
	for i, row := range want {
		if got := e.X[i*e.Cols : (i+1)*e.Cols]; !slices.Equal(got, row) {
			t.Errorf("new row %d: %v, want %v", i, got, row)
		}
	}
	if len(e.Warnings) != 2 || e.Warnings[0].Column != "sex" || e.Warnings[0].Unseen != 1 || e.Warnings[0].Missing != 1 ||
		!slices.Equal(e.Warnings[0].Levels, []string{"Z"}) || e.Warnings[1].Column != "city" || e.Warnings[1].Unseen != 1 {
		t.Errorf("warnings %+v", e.Warnings)
	}
	if w := e.Warnings[0].String(); !strings.Contains(w, `"sex"`) || !strings.Contains(w, `"Z"`) || !strings.Contains(w, "1 missing") {
		t.Errorf("warning %q", w)
	}
	// A column the data lacks.
	g = writeFile(t, "sex,city,age\nM,Lyon,1\n")
	h, _ = ReadFrame(g, FrameOptions{})
	if _, err := s.Encode(h); !errors.Is(err, ErrNoColumn) || !strings.Contains(err.Error(), `"score"`) {
		t.Errorf("no score column: %v", err)
	}
}

// TestSchemaLevels: more levels than the limit is a *LevelsError naming
// the column and its count; the limit is an option.
func TestSchemaLevels(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,x\n")
	for i := range 70 {
		b.WriteString("u" + string(rune('A'+i%26)) + string(rune('a'+i/26)) + ",1\n")
	}
	p := writeFile(t, b.String())
	f, err := ReadFrame(p, FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = FitSchema(f, SchemaOptions{})
	var le *LevelsError
	if !errors.As(err, &le) || !errors.Is(err, ErrTooManyLevels) || le.Column != "id" || le.Levels != 70 || le.Max != DefaultMaxLevels ||
		!strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), `"id"`) {
		t.Errorf("70 levels: %v", err)
	}
	s, err := FitSchema(f, SchemaOptions{MaxLevels: 70})
	if err != nil || len(s.Columns[0].Levels) != 70 || !slices.IsSorted(s.Columns[0].Levels) {
		t.Errorf("70 levels allowed: %v", err)
	}
	if _, err := FitSchema(f, SchemaOptions{MaxLevels: -1}); err == nil {
		t.Errorf("MaxLevels -1 accepted")
	}
	if le.Numbers != 0 || le.Text != nil {
		t.Errorf("70 text levels: Numbers %d, Text %q", le.Numbers, le.Text)
	}
	// A numeric column made categorical by stray text cells: its numbers
	// are counted and its text levels named (sorted), up to MaxStrayText
	// of them.
	b.Reset()
	b.WriteString("n,x\n")
	for i := range 70 {
		b.WriteString(strconv.Itoa(i) + ",1\n")
	}
	b.WriteString("N/A,1\nunknown,1\n-,1\n.,1\n")
	if f, err = ReadFrame(writeFile(t, b.String()), FrameOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = FitSchema(f, SchemaOptions{})
	if !errors.As(err, &le) || le.Levels != 74 || le.Numbers != 70 || !slices.Equal(le.Text, []string{"-", ".", "N/A", "unknown"}) {
		t.Errorf("70 numbers and 4 text levels: %v (%+v)", err, le)
	}
	if msg := err.Error(); !strings.Contains(msg, `70 of them numbers; the text ones, "-", ".", "N/A", "unknown", make it`) || !strings.Contains(msg, "NA markers") {
		t.Errorf("70 numbers and 4 text levels: %s", msg)
	}
	// More than MaxStrayText are named while they are at most 4
	// MaxStrayText and a quarter of the numbers.
	b.WriteString("w1,1\nw2,1\n")
	if f, err = ReadFrame(writeFile(t, b.String()), FrameOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := FitSchema(f, SchemaOptions{}); !errors.As(err, &le) || le.Numbers != 70 || len(le.Text) != 6 {
		t.Errorf("70 numbers and 6 text levels: %v (%+v)", err, le)
	}
	for i := 3; i <= 13; i++ {
		fmt.Fprintf(&b, "w%d,1\n", i)
	}
	if f, err = ReadFrame(writeFile(t, b.String()), FrameOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := FitSchema(f, SchemaOptions{}); !errors.As(err, &le) || le.Numbers != 70 || len(le.Text) != 17 {
		t.Errorf("70 numbers and 17 text levels: %v (%+v)", err, le)
	}
	b.WriteString("w14,1\n") // 4 x 18 > 70
	if f, err = ReadFrame(writeFile(t, b.String()), FrameOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = FitSchema(f, SchemaOptions{})
	if !errors.As(err, &le) || le.Numbers != 70 || le.Text != nil {
		t.Errorf("70 numbers and 18 text levels: %v (%+v)", err, le)
	}
	if msg := err.Error(); !strings.Contains(msg, `88 distinct values (levels), 70 of them numbers and 18 text`) {
		t.Errorf("70 numbers and 18 text levels: %s", msg)
	}
}

// TestSchemaCheck: schemas a model file could hold but Encode could not
// use are refused.
func TestSchemaCheck(t *testing.T) {
	good := Schema{Columns: []ColumnSchema{{Name: "a", Kind: Numeric}, {Name: "b", Kind: Categorical, Levels: []string{"x", "y"}}}}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	bad := []Schema{
		{},
		{Columns: []ColumnSchema{{Name: "\xff", Kind: Numeric}}},
		{Columns: []ColumnSchema{{Name: "a", Kind: Numeric}, {Name: "a", Kind: Numeric}}},
		{Columns: []ColumnSchema{{Name: "a", Kind: "text"}}},
		{Columns: []ColumnSchema{{Name: "a", Kind: Numeric, Median: math.Inf(1)}}},
		{Columns: []ColumnSchema{{Name: "a", Kind: Numeric, Levels: []string{"x"}}}},
		{Columns: []ColumnSchema{{Name: "b", Kind: Categorical}}},
		{Columns: []ColumnSchema{{Name: "b", Kind: Categorical, Levels: []string{"y", "x"}}}},
		{Columns: []ColumnSchema{{Name: "b", Kind: Categorical, Levels: []string{"x", "x"}}}},
		{Columns: []ColumnSchema{{Name: "b", Kind: Categorical, Levels: []string{"x"}}, {Name: "b=x", Kind: Numeric}}},
		{Columns: []ColumnSchema{{Name: "a", Kind: Numeric, Range: &[2]float64{2, 1}}}},
		{Columns: []ColumnSchema{{Name: "a", Kind: Numeric, Range: &[2]float64{0, math.Inf(1)}}}},
		{Columns: []ColumnSchema{{Name: "b", Kind: Categorical, Levels: []string{"x"}, Range: &[2]float64{0, 1}}}},
	}
	fr := &Frame{Rows: 1, Columns: []Column{
		{Name: "a", Kind: Numeric, Field: -1, Num: []float64{0}, Missing: []bool{true}},
		{Name: "b", Kind: Categorical, Field: -1, Str: []string{"x"}, Missing: []bool{false}},
	}}
	if _, err := good.Encode(fr); err != nil {
		t.Fatal(err)
	}
	for i, s := range bad {
		if err := s.Check(); err == nil {
			t.Errorf("schema %d %+v accepted", i, s)
		}
		// Encode checks what its encoding depends on first (a median of
		// +Inf filled the blank cell with it); names are Check's alone.
		names := i == 1 || i == 2 || i == 9
		if e, err := s.Encode(fr); err == nil && !names {
			t.Errorf("schema %d %+v: Encode accepted it: %v", i, s, e.X)
		}
	}
}

// TestFrameSelectDropSubset: column and row selection.
func TestFrameSelectDropSubset(t *testing.T) {
	f, err := ReadFrame(writeFile(t, frameCSV), FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := f.Select("y", "sex")
	if err != nil || strings.Join(g.Names(), ",") != "y,sex" {
		t.Errorf("select: %v %v", g, err)
	}
	if _, err := f.Select("nope"); !errors.Is(err, ErrNoColumn) {
		t.Errorf("select nope: %v", err)
	}
	if _, err := f.Drop("nope"); !errors.Is(err, ErrNoColumn) {
		t.Errorf("drop nope: %v", err)
	}
	twice := &Frame{Rows: f.Rows, Columns: append(slices.Clone(f.Columns), f.Columns[0])}
	if _, err := twice.Select(f.Columns[0].Name); !errors.Is(err, ErrDuplicateColumn) {
		t.Errorf("select a name of two columns: %v", err)
	}
	g, _ = f.Drop("age", "y")
	if strings.Join(g.Names(), ",") != "sex,city,score" {
		t.Errorf("drop: %v", g.Names())
	}
	s := f.Subset([]int{4, 0})
	if s.Rows != 2 || !slices.Equal(s.Lines, []int{6, 2}) || s.Columns[1].Str[0] != "X" || s.Columns[0].Num[1] != 31 {
		t.Errorf("subset: %+v", s)
	}
}

// TestReinfer: a column made categorical by text in rows that a subset
// leaves out becomes numeric again; others keep their kind.
func TestReinfer(t *testing.T) {
	f, err := ReadFrame(writeFile(t, "a,b,c\n1,x,1\n,y,2\n3,z,inf\n2.5,q,oops\n"), FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Columns[0].Kind != Numeric || f.Columns[2].Kind != Categorical {
		t.Fatalf("kinds %s %s", f.Columns[0].Kind, f.Columns[2].Kind)
	}
	g := f.Subset([]int{0, 1}).Reinfer()
	if g.Columns[1].Kind != Categorical || g.Columns[2].Kind != Numeric || !slices.Equal(g.Columns[2].Num, []float64{1, 2}) || g.check() != nil {
		t.Errorf("rows 0, 1: %+v", g.Columns)
	}
	// inf is a number, but not a finite one: the column stays text.
	if g := f.Subset([]int{0, 2}).Reinfer(); g.Columns[2].Kind != Categorical {
		t.Errorf("rows 0, 2: c is %s", g.Columns[2].Kind)
	}
	if f.Columns[2].Kind != Categorical {
		t.Errorf("Reinfer changed its receiver")
	}
}

// TestEncodeNumbersAsLevels: a categorical column of the schema read as
// numbers (no FrameOptions.Kinds) is matched by the numbers' shortest
// text; read with the schema's kinds, by the file's text.
func TestEncodeNumbersAsLevels(t *testing.T) {
	s := &Schema{Columns: []ColumnSchema{{Name: "k", Kind: Categorical, Levels: []string{"1.5", "2", "x"}}}}
	p := writeFile(t, "k\n1.50\n2\n7\n")
	f, err := ReadFrame(p, FrameOptions{})
	if err != nil || f.Columns[0].Kind != Numeric || f.Columns[0].Str != nil {
		t.Fatalf("%v %+v", err, f.Columns)
	}
	e, err := s.Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(e.X, []float64{1, 0, 0, 0, 1, 0, 0, 0, 0}) || len(e.Warnings) != 1 || e.Warnings[0].Unseen != 1 {
		t.Errorf("as numbers: %v %+v", e.X, e.Warnings)
	}
	f, err = ReadFrame(p, FrameOptions{Kinds: s.Kinds()})
	if err != nil {
		t.Fatal(err)
	}
	e, err = s.Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(e.X, []float64{0, 0, 0, 0, 1, 0, 0, 0, 0}) || e.Warnings[0].Unseen != 2 || !slices.Equal(e.Warnings[0].Levels, []string{"1.50", "7"}) {
		t.Errorf("as text: %v %+v", e.X, e.Warnings)
	}
}

// TestSchemaInvalidUTF8Level: a categorical cell that is not valid UTF-8
// (a model file could not record it as a level) is refused at its own
// line and column, not at the header.
func TestSchemaInvalidUTF8Level(t *testing.T) {
	p := writeFile(t, "a,c,y\n1,x,1\n2,\xe9z,2\n3,x,3\n")
	f, err := ReadFrame(p, FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = FitSchema(f, SchemaOptions{})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 3 || pe.Column != 2 || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("invalid UTF-8 level: %v", err)
	}
}

// Frame's methods on a nil frame, one that fails Check, or an index it
// lacks: errors (or -1, none, the frame as it is), not the index or nil
// pointer panics they gave; Subset's panic names the problem.
func TestFrameMethodsRefuse(t *testing.T) {
	var nf *Frame
	if nf.Column("a") != -1 || nf.Names() != nil || nf.Reinfer() != nil {
		t.Error("nil frame: Column, Names or Reinfer")
	}
	if _, err := nf.Select("a"); err == nil {
		t.Error("nil frame: Select")
	}
	if _, err := nf.Drop("a"); err == nil {
		t.Error("nil frame: Drop")
	}
	if err := nf.NotNumeric(0); err == nil {
		t.Error("nil frame: NotNumeric")
	}
	cause := errors.New("x")
	if err := nf.CellError(0, 0, cause); !errors.Is(err, cause) {
		t.Errorf("nil frame: CellError %v", err)
	}
	ok := &Frame{Rows: 1, Columns: []Column{{Name: "a", Kind: Numeric, Field: -1, Num: []float64{1}, Missing: []bool{false}}}}
	if err := ok.NotNumeric(-1); err == nil || !strings.Contains(err.Error(), "column -1 of a frame of 1 columns") {
		t.Errorf("NotNumeric(-1): %v", err)
	}
	if err := ok.CellError(5, 0, cause); !errors.Is(err, cause) || !strings.Contains(err.Error(), "row 0, column 5") {
		t.Errorf("CellError(5, 0): %v", err)
	}
	if err := ok.CellError(0, 3, cause); !errors.Is(err, cause) || !strings.Contains(err.Error(), "row 3, column 0") {
		t.Errorf("CellError(0, 3): %v", err)
	}
	bad := &Frame{Rows: 3, Columns: []Column{{Name: "a", Kind: Numeric, Num: []float64{1, 2}, Missing: []bool{false, false}}}}
	if err := bad.NotNumeric(0); err == nil || !strings.Contains(err.Error(), "for 3 rows") {
		t.Errorf("inconsistent frame: NotNumeric %v", err)
	}
	if _, err := bad.Select("a"); err == nil {
		t.Error("inconsistent frame: Select")
	}
	if bad.Reinfer() != bad {
		t.Error("inconsistent frame: Reinfer changed it")
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "Frame.Subset") {
			t.Errorf("inconsistent frame: Subset %v", r)
		}
	}()
	bad.Subset([]int{2})
}

// TestNilSchema: a nil Schema (a model fitted on a flat table has none)
// has no names, columns or width, and Check and Encode return errors.
func TestNilSchema(t *testing.T) {
	var s *Schema
	if s.Names() != nil || s.ColumnNames() != nil || s.Kinds() != nil || s.Source() != nil || s.Width() != 0 || s.Clone() != nil {
		t.Error("a nil Schema has contents")
	}
	if err := s.Check(); err == nil {
		t.Error("Check of a nil Schema")
	}
	f := &Frame{Rows: 1, Columns: []Column{{Name: "a", Kind: Numeric, Field: -1, Num: []float64{1}, Missing: []bool{false}}}}
	if _, err := s.Encode(f); err == nil {
		t.Error("Encode with a nil Schema")
	}
}

// TestQuoteCell: cells up to 80 bytes are quoted whole; longer ones are
// cut at a character boundary with their length (a 1 MB cell made a 1 MB
// error line).
func TestQuoteCell(t *testing.T) {
	if got := QuoteCell("a\"b"); got != `"a\"b"` {
		t.Errorf("short: %s", got)
	}
	if s := strings.Repeat("x", 80); QuoteCell(s) != strconv.Quote(s) {
		t.Error("80 bytes not quoted whole")
	}
	long := strings.Repeat("é", 1000) // 2 bytes each: a cut at 60 falls between characters
	got := QuoteCell(long)
	if !strings.HasSuffix(got, "... (2000 bytes)") || strings.Contains(got, `\x`) || len(got) > 100 {
		t.Errorf("long: %s", got)
	}
	if got := QuoteCell(strings.Repeat("\x80", 200)); !strings.HasPrefix(got, `"\x80\x80`) || !strings.HasSuffix(got, "... (200 bytes)") {
		t.Errorf("continuation bytes: %s", got)
	}
	_, err := parseNumber(strings.Repeat("1", 1<<20))
	if err == nil || len(err.Error()) > 200 || !strings.Contains(err.Error(), "(1048576 bytes)") {
		t.Errorf("a 1 MB number: %.300v", err)
	}
}

// A NaN spelled otherwise than an NA marker ("nan", "NAN") is an error
// that says how to mark it missing; "NaN" is missing by default.
func TestNaNSpellings(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "n.csv")
	for _, c := range []struct {
		cell string
		hint bool
	}{{"nan", true}, {"NAN", true}, {" nan ", true}, {"inf", false}, {"1e999", false}} {
		os.WriteFile(p, []byte("x,y\n1,NaN\n"+c.cell+",2\n"), 0o644)
		_, err := ReadFrame(p, FrameOptions{Kinds: map[string]Kind{"x": Numeric}})
		if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), "line 3") || strings.Contains(err.Error(), "missing-value markers") != c.hint {
			t.Errorf("%q: %v", c.cell, err)
		}
	}
	os.WriteFile(p, []byte("x,y\n1,NaN\nnan,2\n"), 0o644)
	f, err := ReadFrame(p, FrameOptions{NA: []string{"NaN", "nan"}})
	if err != nil || !f.Columns[0].Missing[1] || !f.Columns[1].Missing[0] {
		t.Errorf("with nan listed: %v", err)
	}
}

// TestSchemaLevelsEveryColumn: every column over the level limit is
// named, joined, not the first only; errors.As finds the first.
func TestSchemaLevelsEveryColumn(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,c,ok,d\n")
	for i := range 70 {
		fmt.Fprintf(&b, "id%d,c%d,k%d,d%d\n", i, i, i%3, i)
	}
	f, err := ReadFrame(writeFile(t, b.String()), FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = FitSchema(f, SchemaOptions{})
	var le *LevelsError
	if !errors.As(err, &le) || le.Column != "id" || !errors.Is(err, ErrTooManyLevels) {
		t.Fatalf("FitSchema: %v", err)
	}
	var cols []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		cols = append(cols, e.(*LevelsError).Column)
	}
	if !slices.Equal(cols, []string{"id", "c", "d"}) {
		t.Errorf("columns over the limit: %q", cols)
	}
	// One column: the *LevelsError itself.
	g, _ := f.Select("id", "ok")
	if _, err := FitSchema(g, SchemaOptions{}); err == nil {
		t.Error("one column over the limit: no error")
	} else if _, ok := err.(*LevelsError); !ok {
		t.Errorf("one column over the limit: %T", err)
	}
}

// TestHeaderRowRepeated: a data row that repeats the header (files joined
// with their headers) is an error naming its line, for every reader; a
// header of numbers may have a row like it.
func TestHeaderRowRepeated(t *testing.T) {
	path := writeFile(t, "x,y\n1,2\n\n x ,y\n3,4\n")
	if _, err := ReadFrame(path, FrameOptions{}); !errors.Is(err, ErrHeaderRow) || !strings.Contains(err.Error(), "line 4: a data row repeats the header") {
		t.Errorf("ReadFrame: %v", err)
	}
	if _, err := ReadCSV(path, ReadOptions{}); !errors.Is(err, ErrHeaderRow) {
		t.Errorf("ReadCSV: %v", err)
	}
	if _, err := ReadFrame(writeFile(t, "1,2\n3,4\n1,2\n"), FrameOptions{}); err != nil {
		t.Errorf("a header of numbers: %v", err)
	}
}

// TestEncodeNearLevels: an unseen level that a trained one matches but for
// case is paired with it in the warning (levels are matched exactly).
func TestEncodeNearLevels(t *testing.T) {
	f, err := ReadFrame(writeFile(t, "a\nyes\nno\nyes\n"), FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := FitSchema(f, SchemaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := ReadFrame(writeFile(t, "a\nYes\nmaybe\nNO\nYes\n"), FrameOptions{Kinds: s.Kinds()})
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.Encode(g)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Warnings) != 1 || e.Warnings[0].Unseen != 4 || !slices.Equal(e.Warnings[0].Near, [][2]string{{"Yes", "yes"}, {"NO", "no"}}) {
		t.Fatalf("warnings %+v", e.Warnings)
	}
	if w := e.Warnings[0].String(); !strings.Contains(w, `("Yes" is "yes" but for case, "NO" is "no" but for case: levels are matched exactly)`) {
		t.Errorf("warning %q", w)
	}
	// A level whose accent is written otherwise (a letter and a combining
	// mark for one character) is named, in ASCII: the two print alike.
	cafe, err := ReadFrame(writeFile(t, "a\ncaf\u00e9\ntea\n"), FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := FitSchema(cafe, SchemaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gc, err := ReadFrame(writeFile(t, "a\ncafe\u0301\nCAF\u00c9\n"), FrameOptions{Kinds: sc.Kinds()})
	if err != nil {
		t.Fatal(err)
	}
	ec, err := sc.Encode(gc)
	if err != nil {
		t.Fatal(err)
	}
	if len(ec.Warnings) != 1 || !strings.Contains(ec.Warnings[0].String(), `("cafe\u0301" is "caf\u00e9" but for how its accents are written (one character, or a letter and a combining mark), "CAFÉ" is "café" but for case:`) {
		t.Errorf("levels with a combining accent and in capitals: %+v", ec.Warnings)
	}
	// A level of numbers written otherwise ("3.0" for "3"), in a column
	// made categorical by its text: paired too (it had no hint; review).
	f, err = ReadFrame(writeFile(t, "a\n3\n-\n1\n3\n"), FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s, err = FitSchema(f, SchemaOptions{}); err != nil {
		t.Fatal(err)
	}
	g, err = ReadFrame(writeFile(t, "a\n3.0\n2\n1e0\n"), FrameOptions{Kinds: s.Kinds()})
	if err != nil {
		t.Fatal(err)
	}
	if e, err = s.Encode(g); err != nil {
		t.Fatal(err)
	}
	if len(e.Warnings) != 1 || !slices.Equal(e.Warnings[0].Near, [][2]string{{"3.0", "3"}, {"1e0", "1"}}) {
		t.Fatalf("warnings %+v", e.Warnings)
	}
	if w := e.Warnings[0].String(); !strings.Contains(w, `("3.0" is "3" as a number, "1e0" is "1" as a number: levels are matched exactly)`) {
		t.Errorf("warning %q", w)
	}
}

// TestTrailingCommaHint: data lines ending with a comma the header lacks
// are told so.
func TestTrailingCommaHint(t *testing.T) {
	_, err := ReadFrame(writeFile(t, "x,y\n1,2,\n3,4,\n"), FrameOptions{})
	if !errors.Is(err, ErrFieldCount) || !strings.Contains(err.Error(), "line 2: wrong number of fields: 3 fields, the header has 2 (the line ends with a comma that the header lacks") {
		t.Errorf("ReadFrame: %v", err)
	}
	if _, err := ReadFrame(writeFile(t, "x,y\n1,2,3\n"), FrameOptions{}); err == nil || strings.Contains(err.Error(), "ends with a comma") {
		t.Errorf("a third value: %v", err)
	}
}

// TestBlankLines: the blank lines between the header and the last row
// are counted, with the first one's line; those before the header or
// after the last row, and a quoted field's line breaks, are not.
func TestBlankLines(t *testing.T) {
	for _, c := range []struct {
		csv  string
		want BlankLines
		rows int
	}{
		{"a,y\n1,2\n\n\n3,4\n\n", BlankLines{2, 3}, 2},
		{"a,y\n\n1,2\n", BlankLines{1, 2}, 1},
		{"\n\na,y\n1,2\n3,4\n\n\n", BlankLines{}, 2},
		{"a,y\n\"x\n\ny\",2\n\n3,4\n", BlankLines{1, 5}, 2},
		{"a,y\r\n1,2\r\n\r\n3,4\r\n", BlankLines{1, 3}, 2},
		{"a\n70\n\n120\n", BlankLines{1, 3}, 2},
	} {
		p := writeFile(t, c.csv)
		f, err := ReadFrame(p, FrameOptions{})
		if err != nil {
			t.Fatalf("%q: %v", c.csv, err)
		}
		if f.Blank != c.want || f.Rows != c.rows {
			t.Errorf("%q: ReadFrame: %d rows, blank %+v, want %d, %+v", c.csv, f.Rows, f.Blank, c.rows, c.want)
		}
		if g, _ := f.Select("a"); g.Blank != c.want {
			t.Errorf("%q: Select: blank %+v", c.csv, g.Blank)
		}
		if c.csv[0] == 'a' && !strings.HasPrefix(c.csv, "a,y\n\"") {
			d, err := ReadCSV(p, ReadOptions{NoTarget: true})
			if err != nil {
				t.Fatalf("%q: ReadCSV: %v", c.csv, err)
			}
			if d.Blank != c.want {
				t.Errorf("%q: ReadCSV: blank %+v, want %+v", c.csv, d.Blank, c.want)
			}
		}
	}
}

// TestNumericNAMarker: a marker that is a number matches the cells of its
// value however written (pandas writes the sentinel -999 as -999.0), in a
// numeric column, in a categorical one, and in the rows a late text cell
// makes read again; a marker that is not a number matches only itself.
func TestNumericNAMarker(t *testing.T) {
	p := writeFile(t, "a,c,z,y\n"+
		"-999,-999.0,0.0,1\n"+
		"1,x,-0,2\n"+
		"-999.0,-9.99e2,0,3\n"+
		"-9.99e+2,y,1,4\n"+
		"2,+999,NA,5\n"+
		"-999.5,z,0.00,q\n")
	f, err := ReadFrame(p, FrameOptions{NA: []string{"-999", "0", "NA"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]bool{
		"a": {true, false, true, true, false, false},
		"c": {true, false, true, false, false, false},
		"z": {true, true, true, false, true, true},
		"y": {false, false, false, false, false, false},
	}
	for _, c := range f.Columns {
		if !slices.Equal(c.Missing, want[c.Name]) {
			t.Errorf("column %q: missing %v, want %v", c.Name, c.Missing, want[c.Name])
		}
	}
	if c := f.Columns[1]; c.Kind != Categorical || c.Str[4] != "+999" {
		t.Errorf("column c: %v %q", c.Kind, c.Str)
	}
	if c := f.Columns[0]; c.Kind != Numeric || c.Num[5] != -999.5 || c.Num[1] != 1 {
		t.Errorf("column a: %v %v", c.Kind, c.Num)
	}
	// A marker that is 0 only because it underflows ("1e-400") matches
	// itself only, not every zero cell.
	tiny := MissingMatcher([]string{"1e-400", "-0x1p-1075", "0e5"})
	for cell, w := range map[string]bool{"1e-400": true, "0": true, "-0": true, "0.0": true, "-0x1p-1075": true} {
		if tiny(cell) != w {
			t.Errorf("MissingMatcher(1e-400, -0x1p-1075, 0e5)(%q) = %v, want %v", cell, !w, w)
		}
	}
	if MissingMatcher([]string{"1e-400"})("0") {
		t.Errorf("the marker 1e-400 matches 0")
	}
	is := MissingMatcher([]string{"NaN", " 5 "})
	for cell, w := range map[string]bool{"": true, "NaN": true, "nan": false, "5": true, "5.0": true, "+5e0": true, "-5": false, "0x1.4p2": true, "5_0": false} {
		if is(cell) != w {
			t.Errorf("MissingMatcher(NaN, 5)(%q) = %v, want %v", cell, !w, w)
		}
	}
}

// TestFarCells: a numeric column keeps its training range, and cells
// beyond it by more than its width (a constant column: by more than its
// magnitude, at least 1) are counted in a warning that names the range;
// missing cells and cells near the range are not.
func TestFarCells(t *testing.T) {
	for _, c := range []struct {
		v   float64
		r   [2]float64
		far bool
	}{
		{3, [2]float64{1, 6}, false}, {11, [2]float64{1, 6}, false}, {11.01, [2]float64{1, 6}, true},
		{-4, [2]float64{1, 6}, false}, {-4.01, [2]float64{1, 6}, true},
		{14, [2]float64{7, 7}, false}, {14.5, [2]float64{7, 7}, true}, {-0.5, [2]float64{7, 7}, true},
		{1, [2]float64{0, 0}, false}, {1.5, [2]float64{0, 0}, true}, {-1.5, [2]float64{0, 0}, true},
		{1e308, [2]float64{-1e308, 1e308}, false},
	} {
		if got := Far(c.v, c.r); got != c.far {
			t.Errorf("Far(%v, %v) = %v, want %v", c.v, c.r, got, c.far)
		}
	}
	fit := &Frame{Rows: 4, Columns: []Column{
		{Name: "a", Kind: Numeric, Field: -1, Num: []float64{1, 6, 0, 3}, Missing: []bool{false, false, true, false}},
		{Name: "k", Kind: Numeric, Field: -1, Num: []float64{7, 7, 7, 7}, Missing: make([]bool, 4)},
		{Name: "e", Kind: Numeric, Field: -1, Num: make([]float64, 4), Missing: []bool{true, true, true, true}},
	}}
	s, err := FitSchema(fit, SchemaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Columns[0].Range; r == nil || *r != [2]float64{1, 6} || s.Columns[1].Range == nil || *s.Columns[1].Range != [2]float64{7, 7} || s.Columns[2].Range != nil {
		t.Fatalf("ranges %v %v %v", s.Columns[0].Range, s.Columns[1].Range, s.Columns[2].Range)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Schema
	if err := json.Unmarshal(b, &back); err != nil || *back.Columns[0].Range != [2]float64{1, 6} || back.Columns[2].Range != nil {
		t.Fatalf("JSON round trip: %s, %v", b, err)
	}
	pred := &Frame{Rows: 4, Columns: []Column{
		{Name: "a", Kind: Numeric, Field: -1, Num: []float64{100, 11, -20, 0}, Missing: []bool{false, false, false, true}},
		{Name: "k", Kind: Numeric, Field: -1, Num: []float64{7, 1e30, 14, -1}, Missing: make([]bool, 4)},
		{Name: "e", Kind: Numeric, Field: -1, Num: []float64{1e300, 0, 0, 0}, Missing: make([]bool, 4)},
	}}
	e, err := s.Encode(pred)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Warnings) != 2 || e.Warnings[0].Far != 2 || e.Warnings[1].Far != 2 {
		t.Fatalf("warnings %+v: want a with 2 far cells, k with 2", e.Warnings)
	}
	if w := e.Warnings[0].String(); !strings.Contains(w, `column "a": 2 cell(s) far beyond the training range [1, 6] (by more than its width)`) {
		t.Errorf("warning %q", w)
	}
	if w := e.Warnings[1].String(); !strings.Contains(w, "[7, 7] (a constant in training)") {
		t.Errorf("warning %q", w)
	}
	// A schema of a model file written before ranges were kept warns of
	// nothing.
	old := s.Clone()
	for j := range old.Columns {
		old.Columns[j].Range = nil
	}
	if e, err := old.Encode(pred); err != nil || len(e.Warnings) != 0 {
		t.Errorf("without ranges: %+v, %v", e.Warnings, err)
	}
}

// TestRangeText: a range's ends are written with the digits that tell
// them apart (a timestamp column read [1.7e+09, 1.7e+09]).
func TestRangeText(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{{1, 6, "[1, 6]"}, {7, 7, "[7, 7]"}, {1700000000, 1700000500, "[1.7e+09, 1.7000005e+09]"}, {0.1, 0.1000001, "[0.1, 0.1000001]"}} {
		if got := rangeText(c.lo, c.hi); got != c.want {
			t.Errorf("rangeText(%v, %v) = %s, want %s", c.lo, c.hi, got, c.want)
		}
	}
}

// TestSchemaNegativeZero: a numeric column of 0 and -0 has the range
// [0, 0] and the median 0, without a sign (show printed "[0, -0]").
func TestSchemaNegativeZero(t *testing.T) {
	negZero := math.Copysign(0, -1)
	f := &Frame{Rows: 3, Columns: []Column{{Name: "z", Kind: Numeric, Field: -1, Num: []float64{0, negZero, negZero}, Missing: make([]bool, 3)}}}
	s, err := FitSchema(f, SchemaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Columns[0]
	if c.Range == nil || math.Signbit(c.Range[0]) || math.Signbit(c.Range[1]) || c.Range[0] != 0 || c.Range[1] != 0 || c.Median != 0 || math.Signbit(c.Median) {
		t.Errorf("range %v, median %v; want [0, 0] and 0, no sign", c.Range, c.Median)
	}
}

// TestEncoderChunks: an Encoder fills any ranges of rows as Encode
// encodes them whole, and its warnings are Encode's (counts, the first
// five unseen levels and their near matches), of every row whichever
// were filled, and however often; a range outside the frame or an x of
// another length is an error.
func TestEncoderChunks(t *testing.T) {
	train := "num,cat,code\n1,red,3\n,blue,1\n5,green,\n3,red,3\n"
	f, err := ReadFrame(writeFile(t, train), FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := FitSchema(f, SchemaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("code,cat,num\n")
	cats := []string{"red", "Red", "BLUE", "pink", "green", "", "teal", "gray", "navy", "RED", "olive"}
	codes := []string{"3", "1", "3.0", "7", "", "1e0"}
	for i := range 300 {
		num := strconv.Itoa(i % 11)
		if i%13 == 0 {
			num = ""
		}
		if i%37 == 5 {
			num = "1000"
		}
		fmt.Fprintf(&b, "%s,%s,%s\n", codes[(i*7)%len(codes)], cats[(i*5)%len(cats)], num)
	}
	g, err := ReadFrame(writeFile(t, b.String()), FrameOptions{Kinds: s.Kinds()})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := s.Encode(g)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Warnings) != 3 {
		t.Fatalf("the test wants a warning for every column: %+v", whole.Warnings)
	}
	for _, size := range []int{1, 7, 64, 299, 300} {
		en, err := s.Encoder(g)
		if err != nil {
			t.Fatal(err)
		}
		if en.Rows() != 300 || en.Cols() != whole.Cols {
			t.Fatalf("rows %d, cols %d", en.Rows(), en.Cols())
		}
		if size == 7 {
			if got := en.Warnings(); !reflect.DeepEqual(got, whole.Warnings) {
				t.Errorf("before any fill: warnings %+v, want %+v", got, whole.Warnings)
			}
		}
		for lo := 0; lo < g.Rows; lo += size {
			hi := min(lo+size, g.Rows)
			x := make([]float64, (hi-lo)*en.Cols())
			for i := range x {
				x[i] = -7 // overwritten
			}
			if err := en.Fill(lo, hi, x); err != nil {
				t.Fatal(err)
			}
			if want := whole.X[lo*whole.Cols : hi*whole.Cols]; !slices.Equal(x, want) {
				t.Fatalf("size %d: rows [%d, %d) differ", size, lo, hi)
			}
		}
		if err := en.Fill(0, 1, make([]float64, en.Cols())); err != nil { // a row again
			t.Fatal(err)
		}
		if got := en.Warnings(); !reflect.DeepEqual(got, whole.Warnings) {
			t.Errorf("size %d: warnings %+v, want %+v", size, got, whole.Warnings)
		}
	}
	en, _ := s.Encoder(g)
	for _, r := range [][2]int{{-1, 2}, {5, 4}, {299, 301}} {
		if err := en.Fill(r[0], r[1], make([]float64, max(0, r[1]-r[0])*en.Cols())); err == nil {
			t.Errorf("Fill(%d, %d): no error", r[0], r[1])
		}
	}
	if err := en.Fill(0, 2, make([]float64, en.Cols())); err == nil {
		t.Error("Fill with a short x: no error")
	}
	if err := en.Fill(3, 3, nil); err != nil {
		t.Errorf("an empty range: %v", err)
	}
	// A subset of the rows, in another order, with a row twice: as the
	// frame's Subset encodes, warnings too (WarningsOf the full Encoder).
	idx := []int{299, 5, 17, 5, 150, 0, 42, 97, 98, 200, 13}
	want, err := s.Encode(g.Subset(idx))
	if err != nil {
		t.Fatal(err)
	}
	sub, err := en.Subset(idx)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, len(idx)*sub.Cols())
	if err := sub.Fill(0, len(idx), x); err != nil || !slices.Equal(x, want.X) {
		t.Errorf("Subset's rows differ from the frame's Subset's (%v)", err)
	}
	if got := sub.Warnings(); !reflect.DeepEqual(got, want.Warnings) {
		t.Errorf("Subset's warnings %+v, want %+v", got, want.Warnings)
	}
	if got := en.WarningsOf(idx); !reflect.DeepEqual(got, want.Warnings) {
		t.Errorf("WarningsOf %+v, want %+v", got, want.Warnings)
	}
	// Warnings are the caller's to change.
	w1 := en.Warnings()
	w1[1].Levels[0], w1[1].Near[0][0] = "changed", "changed"
	if got := en.Warnings(); !reflect.DeepEqual(got, whole.Warnings) {
		t.Errorf("Warnings after a change to an earlier answer: %+v", got)
	}
	if _, err := en.Subset([]int{300}); err == nil {
		t.Error("Subset of a row out of range: no error")
	}
	var none *Encoder
	if none.Rows() != 0 || none.Cols() != 0 || none.Fill(0, 0, nil) == nil || none.Warnings() != nil {
		t.Error("a nil Encoder: want no rows, no columns and an error from Fill")
	}
}
