package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInput runs every command on bad input: each case must exit with
// status 2, print one line on stderr that names the file (with its line and
// column where there is one) or the flag, and leave nothing in the output
// directory (neither the output file nor a temporary file).
func TestBadInput(t *testing.T) {
	const fx = "testdata/cli/"
	small := fx + "small.csv"
	dec := sharedModel(t, "decoder")
	point := sharedModel(t, "pointwise")

	// A truncated copy of a real model file.
	modelDir := t.TempDir()
	whole, err := os.ReadFile(dec)
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(modelDir, "truncated.model")
	if err := os.WriteFile(truncated, whole[:len(whole)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	// A model whose last byte (its checksum) is changed.
	corrupt := filepath.Join(modelDir, "corrupt.model")
	bad := append([]byte(nil), whole...)
	bad[len(bad)-1] ^= 0xff
	if err := os.WriteFile(corrupt, bad, 0o644); err != nil {
		t.Fatal(err)
	}

	train := func(data string, more ...string) []string {
		args := []string{"train", "--data", data, "--out", "OUT/m.model", "--head", "pointwise", "--enc-width", "4", "--epochs", "1", "--quiet"}
		return append(args, more...)
	}
	trainDec := func(more ...string) []string {
		args := []string{"train", "--data", small, "--out", "OUT/m.model", "--head", "decoder", "--enc-width", "4", "--epochs", "1", "--quiet"}
		return append(args, more...)
	}
	eval := func(model, data string, more ...string) []string {
		return append([]string{"eval", "--model", model, "--data", data}, more...)
	}
	predict := func(model, data string, more ...string) []string {
		return append([]string{"predict", "--model", model, "--data", data, "--out", "OUT/p.csv"}, more...)
	}
	sample := func(model, data string, more ...string) []string {
		return append([]string{"sample", "--model", model, "--data", data, "--out", "OUT/s.csv"}, more...)
	}

	cases := []struct {
		name string
		args []string
		want []string // substrings of the error line
	}{
		// Data files.
		{"train/missing file", train(fx + "nope.csv"), []string{"--data " + fx + "nope.csv: no such file"}},
		{"train/empty file", train(fx + "empty.csv"), []string{"empty.csv", "empty file"}},
		{"train/header only", train(fx + "header_only.csv"), []string{"header_only.csv", "no data rows"}},
		{"train/ragged row", train(fx + "ragged.csv"), []string{"ragged.csv", "line 4", "wrong number of fields"}},
		// A text cell makes a feature categorical, but a target must be numeric.
		{"train/non-numeric target", train(fx+"nonnumeric.csv", "--target", "x1"), []string{"nonnumeric.csv", "line 3, column 2", `"abc"`, `the target "x1" must hold numbers`, "--na"}},
		// NaN is missing by default; without it among --na it is a non-finite number.
		{"train/NaN feature", train(fx+"nan_feature.csv", "--na", ""), []string{"nan_feature.csv", "line 3, column 1", "NaN"}},
		{"train/bad max levels", train(small, "--max-levels", "0"), []string{"--max-levels"}},
		{"train/stray text in a numeric column", train("../../testdata/mixed.csv", "--target", "price", "--na", "NA"), []string{"mixed.csv", `"year"`, `("?")`, "--na"}},
		// Blank lines before the header: errors about it name its own line.
		{"train/no target after blank lines", train(fx+"blank_lines_header.csv", "--target", "z"), []string{"blank_lines_header.csv", "line 3", `"z"`}},
		{"eval/no feature after blank lines", eval(dec, fx+"blank_lines_header.csv"), []string{"blank_lines_header.csv", "line 3", `"x1"`}},
		{"train/unknown drop", train(small, "--drop", "x9"), []string{"--drop", `"x9"`}},
		{"train/unknown feature", train(small, "--features", "x0,x9"), []string{"--features", `"x9"`}},
		{"train/target as feature", train(small, "--features", "x0,y"), []string{"--features", `"y"`, "target"}},
		{"train/drop the target", train(small, "--drop", "y"), []string{"--drop", `"y"`, "target"}},
		{"train/drop and features", train(small, "--drop", "x0", "--features", "x1"), []string{"--features", "--drop"}},
		{"train/unknown target", train(small, "--target", "z"), []string{"small.csv", `"z"`}},
		{"train/Inf target", train(fx + "inf_target.csv"), []string{"inf_target.csv", "line 5, column 3", "Inf"}},
		{"train/NaN target", train(fx + "nan_target.csv"), []string{"nan_target.csv", "line 3, column 3", `"nan"`}},
		{"train/Inf feature", train(fx + "inf_feature.csv"), []string{"inf_feature.csv", "line 3, column 2", "Inf"}},
		{"train/constant target", train(fx + "constant.csv"), []string{"constant.csv", "constant", `"y"`}},
		{"train/too few rows", train(fx + "one_row.csv"), []string{"one_row.csv", "too few", "validation"}},
		{"train/too few rows after mask", train(fx+"small.csv", "--test-mask", fx+"mask12.csv", "--split", "1", "--val-frac", "0.99"),
			[]string{"small.csv", "leaving none", "validation"}},
		{"train/duplicate column", train(fx+"dup_column.csv", "--target", "x1"), []string{"dup_column.csv", "line 1, column 3", "duplicate", "--drop x0"}},
		{"train/duplicate target", train(fx + "dup_column.csv"), []string{"dup_column.csv", "line 1, column 3", "duplicate", "rename one"}},
		{"train/corrupt gzip", train(fx + "corrupt.csv.gz"), []string{"corrupt.csv.gz"}},
		{"train/unknown target", train(small, "--target", "zz"), []string{"small.csv", "line 1", `"zz"`}},
		{"train/ensemble from too few trials", train(small, "--tune", "--trials", "2", "--ensemble", "3", "--ensemble-from", "trials"), []string{"--ensemble 3", "chooses up to 3 members among the trials", "--trials must be at least 3, have 2"}},

		// Masks.
		{"train/mask row count", train(small, "--test-mask", fx+"mask5.csv", "--split", "0"), []string{"mask5.csv", "small.csv", "5 rows", "12"}},
		{"train/split out of range", train(small, "--test-mask", fx+"mask12.csv", "--split", "2"), []string{"--split", "mask12.csv", "split 2", "0 to 1"}},
		{"train/negative split", train(small, "--test-mask", fx+"mask12.csv", "--split", "-1"), []string{"--split"}},
		{"train/bad mask value", train(small, "--test-mask", fx+"bad_mask_value.csv", "--split", "0"), []string{"bad_mask_value.csv", "line 3, column 2"}},
		{"train/missing mask", train(small, "--test-mask", fx+"nope_mask.csv", "--split", "0"), []string{"nope_mask.csv"}},
		{"train/mask without split", train(small, "--test-mask", fx+"mask12.csv"), []string{"--split"}},
		{"train/split without mask", train(small, "--split", "0"), []string{"--test-mask"}},

		// Flags.
		{"train/no data flag", []string{"train", "--out", "OUT/m.model"}, []string{"--data"}},
		{"train/no out flag", []string{"train", "--data", small}, []string{"--out"}},
		{"train/out dir missing", []string{"train", "--data", small, "--out", "OUT/no/such/dir/m.model"}, []string{"--out", "does not exist"}},
		{"train/unknown head", train(small, "--head", "lstm"), []string{"--head", `"lstm"`}},
		{"train/bad vocab", trainDec("--vocab", "normalized:base=1,length=3"), []string{"--vocab", "normalized:base=1,length=3"}},
		{"train/unknown vocab kind", trainDec("--vocab", "decimal:base=10"), []string{"--vocab", "decimal"}},
		{"train/vocab for another head", train(small, "--vocab", "normalized:base=2,length=4"), []string{"--vocab", "decoder"}},
		{"train/raw target normalized", trainDec("--raw-target"), []string{"--raw-target"}},
		{"train/negative epochs", train(small, "--epochs", "-3"), []string{"--epochs", "-3"}},
		{"train/non-numeric epochs", train(small, "--epochs", "many"), []string{"-epochs", `"many"`}},
		{"train/zero enc width", train(small, "--enc-width", "0"), []string{"--enc-width"}},
		{"train/zero enc layers", train(small, "--enc-layers", "0"), []string{"--enc-layers"}},
		{"train/negative batch", train(small, "--batch", "-1"), []string{"--batch"}},
		{"train/zero patience", train(small, "--patience", "0"), []string{"--patience"}},
		{"train/negative lr", train(small, "--lr", "-0.1"), []string{"--lr"}},
		{"train/NaN lr", train(small, "--lr", "NaN"), []string{"--lr"}},
		{"train/negative weight decay", train(small, "--weight-decay", "-1"), []string{"--weight-decay"}},
		{"train/val frac 1", train(small, "--val-frac", "1"), []string{"--val-frac"}},
		{"train/negative val frac", train(small, "--val-frac", "-0.1"), []string{"--val-frac"}},
		{"train/negative threads", train(small, "--threads", "-2"), []string{"--threads"}},
		{"train/Inf lr", train(small, "--lr", "Inf"), []string{"--lr"}},
		{"train/zero lr", train(small, "--lr", "0"), []string{"--lr", "> 0"}},
		{"train/negative zero lr", train(small, "--lr", "-0"), []string{"--lr", "> 0"}},
		{"train/zero batch", train(small, "--batch", "0"), []string{"--batch", "> 0"}},
		{"train/zero epochs", train(small, "--epochs", "0"), []string{"--epochs", "> 0"}},
		{"train/zero bins", []string{"train", "--data", small, "--out", "OUT/m.model", "--head", "riemann", "--bins", "0"}, []string{"--bins", "> 0"}},
		{"train/NaN val frac", train(small, "--val-frac", "NaN"), []string{"--val-frac"}},
		{"train/zero dec heads", trainDec("--dec-heads", "0"), []string{"--dec-heads"}},
		{"train/huge enc width", train(small, "--enc-width", "1125899906842624"), []string{"--enc-width", "16384"}},
		{"train/huge dec layers", trainDec("--dec-layers", "1000"), []string{"--dec-layers", "64"}},
		{"train/huge bins", []string{"train", "--data", small, "--out", "OUT/m.model", "--head", "riemann", "--bins", "1125899906842624"}, []string{"--bins", "1048576"}},
		{"train/unknown encoder", train(small, "--encoder", "ft"), []string{"--encoder", `"ft"`, "mlp or plr"}},
		{"train/plr flag for mlp", train(small, "--plr-dim", "8"), []string{"--plr-dim", "--encoder plr"}},
		{"train/plr flag for explicit mlp", train(small, "--encoder", "mlp", "--plr-sigma", "0.1"), []string{"--plr-sigma", "--encoder plr"}},
		{"train/zero plr frequencies", train(small, "--encoder", "plr", "--plr-frequencies", "0"), []string{"--plr-frequencies", "> 0"}},
		{"train/negative plr frequencies", train(small, "--encoder", "plr", "--plr-frequencies", "-2"), []string{"--plr-frequencies", "-2"}},
		{"train/huge plr frequencies", train(small, "--encoder", "plr", "--plr-frequencies", "1000000"), []string{"--plr-frequencies", "4096"}},
		{"train/negative plr dim", train(small, "--encoder", "plr", "--plr-dim", "-1"), []string{"--plr-dim", "-1"}},
		{"train/huge plr dim", train(small, "--encoder", "plr", "--plr-dim", "1125899906842624"), []string{"--plr-dim", "16384"}},
		{"train/zero plr sigma", train(small, "--encoder", "plr", "--plr-sigma", "0"), []string{"--plr-sigma", "> 0"}},
		{"train/negative plr sigma", train(small, "--encoder", "plr", "--plr-sigma", "-0.5"), []string{"--plr-sigma", "-0.5"}},
		{"train/NaN plr sigma", train(small, "--encoder", "plr", "--plr-sigma", "NaN"), []string{"--plr-sigma", "NaN"}},
		{"train/Inf plr sigma", train(small, "--encoder", "plr", "--plr-sigma", "Inf"), []string{"--plr-sigma", "Inf"}},
		{"train/dropout 1", train(small, "--dropout", "1"), []string{"--dropout", "[0, 0.9]"}},
		{"train/unknown pretrain", train(small, "--pretrain", "mse"), []string{"--pretrain", `"mse"`, `"pointwise"`}},
		{"train/pretrain pointwise head", train(small, "--head", "pointwise", "--pretrain", "pointwise"), []string{"--pretrain", "the pointwise head needs none"}},
		{"train/pretrain with aux-mse", trainDec("--pretrain", "pointwise", "--aux-mse", "10"), []string{"--aux-mse", "frozen after pretraining"}},
		{"train/ensemble 0", train(small, "--ensemble", "0"), []string{"--ensemble", "1 (one model) to 64"}},
		{"train/target range reversed", train(small, "--target-range", "1,0"), []string{"--target-range", "LO < HI", `"1,0"`}},
		{"train/target range infinite", train(small, "--target-range", "0,inf"), []string{"--target-range", "finite"}},
		{"train/target range too wide", train(small, "--target-range", "-1e308,1e308"), []string{"--target-range", "difference that is finite"}},
		{"train/target range one value", train(small, "--target-range", "0.5"), []string{"--target-range", "want LO,HI"}},
		{"train/target range three values", train(small, "--target-range", "0,1,2"), []string{"--target-range", "want LO,HI"}},
		{"train/ensemble 65", train(small, "--ensemble", "65"), []string{"--ensemble", "1 (one model) to 64", "65"}},
		{"train/negative dropout", train(small, "--dropout", "-0.2"), []string{"--dropout", "-0.2"}},
		{"train/NaN dropout", train(small, "--dropout", "NaN"), []string{"--dropout", "NaN"}},
		{"train/ema 1", train(small, "--ema", "1"), []string{"--ema", "[0, 1)"}},
		{"train/negative ema", train(small, "--ema", "-0.5"), []string{"--ema", "-0.5"}},
		{"train/tune NaN ema", train(small, "--tune", "--ema", "NaN"), []string{"--ema", "NaN"}},
		{"train/negative lr drops", train(small, "--lr-drops", "-1"), []string{"--lr-drops", "[0, 10]", "-1"}},
		{"train/huge lr drops", train(small, "--lr-drops", "11"), []string{"--lr-drops", "[0, 10]", "11"}},
		{"train/tune huge lr drops", train(small, "--tune", "--lr-drops", "11"), []string{"--lr-drops", "11"}},
		{"train/lr drops without validation", train(small, "--lr-drops", "2", "--val-frac", "0"), []string{"--lr-drops", "--val-frac"}},
		{"train/lr drop factor alone", train(small, "--lr-drop-factor", "0.5"), []string{"--lr-drop-factor", "--lr-drops"}},
		// Accepted and ignored: the pointwise head stops on its MSE (helper-135).
		{"train/stop by nll for pointwise", train(small, "--head", "pointwise", "--stop-by", "nll"), []string{"--stop-by", "pointwise", "MSE"}},
		{"train/ple bins without ple", train(small, "--ple-bins", "8"), []string{"--ple-bins", "--input-transform ple"}},
		{"train/ple bins 1", train(small, "--input-transform", "ple", "--ple-bins", "1"), []string{"--ple-bins", "2 to 256"}},
		{"train/ple bins 0", train(small, "--input-transform", "ple", "--ple-bins", "0"), []string{"--ple-bins", "needs 2 to 256"}},
		{"train/ple bins 300 with tune", train(small, "--head", "decoder", "--tune", "--ensemble", "2", "--ple-seeds", "1", "--ple-bins", "300"), []string{"--ple-bins", "2 to 256"}},
		{"train/ple bins with tune but no ple seeds", train(small, "--tune", "--ple-bins", "8"), []string{"--ple-bins", "--ple-seeds"}},
		{"train/lr drop factor with no drops", train(small, "--tune", "--lr-drops", "0", "--lr-drop-factor", "0.5"), []string{"--lr-drop-factor", "--lr-drops"}},
		{"train/lr drop factor 1", train(small, "--lr-drops", "1", "--lr-drop-factor", "1"), []string{"--lr-drop-factor", "(0, 1)"}},
		{"train/lr drop factor 0", train(small, "--lr-drops", "1", "--lr-drop-factor", "0"), []string{"--lr-drop-factor", "> 0"}},
		{"train/lr drop factor NaN", train(small, "--lr-drops", "1", "--lr-drop-factor", "NaN"), []string{"--lr-drop-factor", "NaN"}},
		{"train/huge components", []string{"train", "--data", small, "--out", "OUT/m.model", "--head", "mdn", "--components", "1125899906842624"}, []string{"--components"}},
		{"train/too many parameters", train(small, "--enc-layers", "10", "--enc-width", "8192"), []string{"--enc-width", "parameters"}},
		{"train/dec heads not dividing", trainDec("--dec-width", "30", "--dec-heads", "4"), []string{"--dec-width", "4 heads"}},
		{"train/one bin", []string{"train", "--data", small, "--out", "OUT/m.model", "--head", "riemann", "--bins", "1"}, []string{"--bins"}},
		{"train/zero components", []string{"train", "--data", small, "--out", "OUT/m.model", "--head", "mdn", "--components", "0"}, []string{"--components"}},
		{"train/bins for mdn", []string{"train", "--data", small, "--out", "OUT/m.model", "--head", "mdn", "--bins", "8"}, []string{"--bins", "riemann"}},
		{"train/unknown flag", train(small, "--epoch", "3"), []string{"-epoch"}},
		{"train/positional argument", append(train(small), "extra"), []string{`"extra"`}},

		// Model files.
		{"eval/not a model", eval(fx+"not_a_model.model", small), []string{"not_a_model.model", "not a decoreg model"}},
		{"eval/truncated model", eval(truncated, small), []string{"truncated.model", "truncated"}},
		{"eval/corrupt model", eval(corrupt, small), []string{"corrupt.model", "checksum"}},
		{"eval/missing model", eval(fx+"nope.model", small), []string{"--model " + fx + "nope.model: no such file"}}, // the flag named (review)
		{"eval/data file as model", eval(small, small), []string{"small.csv", "not a decoreg model"}},
		{"predict/not a model", predict(fx+"not_a_model.model", small), []string{"not_a_model.model"}},
		{"predict/truncated model", predict(truncated, small), []string{"truncated.model", "truncated"}},
		{"sample/not a model", sample(fx+"not_a_model.model", small, "--n", "2"), []string{"not_a_model.model"}},
		{"sample/truncated model", sample(truncated, small, "--n", "2"), []string{"truncated.model"}},

		// eval data.
		{"eval/missing data", eval(dec, fx+"nope.csv"), []string{"--data " + fx + "nope.csv: no such file"}},
		{"eval/missing test mask", append(eval(dec, small), "--test-mask", fx+"nope.csv", "--split", "0"), []string{"--test-mask " + fx + "nope.csv: no such file"}},
		{"eval/empty data", eval(dec, fx+"empty.csv"), []string{"empty.csv", "empty file"}},
		{"eval/header only", eval(dec, fx+"header_only.csv"), []string{"header_only.csv", "no data rows"}},
		{"eval/ragged", eval(dec, fx+"ragged.csv"), []string{"ragged.csv", "line 4"}},
		{"eval/non-numeric", eval(dec, fx+"nonnumeric.csv"), []string{"nonnumeric.csv", "line 3, column 2"}},
		{"eval/NaN target", eval(dec, fx+"nan_target.csv"), []string{"nan_target.csv", "line 3, column 3"}},
		{"eval/Inf feature", eval(dec, fx+"inf_feature.csv"), []string{"inf_feature.csv", "line 3, column 2"}},
		{"eval/target is a feature", eval(dec, small, "--target", "x0"), []string{"--target", `"x0"`, "feature"}},
		{"eval/Inf target", eval(dec, fx+"inf_target.csv"), []string{"inf_target.csv", "line 5, column 3"}},
		{"eval/no target column", eval(dec, fx+"no_target.csv"), []string{"no_target.csv", `"y"`}},
		{"eval/missing feature column", eval(dec, fx+"wrong_cols.csv"), []string{"wrong_cols.csv", `"x0"`}},
		{"eval/mask row count", eval(dec, small, "--test-mask", fx+"mask5.csv", "--split", "0"), []string{"mask5.csv", "small.csv"}},
		{"eval/split out of range", eval(dec, small, "--test-mask", fx+"mask12.csv", "--split", "9"), []string{"--split", "mask12.csv", "split 9"}},
		{"eval/bad point", eval(dec, small, "--point", "average"), []string{"--point", `"average"`}},
		{"eval/empty point", eval(dec, small, "--point="), []string{"--point is empty"}},
		{"eval/no model flag", []string{"eval", "--data", small}, []string{"--model"}},
		{"eval/model from stdin", eval("-", small), []string{"--model -", "standard input"}},
		{"predict/model from stdin", predict("-", small), []string{"--model -", "standard input"}},
		{"sample/model from stdin", sample("-", small, "--n", "2"), []string{"--model -", "standard input"}},
		{"serve/model from stdin", []string{"serve", "--model", "-"}, []string{"--model -", "standard input"}},
		{"serve/models from stdin", []string{"serve", "--models", "-"}, []string{"--models -", "standard input"}},

		// predict flags and data.
		{"predict/bad level", predict(dec, small, "--levels", "0.5,abc"), []string{"--levels", `"abc"`}},
		{"predict/unknown target", predict(dec, small, "--target", "zz"), []string{"small.csv", `"zz"`, "--target"}},
		{"predict/level above 1", predict(dec, small, "--levels", "1.5"), []string{"--levels", `"1.5"`}},
		{"predict/duplicate level", predict(dec, small, "--levels", "0.5,0.50"), []string{"--levels", "twice"}},
		{"predict/no out flag", []string{"predict", "--model", dec, "--data", small}, []string{"--out"}},
		{"predict/out is a directory", []string{"predict", "--model", dec, "--data", small, "--out", "OUT"}, []string{"--out", "directory"}},
		{"predict/ragged", predict(dec, fx+"ragged.csv"), []string{"ragged.csv", "line 4"}},
		{"predict/header only", predict(dec, fx+"header_only.csv"), []string{"header_only.csv"}},
		{"predict/split out of range", predict(dec, small, "--test-mask", fx+"mask12.csv", "--split", "5"), []string{"--split", "mask12.csv"}},

		// sample flags and data.
		{"sample/no n", sample(dec, small), []string{"--n"}},
		{"sample/zero n", sample(dec, small, "--n", "0"), []string{"--n", "0"}},
		{"sample/zero temperature", sample(dec, small, "--n", "2", "--temperature", "0"), []string{"--temperature"}},
		{"sample/negative temperature", sample(dec, small, "--n", "2", "--temperature", "-1"), []string{"--temperature", "> 0", "-1"}},
		{"sample/infinite temperature", sample(dec, small, "--n", "2", "--temperature", "+Inf"), []string{"--temperature", "> 0", "+Inf"}},
		{"sample/negative top-k", sample(dec, small, "--n", "2", "--top-k", "-1"), []string{"--top-k must be >= 0 (0: every token), have -1"}},
		{"sample/top-p above 1", sample(dec, small, "--n", "2", "--top-p", "1.5"), []string{"--top-p must be in (0, 1], have 1.5"}},
		{"sample/zero top-p", sample(dec, small, "--n", "2", "--top-p", "0"), []string{"--top-p must be > 0"}},
		{"sample/NaN top-p", sample(dec, small, "--n", "2", "--top-p", "NaN"), []string{"--top-p must be in (0, 1], have NaN"}},
		{"sample/top-k for pointwise", sample(point, small, "--n", "2", "--top-k", "3"), []string{"--top-k", "pointwise"}},
		{"sample/empty data", sample(dec, fx+"empty.csv", "--n", "2"), []string{"empty.csv"}},
		{"sample/Inf feature", sample(dec, fx+"inf_feature.csv", "--n", "2"), []string{"inf_feature.csv", "line 3, column 2"}},
		{"sample/non-numeric feature", sample(dec, fx+"nonnumeric.csv", "--n", "2"), []string{"nonnumeric.csv", "line 3, column 2", `"abc"`}},
		{"sample/mask row count", sample(dec, small, "--n", "2", "--test-mask", fx+"mask5.csv", "--split", "0"), []string{"mask5.csv"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.Replace(a, "OUT", out, 1)
			}
			code, stdOut, errs := cli(t, args...)
			if code != 2 {
				t.Errorf("exit status %d, want 2", code)
			}
			if stdOut != "" {
				t.Errorf("stdout %q, want nothing", stdOut)
			}
			if strings.Count(errs, "\n") != 1 || !strings.HasSuffix(errs, "\n") {
				t.Errorf("stderr is not one line: %q", errs)
			}
			if !strings.HasPrefix(errs, "decoreg "+args[0]+": ") {
				t.Errorf("stderr does not start with %q: %q", "decoreg "+args[0]+": ", errs)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q does not contain %q", errs, w)
				}
			}
			if strings.Contains(errs, "panic") || strings.Contains(errs, "goroutine") {
				t.Errorf("stderr shows a panic: %q", errs)
			}
			ents, err := os.ReadDir(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ents {
				t.Errorf("left behind in the output directory: %s", e.Name())
			}
		})
	}
}

// TestBadInputKeepsOldOutput: a failing predict leaves an existing output
// file as it was.
func TestBadInputKeepsOldOutput(t *testing.T) {
	dec := sharedModel(t, "decoder")
	dir := t.TempDir()
	out := filepath.Join(dir, "p.csv")
	if err := os.WriteFile(out, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, _ := cli(t, "predict", "--model", dec, "--data", "testdata/cli/ragged.csv", "--out", out)
	if code != 2 {
		t.Errorf("exit status %d, want 2", code)
	}
	b, err := os.ReadFile(out)
	if err != nil || string(b) != "old\n" {
		t.Errorf("the old output file now holds %q (%v)", b, err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("%d files in the output directory, want 1", len(ents))
	}
}

// TestForeignFormats: a file separated by semicolons, tabs or bars, and a
// UTF-16 file without a byte order mark, are named as such (they were "no
// feature columns are left besides the target \"x;c;y\"" and column names
// with NUL bytes); a NaN spelled "nan" says how to mark it missing.
func TestForeignFormats(t *testing.T) {
	dir := t.TempDir()
	utf16 := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			b.WriteByte(byte(r))
			b.WriteByte(0)
		}
		return b.String()
	}
	for _, c := range []struct {
		body string
		want []string
	}{
		{"x;c;y\n1;2;3\n4;5;6\n", []string{"line 1", `holding ";"`, "separated by it", "give --sep ';'"}},
		{"x\tc\ty\n1\t2\t3\n", []string{`holding "\t"`, "give --sep tab"}},
		{"x|y\n1|2\n", []string{`holding "|"`, "give --sep '|'"}},
		{utf16("x,y\n1,2\n3,4\n"), []string{"not a CSV table", "UTF-16 text without a byte order mark", "iconv -f UTF-16LE"}}, // the whole file is (it was a cell's error)
		{"x,y\n1,2\nnan,3\n4,5\n", []string{"line 3, column 1", `"nan"`, "missing-value markers", "--na"}},
		{"\x1f\x8b", []string{"starts as gzip data, but its gzip header is truncated or corrupt"}},
	} {
		p := filepath.Join(dir, "f.csv")
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := cli(t, "train", "--data", p, "--out", filepath.Join(dir, "m.model"), "--epochs", "1", "--quiet")
		if code != 2 {
			t.Errorf("%q: exit %d, %q", c.body, code, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%q: want %q in %q", c.body, w, errs)
			}
		}
	}
}

// TestTrainErrorLines: an error about a training row names the line the
// row starts on, past blank lines and quoted line breaks (it named the
// row's index + 2: line 5 for line 7), also with a test mask.
func TestTrainErrorLines(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(p, []byte("x,y\n1,2\n\n2,3\n\"multi\nline\",4\n3,99\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := cli(t, "train", "--data", p, "--target-range", "0,5", "--out", filepath.Join(dir, "m.model"), "--epochs", "1", "--quiet")
	if code != 2 || !strings.Contains(errs, "d.csv: line 7: the target 99 is outside the fixed range [0, 5] (--target-range)") {
		t.Errorf("exit %d, %q", code, errs)
	}
	mask := filepath.Join(dir, "mask.csv")
	if err := os.WriteFile(mask, []byte("split0\n1\n0\n0\n0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = cli(t, "train", "--data", p, "--target-range", "0,5", "--test-mask", mask, "--split", "0", "--out", filepath.Join(dir, "m.model"), "--epochs", "1", "--quiet")
	if code != 2 || !strings.Contains(errs, "d.csv: line 7: the target 99 is outside") {
		t.Errorf("with a mask: exit %d, %q", code, errs)
	}
}

// TestEmptyValuesAndOddData (helper-146): a settings flag given an empty
// value is refused (--head "" trained a decoder and said "head": ""), as
// is an empty --test-mask (read as none); --data naming a directory says
// so with the flag; gzip data inside gzip data is named as such (it was
// "UTF-16 text without a byte order mark").
func TestEmptyValuesAndOddData(t *testing.T) {
	dir := t.TempDir()
	data := writeSynth(t, dir, "d.csv", 40, 1)
	out := filepath.Join(dir, "m.model")
	for _, fl := range []string{"head", "vocab", "encoder", "input-transform", "target-range", "stop-by", "calibrate-by", "ensemble-from", "test-mask"} {
		wantUsage(t, []string{"train", "--data", data, "--out", out, "--" + fl, " "}, "--"+fl+" is empty; leave it out for ")
	}
	model := sharedModel(t, "mdn")
	for _, cmd := range [][]string{{"eval"}, {"predict", "--out", "-"}, {"sample", "--n", "1", "--out", "-"}} {
		wantUsage(t, append([]string{cmd[0], "--model", model, "--data", data, "--test-mask", ""}, cmd[1:]...), "--test-mask is empty; leave it out for none")
		wantUsage(t, append([]string{cmd[0], "--model", model, "--data", dir}, cmd[1:]...), "--data "+dir+": a directory, not a file")
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	inner := gzip.NewWriter(zw)
	inner.Write([]byte(mustRead(t, data)))
	inner.Close()
	zw.Close()
	gg := filepath.Join(dir, "gg.csv.gz")
	os.WriteFile(gg, gz.Bytes(), 0o644)
	wantUsage(t, []string{"train", "--data", gg, "--out", out}, "not a CSV table: it is gzip data inside gzip data: decompress it once first")
}

// TestSplitOutOfRange: --split too large for an int says so, as the int
// flags do (it said "not an integer"; helper-146).
func TestSplitOutOfRange(t *testing.T) {
	model := sharedModel(t, "mdn")
	data := writeSynth(t, t.TempDir(), "d.csv", 20, 1)
	wantUsage(t, []string{"predict", "--model", model, "--data", data, "--out", "-", "--test-mask", data, "--split", "99999999999999999999"}, `invalid value "99999999999999999999" for flag -split: value out of range`)
	wantUsage(t, []string{"predict", "--model", model, "--data", data, "--out", "-", "--test-mask", data, "--split", "x"}, `invalid value "x" for flag -split: not an integer`)
}
