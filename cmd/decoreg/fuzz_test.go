package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzTrainPredict runs train on any file contents, with options chosen
// by the fuzzer (head, separator, decimal mark, markers, target), and
// predict, eval and sample on the same file with the model it made: no
// command may panic or fail as if the machine had (status 1); a table it
// cannot take is a usage error (status 2) with a message.
func FuzzTrainPredict(f *testing.F) {
	f.Add([]byte("a,c,y\n1,x,2\n2,y,3\n3,x,5\n4,,7\n5,y,\n6,x,9\n"), byte(0), "")
	f.Add([]byte("a;c;y\n1,5;x;2\n2,5;y;3\nNA;x;5\n4;z;1.234,5\n"), byte(0x1e), "")
	f.Add([]byte("x\ty\n1\t2\n2\t4\n3\t6\n4\t8\n"), byte(0x25), "y")
	f.Add([]byte("a,b,y\n1,?,1\n2,3,2\n?,4,3\n5,6,-999\n"), byte(0x43), "a")
	f.Fuzz(func(t *testing.T, content []byte, opts byte, target string) {
		if len(content) > 1<<14 || len(target) > 64 {
			return
		}
		dir := t.TempDir()
		data, model := filepath.Join(dir, "d.csv"), filepath.Join(dir, "m.model")
		if err := os.WriteFile(data, content, 0o644); err != nil {
			t.Fatal(err)
		}
		head := []string{"mdn", "riemann", "decoder", "pointwise"}[opts&3]
		var flags []string
		switch opts >> 2 & 3 {
		case 1:
			flags = append(flags, "--sep", ";")
		case 2:
			flags = append(flags, "--sep", "tab")
		case 3:
			flags = append(flags, "--sep", "|")
		}
		if opts&16 != 0 {
			flags = append(flags, "--decimal", ",")
		}
		args := append([]string{"train", "--data", data, "--out", model, "--max-levels", "8", "--val-frac", "0.3"}, tinyArgs(head)...)
		args = append(append(args, flags...), "--epochs", "1")
		if opts&32 != 0 {
			args = append(args, "--na", "?,-999")
		}
		if target != "" {
			args = append(args, "--target", target)
		}
		code, _, errs := cli(t, args...)
		check := func(what string, code int, errs string) {
			if code == 1 || code != 0 && code != 2 || code == 2 && strings.TrimSpace(errs) == "" {
				t.Fatalf("%s: exit %d: %q", what, code, errs)
			}
		}
		check("train", code, errs)
		if code != 0 {
			return
		}
		for _, cmd := range [][]string{{"predict", "--out", "-"}, {"eval"}, {"sample", "--n", "2", "--out", "-"}} {
			a := append(append([]string{cmd[0], "--model", model, "--data", data}, cmd[1:]...), flags...)
			code, _, errs := cli(t, a...)
			check(cmd[0], code, errs)
		}
	})
}
