package main

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"decoreg/data"
)

// numberForm is how a cell that data.ParseNumber refuses reads as a number
// as spreadsheets export them; the advice to use it as one differs.
type numberForm int

const (
	notNumberLike numberForm = iota
	// formSeparated: thousands separators (",", "_", spaces, "'"),
	// currency signs, a percent sign or a unit: "1,000", "$5", "4 000",
	// "12 kg", "11 €". Removing those characters gives the number.
	formSeparated
	// formDecimalComma: a decimal comma, "2,05" or "1.001,5": removing
	// the comma would multiply it, the comma must become a point.
	formDecimalComma
	// formParenNegative: an accounting negative, "(12)" for -12.
	formParenNegative
)

// numberFormOf returns the form in which s reads as a number, or
// notNumberLike (also for a cell ParseNumber reads: it needs no advice).
func numberFormOf(s string) numberForm {
	t := strings.TrimSpace(s)
	if _, err := data.ParseNumber(t); err == nil || t == "" {
		return notNumberLike
	}
	if len(t) >= 3 && t[0] == '(' && t[len(t)-1] == ')' {
		inner := strings.TrimSpace(t[1 : len(t)-1])
		if _, err := data.ParseNumber(inner); err == nil || numberFormOf(inner) != notNumberLike {
			return formParenNegative
		}
		return notNumberLike
	}
	u := stripSignsAndUnit(t)
	if u == "" || !strings.ContainsAny(u, "0123456789") {
		return notNumberLike
	}
	if v := separatorSpace.Replace(u); decimalComma.MatchString(v) {
		if m := decimalComma.FindStringSubmatch(v); m[2] != "" || len(m[3]) != 3 {
			return formDecimalComma // "1,000" (no point before it, three digits after) is read as thousands
		}
	}
	if _, err := data.ParseNumber(separators.Replace(u)); err == nil {
		return formSeparated
	}
	return notNumberLike
}

// decimalComma matches a number with a decimal comma after the spaces and
// apostrophes of thousands are removed: an optional sign, digits (in
// groups of three after the first, separated by points: m[2]), a comma
// and digits (m[3]).
var decimalComma = regexp.MustCompile(`^[-+]?(\d{1,3}((?:\.\d{3})+)|\d+),(\d+)$`)

// separators are the thousands separators numberFormOf removes; the
// decimal-comma test removes only separatorSpace's.
var (
	separators     = strings.NewReplacer(",", "", "_", "", " ", "", "\u00a0", "", "\u202f", "", "'", "")
	separatorSpace = strings.NewReplacer(" ", "", "\u00a0", "", "\u202f", "", "'", "")
)

// currencySigns are the signs numberFormOf removes from a number's ends.
const currencySigns = "$€£¥₹₩₽¢%‰"

// stripSignsAndUnit removes currency and percent signs from the ends of t
// (with the spaces beside them) and a trailing unit: a run of up to 6
// letters (or "/", "°", "²", "³") after a space, or of 2 to 6 right after
// a digit ("12kg"; one letter there, "12B", is more often a code than a
// unit).
func stripSignsAndUnit(t string) string {
	isSign := func(r rune) bool { return strings.ContainsRune(currencySigns, r) || unicode.IsSpace(r) }
	t = strings.TrimFunc(t, isSign)
	end := len(t)
	n := 0
	for end > 0 {
		r, size := utf8.DecodeLastRuneInString(t[:end])
		if !(unicode.IsLetter(r) || strings.ContainsRune("/°²³", r)) {
			break
		}
		end -= size
		n++
	}
	if n > 0 && n <= 6 && end > 0 {
		r, _ := utf8.DecodeLastRuneInString(t[:end])
		switch {
		case unicode.IsSpace(r):
			return strings.TrimFunc(t[:end], isSign)
		case unicode.IsDigit(r) && n >= 2:
			return t[:end]
		}
	}
	return t
}

// formAdvice is what to do in the file with cells of the forms in examples
// (one example cell per form found), or "".
func formAdvice(examples map[numberForm]string) string {
	var parts []string
	if s, ok := examples[formSeparated]; ok {
		parts = append(parts, fmt.Sprintf("remove the thousands separators, currency signs and units (%s)", data.QuoteCell(s)))
	}
	if s, ok := examples[formDecimalComma]; ok {
		parts = append(parts, fmt.Sprintf("write the decimal commas as points (%s is %s)", data.QuoteCell(s), commaAsPoint(s)))
	}
	if s, ok := examples[formParenNegative]; ok {
		t := strings.TrimSpace(s)
		parts = append(parts, fmt.Sprintf("write the accounting negatives with a minus sign (%s is -%s)", data.QuoteCell(s), strings.TrimSpace(t[1:len(t)-1])))
	}
	return strings.Join(parts, "; ")
}

// commaAsPoint writes a decimal-comma cell s as a number with a point.
func commaAsPoint(s string) string {
	v := separatorSpace.Replace(stripSignsAndUnit(strings.TrimSpace(s)))
	v = strings.ReplaceAll(v, ".", "")
	return strings.Replace(v, ",", ".", 1)
}
