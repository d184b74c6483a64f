package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"decoreg/internal/experiments"
)

var benchReportCmd = &Command{
	Name:      "bench report",
	UsageLine: "bench report [--format markdown|csv] [--splits N] RESULTS",
	Short:     "summarise a directory of bench uci results as a markdown table",
	Long: `Bench report reads the results written by "decoreg bench uci" under RESULTS
(RESULTS/<dataset>/<head>/split<k>.json) and prints, for each of the test
NLL in original y units, the NLL_u in the train range's normalized units and
Kendall's tau, a markdown table with a row per dataset and a column per head
holding the mean ± std over splits (sample std, divisor n-1). The best mean
of each row is in bold (the lowest NLL, the highest tau; ties as printed are
all bold). A cell with fewer than the full number of splits (--splits, by
default the most any cell has; one below a cell's count is refused) is
marked "(n/N)", with the number of failed
runs; a cell without results is "—", and a head whose runs all failed still
has its column, of such failed cells. The pointwise head has no density and
so appears only in the tau table. A table of outlying runs follows: each
run whose test NLL exceeds the median of its cell by more than 5 nats, with
the cell's median and its mean without such runs (one run with a huge NLL
can dominate a mean). Last come the total run time (the sum of
the runs' wall times, and the span from the first start to the last finish)
and the machines' GOMAXPROCS, GEMM kernel and commit.

A result file that is not one, or holds values no run writes (neither an
evaluation nor an error, a negative time, Kendall's tau outside [-1, 1],
...), is refused with exit status 2, naming the file.

--format csv prints the numbers behind the tables instead, one line per
dataset, head and metric; a mean or standard deviation that is undefined
(no split scored it, or one for the sd) is NaN, as pandas and R read it.`,
}

func init() {
	registerBench(&benchCommand{Name: "report", Short: benchReportCmd.Short, Run: runBenchReport})
}

func runBenchReport(args []string) error {
	cmd := benchReportCmd
	fs := newFlagSet(cmd)
	format := fs.String("format", "markdown", "output format: markdown or csv")
	splits := fs.Int("splits", 0, "splits of a complete cell (0: the most any cell has)")
	if err := parseFlags(cmd, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		for _, a := range fs.Args()[min(1, fs.NArg()):] {
			if strings.HasPrefix(a, "-") {
				return usagef("bench report: %s after RESULTS: flags come before it (bench report [flags] RESULTS)", a)
			}
		}
		return usagef("bench report: want one RESULTS directory, have %d arguments", fs.NArg())
	}
	if *format != "markdown" && *format != "csv" {
		return usagef("bench report: --format %s: want markdown or csv", strconv.Quote(*format))
	}
	if *splits < 0 {
		return usagef("bench report: --splits must be >= 0")
	}
	rs, err := experiments.LoadResults(fs.Arg(0))
	if err != nil {
		return usageError{fmt.Errorf("bench report: %s", oneLine(err.Error()))}
	}
	if err := experiments.WriteReport(stdout, rs, experiments.ReportOptions{Format: *format, Splits: *splits}); err != nil {
		var ie *experiments.InputError
		if errors.As(err, &ie) {
			return usageError{fmt.Errorf("bench report: %v", err)}
		}
		return fmt.Errorf("bench report: %v", err)
	}
	return nil
}
