package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSepDecimal: a table written with semicolons and decimal commas, as
// spreadsheets export it where the comma is the decimal mark, trains and
// predicts with --sep ';' --decimal , to the same model and the same
// output as its comma-and-point twin: text, blanks and markers included.
func TestSepDecimal(t *testing.T) {
	dir := t.TempDir()
	var comma, semi strings.Builder
	comma.WriteString("x,city,z,y\n")
	semi.WriteString("x;city;z;y\n")
	for i := range 80 {
		x := float64(i%17)*0.75 - 3.5
		z := fmt.Sprintf("%.2f", float64(i*7%23)/4)
		if i%9 == 4 {
			z = "NA"
		}
		y := 1234.5 + x*2.25 + float64(i%5)
		city := []string{"Köln", "Bonn", "Aachen, Dom"}[i%3]
		xs, ys := fmt.Sprintf("%g", x), fmt.Sprintf("%.2f", y)
		fmt.Fprintf(&comma, "%s,\"%s\",%s,%s\n", xs, city, z, ys)
		// y with a thousands point: 1.234,5.
		yi, yf, _ := strings.Cut(ys, ".")
		fmt.Fprintf(&semi, "%s;%s;%s;%s.%s,%s\n", strings.Replace(xs, ".", ",", 1), city, strings.Replace(z, ".", ",", 1), yi[:1], yi[1:], yf)
	}
	cp, sp := filepath.Join(dir, "comma.csv"), filepath.Join(dir, "semi.csv")
	os.WriteFile(cp, []byte(comma.String()), 0o644)
	os.WriteFile(sp, []byte(semi.String()), 0o644)
	flags := []string{"--sep", ";", "--decimal", ","}
	cm, sm := filepath.Join(dir, "c.model"), filepath.Join(dir, "s.model")
	mustCLI(t, append([]string{"train", "--data", cp, "--out", cm}, tinyArgs("mdn")...)...)
	mustCLI(t, append(append([]string{"train", "--data", sp, "--out", sm}, tinyArgs("mdn")...), flags...)...)
	// The same model: the same predictions (the files differ in their
	// timings).
	a, _ := mustCLI(t, "predict", "--model", cm, "--data", cp, "--out", "-")
	b, _ := mustCLI(t, "predict", "--model", sm, "--data", cp, "--out", "-")
	if a != b {
		t.Fatalf("the two models predict differently:\n%.300s\nagainst\n%.300s", b, a)
	}
	pc, _ := mustCLI(t, "predict", "--model", cm, "--data", cp, "--out", "-")
	ps, _ := mustCLI(t, append([]string{"predict", "--model", cm, "--data", sp, "--out", "-"}, flags...)...)
	if pc != ps || !strings.Contains(pc, "logpdf") {
		t.Errorf("predict:\n%.300s\nagainst\n%.300s", ps, pc)
	}
	ec, _ := mustCLI(t, "eval", "--model", cm, "--data", cp)
	es, _ := mustCLI(t, append([]string{"eval", "--model", cm, "--data", sp}, flags...)...)
	if ec != es {
		t.Errorf("eval:\n%s\nagainst\n%s", es, ec)
	}
	sc, _ := mustCLI(t, "sample", "--model", cm, "--data", cp, "--n", "2", "--out", "-")
	ss, _ := mustCLI(t, append([]string{"sample", "--model", cm, "--data", sp, "--n", "2", "--out", "-"}, flags...)...)
	if sc != ss {
		t.Errorf("sample differs")
	}
	// Without --decimal, the commas are text and the advice names it.
	code, _, errs := cli(t, "predict", "--model", cm, "--data", sp, "--sep", ";", "--out", "-")
	if code != 2 || !strings.Contains(errs, "write the decimal commas as points") || !strings.Contains(errs, "(or read the decimal commas with --decimal ,)") {
		t.Errorf("predict without --decimal: exit %d, %s", code, errs)
	}
	// With --decimal , on a file of decimal points, the points are text,
	// and the advice says to leave the flag out.
	code, _, errs = cli(t, "predict", "--model", cm, "--data", cp, "--decimal", ",", "--out", "-")
	if code != 2 || !strings.Contains(errs, `write the decimal points as commas ("-3.5" is -3,5) in the file (or leave out --decimal , to read decimal points)`) {
		t.Errorf("predict --decimal , of points: exit %d, %s", code, errs)
	}
	code, _, errs = cli(t, append([]string{"train", "--data", cp, "--out", filepath.Join(dir, "p.model"), "--decimal", ","}, tinyArgs("mdn")...)...)
	if code != 2 || !strings.Contains(errs, `"1226.62" in column "y": the target "y" must hold numbers as decoreg reads them: write the decimal points as commas ("1226.62" is 1226,62) in the file (or leave out --decimal , to read decimal points)`) {
		t.Errorf("train --decimal , of points: exit %d, %s", code, errs)
	}
	// A feature column of points is text there: the warning says so.
	pts := writeTable(t, dir, "pts.csv", "a,y", 40, func(i int) string { return fmt.Sprintf("%d.5,%d", i%7, i%3) })
	_, errs = mustCLI(t, append([]string{"train", "--data", pts, "--out", filepath.Join(dir, "p.model"), "--decimal", ","}, tinyArgs("mdn")...)...)
	if !strings.Contains(errs, `column "a"`) || !strings.Contains(errs, `write the decimal points as commas ("0.5" is 0,5) in the file (or leave out --decimal , to read decimal points)`) {
		t.Errorf("train --decimal , of points: %s", errs)
	}
}

func TestSepDecimalFlags(t *testing.T) {
	model := sharedModel(t, "mdn")
	data := writeSynth(t, t.TempDir(), "d.csv", 20, 2)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sep", ""}, `--sep "": want one character, or tab`},
		{[]string{"--sep", ";;"}, `--sep ";;": want one character`},
		{[]string{"--sep", `"`}, `--sep "\"": the separator may not be the double quote`},
		{[]string{"--sep", " "}, `--sep " ": the separator may not be a space`},
		{[]string{"--sep", "a"}, `--sep "a": the separator 'a' is a letter`},
		{[]string{"--sep", "."}, `--sep ".": the separator '.' is written in numbers`},
		{[]string{"--sep", "\n"}, `the separator may not be a line end`},
		{[]string{"--decimal", ";"}, `--decimal ";": want . or ,`},
		{[]string{"--decimal", ""}, `--decimal "": want . or ,`},
	} {
		for _, cmd := range [][]string{{"predict", "--model", model, "--out", "-"}, {"eval", "--model", model}, {"sample", "--model", model, "--n", "1"}, append([]string{"train", "--out", filepath.Join(t.TempDir(), "m.model")}, tinyArgs("mdn")...)} {
			wantUsage(t, append(append(cmd, "--data", data), c.args...), c.want)
		}
	}
	// A tab file, by either name of the tab; the comma with a decimal
	// comma (numbers quoted).
	dir := t.TempDir()
	tab := filepath.Join(dir, "t.tsv")
	os.WriteFile(tab, []byte(strings.ReplaceAll(mustRead(t, data), ",", "\t")), 0o644)
	want, _ := mustCLI(t, "predict", "--model", model, "--data", data, "--out", "-")
	for _, sep := range []string{"tab", `\t`, "\t"} {
		if got, _ := mustCLI(t, "predict", "--model", model, "--data", tab, "--sep", sep, "--out", "-"); got != want {
			t.Errorf("--sep %q:\n%.200s\nagainst\n%.200s", sep, got, want)
		}
	}
}

// TestSepDecimalAdvice: what the commands say about files read with
// --sep and --decimal , (helper-147's findings).
func TestSepDecimalAdvice(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.model")
	train := func(data string, args ...string) (int, string) {
		code, _, errs := cli(t, append(append([]string{"train", "--data", data, "--out", model}, tinyArgs("mdn")...), args...)...)
		return code, errs
	}
	dc := []string{"--sep", ";", "--decimal", ","}
	// A marker with a decimal comma, unquoted, is two markers: refused.
	na := writeTable(t, dir, "na.csv", "a;y", 40, func(i int) string { return fmt.Sprintf("%d,5;%d", i%9, i%4) })
	if code, errs := train(na, append(dc, "--na", "-999,5")...); code != 2 || !strings.Contains(errs, `--na "-999,5": under --decimal , the entries "-999" and "5" are two markers, not the number -999,5: give a marker with a decimal comma in double quotes (--na '"-999,5"'), or two markers each in double quotes (--na '"-999","5"')`) {
		t.Errorf("--na -999,5: exit %d, %s", code, errs)
	}
	if code, errs := train(na, append(dc, "--na", `"NA",-999,5`)...); code != 2 || !strings.Contains(errs, `the entries "-999" and "5" are two markers`) {
		t.Errorf(`--na '"NA",-999,5': exit %d, %s`, code, errs) // one quoted entry let the others through
	}
	if code, errs := train(na, append(dc, "--na", `"-999,5"`)...); code != 0 {
		t.Errorf(`--na '"-999,5"': exit %d, %s`, code, errs)
	}
	if code, errs := train(na, "--sep", ";", "--na", "-999,5"); code == 2 && strings.Contains(errs, "two markers") {
		t.Errorf("--na -999,5 without --decimal ,: %s", errs)
	}
	// A target code's --na is written as the file writes numbers.
	codes := writeTable(t, dir, "codes.csv", "a;y", 60, func(i int) string {
		if i%20 == 7 {
			return fmt.Sprintf("%d;-99999,5", i%5)
		}
		return fmt.Sprintf("%d;%d,25", i%5, i%7)
	})
	if _, errs := train(codes, dc...); !strings.Contains(errs, `--na 'NA,NaN,?,"-99999,5"'`) {
		t.Errorf("the code's --na: %s", errs)
	}
	// Points that all read as thousands groups, and no decimal comma.
	grouped := writeTable(t, dir, "g.csv", "a;y", 40, func(i int) string { return fmt.Sprintf("%d.%03d;%d,5", 1+i%9, 7*i%1000, i%4) })
	if _, errs := train(grouped, dc...); !strings.Contains(errs, `column "a": 40 of its numbers hold points and none a decimal comma; under --decimal , the points group thousands ("1.000" is 1000): if they are decimal points, leave out --decimal ,`) {
		t.Errorf("grouped points: %s", errs)
	}
	mixed := writeTable(t, dir, "mixed.csv", "a;y", 40, func(i int) string { return fmt.Sprintf("%d.%03d,5;%d,5", 1+i%9, 7*i%1000, i%4) })
	if _, errs := train(mixed, dc...); strings.Contains(errs, "hold points") {
		t.Errorf("thousands points with decimal commas: %s", errs)
	}
	// A percent sign around a decimal comma that --decimal , reads: the
	// sign is what to remove.
	pct := writeTable(t, dir, "pct.csv", "a;y", 40, func(i int) string { return fmt.Sprintf("%d,5%%;%d", i%9, i%4) })
	if _, errs := train(pct, dc...); !strings.Contains(errs, `remove the thousands separators, currency signs and units ("0,5%" is 0,5 in percent) in the file`) || strings.Contains(errs, "read the decimal commas with --decimal") {
		t.Errorf("percent under --decimal ,: %s", errs)
	}
	// A model's numeric column given "1,250" in a semicolon file without
	// --decimal ,: the advice names it too (helper-148).
	semiModel := filepath.Join(dir, "semi.model")
	mustCLI(t, append(append([]string{"train", "--data", na, "--out", semiModel}, tinyArgs("mdn")...), dc...)...)
	odd := writeTable(t, dir, "odd.csv", "a;y", 3, func(i int) string { return fmt.Sprintf("1,250;%d", i) })
	if code, _, errs := cli(t, "predict", "--model", semiModel, "--data", odd, "--sep", ";", "--out", "-"); code != 2 || !strings.Contains(errs, `("1,250" is 1250) in the file (or, if its commas are decimal commas, read them with --decimal ,)`) {
		t.Errorf("1,250 in a semicolon file: exit %d, %s", code, errs)
	}
	// Ambiguous commas in a semicolon file: --decimal , is named.
	amb := writeTable(t, dir, "amb.csv", "a;y", 40, func(i int) string { return fmt.Sprintf("%d,%03d;%d", 1+i%9, 7*i%1000, i%4) })
	if _, errs := train(amb, "--sep", ";"); !strings.Contains(errs, "(if its commas are decimal commas, ") || !strings.Contains(errs, "read them with --decimal ,)") {
		t.Errorf("ambiguous commas with --sep ';': %s", errs)
	}
	// Excel's sep= line, quoted as the file writes it.
	sep := filepath.Join(dir, "sep.csv")
	os.WriteFile(sep, []byte("sep=;\na;y\n1;2\n"), 0o644)
	if code, errs := train(sep, "--sep", ";"); code != 2 || !strings.Contains(errs, `line 1 is Excel's "sep=;" line, not a header: remove it`) {
		t.Errorf("sep= with --sep ';': exit %d, %s", code, errs)
	}
	// Unquoted decimal commas in a comma-separated file.
	cc := filepath.Join(dir, "cc.csv")
	os.WriteFile(cc, []byte("a,y\n\"1,5\",2\n2,5,3\n"), 0o644)
	if code, errs := train(cc, "--decimal", ","); code != 2 || !strings.Contains(errs, `line 3: wrong number of fields: 3 fields, the header has 2 (the file's fields are separated by commas, and its numbers written with decimal commas: such a number must be in double quotes, "1,5")`) {
		t.Errorf("unquoted decimal commas: exit %d, %s", code, errs)
	}
}

func TestQuotedFields(t *testing.T) {
	for s, want := range map[string]string{
		`a,b`: "ff", `"a",b`: "tf", `"a,b",c`: "tf", ` "x",y`: "tf", `a,"b""c",d`: "ftf", ``: "f", `a,`: "ff", `,"a"`: "ft", `"NA",-999,5`: "tff",
	} {
		got := ""
		for _, q := range quotedFields(s) {
			got += map[bool]string{true: "t", false: "f"}[q]
		}
		fields, err := listFields(s)
		if got != want || err != nil || len(fields) != len(want) {
			t.Errorf("%q: %s (%d fields, %v), want %s", s, got, len(fields), err, want)
		}
	}
}

// TestNAMarkerNotation: a marker that is a number, given with a decimal
// comma to train on a file of decimal commas, marks the same cells in a
// file of decimal points (and a marker given with a point in the other
// direction): predict reads them as missing, as the training did. A file
// of points read -999.5 as a value, 1,000 times the column's range away.
func TestNAMarkerNotation(t *testing.T) {
	dir := t.TempDir()
	var comma, semi, commaBlank strings.Builder
	comma.WriteString("x,z,y\n")
	commaBlank.WriteString("x,z,y\n")
	semi.WriteString("x;z;y\n")
	for i := range 80 {
		x := fmt.Sprintf("%.2f", float64(i%17)*0.25)
		z := fmt.Sprintf("%.2f", float64(i*7%23)/4)
		zb := z
		if i%9 == 4 {
			z, zb = "-999.5", ""
		}
		y := fmt.Sprintf("%.2f", float64(i%17)*0.5+float64(i%5))
		fmt.Fprintf(&comma, "%s,%s,%s\n", x, z, y)
		fmt.Fprintf(&commaBlank, "%s,%s,%s\n", x, zb, y)
		c := func(s string) string { return strings.Replace(s, ".", ",", 1) }
		fmt.Fprintf(&semi, "%s;%s;%s\n", c(x), c(z), c(y))
	}
	cp, bp, sp := filepath.Join(dir, "comma.csv"), filepath.Join(dir, "blank.csv"), filepath.Join(dir, "semi.csv")
	os.WriteFile(cp, []byte(comma.String()), 0o644)
	os.WriteFile(bp, []byte(commaBlank.String()), 0o644)
	os.WriteFile(sp, []byte(semi.String()), 0o644)
	flags := []string{"--sep", ";", "--decimal", ","}
	sm, cm := filepath.Join(dir, "s.model"), filepath.Join(dir, "c.model")
	mustCLI(t, append(append([]string{"train", "--data", sp, "--out", sm, "--na", `"-999,5"`}, tinyArgs("mdn")...), flags...)...)
	mustCLI(t, append([]string{"train", "--data", cp, "--out", cm, "--na", "-999.5"}, tinyArgs("mdn")...)...)
	for _, m := range []string{sm, cm} {
		want, _ := mustCLI(t, "predict", "--model", m, "--data", bp, "--out", "-")
		got, errs := mustCLI(t, "predict", "--model", m, "--data", cp, "--out", "-")
		if got != want || strings.Contains(errs, "far beyond") {
			t.Errorf("%s on a file of points: the marker's cells are not missing:\n%.200s\nagainst\n%.200s\n%s", filepath.Base(m), got, want, errs)
		}
		got, errs = mustCLI(t, append([]string{"predict", "--model", m, "--data", sp, "--out", "-"}, flags...)...)
		if got != want || strings.Contains(errs, "far beyond") {
			t.Errorf("%s on a file of decimal commas: the marker's cells are not missing:\n%.200s\nagainst\n%.200s\n%s", filepath.Base(m), got, want, errs)
		}
	}
	// Numbers marked in a numeric column, and text levels that read as
	// those numbers in the other notation (helper-154): trained on points
	// with --na 1.5,2.5 and levels "1,5" and "2,50", a file of decimal
	// commas has x = 1,5 missing and c = 2,50 a level.
	var pt, cf strings.Builder
	pt.WriteString("c,x,y\n")
	for i := range 60 {
		x := fmt.Sprintf("%d", i%7)
		if i%10 == 3 {
			x = "1.5"
		}
		fmt.Fprintf(&pt, "%s,%s,%d\n", []string{`"1,5"`, `"2,50"`, "a"}[i%3], x, i%3+i%7)
	}
	cf.WriteString("c;x;y\n2,50;1,5;3\n2,50;;3\n1,5;4;1\n")
	ptp, cmp, pm := filepath.Join(dir, "pt.csv"), filepath.Join(dir, "cm.csv"), filepath.Join(dir, "pt.model")
	os.WriteFile(ptp, []byte(pt.String()), 0o644)
	os.WriteFile(cmp, []byte(cf.String()), 0o644)
	mustCLI(t, append([]string{"train", "--data", ptp, "--out", pm, "--na", "1.5,2.5"}, tinyArgs("mdn")...)...)
	out, errs := mustCLI(t, append([]string{"predict", "--model", pm, "--data", cmp, "--out", "-"}, flags...)...)
	if rows := strings.Split(out, "\n"); len(rows) < 3 || strings.SplitN(rows[1], ",", 2)[1] != strings.SplitN(rows[2], ",", 2)[1] || strings.Contains(errs, "missing") || strings.Contains(errs, "not seen") {
		t.Errorf("x = 1,5 should read as missing, c = 2,50 and 1,5 as levels:\n%s%s", out, errs)
	}
	// --na '' (only empty cells are missing): "NA" stays a level when the
	// model predicts (it read as DefaultNA's marker again; helper-153).
	lv := filepath.Join(dir, "lv.csv")
	var b strings.Builder
	b.WriteString("c,x,y\n")
	for i := range 60 {
		fmt.Fprintf(&b, "%s,%d,%d\n", []string{"NA", "a", "b"}[i%3], i%7, i%3+i%7)
	}
	os.WriteFile(lv, []byte(b.String()), 0o644)
	em := filepath.Join(dir, "e.model")
	mustCLI(t, append([]string{"train", "--data", lv, "--out", em, "--na", ""}, tinyArgs("mdn")...)...)
	if _, errs := mustCLI(t, "predict", "--model", em, "--data", lv, "--out", "-"); strings.Contains(errs, "missing") {
		t.Errorf(`a model trained with --na '': "NA" read as missing: %s`, errs)
	}
}
