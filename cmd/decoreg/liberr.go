package main

// The library's errors in the command line's terms: a field of
// decoreg.Config or dist.SampleOptions becomes the flag that sets it, and a
// row and feature index become the file's line and column name. The
// library validates; the command line only translates.

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"decoreg"
	"decoreg/data"
)

// flagFields maps the fields of decoreg.Config and dist.SampleOptions to
// the flags that set them: the one place where the library's names meet
// the command line's.
//
// zeroDefault marks the fields where the library reads 0 as "the default".
// The flags show their own defaults, so a 0 given on the command line is
// refused (refuseZero) instead of silently becoming the default. --val-frac
// is not one of them: its 0 means "no validation split", which valFrac
// translates into the library's negative ValFrac.
var flagFields = []struct {
	field, flag string
	zeroDefault bool
}{
	// decoreg.Config
	{"Head", "head", false},
	{"Vocab", "vocab", false},
	{"RawTarget", "raw-target", false},
	{"UnmaskedLoss", "unmasked-loss", false},
	{"Unbounded", "unbounded", false},
	{"AuxMSE", "aux-mse", false},
	{"SoftTargets", "soft-targets", false},
	{"EncLayers", "enc-layers", true},
	{"EncWidth", "enc-width", true},
	{"Encoder", "encoder", false},
	{"PLRFrequencies", "plr-frequencies", true},
	{"PLRDim", "plr-dim", true},
	{"PLRSigma", "plr-sigma", true},
	{"Dropout", "dropout", false},
	{"Pretrain", "pretrain", false},
	{"DecLayers", "dec-layers", true},
	{"DecWidth", "dec-width", true},
	{"DecHeads", "dec-heads", true},
	{"Bins", "bins", true},
	{"Components", "components", true},
	{"Sigmoid", "sigmoid", false},
	{"LR", "lr", true},
	{"WeightDecay", "weight-decay", false},
	{"AdamW", "adamw", false},
	{"EMA", "ema", false},
	{"BatchSize", "batch", true},
	{"MaxEpochs", "epochs", true},
	{"Patience", "patience", true},
	{"LRDrops", "lr-drops", false},
	{"LRDropFactor", "lr-drop-factor", true},
	{"StopBy", "stop-by", false},
	{"ValFrac", "val-frac", false},
	{"TargetMin", "target-range", false},
	{"TargetMax", "target-range", false},
	{"Seed", "seed", false},
	{"Threads", "threads", false},
	{"Calibrate", "calibrate", false},
	{"CalibrateBy", "calibrate-by", false},
	{"InputTransform", "input-transform", false},
	{"PLEBins", "ple-bins", true},
	{"Ensemble", "ensemble", false},
	// decoreg.TuneOptions (the others are checked before the library's)
	{"Resolution", "tune-resolution", false},
	// dist.SampleOptions
	{"Temperature", "temperature", true},
	{"TopK", "top-k", false},
	{"TopP", "top-p", true},
	{"Centres", "centres", false},
}

// flagOf returns the flag that sets the library field called field, or "".
func flagOf(field string) string {
	for _, f := range flagFields {
		if f.field == field {
			return f.flag
		}
	}
	return ""
}

// refuseZero refuses a 0 given for a flag of fs whose field the library
// reads as "the default" (see flagFields).
func refuseZero(name string, fs *flag.FlagSet) error {
	for _, ff := range flagFields {
		f := fs.Lookup(ff.flag)
		if !ff.zeroDefault || f == nil || !isSet(fs, ff.flag) {
			continue
		}
		if v, err := strconv.ParseFloat(f.Value.String(), 64); err == nil && v == 0 {
			return inputf(name, "--%s must be > 0, have %s", ff.flag, f.Value)
		}
	}
	return nil
}

// valFrac translates --val-frac into decoreg.Config.ValFrac. The flag's 0
// means no validation split, which the library spells as a negative
// fraction (its 0 means the default, 0.1); a negative flag is refused.
// Fractions >= 1 are left to the library to refuse.
func valFrac(name string, v float64) (float64, error) {
	switch {
	case !(v >= 0):
		return 0, inputf(name, "--val-frac must be in [0, 1) (0: no validation split), have %v", v)
	case v == 0:
		return -1, nil
	}
	return v, nil
}

// configErr reports err, an error of decoreg.Config.Validate or of
// decoreg.Fit, as a problem with a flag when it is a *decoreg.ConfigError
// (ok true); ok is false for other errors.
func configErr(name string, err error) (_ error, ok bool) {
	var ce *decoreg.ConfigError
	if !errors.As(err, &ce) {
		return nil, false
	}
	if fl := flagOf(ce.Field); fl != "" {
		return inputf(name, "--%s: %v", fl, ce.Err), true
	}
	return inputf(name, "%v", err), true // a field no flag sets
}

// dataErr reports err, an error of the library about the rows of d, as a
// usage error about the file they came from. d holds the data rows rows
// of d.Path (d.Path's rows in order when rows is nil), as selected by
// --test-mask. A *decoreg.DataError becomes
//
//	CMD: FILE: line L, column "NAME": MESSAGE
//
// with the row's line in the file (d.Lines[Row], where the row starts;
// for a data set without them, line rows[Row]+2, rows mapping d's rows to
// the file's data rows, nil for the same) and the feature's name, each left out when the library gives -1;
// other errors become "CMD: FILE: MESSAGE".
func dataErr(name string, d *data.Dataset, rows []int, err error) error {
	var de *decoreg.DataError
	if !errors.As(err, &de) {
		return inputf(name, "%s: %v", d.Path, err)
	}
	where := ""
	if r := de.Row; r >= 0 && r < d.Rows {
		switch {
		case len(d.Lines) == d.Rows:
			// d is the data set the library was given, its rows' lines
			// kept through the subsets (past blank lines and quoted
			// line breaks).
			where = fmt.Sprintf("line %d", d.Lines[r])
		case rows != nil && r < len(rows):
			where = fmt.Sprintf("line %d", rows[r]+2) // as if read from a file without blank lines
		default:
			where = fmt.Sprintf("line %d", r+2)
		}
	}
	if c := de.Column; c >= 0 && c < len(d.Names) {
		if where != "" {
			where += ", "
		}
		where += fmt.Sprintf("column %s", data.QuoteName(d.Names[c]))
	}
	// The library's fields, named by their flags.
	msg := strings.ReplaceAll(de.Err.Error(), "(Config.TargetMin, TargetMax)", "(--target-range)")
	if where == "" {
		return inputf(name, "%s: %s", d.Path, msg)
	}
	return inputf(name, "%s: %s: %s", d.Path, where, msg)
}
