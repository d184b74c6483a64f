package main

// Tables with text and missing cells: train's column flags and the reading
// of prediction inputs through a model's schema.

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"decoreg"
	"decoreg/data"
)

// naDoc documents --na, --max-levels, --drop and --features in train's help.
const naDoc = `Columns as they come: a column with a cell that is neither a number nor
missing is categorical. It is one-hot encoded: one 0/1 feature NAME=LEVEL
per distinct text (a level, trimmed of spaces, sorted), at most
--max-levels (default 64) levels; a column with more (an identifier, free
text) is refused, naming it: drop it with --drop NAME, or raise the limit.
A cell that is empty or one of --na (default "NA,NaN,?"; matched exactly,
case included, but a marker that is a number also matches every cell of
its value, in any column: --na -999 matches -999.0 and -9.99e2, and --na
1234 a code 01234; one below float64's smallest, 1e-400, matches only
itself; an empty or repeated
entry is refused, --na "" leaves only empty cells) is missing; a marker shaped like a categorical column's
levels (NA among codes such as EU, AS) is warned about. A numeric feature's missing cells are imputed
with the training median, and a 0/1 feature NAME:missing marks them if the
training data had a missing cell in the column. A categorical feature's
missing cells set its NAME:missing feature (made if the training data had
one) and no level. Rows whose target is missing are left out of training
and counted (skipped_rows). The transform ("schema") is saved in the model:
eval, predict, sample and serve read the same columns by name with it and
the same --na markers. There, a level not seen in training sets no level
(an all-zero one-hot; there is no trained "other" feature) and a missing
cell in a column that had none in training is encoded all the same (the
median; a categorical column's, no level): both
are counted in a warning on standard error, and so are the cells of a
numeric column beyond its training range by more than the range's width
(a column constant in training: by more than its value's magnitude, at
least 1), where the model extrapolates and is not to be trusted. A numeric column's cell that
is not a number, or is infinite, is an error naming the file, line and
column. A text column whose cells are mostly numbers as spreadsheets
write them (with thousands separators, currency or percent signs or
units: "1,000", "$5", "5%", "12 kg"; with decimal commas: "2,05"; as
accounting negatives: "(12)") is warned about, with how to rewrite them:
it is read as categories. --features A,B,C trains on those columns only, --drop A,B on every
column but those (and the target); not both. A name that holds a comma or a
double quote is given in double quotes, as in a CSV header, a quote inside
doubled (--drop '"c,d",e', --features '"x""q",a'). Columns named there or by
--target must exist, and the target may not also be a feature. A name
that the header gives two columns is refused only where such a column
would be read: --drop NAME leaves both out.`

// listFields splits a comma-separated flag value into its entries,
// untrimmed. A value with a double quote is read as one CSV record, so
// that a name holding a comma can be quoted ("c,d"), as in the header.
func listFields(s string) ([]string, error) {
	if !strings.Contains(s, `"`) {
		return strings.Split(s, ","), nil
	}
	r := csv.NewReader(strings.NewReader(s))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true // ', "c,d"'
	rec, err := r.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %v (an entry holding a comma or a double quote is given in double quotes, a quote inside them doubled: \"c,d\",e)", strconv.Quote(s), err)
	}
	if _, err := r.Read(); err != io.EOF {
		return nil, fmt.Errorf("%s: a line break outside double quotes", strconv.Quote(s))
	}
	return rec, nil
}

// splitList splits a comma-separated flag value into trimmed names,
// dropping empty ones (noEmptyLists has refused values listFields cannot
// read).
func splitList(s string) []string {
	var out []string
	fields, _ := listFields(s)
	for _, p := range fields {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// quoteFlagName writes a column name as --drop and --features take it: in
// double quotes, a quote inside doubled, where it holds a comma or a
// double quote (as in a CSV header).
func quoteFlagName(n string) string {
	if !strings.ContainsAny(n, `,"`) {
		return n
	}
	return `"` + strings.ReplaceAll(n, `"`, `""`) + `"`
}

// didYouMean returns `, did you mean "H"?` for the one name H of header
// nearest to name, if it is near: the same but for case, or at most 1
// edit away (2 for names of 4 or more characters) once lower-cased: a
// typo, a changed case, or an accent written as a letter and a combining
// mark (Unicode's NFD) where the other file has one character (NFC).
// Otherwise, or if two names are as near, "".
func didYouMean(name string, header []string) string {
	best := nearestName(name, header)
	if best == "" {
		return ""
	}
	if isMark := func(r rune) bool { return unicode.Is(unicode.Mn, r) }; strings.ContainsFunc(name, isMark) || strings.ContainsFunc(best, isMark) {
		// They may print alike: "café" as "cafe" and a combining accent.
		return fmt.Sprintf(", did you mean %s? (if they look the same, an accent is written differently: as a letter and a combining mark in one, one character in the other)", data.QuoteName(best))
	}
	return fmt.Sprintf(", did you mean %s?", data.QuoteName(best))
}

// nearestName is didYouMean's name H, or "".
func nearestName(name string, header []string) string {
	a := []rune(strings.ToLower(name))
	most := 1
	if len(a) >= 4 {
		most = 2
	}
	best, bestD, ties := "", most+1, 0
	for _, h := range header {
		if h == name || h == "" {
			continue
		}
		d := editDistance(a, []rune(strings.ToLower(h)), bestD)
		switch {
		case d < bestD:
			best, bestD, ties = h, d, 0
		case d == bestD && h != best:
			ties++
		}
	}
	if bestD > most || ties > 0 {
		return ""
	}
	return best
}

// editDistance returns the Levenshtein distance of a and b, or a value
// above limit once it must exceed it.
func editDistance(a, b []rune, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
			low = min(low, cur[j])
		}
		if low > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// quoteList quotes cells (levels, markers) for a message, at most 8 of
// them, each cut as data.QuoteCell cuts.
func quoteList(cells []string) string { return quoteEach(cells, data.QuoteCell) }

// quoteNames is quoteList for column names, quoted whole up to 160 bytes
// (data.QuoteName): names often share a long start.
func quoteNames(names []string) string { return quoteEach(names, data.QuoteName) }

// quoteEach quotes at most 8 of s with quote, joined by commas.
func quoteEach(s []string, quote func(string) string) string {
	q := make([]string, 0, min(len(s), 9))
	for i, v := range s {
		if i == 8 {
			q = append(q, fmt.Sprintf("... (%d in all)", len(s)))
			break
		}
		q = append(q, quote(v))
	}
	return strings.Join(q, ", ")
}

// setOf returns the set of names (a map, where a scan per name was
// quadratic in a table of many columns).
func setOf(names []string) map[string]bool {
	s := make(map[string]bool, len(names))
	for _, n := range names {
		s[n] = true
	}
	return s
}

// trainColumns returns the feature columns and the target of a training
// file whose header is header, on line hline, chosen by --target, --features and --drop:
// every column but the target by default. Unknown names are errors that
// name them, and so is the target among the features.
func (f *trainFlags) trainColumns(name, path string, header []string, hline int) (feats []string, target string, err error) {
	target = strings.TrimSpace(f.target) // as the header's names are
	if target == "" {
		// The last named column: an unnamed last column (a trailing comma
		// on every line of a spreadsheet's export) is a feature column,
		// left out if it is empty, refused if it is not (trainFrame).
		for j := len(header) - 1; j >= 0 && target == ""; j-- {
			target = header[j]
		}
		if target == "" {
			return nil, "", inputf(name, "%s: line %d: no column has a name in the header", path, hline)
		}
		if header[len(header)-1] == "" && f.features != "" {
			// With --features the unnamed column is not read, so nothing
			// would check that it is empty: it may be a target whose name
			// was forgotten.
			return nil, "", inputf(name, "%s: line %d: the last column has no name in the header: give --target NAME with --features (without --target the target is the last named column, %s, and only an empty unnamed column after it may be left out)", path, hline, data.QuoteName(target))
		}
		if target == "logpdf" && slices.Contains(header, "y") && !slices.Contains(splitList(f.drop), "y") {
			// decoreg synth's density problems end x..., y, logpdf: the
			// model learned the log-density from x and y, without a word.
			fmt.Fprintf(errOut, "decoreg %s: warning: %s: the target is the last column, \"logpdf\", and \"y\" a feature: 'decoreg synth' writes logpdf as each row's true log-density of y; to learn y, give --target y --drop logpdf\n", name, path)
		}
	} else if !slices.Contains(header, target) {
		return nil, "", inputf(name, "%s: line %d: no target column %s%s (the file's columns are %s)", path, hline, data.QuoteName(target), didYouMean(target, header), quoteNames(header))
	}
	sel, drop := splitList(f.features), splitList(f.drop)
	if f.features != "" && f.drop != "" {
		return nil, "", inputf(name, "give --features or --drop, not both")
	}
	if f.features != "" && len(sel) == 0 {
		return nil, "", inputf(name, "--features names no column")
	}
	inHeader := setOf(header)
	for _, l := range []struct {
		flag  string
		names []string
	}{{"features", sel}, {"drop", drop}} {
		seen := map[string]bool{}
		for _, c := range l.names {
			switch {
			case !inHeader[c]:
				hint := ""
				if slices.ContainsFunc(header, func(h string) bool { return strings.Contains(h, ",") }) {
					hint = `; a name holding a comma is given in double quotes: --` + l.flag + ` '"c,d"'`
				}
				others := slices.DeleteFunc(slices.Clone(header), func(h string) bool { return h == target }) // the target is no feature to suggest
				return nil, "", inputf(name, "--%s: %s has no column %s%s (its columns are %s%s)", l.flag, path, data.QuoteName(c), didYouMean(c, others), quoteNames(header), hint)
			case seen[c]:
				return nil, "", inputf(name, "--%s names %s twice", l.flag, data.QuoteName(c))
			case c == target && l.flag == "features":
				return nil, "", inputf(name, "--features: %s is the target column; a column cannot be both (choose another --target, or leave it out of --features)", data.QuoteName(c))
			case c == target:
				return nil, "", inputf(name, "--drop: %s is the target column (choose another with --target)", data.QuoteName(c))
			}
			seen[c] = true
		}
	}
	in, inSel, inDrop := map[string]bool{}, setOf(sel), setOf(drop)
	for _, h := range header {
		switch {
		case h == target:
		case in[h]: // "" reads every unnamed column; a name twice is refused by ReadFrame
		case len(sel) > 0 && !inSel[h]:
		case inDrop[h]:
		default:
			feats = append(feats, h)
			in[h] = true
		}
	}
	if len(feats) == 0 {
		return nil, "", inputf(name, "%s: no feature columns are left besides the target %s", path, data.QuoteName(target))
	}
	return feats, target, nil
}

// noEmptyLists refuses the list flags named (--features, --drop) when
// given on the command line empty or with an empty entry ("a,", " , "),
// which would otherwise be ignored: an empty list does not mean every
// column.
func noEmptyLists(name string, fs *flag.FlagSet, flags ...string) error {
	for _, fl := range flags {
		if !isSet(fs, fl) {
			continue
		}
		v := fs.Lookup(fl).Value.String()
		if strings.TrimSpace(v) == "" {
			return inputf(name, "--%s is empty; leave it out to use every column but the target", fl)
		}
		fields, err := listFields(v)
		if err != nil {
			return inputf(name, "--%s %v", fl, err)
		}
		for i, p := range fields {
			if strings.TrimSpace(p) == "" {
				return inputf(name, "--%s %s: entry %d is empty; give column names separated by commas", fl, strconv.Quote(v), i+1)
			}
		}
	}
	return nil
}

// trainFrame checks the columns of the training frame fr (its training
// rows, read with --na) before training, and returns it without the
// feature columns that are missing in every row: each of those is left
// out with a warning (it would be a feature with no value, and a column
// that prediction inputs would need), or refused if --features names it.
// A target missing in every row is refused, as is a feature column that
// has no name in the header (an unnamed column left out is only warned
// about). A categorical feature whose cells are mostly numbers written
// as spreadsheets write them is warned about (warnNumberLike).
func (f *trainFlags) trainFrame(name string, fr *data.Frame, target string) (*data.Frame, error) {
	path := nameSpools(fr.Path)
	allMissing := func(c *data.Column) bool { return !slices.Contains(c.Missing, false) }
	if tj := fr.Column(target); tj >= 0 && allMissing(&fr.Columns[tj]) {
		return nil, inputf(name, "%s: the target column %s is missing (empty, or one of --na) in every one of the %d training rows", path, data.QuoteName(target), fr.Rows)
	}
	// The rows trained on, those with a target, decide the columns' kinds
	// and the checks: text only in a skipped row made a numeric column
	// categorical (its values then unseen levels at prediction), and a
	// column empty or constant on them is what training sees.
	lab := fr
	if tj := fr.Column(target); tj >= 0 {
		var rows []int
		for i, miss := range fr.Columns[tj].Missing {
			if !miss {
				rows = append(rows, i)
			}
		}
		if len(rows) < fr.Rows {
			lab = fr.Subset(rows).Reinfer()
			fr = numericAsLabelled(name, path, fr, lab)
		}
	}
	inSel := setOf(splitList(f.features))
	var keep, empty []string
	var refused error // the first column refused; the warnings about empty ones are printed first
	for j := range lab.Columns {
		c := &lab.Columns[j]
		if c.Name == target {
			continue
		}
		col := fmt.Sprintf("column %s", data.QuoteName(c.Name))
		if c.Name == "" {
			col = fmt.Sprintf("column %d (no name in the header)", c.Field+1)
		}
		switch {
		case allMissing(c) && inSel[c.Name]:
			if refused == nil {
				refused = inputf(name, "--features: %s: %s is missing (empty, or one of --na) in every training row, so it cannot be a feature; leave it out of --features", path, col)
			}
			continue
		case allMissing(c):
			empty = append(empty, col)
			continue
		case c.Name == "":
			if refused == nil {
				refused = inputf(name, "%s: line %d: column %d has no name in the header, but holds values: give it a name (or leave it out with --target NAME and --features)", path, fr.HeaderLine, c.Field+1)
			}
			continue
		}
		keep = append(keep, c.Name)
	}
	// A line for each of a few; one for many (a file of 500,000 empty
	// columns printed as many lines).
	if len(empty) <= 3 {
		for _, col := range empty {
			fmt.Fprintf(errOut, "decoreg %s: warning: %s: %s is missing (empty, or one of --na) in every training row: left out\n", name, path, col)
		}
	} else {
		list := strings.Join(empty[:min(len(empty), 8)], ", ")
		if len(empty) > 8 {
			list += ", ..."
		}
		fmt.Fprintf(errOut, "decoreg %s: warning: %s: %d columns are missing (empty, or one of --na) in every training row: left out: %s\n", name, path, len(empty), list)
	}
	if refused != nil {
		return nil, refused
	}
	if len(keep) == 0 {
		return nil, inputf(name, "%s: no feature columns are left besides the target %s: every one is missing (empty, or one of --na) in every training row", path, data.QuoteName(target))
	}
	if len(keep) < len(fr.Columns)-1 {
		g, err := fr.Select(append(keep, target)...)
		if err != nil {
			return nil, failf(name, "%v", err)
		}
		fr = g
		if lab, err = lab.Select(append(keep, target)...); err != nil {
			return nil, failf(name, "%v", err)
		}
	}
	f.numberLike, f.markers, f.markerCols = warnNumberLike(name, path, lab, target)
	warnConstant(name, path, lab, target, f.features != "")
	warnRowNumbers(name, path, lab, target, f.features != "")
	warnDates(name, path, lab, target, f.maxLevels)
	warnTargetCodes(name, path, lab, target)
	warnCaseLevels(name, path, lab, target)
	return fr, nil
}

// warnDates warns about each categorical feature column of fr (all but
// target) of dates or times (dateExample) that fits within maxLevels (one
// over it is refused with the same advice): one-hot encoded, its dates
// are categories, which know no order and no date unseen in training.
func warnDates(name, path string, fr *data.Frame, target string, maxLevels int) {
	for _, c := range fr.Columns {
		if c.Kind != data.Categorical || c.Name == target {
			continue
		}
		ex := dateExample(fr, c.Name)
		if ex == "" {
			continue
		}
		levels := map[string]bool{}
		for i, v := range c.Str {
			if !c.Missing[i] && len(levels) <= maxLevels {
				levels[strings.TrimSpace(v)] = true
			}
		}
		if len(levels) > maxLevels {
			continue
		}
		fmt.Fprintf(errOut, "decoreg %s: warning: %s: column %s holds dates or times (such as %s), read as %d categories, which know no order and no date unseen in training: %s\n",
			name, path, data.QuoteName(c.Name), data.QuoteCell(ex), len(levels), datesAdvice)
	}
}

// minRowNumbers is the fewest rows in which warnRowNumbers looks for a row
// number.
const minRowNumbers = 20

// warnRowNumbers warns about each numeric feature column of fr (all but
// target) that holds, in at least minRowNumbers training rows, none
// missing, distinct integers that fill a range (k, k+1, ..., k+n-1, in any
// order), as a row number or a running identifier does: as a feature it
// ranks the rows by their place in the file.
func warnRowNumbers(name, path string, fr *data.Frame, target string, features bool) {
	if fr.Rows < minRowNumbers {
		return
	}
	for _, c := range fr.Columns {
		if c.Name == target || c.Kind != data.Numeric || slices.Contains(c.Missing, true) {
			continue
		}
		lo, hi := slices.Min(c.Num), slices.Max(c.Num)
		if lo != math.Trunc(lo) || hi-lo != float64(fr.Rows-1) || math.Abs(lo) > 1<<52 {
			continue
		}
		seen := make([]bool, fr.Rows)
		ok := true
		for _, v := range c.Num {
			k := int(v - lo)
			if v != math.Trunc(v) || seen[k] {
				ok = false
				break
			}
			seen[k] = true
		}
		if ok {
			fmt.Fprintf(errOut, "decoreg %s: warning: %s: column %s holds the %d integers from %s to %s, one per training row, as a row number or a running identifier does: if it is one, %s\n",
				name, path, data.QuoteName(c.Name), fr.Rows, strconv.FormatFloat(lo, 'f', -1, 64), strconv.FormatFloat(hi, 'f', -1, 64), leaveOut(c.Name, features))
		}
	}
}

// warnConstant warns about the feature columns of fr (all but target)
// that hold one value in every training row, none missing: a numeric
// column with one number, a categorical one with one level. Such a
// column carries nothing to learn from (it is kept: it does no harm).
// Two or more are named in one line.
func warnConstant(name, path string, fr *data.Frame, target string, features bool) {
	var cols []string
	var first string
	for _, c := range fr.Columns {
		if c.Name == target || fr.Rows < 2 || slices.Contains(c.Missing, true) {
			continue
		}
		var v string
		switch {
		case c.Kind == data.Numeric && !slices.ContainsFunc(c.Num, func(x float64) bool { return x != c.Num[0] }):
			v = strconv.FormatFloat(c.Num[0]+0, 'g', -1, 64) // +0: 0 for a column of 0 and -0
		case c.Kind == data.Categorical && !slices.ContainsFunc(c.Str, func(x string) bool { return x != c.Str[0] }):
			v = data.QuoteCell(c.Str[0])
		default:
			continue
		}
		if first == "" {
			first = v
		}
		cols = append(cols, c.Name)
	}
	switch {
	case len(cols) == 0:
	case len(cols) == 1:
		how := "--drop " + flagArg(cols[0]) + " leaves it out"
		if features {
			how = "leave it out of --features"
		}
		fmt.Fprintf(errOut, "decoreg %s: warning: %s: column %s holds the same value (%s) in every training row: it carries nothing to learn from (%s)\n",
			name, path, data.QuoteName(cols[0]), first, how)
	default:
		var quoted []string
		for _, c := range cols {
			quoted = append(quoted, quoteFlagName(c))
		}
		list := shellArg(strings.Join(quoted, ","))
		if len(list) > 160 {
			list = "NAME,NAME (the columns' names)" // not repeated whole (a 1 MB header cell)
		}
		how := "--drop " + list + " leaves them out"
		if features {
			how = "leave them out of --features"
		}
		fmt.Fprintf(errOut, "decoreg %s: warning: %s: %d columns hold one value each in every training row, so carry nothing to learn from: %s (%s)\n",
			name, path, len(cols), quoteNames(cols), how)
	}
}

// leaveOut is how to leave column col out of training: with --drop COL,
// or, where --features was given (which --drop may not join), out of
// --features.
func leaveOut(col string, features bool) string {
	if features {
		return "leave it out of --features"
	}
	return "leave it out with --drop " + flagArg(col)
}

// numericAsLabelled returns fr with the columns that are categorical in
// it but numeric in lab (fr's labelled rows, re-inferred) made numeric:
// their text is in rows without a target, which training skips; it is
// read as missing there, with a warning naming the first such cell (a
// prediction on those rows refuses it).
func numericAsLabelled(name, path string, fr, lab *data.Frame) *data.Frame {
	var g *data.Frame
	for j := range fr.Columns {
		c := &fr.Columns[j]
		if c.Kind != data.Categorical || lab.Columns[j].Kind != data.Numeric || !slices.Contains(lab.Columns[j].Missing, false) {
			continue // (empty on the labelled rows: left out, with its own warning)
		}
		if g == nil {
			cp := *fr
			cp.Columns = slices.Clone(fr.Columns)
			g = &cp
		}
		n := data.Column{Name: c.Name, Kind: data.Numeric, Field: c.Field, Num: make([]float64, fr.Rows), Missing: slices.Clone(c.Missing)}
		first, count := -1, 0
		for i, s := range c.Str {
			if c.Missing[i] {
				continue
			}
			v, err := fr.Dialect.ParseNumber(s)
			if err != nil {
				n.Missing[i] = true
				if count++; first < 0 {
					first = i
				}
				continue
			}
			n.Num[i] = v
		}
		g.Columns[j] = n
		at := fmt.Sprintf("row %d", first+1)
		if first < len(fr.Lines) {
			at = fmt.Sprintf("line %d", fr.Lines[first])
		}
		fmt.Fprintf(errOut, "decoreg %s: warning: %s: column %s holds numbers in every row with a target, and text in %d row(s) without one (%s, %s), which training skips: it is numeric, and predict, sample and eval refuse that text (to read it as missing, list it in --na, whose list replaces the defaults)\n",
			name, path, data.QuoteName(c.Name), count, data.QuoteCell(c.Str[first]), at)
	}
	if g == nil {
		return fr
	}
	return g
}

// numberLikeShare is the share of a text column's cells, not counting
// missing ones, that warnNumberLike wants to be numbers once separators
// and units are removed.
const numberLikeShare = 0.9

// warnNumberLike warns about each categorical feature column of fr (all
// but target) of whose cells that are neither missing nor stray markers at
// least numberLikeShare read as numbers, at least one of them only as
// spreadsheets write numbers (numberFormOf: "1,000", "$1,200", "5%", "12
// kg", "2,05", "(12)"): such a column is read as categories, one level per
// distinct number, which is seldom meant. Stray markers are the text
// cells that are no numbers at all, where they hold at most
// data.MaxStrayText distinct values in at most a quarter as many cells as
// the numbers ("n/a", "-"): one line after the columns' offers them all to
// --na. A column holding lists ("1,2,3") is text: its "1,3" is no decimal
// comma. Where decimal commas occur, "1,250" is one too (the advice says
// so), and where units differ ("500 MB", "1.5 GB") the advice says to
// convert them. It returns the columns it warned about, and the markers
// it offered and their columns.
func warnNumberLike(name, path string, fr *data.Frame, target string) (warned, markers, markerCols []string) {
	for _, c := range fr.Columns {
		if c.Kind != data.Categorical || c.Name == target {
			continue
		}
		type verdict struct {
			number, list, ambiguous bool
			form                    numberForm
		}
		seen := map[string]verdict{}
		stray := map[string]int{} // cells that are no numbers, by value (up to MaxStrayText+1 values)
		n, m, k, strayCells, separated, amb := 0, 0, 0, 0, 0, 0
		commaThousands, decimals := 0, 0 // cells that are surely so: "1,000,000" or "1,234.5"; "2,05" or "1.001,5"
		list, ambExample := false, ""
		examples := map[numberForm]string{}
		unitSet := map[string]bool{}
		for i, s := range c.Str {
			if c.Missing[i] {
				continue
			}
			m++
			v, ok := seen[s]
			if !ok {
				v.list = numberList.MatchString(strings.TrimSpace(s))
				if _, err := fr.Dialect.ParseNumber(s); err == nil {
					v.number = true
				} else if f := numberFormIn(fr.Dialect, s); f != notNumberLike {
					v.number, v.form = true, f
					v.ambiguous = f == formSeparated && ambiguousComma.MatchString(strings.TrimSpace(s))
				}
				if len(seen) < 1<<16 {
					seen[s] = v
				}
			}
			list = list || v.list
			switch {
			case v.form != notNumberLike:
				n, k = n+1, k+1
				if v.ambiguous {
					amb++
					if ambExample == "" {
						ambExample = s
					}
				} else if v.form == formSeparated {
					separated++
					if strings.Contains(s, ",") {
						commaThousands++
					}
					if _, ok := examples[formSeparated]; !ok {
						examples[formSeparated] = s
					}
				} else {
					if v.form == formDecimalComma && !threeAfterComma.MatchString(strings.TrimSpace(s)) {
						decimals++
					}
					if _, ok := examples[v.form]; !ok {
						examples[v.form] = s
					}
				}
				if v.form == formSeparated && len(unitSet) < 8 {
					if u := unitOf(s); u != "" {
						unitSet[u] = true
					}
				}
			case v.number:
				n++
			default:
				strayCells++
				if _, ok := stray[s]; ok || len(stray) <= data.MaxStrayText {
					stray[s]++
				}
			}
		}
		if list {
			continue // lists of numbers: text
		}
		// "1,250" is a decimal comma where the column's others surely are
		// and none is surely a thousands comma; else thousands, as
		// numberFormOf reads it.
		dec := amb > 0 && decimals > 0 && commaThousands == 0
		if amb > 0 && !dec {
			if _, ok := examples[formSeparated]; !ok {
				examples[formSeparated] = ambExample
			}
		}
		total, texts := m, []string(nil)
		if len(stray) <= data.MaxStrayText && 4*strayCells <= n {
			// A few values that are no numbers: missing-value markers, out of the share.
			texts = slices.Sorted(maps.Keys(stray))
			m -= strayCells
		}
		if k == 0 || float64(n) < numberLikeShare*float64(m) {
			continue
		}
		advice := formAdviceIn(fr.Dialect, examples)
		if dec {
			// With decimal commas in the column, "1,250" is one too.
			advice += fmt.Sprintf(" (%s is %s here, as the column's other decimal commas say)", data.QuoteCell(ambExample), strings.Replace(strings.TrimSpace(ambExample), ",", ".", 1))
		}
		if amb > 0 && !dec && fr.Dialect.Comma() != ',' && !fr.Dialect.DecimalComma {
			// A file separated by another character than the comma
			// often writes decimal commas (helper-147).
			advice += fmt.Sprintf(" (if its commas are decimal commas, %s being %s, read them with --decimal ,)", data.QuoteCell(ambExample), strings.Replace(strings.TrimSpace(ambExample), ",", ".", 1))
		}
		if len(unitSet) > 1 {
			advice += fmt.Sprintf("; the column mixes units (%s): convert them to one, not only remove them", strings.Join(slices.Sorted(maps.Keys(unitSet)), ", "))
		}
		also := ""
		if len(texts) > 0 {
			also = fmt.Sprintf("; its text values %s look like missing-value markers (below)", quoteList(texts))
			markers = addNew(markers, texts...)
			markerCols = append(markerCols, c.Name)
		}
		fmt.Fprintf(errOut, "decoreg %s: warning: %s: column %s: %d of %d values read as numbers, %d of them only as written otherwise: read as categories; to use them as numbers, %s in the file%s%s\n",
			name, path, data.QuoteName(c.Name), n, total, k, advice, decimalHint(examples), also)
		warned = append(warned, c.Name)
	}
	warnMarkers(name, path, fr.NA, markers, markerCols, fr.Dialect)
	return warned, markers, markerCols
}

// warnMarkers offers the missing-value markers found in the columns cols
// to --na (na: the list they were read with), in one list for them all:
// each list replaces the defaults, so one per column would read the
// others' markers as text. Nothing for no markers.
func warnMarkers(name, path string, na, markers, cols []string, dl data.Dialect) {
	if len(markers) == 0 {
		return
	}
	markers = slices.Sorted(slices.Values(markers))
	fmt.Fprintf(errOut, "decoreg %s: warning: %s: column%s %s: %s\n", name, path, pick(len(cols) == 1, "", "s"), quoteNames(cols), naHint(na, markers, dl))
}

// addNew appends to list the items it lacks, in their order.
func addNew(list []string, items ...string) []string {
	for _, t := range items {
		if !slices.Contains(list, t) {
			list = append(list, t)
		}
	}
	return list
}

var (
	// numberList is three or more integers separated by commas: a list
	// ("1,2,3", a survey's choices), not a number.
	numberList = regexp.MustCompile(`^\d+(?:\s*,\s*\d+){2,}$`)
	// ambiguousComma is "1,250": thousands, or a decimal comma in a column
	// that has them.
	ambiguousComma = regexp.MustCompile(`^[-+]?[1-9]\d{0,2},\d{3}$`)
	// threeAfterComma is a cell whose comma has three digits after it and
	// no point before it ("0,125"): a decimal comma that could be thousands.
	threeAfterComma = regexp.MustCompile(`^[^.]*,\d{3}\D*$`)
)

// naList parses --na.
func naList(s string) []string {
	out := []string{}
	fields, _ := listFields(s) // runTrain has refused what it cannot read
	for _, p := range fields {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// warnEncoding prints the encoding warnings of the rows of path on errOut.
func warnEncoding(name, path string, ws []data.Warning) {
	for _, w := range ws {
		fmt.Fprintf(errOut, "decoreg %s: warning: %s: %s\n", name, nameSpools(path), w)
	}
}

// readFrameForModel is readForModel for a model with a schema: the
// schema's columns are read by name (other columns ignored) with the
// model's missing markers, and encoded. Dataset.Names are the encoded
// features' names. A target that is read is numeric, NaN where missing;
// with targetOptional too (unlabelledTargets then decides).
// warn prints the encoding warnings of the rows given (readForModelRows).
func readFrameForModel(name, path string, dl data.Dialect, m *decoreg.Model, s *data.Schema, target string, use targetUse) (_ *input, warn func(rows []int), _ error) {
	header, hline, err := dl.ReadHeaderLine(path)
	if err != nil {
		return nil, nil, inputErr(name, err)
	}
	_, mtarget := m.Names()
	if target != "" && use == targetOptional && !slices.Contains(header, target) {
		return nil, nil, noTargetColumn(name, path, target, header) // --target given: it must be there, even for predict
	}
	given := target != "" // by --target
	if target == "" {
		target = mtarget
	}
	cols := s.ColumnNames()
	if target != "" && slices.Contains(cols, target) {
		return nil, nil, inputf(name, "--target %s is one of the model's feature columns", data.QuoteName(target))
	}
	inHeader := setOf(header)
	for _, c := range cols {
		if !inHeader[c] {
			if hint := otherSeparator(header, dl); hint != "" {
				return nil, nil, inputf(name, "%s: line %d: %s", path, hline, hint)
			}
			return nil, nil, inputErr(name, &data.ParseError{Path: path, Line: hline,
				Err: fmt.Errorf("%w: feature %s missing%s (the model's columns are %s; the file's columns are %s)", data.ErrNoColumn, data.QuoteName(c), didYouMean(c, header), quoteNames(cols), quoteNames(header))})
		}
	}
	read := target != "" && use != targetIgnored && slices.Contains(header, target)
	if read && use == targetOptional && targetTwice(name, path, header, target) {
		read = false
	}
	if use == targetRequired && !read {
		if target == "" {
			return nil, nil, inputf(name, "%s: the model has no target name; give --target NAME", path)
		}
		if given {
			return nil, nil, noTargetColumn(name, path, target, header)
		}
		return nil, nil, inputf(name, "%s: no column %s, the model's target%s (give --target NAME; the file's columns are %s)", path, data.QuoteName(target), didYouMean(target, header), quoteNames(header))
	}
	kinds := s.Kinds()
	if read {
		if use == targetRequired {
			kinds[target] = data.Numeric // predict reads its kind, below
		}
		cols = append(cols, target)
	}
	// The markers' numbers in this file's notation; the categorical
	// columns' text as training read it.
	na, catNA := s.NAIn(dl), s.NATextMatcher()
	fr, err := data.ReadFrame(path, data.FrameOptions{Columns: cols, Kinds: kinds, NA: na, Dialect: dl, CategoricalNA: catNA})
	var pe *data.ParseError
	if read && use == targetOptional && errors.Is(err, data.ErrNonFinite) && errors.As(err, &pe) && pe.Column == slices.Index(header, target)+1 {
		// An infinite or overflowing target is as text there: predict goes
		// on without the target.
		fmt.Fprintf(errOut, "decoreg %s: warning: %s: line %d: %v: the target is not read (no logpdf)\n", name, nameSpools(path), pe.Line, pe.Err)
		read = false
		cols = cols[:len(cols)-1]
		fr, err = data.ReadFrame(path, data.FrameOptions{Columns: cols, Kinds: kinds, NA: na, Dialect: dl, CategoricalNA: catNA})
	}
	if err != nil {
		if terr := targetTextErr(err, header, target, "", dl); terr != err {
			return nil, nil, inputErr(name, terr)
		}
		return nil, nil, inputErr(name, featureCellErr(err, na, !slices.Equal(na, s.NA), dl))
	}
	warnBlank(name, path, fr.Blank, len(header))
	warnGrouped(name, path, fr)
	if c := &fr.Columns[len(fr.Columns)-1]; read && c.Kind == data.Categorical {
		// Text in an optional target: predict goes on without it, as
		// with blank cells.
		i := 0 // the first cell that is text
		for j, v := range c.Str {
			if _, err := dl.ParseNumber(v); !c.Missing[j] && err != nil {
				i = j
				break
			}
		}
		at := fmt.Sprintf("row %d", i+1)
		if fr.Lines != nil {
			at = fmt.Sprintf("line %d", fr.Lines[i])
		}
		fmt.Fprintf(errOut, "decoreg %s: warning: %s: the target column %s holds text (%s, %s): it is not read (no logpdf)\n", name, nameSpools(path), data.QuoteName(target), data.QuoteCell(c.Str[i]), at)
		read = false
	}
	// The rows are encoded a chunk at a time (input).
	en, err := m.Encoder(fr)
	if err != nil {
		return nil, nil, inputErr(name, err)
	}
	warn = func(rows []int) {
		ws := en.Warnings()
		if rows != nil && len(ws) > 0 && len(rows) < en.Rows() {
			ws = en.WarningsOf(rows) // only the rows used (and no reference to the frame)
		}
		warnEncoding(name, path, ws)
	}
	d := &data.Dataset{Names: s.Names(), Rows: fr.Rows, Cols: en.Cols(), Path: path, Lines: fr.Lines}
	if read {
		y, err := fr.Targets(len(cols) - 1)
		if err != nil {
			return nil, nil, inputErr(name, err)
		}
		d.Y, d.TargetName = y, target // NaN where missing: predict decides on the rows it uses (unlabelledTargets)
	}
	return &input{Dataset: d, en: en}, warn, nil
}

// labelled returns the rows of d (data rows idx of its file) whose target
// is not missing (NaN), and how many were left out; none left is an error.
func labelled(name string, d *input, idx []int) (*input, []int, int, error) {
	var keep, rows []int
	for i, v := range d.Y {
		if !math.IsNaN(v) {
			keep = append(keep, i)
			rows = append(rows, idx[i])
		}
	}
	skipped := d.Rows - len(keep)
	if skipped == 0 {
		return d, idx, 0, nil
	}
	if len(keep) == 0 {
		return nil, nil, 0, inputf(name, "%s: every one of the %d rows has a missing target %s; nothing to evaluate", d.Path, d.Rows, data.QuoteName(d.TargetName))
	}
	e, err := subset(name, d, keep)
	if err != nil {
		return nil, nil, 0, err
	}
	return e, rows, skipped, nil
}

// targetTwice reports whether two columns of header have the target's
// name, and warns that predict, for which the target is optional, goes on
// without it.
func targetTwice(name, path string, header []string, target string) bool {
	n := 0
	for _, h := range header {
		if h == target {
			n++
		}
	}
	if n > 1 {
		fmt.Fprintf(errOut, "decoreg %s: warning: %s: two columns are named %s, the target's name: it is not read (no logpdf)\n", name, nameSpools(path), data.QuoteName(target))
	}
	return n > 1
}

// featureCellErr adds to a reader's error about a feature cell that is
// not a number, in a column the model reads as numbers, how to make it
// one: rewrite a number as spreadsheets write them (numberFormOf), or
// mark a missing cell as the model does (empty or one of na; written in
// the file's notation where translated is set). Other errors are returned
// as they are.
func featureCellErr(err error, na []string, translated bool, dl data.Dialect) error {
	var ne *data.NotNumberError
	if !errors.As(err, &ne) {
		return err
	}
	if f := numberFormIn(dl, ne.Text); f != notNumberLike {
		ex := map[numberForm]string{f: ne.Text}
		return fmt.Errorf("%w: the model reads this column as numbers: %s in the file%s", err, formAdviceIn(dl, ex), decimalHintIn(dl, ex))
	}
	if na == nil {
		na = data.DefaultNA
	}
	markers := "an empty cell"
	if len(na) > 0 {
		markers = "an empty cell or one of " + quoteList(na)
	}
	with := "the markers it was trained with"
	if translated {
		with += ", and their numbers as this file writes them"
	}
	return fmt.Errorf("%w: the model reads this column as numbers; a missing cell is %s (%s)", err, markers, with)
}

// targetTextErr adds to a reader's error about a cell of the target
// column (target, found in header) that is not a number that the target
// must hold numbers, then hint: decoreg regresses numbers, and a text
// target, such as a class label, is none; for a cell that is a number as
// spreadsheets write them (numberFormOf), how to rewrite it instead.
// Other errors are returned as they are.
func targetTextErr(err error, header []string, target, hint string, dl data.Dialect) error {
	var pe *data.ParseError
	if target == "" || !errors.As(err, &pe) || !errors.Is(err, data.ErrNotNumber) || pe.Column < 1 ||
		pe.Column > len(header) || header[pe.Column-1] != target {
		return err
	}
	var ne *data.NotNumberError
	if errors.As(err, &ne) {
		if f := numberFormIn(dl, ne.Text); f != notNumberLike {
			// A number as spreadsheets write it ("$1,784.07", "18,64"):
			// marking such cells missing would leave no target.
			ex := map[numberForm]string{f: ne.Text}
			return fmt.Errorf("%w: the target %s must hold numbers as decoreg reads them: %s in the file%s", err, data.QuoteName(target), formAdviceIn(dl, ex), decimalHintIn(dl, ex))
		}
	}
	return fmt.Errorf("%w: the target %s must hold numbers (decoreg predicts numbers; a text target such as a class label is not one%s)", err, data.QuoteName(target), hint)
}

// levelsErrors appends to out every *data.LevelsError in err's tree (a
// joined error of them, wrapped as bad input or not), in order.
func levelsErrors(err error, out []*data.LevelsError) []*data.LevelsError {
	switch e := err.(type) {
	case nil:
	case *data.LevelsError:
		out = append(out, e)
	case interface{ Unwrap() []error }:
		for _, u := range e.Unwrap() {
			out = levelsErrors(u, out)
		}
	default:
		out = levelsErrors(errors.Unwrap(err), out)
	}
	return out
}

// levelsErr reports the *data.LevelsErrors of training (one, or several
// joined) in the command line's terms, or returns ok false: each column's
// stray text cells, if it is otherwise numbers, with naHint's advice (na
// is --na's list), and how to leave them out (features: --features was
// given).
func levelsErr(name string, err error, na []string, features bool, fr *data.Frame) (_ error, ok bool) {
	les := levelsErrors(err, nil)
	if len(les) == 0 {
		return nil, false
	}
	var cols []string
	for _, le := range les {
		cols = append(cols, quoteFlagName(le.Column))
	}
	it := pick(len(les) == 1, "it", "them")
	out := "drop " + it + " with --drop " + shellArg(strings.Join(cols, ","))
	if features {
		out = "leave " + it + " out of --features"
	}
	if len(les) > 1 {
		var parts, texts []string
		dates := false
		for _, le := range les {
			d := levelsDesc(le)
			if ex := dateExample(fr, le.Column); ex != "" {
				d = strings.TrimSuffix(d, ")") + ", dates such as " + data.QuoteCell(ex) + ")"
				dates = true
			}
			parts = append(parts, d)
			texts = addNew(texts, le.Text...)
		}
		advice := ""
		if len(texts) > 0 {
			// One --na list for every column (each list replaces the
			// defaults: one per column read the others' texts as text).
			slices.Sort(texts)
			advice = naHint(na, texts, fr.Dialect) + "; else "
		}
		if dates {
			advice += datesAdvice + "; or "
		}
		return inputf(name, "%s: %d columns have more distinct values (levels) than --max-levels %d allows for a categorical column: %s; %s%s, or raise --max-levels",
			les[0].Path, len(les), les[0].Max, strings.Join(parts, "; "), advice, out), true
	}
	le := les[0]
	if ex := dateExample(fr, le.Column); ex != "" && len(le.Text) == 0 && le.Numbers == 0 {
		return inputf(name, "%s: column %s has %d distinct text values (levels), more than --max-levels %d allows for a categorical column: they are dates or times, such as %s; %s; or %s",
			le.Path, data.QuoteName(le.Column), le.Levels, le.Max, data.QuoteCell(ex), datesAdvice, out), true
	}
	if len(le.Text) > 0 {
		// Numbers but for a few text cells.
		return inputf(name, "%s: column %s has %d distinct values, %d of them numbers; the text ones (%s) make it categorical, with more levels than --max-levels %d allows: %s; else %s, or raise --max-levels",
			le.Path, data.QuoteName(le.Column), le.Levels, le.Numbers, quoteList(le.Text), le.Max, naHint(na, le.Text, fr.Dialect), out), true
	}
	if le.Numbers > 0 {
		return inputf(name, "%s: column %s has %d distinct values (levels), %d of them numbers and %d text, more than --max-levels %d allows for a categorical column; %s, or raise --max-levels",
			le.Path, data.QuoteName(le.Column), le.Levels, le.Numbers, le.Levels-le.Numbers, le.Max, out), true
	}
	return inputf(name, "%s: column %s has %d distinct text values (levels), more than --max-levels %d allows for a categorical column; %s, or raise --max-levels",
		le.Path, data.QuoteName(le.Column), le.Levels, le.Max, out), true
}

// datesAdvice is how to use a column of dates, which decoreg reads as text.
const datesAdvice = "decoreg reads dates as text: to use them, write them as numbers in the file (days since a start, or the year, month and weekday as columns of their own)"

// dateForms are dates and times as tables write them: ISO 8601 (y, m, d;
// a time after it), day and month with a year of two or four digits
// after slashes or dashes, or of four after points, a year first with
// slashes, and times of day. isDate checks the fields' ranges: a version
// string "3.10.12" or a code "12-34-5678" is no date.
var dateForms = []*regexp.Regexp{
	regexp.MustCompile(`^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$`),
	regexp.MustCompile(`^(\d{1,2})[/-](\d{1,2})[/-](?:\d{2}|\d{4})(?: (\d{1,2}):(\d{2})(?::(\d{2}))?(?: ?[AaPp][Mm])?)?$`),
	regexp.MustCompile(`^(\d{1,2})\.(\d{1,2})\.\d{4}$`),
	regexp.MustCompile(`^(\d{4})/(\d{1,2})/(\d{1,2})$`),
	regexp.MustCompile(`^(\d{1,2}):(\d{2})(?::(\d{2}))?$`),
}

// isDate reports whether s is a date or time of dateForms with fields in
// range: a month of 1 to 12 and a day of 1 to 31 (either order for day
// and month), hours to 24, minutes and seconds to 59.
func isDate(s string) bool {
	for k, re := range dateForms {
		m := re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		n := make([]int, len(m))
		for i := 1; i < len(m); i++ {
			if m[i] != "" {
				n[i], _ = strconv.Atoi(m[i])
			}
		}
		in := func(v, lo, hi int) bool { return v >= lo && v <= hi }
		clock := func(i int) bool { // hours, minutes, seconds from m[i]
			return m[i] == "" || in(n[i], 0, 24) && in(n[i+1], 0, 59) && (m[i+2] == "" || in(n[i+2], 0, 59))
		}
		switch k {
		case 0:
			return in(n[2], 1, 12) && in(n[3], 1, 31) && clock(4)
		case 1, 2:
			dm := in(n[1], 1, 31) && in(n[2], 1, 12) || in(n[1], 1, 12) && in(n[2], 1, 31)
			return dm && (k == 2 || clock(3))
		case 3:
			return in(n[2], 1, 12) && in(n[3], 1, 31)
		case 4:
			return clock(1)
		}
	}
	return false
}

// dateExample returns a cell of column col of fr (nil: none) when nine in
// ten of its first 1,000 cells that are not missing are dates or times
// (dateForms), else "".
func dateExample(fr *data.Frame, col string) string {
	if fr == nil {
		return ""
	}
	j := fr.Column(col)
	if j < 0 || fr.Columns[j].Str == nil {
		return ""
	}
	c := &fr.Columns[j]
	n, k, ex := 0, 0, ""
	for i, s := range c.Str {
		if c.Missing[i] {
			continue
		}
		if n++; isDate(strings.TrimSpace(s)) {
			if k++; ex == "" {
				ex = s
			}
		}
		if n == 1000 {
			break
		}
	}
	if n == 0 || 10*k < 9*n {
		return ""
	}
	return ex
}

// levelsDesc describes one column of several over the level limit.
func levelsDesc(le *data.LevelsError) string {
	switch {
	case len(le.Text) > 0:
		return fmt.Sprintf("%s (%d, %d of them numbers; the text ones, %s, make it categorical)", data.QuoteName(le.Column), le.Levels, le.Numbers, quoteList(le.Text))
	case le.Numbers > 0:
		return fmt.Sprintf("%s (%d, %d of them numbers)", data.QuoteName(le.Column), le.Levels, le.Numbers)
	}
	return fmt.Sprintf("%s (%d)", data.QuoteName(le.Column), le.Levels)
}

// naHint advises on text cells in a column otherwise of numbers, na being
// the --na list they were read with: the cells to add to --na (which
// replaces its defaults, so the advice gives the whole list, as a shell
// argument, a marker holding a comma in double quotes), those that are
// numbers as spreadsheets write them (numberFormOf: to be rewritten in the
// file, not made missing), and those too long to be a marker (over
// naHintMax bytes).
func naHint(na, texts []string, dl data.Dialect) string {
	var plain, numLike, long []string
	examples := map[numberForm]string{}
	for _, t := range texts {
		switch f := numberFormIn(dl, t); {
		case f != notNumberLike:
			numLike = append(numLike, t)
			if _, ok := examples[f]; !ok {
				examples[f] = t
			}
		case len(t) > naHintMax:
			long = append(long, t) // not a missing-value marker: a 200 KB one made a 200 KB --na advice
		default:
			plain = append(plain, t)
		}
	}
	var parts []string
	if len(plain) > 0 {
		var list []string
		for _, m := range append(slices.Clone(na), plain...) {
			list = append(list, quoteFlagName(m)) // one holding a comma in double quotes
		}
		parts = append(parts, fmt.Sprintf("to read %s as missing: --na %s (the list replaces --na's defaults)",
			quoteList(plain), shellArg(strings.Join(list, ","))))
	}
	if len(numLike) > 0 {
		parts = append(parts, fmt.Sprintf("%s %s as spreadsheets write them: %s in the file%s", quoteList(numLike), pick(len(numLike) == 1, "is a number", "are numbers"), formAdviceIn(dl, examples), decimalHintIn(dl, examples)))
	}
	if len(long) > 0 {
		parts = append(parts, fmt.Sprintf("%s %s too long to be a missing-value marker: change %s in the file", quoteList(long), pick(len(long) == 1, "is", "are"), pick(len(long) == 1, "it", "them")))
	}
	return strings.Join(parts, "; ")
}

// naHintMax is the longest text naHint offers as a --na marker, in bytes.
const naHintMax = 80

// shellArg writes s as one argument of a shell: as it is where it holds
// only letters, digits and "_@%+=:,./-", else in single quotes, or, where
// it holds a control character (a line feed would break the message's
// line), as $'...' with escapes (bash, zsh, ksh and POSIX.1-2024 sh).
func shellArg(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' || c == '\'':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// flagArg writes a column name as the shell argument of --drop or
// --features.
func flagArg(name string) string {
	if len(name) > 160 {
		// Not repeated whole in a suggestion (a 1 MB header cell).
		return fmt.Sprintf("NAME (the column's name, %d bytes)", len(name))
	}
	return shellArg(quoteFlagName(name))
}

// pick returns a when cond holds, else b.
func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// warnBlank warns that the blank lines b between a file's rows were
// skipped (a CSV reader does: they are no rows), so that the rows, and
// predict's and sample's row column, are counted without them. In a file
// of ncols = 1 column a blank line is more likely a missing cell, written
// as nothing; it must be written NA or "" to be a row.
func warnBlank(name, path string, b data.BlankLines, ncols int) {
	if b.N == 0 {
		return
	}
	lines := fmt.Sprintf("a blank line between its rows (line %d) is", b.First)
	if b.N > 1 {
		lines = fmt.Sprintf("%d blank lines between its rows (the first on line %d) are", b.N, b.First)
	}
	advice := ""
	if ncols == 1 {
		advice = `; in a file of one column, write a missing cell as NA or "" to keep its row`
	}
	fmt.Fprintf(errOut, "decoreg %s: warning: %s: %s skipped: blank lines are no rows, and the rows are counted without them%s\n", name, nameSpools(path), lines, advice)
}

// countFunc counts the elements of s for which f holds.
func countFunc[T any](s []T, f func(T) bool) int {
	n := 0
	for _, v := range s {
		if f(v) {
			n++
		}
	}
	return n
}

// unlabelledTargets returns d without its targets (predict writes no
// logpdf) when a row of d, the rows predict uses, has none (NaN: empty or
// one of --na), with a warning where others have one (a column left blank
// for predict's inputs gets none). The rows are those of a --test-mask
// split: an unlabelled row outside it took the test rows' logpdf, and the
// warning named its line.
func unlabelledTargets(name string, d *input) *input {
	if d.Y == nil || !slices.ContainsFunc(d.Y, math.IsNaN) {
		return d
	}
	if n := len(d.Y) - countFunc(d.Y, math.IsNaN); n > 0 {
		i := slices.IndexFunc(d.Y, math.IsNaN)
		at := fmt.Sprintf("row %d", i)
		if len(d.Lines) == d.Rows {
			at = fmt.Sprintf("line %d", d.Lines[i])
		}
		fmt.Fprintf(errOut, "decoreg %s: warning: %s: the target column %s is missing (empty, or one of the model's missing-value markers) in %d of the %d rows predicted (the first on %s): no logpdf is written, as it needs every row's target\n",
			name, nameSpools(d.Path), data.QuoteName(d.TargetName), len(d.Y)-n, len(d.Y), at)
	}
	e, ed := *d, *d.Dataset
	ed.Y, ed.TargetName = nil, ""
	e.Dataset = &ed
	return &e
}
