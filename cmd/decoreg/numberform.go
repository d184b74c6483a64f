package main

import (
	"fmt"
	"regexp"
	"strings"

	"decoreg/data"
)

// numberForm is how a cell that data.ParseNumber refuses reads as a number
// as spreadsheets export them; the advice to use it as one differs.
type numberForm int

const (
	notNumberLike numberForm = iota
	// formSeparated: thousands separators (",", "'", spaces, between groups
	// of three digits; "_" anywhere), currency signs or codes, a percent
	// sign or a unit: "1,000", "$5", "-$67", "4 000", "12 kg", "11 €".
	// Removing those characters gives the number.
	formSeparated
	// formDecimalComma: a decimal comma, "2,05" or "1.001,5": removing
	// the comma would multiply it, the comma must become a point.
	formDecimalComma
	// formParenNegative: an accounting negative, "(12)" for -12.
	formParenNegative
)

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
	if _, err := data.ParseNumber(t); err == nil {
		return "", notNumberLike
	}
	if len(t) >= 3 && t[0] == '(' && t[len(t)-1] == ')' {
		// One level only, of a positive number: "(-12)" and "((1))" are not
		// accounting negatives.
		inner := strings.TrimSpace(t[1 : len(t)-1])
		if inner == "" || strings.ContainsAny(inner[:1], "(-+") {
			return "", notNumberLike
		}
		if _, err := data.ParseNumber(inner); err == nil {
			return "-" + inner, formParenNegative
		}
		if v, f := asNumber(inner); f == formSeparated || f == formDecimalComma {
			return "-" + v, formParenNegative
		}
		return "", notNumberLike
	}
	sign, body := "", t
	if body[0] == '-' || body[0] == '+' { // "-$67", Excel's negative currency
		sign, body = body[:1], body[1:]
	}
	body = stripSignsAndUnit(body)
	if body != "" && (body[0] == '-' || body[0] == '+') { // "$-12"
		if sign != "" {
			return "", notNumberLike
		}
		sign, body = body[:1], body[1:]
	}
	if body == "" || body[0] == '-' || body[0] == '+' {
		return "", notNumberLike
	}
	if plainNumber.MatchString(body) {
		return sign + body, formSeparated // only signs, codes or a unit around it
	}
	for i, re := range thousands {
		if re.MatchString(body) {
			v := sign + strings.ReplaceAll(body, thousandsSeparators[i], "")
			if _, err := data.ParseNumber(v); err == nil {
				return v, formSeparated
			}
		}
	}
	if strings.Contains(body, "_") {
		v := sign + strings.ReplaceAll(body, "_", "")
		if _, err := data.ParseNumber(v); err == nil {
			return v, formSeparated
		}
	}
	if m := decimalComma.FindStringSubmatch(body); m != nil {
		intPart := m[1]
		for _, sep := range append([]string{"."}, thousandsSeparators[1:]...) {
			intPart = strings.ReplaceAll(intPart, sep, "")
		}
		if intPart == "" {
			intPart = "0"
		}
		v := sign + intPart + "." + m[3]
		if _, err := data.ParseNumber(v); err == nil {
			return v, formDecimalComma
		}
	}
	return "", notNumberLike
}

var (
	// plainNumber is a number without sign, separators or exponent sign
	// problems: digits with an optional point and exponent.
	plainNumber = regexp.MustCompile(`^(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$`)
	// thousands[i] is a number whose integer digits are in groups of three
	// after the first, each group after thousandsSeparators[i].
	thousands = func() []*regexp.Regexp {
		var out []*regexp.Regexp
		for _, sep := range thousandsSeparators {
			out = append(out, regexp.MustCompile(`^\d{1,3}(?:`+regexp.QuoteMeta(sep)+`\d{3})+(\.\d+)?$`))
		}
		return out
	}()
	// decimalComma is a number with a decimal comma: an integer part (m[1])
	// of digits, or of groups of three after points or spaces (m[2]),
	// possibly empty (",5"), then a comma and digits (m[3]). A comma after
	// ungrouped digits with three digits after it, "1,000", is read as
	// thousands (thousands matches it first).
	decimalComma = regexp.MustCompile("^(\\d{1,3}((?:[. '\u00a0\u202f]\\d{3})+)|\\d*),(\\d+)$")
)

// thousandsSeparators are the separators of thousands, the comma first.
var thousandsSeparators = []string{",", "'", " ", "\u00a0", "\u202f"}

// currencySigns are the signs asNumber removes from a number's ends.
const currencySigns = "$€£¥₹₩₽¢%‰"

// units are the units and currency codes asNumber removes after a number
// (with or without a space) or, for codes, before it (with a space). Single
// capital letters are left out: "3 B" is more often a flat than bytes.
var units = func() map[string]bool {
	m := map[string]bool{}
	for _, u := range strings.Fields(`m g s h l t L
		kg mg µg ug lb lbs oz km cm mm µm nm mi ft yd ml mL cl dl gal
		sec secs min mins hr hrs ms µs ns yr yrs kWh Wh kW MW GW mW mV kV mA Hz kHz MHz GHz
		kB KB MB GB TB px pt °C °F ºC ºF km/h mph m/s m2 m² m3 m³ km2 km² sqft ha bar mbar Pa hPa kPa MPa
		psi cal kcal kJ MJ dB
		USD EUR GBP CHF JPY CNY INR CAD AUD SEK NOK DKK PLN RUB BRL`) {
		m[u] = true
	}
	return m
}()

// currencyCode reports whether s is one of units' codes, which may stand
// before a number.
func currencyCode(s string) bool { return len(s) == 3 && units[s] && strings.ToUpper(s) == s }

// stripSignsAndUnit removes currency and percent signs from the ends of t
// (with the spaces beside them), a unit or currency code after it (units),
// and a currency code before it.
func stripSignsAndUnit(t string) string {
	isSign := func(r rune) bool { return strings.ContainsRune(currencySigns, r) || r == ' ' || r == '\u00a0' }
	t = strings.TrimFunc(t, isSign)
	if i := strings.LastIndexAny(t, " \u00a0"); i >= 0 && units[strings.TrimSpace(t[i:])] {
		t = strings.TrimFunc(t[:i], isSign)
	} else {
		// A unit right after the digits ("12kg"): the longest that is one.
		for k := len(t) - 1; k > 0; k-- {
			if c := t[k-1]; c >= '0' && c <= '9' && units[t[k:]] {
				t = t[:k]
				break
			}
		}
	}
	if i := strings.IndexAny(t, " \u00a0"); i > 0 && currencyCode(t[:i]) {
		t = strings.TrimFunc(t[i:], isSign)
	}
	return t
}

// formAdvice is what to do in the file with cells of the forms in examples
// (one example cell per form found), or "".
func formAdvice(examples map[numberForm]string) string {
	var parts []string
	for _, f := range []struct {
		form numberForm
		what string
	}{
		{formSeparated, "remove the thousands separators, currency signs and units"},
		{formDecimalComma, "write the decimal commas as points"},
		{formParenNegative, "write the accounting negatives with a minus sign"},
	} {
		if s, ok := examples[f.form]; ok {
			v, _ := asNumber(s)
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
