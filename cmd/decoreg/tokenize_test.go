package main

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

// tokenizeCLI runs "decoreg tokenize ARGS" through run with stdout
// captured, and returns the exit status, standard output and standard
// error.
func tokenizeCLI(t *testing.T, args ...string) (code int, out, errs string) {
	t.Helper()
	var o, e bytes.Buffer
	old := stdout
	stdout = &o
	defer func() { stdout = old }()
	code = run(append([]string{"tokenize"}, args...), &e)
	return code, o.String(), e.String()
}

// tokenizeOut is one output line, decoded.
type tokenizeOut struct {
	Value   any      `json:"value"`
	Tokens  []string `json:"tokens"`
	Lo      any      `json:"lo"`
	Hi      any      `json:"hi"`
	Decoded any      `json:"decoded"`
	Clamped bool     `json:"clamped"`
}

func tokenizeLines(t *testing.T, args ...string) []tokenizeOut {
	t.Helper()
	code, out, errs := tokenizeCLI(t, args...)
	if code != 0 || errs != "" {
		t.Fatalf("tokenize %s: exit %d, stderr %q", strings.Join(args, " "), code, errs)
	}
	var lines []tokenizeOut
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var o tokenizeOut
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			t.Fatalf("tokenize %s: line %q: %v", strings.Join(args, " "), l, err)
		}
		lines = append(lines, o)
	}
	return lines
}

// num turns a JSON value (a number, or "NaN", "Inf", "-Inf") into a float64.
func num(t *testing.T, v any) float64 {
	t.Helper()
	switch x := v.(type) {
	case float64:
		return x
	case string:
		switch x {
		case "NaN":
			return math.NaN()
		case "Inf":
			return math.Inf(1)
		case "-Inf":
			return math.Inf(-1)
		}
	}
	t.Fatalf("%v (%T) is not a number", v, v)
	return 0
}

type wantLine struct {
	value            any // float64, or nil for null
	tokens           string
	lo, hi, centre   float64
	clamped          bool
	nonFiniteStrings string // the expected JSON strings of lo, hi, decoded, if not numbers
}

func checkLines(t *testing.T, args []string, want []wantLine) {
	t.Helper()
	got := tokenizeLines(t, args...)
	if len(got) != len(want) {
		t.Fatalf("tokenize %s: %d lines, want %d", strings.Join(args, " "), len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		ok := strings.Join(g.Tokens, " ") == w.tokens && g.Clamped == w.clamped
		switch v := w.value.(type) {
		case nil:
			ok = ok && g.Value == nil
		case float64:
			gv, isNum := g.Value.(float64)
			ok = ok && isNum && gv == v
		case string:
			ok = ok && g.Value == v
		}
		if w.nonFiniteStrings != "" {
			ok = ok && g.Lo == w.nonFiniteStrings && g.Hi == w.nonFiniteStrings && g.Decoded == w.nonFiniteStrings
		} else {
			ok = ok && num(t, g.Lo) == w.lo && num(t, g.Hi) == w.hi && num(t, g.Decoded) == w.centre
		}
		if !ok {
			t.Errorf("tokenize %s: line %d = %+v; want %+v", strings.Join(args, " "), i, g, w)
		}
	}
}

func TestTokenizeEncode(t *testing.T) {
	const u = "unnormalized:base=10,exponent=1,mantissa=4"
	checkLines(t, []string{"--vocab", "normalized:base=10,length=4", "0.3", "1", "0"}, []wantLine{
		{value: 0.3, tokens: "3 0 0 0", lo: 0.3, hi: 0.3001, centre: 0.30005},
		{value: 1.0, tokens: "9 9 9 9", lo: 0.9999, hi: 1, centre: 0.99995},
		{value: 0.0, tokens: "0 0 0 0", lo: 0, hi: 0.0001, centre: 0.00005},
	})
	// Negative values after the flags are values, not flags.
	checkLines(t, []string{"--vocab", u, "1000", "0.018", "-3.5", "-0", "1e20", "-1e-12"}, []wantLine{
		{value: 1000.0, tokens: "+ + 3 1 0 0 0", lo: 1000, hi: 1001, centre: 1000.5},
		{value: 0.018, tokens: "+ - 2 1 8 0 0", lo: 0.018, hi: 0.01801, centre: 0.018005},
		{value: -3.5, tokens: "- + 0 3 5 0 0", lo: -3.501, hi: -3.5, centre: -3.5005},
		{value: 0.0, tokens: "+ - 9 0 0 0 0", lo: -1e-9, hi: 1e-9, centre: 0},
		{value: 1e20, tokens: "+ + 9 9 9 9 9", lo: 9.999e9, hi: 1e10, centre: 9.9995e9, clamped: true},
		{value: -1e-12, tokens: "+ - 9 0 0 0 0", lo: -1e-9, hi: 1e-9, centre: 0},
	})
	// -- ends the flags; -vocab=SPEC works too; base 36 letters.
	checkLines(t, []string{"-vocab=unnormalized:base=36,exponent=1,mantissa=2", "--", "-35"}, []wantLine{
		{value: -35.0, tokens: "- + 0 z 0", lo: -1261.0 / 36, hi: -35, centre: -2521.0 / 72},
	})
	// Special tokens: non-finite values as strings.
	checkLines(t, []string{"--vocab", u + ",special=true", "NaN", "-Inf", "inf"}, []wantLine{
		{value: "NaN", tokens: "nan nan nan nan nan nan nan", nonFiniteStrings: "NaN"},
		{value: "-Inf", tokens: "-inf -inf -inf -inf -inf -inf -inf", nonFiniteStrings: "-Inf"},
		{value: "Inf", tokens: "inf inf inf inf inf inf inf", nonFiniteStrings: "Inf"},
	})
	// Hamming(3) is the appendix's list; repeat writes the code twice.
	checkLines(t, []string{"--vocab", "hamming:length=3,repeat=2", "0.5", "0.9"}, []wantLine{
		{value: 0.5, tokens: "0 1 1 0 1 1", lo: 0.5, hi: 0.625, centre: 0.5625},
		{value: 0.9, tokens: "1 1 1 1 1 1", lo: 0.875, hi: 1, centre: 0.9375},
	})
}

func TestTokenizeDecode(t *testing.T) {
	const u = "unnormalized:base=10,exponent=1,mantissa=4"
	want := []wantLine{{value: nil, tokens: "+ - 2 1 8 0 0", lo: 0.018, hi: 0.01801, centre: 0.018005}}
	checkLines(t, []string{"--vocab", u, "--decode", "+", "-", "2", "1", "8", "0", "0"}, want)
	checkLines(t, []string{"--vocab", u, "--decode", "+ - 2 1 8 0 0"}, want)
	checkLines(t, []string{"--decode", "--vocab", u, "+,-,2,1,8,0,0"}, want)
	checkLines(t, []string{"--vocab", u, "--decode", "--", "-", "+", "3", "1", "0", "0", "0"},
		[]wantLine{{value: nil, tokens: "- + 3 1 0 0 0", lo: -1001, hi: -1000, centre: -1000.5}})
	checkLines(t, []string{"--vocab", u + ",special=true", "--decode", "-inf", "-inf", "-inf", "-inf", "-inf", "-inf", "-inf"},
		[]wantLine{{value: nil, tokens: "-inf -inf -inf -inf -inf -inf -inf", nonFiniteStrings: "-Inf"}})
	// Repeat decodes by majority vote: two copies say 0.25, one 0.75.
	checkLines(t, []string{"--vocab", "normalized:base=2,length=2,repeat=3", "--decode", "0 1 1 1 0 1"},
		[]wantLine{{value: nil, tokens: "0 1 1 1 0 1", lo: 0.25, hi: 0.5, centre: 0.375}})
	// Letters in base 16.
	checkLines(t, []string{"--vocab", "normalized:base=16,length=2", "--decode", "f", "F"},
		[]wantLine{{value: nil, tokens: "f f", lo: 255.0 / 256, hi: 1, centre: 511.0 / 512}})
	// Exponents beyond float64: shown, with a warning that training would
	// refuse the tokenization (the largest cells decode to Inf); none for
	// one it would take.
	_, errs := mustCLI(t, "tokenize", "--vocab", "unnormalized:base=10,exponent=3,mantissa=4", "--decode", "+ + 9 9 9 9 9 9 9")
	if !strings.Contains(errs, "warning: train would refuse unnormalized:base=10,exponent=3,mantissa=4: exponent 3 too long") {
		t.Errorf("no warning for exponent 3 of base 10: %q", errs)
	}
	if _, errs := mustCLI(t, "tokenize", "--vocab", u, "0.5"); errs != "" {
		t.Errorf("a trainable tokenization: %q", errs)
	}
	// Special tokens are no fault here (they are what tokenize shows), an
	// exponent too long still is.
	if _, errs := mustCLI(t, "tokenize", "--vocab", u+",special=true", "0.5"); errs != "" {
		t.Errorf("special=true: %q", errs)
	}
	if _, errs := mustCLI(t, "tokenize", "--vocab", "unnormalized:base=10,exponent=3,mantissa=4,special=true", "0.5"); !strings.Contains(errs, "exponent 3 too long") {
		t.Errorf("special=true and exponent 3: %q", errs)
	}
}

// TestTokenizeRoundTrip: decoding the tokens of a value gives the same
// cell, for every kind.
func TestTokenizeRoundTrip(t *testing.T) {
	for _, c := range []struct{ spec, value string }{
		{"normalized:base=7,length=5", "0.123"},
		{"unnormalized:base=4,exponent=2,mantissa=3", "-123.456"},
		{"unnormalized:base=10,exponent=3,mantissa=4", "4.9e-324"},
		{"hamming:length=12", "0.777"},
		{"unnormalized:base=8,exponent=2,mantissa=2,repeat=3", "2.5"},
	} {
		enc := tokenizeLines(t, "--vocab", c.spec, c.value)[0]
		dec := tokenizeLines(t, append([]string{"--vocab", c.spec, "--decode", "--"}, enc.Tokens...)...)[0]
		if dec.Value != nil || !slices.Equal(dec.Tokens, enc.Tokens) || num(t, dec.Lo) != num(t, enc.Lo) ||
			num(t, dec.Hi) != num(t, enc.Hi) || num(t, dec.Decoded) != num(t, enc.Decoded) {
			t.Errorf("%s %s: encode %+v, decode %+v", c.spec, c.value, enc, dec)
		}
		v := num(t, enc.Value)
		lo, hi := num(t, enc.Lo), num(t, enc.Hi)
		if !(lo <= v && v < hi) && !(v < 0 && lo < v && v <= hi) {
			t.Errorf("%s: %v outside its cell [%v, %v]", c.spec, v, lo, hi)
		}
	}
}

func TestTokenizeErrors(t *testing.T) {
	const u = "unnormalized:base=10,exponent=1,mantissa=4"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"0.5"}, "--vocab SPEC is required"},
		{[]string{"--vocab", "", "0.5"}, "--vocab is empty"},
		{[]string{"--vocab", "foo:base=2", "1"}, `unknown kind "foo"`},
		{[]string{"--vocab", "normalized:base=10,lenght=4", "0.5"}, `unknown key "lenght"`},
		{[]string{"--vocab", "normalized:base=x,length=4", "0.5"}, `bad number "x" for key "base"`},
		{[]string{"--vocab", "normalized:base=99,length=4", "0.5"}, "base 99 out of range [2, 36]"},
		{[]string{"--vocab", "normalized:base=10,length=4"}, "no values given"},
		{[]string{"--vocab", "normalized:base=10,length=4", "abc"}, `bad value "abc": not a number`},
		{[]string{"--vocab", "normalized:base=10,length=4", "1e400"}, `value "1e400" is beyond the float64 range`},
		{[]string{"--vocab", "normalized:base=10,length=4", "0.5", "1.5"}, "1.5 is outside [0, 1]"},
		{[]string{"--vocab", "hamming:length=4", "--", "-0.1"}, "-0.1 is outside [0, 1]"},
		{[]string{"--vocab", u, "NaN"}, "non-finite value NaN"},
		{[]string{"--vocab", u, "-Inf"}, "non-finite value -Inf"},
		{[]string{"--vocab", u, "--decode"}, "no tokens to decode"},
		{[]string{"--vocab", u, "--decode", "+", "+", "3", "0", "1", "0", "0"}, `token "0" not allowed at position 3`},
		{[]string{"--vocab", u, "--decode", "-", "-", "9", "0", "0", "0", "0"}, `token "0" not allowed at position 3`},
		{[]string{"--vocab", u, "--decode", "+", "+", "3", "1"}, "got 4 tokens"},
		{[]string{"--vocab", u, "--decode", "+", "+", "3", "1", "0", "0", "x"}, `unknown token "x"`},
		{[]string{"--vocab", u, "--decode", "nan"}, `unknown token "nan"`},
		{[]string{"--vocab", u, "1", "--decode"}, "flag --decode after the values"},
		{[]string{"--vocab"}, "flag needs an argument"},
		{[]string{"--vocab", u, "--bogus", "1"}, "flag provided but not defined: --bogus"},
		// NaN with a sign: Go reads none (it was an unknown flag -nan first).
		{[]string{"--vocab", u, "-nan"}, `bad value "-nan": NaN takes no sign (write NaN)`},
		{[]string{"--vocab", u, "1", "+NaN"}, `bad value "+NaN": NaN takes no sign`},
		{[]string{"--vocab", u, "--", "-nan"}, `bad value "-nan": NaN takes no sign`},
		{[]string{"--vocab", "normalized:base=2,length=1,repeat=2", "--decode", "0", "nan"}, `unknown token "nan"`},
		{[]string{"--vocab", "normalized:base=2,length=2,special=true,repeat=2", "--decode", "0 0 nan 0"}, "copy 2 of 2"},
	} {
		code, out, errs := tokenizeCLI(t, c.args...)
		if code != 2 || out != "" || !strings.HasPrefix(errs, "decoreg tokenize: ") ||
			strings.Count(errs, "\n") != 1 || !strings.HasSuffix(errs, "\n") || !strings.Contains(errs, c.want) {
			t.Errorf("tokenize %s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q",
				strings.Join(c.args, " "), code, out, errs, c.want)
		}
	}
}

func TestTokenizeHelp(t *testing.T) {
	for _, args := range [][]string{{"tokenize", "-h"}, {"tokenize", "--vocab", "hamming:length=3", "--help"}, {"help", "tokenize"},
		{"help", "bench", "uci"}, {"help", "bench", "report"}} {
		if code, out, errs := cli(t, args...); code != 0 || errs != "" || !strings.HasPrefix(out, "usage: decoreg ") {
			t.Errorf("decoreg %s: exit %d, stderr %q, stdout %.40q", strings.Join(args, " "), code, errs, out)
		}
	}
	for _, args := range [][]string{{"help", "bench", "nope"}, {"help", "tokenize", "uci"}, {"help", "a", "b", "c"}} {
		var e bytes.Buffer
		if code := run(args, &e); code != 2 || !strings.HasPrefix(e.String(), "decoreg help: ") {
			t.Errorf("decoreg %s: exit %d, stderr %q; want 2 and a help error", strings.Join(args, " "), code, e.String())
		}
	}
	// A known command with a word after it names the command's own help;
	// an unknown one is named alone.
	for args, want := range map[[2]string]string{{"tokenize", "uci"}: "run 'decoreg help tokenize'", {"nope", "x"}: `unknown command "nope"`} {
		var e bytes.Buffer
		if run([]string{"help", args[0], args[1]}, &e); !strings.Contains(e.String(), want) {
			t.Errorf("decoreg help %s %s: stderr %q, want %q", args[0], args[1], e.String(), want)
		}
	}
}

// TestTokenizeUnknownFlag: a mistyped flag before the values is named as
// one, with the flag meant (review: "--vocb X" said --vocab was required,
// "--decod 1" that "--decod" was a bad value); "-inf" is a value.
func TestTokenizeUnknownFlag(t *testing.T) {
	for args, want := range map[string]string{
		"--vocab normalized:base=10,length=3 --decod 1": "flag provided but not defined: --decod (did you mean --decode?)",
		"--vocb X 0.5": "flag provided but not defined: --vocb (did you mean --vocab?)",
		"--vocab unnormalized:base=10,exponent=1,mantissa=2 -inf": "non-finite value -Inf",
	} {
		code, _, errs := cli(t, append([]string{"tokenize"}, strings.Fields(args)...)...)
		if code != 2 || !strings.Contains(errs, want) {
			t.Errorf("tokenize %s: exit %d, %s", args, code, errs)
		}
	}
}
