package main

import (
	"strings"
	"testing"
)

func TestNumberFormOf(t *testing.T) {
	for _, c := range []struct {
		in   string
		want numberForm
		as   string // asNumber's number
	}{
		{"12", notNumberLike, ""}, {"-1.5e3", notNumberLike, ""}, {"", notNumberLike, ""}, {"n/a", notNumberLike, ""},
		{"12B", notNumberLike, ""}, {"A12", notNumberLike, ""}, {"abc", notNumberLike, ""}, {"NaN", notNumberLike, ""},
		{"2024-01-31", notNumberLike, ""}, {"31/01/2024 10:00", notNumberLike, ""}, {"(n/a)", notNumberLike, ""},
		{"$", notNumberLike, ""}, {"kg", notNumberLike, ""}, {"- kg", notNumberLike, ""}, {"a,b", notNumberLike, ""},
		// Not numbers with separators or units (review): feet and inches,
		// lists, flats, times, postcodes, words.
		{"5'10", notNumberLike, ""}, {"6' 2", notNumberLike, ""}, {"1 2", notNumberLike, ""}, {"12 34", notNumberLike, ""},
		{"1 2 3", notNumberLike, ""}, {"1,2,3", notNumberLike, ""}, {"1,,000", notNumberLike, ""}, {"1,000,00", notNumberLike, ""},
		{"12 Q", notNumberLike, ""}, {"1 a", notNumberLike, ""}, {"3 B", notNumberLike, ""}, {"10 am", notNumberLike, ""},
		{"5 PM", notNumberLike, ""}, {"1234 AB", notNumberLike, ""}, {"94103 CA", notNumberLike, ""}, {"42 is", notNumberLike, ""},
		{"1 of", notNumberLike, ""}, {"((1))", notNumberLike, ""}, {"(-12)", notNumberLike, ""}, {"()", notNumberLike, ""},
		{"(", notNumberLike, ""}, {"--5", notNumberLike, ""}, {"-$-5", notNumberLike, ""}, {"1,000 ,5", notNumberLike, ""},
		{"1,000", formSeparated, "1000"}, {"1_000", formSeparated, "1000"}, {"$1,200.50", formSeparated, "1200.50"},
		{"5%", formSeparated, "5"}, {"€11", formSeparated, "11"}, {"11 €", formSeparated, "11"}, {"1£", formSeparated, "1"},
		{"4 000", formSeparated, "4000"}, {"4\u00a0000", formSeparated, "4000"}, {"1'000", formSeparated, "1000"},
		{"1 kg", formSeparated, "1"}, {"12kg", formSeparated, "12"}, {"3 km/h", formSeparated, "3"},
		{"-1,234,567", formSeparated, "-1234567"}, {"1,000,000.5", formSeparated, "1000000.5"},
		{"-$67", formSeparated, "-67"}, {"-€12", formSeparated, "-12"}, {"$-12", formSeparated, "-12"},
		{"USD 12", formSeparated, "12"}, {"12 EUR", formSeparated, "12"}, {"1.5 m", formSeparated, "1.5"},
		{"2,05", formDecimalComma, "2.05"}, {"3,5", formDecimalComma, "3.5"}, {"1.001,5", formDecimalComma, "1001.5"},
		{"-12,3456", formDecimalComma, "-12.3456"}, {"4 000,25", formDecimalComma, "4000.25"}, {"11,5 €", formDecimalComma, "11.5"},
		{",5", formDecimalComma, "0.5"},
		{"(12)", formParenNegative, "-12"}, {"(6.7)", formParenNegative, "-6.7"}, {"( 1,200.50 )", formParenNegative, "-1200.50"},
		{"($5)", formParenNegative, "-5"}, {"(1,000)", formParenNegative, "-1000"}, {"(12 kg)", formParenNegative, "-12"},
		// Review: pairs and lists, mixed signs, overflow, leading 0 groups,
		// other exports' formats.
		{"(2,3)", notNumberLike, ""}, {"(10,20)", notNumberLike, ""}, {"(1,5)", notNumberLike, ""},
		{"(1.234,56)", formParenNegative, "-1234.56"}, {"($-9)", notNumberLike, ""}, {"(€ -5)", notNumberLike, ""},
		{"($+9)", notNumberLike, ""}, {"1e999", notNumberLike, ""}, {"$1e999", notNumberLike, ""}, {"Inf", notNumberLike, ""},
		{"0,125", formDecimalComma, "0.125"}, {"0,000", formDecimalComma, "0.000"},
		{"1,00,000", formSeparated, "100000"}, {"₹1,00,000", formSeparated, "100000"}, {"12,34,567.89", formSeparated, "1234567.89"},
		{"1.234.567", formSeparated, "1234567"}, {"12-", formSeparated, "-12"}, {"1,234.50-", formSeparated, "-1234.50"},
		{"1.234.567,89-", formDecimalComma, "-1234567.89"}, {"1’234", formSeparated, "1234"}, {"CHF 1’234.50", formSeparated, "1234.50"},
		{"R$ 12", formSeparated, "12"}, {"US$12", formSeparated, "12"}, {"USD1,234", formSeparated, "1234"}, {"12 kr", formSeparated, "12"},
		{"$(1,234.50)", formParenNegative, "-1234.50"}, {"12 KG", formSeparated, "12"}, {"3 lbs.", formSeparated, "3"},
		{"1,5e3", formDecimalComma, "1.5e3"}, {"_1000", notNumberLike, ""}, {"1_e5", notNumberLike, ""}, {"0x_1p-4", notNumberLike, ""},
		{"99¢", notNumberLike, ""}, {"12 Kg", formSeparated, "12"}, {"1.234", notNumberLike, ""},
	} {
		as, got := asNumber(c.in)
		if got != c.want || as != c.as {
			t.Errorf("asNumber(%q) = %q, %d; want %q, %d", c.in, as, got, c.as, c.want)
		}
	}
	got := formAdvice(map[numberForm]string{formSeparated: "$1,200", formDecimalComma: "1.001,5", formParenNegative: "(6.7)"})
	for _, want := range []string{`remove the thousands separators, currency signs and units ("$1,200" is 1200)`, `write the decimal commas as points ("1.001,5" is 1001.5)`, `write the accounting negatives with a minus sign ("(6.7)" is -6.7)`} {
		if !strings.Contains(got, want) {
			t.Errorf("formAdvice: %q lacks %q", got, want)
		}
	}
	// Cells over maxNumberLike bytes are text, however they nest (review:
	// 40,000 nested parentheses took 4 s); a number that long is none.
	if f := numberFormOf(strings.Repeat("( ", 40000) + "1" + strings.Repeat(" )", 40000)); f != notNumberLike {
		t.Errorf("nested parentheses: %d", f)
	}
	if f := numberFormOf("$" + strings.Repeat("1", maxNumberLike)); f != notNumberLike {
		t.Errorf("a %d-byte cell: %d", maxNumberLike+1, f)
	}
}
