package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeep: predict and sample copy the columns of --keep into their
// output, each cell as the file holds it, on the rows they write (a
// test mask's, after blank lines, through another separator).
func TestKeep(t *testing.T) {
	dir := t.TempDir()
	ids := func(i int) string {
		return []string{`a,1`, `b "2"`, `NA`, ``, `é`, `line`}[i%6] + fmt.Sprint(i)
	}
	var b strings.Builder
	b.WriteString("id;x;y\n")
	for i := range 40 {
		fmt.Fprintf(&b, "\"%s\";%d,5;%d\n", strings.ReplaceAll(ids(i), `"`, `""`), i%7, i%5)
		if i == 10 {
			b.WriteString("\n") // a blank line: no row
		}
	}
	data := filepath.Join(dir, "d.csv")
	os.WriteFile(data, []byte(b.String()), 0o644)
	dl := []string{"--sep", ";", "--decimal", ","}
	model := filepath.Join(dir, "m.model")
	mustCLI(t, append(append([]string{"train", "--data", data, "--drop", "id", "--out", model}, tinyArgs("mdn")...), dl...)...)
	mask := filepath.Join(dir, "mask.csv")
	var m strings.Builder
	m.WriteString("split0\n")
	for i := range 40 {
		fmt.Fprintf(&m, "%d\n", i%3/2)
	}
	os.WriteFile(mask, []byte(m.String()), 0o644)
	for _, c := range []struct {
		args []string
		rows int
	}{
		{[]string{"predict", "--out", "-"}, 40},
		{[]string{"predict", "--out", "-", "--test-mask", mask, "--split", "0"}, 13},
		{[]string{"sample", "--n", "3", "--out", "-", "--test-mask", mask, "--split", "0"}, 13},
	} {
		out, _ := mustCLI(t, append(append([]string{c.args[0], "--model", model, "--data", data, "--keep", "id,y"}, c.args[1:]...), dl...)...)
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.args[0], err, out)
		}
		if len(recs) != c.rows+1 || strings.Join(recs[0][:3], ",") != "row,id,y" {
			t.Fatalf("%s: %d rows, header %q", c.args[0], len(recs)-1, recs[0])
		}
		for _, r := range recs[1:] {
			var i int
			fmt.Sscan(r[0], &i)
			if r[1] != strings.TrimSpace(ids(i)) || r[2] != fmt.Sprint(i%5) {
				t.Errorf("%s: row %d: kept %q, %q; the file has %q, %d", c.args[0], i, r[1], r[2], ids(i), i%5)
			}
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "--out", "-", "--keep", "ID"}, `--keep: ` + data + `: line 1: no column "ID", did you mean "id"?`},
		{[]string{"predict", "--out", "-", "--keep", "id,id"}, `--keep "id,id": "id" is given twice`},
		{[]string{"predict", "--out", "-", "--keep", "id,"}, `--keep "id,": entry 2 is empty`},
		{[]string{"predict", "--out", "-", "--keep", ""}, `--keep is empty`},
		{[]string{"sample", "--n", "3", "--out", "-", "--keep", "s2"}, `--keep: ` + data + `: line 1: no column "s2"`},
	} {
		wantUsage(t, append(append([]string{c.args[0], "--model", model, "--data", data}, c.args[1:]...), dl...), c.want)
	}
	// A kept column named as one of sample's draws is refused; a draw
	// beyond --n is not one.
	s2 := filepath.Join(dir, "s2.csv")
	os.WriteFile(s2, []byte("s2;s4;x;y\n1;2;3;4\n"), 0o644)
	wantUsage(t, append([]string{"sample", "--model", model, "--data", s2, "--n", "3", "--out", "-", "--keep", "s2"}, dl...), `the output has a column "s2" of its own`)
	mean := filepath.Join(dir, "mean.csv")
	os.WriteFile(mean, []byte("mean;logpdf;x;y\n1;2;3;4\n"), 0o644)
	for _, k := range []string{"mean", "logpdf"} { // logpdf's name is taken, written or not
		wantUsage(t, append([]string{"predict", "--model", model, "--data", mean, "--out", "-", "--keep", k}, dl...), `--keep: the output has a column "`+k+`" of its own`)
	}
	if out, _ := mustCLI(t, append([]string{"sample", "--model", model, "--data", s2, "--n", "3", "--out", "-", "--keep", "s4"}, dl...)...); !strings.HasPrefix(out, "row,s4,s1,s2,s3\n0,2,") {
		t.Errorf("sample --keep s4: %s", out)
	}
}
