package data

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"decoreg/internal/memlimit"
)

// Dataset is a regression data set held in memory.
type Dataset struct {
	Names      []string  // feature names, len Cols
	X          []float64 // features, (Rows, Cols) row-major
	Y          []float64 // targets, len Rows; nil when the data has no target
	Rows, Cols int       // the number of rows and of features
	Path       string    // the file it was read from ("" if built in memory)
	TargetName string    // the target column's name ("" when Y is nil)
	// Lines holds the file line on which each row starts (past blank lines
	// and quoted line breaks); nil for a data set built in memory.
	Lines []int
	// Blank counts the blank lines between the header and the last row,
	// which are no rows (a CSV reader skips them); see BlankLines.
	Blank BlankLines
}

// BlankLines counts the blank lines a file holds between its header and
// its last row (those before the header or after the last row are not
// counted): a CSV reader skips them, so that the rows are counted without
// them. In a file of one column they are likely missing cells, which must
// be written as a marker (NA) or "" to be rows.
type BlankLines struct {
	N     int // how many
	First int // the first one's line (0 if none)
}

// Row returns the features of row i, a subslice of d.X.
func (d *Dataset) Row(i int) []float64 {
	return d.X[i*d.Cols : (i+1)*d.Cols : (i+1)*d.Cols]
}

// ReadOptions controls how ReadCSV picks the target column. The zero value
// takes the last column as the target.
type ReadOptions struct {
	// Target names the target column; "" means the last column.
	Target string
	// NoTarget makes every column a feature and leaves Dataset.Y nil
	// (for inputs to prediction). It may not be combined with Target.
	NoTarget bool
	// Dialect is the file's separator and decimal mark (the zero value:
	// comma and point).
	Dialect Dialect
}

// ReadCSV reads a data set from a CSV file with a header, gzipped or not.
// The target is chosen by opts; every other column is a feature, in file
// order. Every cell of every row must be a finite number. Errors in the
// file's contents are *ParseError values (see the package documentation).
//
// ReadCSV panics if opts sets both Target and NoTarget.
func ReadCSV(path string, opts ReadOptions) (*Dataset, error) {
	if opts.NoTarget && opts.Target != "" {
		panic("data: ReadOptions sets both Target and NoTarget")
	}
	t, err := openTable(path, opts.Dialect)
	if err != nil {
		return nil, err
	}
	defer t.close()
	if err := t.dupErr(nil); err != nil {
		return nil, err
	}

	target := -1
	switch {
	case opts.NoTarget:
	case opts.Target == "":
		target = len(t.header) - 1
	default:
		target = t.column(opts.Target)
		if target < 0 {
			return nil, &ParseError{Path: path, Line: t.hline,
				Err: fmt.Errorf("%w: target %s not among the columns %s", ErrNoColumn, QuoteName(opts.Target), nameList(t.header))}
		}
	}
	var feats []int
	var names []string
	for j, name := range t.header {
		if j != target {
			feats = append(feats, j)
			names = append(names, name)
		}
	}
	if len(feats) == 0 {
		return nil, &ParseError{Path: path, Line: t.hline,
			Err: fmt.Errorf("%w: the only column %s is the target", ErrNoFeatures, QuoteName(t.header[0]))}
	}
	d := &Dataset{Names: names, Cols: len(feats), Path: path}
	if target >= 0 {
		d.TargetName = t.header[target]
	}
	if err := t.readRows(d, feats, target); err != nil {
		return nil, err
	}
	return d, nil
}

// ReadFeatures reads the columns named featureNames (in that order) from a
// CSV file with a header, gzipped or not, matching columns by their header
// names, as a model's prediction input. Other columns are ignored and their
// cells are not parsed. If target is not "" and the file has a column of
// that name, it fills Dataset.Y; otherwise Y is nil. A feature column that
// the file lacks is an error wrapping ErrNoColumn that names it. The k-th
// "" among featureNames is the header's k-th column without a name.
//
// ReadFeatures panics if featureNames is empty.
func ReadFeatures(path string, featureNames []string, target string) (*Dataset, error) {
	return Dialect{}.ReadFeatures(path, featureNames, target)
}

// ReadFeatures is the package's ReadFeatures for a file of dialect d.
func (dl Dialect) ReadFeatures(path string, featureNames []string, target string) (*Dataset, error) {
	if len(featureNames) == 0 {
		panic("data: ReadFeatures with no feature names")
	}
	t, err := openTable(path, dl)
	if err != nil {
		return nil, err
	}
	defer t.close()
	if err := t.dupErr(append(slices.Clone(featureNames), target)); err != nil {
		return nil, err
	}

	feats := make([]int, len(featureNames))
	unnamed := t.unnamed() // the k-th "" is the k-th of them
	for i, name := range featureNames {
		feats[i] = t.column(name)
		if name == "" {
			feats[i] = -1
			if len(unnamed) > 0 {
				feats[i], unnamed = unnamed[0], unnamed[1:]
			}
		}
		if feats[i] < 0 {
			return nil, &ParseError{Path: path, Line: t.hline,
				Err: fmt.Errorf("%w: feature %s missing (the model's features are %s; the file's columns are %s)",
					ErrNoColumn, QuoteName(name), nameList(featureNames), nameList(t.header))}
		}
	}
	tcol := -1
	if target != "" {
		tcol = t.column(target)
	}
	d := &Dataset{Names: append([]string(nil), featureNames...), Cols: len(feats), Path: path}
	if tcol >= 0 {
		d.TargetName = target
	}
	if err := t.readRows(d, feats, tcol); err != nil {
		return nil, err
	}
	return d, nil
}

// ReadHeader returns the column names of a CSV file with a header, gzipped
// or not, as ReadCSV and ReadFeatures match them (trimmed of spaces; ""
// may stand several times, for columns without a name). A name may stand
// twice: the readers refuse reading its column (ErrDuplicateColumn), not
// the file.
func ReadHeader(path string) ([]string, error) {
	h, _, err := ReadHeaderLine(path)
	return h, err
}

// ReadHeaderLine is ReadHeader that also returns the line on which the
// header stands: 1, unless blank lines precede it (the CSV reader skips
// them), for errors about the header to name.
func ReadHeaderLine(path string) (header []string, line int, err error) {
	return Dialect{}.ReadHeaderLine(path)
}

// ReadHeaderLine is the package's ReadHeaderLine for a file of dialect d.
func (d Dialect) ReadHeaderLine(path string) (header []string, line int, err error) {
	t, err := openTable(path, d)
	if err != nil {
		return nil, 0, err
	}
	t.close()
	return t.header, t.hline, nil
}

// table is an open CSV file whose header has been read.
type table struct {
	path   string
	f      *os.File
	r      *csv.Reader
	header []string
	hline  int            // the header's line: 1 unless blank lines precede it
	index  map[string]int // header name -> column (the first of its name)
	dups   []int          // the columns whose name an earlier column has (not "")
	dl     Dialect        // its separator and decimal mark
	gz     bool           // gzipped
	last   int            // gzipped: the line on which the last record read ended
	nl     *newlineReader // what it has seen of the line ends
	end    int            // the line on which the last record read ended (0 before the first)
	blank  BlankLines     // the blank lines between records after the first
}

// fieldCountErr is the error of a record rec whose field count is not the
// header's: a file whose data lines end with CR alone (after an LF
// header) reads as one record, with carriage returns inside its fields.
func (t *table) fieldCountErr(rec []string) error {
	if t.nl != nil && (t.nl.crAlone || t.nl.crLater && !t.nl.lfLater) && slices.ContainsFunc(rec, func(s string) bool { return strings.Contains(s, "\r") }) {
		return &ParseError{Path: t.path, Line: t.line(0),
			Err: fmt.Errorf("%w after the header, as in old Mac files, which CSV does not take as line ends: convert them to LF (e.g. tr '\\r' '\\n' < OLD > NEW)", ErrCRLineEnds)}
	}
	hint := ""
	switch {
	case len(rec) == len(t.header)+1 && strings.TrimSpace(rec[len(rec)-1]) == "":
		hint = " (the line ends with a comma that the header lacks: add one to the header if every data line has it)"
	case slices.ContainsFunc(rec, func(s string) bool { return strings.Contains(s, "\r") }):
		hint = " (it holds a carriage return alone, a line end of old Mac files, which CSV does not take as one: make it a line feed)"
	case t.dl.DecimalComma && t.dl.Comma() == ',' && len(rec) > len(t.header):
		hint = ` (the file's fields are separated by commas, and its numbers written with decimal commas: such a number must be in double quotes, "1,5")`
	}
	return &ParseError{Path: t.path, Line: t.line(0),
		Err: fmt.Errorf("%w: %d fields, the header has %d%s", ErrFieldCount, len(rec), len(t.header), hint)}
}

// binaryKind names the kind of file whose first bytes br holds when it is
// not text: a model file, an image, an archive or workbook, another
// compression than gzip, an executable, or any with a NUL byte in its first
// 8 KiB; "" for text. Such a --data was refused with a reason about its
// text ("bare \" in non-quoted field", "lines end with a carriage return
// alone", "is the file Latin-1?").
func binaryKind(br *bufio.Reader) string {
	b, _ := br.Peek(8 << 10)
	// Some magics are printable ("PAR1", "%PDF-", "BZh"), and may start a
	// header ("PAR1,PAR2,y"): those files are named only when the rest is
	// not text either.
	binary := bytes.IndexByte(b, 0) >= 0 || !validUTF8Prefix(b)
	for _, k := range []struct {
		magic, what string
		printable   bool
	}{
		{"DECOREG\x00", "a decoreg model file (a model goes to --model)", false},
		{"\x89PNG\r\n\x1a\n", "a PNG image", false},
		{"\xff\xd8\xff", "a JPEG image", false},
		{"%PDF-", "a PDF document", true},
		{"PK\x03\x04", "a zip archive, or a workbook (.xlsx, .ods) in one: save the sheet as CSV, or unzip it", false},
		{"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Excel workbook (.xls): save the sheet as CSV", false},
		{"PAR1", "a Parquet file: write it as CSV", true},
		{"\xfd7zXZ\x00", "xz-compressed: decompress it first (unxz; only gzip is read as it is)", false},
		{"\x28\xb5\x2f\xfd", "zstd-compressed: decompress it first (unzstd; only gzip is read as it is)", false},
		{"\x7fELF", "an executable", false},
		// (Gzip's magic, under the gzip data decompressed once.)
		{"\x1f\x8b", "gzip data inside gzip data: decompress it once first (gunzip; one gzip layer is read as it is)", false},
	} {
		if bytes.HasPrefix(b, []byte(k.magic)) && (binary || !k.printable) {
			return k.what
		}
	}
	if len(b) >= 10 && string(b[:3]) == "BZh" && b[3] >= '1' && b[3] <= '9' && string(b[4:10]) == "1AY&SY" {
		return "bzip2-compressed: decompress it first (bunzip2; only gzip is read as it is)"
	}
	if bytes.IndexByte(b, 0) >= 0 {
		enc := ""
		switch {
		case len(b) >= 4 && b[0] != 0 && b[1] == 0 && b[2] != 0 && b[3] == 0:
			enc = "LE"
		case len(b) >= 4 && b[0] == 0 && b[1] != 0 && b[2] == 0 && b[3] != 0:
			enc = "BE"
		}
		if enc != "" {
			return "UTF-16 text without a byte order mark (every other byte is NUL): convert it to UTF-8 (e.g. iconv -f UTF-16" + enc + " -t UTF-8 IN > OUT)"
		}
		return "binary: it holds NUL bytes in its first 8 KiB (if it is text in UTF-16 or UTF-32, convert it to UTF-8 with iconv)"
	}
	return ""
}

// notText returns a *ParseError naming path when the text that sb starts
// with (past byte order marks and gzip's decompression) is not text that
// ReadCSV reads: UTF-32, UTF-16 or binary (binaryKind).
func notText(path string, sb *bufio.Reader) error {
	if b, _ := sb.Peek(4); len(b) == 4 && (string(b) == "\xff\xfe\x00\x00" || string(b) == "\x00\x00\xfe\xff") {
		// (Before UTF-16's, whose little-endian mark starts UTF-32's.)
		return &ParseError{Path: path, Err: fmt.Errorf("%w: convert it to UTF-8 (e.g. iconv -f UTF-32 -t UTF-8 IN > OUT)", ErrUTF32)}
	}
	if b, _ := sb.Peek(2); len(b) == 2 && (b[0] == 0xff && b[1] == 0xfe || b[0] == 0xfe && b[1] == 0xff) {
		return &ParseError{Path: path, Err: fmt.Errorf("%w: convert it to UTF-8 (e.g. iconv -f UTF-16 -t UTF-8 IN > OUT)", ErrUTF16)}
	}
	if what := binaryKind(sb); what != "" {
		return &ParseError{Path: path, Err: fmt.Errorf("%w: it is %s", ErrBinary, what)}
	}
	return nil
}

// SniffLen is how many of an input's first bytes Sniff needs: binaryKind's
// 8 KiB and room for byte order marks.
const SniffLen = 8<<10 + 16

// Sniff returns the error that ReadCSV and the other readers give an input
// whose first bytes are b (its first SniffLen bytes, or all of it if
// shorter) when they show that it is not text they read: UTF-32, UTF-16
// or binary (a *ParseError naming path and wrapping ErrUTF32, ErrUTF16 or
// ErrBinary); nil for text. Gzip data is judged by the text that b's
// bytes decompress to (as much of SniffLen as they give): a gzip stream of
// zeros is binary. It lets a copy of a stream stop at its start rather
// than at its end; the readers check again.
func Sniff(path string, b []byte) error {
	br := bufio.NewReaderSize(bytes.NewReader(b), max(len(b), 16))
	skipBOMs(br)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil // a header cut off here: the readers say what it is
		}
		// The stream is cut where b ends: what decompresses before the
		// cut is the text's start (an error at the cut is expected).
		text, _ := io.ReadAll(io.LimitReader(zr, SniffLen))
		if len(text) == 0 {
			return nil
		}
		br = bufio.NewReaderSize(bytes.NewReader(text), max(len(text), 16))
		skipBOMs(br)
	}
	return notText(path, br)
}

// validUTF8Prefix reports whether b is valid UTF-8 but for a character
// cut off at its end.
func validUTF8Prefix(b []byte) bool {
	for k := 0; k < utf8.UTFMax && len(b) > 0; k++ {
		if utf8.Valid(b) {
			return true
		}
		b = b[:len(b)-1]
	}
	return utf8.Valid(b)
}

// openTable opens path, decompresses it if it starts with the gzip magic
// bytes, and reads and checks the header (no duplicate names), its fields
// separated as d says.
func openTable(path string, d Dialect) (*table, error) {
	if err := d.Check(); err != nil {
		return nil, fmt.Errorf("data: Dialect.Sep: %w", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *fs.PathError names the path
	}
	t := &table{path: path, f: f, dl: d}
	// Byte order marks go before the reader sees them: left in, one makes
	// a quoted first name a bare quote ("\ufeff\"area\""). A tool may add
	// one before gzip bytes, or a second one.
	br := bufio.NewReaderSize(f, 1<<16)
	skipBOMs(br)
	sb := br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			// Its first bytes are gzip's: a file cut off inside the gzip
			// header was reported as a bare "unexpected EOF".
			return nil, fmt.Errorf("%s: starts as gzip data, but its gzip header is truncated or corrupt: %w", path, err)
		}
		sb = bufio.NewReaderSize(zr, 1<<16)
		skipBOMs(sb)
		t.gz = true
	}
	if err := notText(path, sb); err != nil {
		f.Close()
		return nil, err
	}
	var src io.Reader = sb
	nl := &newlineReader{r: src}
	t.nl = nl
	t.r = csv.NewReader(nl)
	t.r.Comma = d.Comma()
	t.r.FieldsPerRecord = -1 // checked here, to report it our way
	t.r.ReuseRecord = true
	rec, err := t.next()
	if err == io.EOF {
		f.Close()
		return nil, &ParseError{Path: path, Err: ErrEmpty}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	if nl.crAlone && slices.ContainsFunc(rec, func(s string) bool { return strings.Contains(s, "\r") }) {
		// A carriage return outside quotes, not followed by a line feed,
		// before the header's end: lines end with CR alone (old Mac
		// files), which CSV does not take as line ends, the header
		// running to the file's end or to a final LF.
		f.Close()
		return nil, &ParseError{Path: path, Line: t.line(0),
			Err: fmt.Errorf("%w, as in old Mac files, which CSV does not take as line ends: convert them to LF (e.g. tr '\\r' '\\n' < OLD > NEW)", ErrCRLineEnds)}
	}
	t.hline = t.line(0) // the CSV reader skips blank lines before it
	t.header = make([]string, len(rec))
	t.index = make(map[string]int, len(rec))
	for j, name := range rec {
		name = strings.TrimSpace(name)
		t.header[j] = name
		if name == "" {
			// Several columns may have no name (the trailing commas of a
			// spreadsheet's export): "" stands for the first of them, and
			// ReadFrame reads them all.
			if _, ok := t.index[name]; !ok {
				t.index[name] = j
			}
			continue
		}
		if _, dup := t.index[name]; dup {
			t.dups = append(t.dups, j) // refused where it is read (dupErr)
			continue
		}
		t.index[name] = j
	}
	return t, nil
}

func (t *table) close() { t.f.Close() }

// skipBOMs discards the UTF-8 byte order marks at r's start.
func skipBOMs(r *bufio.Reader) {
	for {
		if b, _ := r.Peek(3); string(b) != "\ufeff" {
			return
		}
		r.Discard(3)
	}
}

// newlineReader passes r's bytes on and notes whether a '\n' was among
// them.
type newlineReader struct {
	r    io.Reader
	seen bool
	// Until the first line feed outside quotes: inQuote, whether a
	// carriage return outside quotes was just read (cr), and whether one
	// was followed by anything but a line feed (crAlone: the lines end
	// with CR alone).
	inQuote, cr, crAlone bool
	// After the first line feed: whether a carriage return outside quotes
	// was followed by anything but a line feed, and whether a line feed
	// outside quotes followed (data lines ending with CR alone after an
	// LF header have crLater and not lfLater; a stray CR in an LF or CRLF
	// file has both).
	crLater, lfLater bool
	// lines counts the line feeds read, run the bytes since the last.
	lines, run int
}

// MaxLine is the most bytes a line of a data file may hold (64 MiB): a
// longer one is no row of a table (a file of NUL bytes, or with no line
// ends, behind a text start), and reading it whole took memory many times
// its size (a gzip stream of 2 GB without a line end ran the process out
// of memory; helper-146).
const MaxLine = 64 << 20

// longLineError is newlineReader's error for a line over MaxLine bytes.
type longLineError struct{ line int }

func (e longLineError) Error() string { return ErrLongLine.Error() }

func (n *newlineReader) Read(p []byte) (int, error) {
	k, err := n.r.Read(p)
	if i := bytes.LastIndexByte(p[:k], '\n'); i >= 0 {
		n.lines += bytes.Count(p[:k], []byte{'\n'})
		n.run = k - i - 1
	} else if n.run += k; n.run > MaxLine {
		return 0, longLineError{n.lines + 1}
	}
	for _, c := range p[:k] {
		if n.cr && c != '\n' {
			if n.seen {
				n.crLater = true
			} else {
				n.crAlone = true
			}
		}
		n.cr = false
		switch {
		case c == '"':
			n.inQuote = !n.inQuote
		case c == '\r' && !n.inQuote:
			n.cr = true
		case c == '\n' && !n.inQuote:
			n.lfLater = n.seen
			n.seen = true
		}
		if n.crLater && n.lfLater {
			break // nothing more to learn
		}
	}
	if err == io.EOF && n.cr {
		n.cr = false // a CR at the very end
		if n.seen {
			n.crLater = true
		} else {
			n.crAlone = true
		}
	}
	return k, err
}

// unnamed returns the columns without a name in the header, in order.
func (t *table) unnamed() []int {
	var out []int
	for j, h := range t.header {
		if h == "" {
			out = append(out, j)
		}
	}
	return out
}

// dupErr returns the error for the first column whose name an earlier
// column has, among the names read (every name for nil; "" is never
// one: columns without a name are told apart by position), or nil. A
// name twice in a header is refused only where its column is read.
func (t *table) dupErr(read []string) error {
	for _, j := range t.dups {
		if name := t.header[j]; read == nil || slices.Contains(read, name) {
			return &ParseError{Path: t.path, Line: t.hline, Column: j + 1,
				Err: fmt.Errorf("%w: %s (also column %d)", ErrDuplicateColumn, QuoteName(name), t.index[name]+1)}
		}
	}
	return nil
}

// column returns the index of the column called name (the first unnamed
// one for ""), or -1.
func (t *table) column(name string) int {
	if j, ok := t.index[name]; ok {
		return j
	}
	return -1
}

// next returns the next record (reused between calls), io.EOF at the end,
// a *ParseError for malformed CSV, or the read error wrapped with the path.
func (t *table) next() ([]string, error) {
	rec, err := t.r.Read()
	if err == nil {
		if n := len(rec); n > 0 {
			start, _ := t.r.FieldPos(0)
			if gap := start - t.end - 1; t.end > 0 && gap > 0 {
				if t.blank.N == 0 {
					t.blank.First = t.end + 1
				}
				t.blank.N += gap
			}
			t.end, _ = t.r.FieldPos(n - 1)
			t.end += strings.Count(rec[n-1], "\n") // a quoted field over lines
			t.last = t.end                         // for the gzip errors below
		}
		if t.header != nil && t.repeatsHeader(rec) {
			return nil, &ParseError{Path: t.path, Line: t.line(0), Err: fmt.Errorf("%w (were files joined?): remove it", ErrHeaderRow)}
		}
		return rec, nil
	}
	if err == io.EOF {
		return rec, err
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		// The record's first line, and where on which line the reader
		// stopped (a quoted field can run over several lines); the
		// reader's column is a byte's position in the line, not a field
		// (nor a character).
		where := fmt.Sprintf("byte %d of the line", pe.Column)
		if pe.Line != pe.StartLine {
			where = fmt.Sprintf("line %d, byte %d, in a quoted field that starts on line %d", pe.Line, pe.Column, pe.StartLine)
		}
		return nil, &ParseError{Path: t.path, Line: pe.StartLine, Err: fmt.Errorf("%w (at %s)", pe.Err, where)}
	}
	var long longLineError
	if errors.As(err, &long) {
		return nil, &ParseError{Path: t.path, Line: long.line,
			Err: fmt.Errorf("%w: over %d MiB without a line end: not a row of a table (a binary file, or text without line ends?)", ErrLongLine, MaxLine>>20)}
	}
	var corrupt flate.CorruptInputError
	if t.gz && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.As(err, &corrupt)) {
		where := fmt.Sprintf("after line %d", t.last)
		if t.last == 0 {
			where = "in the header"
		}
		return nil, fmt.Errorf("%s: the gzip data is truncated or corrupt %s: %w", t.path, where, err)
	}
	return nil, fmt.Errorf("%s: %w", t.path, err)
}

// repeatsHeader reports whether the data row rec holds the header's names
// (trimmed), one of them not a number (a header of numbers may have a row
// that matches it).
func (t *table) repeatsHeader(rec []string) bool {
	if len(rec) != len(t.header) {
		return false
	}
	named := false
	for j, c := range rec {
		if strings.TrimSpace(c) != t.header[j] {
			return false
		}
		if _, err := t.dl.ParseNumber(c); err != nil && t.header[j] != "" {
			named = true
		}
	}
	return named
}

// line returns the line on which field j of the last record starts.
func (t *table) line(j int) int {
	line, _ := t.r.FieldPos(j)
	return line
}

// readRows parses the remaining records into d: the columns feats as
// features and column target (if >= 0) as the target.
func (t *table) readRows(d *Dataset, feats []int, target int) error {
	for {
		rec, err := t.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if len(rec) != len(t.header) {
			return t.fieldCountErr(rec)
		}
		d.Lines = append(d.Lines, t.line(0))
		for _, j := range feats {
			v, err := t.cell(rec, j)
			if err != nil {
				return err
			}
			d.X = append(d.X, v)
		}
		if target >= 0 {
			v, err := t.cell(rec, target)
			if err != nil {
				return err
			}
			d.Y = append(d.Y, v)
		}
		if d.Rows++; d.Rows%roomEvery == 0 {
			if err := tableRoom(t.path, d.Rows, float64(d.Rows)*float64(8+8*(len(feats)+1)), memlimit.Available); err != nil {
				return err
			}
		}
	}
	if d.Rows == 0 {
		return &ParseError{Path: t.path, Err: ErrNoRows}
	}
	d.Blank = t.blank
	return nil
}

// cell parses field j of rec.
func (t *table) cell(rec []string, j int) (float64, error) {
	v, err := t.dl.ParseNumber(rec[j])
	if err != nil {
		return 0, &ParseError{Path: t.path, Line: t.line(j), Column: j + 1,
			Err: fmt.Errorf("%w in column %s", err, QuoteName(t.header[j]))}
	}
	return v, nil
}

// ParseNumber parses a cell as the readers do: a finite float64 as
// accepted by strconv.ParseFloat, surrounding spaces allowed, no
// underscores (a hexadecimal float with its exponent, "0x1p-2", is a
// number, as to ParseFloat; "0x10" is not); an error wraps ErrNotNumber (a *NotNumberError holding
// the cell, or ErrEmptyCell for a blank cell) or ErrNonFinite.
func ParseNumber(s string) (float64, error) { return parseNumber(s) }

func parseNumber(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("%w: %w", ErrNotNumber, ErrEmptyCell)
	}
	if strings.Contains(t, "_") {
		return 0, &NotNumberError{s}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) && math.IsInf(v, 0) {
			return 0, fmt.Errorf("%w: %s overflows float64", ErrNonFinite, QuoteCell(s))
		}
		return 0, &NotNumberError{s}
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%w: %s", ErrNonFinite, QuoteCell(s))
	}
	return v, nil
}

// nameList formats names for an error message: at most 8 of them, quoted.
func nameList(names []string) string {
	const max = 8
	var b strings.Builder
	for i, n := range names {
		if i == max {
			fmt.Fprintf(&b, ", ... (%d in all)", len(names))
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(QuoteName(n))
	}
	return b.String()
}

// roomEvery is how many rows the readers read between two looks at the
// memory left (tableRoom).
const roomEvery = 1 << 16

// tableRoom refuses a table being read whose rows so far take about bytes
// when the memory this process may still allocate is less than twice
// that: the slices that hold the rows grow by copying (under an address
// space limit, ulimit -v, the copies left behind count too), and what
// uses the table needs about as much again. A table larger than the memory
// (a gzip stream of 2 GB of rows, 10 MB compressed) ran the process out of
// memory, with the runtime's fatal error and its stacks (helper-146).
// available is memlimit.Available, or a test's.
func tableRoom(path string, rows int, bytes float64, available func() (memlimit.Limit, bool)) error {
	l, ok := available()
	if ok && 2*bytes > l.Bytes {
		runtime.GC() // garbage is memory left
		l, ok = available()
	}
	if !ok || 2*bytes <= l.Bytes {
		return nil
	}
	return &ParseError{Path: path, Err: fmt.Errorf("%w: its first %d rows take about %.3g GiB, and need about as much again to grow and be used, more than the %.3g GiB %s leaves this process: use fewer rows or columns (or more memory)",
		ErrTooLarge, rows, bytes/(1<<30), max(l.Bytes, 0)/(1<<30), l.What)}
}
