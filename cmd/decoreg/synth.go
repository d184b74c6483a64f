package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"decoreg/synth"
)

var cmdSynth = &Command{
	Name:      "synth",
	UsageLine: "synth PROBLEM [--n N] [--seed S] [--out FILE.csv] | synth --list",
	Short:     "write a synthetic data set of the paper's experiments as CSV",
	Long: `Synth writes N draws of a synthetic problem as CSV with a header
x0,...,x{d-1},y, followed by a logpdf column (the true log-density of y
given x) where the truth has a density: train on y with 'decoreg train
--target y --drop logpdf' (the last column is train's default target; it
warns), and compare eval's nll with the mean of -logpdf on the test
rows. The rows depend only on PROBLEM, N and S, so the experiments' data
can be regenerated and shared.

PROBLEM is KIND:KEY=VALUE,...:

	bbob:function=NAME,dim=D     one of the 24 BBOB functions of google/vizier's
	                             bbob.py (seed 0, no rotation), x uniform on
	                             [-5, 5]^D, y = f(x)
	curve:name=NAME              a 1-D curve of the curve-fitting figure, x
	                             uniform on its range, y = f(x)
	density:name=NAME[,dim=D]    a conditional density p(y|x), x uniform on
	                             [-1, 1]^D (D = 1 by default), with logpdf
	truncnorm[:mean=M,std=S]     N(M, S²) truncated to [0, 1] (0.5 and 0.25 by
	                             default), the risk theorem's; no x columns

"decoreg synth --list" prints every problem with a one-line description.
Values are written in the shortest form that reads back exactly.

--out FILE writes the file atomically (see "decoreg help train" on output
files); --out - or no --out writes to standard output. N is at most
` + strconv.Itoa(synthMaxValues) + ` values in all (N times the columns).

Examples:

	decoreg synth bbob:function=Rastrigin,dim=5 --n 10000 --seed 0 --out rastrigin5.csv
	decoreg synth density:name=ring --n 2000 | head
	decoreg synth truncnorm:mean=0.5,std=0.25 --n 1024`,
	CustomFlags: true,
	Run:         runSynth,
}

// synthMaxValues caps N x columns (1 GiB of float64 while drawing).
const synthMaxValues = 1 << 27

var synthF struct {
	n    int
	seed uint64
	out  string
	list bool
}

func init() {
	fs := &cmdSynth.Flag
	fs.IntVar(&synthF.n, "n", 1000, "number of rows to draw")
	fs.Uint64Var(&synthF.seed, "seed", 0, "random seed of the draws")
	fs.StringVar(&synthF.out, "out", "-", "write the CSV to `FILE` (- for standard output)")
	fs.BoolVar(&synthF.list, "list", false, "list the problems and exit")
}

func runSynth(cmd *Command, args []string) error {
	const name = "synth"
	spec, err := parseInterspersed(cmd, args)
	if err != nil {
		return err
	}
	f := &synthF
	if f.list {
		if len(spec) > 0 {
			return inputf(name, "--list takes no PROBLEM, have %q", spec[0])
		}
		w := bufio.NewWriter(stdout)
		for _, s := range synth.Sources() {
			fmt.Fprintf(w, "%-48s %s\n", s.Spec, s.Description)
		}
		return w.Flush()
	}
	switch len(spec) {
	case 0:
		return inputf(name, "a PROBLEM is required, e.g. bbob:function=Sphere,dim=5 (decoreg synth --list names them)")
	case 1:
	default:
		return inputf(name, "one PROBLEM at a time, have %q and %q", spec[0], spec[1])
	}
	src, err := synth.ParseSource(spec[0])
	if err != nil {
		return inputf(name, "%s", strings.TrimPrefix(err.Error(), "synth: "))
	}
	cols := src.Dim() + 1
	if src.HasDensity() {
		cols++
	}
	if f.n < 1 || f.n > synthMaxValues/cols {
		return inputf(name, "--n must be from 1 to %d for %s (%d columns; at most %d values), have %d", synthMaxValues/cols, src.Spec(), cols, synthMaxValues, f.n)
	}
	if err := checkOutPath(name, "out", f.out, true); err != nil {
		return err
	}
	X, Y := src.Draw(f.n, f.seed)
	d := src.Dim()
	return writeOutput(name, "out", f.out, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		var hdr []string
		for j := range d {
			hdr = append(hdr, "x"+strconv.Itoa(j))
		}
		hdr = append(hdr, "y")
		if src.HasDensity() {
			hdr = append(hdr, "logpdf")
		}
		bw.WriteString(strings.Join(hdr, ",") + "\n")
		buf := make([]byte, 0, 64*cols)
		for i, y := range Y {
			buf = buf[:0]
			x := X[i*d : (i+1)*d]
			for _, v := range x {
				buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
				buf = append(buf, ',')
			}
			buf = strconv.AppendFloat(buf, y, 'g', -1, 64)
			if src.HasDensity() {
				buf = append(buf, ',')
				buf = strconv.AppendFloat(buf, src.LogPDF(x, y), 'g', -1, 64)
			}
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
}
