package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"decoreg"
	"decoreg/data"
	"decoreg/internal/jsonfloat"
)

var cmdEval = &Command{
	Name:      "eval",
	UsageLine: "eval --model MODEL --data FILE [--test-mask FILE --split K] [--point mean|median|mode] [--target NAME] [--plot FILE.png]",
	Short:     "evaluate a model on labelled data (one JSON object)",
	Long: `Eval scores a trained model on the rows of a CSV file and prints one JSON
object on standard output:

	n            the number of rows evaluated
	skipped_rows rows left out because their target is missing (present
	             when there are any; models trained by 'decoreg train')
	nll          mean negative log-likelihood per unit of the original y
	nll_u        the same per unit of u = (y - y_min)/(y_max - y_min), with
	             the training range [y_min, y_max]: nll = nll_u + log(y_max - y_min)
	nll_token    mean cross-entropy per token in nats, -log P(token sequence)/K
	             (Riemann: -log P(bin)); a probability, not a density, so it
	             depends on the tokenization; null for mdn and pointwise, for
	             an ensemble whose members' tokenizations (or bins) differ, and
	             after --calibrate-by isotonic (a map of the CDF, no longer a
	             distribution over tokens)
	mse          mean squared error of the point estimate, in units of y
	             squared: "+Inf" where that is beyond float64's range
	             (errors from about 1e154 on), and imprecise or 0 where it
	             is below its normal range (from about 1e-154 down);
	             rel_mse is computed at any scale
	rel_mse      mse divided by the variance of the targets; null when the
	             targets do not vary (one row, or all equal)
	kendall_tau  Kendall's tau-b between point estimates and targets; null
	             when either does not vary (every row predicted the same,
	             e.g. a constant feature or an untrained model's mode)
	clipped      targets outside the training range (clipped to it for the NLL,
	             with a warning: nll is then not the mean of predict's -logpdf,
	             which it is otherwise up to float32 rounding, differences of
	             about 1e-8: the decoder and Riemann heads score the targets
	             through the network's float32 log-softmax, predict in float64)
	point        the point estimate: mean, median or mode
	crps         mean continuous ranked probability score of p(y|x), in units
	             of y (lower is better; for a point forecast it would be the
	             mean absolute error): exact for riemann and mdn, and for
	             decoders over the cells of the mean's tree expansion; after
	             --calibrate-by isotonic too (the cells cut at the map's
	             knots), but by quadrature for the mdn (crps_bound)
	crps_bound   a bound on crps's error (0 where exact; "+Inf" where crps is
	             estimated from draws: hamming and repeat tokenizations)
	coverage     for the central predictive intervals of mass 0.5, 0.8, 0.9
	             and 0.95 (from the (1-c)/2 to the (1+c)/2 quantile), the
	             fraction of targets inside: {"0.5": ..., "0.8": ..., ...};
	             calibrated predictions cover about c
	interval_width  the same intervals' mean width, in units of y
	pit_ece      PIT calibration error: with p_i = F_i(y_i), the predictive
	             CDF at the target, the mean over q = 0.05, 0.10, ..., 0.95 of
	             |fraction of rows with p_i <= q - q|; 0 when calibrated

nll, nll_u, crps, crps_bound, coverage, interval_width and pit_ece are null
for the pointwise head, which has no distribution beyond its point.

For a model whose 'train --calibrate' chose a temperature other than 1, a
map of the CDF (--calibrate-by isotonic) or temperatures per token depth
(--calibrate-by depth) the scores are those of the calibrated
distributions, and more fields report the calibration and the scores
without it:

	temperature   the temperature of 'train --calibrate'
	depth_temperatures  in its place after --calibrate-by depth: the
	              temperature of each token depth
	calibrate_by  its objective, nll, pit, isotonic or depth
	              (--calibrate-by; absent for models written before the pit
	              objective, which used nll)
	uncalibrated  {nll, nll_u, mse, rel_mse, kendall_tau, crps, crps_bound,
	              coverage, interval_width, pit_ece} at temperature 1
	              without a map (the point, and so mse and tau, moves with
	              the temperature)

--plot FILE.png draws the calibration: the histogram of the PIT values
(flat when calibrated) and the coverage of central intervals of every mass
from 5% to 95% against the mass (on the diagonal when calibrated).

FILE is CSV with a header (optionally gzipped). When the model recorded the
names of its columns (models trained by 'decoreg train' do), columns are
matched by name, other columns are ignored (even two of the same name), a
feature the file lacks is an error, and the target is the column of the
model's target name unless --target names another. Such a model reads
text (categorical) columns and missing cells as 'decoreg help train'
describes, with the model's --na
markers: levels not seen in training and missing cells in columns that had
none are encoded without their own feature and counted in a warning on
standard error, as are the cells of a numeric column far beyond its
training range (by more than its width: the model extrapolates there), and rows whose target is missing are skipped (and
counted). A model trained through the library (decoreg.Fit) has no
names: the file must hold its features in the model's order and the target
last (or --target), and a warning on standard error says that columns are
matched by position, which cannot catch reordered columns.

With --test-mask FILE --split K only the test rows of split K are evaluated.

The default --point is median for unnormalized decoder tokenizations (whose
means are swayed by rare huge values) and mean otherwise.

Examples:

	decoreg eval --model m.model --data test.csv
	decoreg eval --model concrete0.model --data uci/concrete/data.csv.gz \
		--test-mask uci/concrete/test_mask.csv.gz --split 0
	decoreg eval --model m.model --data test.csv --point mode
	decoreg eval --model m.model --data test.csv --plot calibration.png`,
	Run: runEval,
}

// evalF holds eval's flags.
var evalF struct {
	model, data, point, target, plot string
	split                            splitFlags
	dialect                          dialectFlags
}

func init() {
	fs := &cmdEval.Flag
	fs.StringVar(&evalF.model, "model", "", "the model `MODEL` written by 'decoreg train' (required)")
	fs.StringVar(&evalF.data, "data", "", "labelled data: CSV `FILE` with a header, optionally gzipped (a pipe or FIFO is read once), or - for standard input (required)")
	evalF.split.register(fs, "evaluate the test rows of --split")
	evalF.dialect.register(fs)
	fs.StringVar(&evalF.point, "point", "", "point estimate for mse, rel_mse and kendall_tau: mean, median or mode (default: median for unnormalized decoders, else mean)")
	fs.StringVar(&evalF.target, "target", "", "the target column's `NAME` (default: the model's target name, or the last column)")
	fs.StringVar(&evalF.plot, "plot", "", "draw the PIT histogram and the coverage curve to `FILE.png` (a PNG: another extension is refused; not standard output, which carries the JSON); a regular file is replaced atomically, a link is written through")
}

func runEval(cmd *Command, args []string) error {
	const name = "eval"
	f := &evalF
	modelPath, dataPath, point, target, plotPath, split := f.model, f.data, f.point, strings.TrimSpace(f.target), f.plot, &f.split
	if err := noArgs(name, args); err != nil {
		return err
	}
	if err := noEmptyTarget(name, &cmd.Flag); err != nil {
		return err
	}
	if err := noEmptyValues(name, &cmd.Flag, "test-mask"); err != nil {
		return err
	}
	if err := required(name, &cmd.Flag, "model", "data"); err != nil {
		return err
	}
	switch point {
	case "", "mean", "median", "mode":
		if point == "" && isSet(&cmd.Flag, "point") {
			return inputf(name, "--point is empty: want mean, median or mode (leave the flag out for the default)")
		}
	default:
		return inputf(name, "--point %s: want mean, median or mode", strconv.Quote(point))
	}
	dl, err := f.dialect.dialect(name)
	if err != nil {
		return err
	}
	if err := split.check(name, dataPath); err != nil {
		return err
	}
	if err := notAnInput(name, "", "-", [2]string{"model", modelPath}, [2]string{"data", dataPath}, [2]string{"test-mask", split.mask}); err != nil {
		return err // its JSON, appended to an input by a shell's >>
	}
	if plotPath == "" && isSet(&cmd.Flag, "plot") {
		return inputf(name, "--plot is empty: give a FILE.png (leave the flag out for no figure)")
	}
	if plotPath != "" {
		if isStdout(plotPath) {
			return inputf(name, "--plot %s: standard output carries the JSON; give a file", plotPath)
		}
		if err := checkOutPath(name, "plot", plotPath, false); err != nil {
			return err
		}
		if err := notAnInput(name, "plot", plotPath, [2]string{"model", modelPath}, [2]string{"data", dataPath}, [2]string{"test-mask", split.mask}); err != nil {
			return err
		}
		// The figure is a PNG: a file named otherwise (calib.svg) would
		// hold what its name does not say. Devices and pipes have no name
		// to mislead.
		// A symbolic link is written through: the name of the file at the
		// end of its chain counts, existing or not.
		if final := linkEnd(plotPath); !strings.EqualFold(filepath.Ext(final), ".png") {
			if fi, err := os.Stat(plotPath); err != nil || fi.Mode().IsRegular() {
				what := ""
				if final != plotPath {
					what = fmt.Sprintf(" (a link to %s)", final)
				}
				return inputf(name, "--plot %s%s: the figure is a PNG; name the file with .png", plotPath, what)
			}
		}
	}
	m, err := loadModel(name, modelPath)
	if err != nil {
		return err
	}
	if plotPath != "" && m.Config().Head == decoreg.HeadPointwise {
		return inputf(name, "--plot: %s is a pointwise model, which has no distribution to draw", modelPath)
	}
	if dataPath, err = dataFile(name, dataPath); err != nil {
		return err
	}
	d, warn, err := readForModelRows(name, dataPath, dl, m, target, targetRequired)
	if err != nil {
		return err
	}
	idx, err := split.rows(name, d.Dataset, true)
	if err != nil {
		return err
	}
	if d, err = subset(name, d, idx); err != nil {
		return err
	}
	d, idx, skipped, err := labelled(name, d, idx)
	if err != nil {
		return err
	}
	warn(idx) // the rows scored
	if skipped > 0 {
		fmt.Fprintf(errOut, "decoreg %s: %s: skipped %d row(s) whose target is missing\n", name, nameSpools(d.Path), skipped)
	}
	warnDiscreteTarget(name, d.Dataset, m)
	// The scores are computed before anything is written: an interrupt
	// stops the command at once (interruptible).
	var c *decoreg.Calibration
	var be, bc []byte
	extra := ""
	if err := interruptible(name, "", func(ctx context.Context) error {
		e, err := d.evaluate(ctx, m, point)
		if err != nil {
			return dataErr(name, d.Dataset, idx, err)
		}
		e.Skipped = skipped
		warnClipped(name, d.Dataset, m, e.Clipped)
		c, err = d.calibration(ctx, m)
		if err != nil {
			return dataErr(name, d.Dataset, idx, err)
		}
		// Eval and Calibration marshal NaN as null and infinities as "+Inf" /
		// "-Inf"; one object holds both (n once).
		be, err = json.Marshal(e)
		if err != nil {
			return failf(name, "%v", err)
		}
		c.N = 0
		bc, err = json.Marshal(c)
		if err != nil {
			return failf(name, "%v", err)
		}
		if t := m.Temperature(); m.Calibrated() {
			// Calibrated by train --calibrate: the same scores without it.
			u, err := m.WithTemperature(1)
			if err != nil {
				return failf(name, "%v", err)
			}
			eu, err := d.evaluate(ctx, u, point)
			if err != nil {
				return dataErr(name, d.Dataset, idx, err)
			}
			cu, err := d.calibration(ctx, u)
			if err != nil {
				return dataErr(name, d.Dataset, idx, err)
			}
			cu.N = 0
			// As Eval writes them: NaN as null, infinities as "+Inf" / "-Inf".
			type f = jsonfloat.Float
			bn, err := json.Marshal(struct {
				NLL        f `json:"nll"`
				NLLU       f `json:"nll_u"`
				MSE        f `json:"mse"`
				RelMSE     f `json:"rel_mse"`
				KendallTau f `json:"kendall_tau"`
			}{f(eu.NLL), f(eu.NLLU), f(eu.MSE), f(eu.RelMSE), f(eu.KendallTau)})
			if err != nil {
				return failf(name, "%v", err)
			}
			bu, err := json.Marshal(cu)
			if err != nil {
				return failf(name, "%v", err)
			}
			by := ""
			if b := m.Info().CalibrateBy; b != "" {
				by = `,"calibrate_by":` + strconv.Quote(b)
			}
			temp := `"temperature":` + strconv.FormatFloat(t, 'g', -1, 64)
			if ts := m.DepthTemperatures(); ts != nil {
				b, err := json.Marshal(ts)
				if err != nil {
					return failf(name, "%v", err)
				}
				temp = `"depth_temperatures":` + string(b)
			}
			extra = fmt.Sprintf(`,%s%s,"uncalibrated":%s,%s`, temp, by,
				bytes.TrimSuffix(bn, []byte("}")), bytes.TrimPrefix(bu, []byte("{")))
		}
		return nil
	}); err != nil {
		return err
	}
	if plotPath != "" {
		err := writeOutput(name, "plot", plotPath, func(w io.Writer) error { return calibrationPlot(w, c, modelPath) })
		if err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(stdout, "%s,%s%s}\n", bytes.TrimSuffix(be, []byte("}")), bytes.TrimSuffix(bytes.TrimPrefix(bc, []byte("{")), []byte("}")), extra)
	return err
}

// isStdout reports whether path is standard output: "-" or a name of the
// same file (/dev/stdout, /dev/fd/1, a link to the terminal), unless that
// file is the null device, where the figure and the JSON may both be
// discarded.
func isStdout(path string) bool {
	if path == "-" {
		return true
	}
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	so, err := os.Stdout.Stat()
	if err != nil || !os.SameFile(fi, so) {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(fi, null)
}

// maxDiscreteValues is the most distinct targets warnDiscreteTarget calls
// few, among at least minDiscreteRows rows.
const (
	maxDiscreteValues = 20
	minDiscreteRows   = 10
)

// warnDiscreteTarget warns, for a model with a density, when the targets
// of the rows scored take at most maxDiscreteValues distinct values, each
// twice or more on average (grades, counts, a few classes): the NLL,
// coverage and PIT treat y as continuous. A model that learns the values puts its mass in
// cells far narrower than the gaps between them, so its NLL is very
// negative and says little, and central intervals, whose ends lie inside
// the mass of the lowest and highest values, miss the rows at the
// training range's ends (for the heads bounded by the range, all but the
// MDN: coverage falls to the share of the middle values).
func warnDiscreteTarget(name string, d *data.Dataset, m *decoreg.Model) {
	if m.Config().Head == decoreg.HeadPointwise || d.Rows < minDiscreteRows {
		return
	}
	seen := map[float64]bool{}
	for _, v := range d.Y {
		if seen[v] = true; len(seen) > maxDiscreteValues {
			return
		}
	}
	if 2*len(seen) > d.Rows {
		return
	}
	lo, hi := m.YRange()
	ends := 0
	for _, v := range d.Y {
		if v == lo || v == hi {
			ends++
		}
	}
	msg := ""
	if ends > 0 && m.Config().Head != decoreg.HeadMDN { // the MDN's mass reaches past the range
		msg = fmt.Sprintf("; %d of the %d rows are at an end of the training range [%v, %v], which central intervals seldom cover (the interval's ends lie inside the mass there)", ends, d.Rows, lo, hi)
	}
	values := "values"
	if len(seen) == 1 {
		values = "value"
	}
	fmt.Fprintf(errOut, "decoreg %s: warning: %s: the target takes %d distinct %s in the %d rows scored: the NLL, coverage and PIT treat it as continuous, so a model that learns the values gets a very negative NLL and coverage that says little%s (README, \"Targets with few distinct values\")\n",
		name, nameSpools(d.Path), len(seen), values, d.Rows, msg)
}

// warnClipped says that n of d's targets lie outside the model's training
// range, where the NLL scores them at the range's nearest end (DESIGN's
// rule: a decoder or Riemann head has no density beyond it): nll is then
// not the mean of predict's -logpdf, which is the density at the target
// itself (-Inf beyond a bounded head's range; an MDN's tail). A review
// took an MDN's nll of 11.4 for targets at a density of e^-1300 for a
// fault.
func warnClipped(name string, d *data.Dataset, m *decoreg.Model, n int) {
	if n == 0 {
		return
	}
	lo, hi := m.YRange()
	fmt.Fprintf(errOut, "decoreg %s: warning: %s: %d of the %d targets %s outside the training range [%v, %v] (clipped): nll scores %s at the range's nearest end, so it is not the mean of predict's -logpdf, which is the density at the target itself\n",
		name, nameSpools(d.Path), n, d.Rows, pick(n == 1, "lies", "lie"), lo, hi, pick(n == 1, "it", "them"))
}
