package data

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fuzzSeeds are small CSV and mask files, valid and not, that seed
// FuzzReadCSV (each plain and gzipped).
var fuzzSeeds = []string{
	"x0,x1,y\n1,2,3\n4,5,6\n-7.5,8e-1,9\n0.25, 1e3 ,-2\n",
	"split0,split1\n1,0\n0,1\n",
	"\ufeffa,b\r\n1,2\r\n",
	"a,\"b,c\",y\n1,\"2\",3\n",
	"a,b\n1,2,3\n",
	"a,a\n1,2\n",
	"a,b\n\"1\n",
	"a\n1\n",
	"a,b\nNaN,1\n1e999,2\n",
	"a,b\n",
	"",
	"\n\n",
	"split0\n0\n1\n2\n",
	"a,b\n0x1p-2,1_0\n",
}

// FuzzReadCSV runs every reader of the package (ReadCSV with each kind of
// target, ReadFeatures, ReadMask) on any file contents, plain or gzipped:
// none may panic, every error names the file, and what is read back is
// well formed (sizes agree, every number finite).
func FuzzReadCSV(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), false, "x1", "y")
		f.Add([]byte(s), true, "a", "")
	}
	f.Fuzz(func(t *testing.T, content []byte, gz bool, feature, target string) {
		if gz {
			content = gzipBytes(t, string(content))
		}
		path := filepath.Join(t.TempDir(), "in.csv")
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		check := func(what string, d *Dataset, err error, wantY bool) {
			t.Helper()
			if err != nil {
				if !strings.Contains(err.Error(), path) {
					t.Fatalf("%s: error does not name the file: %v", what, err)
				}
				return
			}
			checkWellFormed(t, what, d, path, wantY)
		}
		d, err := ReadCSV(path, ReadOptions{})
		check("ReadCSV", d, err, true)
		d, err = ReadCSV(path, ReadOptions{NoTarget: true})
		check("ReadCSV NoTarget", d, err, false)
		if err == nil && d.Y != nil {
			t.Fatalf("ReadCSV NoTarget: %d targets", len(d.Y))
		}
		if target != "" {
			d, err = ReadCSV(path, ReadOptions{Target: target})
			check("ReadCSV Target", d, err, true)
		}
		d, err = ReadFeatures(path, []string{feature}, target)
		check("ReadFeatures", d, err, false) // Y is optional

		m, err := ReadMask(path)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("ReadMask: error does not name the file: %v", err)
			}
			return
		}
		if m.Rows() < 1 || m.Splits() < 1 || m.Path != path {
			t.Fatalf("ReadMask: %d rows, %d splits, path %q", m.Rows(), m.Splits(), m.Path)
		}
		for s := range m.Splits() {
			sel, err := m.Test(s)
			if err != nil || len(sel) != m.Rows() {
				t.Fatalf("ReadMask: Test(%d): %d rows, %v", s, len(sel), err)
			}
		}
		if _, err := m.Test(m.Splits()); err == nil {
			t.Fatalf("ReadMask: Test(%d) of %d splits accepted", m.Splits(), m.Splits())
		}
	})
}

// checkWellFormed checks the invariants of a Dataset that a reader
// returned without error.
func checkWellFormed(t *testing.T, what string, d *Dataset, path string, wantY bool) {
	t.Helper()
	if d.Rows < 1 || d.Cols < 1 || len(d.X) != d.Rows*d.Cols || len(d.Names) != d.Cols || d.Path != path {
		t.Fatalf("%s: %d rows, %d cols, %d values, %d names, path %q", what, d.Rows, d.Cols, len(d.X), len(d.Names), d.Path)
	}
	if d.Y != nil && len(d.Y) != d.Rows || wantY && d.Y == nil || d.Y == nil && d.TargetName != "" {
		t.Fatalf("%s: %d targets for %d rows (target %q)", what, len(d.Y), d.Rows, d.TargetName)
	}
	for i, v := range d.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("%s: X[%d] = %v", what, i, v)
		}
	}
	for i, v := range d.Y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("%s: Y[%d] = %v", what, i, v)
		}
	}
	for j := range d.Rows {
		if len(d.Row(j)) != d.Cols {
			t.Fatalf("%s: row %d has %d values", what, j, len(d.Row(j)))
		}
	}
}

// FuzzReadFrame reads any file contents, plain or gzipped, as a Frame
// (kinds inferred, then fixed as a schema would fix them, with fuzzed
// missing markers), fits a schema to it and encodes it: none may panic,
// every error names the file, a frame is well formed (sizes agree, numeric
// values finite), and the encoding has the schema's width and finite
// values.
func FuzzReadFrame(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), false, "NA,?")
	}
	f.Add([]byte(frameSeed), false, "NA,NaN,?")
	f.Add([]byte(frameSeed), true, "")
	f.Add([]byte("a,b\n1,x\n,y\n?,\ninf,z\n"), false, "?")
	f.Fuzz(func(t *testing.T, content []byte, gz bool, na string) {
		if gz {
			content = gzipBytes(t, string(content))
		}
		path := filepath.Join(t.TempDir(), "in.csv")
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		markers := strings.Split(na, ",")
		fr, err := ReadFrame(path, FrameOptions{NA: markers})
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("ReadFrame: error does not name the file: %v", err)
			}
			return
		}
		checkFrame(t, fr, path)
		s, err := FitSchema(fr, SchemaOptions{MaxLevels: MaxMaxLevels})
		if err != nil {
			// Names a model file cannot keep: not UTF-8, encoded names
			// that collide ("a=b" and a column "a=b"), or several columns
			// without a name (which ReadFrame reads, each named "").
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "UTF-8") && !strings.Contains(err.Error(), "encoded features") && !strings.Contains(err.Error(), "more than one column has no name") {
				t.Fatalf("FitSchema: %v", err)
			}
			return
		}
		e, err := s.Encode(fr)
		if err != nil {
			t.Fatalf("Encode of the training frame: %v", err)
		}
		if e.Rows != fr.Rows || e.Cols != s.Width() || len(e.X) != e.Rows*e.Cols || len(e.Names) != e.Cols || len(e.Warnings) != 0 {
			t.Fatalf("Encode: %d rows, %d cols, %d values, %d names, warnings %v", e.Rows, e.Cols, len(e.X), len(e.Names), e.Warnings)
		}
		for i, v := range e.X {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("Encode: X[%d] = %v", i, v)
			}
		}
		// Read again as the schema reads prediction inputs.
		fr2, err := ReadFrame(path, FrameOptions{NA: s.NA, Kinds: s.Kinds(), Columns: s.ColumnNames()})
		if err != nil {
			t.Fatalf("ReadFrame with the schema's kinds: %v", err)
		}
		e2, err := s.Encode(fr2)
		if err != nil || !slices.Equal(e.X, e2.X) {
			t.Fatalf("Encode with the schema's kinds: %v", err)
		}
	})
}

const frameSeed = "age, sex ,city,y\n31,M,Lyon,10\nNA, F,Paris,11\n45,F, ,\n?,M,inf,13\n"

// checkFrame checks the invariants of a Frame that ReadFrame returned.
func checkFrame(t *testing.T, f *Frame, path string) {
	t.Helper()
	if f.Rows < 1 || len(f.Columns) < 1 || len(f.Lines) != f.Rows || f.Path != path || f.check() != nil {
		t.Fatalf("ReadFrame: %d rows, %d columns, %d lines, path %q: %v", f.Rows, len(f.Columns), len(f.Lines), f.Path, f.check())
	}
	for _, c := range f.Columns {
		for i := range f.Rows {
			if c.Missing[i] && c.Str != nil && c.Str[i] != "" {
				t.Fatalf("column %q row %d: missing but %q", c.Name, i, c.Str[i])
			}
			if c.Kind == Numeric && (math.IsNaN(c.Num[i]) || math.IsInf(c.Num[i], 0)) {
				t.Fatalf("column %q row %d: %v", c.Name, i, c.Num[i])
			}
		}
	}
}

// FuzzReadFrameDialect is FuzzReadFrame for a file read with another
// separator and a decimal comma: no panic, every error names the file, a
// frame is well formed, and the schema's second reading encodes the same.
func FuzzReadFrameDialect(f *testing.F) {
	f.Add([]byte("x;c;y\n1,5;a,b;1.234,5\n;d;2\nNA;a,b;,5\n"), byte(';'), true)
	f.Add([]byte("x\ty\n1.5\t2\n3\t4\n"), byte('\t'), false)
	f.Add([]byte("x|y\n\"1|2\"|2,0e3\n"), byte('|'), true)
	f.Fuzz(func(t *testing.T, content []byte, sep byte, comma bool) {
		d := Dialect{Sep: rune(sep), DecimalComma: comma}
		if d.Check() != nil {
			return
		}
		path := filepath.Join(t.TempDir(), "in.csv")
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		fr, err := ReadFrame(path, FrameOptions{Dialect: d})
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("ReadFrame: error does not name the file: %v", err)
			}
			return
		}
		checkFrame(t, fr, path)
		if fr.Dialect != d {
			t.Fatalf("the frame's dialect %+v, read with %+v", fr.Dialect, d)
		}
		s, err := FitSchema(fr, SchemaOptions{MaxLevels: MaxMaxLevels})
		if err != nil {
			return // names a model cannot keep: FuzzReadFrame checks their errors
		}
		e, err := s.Encode(fr)
		if err != nil {
			t.Fatalf("Encode of the training frame: %v", err)
		}
		fr2, err := ReadFrame(path, FrameOptions{NA: s.NA, Kinds: s.Kinds(), Columns: s.ColumnNames(), Dialect: d})
		if err != nil {
			t.Fatalf("ReadFrame with the schema's kinds: %v", err)
		}
		e2, err := s.Encode(fr2)
		if err != nil || !slices.Equal(e.X, e2.X) {
			t.Fatalf("Encode with the schema's kinds: %v", err)
		}
	})
}

// FuzzDecimalComma: a finite number written with a decimal comma, its
// integer digits plain or grouped by threes with points, reads back as
// itself under DecimalComma.
func FuzzDecimalComma(f *testing.F) {
	f.Add(1.5, false)
	f.Add(-1234567.25, true)
	f.Add(0.0, true)
	f.Fuzz(func(t *testing.T, v float64, group bool) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		s := strconv.FormatFloat(v, 'f', -1, 64)
		sign, body := "", s
		if body[0] == '-' {
			sign, body = "-", body[1:]
		}
		ip, fp, hasFrac := strings.Cut(body, ".")
		if group {
			var g []string
			for len(ip) > 3 {
				g = append([]string{ip[len(ip)-3:]}, g...)
				ip = ip[:len(ip)-3]
			}
			ip = strings.Join(append([]string{ip}, g...), ".")
		}
		w := sign + ip
		if hasFrac {
			w += "," + fp
		}
		got, err := Dialect{DecimalComma: true}.ParseNumber(w)
		if err != nil || got != v {
			t.Fatalf("%q (%v): %v, %v", w, v, got, err)
		}
	})
}
