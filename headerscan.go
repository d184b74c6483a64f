package decoreg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"decoreg/data"
	"decoreg/dist"
)

// checkHeaderLists bounds the lengths of the lists in a model file's JSON
// header hb before it is decoded, in two passes that allocate nothing (but
// for the error, and to compare an escaped key): a list under the key
// "trials" has at most MaxTuneTrials entries, one under "members" at most
// MaxEnsemble-1 (the members after the first), any other at most
// max(params, 1<<16+1) entries, params being the file's parameter count,
// which its size and checksum vouch for, and at most params/enc_width +
// 256 objects or lists (the smallest enc_width of the model's and its
// members' configs, read in the first pass), and all lists together at
// most 4 times the first bound and 1,024 entries per such object. No list
// a decoreg writes is longer: a list per feature or per column is no
// longer than the first layer's weights, which are enc_width per feature
// (and at least one feature per column), and 1<<16+1 covers the levels of
// a column (data.MaxMaxLevels) and the knots of a map of the CDF
// (dist.MaxRecalibrationKnots and one). A header can still decode to tens
// of times its size where the parameters are many (64 MiB of numbers: 1.2
// GB; of small objects, more), a cost that grows with the file's size.
//
// Without it, a header of lists of empty objects ("{}" is 3 bytes, a
// decoded tuning trial 456) took gigabytes to decode (8 MiB of them, 5 GB;
// 64 MiB ran a server out of memory) before any count was checked. A
// header that is not JSON is left to the decoder's error.
func checkHeaderLists(hb []byte, params int) *headerListError {
	width := max(1, headerEncWidth(hb))
	type frame struct {
		array bool
		key   []byte // the key this container is the value of (a list's, inherited by lists in it)
		inner bool   // a list in a list
		n     int    // a list's entries so far
		limit int
		nc    int // a list's entries that are objects or lists
	}
	general := max(params, max(data.MaxMaxLevels, dist.MaxRecalibrationKnots)+1)
	// A list of objects or lists (the schema's columns, the knots or bins
	// per feature) has an entry per feature at most, and the first layer
	// has enc_width weights per feature: a tighter bound, as such an entry
	// costs far more decoded than its bytes in the file ("{}": 3 bytes, a
	// column 256; 4.6M of them took 1.2 GB beside a model of as many
	// parameters).
	containers := params/width + 256
	// And all the lists together: the knots or bins of every feature (up
	// to 1,000 each), the levels of every column and the other lists per
	// feature are within 1,024 entries a feature, and the lists of fixed
	// length (trials, members, a map's knots) within 4 of the general
	// bound: 65,537 levels in each of 255 columns of a model of 129
	// parameters (strings of 3 bytes, 16 decoded) took 860 MB.
	total, budget := 0, 4*general+1024*containers
	var stack [64]frame // deeper headers are refused by the decoder's own limit or hold no long lists
	depth := 0
	var key []byte     // the last key read in the innermost object
	expectKey := false // the next string in the innermost object is a key
	fail := func(limit int, what string) *headerListError {
		var path []string
		for _, f := range stack[:depth] {
			if len(f.key) > 0 && !f.inner {
				path = append(path, string(f.key))
			}
		}
		name := strings.Join(path, ".")
		if stack[depth-1].inner {
			name += " (a list in it)"
		}
		return &headerListError{Field: name, Limit: limit, What: what}
	}
	// value notes the start of a value, a container or not: an entry of
	// the innermost list.
	value := func(container bool) *headerListError {
		if depth > 0 && depth <= len(stack) && stack[depth-1].array {
			top := &stack[depth-1]
			if top.n++; top.n > top.limit {
				return fail(top.limit, "entries")
			}
			if total++; total > budget {
				return fail(budget, "entries in the header's lists together")
			}
			if container {
				if top.nc++; top.nc > containers && top.limit > containers {
					return fail(containers, "objects or lists")
				}
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
			if err := value(true); err != nil {
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
			j := stringEnd(hb, i)
			if j >= len(hb) {
				return nil
			}
			if expectKey {
				key, expectKey = hb[i+1:j], false
			} else if err := value(false); err != nil {
				return err
			}
			i = j
		default: // a number, true, false or null: up to the next delimiter
			if err := value(false); err != nil {
				return err
			}
			i = scalarEnd(hb, i)
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

// headerListError is checkHeaderLists' error: the list at Field (the keys
// to it, joined by points) has more than Limit entries (What: "entries",
// or "objects or lists").
type headerListError struct {
	Field string
	Limit int
	What  string
}

func (e *headerListError) Error() string {
	return fmt.Sprintf("list %q has more than %d %s", e.Field, e.Limit, e.What)
}

// headerEncWidth returns the smallest enc_width of the model's config and
// its ensemble members' (the root's "config", and "config" in each entry
// of the root's "members", keys in any case), read without allocating
// (but to compare an escaped key or read a width); 0
// if there is none that is a positive integer. The smallest, as an
// ensemble's members may differ in width. A config elsewhere (a tuning
// trial's, or one under a key decoreg does not write) does not count: one
// of width 1 under a junk key loosened the bounds (review).
func headerEncWidth(hb []byte) int {
	const (
		other = iota
		root
		config  // the root's config, or a member's
		members // the root's list of members
		member  // an entry of it
	)
	var kind [6]int // the kind of the container at each depth, up to 5
	depth, width := 0, 0
	var key []byte
	expectKey := false
	isObj := func(k int) bool { return k == root || k == config || k == member }
	for i := 0; i < len(hb); i++ {
		switch c := hb[i]; c {
		case ' ', '\t', '\n', '\r', ':':
		case ',':
			expectKey = depth > 0 && depth < len(kind) && isObj(kind[depth])
		case '{', '[':
			parent := other
			if depth < len(kind) && depth > 0 {
				parent = kind[depth]
			}
			k := other
			switch {
			case depth == 0 && c == '{':
				k = root
			case parent == root && c == '{' && keyIs(key, "config"):
				k = config
			case parent == root && c == '[' && keyIs(key, "members"):
				k = members
			case parent == members && c == '{':
				k = member
			case parent == member && c == '{' && keyIs(key, "config"):
				k = config
			}
			depth++
			if depth < len(kind) {
				kind[depth] = k
			}
			expectKey = c == '{'
		case '}', ']':
			if depth == 0 {
				return width // not JSON: the decoder says why
			}
			depth--
			expectKey = false
		case '"':
			j := stringEnd(hb, i)
			if j >= len(hb) {
				return width
			}
			if expectKey {
				key, expectKey = hb[i+1:j], false
			}
			i = j
		default:
			j := scalarEnd(hb, i)
			if depth > 0 && depth < len(kind) && kind[depth] == config && keyIs(key, "enc_width") {
				if n, err := strconv.Atoi(string(hb[i : j+1])); err == nil && n > 0 && (width == 0 || n < width) {
					width = n
				}
			}
			i = j
		}
	}
	return width
}

// stringEnd returns the index of the quote that ends the JSON string
// starting at hb[i] (a quote), or len(hb) or more if it does not end.
func stringEnd(hb []byte, i int) int {
	j := i + 1
	for ; j < len(hb) && hb[j] != '"'; j++ {
		if hb[j] == '\\' {
			j++
		}
	}
	return j
}

// scalarEnd returns the index of the last byte of the number, true, false
// or null starting at hb[i]: before the next delimiter.
func scalarEnd(hb []byte, i int) int {
	for i+1 < len(hb) && !strings.ContainsRune(" \t\n\r,]}:", rune(hb[i+1])) {
		i++
	}
	return i
}
