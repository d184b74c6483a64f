package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"decoreg"
)

var cmdPredict = &Command{
	Name:      "predict",
	UsageLine: "predict --model MODEL --data FILE --out OUT.csv [--levels Q,...] [--target NAME] [--test-mask FILE --split K]",
	Short:     "write point estimates, quantiles and log-densities to CSV",
	Long: `Predict writes, for every row of a CSV file, a summary of the model's
predictive distribution p(y|x) to a CSV file with the header

	row,mean,median,mode,` + strings.Join(quantileColumns(decoreg.DefaultLevels), ",") + `[,logpdf]

row is the index of the input row among the data rows of FILE (0 is the row
after the header); mean, median and mode are point estimates and qNN the
quantiles at the levels of --levels (default ` + formatLevels(decoreg.DefaultLevels) + `,
decoreg.DefaultLevels). A column is named after its level in percent,
written exactly: 0.05 is q05, 0.025 is q2.5, 0.1234567891 is q12.34567891
and 1e-300 is q1e-298, so that distinct levels have distinct names; -0 is
0, and a level given twice is an error. Levels 0 and 1 are the ends of
the support: the training range for a normalized decoder or a Riemann
head; for an unnormalized decoder the outer edges of the cells it gives
mass to (wider than the range; the tokenization's ends with --unbounded);
-Inf and +Inf for the MDN head (a Gaussian mixture); the pointwise head
writes its point at every level, and a pointwise ensemble (--ensemble N)
the quantiles of its members' points, each a point mass of weight 1/N
(the median and mode among them).
logpdf, the log density of the row's target under p(y|x) in the original
units of y, is written when FILE has the target column, filled in on every
row, and the head has a density (not for pointwise). The target column is
optional: without it, or with blank cells in it (unlabelled rows; warned
about where others have a target), or with text in it or two columns of
its name (both warned about), predict writes no logpdf; but a column named by --target must be in FILE. Values
are written in the shortest form that reads back exactly; a target
outside the support has logpdf -Inf.

Input columns are matched as in 'decoreg eval': by the model's column names
when it has them (other columns ignored), else by position. A model trained
by 'decoreg train' reads text (categorical) columns and missing cells
through its saved schema (see 'decoreg help train'); levels not seen in
training, missing cells in columns that had none in training, and cells
far beyond their column's training range (by more than its width: the
model extrapolates there) are counted in a warning on standard error. With
--test-mask FILE --split K only the test rows of split K are predicted.

` + keepNote + `

` + outDoc + `

Examples:

	decoreg predict --model m.model --data new.csv --out pred.csv
	decoreg predict --model m.model --data test.csv --levels 0.025,0.5,0.975 --out -`,
	Run: runPredict,
}

// predictF holds predict's flags.
var predictF struct {
	model, data, out, levels, target string
	split                            splitFlags
	dialect                          dialectFlags
	keep                             keepFlag
}

func init() {
	fs := &cmdPredict.Flag
	fs.StringVar(&predictF.model, "model", "", "the model `MODEL` written by 'decoreg train' (required)")
	fs.StringVar(&predictF.data, "data", "", "inputs: CSV `FILE` with a header, optionally gzipped (a pipe or FIFO is read once), or - for standard input (required)")
	fs.StringVar(&predictF.out, "out", "", "write the predictions to `OUT.csv`, or - for standard output (required); "+outHelp)
	fs.StringVar(&predictF.levels, "levels", formatLevels(decoreg.DefaultLevels), "comma-separated quantile `LEVELS` in [0, 1]")
	fs.StringVar(&predictF.target, "target", "", "the target column's `NAME` for logpdf (default: the model's target name)")
	predictF.split.register(fs, "predict the test rows of --split")
	predictF.dialect.register(fs)
	predictF.keep.register(fs)
}

// quantileColumns returns the column names of quantile levels.
func quantileColumns(levels []float64) []string {
	names := make([]string, len(levels))
	for i, q := range levels {
		names[i] = levelName(q)
	}
	return names
}

// formatLevels writes quantile levels as --levels takes them.
func formatLevels(levels []float64) string {
	s := make([]string, len(levels))
	for i, q := range levels {
		s[i] = fmtFloat(q)
	}
	return strings.Join(s, ",")
}

// parseLevels parses a comma-separated list of quantile levels in [0, 1]
// and returns them with their column names. -0 is 0; a level given twice
// (the same number, however written) is an error.
func parseLevels(s string) ([]float64, []string, error) {
	var levels []float64
	var names []string
	seen := map[float64]string{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		q, err := strconv.ParseFloat(f, 64)
		if err != nil || !(q >= 0 && q <= 1) {
			return nil, nil, fmt.Errorf("level %s is not a number in [0, 1]", strconv.Quote(f))
		}
		if b, ok := new(big.Float).SetString(f); q == 0 && ok && b.Sign() != 0 {
			return nil, nil, fmt.Errorf("level %s is below the smallest float64 (about 4.9e-324) and would be read as 0; give 0 for the lower end", strconv.Quote(f))
		}
		if q == 1 {
			// Compared exactly, as a fraction: q == 1 puts f within 2^-53
			// of 1, so that its exponent is no longer than its digits and
			// the fraction stays small (unlike 1e-99999999's).
			if r, ok := new(big.Rat).SetString(f); ok {
				switch r.Cmp(big.NewRat(1, 1)) {
				case -1:
					return nil, nil, fmt.Errorf("level %s is above the largest float64 below 1 (about 0.9999999999999999) and would be read as 1; give 1 for the upper end", strconv.Quote(f))
				case 1:
					return nil, nil, fmt.Errorf("level %s is not a number in [0, 1]", strconv.Quote(f))
				}
			}
		}
		q += 0 // -0 is 0
		if prev, ok := seen[q]; ok {
			if prev == f {
				return nil, nil, fmt.Errorf("level %s appears twice", strconv.Quote(f))
			}
			return nil, nil, fmt.Errorf("levels %s and %s are the same number: a level appears twice", strconv.Quote(prev), strconv.Quote(f))
		}
		seen[q] = f
		levels = append(levels, q)
		names = append(names, levelName(q))
	}
	return levels, names, nil
}

// levelName is the column name of quantile level q: "q" and the
// percentage, written exactly (the shortest decimal that reads back as q,
// shifted by two places, so that distinct levels have distinct names),
// two digits at least for whole percentages (q05, q50, q2.5, q99.9,
// q12.34567891). Levels below 1e-6 percent are written with an exponent
// (q1e-298 for 1e-300).
func levelName(q float64) string {
	if q == 0 {
		return "q00"
	}
	// q = 0.D × 10^(e+1) with the shortest digits D, so that the percentage
	// is D with its first digit at the place 10^(e+2).
	m, es, _ := strings.Cut(strconv.FormatFloat(q, 'e', -1, 64), "e")
	e, _ := strconv.Atoi(es)
	digits := strings.Replace(m, ".", "", 1)
	p := e + 2 // the place of the percentage's first digit
	var pct string
	switch {
	case p < -7:
		pct = m + "e" + strconv.Itoa(p)
	case p < 0:
		pct = "0." + strings.Repeat("0", -p-1) + digits
	default:
		if len(digits) < p+1 {
			digits += strings.Repeat("0", p+1-len(digits))
		}
		pct = digits[:p+1]
		if frac := digits[p+1:]; frac != "" {
			pct += "." + frac
		} else if p == 0 {
			pct = "0" + pct // two digits at least: q05
		}
	}
	return "q" + pct
}

func runPredict(cmd *Command, args []string) error {
	const name = "predict"
	f := &predictF
	modelPath, dataPath, out, levelsFlag, target, split := f.model, f.data, f.out, f.levels, strings.TrimSpace(f.target), &f.split
	if err := noArgs(name, args); err != nil {
		return err
	}
	if err := noEmptyTarget(name, &cmd.Flag); err != nil {
		return err
	}
	if err := noEmptyValues(name, &cmd.Flag, "test-mask"); err != nil {
		return err
	}
	if err := required(name, &cmd.Flag, "model", "data", "out"); err != nil {
		return err
	}
	levels, levelNames, err := parseLevels(levelsFlag)
	if err != nil {
		return inputf(name, "--levels: %v", err)
	}
	dl, err := f.dialect.dialect(name)
	if err != nil {
		return err
	}
	if err := split.check(name, dataPath); err != nil {
		return err
	}
	if err := checkOutPath(name, "out", out, true); err != nil {
		return err
	}
	if err := notAnInput(name, "out", out, [2]string{"model", modelPath}, [2]string{"data", dataPath}, [2]string{"test-mask", split.mask}); err != nil {
		return err
	}
	m, err := loadModel(name, modelPath)
	if err != nil {
		return err
	}
	if dataPath, err = dataFile(name, dataPath); err != nil {
		return err
	}
	// The output's columns (logpdf's name is taken where it is not written).
	taken := append([]string{"row", "mean", "median", "mode", "logpdf"}, levelNames...)
	keepNames, err := checkKeep(name, &cmd.Flag, f.keep.list, dataPath, dl, func(s string) bool { return slices.Contains(taken, s) })
	if err != nil {
		return err
	}
	d, warn, err := readForModelRows(name, dataPath, dl, m, target, targetOptional)
	if err != nil {
		return err
	}
	idx, err := split.rows(name, d.Dataset, true)
	if err != nil {
		return err
	}
	keep, err := readKeep(name, keepNames, dataPath, dl, d.Lines)
	if err != nil {
		return err
	}
	if d, err = subset(name, d, idx); err != nil {
		return err
	}
	d = unlabelledTargets(name, d)
	warn(idx)

	logpdf := d.Y != nil && m.Config().Head != decoreg.HeadPointwise
	opts := decoreg.PredictOptions{Outputs: decoreg.OutMean | decoreg.OutMedian | decoreg.OutMode | decoreg.OutQuantiles, Levels: levels}
	if logpdf {
		// With the other outputs, a chunk of rows at a time (keeping
		// every row's distribution for it took 10 GB for 200,000 rows
		// of a decoder).
		opts.Outputs |= decoreg.OutLogPDF
		opts.Y = d.Y
	}
	// The predictions are computed before anything is written: an
	// interrupt stops the command at once (interruptible).
	var p *decoreg.Prediction
	if err := interruptible(name, out, func(ctx context.Context) error {
		var err error
		if p, err = d.predict(ctx, m, opts); err != nil {
			return dataErr(name, d.Dataset, idx, err)
		}
		return nil
	}); err != nil {
		return err
	}
	return writeOutput(name, "out", out, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		bw.WriteString("row")
		bw.Write(keep.header(nil))
		bw.WriteString(",mean,median,mode")
		for _, n := range levelNames {
			bw.WriteString("," + n)
		}
		if logpdf {
			bw.WriteString(",logpdf")
		}
		bw.WriteString("\n")
		for i := 0; i < d.Rows; i++ {
			bw.WriteString(strconv.Itoa(idx[i]))
			bw.Write(keep.row(nil, idx[i]))
			for _, v := range []float64{p.Mean[i], p.Median[i], p.Mode[i]} {
				bw.WriteString("," + fmtFloat(v))
			}
			for j := range levels {
				bw.WriteString("," + fmtFloat(p.Quantiles[j][i]))
			}
			if logpdf {
				bw.WriteString("," + fmtFloat(p.LogPDF[i]))
			}
			bw.WriteString("\n")
		}
		return bw.Flush()
	})
}

// distRows is how many rows' distributions sample holds at once: a token
// head's distribution caches its tree expansion (tens of KB), a Riemann
// head's its bins, so that holding every row's grew with the file (9 GB
// for a million rows of a Riemann head).
const distRows = 512

// shiftRow returns err with a *decoreg.DataError's row moved by off (the
// error of the chunk of rows from row off).
func shiftRow(err error, off int) error {
	var de *decoreg.DataError
	if off == 0 || !errors.As(err, &de) || de.Row < 0 {
		return err
	}
	c := *de
	c.Row += off
	return &c
}
