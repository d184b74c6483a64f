package main

import (
	"flag"
	"slices"
	"strconv"
	"strings"

	"decoreg/data"
)

// keepFlag is the --keep flag of predict and sample: columns of the data
// file (an identifier, the target) copied into the output beside row.
type keepFlag struct{ list string }

func (k *keepFlag) register(fs *flag.FlagSet) {
	fs.StringVar(&k.list, "keep", "", "comma-separated `COLUMNS` of FILE to copy, as read, into the output after row (an identifier, the target)")
}

// keptColumns are the columns of --keep as read: cols[j] holds column j's
// cells (spaces trimmed), each as its CSV field, in one buffer without
// pointers (a string a cell, kept for the whole command, cost every
// garbage collection a scan of them).
type keptColumns struct {
	names []string
	cols  []keptText
}

// keptText is a column's fields: field r is buf[end[r-1]:end[r]] (from 0
// for r = 0).
type keptText struct {
	buf []byte
	end []int
}

// field returns field r.
func (t *keptText) field(r int) []byte {
	lo := 0
	if r > 0 {
		lo = t.end[r-1]
	}
	return t.buf[lo:t.end[r]]
}

// checkKeep returns the columns of --keep (list), checked against the
// header of the data file path of dialect dl, before the file is read; nil
// without the flag. taken tells the output's own column names, which a
// kept column may not have.
func checkKeep(name string, fs *flag.FlagSet, list, path string, dl data.Dialect, taken func(string) bool) ([]string, error) {
	if !isSet(fs, "keep") {
		return nil, nil
	}
	if err := noEmptyLists(name, fs, "keep"); err != nil {
		return nil, err
	}
	names := splitList(list)
	header, hline, err := dl.ReadHeaderLine(path)
	if err != nil {
		return nil, inputErr(name, err)
	}
	for i, n := range names {
		if slices.Contains(names[:i], n) {
			return nil, inputf(name, "--keep %s: %s is given twice", strconv.Quote(list), data.QuoteName(n))
		}
		if !slices.Contains(header, n) {
			return nil, inputf(name, "--keep: %s: line %d: no column %s%s (the file's columns are %s)", nameSpools(path), hline, data.QuoteName(n), didYouMean(n, header), quoteNames(header))
		}
		if taken(n) {
			return nil, inputf(name, "--keep: the output has a column %s of its own; rename the file's column to keep it", data.QuoteName(n))
		}
	}
	return names, nil
}

// readKeep reads the columns names of --keep (checkKeep's; none for nil)
// from the data file path of dialect dl, whose rows the command read
// (lines lines).
func readKeep(name string, names []string, path string, dl data.Dialect, lines []int) (*keptColumns, error) {
	if names == nil {
		return nil, nil
	}
	// As text, every cell as written (no missing-value markers: "NA" is
	// kept as NA).
	kinds := make(map[string]data.Kind, len(names))
	for _, n := range names {
		kinds[n] = data.Categorical
	}
	fr, err := data.ReadFrame(path, data.FrameOptions{Columns: names, Kinds: kinds, NA: []string{}, Dialect: dl})
	if err != nil {
		return nil, inputErr(name, err)
	}
	if !slices.Equal(fr.Lines, lines) {
		// The same file read the same way: not expected.
		return nil, failf(name, "--keep: %s: its %d rows read as %d", nameSpools(path), len(lines), fr.Rows)
	}
	k := &keptColumns{names: names}
	for _, c := range fr.Columns {
		var t keptText
		t.end = make([]int, len(c.Str))
		for r, s := range c.Str {
			t.buf = append(t.buf, csvField(s)...)
			t.end[r] = len(t.buf)
		}
		k.cols = append(k.cols, t)
	}
	return k, nil
}

// header appends ",NAME" for each kept column to b.
func (k *keptColumns) header(b []byte) []byte {
	if k == nil {
		return b
	}
	for _, n := range k.names {
		b = append(append(b, ','), csvField(n)...)
	}
	return b
}

// row appends ",CELL" for each kept column of data row r to b.
func (k *keptColumns) row(b []byte, r int) []byte {
	if k == nil {
		return b
	}
	for j := range k.cols {
		b = append(append(b, ','), k.cols[j].field(r)...)
	}
	return b
}

// csvField writes s as a CSV field: in double quotes, its quotes doubled,
// where it holds a comma, a quote or a line end (or starts or ends with a
// space, which readers trim).
func csvField(s string) string {
	if s == "" || !strings.ContainsAny(s, ",\"\r\n") && strings.TrimSpace(s) == s {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// keepNote is the help text of --keep for the commands' long help.
const keepNote = `--keep COLUMNS copies those columns of FILE into the output, after row,
each cell as read (spaces around it trimmed, missing-value markers kept as
written; a cell holding a comma, a quote or a line end in double quotes):
an identifier to join the output on, or the target beside its prediction.
A column the file lacks, or named as one of the output's own columns, is
an error.`
