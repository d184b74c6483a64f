package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"decoreg/data"
)

// numberForm is how a cell that data.ParseNumber refuses reads as a number
// as spreadsheets export them; the advice to use it as one differs.
type numberForm int

const (
	notNumberLike numberForm = iota
	// formSeparated: thousands separators (",", "'", spaces, between groups
	// of three digits, or the Indian lakh's; "_" between digits; points
	// between two or more groups), currency signs or codes, a percent sign,
	// a unit, or a trailing minus: "1,000", "$5", "-$67", "4 000", "12 kg",
	// "11 €", "12-". Removing those characters (or moving the minus) gives
	// the number.
	formSeparated
	// formDecimalComma: a decimal comma, "2,05" or "1.001,5": removing
	// the comma would multiply it, the comma must become a point.
	formDecimalComma
	// formParenNegative: an accounting negative, "(12)" for -12.
	formParenNegative
	// formDecimalPoint: a decimal point, "2.05", in a file read with a
	// decimal comma (--decimal ,), where a point only groups thousands.
	formDecimalPoint
)

// numberFormIn is numberFormOf for a cell of a file of dialect dl: a cell
// that dl reads needs no advice, and under a decimal comma a number
// written with a point ("2.05") is formDecimalPoint.
func numberFormIn(dl data.Dialect, s string) numberForm {
	if !dl.DecimalComma {
		return numberFormOf(s)
	}
	if _, err := dl.ParseNumber(s); err == nil || errors.Is(err, data.ErrNonFinite) {
		return notNumberLike
	}
	if _, err := data.ParseNumber(s); err == nil {
		return formDecimalPoint
	}
	if f := numberFormOf(s); f != formDecimalComma {
		return f
	}
	// A decimal comma that --decimal , reads, with a percent or currency
	// sign, a unit, spaces between thousands or a trailing minus around
	// it ("5,5%", "12,5 kg", "1 234,5"): those are what to remove (the
	// advice was to write the comma as a point, which --decimal , then
	// reads as text).
	return formSeparated
}

// maxNumberLike is the longest cell, in bytes, that numberFormOf reads as a
// number: longer ones are text.
const maxNumberLike = 100

// numberFormOf returns the form in which s reads as a number, or
// notNumberLike (also for a cell ParseNumber reads: it needs no advice).
func numberFormOf(s string) numberForm {
	_, f := asNumber(s)
	return f
}

// asNumber returns s, a number as spreadsheets write them, as a number
// that data.ParseNumber reads, and its form; or "" and notNumberLike.
func asNumber(s string) (string, numberForm) {
	t := strings.TrimSpace(s)
	if t == "" || len(t) > maxNumberLike {
		return "", notNumberLike
	}
	if _, err := data.ParseNumber(t); err == nil || errors.Is(err, data.ErrNonFinite) {
		return "", notNumberLike // a number, or one that overflows: no form makes it one
	}
	if i := strings.IndexByte(t, '('); i > 0 && t[len(t)-1] == ')' && strings.Trim(t[:i], currencySigns+" ") == "" {
		t = t[i:] // "$(1,234.50)"
	}
	if len(t) >= 3 && t[0] == '(' && t[len(t)-1] == ')' {
		// One level only, of a positive number: "(-12)", "($-9)" and
		// "((1))" are not accounting negatives, nor "(2,3)" (a pair) nor
		// "(12,50)": a decimal comma inside needs points between its
		// thousands ("(1.234,56)").
		inner := strings.TrimSpace(t[1 : len(t)-1])
		if inner == "" || strings.ContainsAny(inner[:1], "(-+") {
			return "", notNumberLike
		}
		if _, err := data.ParseNumber(inner); err == nil {
			return "-" + inner, formParenNegative
		}
		v, f := asNumber(inner)
		if v == "" || v[0] == '-' || v[0] == '+' {
			return "", notNumberLike
		}
		if f == formSeparated || f == formDecimalComma && strings.Contains(inner, ".") {
			return "-" + v, formParenNegative
		}
		return "", notNumberLike
	}
	sign, body := "", t
	if body[0] == '-' || body[0] == '+' { // "-$67", Excel's negative currency
		sign, body = body[:1], body[1:]
	}
	if n := len(body); n >= 2 && body[n-1] == '-' && sign == "" { // "12-", SAP's negatives
		sign, body = "-", strings.TrimSpace(body[:n-1])
	}
	body = stripSignsAndUnit(body)
	if body != "" && (body[0] == '-' || body[0] == '+') { // "$-12"
		if sign != "" {
			return "", notNumberLike
		}
		sign, body = body[:1], body[1:]
	}
	if body == "" || !(body[0] >= '0' && body[0] <= '9' || body[0] == '.' || body[0] == ',') {
		return "", notNumberLike
	}
	ok := func(v string, f numberForm) (string, numberForm) {
		if _, err := data.ParseNumber(v); err != nil {
			return "", notNumberLike
		}
		return v, f
	}
	if plainNumber.MatchString(body) {
		return ok(sign+body, formSeparated) // only signs, codes or a unit around it
	}
	for i, re := range thousands {
		if re.MatchString(body) {
			return ok(sign+strings.ReplaceAll(body, thousandsSeparators[i], ""), formSeparated)
		}
	}
	if lakh.MatchString(body) || dotThousands.MatchString(body) { // "12,34,567", "1.234.567"
		sep := ","
		if dotThousands.MatchString(body) {
			sep = "."
		}
		return ok(sign+strings.ReplaceAll(body, sep, ""), formSeparated)
	}
	if underscored.MatchString(body) {
		return ok(sign+strings.ReplaceAll(body, "_", ""), formSeparated)
	}
	if m := decimalComma.FindStringSubmatch(body); m != nil {
		intPart := m[1]
		for _, sep := range append([]string{"."}, thousandsSeparators[1:]...) {
			intPart = strings.ReplaceAll(intPart, sep, "")
		}
		if intPart == "" {
			intPart = "0"
		}
		return ok(sign+intPart+"."+m[3]+m[4], formDecimalComma)
	}
	return "", notNumberLike
}

var (
	// plainNumber is a number without sign or separators: digits with an
	// optional point and exponent.
	plainNumber = regexp.MustCompile(`^(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$`)
	// thousands[i] is a number whose integer digits are in groups of three
	// after the first, which is not 0 ("0,125" is a decimal comma), each
	// group after thousandsSeparators[i].
	thousands = func() []*regexp.Regexp {
		var out []*regexp.Regexp
		for _, sep := range thousandsSeparators {
			out = append(out, regexp.MustCompile(`^[1-9]\d{0,2}(?:`+regexp.QuoteMeta(sep)+`\d{3})+(\.\d+)?$`))
		}
		return out
	}()
	// lakh is the Indian grouping: the last three digits, then pairs.
	lakh = regexp.MustCompile(`^[1-9]\d?(?:,\d{2})+,\d{3}(\.\d+)?$`)
	// dotThousands is points between groups of three, at least two of
	// them ("1.234" alone is a decimal).
	dotThousands = regexp.MustCompile(`^[1-9]\d{0,2}(?:\.\d{3}){2,}$`)
	// underscored is Go's and Python's digit grouping: underscores between
	// digits.
	underscored = regexp.MustCompile(`^\d+(?:_\d+)+(\.\d+)?$`)
	// decimalComma is a number with a decimal comma: an integer part (m[1])
	// of digits, or of groups of three after points or spaces (m[2]),
	// possibly empty (",5"), then a comma, digits (m[3]) and an exponent
	// (m[4]). A comma after ungrouped digits other than 0 with three
	// digits after it, "1,000", is read as thousands (thousands matches it
	// first).
	decimalComma = regexp.MustCompile("^(\\d{1,3}((?:[. '\u00a0\u202f\u2019]\\d{3})+)|\\d*),(\\d+)([eE][-+]?\\d+)?$")
)

// thousandsSeparators are the separators of thousands, the comma first
// (U+2019 is the typographic apostrophe of Swiss numbers).
var thousandsSeparators = []string{",", "'", "\u2019", " ", "\u00a0", "\u202f"}

// currencySigns are the signs asNumber removes from a number's ends (not
// "¢": "99¢" is 0.99 dollars).
const currencySigns = "$€£¥₹₩₽%‰￥"

// units are the units and currency codes asNumber removes after a number
// (with or without a space; those of two letters or more in any case and
// with a final point, "12 KG", "3 lbs.") or, for codes and prefixes,
// before it. Single capital letters are left out: "3 B" is more often a
// flat than bytes.
var units = func() map[string]bool {
	m := map[string]bool{}
	for _, u := range strings.Fields(`m g s h l t L
		kg mg µg ug lb lbs oz km cm mm µm nm mi ft yd ml mL cl dl gal
		sec secs min mins hr hrs ms µs ns yr yrs kWh Wh kW MW GW mW mV kV mA Hz kHz MHz GHz
		kB KB MB GB TB px pt °C °F ºC ºF km/h mph m/s m2 m² m3 m³ km2 km² sqft ha bar mbar Pa hPa kPa MPa
		psi cal kcal kJ MJ dB kr zł Kč Ft lei
		USD EUR GBP CHF JPY CNY INR CAD AUD SEK NOK DKK PLN RUB BRL CZK HUF`) {
		m[u] = true
	}
	return m
}()

// currencyPrefixes stand before a number, with or without a space.
var currencyPrefixes = []string{"US$", "A$", "C$", "NZ$", "HK$", "R$", "Rs.", "Rs", "kr", "CHF", "USD", "EUR", "GBP", "JPY", "CNY", "INR", "CAD", "AUD", "SEK", "NOK", "DKK", "PLN", "RUB", "BRL", "CZK", "HUF"}

// unitsFolded are units of two letters or more, lower-cased.
var unitsFolded = func() map[string]bool {
	m := map[string]bool{}
	for u := range units {
		if utf8.RuneCountInString(u) >= 2 {
			m[strings.ToLower(u)] = true
		}
	}
	return m
}()

// isUnit reports whether u is one of units: exactly, or, for two letters
// or more, in any case and with a final point.
func isUnit(u string) bool {
	if units[u] {
		return true
	}
	u = strings.TrimSuffix(u, ".")
	return utf8.RuneCountInString(u) >= 2 && unitsFolded[strings.ToLower(u)]
}

// stripSignsAndUnit removes currency and percent signs from the ends of t
// (with the spaces beside them), a unit or currency code after it, and a
// currency prefix or code before it.
func stripSignsAndUnit(t string) string {
	isSign := func(r rune) bool { return strings.ContainsRune(currencySigns, r) || r == ' ' || r == '\u00a0' }
	t = strings.TrimFunc(t, isSign)
	for _, p := range currencyPrefixes {
		if len(t) > len(p) && strings.HasPrefix(t, p) && !(t[len(p)] >= 'a' && t[len(p)] <= 'z') {
			t = strings.TrimFunc(t[len(p):], isSign)
			break
		}
	}
	if _, u := splitUnit(t); u != "" {
		t = strings.TrimFunc(t[:len(t)-len(u)], isSign)
	}
	return t
}

// splitUnit returns t without a trailing unit (isUnit) and the unit (with
// the space before it), or t and "".
func splitUnit(t string) (string, string) {
	if i := strings.LastIndexAny(t, " \u00a0"); i >= 0 && isUnit(strings.TrimSpace(t[i:])) {
		return t[:i], t[i:]
	}
	// A unit right after the digits ("12kg"): the longest that is one.
	for k := 1; k < len(t); k++ {
		if c := t[k-1]; c >= '0' && c <= '9' && isUnit(t[k:]) {
			return t[:k], t[k:]
		}
	}
	return t, ""
}

// unitOf returns the unit or currency code after the number in s (trimmed,
// "" if none): a column that mixes units ("500 MB", "1.5 GB") needs them
// converted, not removed.
func unitOf(s string) string {
	t := strings.TrimSpace(s)
	if t != "" && t[len(t)-1] == ')' {
		t = strings.TrimSpace(strings.TrimSuffix(t, ")"))
	}
	_, u := splitUnit(strings.TrimRight(t, currencySigns+" "))
	return strings.TrimSuffix(strings.TrimSpace(u), ".")
}

// formAdvice is what to do in the file with cells of the forms in examples
// (one example cell per form found), or "".
func formAdvice(examples map[numberForm]string) string { return formAdviceIn(data.Dialect{}, examples) }

// formAdviceIn is formAdvice for a file of dialect dl: under a decimal
// comma the numbers are shown as the file writes them ("5,5%" is 5,5 in
// percent; 5.5 is text there, helper-148).
func formAdviceIn(dl data.Dialect, examples map[numberForm]string) string {
	var parts []string
	for _, f := range []struct {
		form numberForm
		what string
	}{
		{formSeparated, "remove the thousands separators, currency signs and units"},
		{formDecimalComma, "write the decimal commas as points"},
		{formParenNegative, "write the accounting negatives with a minus sign"},
		{formDecimalPoint, "write the decimal points as commas"},
	} {
		if s, ok := examples[f.form]; ok {
			v, _ := asNumber(s)
			switch {
			case f.form == formDecimalPoint:
				v = strings.Replace(strings.TrimSpace(s), ".", ",", 1) // (one point: a number to ParseNumber)
			case dl.DecimalComma:
				v = strings.Replace(v, ".", ",", 1)
			}
			if strings.ContainsAny(s, "%‰") {
				v += " in percent" // or per mille: the sign is removed, the number kept
				if strings.Contains(s, "‰") {
					v = strings.Replace(v, "percent", "per mille", 1)
				}
			}
			parts = append(parts, fmt.Sprintf("%s (%s is %s)", f.what, data.QuoteCell(s), v))
		}
	}
	return strings.Join(parts, "; ")
}

// decimalHintIn is decimalHint for a file of dialect dl: in a file
// separated by another character than the comma, where commas between
// thousands read as one ("268,728"), it names --decimal , too (a
// semicolon file often has decimal commas; helper-148).
func decimalHintIn(dl data.Dialect, examples map[numberForm]string) string {
	if h := decimalHint(examples); h != "" || dl.DecimalComma || dl.Comma() == ',' {
		return h
	}
	if s, ok := examples[formSeparated]; ok && ambiguousComma.MatchString(strings.TrimSpace(s)) {
		return " (or, if its commas are decimal commas, read them with --decimal ,)"
	}
	return ""
}

// decimalHint is what formAdvice's message adds where examples hold a
// decimal comma: the flag that reads them.
func decimalHint(examples map[numberForm]string) string {
	if _, ok := examples[formDecimalComma]; ok {
		return " (or read the decimal commas with --decimal ,)"
	}
	if _, ok := examples[formDecimalPoint]; ok {
		return " (or leave out --decimal , to read decimal points)"
	}
	return ""
}
