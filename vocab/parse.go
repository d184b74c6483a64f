package vocab

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// kindKeys lists the required keys of each kind, in Spec order.
var kindKeys = map[string][]string{
	"normalized":   {"base", "length"},
	"unnormalized": {"base", "exponent", "mantissa"},
	"hamming":      {"length"},
}

// Parse returns the tokenization of a spec "KIND:KEY=VALUE,...":
//
//	normalized:base=B,length=K
//	unnormalized:base=B,exponent=E,mantissa=M
//	hamming:length=L
//
// Any of them may add special=true (special tokens nan, inf, -inf) and
// repeat=R (Repeat(R, ·)). Keys may come in any order; every required key
// must be given once. Errors wrap ErrSpec and name the unknown kind or key,
// or the bad value. Parse(t.Spec()) gives back an equal tokenization.
//
// Parse accepts only tokenizations that Usable accepts: cells that float64
// resolves (base^length, 2^length for hamming, base^mantissa at most
// 2^MaxCellBits: length <= 15 for base 10, <= 50 for base 2) and sequences
// of at most MaxSeqLen tokens, repeats included; the error says the limit.
func Parse(spec string) (Tokenizer, error) {
	t, err := parse(spec)
	if err != nil {
		var pe *paramError
		if errors.As(err, &pe) {
			err = errors.New(pe.msg)
		}
		return nil, fmt.Errorf("%w %s: %v", ErrSpec, quoteClip(spec), err)
	}
	return t, nil
}

// quoteClip quotes s for a message, its first 60 bytes (whole characters)
// and its length where it is longer than 64: a spec of 100 KB was echoed
// whole.
func quoteClip(s string) string {
	if len(s) <= 64 {
		return strconv.Quote(s)
	}
	cut := 60
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("... (%d bytes)", len(s))
}

func parse(spec string) (Tokenizer, error) {
	kind, rest, _ := strings.Cut(spec, ":")
	required, ok := kindKeys[kind]
	if !ok {
		return nil, fmt.Errorf("unknown kind %s (want normalized, unnormalized or hamming)", quoteClip(kind))
	}
	vals := map[string]string{}
	if rest != "" {
		for _, kv := range strings.Split(rest, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("%s is not KEY=VALUE", quoteClip(kv))
			}
			if _, dup := vals[k]; dup {
				return nil, fmt.Errorf("key %s given twice", quoteClip(k))
			}
			known := k == "special" || k == "repeat"
			for _, r := range required {
				known = known || k == r
			}
			if !known {
				return nil, fmt.Errorf("unknown key %s for %s (want %s, special, repeat)", quoteClip(k), kind, strings.Join(required, ", "))
			}
			vals[k] = v
		}
	}
	ints := make([]int, len(required))
	for i, k := range required {
		v, ok := vals[k]
		if !ok {
			return nil, fmt.Errorf("missing key %q (%s needs %s)", k, kind, strings.Join(required, ", "))
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("bad number %s for key %q", quoteClip(v), k)
		}
		ints[i] = n
	}
	var opts []Option
	if v, ok := vals["special"]; ok {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("bad value %s for key \"special\" (want true or false)", quoteClip(v))
		}
		opts = append(opts, WithSpecial(on))
	}
	var t Tokenizer
	var err error
	switch kind {
	case "normalized":
		t, err = NewNormalized(ints[0], ints[1], opts...)
	case "unnormalized":
		t, err = NewUnnormalized(ints[0], ints[1], ints[2], opts...)
	case "hamming":
		t, err = NewHamming(ints[0], opts...)
	}
	if err != nil {
		return nil, err
	}
	if v, ok := vals["repeat"]; ok {
		r, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("bad number %s for key \"repeat\"", quoteClip(v))
		}
		if t, err = NewRepeat(r, t); err != nil {
			return nil, err
		}
	}
	if err := Usable(t); err != nil {
		return nil, err
	}
	return t, nil
}
