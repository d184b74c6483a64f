package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"decoreg"
)

// Regression tests of the problems a second hostile new-user review
// found: TestNUn... is problem n (TestNU1... in newuser_unix_test.go).

// writeTable writes a CSV of header and n rows made by row(i) into dir and
// returns its path.
func writeTable(t *testing.T, dir, name, header string, n int, row func(i int) string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(header + "\n")
	for i := range n {
		b.WriteString(row(i) + "\n")
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// schemaColumns returns the column names of a trained model's schema.
func schemaColumns(t *testing.T, path string) []string {
	t.Helper()
	m, err := decoreg.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return m.Schema().ColumnNames()
}

// TestNU2EmptyColumns: a feature column missing in every training row (a
// trailing comma's unnamed column, a named blank one, one of --na markers
// only) is left out with a warning, so that predict does not demand it;
// --features naming it and a target missing everywhere are refused.
func TestNU2EmptyColumns(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.model")
	train := func(data string, extra ...string) (string, string) {
		return mustCLI(t, append(append([]string{"train", "--data", data, "--out", model}, tinyArgs("pointwise")...), extra...)...)
	}
	// A trailing comma on every line: the target is still y.
	trail := writeTable(t, dir, "trail.csv", "a,b,y,", 40, func(i int) string { return fmt.Sprintf("%d,%d,%d,", i, i%3, 2*i) })
	_, errs := train(trail)
	if !strings.Contains(errs, "warning: ") || !strings.Contains(errs, "column 4 (no name in the header) is missing (empty, or one of --na) in every training row: left out") {
		t.Errorf("trailing comma: stderr %q", errs)
	}
	if got := schemaColumns(t, model); strings.Join(got, ",") != "a,b" {
		t.Errorf("trailing comma: schema columns %q", got)
	}
	plain := writeTable(t, dir, "plain.csv", "a,b,y", 5, func(i int) string { return fmt.Sprintf("%d,%d,%d", i, i%3, 2*i) })
	mustCLI(t, "predict", "--model", model, "--data", plain, "--out", "-")

	// A named column, blank or NA in every row.
	blank := writeTable(t, dir, "blank.csv", "a,b,y", 40, func(i int) string {
		if i%2 == 0 {
			return fmt.Sprintf("%d,,%d", i, 2*i)
		}
		return fmt.Sprintf("%d,NA,%d", i, 2*i)
	})
	_, errs = train(blank)
	if !strings.Contains(errs, `warning: `) || !strings.Contains(errs, `column "b" is missing (empty, or one of --na) in every training row: left out`) {
		t.Errorf("blank column: stderr %q", errs)
	}
	if got := schemaColumns(t, model); strings.Join(got, ",") != "a" {
		t.Errorf("blank column: schema columns %q", got)
	}
	noB := writeTable(t, dir, "nob.csv", "a,y", 5, func(i int) string { return fmt.Sprintf("%d,%d", i, 2*i) })
	mustCLI(t, "predict", "--model", model, "--data", noB, "--out", "-")
	mustCLI(t, "eval", "--model", model, "--data", noB)

	// With --na "" the NA cells are text: b is a (constant) column.
	_, errs = train(blank, "--na", "")
	if strings.Contains(errs, `column "b" is empty`) {
		t.Errorf("--na \"\": stderr %q", errs)
	}

	// Refused: the column named by --features; a target missing everywhere.
	wantUsage(t, append([]string{"train", "--data", blank, "--out", model, "--features", "a,b"}, tinyArgs("pointwise")...),
		"--features", `column "b"`, "every training row")
	wantUsage(t, append([]string{"train", "--data", blank, "--out", model, "--target", "b"}, tinyArgs("pointwise")...),
		"blank.csv", `target column "b"`, "every one of the 40 training rows")
	onlyBlank := writeTable(t, dir, "only.csv", "a,y", 10, func(i int) string { return fmt.Sprintf(",%d", i) })
	wantUsage(t, append([]string{"train", "--data", onlyBlank, "--out", model}, tinyArgs("pointwise")...),
		"only.csv", "no feature columns are left")
}

// TestNU3UnnamedColumns: an unnamed column that holds values is refused,
// naming the file, line 1 and the column (it was a feature, or the
// target, called ""); an empty --target is refused.
func TestNU3UnnamedColumns(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.model")
	last := writeTable(t, dir, "last.csv", "a,b,", 40, func(i int) string { return fmt.Sprintf("%d,%d,%d", i, i%3, 2*i) })
	mid := writeTable(t, dir, "mid.csv", "a,,y", 40, func(i int) string { return fmt.Sprintf("%d,%d,%d", i, i%3, 2*i) })
	for _, c := range []struct{ data, want string }{{last, "last.csv: line 1: column 3 has no name in the header"}, {mid, "mid.csv: line 1: column 2 has no name in the header"}} {
		wantUsage(t, append([]string{"train", "--data", c.data, "--out", model}, tinyArgs("pointwise")...), c.want)
	}
	// Left out by --features, it is not read.
	mustCLI(t, append([]string{"train", "--data", mid, "--out", model, "--features", "a"}, tinyArgs("pointwise")...)...)
	wantUsage(t, append([]string{"train", "--data", mid, "--out", model, "--target", ""}, tinyArgs("pointwise")...), "--target is empty")
	// An unnamed last column holding values and no --target: with
	// --features it would not be read, and the default target (the last
	// named column) might be a feature; refused.
	wantUsage(t, append([]string{"train", "--data", last, "--out", model, "--features", "a"}, tinyArgs("pointwise")...), "last.csv: line 1: the last column has no name", "--target NAME")
	mustCLI(t, append([]string{"train", "--data", last, "--out", model, "--features", "a", "--target", "b"}, tinyArgs("pointwise")...)...)
	// Several unnamed columns (a spreadsheet's trailing commas): each
	// empty one is left out with a warning, one with values refused; a
	// file to predict on may have them too.
	two := writeTable(t, dir, "two.csv", "a,y,,", 40, func(i int) string { return fmt.Sprintf("%d,%d,,", i, 2*i) })
	_, errs := mustCLI(t, append([]string{"train", "--data", two, "--out", model}, tinyArgs("pointwise")...)...)
	for _, c := range []string{"3", "4"} {
		if !strings.Contains(errs, "column "+c+" (no name in the header) is missing (empty, or one of --na) in every training row: left out") {
			t.Errorf("two unnamed empty columns: no warning for column %s:\n%s", c, errs)
		}
	}
	if m, err := decoreg.Load(model); err != nil || strings.Join(m.Columns(), ",") != "a" {
		t.Errorf("two unnamed empty columns: model columns %v, %v", m.Columns(), err)
	}
	mustCLI(t, "predict", "--model", model, "--data", two, "--out", filepath.Join(dir, "p.csv"))
	held := writeTable(t, dir, "held.csv", ",a,,y,", 40, func(i int) string { return fmt.Sprintf(",%d,,%d,%d", i, 2*i, i%2) })
	// The empty ones are warned about before the refusal of the one with
	// values (the warnings were lost): a fix shows every problem at once.
	wantUsage(t, append([]string{"train", "--data", held, "--out", model}, tinyArgs("pointwise")...), "held.csv: line 1: column 5 has no name in the header, but holds values",
		"column 1 (no name in the header) is missing (empty, or one of --na) in every training row: left out",
		"column 3 (no name in the header) is missing (empty, or one of --na) in every training row: left out")
}

// TestNU4EmptyLists: an empty --features or --drop, or one with an empty
// entry, is refused naming the flag; it was ignored (every column used).
func TestNU4EmptyLists(t *testing.T) {
	dir := t.TempDir()
	data := writeSynth(t, dir, "d.csv", 40, 1)
	model := filepath.Join(dir, "m.model")
	for _, c := range []struct {
		flag, value string
		want        []string
	}{
		{"features", "", []string{"--features is empty"}},
		{"drop", "", []string{"--drop is empty"}},
		{"features", " ", []string{"--features is empty"}},
		{"features", "x0,", []string{"--features", `"x0,"`, "entry 2 is empty"}},
		{"drop", " , ", []string{"--drop", "entry 1 is empty"}},
		{"drop", "x0,,x1", []string{"--drop", "entry 2 is empty"}},
	} {
		wantUsage(t, append([]string{"train", "--data", data, "--out", model, "--" + c.flag, c.value}, tinyArgs("pointwise")...), c.want...)
	}
	if _, err := os.Stat(model); err == nil {
		t.Error("a model was written")
	}
}

// TestNU5NumberLikeText: a text column whose values are mostly numbers
// written with separators or units ("1,000", "$1,200", "5%", "1_000") is
// read as categories, with a warning; real categories get none.
func TestNU5NumberLikeText(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.model")
	units := []string{`"%d,000"`, `"$%d,200"`, `%d%%`, `%d_000`, ` %d `}
	data := writeTable(t, dir, "thous.csv", "a,c,y", 40, func(i int) string {
		a := fmt.Sprintf(units[i%len(units)], i)
		if i == 7 {
			a = "NA"
		}
		return fmt.Sprintf("%s,%c,%d", a, 'p'+i%3, i)
	})
	_, errs := mustCLI(t, append([]string{"train", "--data", data, "--out", model, "--max-levels", "100"}, tinyArgs("pointwise")...)...)
	want := `warning: ` + data + `: column "a": 39 of 39 values read as numbers, 31 of them only as written otherwise: read as categories; to use them as numbers, remove the thousands separators, currency signs and units ("$1,200" is 1200); write the decimal commas as points ("0,000" is 0.000) in the file`
	if !strings.Contains(errs, want) {
		t.Errorf("stderr %q lacks %q", errs, want)
	}
	if strings.Contains(errs, `column "c"`) {
		t.Errorf("a categorical column warned about: %q", errs)
	}
	// One separator among plain numbers: counted as one (the count of
	// every number was given as the separators').
	one := writeTable(t, dir, "one.csv", "a,y", 40, func(i int) string {
		if i == 5 {
			return "1_000,5"
		}
		return fmt.Sprintf("%d,%d", i, i)
	})
	_, errs = mustCLI(t, append([]string{"train", "--data", one, "--out", model, "--max-levels", "100"}, tinyArgs("pointwise")...)...)
	if want := `column "a": 40 of 40 values read as numbers, 1 of them only as written otherwise: read as categories; to use them as numbers, remove the thousands separators, currency signs and units ("1_000" is 1000)`; !strings.Contains(errs, want) {
		t.Errorf("stderr %q lacks %q", errs, want)
	}
	// 80% numbers, the rest 3 distinct texts: stray markers, offered to
	// --na and out of the share (review: "n/a" among "1,000"s hid the
	// separators).
	mixed := writeTable(t, dir, "mixed.csv", "a,y", 40, func(i int) string {
		if i%5 == 0 {
			return fmt.Sprintf("text%d,%d", i%3, i)
		}
		return fmt.Sprintf(`"%d,000",%d`, i, i)
	})
	_, errs = mustCLI(t, append([]string{"train", "--data", mixed, "--out", model, "--max-levels", "100"}, tinyArgs("pointwise")...)...)
	if want := `column "a": 32 of 40 values read as numbers, 32 of them only as written otherwise: read as categories; to use them as numbers, remove the thousands separators, currency signs and units ("1,000" is 1000) in the file; its text values "text0", "text1", "text2" look like missing-value markers (below)
decoreg train: warning: ` + mixed + `: column "a": to read "text0", "text1", "text2" as missing: --na 'NA,NaN,?,text0,text1,text2'`; !strings.Contains(errs, want) {
		t.Errorf("80%% numbers and 3 markers: stderr %q lacks %q", errs, want)
	}
	// Under 90% numbers and 8 distinct texts: no warning.
	many := writeTable(t, dir, "many.csv", "a,y", 40, func(i int) string {
		if i%5 == 0 {
			return fmt.Sprintf("text%d,%d", i, i)
		}
		return fmt.Sprintf(`"%d,000",%d`, i, i)
	})
	if _, errs := mustCLI(t, append([]string{"train", "--data", many, "--out", model, "--max-levels", "100"}, tinyArgs("pointwise")...)...); strings.Contains(errs, "read as numbers, ") {
		t.Errorf("80%% numbers, 8 texts: %q", errs)
	}
	// Decimal commas and accounting negatives get their own advice.
	euro := writeTable(t, dir, "euro.csv", "a,b,y", 40, func(i int) string {
		return fmt.Sprintf(`"%d,%02d",(%d),%d`, i, i, i+1, i)
	})
	_, errs = mustCLI(t, append([]string{"train", "--data", euro, "--out", model, "--max-levels", "100"}, tinyArgs("pointwise")...)...)
	for _, want := range []string{`column "a": 40 of 40 values read as numbers, 40 of them only as written otherwise: read as categories; to use them as numbers, write the decimal commas as points ("0,00" is 0.00) in the file`,
		`column "b": 40 of 40 values read as numbers, 40 of them only as written otherwise: read as categories; to use them as numbers, write the accounting negatives with a minus sign ("(1)" is -1) in the file`} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr %q lacks %q", errs, want)
		}
	}
	if strings.Contains(errs, "is categorical") || strings.Contains(errs, "--na") {
		t.Errorf("numbers as spreadsheets write them offered to --na: %q", errs)
	}
}

// TestNU6HugeFeature: features up to 6e301 train; their sd overflowed
// ("values span too wide a range ... sd +Inf").
func TestNU6HugeFeature(t *testing.T) {
	dir := t.TempDir()
	data := writeTable(t, dir, "huge.csv", "a,b,y", 40, func(i int) string { return fmt.Sprintf("%de300,%d,%d", i*150%6001, i%3, i) })
	mustCLI(t, append([]string{"train", "--data", data, "--out", filepath.Join(dir, "m.model")}, tinyArgs("pointwise")...)...)
}

// TestNU7Cosmetic: eval counts imputed cells only in the rows it scores
// (not in a row skipped for a missing target, nor outside --split's test
// rows); a file with CR line ends says so; an --out in a directory that
// exists but takes no new file gives the real error.
func TestNU7Cosmetic(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.model")
	data := writeTable(t, dir, "d.csv", "a,b,c,y", 40, func(i int) string { return fmt.Sprintf("%d,%d,%c,%d", i, i%3, 'p'+i%2, i) })
	mustCLI(t, append([]string{"train", "--data", data, "--out", model}, tinyArgs("mdn")...)...)
	old := stdin
	defer func() { stdin = old }()
	stdin = strings.NewReader("a,b,c,y\n0.3,,p,NA\n0.2,0.1,p,1\n")
	_, errs := mustCLI(t, "eval", "--model", model, "--data", "-")
	if strings.Contains(errs, `column "b"`) || !strings.Contains(errs, "skipped 1 row(s)") {
		t.Errorf("eval: %q", errs)
	}
	// The imputed row is outside the test rows of the split.
	in := writeTable(t, dir, "in.csv", "a,b,c,y", 3, func(i int) string {
		if i == 0 {
			return "1,,p,1"
		}
		return fmt.Sprintf("%d,1,p,%d", i, i)
	})
	mask := writeTable(t, dir, "mask.csv", "split0,split1", 3, func(i int) string { return fmt.Sprintf("%d,1", min(i, 1)) })
	for _, cmd := range [][]string{{"eval"}, {"predict", "--out", "-"}, {"sample", "--n", "2"}} {
		args := append(cmd, "--model", model, "--data", in, "--test-mask", mask)
		if _, errs := mustCLI(t, append(args, "--split", "0")...); strings.Contains(errs, `column "b"`) {
			t.Errorf("%s --split 0: %q", cmd[0], errs)
		}
		if _, errs := mustCLI(t, append(args, "--split", "1")...); !strings.Contains(errs, `column "b": 1 missing cell(s)`) {
			t.Errorf("%s --split 1: %q", cmd[0], errs)
		}
	}

	cr := filepath.Join(dir, "cr.csv")
	os.WriteFile(cr, []byte(strings.ReplaceAll(mustRead(t, data), "\n", "\r")), 0o644)
	wantUsage(t, append([]string{"train", "--data", cr, "--out", model}, tinyArgs("pointwise")...), "cr.csv: line 1", "carriage return")
	wantUsage(t, []string{"eval", "--model", model, "--data", cr}, "cr.csv: line 1", "carriage return")

	if fi, err := os.Stat("/proc/self"); err == nil && fi.IsDir() {
		errs := wantUsage(t, []string{"predict", "--model", model, "--data", data, "--out", "/proc/self/nope"}, "--out /proc/self/nope", "cannot create a file in directory /proc/self")
		if strings.Contains(errs, "does not exist") {
			t.Errorf("--out /proc/self/nope: %q", errs)
		}
	}
	wantUsage(t, []string{"predict", "--model", model, "--data", data, "--out", filepath.Join(dir, "missing", "p.csv")}, "does not exist")
}

// TestExportPreambles: Excel's "sep=" line and a comment line before the
// header are named (they were read as the header: "no feature columns
// are left besides the target" or a column "sep="), and text that is not
// UTF-8 gets a conversion hint in train and in predict's warning.
func TestExportPreambles(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ file, body, want string }{
		{"comma.csv", "sep=,\nx,y\n1,2\n2,3\n", `line 1 is Excel's "sep=," line, not a header: remove it`},
		{"semi.csv", "sep=;\nx;y\n1;2\n2;3\n", `line 1 is Excel's "sep=;" line, not a header: remove it, and give --sep ';'`},
		{"tab.csv", "sep=\t\nx\ty\n1\t2\n", `line 1 is Excel's "sep=" line (naming a tab or a space)`},
		{"comment.csv", "# exported 2024-01-01\nx,y\n1,2\n2,3\n", `line 1 starts with '#': decoreg reads no comment lines`},
		{"comment2.csv", "# source: a, b\nx,y\n1,2\n2,3\n", `line 1 starts with '#': decoreg reads no comment lines`},
		{"numpy.csv", "# x,y\n1,2\n2,3\n", `(if this line is the header, remove its '#')`},
		{"nospace.csv", "#exported 2024, by foo\nx,y\n1,2\n2,3\n", `line 1 starts with '#'`},
		{"double.csv", "## x,y\n1,2\n2,3\n", `line 1 starts with '#'`},
		{"upper.csv", "SEP=;\nx;y\n1;2\n2;3\n", `line 1 is Excel's "SEP=;" line, not a header`},
		{"latin1.csv", "city,y\nZ\xfcrich,1\nBern,2\nBern,3\n", `is not valid UTF-8, which a model file cannot record as a level (is the file Latin-1 or Windows-1252? convert it with iconv -f WINDOWS-1252 -t UTF-8)`},
	} {
		path := filepath.Join(dir, c.file)
		if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := cli(t, append([]string{"train", "--data", path, "--out", filepath.Join(dir, "m.model")}, tinyArgs("pointwise")...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, %s", c.file, code, errs)
		}
	}
	// A header "#x,y" is a header: a column may be named "#x".
	hash := writeTable(t, dir, "hash.csv", "#x,y", 20, func(i int) string { return fmt.Sprintf("%d,%d", i, i%3) })
	mustCLI(t, append([]string{"train", "--data", hash, "--out", filepath.Join(dir, "h.model")}, tinyArgs("pointwise")...)...)
	// predict: a level that is not UTF-8 against a model trained on UTF-8.
	train := writeTable(t, dir, "utf8.csv", "city,y", 20, func(i int) string { return fmt.Sprintf("%s,%d", []string{"Zürich", "Bern"}[i%2], i%3) })
	model := filepath.Join(dir, "c.model")
	mustCLI(t, append([]string{"train", "--data", train, "--out", model}, tinyArgs("pointwise")...)...)
	test := filepath.Join(dir, "latin1-test.csv")
	if err := os.WriteFile(test, []byte("city\nZ\xfcrich\nBern\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs := mustCLI(t, "predict", "--model", model, "--data", test, "--out", filepath.Join(dir, "p.csv"))
	if !strings.Contains(errs, `1 cell(s) with a level not seen in training ("Z\xfcrich"), encoded as no level (is the file Latin-1 or Windows-1252?`) {
		t.Errorf("predict: %s", errs)
	}
}

// TestTrainNamesEveryLevelsColumn: train names every column over
// --max-levels in one message, each with its advice, and the --drop list
// of them all (review: four reruns found them one by one).
func TestTrainNamesEveryLevelsColumn(t *testing.T) {
	dir := t.TempDir()
	path := writeTable(t, dir, "lv.csv", "id,date,x,city,y", 100, func(i int) string {
		x := fmt.Sprint(i)
		if i%30 == 0 {
			x = "n/a"
		}
		return fmt.Sprintf("id%d,2024-01-%02dT%d,%s,%s,%d", i, i%28+1, i, x, []string{"a", "b"}[i%2], i%7)
	})
	code, _, errs := cli(t, append([]string{"train", "--data", path, "--out", filepath.Join(dir, "m.model")}, tinyArgs("pointwise")...)...)
	want := path + `: 3 columns have more distinct values (levels) than --max-levels 64 allows for a categorical column: "id" (100); "date" (100); "x" (97, 96 of them numbers; the text ones, "n/a", make it categorical); to read "n/a" as missing: --na 'NA,NaN,?,n/a' (the list replaces --na's defaults); else drop them with --drop id,date,x, or raise --max-levels`
	if code != 2 || !strings.Contains(errs, want) {
		t.Errorf("exit %d, %s\nwant %s", code, errs, want)
	}
	// Two columns' stray texts: one --na list reads both (review: one list
	// per column, each replacing the defaults).
	two := writeTable(t, dir, "two.csv", "a,b,y", 100, func(i int) string {
		a, b := fmt.Sprint(i), fmt.Sprint(2*i)
		if i%30 == 0 {
			a = "n/a"
		}
		if i%40 == 1 {
			b = "-"
		}
		return fmt.Sprintf("%s,%s,%d", a, b, i%7)
	})
	code, _, errs = cli(t, append([]string{"train", "--data", two, "--out", filepath.Join(dir, "m.model")}, tinyArgs("pointwise")...)...)
	if want := `to read "-", "n/a" as missing: --na 'NA,NaN,?,-,n/a'`; code != 2 || !strings.Contains(errs, want) || strings.Count(errs, "--na '") != 1 {
		t.Errorf("two columns: exit %d, %s", code, errs)
	}
	code, _, errs = cli(t, append([]string{"train", "--data", path, "--features", "id,date,city", "--out", filepath.Join(dir, "m.model")}, tinyArgs("pointwise")...)...)
	if code != 2 || !strings.Contains(errs, "2 columns have more") || !strings.Contains(errs, "leave them out of --features") {
		t.Errorf("--features: exit %d, %s", code, errs)
	}
}

// TestPredictCellAdvice: predict's error about a feature cell that is not
// a number says how to make it one: rewrite a number as spreadsheets
// write them, or mark a missing cell with the model's markers (review:
// predict takes no --na, and the error gave no advice).
func TestPredictCellAdvice(t *testing.T) {
	dir := t.TempDir()
	train := writeTable(t, dir, "t.csv", "x,y", 20, func(i int) string { return fmt.Sprintf("%d,%d", i, i%4) })
	model := filepath.Join(dir, "m.model")
	mustCLI(t, append([]string{"train", "--data", train, "--out", model, "--na", "NA,-"}, tinyArgs("pointwise")...)...)
	for body, want := range map[string]string{
		"x\n\"1,234.5\"\n": `not a number: "1,234.5" in column "x": the model reads this column as numbers: remove the thousands separators, currency signs and units ("1,234.5" is 1234.5) in the file`,
		"x\nn/a\n":         `not a number: "n/a" in column "x": the model reads this column as numbers; a missing cell is an empty cell or one of "NA", "-" (the markers it was trained with)`,
	} {
		path := filepath.Join(dir, "p.csv")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, errs := cli(t, "predict", "--model", model, "--data", path, "--out", "-"); code != 2 || !strings.Contains(errs, want) {
			t.Errorf("%q: exit %d, %s", body, code, errs)
		}
	}
}

// TestTrainCountsEmptyRows: of the rows skipped for a missing target,
// those empty in every column (",," lines of an export) are counted.
func TestTrainCountsEmptyRows(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "e.csv")
	if err := os.WriteFile(path, []byte("x,y\n1,2\n,\n2,3\n3,\n,\n4,5\n5,6\n6,7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs := mustCLI(t, append([]string{"train", "--data", path, "--out", filepath.Join(dir, "m.model")}, tinyArgs("pointwise")...)...)
	if want := `skipped 3 row(s) whose target "y" is missing (2 of them empty in every column read)`; !strings.Contains(errs, want) {
		t.Errorf("stderr %q lacks %q", errs, want)
	}
	// With a split whose training rows are not the file's first (review:
	// the file's row numbers indexed the training rows, and train panicked).
	mask := filepath.Join(dir, "mask.csv")
	if err := os.WriteFile(mask, []byte("split0\n1\n1\n0\n0\n0\n0\n0\n0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs = mustCLI(t, append([]string{"train", "--data", path, "--test-mask", mask, "--split", "0", "--out", filepath.Join(dir, "m2.model")}, tinyArgs("pointwise")...)...)
	if want := `skipped 2 row(s) whose target "y" is missing (1 of them empty in every column read)`; !strings.Contains(errs, want) {
		t.Errorf("with a split: stderr %q lacks %q", errs, want)
	}
}

// TestTrainWarnsRowNumbers: a numeric column of distinct consecutive
// integers, one per row (a row number, a running id), is warned about;
// one with a gap or a repeat, or too few rows, is not.
func TestTrainWarnsRowNumbers(t *testing.T) {
	dir := t.TempDir()
	path := writeTable(t, dir, "id.csv", "id,gap,x,y", 30, func(i int) string {
		return fmt.Sprintf("%d,%d,%d.5,%d", 1029-i, 2*i, i%4, i%5)
	})
	_, errs := mustCLI(t, append([]string{"train", "--data", path, "--out", filepath.Join(dir, "m.model")}, tinyArgs("pointwise")...)...)
	if want := `column "id" holds the 30 integers from 1000 to 1029, one per training row, as a row number or a running identifier does: if it is one, leave it out with --drop id`; !strings.Contains(errs, want) {
		t.Errorf("stderr %q lacks %q", errs, want)
	}
	if strings.Contains(errs, `"gap"`) || strings.Contains(errs, `"x"`) {
		t.Errorf("other columns warned about: %q", errs)
	}
	// Large ids in full; with --features, no --drop advice (refused beside it).
	big := writeTable(t, dir, "big.csv", "id,x,y", 25, func(i int) string { return fmt.Sprintf("%d,%d.5,%d", 1000000+i, i%4, i%3) })
	_, errs = mustCLI(t, append([]string{"train", "--data", big, "--features", "id,x", "--out", filepath.Join(dir, "m.model")}, tinyArgs("pointwise")...)...)
	if want := `column "id" holds the 25 integers from 1000000 to 1000024, one per training row, as a row number or a running identifier does: if it is one, leave it out of --features`; !strings.Contains(errs, want) {
		t.Errorf("stderr %q lacks %q", errs, want)
	}
	small := writeTable(t, dir, "small.csv", "id,y", 10, func(i int) string { return fmt.Sprintf("%d,%d", i, i%3) })
	if _, errs := mustCLI(t, append([]string{"train", "--data", small, "--out", filepath.Join(dir, "m.model")}, tinyArgs("pointwise")...)...); strings.Contains(errs, "row number") {
		t.Errorf("10 rows: %q", errs)
	}
}

// TestNumberLikeContext: the number-like warning reads a column as a
// whole (review): markers are offered only when few against the numbers;
// lists ("1,2,3") make a column text; "1,250" among decimal commas is
// one too; mixed units are to be converted; markers of several columns
// get one --na list.
func TestNumberLikeContext(t *testing.T) {
	dir := t.TempDir()
	train := func(path string) string {
		_, errs := mustCLI(t, append([]string{"train", "--data", path, "--out", filepath.Join(dir, "m.model"), "--max-levels", "100"}, tinyArgs("pointwise")...)...)
		return errs
	}
	dose := writeTable(t, dir, "dose.csv", "dose,y", 40, func(i int) string {
		d := []string{"high", "low"}[i%2]
		if i < 2 {
			d = []string{"5 mg", "10 mg"}[i]
		}
		return fmt.Sprintf("%s,%d", d, i%3)
	})
	if errs := train(dose); strings.Contains(errs, "read as numbers") || strings.Contains(errs, "--na") {
		t.Errorf("two doses among words: %q", errs)
	}
	survey := writeTable(t, dir, "survey.csv", "c,y", 40, func(i int) string {
		return fmt.Sprintf(`"%s",%d`, []string{"1", "2", "1,3", "2,3", "1,2,3"}[i%5], i%3)
	})
	if errs := train(survey); strings.Contains(errs, "decimal comma") {
		t.Errorf("survey lists: %q", errs)
	}
	eu := writeTable(t, dir, "eu.csv", "a,y", 40, func(i int) string {
		return fmt.Sprintf(`"%s",%d`, []string{"2,5", "1,250", "3,75", "10,5"}[i%4], i%3)
	})
	if want := `write the decimal commas as points ("2,5" is 2.5) ("1,250" is 1.250 here, as the column's other decimal commas say)`; !strings.Contains(train(eu), want) {
		t.Errorf("eu.csv lacks %q", want)
	}
	sizes := writeTable(t, dir, "sizes.csv", "s,y", 40, func(i int) string {
		return fmt.Sprintf("%s,%d", []string{"500 MB", "1.5 GB", "300 MB"}[i%3], i%3)
	})
	if want := "the column mixes units (GB, MB): convert them to one, not only remove them"; !strings.Contains(train(sizes), want) {
		t.Errorf("sizes.csv lacks %q", want)
	}
	two := writeTable(t, dir, "two.csv", "a,b,y", 40, func(i int) string {
		a, b := fmt.Sprintf(`"%d,000"`, i+1), fmt.Sprint(i)
		if i%10 == 0 {
			a, b = "n/a", "-"
		}
		return fmt.Sprintf("%s,%s,%d", a, b, i%3)
	})
	// Column a's marker is offered before training, b's after it: the
	// last list holds both.
	errs := train(two)
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	if want := `columns "a", "b": to read "-", "n/a" as missing: --na 'NA,NaN,?,-,n/a'`; !strings.Contains(lines[len(lines)-1], want) {
		t.Errorf("two.csv: the last line of %q lacks %q", errs, want)
	}
}
