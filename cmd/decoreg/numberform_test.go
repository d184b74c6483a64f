package main

import (
	"strings"
	"testing"
)

func TestNumberFormOf(t *testing.T) {
	for _, c := range []struct {
		in   string
		want numberForm
	}{
		{"12", notNumberLike}, {"-1.5e3", notNumberLike}, {"", notNumberLike}, {"n/a", notNumberLike},
		{"12B", notNumberLike}, {"A12", notNumberLike}, {"abc", notNumberLike}, {"NaN", notNumberLike},
		{"2024-01-31", notNumberLike}, {"31/01/2024 10:00", notNumberLike}, {"(n/a)", notNumberLike},
		{"$", notNumberLike}, {"kg", notNumberLike}, {"- kg", notNumberLike}, {"a,b", notNumberLike},
		{"1,000", formSeparated}, {"1_000", formSeparated}, {"$1,200.50", formSeparated}, {"5%", formSeparated},
		{"€11", formSeparated}, {"11 €", formSeparated}, {"1£", formSeparated}, {"4 000", formSeparated},
		{"4\u00a0000", formSeparated}, {"1'000", formSeparated}, {"1 kg", formSeparated}, {"12kg", formSeparated},
		{"3 km/h", formSeparated}, {"-1,234,567", formSeparated}, {"1,000,000.5", formSeparated},
		{"2,05", formDecimalComma}, {"3,5", formDecimalComma}, {"1.001,5", formDecimalComma},
		{"-12,3456", formDecimalComma}, {"4 000,25", formDecimalComma}, {"11,5 €", formDecimalComma},
		{"(12)", formParenNegative}, {"(6.7)", formParenNegative}, {"( 1,200.50 )", formParenNegative}, {"($5)", formParenNegative},
	} {
		if got := numberFormOf(c.in); got != c.want {
			t.Errorf("numberFormOf(%q) = %d, want %d", c.in, got, c.want)
		}
	}
	got := formAdvice(map[numberForm]string{formSeparated: "$1,200", formDecimalComma: "1.001,5", formParenNegative: "(6.7)"})
	for _, want := range []string{`remove the thousands separators, currency signs and units ("$1,200")`, `write the decimal commas as points ("1.001,5" is 1001.5)`, `write the accounting negatives with a minus sign ("(6.7)" is -6.7)`} {
		if !strings.Contains(got, want) {
			t.Errorf("formAdvice: %q lacks %q", got, want)
		}
	}
}
