package decoreg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"decoreg/data"
	"decoreg/dist"
)

// checkHeaderLists bounds the lengths of the lists in a model file's JSON
// header hb before it is decoded, in one pass that allocates nothing (but
// for the error): a list under the key "trials" has at most MaxTuneTrials
// entries, one under "members" at most MaxEnsemble-1 (the members after
// the first), any other at most
// max(params, 1<<16+1), params being the file's parameter count, which its
// size and checksum vouch for. No list a decoreg writes is longer: a list
// per feature or per column is no longer than the first layer's weights,
// and 1<<16+1 covers the levels of a column (data.MaxMaxLevels) and the
// knots of a map of the CDF (dist.MaxRecalibrationKnots and one).
//
// Without it, a header of lists of empty objects ("{}" is 3 bytes, a
// decoded tuning trial 456) took gigabytes to decode (8 MiB of them, 5 GB;
// 64 MiB ran a server out of memory) before any count was checked. A
// header that is not JSON is left to the decoder's error.
func checkHeaderLists(hb []byte, params int) error {
	type frame struct {
		array bool
		key   []byte // the key this container is the value of (a list's, inherited by lists in it)
		inner bool   // a list in a list
		n     int    // a list's entries so far
		limit int
	}
	general := max(params, max(data.MaxMaxLevels, dist.MaxRecalibrationKnots)+1)
	var stack [64]frame // deeper headers are refused by the decoder's own limit or hold no long lists
	depth := 0
	var key []byte     // the last key read in the innermost object
	expectKey := false // the next string in the innermost object is a key
	fail := func() error {
		var path []string
		for _, f := range stack[:depth] {
			if len(f.key) > 0 && !f.inner {
				path = append(path, string(f.key))
			}
		}
		top := stack[depth-1]
		name := strings.Join(path, ".")
		if top.inner {
			name += " (a list in it)"
		}
		return fmt.Errorf("the header's list %q has more than %d entries", name, top.limit)
	}
	// value notes the start of a value: an entry of the innermost list.
	value := func() error {
		if depth > 0 && depth <= len(stack) && stack[depth-1].array {
			if stack[depth-1].n++; stack[depth-1].n > stack[depth-1].limit {
				return fail()
			}
		}
		return nil
	}
	for i := 0; i < len(hb); i++ {
		switch c := hb[i]; c {
		case ' ', '\t', '\n', '\r', ':':
		case ',':
			expectKey = depth > 0 && depth <= len(stack) && !stack[depth-1].array
		case '{', '[':
			if err := value(); err != nil {
				return err
			}
			if depth < len(stack) {
				f := frame{array: c == '['}
				if depth > 0 {
					if p := stack[depth-1]; p.array {
						f.key, f.inner = p.key, true
					} else {
						f.key = key
					}
				}
				if f.array {
					switch {
					case f.inner:
						f.limit = general
					case keyIs(f.key, "trials"):
						f.limit = MaxTuneTrials
					case keyIs(f.key, "members"): // after the first member
						f.limit = MaxEnsemble - 1
					default:
						f.limit = general
					}
				}
				stack[depth] = f
			}
			depth++
			expectKey = c == '{'
		case '}', ']':
			if depth == 0 {
				return nil // not JSON: the decoder says why
			}
			depth--
			expectKey = false
		case '"':
			j := i + 1
			for ; j < len(hb) && hb[j] != '"'; j++ {
				if hb[j] == '\\' {
					j++
				}
			}
			if j >= len(hb) {
				return nil
			}
			if expectKey {
				key, expectKey = hb[i+1:j], false
			} else if err := value(); err != nil {
				return err
			}
			i = j
		default: // a number, true, false or null: up to the next delimiter
			if err := value(); err != nil {
				return err
			}
			for i+1 < len(hb) && !strings.ContainsRune(" \t\n\r,]}:", rune(hb[i+1])) {
				i++
			}
		}
	}
	return nil
}

// keyIs reports whether the raw JSON key raw (between its quotes) names
// the field name as encoding/json matches it: after unescaping, and
// without regard to case (Unicode's simple folding, so "TRIALS" and
// "trial\u017f" are "trials").
func keyIs(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return strings.EqualFold(string(raw), name) // no allocation: the conversion is the argument's
	}
	var k string
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	return json.Unmarshal(q, &k) == nil && strings.EqualFold(k, name)
}
