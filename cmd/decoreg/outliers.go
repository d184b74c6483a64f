package main

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"decoreg/data"
)

// Thresholds of warnTargetCodes: a target value is far from the others
// when it is more than farIQRs interquartile ranges from their median, or
// a code of nines ("999", "-99") more than codeIQRs out, beyond the
// others' range; and such values are few: at most a share maxCodeShare of
// the rows.
const (
	farIQRs      = 1000
	codeIQRs     = 10
	maxCodeShare = 0.2
	minCodeRows  = 20
)

// warnTargetCodes warns when a few of the target's values in fr's rows lie
// far from all the others, as codes for "unknown" do (999999, -999): the
// model, trained on them as numbers, spreads its distribution across the
// gap (three rows of 999999 among targets of 0 to 40 gave a relative MSE
// of 2e7 and a negative tau, without a word). It names the values, their
// rows' lines, and the --na that would read them as missing.
func warnTargetCodes(name, path string, fr *data.Frame, target string) {
	tj := fr.Column(target)
	if tj < 0 || fr.Columns[tj].Kind != data.Numeric {
		return
	}
	c := &fr.Columns[tj]
	var ys []float64
	for i, v := range c.Num {
		if !c.Missing[i] {
			ys = append(ys, v)
		}
	}
	if len(ys) < minCodeRows {
		return
	}
	s := slices.Sorted(slices.Values(ys))
	at := func(q float64) float64 { return s[int(q*float64(len(s)-1))] }
	med, iqr := at(0.5), at(0.75)-at(0.25)
	if !(iqr > 0) {
		return
	}
	far := func(v float64) bool {
		d := math.Abs(v-med) / iqr
		return d > farIQRs || d > codeIQRs && ninesCode(v)
	}
	var rest []float64
	counts := map[float64]int{}
	var order []float64
	for _, v := range ys {
		if !far(v) {
			rest = append(rest, v)
			continue
		}
		if counts[v] == 0 {
			order = append(order, v)
		}
		counts[v]++
	}
	n := len(ys) - len(rest)
	if n == 0 || float64(n) > maxCodeShare*float64(len(ys)) || len(rest) == 0 {
		return
	}
	lo, hi := slices.Min(rest), slices.Max(rest)
	// A code lies beyond every other value, not among them.
	order = slices.DeleteFunc(order, func(v float64) bool {
		if v >= lo && v <= hi {
			n -= counts[v]
			return true
		}
		return false
	})
	if len(order) == 0 {
		return
	}
	var vals, texts []string
	for k, v := range order {
		t := strconv.FormatFloat(v, 'g', -1, 64)
		if v == math.Trunc(v) && math.Abs(v) < 1e21 {
			t = strconv.FormatFloat(v, 'f', -1, 64) // 9999999, not 9.999999e+06: as files write codes
		}
		if fr.Dialect.DecimalComma {
			// As --na reads it then: -99999.5 would be text there,
			// matching no cell (helper-147).
			t = strings.Replace(t, ".", ",", 1)
		}
		texts = append(texts, t)
		if k < 3 {
			vals = append(vals, fmt.Sprintf("%s (%d row%s, first on line %d)", t, counts[v], pick(counts[v] == 1, "", "s"), firstLine(fr, c, v)))
		}
	}
	if len(order) > 3 {
		vals = append(vals, fmt.Sprintf("and %d more", len(order)-3))
	}
	var na []string
	for _, m := range addNew(slices.Clone(fr.NA), texts...) {
		na = append(na, quoteFlagName(m))
	}
	fmt.Fprintf(errOut, "decoreg %s: warning: %s: %d of the %d target values %s far from the others (which run from %s to %s): %s; if they are codes for an unknown value, read them as missing with --na %s (each as the file writes it; the list replaces --na's defaults); if they are real, the model's distribution spans the gap\n",
		name, path, n, len(ys), pick(n == 1, "lies", "lie"), strconv.FormatFloat(lo, 'g', -1, 64), strconv.FormatFloat(hi, 'g', -1, 64), strings.Join(vals, ", "), shellArg(strings.Join(na, ",")))
}

// ninesCode reports whether v is an integer written with nines only, of
// two digits or more, or -9: the codes spreadsheets and surveys use for
// an unknown number.
func ninesCode(v float64) bool {
	if v != math.Trunc(v) || math.Abs(v) > 1e15 {
		return false
	}
	t := strconv.FormatFloat(math.Abs(v), 'f', -1, 64)
	return strings.Trim(t, "9") == "" && (len(t) >= 2 || v < 0)
}

// firstLine is the file line of the first row of fr whose cell in column c
// is v (its row number, 1-based, for a frame built in memory).
func firstLine(fr *data.Frame, c *data.Column, v float64) int {
	for i, x := range c.Num {
		if !c.Missing[i] && x == v {
			if fr.Lines != nil {
				return fr.Lines[i]
			}
			return i + 1
		}
	}
	return 0
}

// warnCaseLevels warns about each categorical feature column of fr (all
// but target) with levels that differ only in case ("red", "RED") or in
// how an accented letter is written ("é" as one character, or "e" and a
// combining accent; data.FoldLevel): they are separate categories, as
// prediction treats them (where it warns of a level unseen but for case
// or accents); training kept them apart without a word (review; the
// accents, helper-139: show printed two such levels alike).
func warnCaseLevels(name, path string, fr *data.Frame, target string) {
	for _, c := range fr.Columns {
		if c.Name == target || c.Kind != data.Categorical {
			continue
		}
		first := map[string]string{} // folded level -> the first level of it
		seen := map[string]bool{}
		var pairs []string
		n, accents := 0, false
		for i, v := range c.Str {
			if c.Missing[i] || seen[v] {
				continue
			}
			seen[v] = true
			k := data.FoldLevel(v)
			if w, ok := first[k]; !ok {
				first[k] = v
			} else {
				if n < 3 {
					a, b := data.QuoteCell(w), data.QuoteCell(v)
					if !strings.EqualFold(w, v) {
						// Their accents are written differently, and they
						// print alike (but for case): shown in ASCII.
						a, b, accents = strconv.QuoteToASCII(w), strconv.QuoteToASCII(v), true
					}
					pairs = append(pairs, a+" and "+b)
				}
				n++
			}
		}
		if n == 0 {
			continue
		}
		more := ""
		if n > 3 {
			more = fmt.Sprintf(", and %d more", n-3)
		}
		how := "only in case"
		if accents {
			how = "only in case or in how accents are written (one character, or a letter and a combining mark)"
		}
		fmt.Fprintf(errOut, "decoreg %s: warning: %s: column %s has levels that differ %s (%s%s): they are separate categories; if they are one, write them alike\n",
			name, path, data.QuoteName(c.Name), how, strings.Join(pairs, ", "), more)
	}
}

// warnNALevels warns about each categorical feature column of fr (all but
// target) whose missing cells include a missing-value marker shaped like
// its levels: "NA" among two-capital codes ("EU", "AS"), where it is a
// level (North America, Namibia) that --na's default reads as missing,
// merging it with the truly missing cells without a word. A marker is
// shaped like the levels when the column has at least two and every one
// has the marker's pattern of capitals, small letters and digits. It
// names the count of the marker's cells and the --na without the marker.
func warnNALevels(name, path string, fr *data.Frame, target string) {
	na := fr.NA
	if na == nil {
		na = data.DefaultNA
	}
	for _, c := range fr.Columns {
		if c.Name == target || c.Kind != data.Categorical || len(c.MissingText) == 0 {
			continue
		}
		var levels []string
		seen := map[string]bool{}
		for i, v := range c.Str {
			if !c.Missing[i] && !seen[v] {
				seen[v] = true
				levels = append(levels, v)
			}
		}
		if len(levels) < 2 {
			continue
		}
		slices.Sort(levels)
		for _, m := range slices.Sorted(maps.Keys(c.MissingText)) {
			p := letterPattern(m)
			if m == "" || p == "" || !allOf(levels, func(l string) bool { return letterPattern(l) == p }) {
				continue
			}
			var keep []string
			for _, k := range na {
				if k != m {
					keep = append(keep, quoteFlagName(k))
				}
			}
			eg := ""
			if m == "NA" {
				eg = " (North America, Namibia)"
			}
			fmt.Fprintf(errOut, "decoreg %s: warning: %s: column %s: its %d cell(s) %s are read as missing (one of --na), though its levels are codes like it (%s): if %s is a level%s, read it as one with --na %s\n",
				name, path, data.QuoteName(c.Name), c.MissingText[m], data.QuoteCell(m), quoteList(levels), data.QuoteCell(m), eg, shellArg(strings.Join(keep, ",")))
		}
	}
}

// letterPattern is s with each capital letter written A, each small
// letter a and each digit 0, or "" if s holds anything else (or nothing):
// "NA" is "AA", like "EU"; "NaN" is "AaA".
func letterPattern(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'A' && c <= 'Z':
			b[i] = 'A'
		case c >= 'a' && c <= 'z':
			b[i] = 'a'
		case c >= '0' && c <= '9':
			b[i] = '0'
		default:
			return ""
		}
	}
	return string(b)
}

// allOf reports whether f holds for every element of s.
func allOf(s []string, f func(string) bool) bool {
	return !slices.ContainsFunc(s, func(v string) bool { return !f(v) })
}
