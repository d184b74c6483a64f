package data

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"decoreg/internal/memlimit"
)

// writeTemp writes content to a file called name in a new temporary
// directory and returns its path.
func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func gzipBytes(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func checkDataset(t *testing.T, d *Dataset, names []string, x, y []float64, target string) {
	t.Helper()
	if !slices.Equal(d.Names, names) || d.Cols != len(names) {
		t.Errorf("names %q cols %d, want %q", d.Names, d.Cols, names)
	}
	if d.Rows != len(x)/len(names) {
		t.Errorf("rows %d, want %d", d.Rows, len(x)/len(names))
	}
	if !slices.Equal(d.X, x) {
		t.Errorf("X = %v, want %v", d.X, x)
	}
	if !slices.Equal(d.Y, y) || (d.Y == nil) != (y == nil) {
		t.Errorf("Y = %v, want %v", d.Y, y)
	}
	if d.TargetName != target {
		t.Errorf("target %q, want %q", d.TargetName, target)
	}
}

func TestReadCSV(t *testing.T) {
	p := filepath.Join("testdata", "tiny.csv")
	d, err := ReadCSV(p, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkDataset(t, d, []string{"x0", "x1"}, []float64{1, 2, 4, 5, -7.5, 0.8, 0.25, 1000}, []float64{3, 6, 9, -2}, "y")
	if d.Path != p {
		t.Errorf("path %q", d.Path)
	}
	if got := d.Row(2); !slices.Equal(got, []float64{-7.5, 0.8}) {
		t.Errorf("Row(2) = %v", got)
	}

	d, err = ReadCSV(p, ReadOptions{Target: "x0"})
	if err != nil {
		t.Fatal(err)
	}
	checkDataset(t, d, []string{"x1", "y"}, []float64{2, 3, 5, 6, 0.8, 9, 1000, -2}, []float64{1, 4, -7.5, 0.25}, "x0")

	d, err = ReadCSV(p, ReadOptions{NoTarget: true})
	if err != nil {
		t.Fatal(err)
	}
	checkDataset(t, d, []string{"x0", "x1", "y"}, []float64{1, 2, 3, 4, 5, 6, -7.5, 0.8, 9, 0.25, 1000, -2}, nil, "")
}

func TestReadCSVGzipByMagic(t *testing.T) {
	const src = "a,b,c\n1,2,3\n4,5,6\n"
	dir := t.TempDir()
	// gzipped content under a plain name, plain content under a .gz name
	zp := filepath.Join(dir, "data.csv")
	os.WriteFile(zp, gzipBytes(t, src), 0o644)
	pp := filepath.Join(dir, "plain.csv.gz")
	os.WriteFile(pp, []byte(src), 0o644)
	for _, p := range []string{zp, pp} {
		d, err := ReadCSV(p, ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		checkDataset(t, d, []string{"a", "b"}, []float64{1, 2, 4, 5}, []float64{3, 6}, "c")
	}
	// CRLF line ends, a byte order mark and blank lines are accepted.
	d, err := ReadCSV(writeTemp(t, "crlf.csv", "\ufeffa , b\r\n1,2\r\n\r\n3,4\r\n"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkDataset(t, d, []string{"a"}, []float64{1, 3}, []float64{2, 4}, "b")
	// A byte order mark before a quoted name (spreadsheets' exports), in
	// a plain and a gzipped file.
	bom := "\ufeff\"a\",\"b\"\r\n1,2\r\n3,4\r\n"
	bz := filepath.Join(t.TempDir(), "bom.csv.gz")
	os.WriteFile(bz, gzipBytes(t, bom), 0o644)
	// Two of them, and one before the gzip bytes.
	bbz := filepath.Join(t.TempDir(), "bom-gz.csv")
	os.WriteFile(bbz, append([]byte("\ufeff"), gzipBytes(t, "\ufeff"+bom)...), 0o644)
	for _, p := range []string{writeTemp(t, "bom.csv", bom), bz, writeTemp(t, "bom2.csv", "\ufeff"+bom), bbz} {
		d, err := ReadCSV(p, ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		checkDataset(t, d, []string{"a"}, []float64{1, 3}, []float64{2, 4}, "b")
	}
}

func TestReadCSVErrors(t *testing.T) {
	tests := []struct {
		name, content string
		opts          ReadOptions
		sentinel      error
		line, col     int
		msg           string // the whole Error() text, with "F" for the path; "" to skip
	}{
		{"empty", "", ReadOptions{}, ErrEmpty, 0, 0, "F: empty file"},
		{"blank lines", "\n\n", ReadOptions{}, ErrEmpty, 0, 0, ""},
		{"header only", "a,b,c\n", ReadOptions{}, ErrNoRows, 0, 0, "F: no data rows (header only)"},
		{"ragged short", "a,b,c\n1,2,3\n1,2\n", ReadOptions{}, ErrFieldCount, 3, 0,
			"F: line 3: wrong number of fields: 2 fields, the header has 3"},
		{"ragged long", "a,b\n1,2\n3,4\n5,6,7\n", ReadOptions{}, ErrFieldCount, 4, 0, ""},
		{"not a number", "a,b,c\n1,2,3\n4,x5,6\n", ReadOptions{}, ErrNotNumber, 3, 2,
			`F: line 3, column 2: not a number: "x5" in column "b"`},
		{"empty cell", "a,b\n1,\n", ReadOptions{}, ErrNotNumber, 2, 2, `F: line 2, column 2: not a number: empty cell in column "b"`},
		{"underscore", "a,b\n1_0,2\n", ReadOptions{}, ErrNotNumber, 2, 1, ""},
		{"NaN feature", "a,b\n1,2\nNaN,3\n", ReadOptions{}, ErrNonFinite, 3, 1,
			`F: line 3, column 1: not a finite number: "NaN" in column "a"`},
		{"Inf target", "a,b\n1,2\n3,-Inf\n", ReadOptions{}, ErrNonFinite, 3, 2, ""},
		{"overflow", "a,b\n1,1e999\n", ReadOptions{}, ErrNonFinite, 2, 2, ""},
		{"duplicate", "a,b,a\n1,2,3\n", ReadOptions{}, ErrDuplicateColumn, 1, 3,
			`F: line 1, column 3: duplicate column name: "a" (also column 1)`},
		{"no target", "a,b\n1,2\n", ReadOptions{Target: "y"}, ErrNoColumn, 1, 0,
			`F: line 1: no such column: target "y" not among the columns "a", "b"`},
		{"only target", "y\n1\n", ReadOptions{}, ErrNoFeatures, 1, 0, ""},
		{"bad quote", "a,b\n1,\"2\n", ReadOptions{}, csv.ErrQuote, 2, 0, ""},
		// A quoted field that runs on: the record's first line, and where
		// the reader stopped.
		{"open quote", "a,b,y\n1,\"2,3\n4,5,6\n", ReadOptions{}, csv.ErrQuote, 2, 0,
			`F: line 2: extraneous or missing " in quoted-field (at line 3, byte 7, in a quoted field that starts on line 2)`},
		{"bare quote", "a,b,y\n1,2\"x,3\n", ReadOptions{}, csv.ErrBareQuote, 2, 0,
			`F: line 2: bare " in non-quoted-field (at byte 4 of the line)`},
		{"late NaN in ignored order", "a,b\n1,2\n3,4\n5,nan\n", ReadOptions{NoTarget: true}, ErrNonFinite, 4, 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := writeTemp(t, "f.csv", tc.content)
			d, err := ReadCSV(p, tc.opts)
			if err == nil {
				t.Fatalf("no error; got %+v", d)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%v (%T) is not a *ParseError", err, err)
			}
			if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
				t.Errorf("%v does not wrap %v", err, tc.sentinel)
			}
			if pe.Path != p || pe.Line != tc.line || pe.Column != tc.col {
				t.Errorf("%v: path %q line %d column %d, want line %d column %d", err, pe.Path, pe.Line, pe.Column, tc.line, tc.col)
			}
			if tc.msg != "" {
				if want := p + strings.TrimPrefix(tc.msg, "F"); err.Error() != want {
					t.Errorf("got %q, want %q", err, want)
				}
			}
		})
	}
}

func TestReadCSVFileErrors(t *testing.T) {
	p := filepath.Join(t.TempDir(), "missing.csv")
	_, err := ReadCSV(p, ReadOptions{})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), p) {
		t.Errorf("missing file: %v", err)
	}
	// A corrupt gzip stream: the header is fine, the body is cut short.
	z := gzipBytes(t, "a,b\n1,2\n3,4\n5,6\n")
	zp := writeTemp(t, "cut.csv.gz", string(z[:len(z)-10]))
	_, err = ReadCSV(zp, ReadOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), zp+": ") {
		t.Errorf("truncated gzip: %v", err)
	}
	// An empty gzip stream is an empty file.
	_, err = ReadCSV(writeTemp(t, "e.gz", string(gzipBytes(t, ""))), ReadOptions{})
	if !errors.Is(err, ErrEmpty) {
		t.Errorf("empty gzip: %v", err)
	}
}

func TestReadFeatures(t *testing.T) {
	// Columns in another order, an extra non-numeric column that is ignored.
	p := writeTemp(t, "in.csv", "id,x1,y,x0\nabc,2,3,1\ndef,5,6,4\n")
	d, err := ReadFeatures(p, []string{"x0", "x1"}, "y")
	if err != nil {
		t.Fatal(err)
	}
	checkDataset(t, d, []string{"x0", "x1"}, []float64{1, 2, 4, 5}, []float64{3, 6}, "y")

	// Without the target column: Y is nil.
	p = writeTemp(t, "in.csv", "x1,x0\n2,1\n5,4\n")
	d, err = ReadFeatures(p, []string{"x0", "x1"}, "y")
	if err != nil {
		t.Fatal(err)
	}
	checkDataset(t, d, []string{"x0", "x1"}, []float64{1, 2, 4, 5}, nil, "")

	_, err = ReadFeatures(p, []string{"x0", "x2"}, "y")
	var pe *ParseError
	if !errors.Is(err, ErrNoColumn) || !errors.As(err, &pe) || pe.Line != 1 || !strings.Contains(err.Error(), `feature "x2" missing`) {
		t.Errorf("missing feature: %v", err)
	}
	// A bad cell in a used column is reported; one in an ignored column is not.
	p = writeTemp(t, "in.csv", "x0,y,z\n1,2,q\n3,NaN,q\n")
	if _, err := ReadFeatures(p, []string{"x0"}, ""); err != nil {
		t.Errorf("ignored columns parsed: %v", err)
	}
	_, err = ReadFeatures(p, []string{"x0"}, "y")
	if !errors.Is(err, ErrNonFinite) || !errors.As(err, &pe) || pe.Line != 3 || pe.Column != 2 {
		t.Errorf("NaN target: %v", err)
	}
	// A blank cell is ErrEmptyCell (and ErrNotNumber).
	p = writeTemp(t, "in.csv", "x0,y\n1,2\n3, \n")
	_, err = ReadFeatures(p, []string{"x0"}, "y")
	if !errors.Is(err, ErrEmptyCell) || !errors.Is(err, ErrNotNumber) || !errors.As(err, &pe) || pe.Line != 3 || pe.Column != 2 {
		t.Errorf("blank target: %v", err)
	}
}

func TestReadHeader(t *testing.T) {
	p := writeTemp(t, "in.csv", "\ufeff a , b,c\n1,2,\n")
	h, err := ReadHeader(p)
	if err != nil || strings.Join(h, "|") != "a|b|c" {
		t.Errorf("ReadHeader = %q, %v; want [a b c]", h, err)
	}
	if _, err := ReadHeader(writeTemp(t, "e.csv", "")); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty file: %v", err)
	}
}

// A file whose lines end with CR alone (old Mac files) is refused as such:
// CSV read it as one line, and the message was "duplicate column name".
// A header with two unnamed columns says they have no name.
func TestCRLineEndsAndUnnamedColumns(t *testing.T) {
	for _, body := range []string{"a,b,y\r1,2,3\r4,5,6\r", "a,b,y\r1,2,3", "a,b,y\r1,2,3\r4,5,6\n", "a,b,y\r1,2,3\n"} {
		for _, gz := range []bool{false, true} {
			content := body
			if gz {
				content = string(gzipBytes(t, body))
			}
			p := writeTemp(t, "cr.csv", content)
			_, err := ReadFrame(p, FrameOptions{})
			var pe *ParseError
			if !errors.Is(err, ErrCRLineEnds) || !errors.As(err, &pe) || pe.Line != 1 || !strings.Contains(err.Error(), "carriage return") {
				t.Errorf("%q (gzip %v): %v", body, gz, err)
			}
		}
	}
	// Data lines ending with CR alone after an LF header: the same, not
	// "wrong number of fields" (ReadCSV and ReadFrame).
	for _, body := range []string{"a,b,y\n1,2,3\r4,5,6\r", "a,b,y\n1,2,3\r4,5,6\r7,8,9"} {
		p := writeTemp(t, "crlater.csv", body)
		_, err := ReadFrame(p, FrameOptions{})
		_, err2 := ReadCSV(p, ReadOptions{})
		for _, e := range []error{err, err2} {
			if !errors.Is(e, ErrCRLineEnds) || !strings.Contains(e.Error(), "line 2") || !strings.Contains(e.Error(), "after the header") {
				t.Errorf("%q: %v", body, e)
			}
		}
	}
	// A stray carriage return in an LF or CRLF file is a field count error,
	// not CR line ends (the advice to convert them would not mend it).
	for _, body := range []string{"a,b,y\r\n1,2,3\r\n4,5\r6\r\n", "a,b,y\n1,2,3\n4,5\r6\n"} {
		_, err := ReadFrame(writeTemp(t, "stray.csv", body), FrameOptions{})
		if !errors.Is(err, ErrFieldCount) || errors.Is(err, ErrCRLineEnds) {
			t.Errorf("%q: %v", body, err)
		}
	}
	// CRLF and a quoted carriage return in a cell are read as before.
	for _, body := range []string{"a,b,y\r\n1,2,3\r\n", "a,b,y\n1,\"x\ry\",3\n", "a,\"b\rc\",y\n1,2,3\n", "a,b,y\n1,\"x\ry\",3\n4,5,6\n"} {
		if _, err := ReadFrame(writeTemp(t, "ok.csv", body), FrameOptions{}); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
	// Several columns without a name (a spreadsheet's trailing commas)
	// are read, each a column named "" with its own field; "" asked for
	// reads them all. A name twice is still refused.
	u := writeTemp(t, "u.csv", ",a,y,,\n0,1,2,,x\n")
	h, err := ReadHeader(u)
	if err != nil || strings.Join(h, "|") != "|a|y||" {
		t.Errorf("two unnamed columns: header %q, %v", h, err)
	}
	for _, cols := range [][]string{nil, {"a", "", "y"}} {
		f, err := ReadFrame(u, FrameOptions{Columns: cols})
		if err != nil {
			t.Fatalf("%q: %v", cols, err)
		}
		var got []string
		for _, c := range f.Columns {
			got = append(got, fmt.Sprintf("%s@%d", c.Name, c.Field))
		}
		want := "@0 a@1 y@2 @3 @4"
		if cols != nil {
			want = "a@1 @0 @3 @4 y@2"
		}
		if strings.Join(got, " ") != want {
			t.Errorf("columns %q: read %v, want %s", cols, got, want)
		}
		if g, err := f.Drop(""); err != nil || strings.Join(g.Names(), ",") != "a,y" {
			t.Errorf("Drop(\"\"): %v, %v", g, err)
		}
		if _, err := f.Select("a", "", ""); !errors.Is(err, ErrDuplicateColumn) || !strings.Contains(err.Error(), "more than one column has no name") {
			t.Errorf("Select with \"\" twice: %v", err)
		}
	}
	// By position (a model without names): the k-th "" is the k-th
	// unnamed column.
	un := writeTemp(t, "un.csv", ",a,y,,\n0,1,2,3,4\n")
	d, err := ReadFeatures(un, []string{"", "a", "", ""}, "y")
	if err != nil || fmt.Sprint(d.X) != "[0 1 3 4]" {
		t.Errorf("ReadFeatures of the unnamed columns: %v, %v", d, err)
	}
	if _, err := ReadFeatures(un, []string{"", "", "", ""}, "y"); !errors.Is(err, ErrNoColumn) {
		t.Errorf("ReadFeatures of a fourth unnamed column: %v", err)
	}
	_, err = ReadFrame(writeTemp(t, "d.csv", "a,y,a\n1,2,3\n"), FrameOptions{})
	if !errors.Is(err, ErrDuplicateColumn) || !strings.Contains(err.Error(), "line 1, column 3") || !strings.Contains(err.Error(), `"a" (also column 1)`) {
		t.Errorf("a name twice: %v", err)
	}
}

// A gzipped table cut short, or with a wrong checksum, is an error that
// says so and names the last line read whole.
func TestGzipTruncated(t *testing.T) {
	var src strings.Builder
	src.WriteString("a,y\n")
	for i := range 3000 {
		fmt.Fprintf(&src, "%d,%d\n", i, 2*i)
	}
	z := gzipBytes(t, src.String())
	dir := t.TempDir()
	bad := slices.Clone(z)
	bad[len(bad)-8] ^= 0xff // the CRC-32 in the trailer
	flipped := slices.Clone(z)
	for i := 20; i < len(flipped)-20; i += 7 {
		flipped[i] ^= 0x5a // the deflate stream
	}
	for name, b := range map[string][]byte{"cut.csv.gz": z[:len(z)/2], "crc.csv.gz": bad, "flate.csv.gz": flipped, "head.csv.gz": z[:12]} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadCSV(p, ReadOptions{Target: "y"})
		if err == nil || !strings.Contains(err.Error(), p+": the gzip data is truncated or corrupt ") {
			t.Errorf("%s: %v", name, err)
		}
		if name == "crc.csv.gz" && (!errors.Is(err, gzip.ErrChecksum) || !strings.Contains(err.Error(), "after line 3001:")) {
			t.Errorf("%s: %v, want the checksum error after line 3001", name, err)
		}
		if name == "head.csv.gz" && !strings.Contains(err.Error(), "corrupt in the header:") {
			t.Errorf("%s: %v, want it in the header", name, err)
		}
		if _, err := ReadFrame(p, FrameOptions{}); err == nil || !strings.Contains(err.Error(), "truncated or corrupt") {
			t.Errorf("ReadFrame %s: %v", name, err)
		}
	}
}

// TestDuplicateNames: a name twice in the header is refused where its
// column is read, naming both columns, and ignored elsewhere.
func TestDuplicateNames(t *testing.T) {
	p := writeTemp(t, "dup.csv", "a,n,b,n,y\n1,x,2,u,3\n4,z,5,v,6\n")
	const msg = `line 1, column 4: duplicate column name: "n" (also column 2)`
	h, err := ReadHeader(p)
	if err != nil || !slices.Equal(h, []string{"a", "n", "b", "n", "y"}) {
		t.Errorf("ReadHeader: %q, %v", h, err)
	}
	f, err := ReadFrame(p, FrameOptions{Columns: []string{"a", "b", "y"}})
	if err != nil || f.Rows != 2 || len(f.Columns) != 3 {
		t.Errorf("ReadFrame without n: %v", err)
	}
	d, err := ReadFeatures(p, []string{"b", "a"}, "y")
	if err != nil || !slices.Equal(d.X, []float64{2, 1, 5, 4}) || !slices.Equal(d.Y, []float64{3, 6}) {
		t.Errorf("ReadFeatures without n: %v", err)
	}
	for name, read := range map[string]func() error{
		"ReadCSV":             func() error { _, err := ReadCSV(p, ReadOptions{}); return err },
		"ReadFrame, all":      func() error { _, err := ReadFrame(p, FrameOptions{}); return err },
		"ReadFrame, n":        func() error { _, err := ReadFrame(p, FrameOptions{Columns: []string{"a", "n"}}); return err },
		"ReadFeatures, n":     func() error { _, err := ReadFeatures(p, []string{"a", "n"}, "y"); return err },
		"ReadFeatures, n (y)": func() error { _, err := ReadFeatures(p, []string{"a"}, "n"); return err },
	} {
		err := read()
		var pe *ParseError
		if !errors.Is(err, ErrDuplicateColumn) || !errors.As(err, &pe) || pe.Column != 4 || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestUTF16: a file that starts with a UTF-16 byte order mark (either
// order) is refused as such, not read as names that are not UTF-8.
func TestUTF16(t *testing.T) {
	for _, bom := range []string{"\xff\xfe", "\xfe\xff"} {
		p := writeTemp(t, "u16.csv", bom+"a\x00,\x00y\x00\n\x00")
		_, err := ReadFrame(p, FrameOptions{})
		if !errors.Is(err, ErrUTF16) || !strings.Contains(err.Error(), "iconv") || !strings.Contains(err.Error(), p) {
			t.Errorf("%q: %v", bom, err)
		}
	}
	// UTF-32's marks, the little-endian one starting as UTF-16's: it was
	// told to convert from UTF-16.
	for _, bom := range []string{"\xff\xfe\x00\x00", "\x00\x00\xfe\xff"} {
		p := writeTemp(t, "u32.csv", bom+"a\x00\x00\x00")
		_, err := ReadFrame(p, FrameOptions{})
		if !errors.Is(err, ErrUTF32) || !strings.Contains(err.Error(), "iconv -f UTF-32") || !strings.Contains(err.Error(), p) {
			t.Errorf("%q: %v", bom, err)
		}
	}
}

// TestHeaderAfterBlankLines: blank lines before the header are skipped
// (as the CSV reader does), and errors about the header name its own
// line, not line 1; the rows' lines count the blank lines too.
func TestHeaderAfterBlankLines(t *testing.T) {
	p := writeTemp(t, "blank.csv", "\n\n\na,n,b,y\n1,x,2,3\n4,z,5\n")
	h, line, err := ReadHeaderLine(p)
	if err != nil || line != 4 || !slices.Equal(h, []string{"a", "n", "b", "y"}) {
		t.Fatalf("ReadHeaderLine: %q, %d, %v", h, line, err)
	}
	dup := writeTemp(t, "dup.csv", "\r\n\r\na,n,n,y\n1,2,3,4\n")
	for name, c := range map[string]struct {
		read func() error
		msg  string
	}{
		"duplicate":  {func() error { _, err := ReadFrame(dup, FrameOptions{}); return err }, "line 3, column 3: duplicate column name"},
		"no column":  {func() error { _, err := ReadFrame(p, FrameOptions{Columns: []string{"z"}}); return err }, `line 4: no such column: "z"`},
		"no target":  {func() error { _, err := ReadCSV(p, ReadOptions{Target: "z"}); return err }, "line 4: "},
		"no feature": {func() error { _, err := ReadFeatures(p, []string{"z"}, ""); return err }, "line 4: "},
		"fields":     {func() error { _, err := ReadFeatures(p, []string{"a"}, "y"); return err }, "line 6: "},
	} {
		if err := c.read(); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %q", name, err, c.msg)
		}
	}
	q := writeTemp(t, "ok.csv", "\n\na,b\n1,2\n\n3,4\n")
	f, err := ReadFrame(q, FrameOptions{})
	if err != nil || f.HeaderLine != 3 || !slices.Equal(f.Lines, []int{4, 6}) {
		t.Fatalf("ReadFrame: %v, header line %+v", err, f)
	}
	if s, err := f.Select("a"); err != nil || s.HeaderLine != 3 {
		t.Errorf("Select loses the header line: %v", err)
	}
	m := writeTemp(t, "mask.csv", "\nsplit0,splitX\n1,0\n")
	if _, err := ReadMask(m); err == nil || !strings.Contains(err.Error(), "line 2, column 2") {
		t.Errorf("ReadMask: %v", err)
	}
}

// TestDatasetLines: ReadCSV records the line each row starts on, past
// blank lines and quoted line breaks, and Subset keeps them.
func TestDatasetLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "l.csv")
	os.WriteFile(p, []byte("\nx,y\n1,2\n\n3,\"4\n\"\n5,6\n"), 0o644)
	d, err := ReadCSV(p, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Lines, []int{3, 5, 7}) {
		t.Errorf("lines %v", d.Lines)
	}
	if s := Subset(d, []int{2, 0}); !slices.Equal(s.Lines, []int{7, 3}) {
		t.Errorf("subset's lines %v", s.Lines)
	}
	if s := Subset(&Dataset{X: []float64{1, 2}, Rows: 2, Cols: 1}, []int{1}); s.Lines != nil {
		t.Errorf("built in memory: %v", s.Lines)
	}
}

// TestBinaryRefused: a model file, an image, a workbook, another
// compression or any file with NUL bytes given as a table is refused as
// what it is; they were refused for a reason about their text ("bare \" in
// non-quoted-field", "lines end with a carriage return alone", "is the
// file Latin-1?"), which sent a user looking in the wrong place (review).
// A gzipped one is looked at after decompressing; text with bytes above
// 0x7f is not binary.
func TestBinaryRefused(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("DECOREG\x00\x01\x00\x00\x00"))
	zw.Close()
	for content, want := range map[string]string{
		"DECOREG\x00\x01\x00\x00\x00\x02\x00\x00\x00{}": "a decoreg model file",
		"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR":           "a PNG image",
		"PK\x03\x04\x14\x00\x06\x00":                    "a workbook (.xlsx, .ods)",
		"\xfd7zXZ\x00\x00\x04":                          "xz-compressed",
		"x,y\n1,2\n3,\x004\n":                           "binary: it holds NUL bytes",
		"x\x00,\x00y\x00\n\x001\x00":                    "UTF-16 text without a byte order mark (every other byte is NUL): convert it to UTF-8 (e.g. iconv -f UTF-16LE",
		gz.String():                                     "a decoreg model file",
	} {
		path := writeFile(t, content)
		for _, read := range []func() error{
			func() error { _, err := ReadFrame(path, FrameOptions{}); return err },
			func() error { _, err := ReadCSV(path, ReadOptions{}); return err },
		} {
			if err := read(); !errors.Is(err, ErrBinary) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
				t.Errorf("%q: %v, want ErrBinary saying %q", content[:min(len(content), 12)], err, want)
			}
		}
	}
	// Printable magics name a file only when the rest is not text: a
	// header "PAR1,PAR2,y" was called a Parquet file (review).
	for _, text := range []string{"x,café\n1,2\n", "PAR1,PAR2,y\n1,2,3\n", "BZh9,y\n1,2\n", "%PDF-1,y\n1,2\n"} {
		if _, err := ReadFrame(writeFile(t, text), FrameOptions{}); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
	for content, want := range map[string]string{
		"BZh91AY&SY\x12\x34\x56\x00": "bzip2-compressed",
		"PAR1\x15\x04\x15\x00\x15":   "a Parquet file",
	} {
		if _, err := ReadFrame(writeFile(t, content), FrameOptions{}); !errors.Is(err, ErrBinary) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", content, err, want)
		}
	}
}

// TestLoneCRLater: a carriage return alone in a file whose lines end in
// LF is named in the field-count error (only a file that started with
// such line ends had the hint).
func TestLoneCRLater(t *testing.T) {
	p := writeTemp(t, "cr.csv", "a,b,y\n1,2,3\n2,3,4\n3,1,5\r4,5,6\n5,4,5\n")
	_, err := ReadCSV(p, ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), "line 4: wrong number of fields: 5 fields, the header has 3 (it holds a carriage return alone") {
		t.Errorf("%v", err)
	}
}

// TestSniffAgreesWithReadCSV: Sniff of an input's first SniffLen bytes
// refuses what ReadCSV refuses for not being text, with the same error,
// and passes text and gzip data (checked after decompression).
func TestSniffAgreesWithReadCSV(t *testing.T) {
	gzipped := func(s string) string {
		var gz bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&gz, gzip.NoCompression) // stored: the text's start is all a head has
		zw.Write([]byte(s))
		zw.Close()
		return gz.String()
	}
	long := strings.Repeat("a,y\n1,2\n", 3000)
	var noise strings.Builder // text that gzip cannot shorten much, so that 8 KiB of gzip data cut it
	for i := range 4000 {
		fmt.Fprintf(&noise, "%d,%d\n", i*7919%10007, i*104729%1000003)
	}
	for name, body := range map[string]string{
		"zeros": strings.Repeat("\x00", 100000), "nul late": long + "\x00", "nul early": "a,y\n1,\x002\n" + long,
		"utf16": "\xff\xfea\x00,\x00y\x00", "utf32": "\xff\xfe\x00\x00a\x00\x00\x00", "png": "\x89PNG\r\n\x1a\n" + long,
		"bom binary": "\ufeff\ufeff\x00\x01", "text": long, "bom text": "\ufeff" + long, "gzip": gzipped("a,y\n1,2\n3,4\n"), "empty": "",
		"latin1": "a,y\nb\xe9,2\n", "cut utf8": "a,y\nx" + strings.Repeat("é", 5000), // 8 KiB ends inside an é
		// Gzip data is judged by its text, also where 8 KiB of it cut
		// the stream (a gzip stream of zeros filled the temporary
		// directory on --data -).
		"gzip zeros": gzipped(strings.Repeat("\x00", 1<<20)), "gzip png": gzipped("\x89PNG\r\n\x1a\n" + long),
		"gzip utf16": gzipped("\xff\xfea\x00,\x00y\x00"), "gzip bom text": gzipped("\ufeffa,y\n" + noise.String()),
		"gzip long text": gzipped("a,y\n" + noise.String()), "gzip cut utf8": gzipped("a,y\nx" + strings.Repeat("é", 5000)),
		"gzip nul late": gzipped(long + "\x00"), "gzip cut header": gzipped("a,y\n1,2\n")[:5],
	} {
		path := filepath.Join(t.TempDir(), "in.csv")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		head := body[:min(len(body), SniffLen)]
		sniffed := Sniff(path, []byte(head))
		_, err := ReadCSV(path, ReadOptions{})
		notText := errors.Is(err, ErrBinary) || errors.Is(err, ErrUTF16) || errors.Is(err, ErrUTF32)
		switch {
		case notText && (sniffed == nil || sniffed.Error() != err.Error()):
			t.Errorf("%s: ReadCSV: %v; Sniff: %v", name, err, sniffed)
		case !notText && sniffed != nil:
			t.Errorf("%s: Sniff refused what ReadCSV reads as text (%v): %v", name, err, sniffed)
		}
	}
}

// TestLongLine: a line over MaxLine bytes is refused at its line (a gzip
// stream of 2 GB without a line end took the process out of memory,
// helper-146), by the readers and through gzip.
func TestLongLine(t *testing.T) {
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	zw.Write([]byte("a,y\n1,2\n3,"))
	chunk := bytes.Repeat([]byte{'7'}, 1<<20)
	for range MaxLine>>20 + 1 {
		zw.Write(chunk)
	}
	zw.Close()
	path := writeTemp(t, "long.csv.gz", gz.String())
	for name, read := range map[string]func() error{
		"ReadFrame": func() error { _, err := ReadFrame(path, FrameOptions{}); return err },
		"ReadCSV":   func() error { _, err := ReadCSV(path, ReadOptions{}); return err },
	} {
		err := read()
		var pe *ParseError
		if !errors.Is(err, ErrLongLine) || !errors.As(err, &pe) || pe.Line != 3 || !strings.Contains(err.Error(), "over 64 MiB without a line end") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestTableRoom: a table being read is refused once the memory left is
// under twice what its rows take, after a collection, naming the limit.
func TestTableRoom(t *testing.T) {
	calls := 0
	avail := func(b float64) func() (memlimit.Limit, bool) {
		return func() (memlimit.Limit, bool) {
			calls++
			return memlimit.Limit{Bytes: b, What: "the test's limit"}, true
		}
	}
	if err := tableRoom("t.csv", 10, 1<<30, avail(2<<30)); err != nil || calls != 1 {
		t.Errorf("room for twice: %v, %d looks", err, calls)
	}
	calls = 0
	err := tableRoom("t.csv", 10, 1<<30, avail(1.5*(1<<30)))
	if !errors.Is(err, ErrTooLarge) || calls != 2 || err.Error() != "t.csv: the table is too large for the memory left: its first 10 rows take about 1 GiB, and need about as much again to grow and be used, more than the 1.5 GiB the test's limit leaves this process: use fewer rows or columns (or more memory)" {
		t.Errorf("no room: %v, %d looks", err, calls)
	}
	if err := tableRoom("t.csv", 10, 1<<40, func() (memlimit.Limit, bool) { return memlimit.Limit{}, false }); err != nil {
		t.Errorf("no limit known: %v", err)
	}
}
