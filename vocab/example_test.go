package vocab_test

import (
	"fmt"
	"strings"

	"decoreg/vocab"
)

func show(t vocab.Tokenizer, tokens []int) string {
	s := make([]string, len(tokens))
	for i, tok := range tokens {
		s[i] = t.TokenString(tok)
	}
	return strings.Join(s, " ")
}

func ExampleParse() {
	t, err := vocab.Parse("unnormalized:base=10,exponent=1,mantissa=4")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range []float64{1000, 0.018, -3.5, 0} {
		tokens, _, _ := t.Encode(v)
		c, _ := t.Decode(tokens)
		fmt.Printf("%v: %s  [%v, %v] centre %v\n", v, show(t, tokens), c.Lo, c.Hi, c.Center)
	}
	_, err = vocab.Parse("unnormalized:base=10,exponent=1")
	fmt.Println(err)
	// Output:
	// 1000: + + 3 1 0 0 0  [1000, 1001] centre 1000.5
	// 0.018: + - 2 1 8 0 0  [0.018, 0.01801] centre 0.018005
	// -3.5: - + 0 3 5 0 0  [-3.501, -3.5] centre -3.5005
	// 0: + - 9 0 0 0 0  [-1e-09, 1e-09] centre 0
	// vocab: bad spec "unnormalized:base=10,exponent=1": missing key "mantissa" (unnormalized needs base, exponent, mantissa)
}

func ExampleNormalized_Encode() {
	t, _ := vocab.NewNormalized(10, 4)
	for _, y := range []float64{0.3, 0.29999, 1} {
		tokens, _, _ := t.Encode(y)
		c, _ := t.Decode(tokens)
		fmt.Printf("%v: %s  [%v, %v) centre %v\n", y, show(t, tokens), c.Lo, c.Hi, c.Center)
	}
	_, _, err := t.Encode(1.5)
	fmt.Println(err)
	// Output:
	// 0.3: 3 0 0 0  [0.3, 0.3001) centre 0.30005
	// 0.29999: 2 9 9 9  [0.2999, 0.3) centre 0.29995
	// 1: 9 9 9 9  [0.9999, 1) centre 0.99995
	// vocab: value out of range: 1.5 is outside [0, 1] of normalized:base=10,length=4
}
