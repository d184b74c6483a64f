package data

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestDialectParseNumber(t *testing.T) {
	dc := Dialect{DecimalComma: true}
	for s, want := range map[string]float64{
		"1,5": 1.5, " -1,5 ": -1.5, "+0,25": 0.25, ",5": 0.5, "1,": 1, "12": 12, "1e5": 1e5, "1,5e-3": 1.5e-3,
		"1.234": 1234, "1.234,5": 1234.5, "-12.345.678,9": -12345678.9, "0x1p-2": 0.25, "1.000e3": 1e6,
	} {
		got, err := dc.ParseNumber(s)
		if err != nil || got != want {
			t.Errorf("decimal comma: %q = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"1.5", "0.25", ".5", "1.23", "1.2345", "1,2,3", "1.234.5", ",", "", "a,b", "1,5x", "1_000,5", "12.34,5", "1,5.0",
		// A first group of 0 groups nothing: a decimal point (helper-147:
		// "0.125" was 125).
		"0.125", "-0.001", "000.123", "0.500,5", "0x1,8p1", "0x1.8p1", "inf,5", "1,5_0"} {
		_, err := dc.ParseNumber(s)
		var ne *NotNumberError
		if !errors.Is(err, ErrNotNumber) || s != "" && (!errors.As(err, &ne) || ne.Text != s) {
			t.Errorf("decimal comma: %q: %v, want not a number holding the cell", s, err)
		}
	}
	if _, err := dc.ParseNumber("9,9e999"); !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), `"9,9e999"`) {
		t.Errorf("overflow: %v", err)
	}
	// The zero dialect is ParseNumber.
	for _, s := range []string{"1.5", "1,5", "1.234", "-0", "inf", " 7 "} {
		a, aerr := Dialect{}.ParseNumber(s)
		b, berr := ParseNumber(s)
		if a != b || (aerr == nil) != (berr == nil) {
			t.Errorf("zero dialect %q: %v %v, ParseNumber %v %v", s, a, aerr, b, berr)
		}
	}
}

func TestDialectCheck(t *testing.T) {
	for _, r := range []rune{0, ',', ';', '\t', '|', ':', '#', '~', '¦'} {
		if err := (Dialect{Sep: r}).Check(); err != nil {
			t.Errorf("%q: %v", r, err)
		}
	}
	for _, r := range []rune{'"', '\n', '\r', ' ', 'a', '5', '.', '-', '+', '_', '\x01', '\u00a0', 0xfffd, -1, 0x110000} {
		if err := (Dialect{Sep: r}).Check(); err == nil {
			t.Errorf("%q: no error", r)
		}
	}
	p := writeTemp(t, "a.csv", "a,y\n1,2\n")
	if _, err := ReadFrame(p, FrameOptions{Dialect: Dialect{Sep: '"'}}); err == nil || !strings.Contains(err.Error(), "double quote") {
		t.Errorf("ReadFrame with a quote separator: %v", err)
	}
}

// TestReadFrameDialect: a semicolon file with decimal commas, as
// spreadsheets export them where the comma is the decimal mark, reads as
// the same numbers as its comma-and-point twin; text stays text.
func TestReadFrameDialect(t *testing.T) {
	semi := writeTemp(t, "semi.csv", "x;kind;y\n1,5;a,b;10\n-2,25;c;1.234,5\n;d;3\nNA;a,b;4\n1e2;c;0,5\n")
	comma := writeTemp(t, "comma.csv", "x,kind,y\n1.5,\"a,b\",10\n-2.25,c,1234.5\n,d,3\nNA,\"a,b\",4\n1e2,c,0.5\n")
	a, err := ReadFrame(semi, FrameOptions{Dialect: Dialect{Sep: ';', DecimalComma: true}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadFrame(comma, FrameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Dialect != (Dialect{Sep: ';', DecimalComma: true}) || b.Dialect != (Dialect{}) {
		t.Errorf("dialects %+v %+v", a.Dialect, b.Dialect)
	}
	for j := range b.Columns {
		ca, cb := a.Columns[j], b.Columns[j]
		if ca.Kind != cb.Kind || ca.Name != cb.Name || strings.Join(ca.Str, "|") != strings.Join(cb.Str, "|") {
			t.Errorf("column %d: %+v against %+v", j, ca, cb)
		}
		for i := range ca.Num {
			if ca.Num[i] != cb.Num[i] || ca.Missing[i] != cb.Missing[i] {
				t.Errorf("column %d row %d: %v against %v", j, i, ca.Num[i], cb.Num[i])
			}
		}
	}
	if s := a.Subset([]int{1}); s.Dialect != a.Dialect {
		t.Errorf("Subset lost the dialect")
	}
	if s, _ := a.Select("x"); s.Dialect != a.Dialect {
		t.Errorf("Select lost the dialect")
	}
	// A point is no decimal point under DecimalComma: the column is text,
	// and a model's numeric column refuses it, naming the cell.
	pts := writeTemp(t, "pts.csv", "x;y\n1.5;1\n2;2\n")
	f, err := ReadFrame(pts, FrameOptions{Dialect: Dialect{Sep: ';', DecimalComma: true}})
	if err != nil {
		t.Fatal(err)
	}
	if f.Columns[0].Kind != Categorical {
		t.Errorf("1.5 under a decimal comma: %s column", f.Columns[0].Kind)
	}
	if err := f.NotNumeric(0); !errors.Is(err, ErrNotNumber) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("NotNumeric: %v", err)
	}
	_, err = ReadFrame(pts, FrameOptions{Dialect: Dialect{Sep: ';', DecimalComma: true}, Kinds: map[string]Kind{"x": Numeric}})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Column != 1 {
		t.Errorf("a numeric x: %v", err)
	}
	// A marker that is a number matches its value's cells as the dialect
	// reads them.
	mk := writeTemp(t, "mk.csv", "x;y\n-999;1\n-999,0;2\n3,5;3\n")
	f, err = ReadFrame(mk, FrameOptions{Dialect: Dialect{Sep: ';', DecimalComma: true}, NA: []string{"-999"}})
	if err != nil {
		t.Fatal(err)
	}
	if c := f.Columns[0]; c.Kind != Numeric || !c.Missing[0] || !c.Missing[1] || c.Missing[2] || c.Num[2] != 3.5 {
		t.Errorf("markers: %+v", c)
	}
	// A tab-separated file through ReadCSV, ReadFeatures and the header.
	tab := writeTemp(t, "t.tsv", "a\tb\ty\n1\t2,5\t3\n4\t5\t6\n")
	d, err := ReadCSV(tab, ReadOptions{Dialect: Dialect{Sep: '\t', DecimalComma: true}})
	if err != nil || d.Cols != 2 || d.X[1] != 2.5 || d.Y[1] != 6 {
		t.Fatalf("ReadCSV: %+v %v", d, err)
	}
	if d, err = (Dialect{Sep: '\t', DecimalComma: true}).ReadFeatures(tab, []string{"b"}, "y"); err != nil || d.X[0] != 2.5 || d.Y[0] != 3 {
		t.Errorf("ReadFeatures: %+v %v", d, err)
	}
	if h, line, err := (Dialect{Sep: '\t'}).ReadHeaderLine(tab); err != nil || strings.Join(h, "|") != "a|b|y" || line != 1 {
		t.Errorf("ReadHeaderLine: %q %d %v", h, line, err)
	}
	if h, _ := ReadHeader(tab); len(h) != 1 {
		t.Errorf("the comma dialect reads a tab file as one column: %q", h)
	}
	if _, err := ReadCSV(tab, ReadOptions{Dialect: Dialect{Sep: '\t'}}); !errors.Is(err, ErrNotNumber) {
		t.Errorf("2,5 without DecimalComma: %v", err)
	}
}

// TestEncodeDialect: a schema encodes a frame's numbers written as its
// dialect says, where the frame holds a numeric column as text.
func TestEncodeDialect(t *testing.T) {
	tr := writeTemp(t, "tr.csv", "x;y\n1,5;1\n2,5;2\n3;3\n")
	f, err := ReadFrame(tr, FrameOptions{Dialect: Dialect{Sep: ';', DecimalComma: true}})
	if err != nil {
		t.Fatal(err)
	}
	x, err := f.Select("x")
	if err != nil {
		t.Fatal(err)
	}
	s, err := FitSchema(x, SchemaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Read without kinds, a column with text is categorical; its numbers
	// are read by the frame's dialect.
	g := &Frame{Rows: 2, Dialect: Dialect{DecimalComma: true}, Columns: []Column{{Name: "x", Kind: Categorical, Str: []string{"0,5", "4"}, Missing: []bool{false, false}}}}
	e, err := s.Encode(g)
	if err != nil {
		t.Fatal(err)
	}
	if e.X[0] != 0.5 || e.X[1] != 4 || math.IsNaN(e.X[0]) {
		t.Errorf("encoded %v", e.X)
	}
	// So are its targets (Targets parsed the text as Go does: "0,5" was
	// 0, without an error).
	if y, err := g.Targets(0); err != nil || y[0] != 0.5 || y[1] != 4 {
		t.Errorf("Targets: %v, %v", y, err)
	}
	g.Dialect = Dialect{}
	if _, err := s.Encode(g); !errors.Is(err, ErrNotNumber) {
		t.Errorf("0,5 without the dialect: %v", err)
	}
	if _, err := g.Targets(0); !errors.Is(err, ErrNotNumber) {
		t.Errorf("Targets of 0,5 without the dialect: %v", err)
	}
}

// TestSchemaNAIn: a schema's markers that are numbers are given to a file
// of the other notation as the same numbers: "-999,5" of a file of
// decimal commas is -999.5 in a file of points (as text it stays too),
// and "1.234" there (1234) is no longer 1.234; text markers, and numbers
// read alike, are kept as they are. FitSchema records the notation; a
// schema without it (an older file) keeps its markers as written, and one
// of no markers stays so (not DefaultNA). A marker that was text in
// training and is a number in the other notation is left out; the
// categorical columns' matcher reads the markers as training did.
func TestSchemaNAIn(t *testing.T) {
	yes, no := true, false
	s := &Schema{NA: []string{"NA", "-999,5", "1.234", "-1", " 0,25 "}, NADecimalComma: &yes}
	if got, want := s.NAIn(Dialect{}), []string{"NA", "-999,5", "-999.5", "1234", "-1", " 0,25 ", "0.25"}; !slices.Equal(got, want) {
		t.Errorf("in a file of points: %q, want %q", got, want)
	}
	if got := s.NAIn(Dialect{Sep: ';', DecimalComma: true}); !slices.Equal(got, s.NA) {
		t.Errorf("in a file of decimal commas: %q, want the markers as they are", got)
	}
	p := &Schema{NA: []string{"-999.5", "?", "1e3"}, NADecimalComma: &no}
	if got, want := p.NAIn(Dialect{DecimalComma: true}), []string{"-999.5", "-999,5", "?", "1e3"}; !slices.Equal(got, want) {
		t.Errorf("a file of points' markers in one of commas: %q, want %q", got, want)
	}
	if (&Schema{}).NAIn(Dialect{}) != nil {
		t.Error("no markers: want nil (DefaultNA)")
	}
	if got := (&Schema{NA: []string{}, NADecimalComma: &no}).NAIn(Dialect{DecimalComma: true}); got == nil || len(got) != 0 {
		t.Errorf("only empty cells (--na ''): %q, want an empty list, not nil (DefaultNA)", got)
	}
	if got := (&Schema{NA: []string{"1.000", "x"}}).NAIn(Dialect{DecimalComma: true}); !slices.Equal(got, []string{"1.000", "x"}) {
		t.Errorf("an older schema's markers: %q, want them as written", got)
	}
	tx := &Schema{NA: []string{`1,000`, "1.5", "n/a"}, NADecimalComma: &no}
	if got := tx.NAIn(Dialect{Sep: ';', DecimalComma: true}); !slices.Equal(got, []string{"1.5", "1,5", "n/a"}) {
		t.Errorf("a text marker that is a number with decimal commas: %q, want it left out", got)
	}
	is := tx.NATextMatcher()
	for cell, want := range map[string]bool{"1,000": true, "1.5": true, "1,5": false, "2,50": false, "n/a": true, "": true, "1": false} {
		if is(cell) != want {
			t.Errorf("the categorical matcher on %q: %v, want %v", cell, !want, want)
		}
	}
	if (&Schema{NA: []string{"x"}}).NATextMatcher() != nil {
		t.Error("an older schema's categorical matcher: want nil (NA as read, every column alike)")
	}
	// Each marker, given, matches in the other file the cells of its number.
	for _, c := range []struct {
		s     *Schema
		d     Dialect
		cells []string
	}{
		{s, Dialect{}, []string{"-999.5", "-999.50", "1234", "0.25", "NA"}},
		{p, Dialect{DecimalComma: true}, []string{"-999,5", "-999,50", "1000", "?"}},
	} {
		is := c.d.MissingMatcher(c.s.NAIn(c.d))
		for _, cell := range c.cells {
			if !is(cell) {
				t.Errorf("%q in %+v: not missing", cell, c.d)
			}
		}
		for _, cell := range []string{"1.234", "1,234", "-999", "0"} {
			if is(cell) {
				t.Errorf("%q in %+v: missing", cell, c.d)
			}
		}
	}
	f, err := ReadFrame(writeFile(t, "a;b\n1,5;x\n-999,5;y\n"), FrameOptions{Dialect: Dialect{Sep: ';', DecimalComma: true}, NA: []string{"-999,5"}})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := FitSchema(f, SchemaOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fs.NADecimalComma == nil || !*fs.NADecimalComma || fs.Clone().NADecimalComma == nil || !*fs.Clone().NADecimalComma {
		t.Error("FitSchema on a file of decimal commas: NADecimalComma false")
	}
}
