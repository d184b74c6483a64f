package serve

import (
	"encoding/json"
	"fmt"
	"strings"

	"decoreg/data"
)

// rowsFromSchema fills q.enc from r.Rows or r.X for a model with a schema:
// rows are keyed by the original columns (arrays in x follow their order);
// a numeric column takes a number or null (missing), a categorical column
// a string, a number (read as its text) or null. In a categorical column
// an empty string or one of the model's missing markers is missing too,
// and in any column a number equal to a marker that is a number (as in a
// CSV file; a numeric column refuses strings). The schema encodes them.
func (q *query) rowsFromSchema(r *Request, ms modelSpec, lim Limits) error {
	sc := ms.schema
	names := sc.ColumnNames()
	d := len(names)
	switch {
	case r.Rows != nil && r.X != nil:
		return badf(`give the inputs as "rows" or as "x", not both`)
	case r.Rows == nil && r.X == nil:
		return badf(`no inputs: give "rows" (objects keyed by column name) or "x" (arrays in column order: %s)`, clipList(names))
	}
	n := max(len(r.Rows), len(r.X))
	if n == 0 {
		return badf("no rows")
	}
	if n > lim.MaxRows {
		return badf("%d rows: at most %d per request", n, lim.MaxRows)
	}
	// A JSON number is written with a point: the markers that are
	// numbers, in that notation; a string in a categorical column is text
	// as the training file wrote it, matched as its markers were there.
	na := sc.NAIn(data.Dialect{})
	if na == nil {
		na = data.DefaultNA
	}
	isNA, isNAText := data.MissingMatcher(na), sc.NATextMatcher()
	if isNAText == nil { // an older model: every cell alike
		isNAText = isNA
	}
	f := &data.Frame{Rows: n, Columns: make([]data.Column, d), NA: na}
	for j, c := range sc.Columns {
		col := data.Column{Name: c.Name, Kind: c.Kind, Field: -1, Str: make([]string, n), Missing: make([]bool, n)}
		if c.Kind == data.Numeric {
			col.Num = make([]float64, n)
		}
		f.Columns[j] = col
	}
	set := func(i, j int, raw json.RawMessage, what string) error {
		c := &f.Columns[j]
		s := strings.TrimSpace(string(raw))
		if s == "null" {
			c.Missing[i] = true
			return nil
		}
		if c.Kind == data.Numeric {
			v, err := number(raw)
			if err != nil {
				return badf("%s: %v (the column is numeric: give a number, or null for a missing value)", what, err)
			}
			if isNA(s) { // a number that is a marker, as in a CSV file
				c.Missing[i] = true
				return nil
			}
			c.Num[i], c.Str[i] = v, s
			return nil
		}
		switch {
		case strings.HasPrefix(s, `"`):
			var str string
			if err := json.Unmarshal(raw, &str); err != nil {
				return badf("%s: bad JSON string %s", what, clip(s))
			}
			str = strings.TrimSpace(str)
			if isNAText(str) {
				c.Missing[i] = true
				return nil
			}
			c.Str[i] = str
		case s != "" && (s[0] == '-' || s[0] >= '0' && s[0] <= '9'):
			if isNA(s) {
				c.Missing[i] = true
				return nil
			}
			c.Str[i] = s // a number, as the text a CSV file would hold
		default:
			return badf("%s: %s is not a string, a number or null (the column is categorical)", what, clip(s))
		}
		return nil
	}
	if r.X != nil {
		for i, row := range r.X {
			if len(row) != d {
				return badf("x[%d] has %d values; the model takes %d columns (%s)", i, len(row), d, clipList(names))
			}
			for j, raw := range row {
				if err := set(i, j, raw, fmt.Sprintf("x[%d][%d] (column %q)", i, j, names[j])); err != nil {
					return err
				}
			}
		}
	} else {
		col := make(map[string]int, d)
		for j, name := range names {
			col[name] = j
		}
		for i, raw := range r.Rows {
			what := fmt.Sprintf("rows[%d]", i)
			if strings.TrimSpace(string(raw)) == "null" {
				return badf("%s is null", what)
			}
			keys, row, err := objectFields(raw, what)
			if err != nil {
				return err
			}
			for _, k := range keys {
				if _, ok := col[k]; !ok {
					return badf("%s: unknown feature %q (the model's columns are %s)", what, clip(k), clipList(names))
				}
			}
			for j, name := range names {
				raw, ok := row[name]
				if !ok {
					return badf("%s: feature %q is missing (give null for a missing value)", what, name)
				}
				if err := set(i, j, raw, fmt.Sprintf("%s: feature %q", what, name)); err != nil {
					return err
				}
			}
		}
	}
	// Encoded a chunk of rows at a time as the batch predicts them: a
	// categorical column takes a float64 per level a row encoded (10,000
	// rows of a column of 2,000 levels held whole took 160 MB).
	en, err := sc.Encoder(f)
	if err != nil {
		return badf("%v", err)
	}
	q.rows, q.enc = n, en
	for _, w := range en.Warnings() {
		q.warns = append(q.warns, w.String())
	}
	return nil
}
