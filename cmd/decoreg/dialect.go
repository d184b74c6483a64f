package main

import (
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"decoreg/data"
)

// dialectFlags are the --sep and --decimal flags of the commands that read
// a data file: how it separates its fields and writes its decimal mark.
type dialectFlags struct {
	sep, decimal string
}

func (d *dialectFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.sep, "sep", ",", "the `CHAR` that separates the data file's fields: one character, or tab (or \\t) (e.g. ';' or tab)")
	fs.StringVar(&d.decimal, "decimal", ".", "the data file's decimal `MARK`, . or , (with ',': \"1,5\" is 1.5, points may group thousands, \"1.234,5\", and a number with another point is text)")
}

// dialect returns the dialect the flags give, or a usage error naming the
// flag.
func (d *dialectFlags) dialect(name string) (data.Dialect, error) {
	var dl data.Dialect
	switch s := d.sep; {
	case s == "tab" || s == `\t`:
		dl.Sep = '\t'
	case utf8.RuneCountInString(s) == 1:
		dl.Sep, _ = utf8.DecodeRuneInString(s)
		if err := dl.Check(); err != nil {
			return dl, inputf(name, "--sep %s: %v", strconv.Quote(s), err)
		}
	default:
		return dl, inputf(name, "--sep %s: want one character, or tab (e.g. --sep ';' or --sep tab)", strconv.Quote(s))
	}
	switch d.decimal {
	case ".":
	case ",":
		dl.DecimalComma = true
	default:
		return dl, inputf(name, "--decimal %s: want . or ,", strconv.Quote(d.decimal))
	}
	return dl, nil
}

// naDecimalComma refuses an --na list (na, split into nas) that splits a
// number written with a decimal comma into two markers, under --decimal ,:
// "-999,5" is the markers -999 and 5 (every cell of 5 then missing,
// helper-147). Entries in double quotes are taken as given (each entry by
// itself: one quoted entry let the others' split through, helper-148).
func naDecimalComma(name, na string, nas []string, dl data.Dialect) error {
	if !dl.DecimalComma {
		return nil
	}
	quoted := quotedFields(na)
	if len(quoted) != len(nas) {
		return nil // not expected: listFields read the same list
	}
	for i := 0; i+1 < len(nas); i++ {
		a, b := strings.TrimSpace(nas[i]), strings.TrimSpace(nas[i+1])
		if quoted[i] || quoted[i+1] || !intPart.MatchString(a) || !fracPart.MatchString(b) {
			continue
		}
		return inputf(name, "--na %s: under --decimal , the entries %s and %s are two markers, not the number %s,%s: give a marker with a decimal comma in double quotes (--na %s), or two markers each in double quotes (--na %s)",
			strconv.Quote(na), strconv.Quote(a), strconv.Quote(b), a, b, shellArg(`"`+a+","+b+`"`), shellArg(`"`+a+`","`+b+`"`))
	}
	return nil
}

// quotedFields reports, for each comma-separated field of s as listFields
// reads it, whether it is in double quotes.
func quotedFields(s string) []bool {
	var out []bool
	inQuote, start := false, true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			if start {
				out = append(out, true)
				start = false
			}
			inQuote = !inQuote
		case c == ',' && !inQuote:
			if start {
				out = append(out, false)
			}
			start = true
		case c != ' ' && c != '\t' && start:
			out = append(out, false)
			start = false
		}
	}
	if start {
		out = append(out, false)
	}
	return out
}

var (
	intPart  = regexp.MustCompile(`^[+-]?\d+$`) // the part of a number before a decimal comma
	fracPart = regexp.MustCompile(`^\d+([eE][+-]?\d+)?$`)
)

// sepFlag writes the separator r as --sep takes it.
func sepFlag(r rune) string {
	if r == '\t' {
		return "--sep tab"
	}
	return "--sep " + shellArg(string(r)) // (a quote as the separator: '\'')
}

// warnGrouped warns about each numeric column of fr, read with --decimal ,,
// whose numbers with points all read as thousands groups ("12.465" as
// 12465) and none has a decimal comma: a file of decimal points with three
// decimals would be read a thousand times too large without a word
// (helper-147).
func warnGrouped(name, path string, fr *data.Frame) {
	for _, c := range fr.Columns {
		if c.Kind != data.Numeric || c.Grouped == 0 || c.DecimalCommas > 0 {
			continue
		}
		v, _ := fr.Dialect.ParseNumber(c.GroupedText)
		fmt.Fprintf(errOut, "decoreg %s: warning: %s: column %s: %d of its numbers hold points and none a decimal comma; under --decimal , the points group thousands (%s is %s): if they are decimal points, leave out --decimal ,\n",
			name, nameSpools(path), data.QuoteName(c.Name), c.Grouped, data.QuoteCell(c.GroupedText), strconv.FormatFloat(v, 'f', -1, 64))
	}
}
