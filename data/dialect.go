package data

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Dialect is how a CSV file separates its fields and writes the decimal
// point of its numbers. The zero value is the comma and the point.
type Dialect struct {
	// Sep separates the fields; 0 means ','. Check says which may not:
	// a double quote, a line end, a letter, a digit, a space, and the
	// signs and point of numbers.
	Sep rune
	// DecimalComma reads numbers written with a decimal comma, as
	// spreadsheets write them where the comma is the decimal mark: "1,5"
	// is 1.5, and points may group the digits before it by threes, the
	// first group not starting with 0 ("1.234,5" is 1234.5, "1.234" is
	// 1234). A point anywhere else makes a cell text ("1.5", "0.25",
	// "0.125"): under this dialect it is no decimal point. Numbers
	// without a comma or point ("12", "1e5", "-3") read as always. With
	// Sep ',' too, such a number is a quoted field.
	DecimalComma bool
}

// Comma returns the separator: Sep, or ',' for 0.
func (d Dialect) Comma() rune {
	if d.Sep == 0 {
		return ','
	}
	return d.Sep
}

// Check returns an error saying why Sep cannot separate fields, or nil.
func (d Dialect) Check() error {
	r := d.Comma()
	switch {
	case r == utf8.RuneError || !utf8.ValidRune(r):
		return errors.New("the separator is not a valid character")
	case r == '"':
		return errors.New(`the separator may not be the double quote, which quotes fields`)
	case r == '\r' || r == '\n':
		return errors.New("the separator may not be a line end")
	case r == ' ':
		return errors.New("the separator may not be a space (columns aligned by spaces hold empty fields between them): convert the file to commas or tabs")
	case r == '\t':
		return nil
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsSpace(r) || unicode.IsControl(r) || !unicode.IsPrint(r):
		return fmt.Errorf("the separator %s is a letter, a digit, a space or a control character", strconv.QuoteRune(r))
	case r == '.' || r == '+' || r == '-' || r == '_':
		return fmt.Errorf("the separator %s is written in numbers", strconv.QuoteRune(r))
	}
	return nil
}

// ParseNumber parses a cell as the readers do under d: ParseNumber, or,
// with DecimalComma, a number written with a decimal comma (see
// DecimalComma); errors are ParseNumber's, holding the cell as given.
func (d Dialect) ParseNumber(s string) (float64, error) {
	if !d.DecimalComma {
		return parseNumber(s)
	}
	t := strings.TrimSpace(s)
	if !strings.ContainsAny(t, ".,") {
		return parseNumber(s)
	}
	if len(t) <= 64 && !strings.Contains(t, ".") && strings.Count(t, ",") == 1 && !strings.ContainsAny(t, "xX_") {
		// The common case, without the regular expression (a quarter of
		// the time) and without allocating (the text with a point is on
		// the stack: half the time of strings.Replace's copy): the comma
		// is the point. (Hexadecimal floats, "0x1,8p1", take the
		// expression's way, which refuses them; underscores are no
		// number, as to ParseNumber.)
		var buf [64]byte
		b := append(buf[:0], t...)
		b[strings.IndexByte(t, ',')] = '.'
		x, err := strconv.ParseFloat(string(b), 64)
		switch {
		case err == nil && !math.IsNaN(x) && !math.IsInf(x, 0):
			return x, nil
		case errors.Is(err, strconv.ErrRange) && math.IsInf(x, 0): // only an overflow has a comma
			return 0, fmt.Errorf("%w: %s overflows float64", ErrNonFinite, QuoteCell(s))
		}
		return 0, &NotNumberError{s}
	}
	m := decimalCommaNumber.FindStringSubmatch(t)
	if m == nil || m[2] == "" && m[3] == "" {
		return 0, &NotNumberError{s}
	}
	v := m[1] + strings.ReplaceAll(m[2], ".", "")
	if strings.Contains(t, ",") {
		v += "." + m[3]
	}
	x, err := parseNumber(v + m[4])
	if err != nil && !errors.Is(err, ErrNonFinite) {
		return 0, &NotNumberError{s}
	}
	if err != nil {
		return 0, fmt.Errorf("%w: %s overflows float64", ErrNonFinite, QuoteCell(s))
	}
	return x, nil
}

// decimalCommaNumber is a number with a decimal comma: a sign, the
// integer digits (grouped by threes with points, or not at all), a comma
// and the fraction's digits, an exponent.
var decimalCommaNumber = regexp.MustCompile(`^([+-]?)([1-9]\d{0,2}(?:\.\d{3})+|\d*)(?:,(\d*))?([eE][+-]?\d+)?$`)

// ReadHeader is the package's ReadHeader for a file of dialect d.
func (d Dialect) ReadHeader(path string) ([]string, error) {
	h, _, err := d.ReadHeaderLine(path)
	return h, err
}
