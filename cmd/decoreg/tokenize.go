package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"decoreg/vocab"
)

var cmdTokenize = &Command{
	Name:        "tokenize",
	UsageLine:   "tokenize --vocab SPEC VALUE... | tokenize --vocab SPEC --decode TOKEN...",
	Short:       "show the tokens of numbers under a vocabulary, or decode tokens",
	CustomFlags: true, // values and tokens may start with a dash
	Long: `Tokenize prints, for each VALUE, one JSON object on a line of its own:

	{"value":v,"tokens":[...],"lo":lo,"hi":hi,"decoded":centre,"clamped":bool}

tokens is the value's token sequence, lo and hi are the edges of its cell
(the float64 values nearest the exact edges; a value v is in [lo, hi), or in
(lo, hi] for negative unnormalized values, and 1 in the last cell of [0, 1],
[lo, 1]), decoded is the cell's centre,
the number the sequence decodes to, and clamped is true when v lay beyond
the vocabulary's range and went to its extreme cell.

With --decode the arguments are the tokens of one sequence (separate
arguments, or one argument with spaces or commas between them), and the
same object is printed with "value":null and "clamped":false.

SPEC is one of

	normalized:base=B,length=K                  y in [0, 1]: K base-B digits
	unnormalized:base=B,exponent=E,mantissa=M   any y: sign, exponent sign,
	                                            E exponent and M mantissa digits
	hamming:length=L                            y in [0, 1]: an L-bit
	                                            Hamming-distance code

each optionally followed by ,special=true (the tokens nan, inf and -inf
stand for NaN, +Inf and -Inf) and ,repeat=R (the sequence written R times,
decoded by a per-position majority vote, a tie going to the earliest of
the tied copies; where the voted sequence is not a valid one, the copy
nearest to it in Hamming distance, the earliest among equally near
ones). Bases run from 2 to 36. Tokens
are written +, -, the digits 0..9 then a..z, and nan, inf, -inf.

JSON has no NaN or infinities: non-finite numbers are written as the
strings "NaN", "Inf" and "-Inf". Values are read as by Go's
strconv.ParseFloat, so NaN, Inf, -Inf, 1e-3 and 0x1p-4 are all numbers;
a value beyond float64's range (1e309), which ParseFloat would read as an
infinity, is refused.

Flags come before the values. Arguments after them that merely start with
a dash, such as -3.5, - or -inf, are values or tokens; -- ends the flags
explicitly.

An unknown kind or key or a bad number in SPEC, a VALUE that is not a
number or that the vocabulary cannot hold (outside [0, 1] for normalized
and hamming; NaN or an infinity without special tokens), an unknown token,
or a token sequence that is not valid prints one line on standard error
and exits with status 2; nothing is printed on standard output then.

Examples:

	decoreg tokenize --vocab normalized:base=10,length=4 0.3 1
	decoreg tokenize --vocab unnormalized:base=10,exponent=1,mantissa=4 1000 0.018 -3.5
	decoreg tokenize --vocab unnormalized:base=10,exponent=1,mantissa=4 --decode + - 2 1 8 0 0`,
	Run: runTokenize,
}

// tokenizeF holds tokenize's flags.
var tokenizeF struct {
	vocab  string
	decode bool
}

func init() {
	fs := &cmdTokenize.Flag
	fs.StringVar(&tokenizeF.vocab, "vocab", "", "the vocabulary `SPEC`, e.g. normalized:base=10,length=4 (required)")
	fs.BoolVar(&tokenizeF.decode, "decode", false, "read the arguments as one token sequence and decode it")
}

// jsonFloat is a float64 that JSON-encodes NaN and ±Inf as the strings
// "NaN", "Inf" and "-Inf".
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	switch v := float64(f); {
	case math.IsNaN(v):
		return []byte(`"NaN"`), nil
	case math.IsInf(v, 1):
		return []byte(`"Inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`), nil
	default:
		return json.Marshal(v)
	}
}

// tokenizeLine is one line of output.
type tokenizeLine struct {
	Value   *jsonFloat `json:"value"` // nil (null) when decoding
	Tokens  []string   `json:"tokens"`
	Lo      jsonFloat  `json:"lo"`
	Hi      jsonFloat  `json:"hi"`
	Decoded jsonFloat  `json:"decoded"`
	Clamped bool       `json:"clamped"`
}

func runTokenize(cmd *Command, args []string) error {
	const name = "tokenize"
	fs := &cmd.Flag
	spec, decode := &tokenizeF.vocab, &tokenizeF.decode
	flagArgs, rest, explicit := splitFlagArgs(fs, args)
	if err := parseFlags(cmd, fs, flagArgs); err != nil {
		return err
	}
	if !explicit {
		if len(rest) > 0 && signedNaN(rest[0]) {
			return usagef("%s: bad value %q: NaN takes no sign (write NaN)", name, rest[0])
		}
		if len(rest) > 0 && looksLikeFlag(rest[0]) {
			// Flag splitting stopped at it: no flag of tokenize and no number
			// ("--vocb X" was "--vocab SPEC is required", "--decod" a bad value).
			n, _ := flagName(rest[0])
			return usagef("%s: flag provided but not defined: %s%s", name, rest[0], flagSuggestion(fs, n))
		}
		for _, a := range rest {
			if isFlagArg(fs, a) {
				return usagef("%s: flag %s after the values; flags come first (or end them with --)", name, a)
			}
		}
	}
	switch {
	case strings.TrimSpace(*spec) == "" && isSet(fs, "vocab"):
		return usagef("%s: --vocab is empty: give a tokenization SPEC (e.g. normalized:base=10,length=4)", name)
	case *spec == "":
		return usagef("%s: --vocab SPEC is required", name)
	}
	tok, err := vocab.Parse(*spec)
	if err != nil {
		return usagef("%s: %v", name, err)
	}
	if err := trainableBut(tok, "special=true"); err != nil {
		// Shown as asked, but no model can use it: say so (cells beyond
		// float64 decode to 0 or ±Inf, bounds "Inf").
		fmt.Fprintf(errOut, "decoreg %s: warning: train would refuse %s: %v\n", name, tok.Spec(), strings.TrimPrefix(err.Error(), "vocab: "))
	}
	var lines []tokenizeLine
	if *decode {
		var seq []int
		for _, a := range rest {
			for _, f := range strings.FieldsFunc(a, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
				t, err := tok.ParseToken(f)
				if err != nil {
					return usagef("%s: %v for %s", name, err, tok.Spec())
				}
				seq = append(seq, t)
			}
		}
		if len(seq) == 0 {
			return usagef("%s: no tokens to decode", name)
		}
		c, err := tok.Decode(seq)
		if err != nil {
			return usagef("%s: %v", name, err)
		}
		lines = append(lines, newTokenizeLine(tok, nil, seq, c, false))
	} else {
		if len(rest) == 0 {
			return usagef("%s: no values given", name)
		}
		for _, a := range rest {
			v, err := strconv.ParseFloat(a, 64)
			if err != nil {
				if errors.Is(err, strconv.ErrRange) {
					return usagef("%s: value %s is beyond the float64 range", name, strconv.Quote(a))
				}
				if signedNaN(a) {
					return usagef("%s: bad value %s: NaN takes no sign (write NaN)", name, strconv.Quote(a))
				}
				return usagef("%s: bad value %s: not a number", name, strconv.Quote(a))
			}
			seq, clamped, err := tok.Encode(v)
			if err != nil {
				return usagef("%s: %v", name, err)
			}
			c, err := tok.Decode(seq)
			if err != nil { // a sequence Encode made must decode
				return failf(name, "%s encodes %v as an invalid sequence: %v", tok.Spec(), v, err)
			}
			lines = append(lines, newTokenizeLine(tok, &v, seq, c, clamped))
		}
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	for i := range lines {
		if err := enc.Encode(&lines[i]); err != nil {
			return failf(name, "%v", err)
		}
	}
	return nil
}

func newTokenizeLine(tok vocab.Tokenizer, v *float64, seq []int, c vocab.Cell, clamped bool) tokenizeLine {
	l := tokenizeLine{
		Tokens:  make([]string, len(seq)),
		Lo:      jsonFloat(c.Lo),
		Hi:      jsonFloat(c.Hi),
		Decoded: jsonFloat(c.Center),
		Clamped: clamped,
	}
	if v != nil {
		jv := jsonFloat(*v)
		l.Value = &jv
	}
	for i, t := range seq {
		l.Tokens[i] = tok.TokenString(t)
	}
	return l
}

// splitFlagArgs splits args into the leading flags (with their values) and
// the rest, so that values such as -3.5 or the token -inf are not taken for
// flags: the flags end at the first argument that does not name a flag of
// fs (or -h/-help), or at "--" (explicit is then true).
func splitFlagArgs(fs *flag.FlagSet, args []string) (flags, rest []string, explicit bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return args[:i], args[i+1:], true
		}
		if !isFlagArg(fs, a) {
			return args[:i], args[i:], false
		}
		name, hasValue := flagName(a)
		if f := fs.Lookup(name); f != nil && !hasValue && !isBoolFlag(f) {
			i++ // the flag's value is the next argument
		}
	}
	return args, nil, false
}

// signedNaN reports whether a is NaN with a sign, "-nan" or "+NaN", which
// strconv.ParseFloat refuses (and which, first after the flags, read as
// an unknown flag).
func signedNaN(a string) bool {
	return len(a) == 4 && (a[0] == '-' || a[0] == '+') && strings.EqualFold(a[1:], "nan")
}

// looksLikeFlag reports whether a is a dash or two and a letter, and not
// a number ("-inf" is one): an unknown flag, not a value.
func looksLikeFlag(a string) bool {
	t := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
	if t == a || t == "" || !unicode.IsLetter([]rune(t)[0]) {
		return false
	}
	_, err := strconv.ParseFloat(a, 64)
	return err != nil
}

// isFlagArg reports whether a is -name, --name or --name=value for a flag
// of fs, or a request for help.
func isFlagArg(fs *flag.FlagSet, a string) bool {
	if !strings.HasPrefix(a, "-") {
		return false
	}
	name, _ := flagName(a)
	return fs.Lookup(name) != nil || name == "h" || name == "help"
}

// flagName returns the name in -name, --name or --name=value, and whether
// the value is attached.
func flagName(a string) (name string, hasValue bool) {
	name, _, hasValue = strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
	return name, hasValue
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// trainableBut is vocab.Trainable of tok without its setting setting
// ("special=true": special tokens are what tokenize shows them for, no
// fault there), nil where that leaves no spec to parse.
func trainableBut(tok vocab.Tokenizer, setting string) error {
	kind, params, _ := strings.Cut(tok.Spec(), ":")
	var keep []string
	for _, p := range strings.Split(params, ",") {
		if p != setting {
			keep = append(keep, p)
		}
	}
	t, err := vocab.Parse(kind + ":" + strings.Join(keep, ","))
	if err != nil {
		return nil
	}
	return vocab.Trainable(t)
}
