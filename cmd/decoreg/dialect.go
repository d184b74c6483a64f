package main

import (
	"flag"
	"fmt"
	"strconv"
	"unicode/utf8"

	"decoreg/data"
)

// dialectFlags are the --sep and --decimal flags of the commands that read
// a data file: how it separates its fields and writes its decimal mark.
type dialectFlags struct {
	sep, decimal string
}

func (d *dialectFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.sep, "sep", ",", "the `CHAR` that separates the data file's fields: one character, or tab (e.g. ';' or tab)")
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

// sepFlag writes the separator r as --sep takes it.
func sepFlag(r rune) string {
	if r == '\t' {
		return "--sep tab"
	}
	return fmt.Sprintf("--sep '%c'", r)
}
