package main

import (
	"context"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"decoreg"
	"decoreg/dist"
)

var cmdSample = &Command{
	Name:      "sample",
	UsageLine: "sample --model MODEL --data FILE --n N [--temperature T] [--top-k K] [--top-p P] [--centres] [--seed S] [--out FILE]",
	Short:     "draw samples from p(y|x) for every input row, as CSV",
	Long: `Sample draws N values from the model's predictive distribution p(y|x) for
every row of a CSV file and writes them as CSV, one line per input row
(wide format):

	row,s1,s2,...,sN

row is the index of the input row among the data rows of FILE (0 is the row
after the header) and s1..sN are the draws in the original units of y.

Decoder heads sample token by token (ancestral sampling with a key/value
cache); --temperature divides the logits (a model calibrated by train
--calibrate has its own temperature, or temperatures per token depth,
applied first: the two multiply), --top-k keeps the K most probable
valid tokens and --top-p the smallest set of valid tokens whose probability
reaches P, at every step. These three flags are an error for the other
heads, which sample their density directly (pointwise: the point itself).
A decoder's draw is uniform within the cell of its token sequence, and a
Riemann head's within its bin: the draws follow the piecewise-uniform
density that eval, predict and serve report (its CDF, quantiles and
log-density). --centres draws the cells' or bins' centres instead (a
token sequence's decoded value, as the paper's decoder samples): with
coarse cells (normalized:base=2,length=4, or a few bins) those draws
cluster on a few values, and their quantiles are not predict's. It is an
error for the other heads and for recalibrated models.

Draws depend only on the model, the data, the flags and --seed: the i-th
row sampled (from 0) draws from its own generator seeded with (--seed, i),
as row i of a request to 'decoreg serve' does, so the same rows give the
same draws there. Input columns are matched as in 'decoreg eval'; with
--test-mask FILE --split K only the test rows of split K are sampled.

N is at most 1048576 (2^20). Samples are streamed: each row's draws are
made and written 1024 at a time, so memory does not grow with N (the
output does: about 20 bytes per draw).

` + keepNote + `

` + outDoc + `

Examples:

	decoreg sample --model m.model --data x.csv --n 100 > samples.csv
	decoreg sample --model m.model --data x.csv --n 10 --temperature 0.7 --top-p 0.9 --seed 7 --out s.csv`,
	Run: runSample,
}

// sampleF holds sample's flags.
var sampleF struct {
	model, data, out, target string
	n, topK                  int
	temperature, topP        float64
	centres                  bool
	seed                     uint64
	split                    splitFlags
	dialect                  dialectFlags
	keep                     keepFlag
}

func init() {
	fs := &cmdSample.Flag
	f := &sampleF
	fs.StringVar(&f.model, "model", "", "the model `MODEL` written by 'decoreg train' (required)")
	fs.StringVar(&f.data, "data", "", "inputs: CSV `FILE` with a header, optionally gzipped (a pipe or FIFO is read once), or - for standard input (required)")
	fs.IntVar(&f.n, "n", 0, "samples per row, 1 to 1048576 (required; streamed, so memory does not grow with N)")
	fs.Float64Var(&f.temperature, "temperature", 1, "decoder: sampling temperature, > 0")
	fs.IntVar(&f.topK, "top-k", 0, "decoder: keep the K most probable tokens at each step (0: all)")
	fs.Float64Var(&f.topP, "top-p", 1, "decoder: keep the smallest set of tokens whose mass reaches P, in (0, 1]")
	fs.BoolVar(&f.centres, "centres", false, "decoder and Riemann heads: draw the cells' (bins') centres, the decoded values, instead of values uniform within them")
	fs.Uint64Var(&f.seed, "seed", 0, "random seed")
	fs.StringVar(&f.out, "out", "-", "write the samples to `FILE`, or - for standard output; "+outHelp)
	fs.StringVar(&f.target, "target", "", "the target column's `NAME`, ignored if present (default: the model's target name)")
	f.split.register(fs, "sample the test rows of --split")
	f.dialect.register(fs)
	f.keep.register(fs)
}

func runSample(cmd *Command, args []string) error {
	const name = "sample"
	fs := &cmd.Flag
	f := &sampleF
	modelPath, dataPath, out, target := f.model, f.data, f.out, strings.TrimSpace(f.target)
	n, topK, temperature, topP, seed, split := f.n, f.topK, f.temperature, f.topP, f.seed, &f.split
	if err := noArgs(name, args); err != nil {
		return err
	}
	if err := noEmptyTarget(name, &cmd.Flag); err != nil {
		return err
	}
	if err := noEmptyValues(name, &cmd.Flag, "test-mask"); err != nil {
		return err
	}
	if err := required(name, fs, "model", "data"); err != nil {
		return err
	}
	switch {
	case !isSet(fs, "n"):
		return inputf(name, "--n is required")
	case n < 1:
		return inputf(name, "--n must be >= 1, have %d", n)
	case n > maxSamples:
		return inputf(name, "--n must be at most %d, have %d", maxSamples, n)
	}
	if err := refuseZero(name, fs); err != nil {
		return err
	}
	// The library reads a temperature of 0 as the default; the flag's
	// default is 1, and it is refused at 0 (above) as below it.
	if !(temperature > 0) || math.IsInf(temperature, 1) {
		return inputf(name, "--temperature must be a finite number > 0, have %v", temperature)
	}
	// In the flags' own terms (the library's 0 means "all" for both; the
	// top-p flag's 0 was refused above).
	if topK < 0 {
		return inputf(name, "--top-k must be >= 0 (0: every token), have %d", topK)
	}
	if !(topP > 0 && topP <= 1) {
		return inputf(name, "--top-p must be in (0, 1], have %v", topP)
	}
	opts := dist.SampleOptions{Temperature: temperature, TopK: topK, TopP: topP, Centres: f.centres}
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
	if f.centres {
		switch h := m.Config().Head; {
		case h != decoreg.HeadDecoder && h != decoreg.HeadRiemann:
			return inputf(name, "--centres is for decoder and Riemann heads, whose draws fall in cells; %s is a model of the %s head", modelPath, h)
		case m.Recalibration() != nil:
			return inputf(name, "--centres is for the cells of ancestral sampling, but %s is recalibrated (train --calibrate-by isotonic) and samples by inverse CDF", modelPath)
		}
	}
	for _, f := range []string{"temperature", "top-k", "top-p"} {
		switch {
		case !isSet(fs, f):
		case m.Config().Head != decoreg.HeadDecoder:
			return inputf(name, "--%s is for decoder heads; %s is a model of the %s head", f, modelPath, m.Config().Head)
		case m.Recalibration() != nil:
			return inputf(name, "--%s reshapes the decoder's ancestral sampling, but %s is recalibrated (train --calibrate-by isotonic) and samples by inverse CDF", f, modelPath)
		}
	}
	if dataPath, err = dataFile(name, dataPath); err != nil {
		return err
	}
	taken := func(s string) bool { // row, s1 .. sN
		rest, ok := strings.CutPrefix(s, "s")
		j, err := strconv.Atoi(rest)
		return s == "row" || ok && err == nil && strconv.Itoa(j) == rest && j >= 1 && j <= n
	}
	keepNames, err := checkKeep(name, fs, f.keep.list, dataPath, dl, taken)
	if err != nil {
		return err
	}
	d, warn, err := readForModelRows(name, dataPath, dl, m, target, targetIgnored)
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
	warn(idx)
	// The rows' distributions are built distRows rows at a time: once
	// before anything is written, so that a row the model cannot take is
	// refused with nothing written, and again while their draws are
	// written (holding every row's grew with the file: 9 GB for a million
	// rows of a Riemann head).
	rowDists := func(ctx context.Context, lo, hi int) ([]dist.Distribution, error) {
		x, err := d.at(lo, hi)
		if err != nil {
			return nil, inputErr(name, err)
		}
		ds, err := m.Dists(ctx, x, hi-lo, dist.TokenOptions{})
		if err != nil {
			return nil, dataErr(name, d.Dataset, idx, shiftRow(err, lo))
		}
		return ds, nil
	}
	if err := interruptible(name, out, func(ctx context.Context) error {
		for lo := 0; lo < d.Rows; lo += distRows {
			if _, err := rowDists(ctx, lo, min(lo+distRows, d.Rows)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return writeOutput(name, "out", out, func(w io.Writer) error {
		return writeSamples(w, d.Rows, func(lo, hi int) ([]dist.Distribution, error) {
			return rowDists(context.Background(), lo, hi)
		}, idx, keep, n, opts, seed)
	})
}

// Sample's limits: --n is at most maxSamples, and the draws of a row are
// made and written sampleChunk at a time, so that memory does not grow
// with --n (a decoder draws a chunk's sequences in one batch through one
// key/value cache).
const (
	maxSamples  = 1 << 20
	sampleChunk = 1024
)

// writeSamples writes the CSV of sample to w for rows rows, whose
// distributions dists builds distRows at a time, row by row and
// sampleChunk draws at a time; it stops at the first error (a write's: an
// interrupt). The
// i-th row sampled draws from its own generator, seeded with (seed, i),
// as serve's i-th row of a request does: the same rows give the same
// draws there (one generator for every row gave others: review).
func writeSamples(w io.Writer, rows int, dists func(lo, hi int) ([]dist.Distribution, error), idx []int, keep *keptColumns, n int, opts dist.SampleOptions, seed uint64) error {
	b := make([]byte, 0, 64<<10)
	flush := func() error {
		_, err := w.Write(b)
		b = b[:0]
		return err
	}
	b = append(b, "row"...)
	b = keep.header(b)
	for j := 1; j <= n; j++ {
		b = append(b, ",s"...)
		b = strconv.AppendInt(b, int64(j), 10)
		if len(b) > 60<<10 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	b = append(b, '\n')
	var ds []dist.Distribution
	for i := range rows {
		if i%distRows == 0 {
			var err error
			if ds, err = dists(i, min(i+distRows, rows)); err != nil {
				return err
			}
		}
		dd := ds[i%distRows]
		b = strconv.AppendInt(b, int64(idx[i]), 10)
		b = keep.row(b, idx[i])
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		for done := 0; done < n; done += sampleChunk {
			for _, v := range dd.Sample(min(sampleChunk, n-done), opts, r) {
				b = append(b, ',')
				b = strconv.AppendFloat(b, v, 'g', -1, 64)
			}
			if err := flush(); err != nil {
				return err
			}
		}
		b = append(b, '\n')
	}
	return flush()
}
