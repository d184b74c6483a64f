package experiments

import (
	"context"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"decoreg"
	"decoreg/dist"
)

// ---- Data scaling (the paper's Figure 7 and its Appendix figure) ----

var scalingHeads = []string{DecoderNormalized, Riemann, Pointwise}

// scalingDatasets are the 8 largest UCI datasets.
var scalingDatasets = []string{"keggdirected", "tamielectric", "protein", "kin40k", "bike", "elevators", "pol", "pumadyn32nm"}

// ScalingSizes returns 64, 128, ... up to rows, and rows itself.
func ScalingSizes(rows int) []int {
	var out []int
	for s := 64; s < rows; s *= 2 {
		out = append(out, s)
	}
	return append(out, rows)
}

// ScalingTasks returns the runs: dataset x size x head x subset, on split
// 0 (training subsets of its train part, its test part).
func ScalingTasks(opts Options) ([]Task[*RealLine], error) {
	u, names, subsets, err := realPlan(opts, scalingDatasets, []string{"yacht"}, 3)
	if err != nil {
		return nil, err
	}
	var tasks []Task[*RealLine]
	for _, ds := range names {
		tr, _, err := u.split(ds, 0)
		if err != nil {
			return nil, err
		}
		sizes := ScalingSizes(tr.Rows)
		if opts.Quick {
			sizes = sizes[:min(2, len(sizes))]
		}
		for _, size := range sizes {
			for _, h := range scalingHeads {
				for s := range subsets {
					ds, size, h, s := ds, size, h, s
					tasks = append(tasks, Task[*RealLine]{
						Key: fmt.Sprintf("dataset=%s,size=%d,head=%s,subset=%d", ds, size, h, s),
						Run: func(ctx context.Context) (*RealLine, error) {
							l, _, err := runReal(ctx, u, ds, s, 0, size, h, opts, func(l *RealLine) error {
								if h == Pointwise {
									l.Config.Sigmoid = true // as the paper, for the low-data regime
								}
								return nil
							})
							return l, err
						},
					})
				}
			}
		}
	}
	return tasks, nil
}

func scalingExperiment() *Experiment {
	return experiment("scaling", "relative MSE against the number of training points: normalized decoder, Riemann, pointwise",
		func(o Options) string {
			s := seedsOr(o, 3)
			sizes := "sizes 64, 128, ... and the full training set of split 0"
			if o.Quick {
				sizes = "the two smallest sizes of split 0 (64 and 128; the whole training part where it is smaller)" // ScalingTasks' first two
			}
			return fmt.Sprintf("%s; %d random subset(s) per size%s", sizes, s, quickNote(o))
		},
		ScalingTasks, func() *RealLine { return new(RealLine) },
		func(l *RealLine) string {
			if l.Error != "" {
				return "FAILED: " + l.Error
			}
			return fmt.Sprintf("rel_mse %s", logNum("%.4f", float64(l.RelMSE)))
		},
		ScalingReport)
}

// ScalingReport writes dir/REPORT.md and dir/scaling.png.
func ScalingReport(dir string, lines []*RealLine, info ReportInfo) error {
	type key struct {
		ds, head string
		size     int
	}
	acc := map[key][]float64{}
	sizes := map[string]map[int]bool{}
	for _, l := range lines {
		k := key{l.Dataset, l.Head, l.TrainRows}
		acc[k] = append(acc[k], float64(l.RelMSE))
		if sizes[l.Dataset] == nil {
			sizes[l.Dataset] = map[int]bool{}
		}
		sizes[l.Dataset][l.TrainRows] = true
	}
	var names []string
	for ds := range sizes {
		names = append(names, ds)
	}
	sort.Strings(names)
	mean := func(ds, h string, s int) float64 { m, _, _ := meanStd(acc[key{ds, h, s}]); return m }
	var b strings.Builder
	b.WriteString("# Data scaling: relative MSE against the number of training points\n\n")
	b.WriteString("The paper's Figure 7 and its Appendix figure (DESIGN.md section 8.5): the normalized decoder " +
		"(`normalized:base=8,length=6`), the Riemann head (256 bins) and the pointwise head (with the output sigmoid the " +
		"paper adds for small data) trained on random subsets of split 0's training rows of 64, 128, 256, ... rows and the " +
		"full training part (the same subsets for every head); relative MSE (MSE over the variance of the test targets, " +
		"which min-max scaling of y leaves unchanged) of the mean on split 0's test rows, averaged over the subsets. " +
		"Datasets: the 8 largest.\n\n" + dataNote + "\n\n")
	fmt.Fprintf(&b, "Scale: %s. Command: `%s`.\n\n%s\n\n", info.Scale, info.Command, Provenance(lines))
	b.WriteString("## Summary\n\n| dataset | decoder below riemann from | decoder below pointwise from | at the full set: decoder / riemann / pointwise |\n|---|---:|---:|---|\n")
	for _, ds := range names {
		ss := sortedInts(sizes[ds])
		from := func(other string) string {
			// The smallest size from which the decoder stays below other.
			res := "never"
			for i := len(ss) - 1; i >= 0; i-- {
				if mean(ds, DecoderNormalized, ss[i]) < mean(ds, other, ss[i]) {
					res = fmt.Sprint(ss[i])
				} else {
					break
				}
			}
			return res
		}
		full := ss[len(ss)-1]
		fmt.Fprintf(&b, "| %s | %s | %s | %s / %s / %s |\n", ds, from(Riemann), from(Pointwise),
			num(mean(ds, DecoderNormalized, full), "%.4f"), num(mean(ds, Riemann, full), "%.4f"), num(mean(ds, Pointwise, full), "%.4f"))
	}
	b.WriteString("\n\"From N\": the decoder's mean relative MSE is below the other head's at N training rows and at every larger " +
		"size run. The paper: the Riemann head is data-inefficient and on some tasks plateaus above the decoder; the " +
		"pointwise head can also plateau earlier, and at small sizes it is unstable.\n\n## Mean relative MSE per size\n\n")
	for _, ds := range names {
		fmt.Fprintf(&b, "### %s\n\n| rows |", ds)
		for _, h := range scalingHeads {
			fmt.Fprintf(&b, " %s |", h)
		}
		b.WriteString("\n|---:|---:|---:|---:|\n")
		for _, s := range sortedInts(sizes[ds]) {
			fmt.Fprintf(&b, "| %d |", s)
			for _, h := range scalingHeads {
				fmt.Fprintf(&b, " %s |", num(mean(ds, h, s), "%.4f"))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("Figure: [scaling.png](scaling.png), one panel per dataset, log-scaled rows.\n")
	if err := writeText(info.Ctx, filepath.Join(dir, "REPORT.md"), b.String()); err != nil {
		return err
	}
	var panels []*plot.Plot
	for _, ds := range names {
		p := newPlot(ds, "training rows", "relative MSE")
		for _, h := range scalingHeads {
			var xy plotter.XYs
			for _, s := range sortedInts(sizes[ds]) {
				if m := mean(ds, h, s); !math.IsNaN(m) {
					xy = append(xy, plotter.XY{X: float64(s), Y: m})
				}
			}
			label := ""
			if len(panels) == 0 {
				label = h
			}
			if err := addLine(p, xy, headColor(h), label, false, true); err != nil {
				return err
			}
		}
		logAxes(p, true, false)
		panels = append(panels, p)
	}
	return writeGrid(ctxOf(info), filepath.Join(dir, "scaling.png"), "Relative MSE vs training rows (lower is better)",
		chunk(panels, 4), 16*vg.Inch, vg.Length(3.4*float64((len(panels)+3)/4))*vg.Inch+vg.Points(24))
}

func chunk(ps []*plot.Plot, n int) [][]*plot.Plot {
	var out [][]*plot.Plot
	for i := 0; i < len(ps); i += n {
		out = append(out, ps[i:min(i+n, len(ps))])
	}
	return out
}

// ---- Decoder size (the paper's Figure 9) ----

// DecoderSizeLine is one run of the decoder-size ablation.
type DecoderSizeLine struct {
	RealLine
	Axis string `json:"axis"` // "default", "layers", "heads" or "units"
}

type decSize struct {
	axis                 string
	layers, heads, width int
}

// decoderSizes are the paper's default (3 layers, 4 heads, 128 units) and
// each axis varied alone.
var decoderSizes = []decSize{
	{"default", 3, 4, 128},
	{"layers", 1, 4, 128}, {"layers", 2, 4, 128}, {"layers", 4, 4, 128}, {"layers", 5, 4, 128},
	{"heads", 3, 1, 128}, {"heads", 3, 2, 128}, {"heads", 3, 8, 128},
	{"units", 3, 4, 32}, {"units", 3, 4, 64}, {"units", 3, 4, 256},
}

// decoderSizeDatasets are the default datasets: the UCI sets under 6,000
// rows, where a run takes seconds.
var decoderSizeDatasets = []string{"airfoil", "autompg", "autos", "breastcancer", "challenger", "concrete", "energy", "fertility",
	"gas", "housing", "parkinsons", "sml", "solar", "stock", "wine", "yacht"}

// DecoderSizeTasks returns the runs: dataset x split x size.
func DecoderSizeTasks(opts Options) ([]Task[*DecoderSizeLine], error) {
	u, names, splits, err := realSplitPlan("decoder-size", opts, decoderSizeDatasets, []string{"yacht"}, 1)
	if err != nil {
		return nil, err
	}
	sizes := decoderSizesFor(opts)
	var tasks []Task[*DecoderSizeLine]
	for _, ds := range names {
		for sp := range splits {
			for _, sz := range sizes {
				ds, sp, sz := ds, sp, sz
				tasks = append(tasks, Task[*DecoderSizeLine]{
					Key: fmt.Sprintf("dataset=%s,split=%d,layers=%d,heads=%d,units=%d", ds, sp, sz.layers, sz.heads, sz.width),
					Run: func(ctx context.Context) (*DecoderSizeLine, error) {
						l, _, err := runReal(ctx, u, ds, sp, sp, math.MaxInt, DecoderNormalized, opts, func(l *RealLine) error {
							l.Config.Vocab = "normalized:base=10,length=4"
							l.Config.DecLayers, l.Config.DecHeads, l.Config.DecWidth = sz.layers, sz.heads, sz.width
							return nil
						})
						if err != nil {
							return nil, err
						}
						return &DecoderSizeLine{RealLine: *l, Axis: sz.axis}, nil
					},
				})
			}
		}
	}
	return tasks, nil
}

// decoderSizesFor returns the decoder sizes opts runs (four with Quick).
func decoderSizesFor(opts Options) []decSize {
	if opts.Quick {
		return []decSize{decoderSizes[0], decoderSizes[1], decoderSizes[5], decoderSizes[8]}
	}
	return decoderSizes
}

func decoderSizeExperiment() *Experiment {
	return experiment("decoder-size", "test NLL when varying the decoder's layers, heads and width from (3, 4, 128)",
		func(o Options) string {
			s := max(o.Seeds, 1)
			return fmt.Sprintf("%d decoder sizes, split(s) 0..%d of each dataset, the full training part%s", len(decoderSizesFor(o)), s-1, quickNote(o))
		},
		DecoderSizeTasks, func() *DecoderSizeLine { return new(DecoderSizeLine) },
		func(l *DecoderSizeLine) string {
			if l.Error != "" {
				return "FAILED: " + l.Error
			}
			return fmt.Sprintf("nll %.4f, %d epochs", float64(l.NLL), l.Epochs)
		},
		DecoderSizeReport)
}

// DecoderSizeReport writes dir/REPORT.md and dir/decoder-size.png.
func DecoderSizeReport(dir string, lines []*DecoderSizeLine, info ReportInfo) error {
	type key struct {
		ds                   string
		layers, heads, width int
	}
	acc := map[key][]float64{}
	dsSet := map[string]bool{}
	for _, l := range lines {
		c := l.Config
		acc[key{l.Dataset, c.DecLayers, c.DecHeads, c.DecWidth}] = append(acc[key{l.Dataset, c.DecLayers, c.DecHeads, c.DecWidth}], float64(l.NLL))
		dsSet[l.Dataset] = true
	}
	var names []string
	for ds := range dsSet {
		names = append(names, ds)
	}
	sort.Strings(names)
	nll := func(ds string, s decSize) float64 {
		m, _, _ := meanStd(acc[key{ds, s.layers, s.heads, s.width}])
		return m
	}
	def := decoderSizes[0]
	// The change from the default, per dataset, and its mean.
	delta := func(s decSize) (mean float64, better, n int) {
		var d []float64
		for _, ds := range names {
			a, b := nll(ds, s), nll(ds, def)
			if !math.IsNaN(a) && !math.IsNaN(b) {
				d = append(d, a-b)
				if a < b {
					better++
				}
			}
		}
		m, _, c := meanStd(d)
		return m, better, c
	}
	var b strings.Builder
	b.WriteString("# Decoder size\n\n")
	b.WriteString("The paper's Figure 9 (DESIGN.md section 8.8): the normalized decoder with `normalized:base=10,length=4`, " +
		"its size varied one axis at a time from (3 layers, 4 heads, 128 units); test NLL per unit of y on each dataset's " +
		"split(s), encoder 2×256, early stopping. Each row gives the mean change of the NLL from the default (negative: " +
		"better) and on how many datasets it is lower.\n\n" + uciNote + "\n\n")
	fmt.Fprintf(&b, "Scale: %s. Command: `%s`.\n\n%s\n\n", info.Scale, info.Command, Provenance(lines))
	b.WriteString("| axis | layers | heads | units | mean NLL − default's | datasets better |\n|---|---:|---:|---:|---:|---:|\n")
	for _, s := range decoderSizes {
		m, better, n := delta(s)
		if n == 0 {
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s | %d of %d |\n", s.axis, s.layers, s.heads, s.width, num(m, "%+.4f"), better, n)
	}
	b.WriteString("\nThe paper: larger decoders sometimes help, but only up to a point, after which they overfit.\n\n")
	b.WriteString("## Test NLL per dataset\n\n| dataset |")
	mdColumns(&b, labels(decoderSizes, func(s decSize) string { return fmt.Sprintf("%d/%d/%d", s.layers, s.heads, s.width) }), "---:")
	for _, ds := range names {
		fmt.Fprintf(&b, "| %s |", ds)
		for _, s := range decoderSizes {
			fmt.Fprintf(&b, " %s |", num(nll(ds, s), "%.3f"))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nColumns are layers/heads/units. Figure: [decoder-size.png](decoder-size.png), one panel per axis: the " +
		"change of each dataset's NLL from the default (thin lines) and the mean (thick).\n")
	if err := writeText(info.Ctx, filepath.Join(dir, "REPORT.md"), b.String()); err != nil {
		return err
	}
	var panels []*plot.Plot
	for _, axis := range []string{"layers", "heads", "units"} {
		p := newPlot("varying "+axis, axis, "NLL − NLL at (3, 4, 128)")
		var ss []decSize
		for _, s := range decoderSizes {
			if s.axis == axis || s.axis == "default" {
				ss = append(ss, s)
			}
		}
		val := func(s decSize) float64 {
			switch axis {
			case "layers":
				return float64(s.layers)
			case "heads":
				return float64(s.heads)
			}
			return float64(s.width)
		}
		sort.Slice(ss, func(i, j int) bool { return val(ss[i]) < val(ss[j]) })
		for _, ds := range names {
			var xy plotter.XYs
			for _, s := range ss {
				xy = append(xy, plotter.XY{X: val(s), Y: nll(ds, s) - nll(ds, def)})
			}
			if err := addLine(p, xy, headColor(""), "", false, false); err != nil {
				return err
			}
		}
		var xy plotter.XYs
		for _, s := range ss {
			m, _, n := delta(s)
			if n > 0 {
				xy = append(xy, plotter.XY{X: val(s), Y: m})
			}
		}
		if err := addLine(p, xy, headColor("decoder"), "mean over datasets", false, true); err != nil {
			return err
		}
		logAxes(p, axis != "layers", false)
		var at []float64
		for _, s := range ss {
			at = append(at, val(s))
		}
		p.X.Tick.Marker = valueTicks{p.X.Tick.Marker, at}
		panels = append(panels, p)
	}
	return writeGrid(ctxOf(info), filepath.Join(dir, "decoder-size.png"), "Decoder size: change of the test NLL from (3 layers, 4 heads, 128 units); lower is better",
		[][]*plot.Plot{panels}, 15*vg.Inch, 4.5*vg.Inch)
}

// ---- Error correction and Hamming codes (the paper's Figures 10 and 11) ----

// SampleLine is one run of an ablation scored by the mean of n samples.
type SampleLine struct {
	RealLine
	Variant string  `json:"variant"`   // "repeat=R" (and ",unbounded"), or "tree" / "hamming"
	Ns      []int   `json:"samples"`   // the sample counts n
	RelMSEn []Float `json:"rel_mse_n"` // relative MSE of the mean of n samples, per Ns
	// RelMSEMedian is the relative MSE of the median of the Ns[len-1]
	// samples.
	RelMSEMedian Float `json:"rel_mse_median"`
}

// sampleCounts are 1, 2, 4, ..., 256.
var sampleCounts = []int{1, 2, 4, 8, 16, 32, 64, 128, 256}

// ablationDatasets are the default datasets of the sample-mean ablations.
var ablationDatasets = []string{"airfoil", "concrete", "energy", "housing", "wine", "yacht"}

// sampleTestRows caps the test rows that are sampled.
const sampleTestRows = 1000

// runSamples trains the decoder of vocabSpec on a subset of at most size
// rows and scores the mean of n samples at temperature 1.
func runSamples(ctx context.Context, u *uciData, ds string, split, size int, head, variant, vocabSpec string, unbounded bool, opts Options) (*SampleLine, error) {
	l, m, err := runReal(ctx, u, ds, split, split, size, head, opts, func(l *RealLine) error {
		l.Config.Vocab, l.Config.Unbounded = vocabSpec, unbounded
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := &SampleLine{RealLine: *l, Variant: variant, Ns: sampleCounts}
	if m == nil {
		return out, nil // the run failed on its data (l.Error)
	}
	_, te, err := u.split(ds, l.Split)
	if err != nil {
		return nil, err
	}
	te = capRows(te, sampleTestRows, uint64(split))
	// The paper aggregates decoded samples: the cells' centres.
	out.RelMSEn, out.RelMSEMedian, err = sampleMeanRelMSE(m, te.X, te.Y, sampleCounts, dist.SampleOptions{Centres: true}, uint64(split)+99)
	return out, err
}

// ErrorCorrectionTasks returns the runs: dataset x split x repeat count x
// bound.
func ErrorCorrectionTasks(opts Options) ([]Task[*SampleLine], error) {
	u, names, splits, err := realSplitPlan("error-correction", opts, ablationDatasets, []string{"yacht"}, 3)
	if err != nil {
		return nil, err
	}
	repeats := []int{1, 2, 3, 5}
	if opts.Quick {
		repeats = []int{1, 3}
	}
	var tasks []Task[*SampleLine]
	for _, ds := range names {
		for sp := range splits {
			for _, unb := range []bool{true, false} {
				for _, r := range repeats {
					if opts.Quick && unb != (r == 1) {
						continue // quick: repeat 1 unbounded, repeat 3 bounded
					}
					ds, sp, r, unb := ds, sp, r, unb
					variant := fmt.Sprintf("repeat=%d", r)
					if unb {
						variant += ",unbounded"
					}
					spec := decoreg.DefaultUnnormalized
					if r > 1 {
						spec += fmt.Sprintf(",repeat=%d", r)
					}
					tasks = append(tasks, Task[*SampleLine]{
						Key: fmt.Sprintf("dataset=%s,split=%d,%s", ds, sp, variant),
						Run: func(ctx context.Context) (*SampleLine, error) {
							return runSamples(ctx, u, ds, sp, math.MaxInt, DecoderUnnormalized, variant, spec, unb, opts)
						},
					})
				}
			}
		}
	}
	return tasks, nil
}

func errorCorrectionExperiment() *Experiment {
	return experiment("error-correction", "the unnormalized decoder's repeat count against the number of samples averaged",
		func(o Options) string {
			s := seedsOr(o, 3)
			return fmt.Sprintf("splits 0..%d, the full training part, at most %d test rows sampled, n = 1..256 samples%s", s-1, sampleTestRows, quickNote(o))
		},
		ErrorCorrectionTasks, func() *SampleLine { return new(SampleLine) },
		describeSample,
		func(dir string, lines []*SampleLine, info ReportInfo) error {
			return sampleReport(dir, lines, info, "error-correction",
				"# Error correction: repeated tokens and the mean of samples\n\n"+
					"The paper's Figure 10 (DESIGN.md section 8.8): the unnormalized decoder "+
					"(`unnormalized:base=10,exponent=1,mantissa=4`) trained to write its tokens R times (`,repeat=R`, R in "+
					"{1, 2, 3, 5}); at inference each of n samples (temperature 1) is decoded by a per-position majority vote over "+
					"its R copies, and the point estimate is the mean of the n decoded samples. Relative MSE on the test rows "+
					"(at most 1,000 per split), averaged over splits. Two variants: `unbounded`, the paper's decoder, which "+
					"may produce any exponent; and decoreg's default, bounded to the training range widened by 10% (README, "+
					"\"Unnormalized decoders are bounded\"), where a wild sample cannot be far off.\n\n",
				"The paper: with R = 1, more samples make the mean worse (rare huge outliers); repetition fixes it; too many "+
					"repetitions make learning harder.")
		})
}

func describeSample(l *SampleLine) string {
	if l.Error != "" {
		return "FAILED: " + l.Error
	}
	if len(l.RelMSEn) == 0 {
		return ""
	}
	return fmt.Sprintf("rel_mse n=1 %.4g, n=%d %.4g; nll %.3f", float64(l.RelMSEn[0]), l.Ns[len(l.Ns)-1], float64(l.RelMSEn[len(l.RelMSEn)-1]), float64(l.NLL))
}

// HammingTasks returns the runs: dataset x split x code (tree or Hamming)
// x length, on random training subsets of 1,000 rows as the paper.
func HammingTasks(opts Options) ([]Task[*SampleLine], error) {
	u, names, splits, err := realSplitPlan("hamming", opts, ablationDatasets, []string{"yacht"}, 3)
	if err != nil {
		return nil, err
	}
	lengths, size := hammingLengths(opts), 1000
	if opts.N > 0 {
		size = opts.N
	}
	var tasks []Task[*SampleLine]
	for _, ds := range names {
		for sp := range splits {
			for _, L := range lengths {
				for _, code := range []string{"tree", "hamming"} {
					ds, sp, L, code := ds, sp, L, code
					spec := fmt.Sprintf("normalized:base=2,length=%d", L)
					if code == "hamming" {
						spec = fmt.Sprintf("hamming:length=%d", L)
					}
					variant := fmt.Sprintf("%s,length=%d", code, L)
					tasks = append(tasks, Task[*SampleLine]{
						Key: fmt.Sprintf("dataset=%s,split=%d,%s,rows=%d", ds, sp, variant, size),
						Run: func(ctx context.Context) (*SampleLine, error) {
							return runSamples(ctx, u, ds, sp, size, DecoderNormalized, variant, spec, false, opts)
						},
					})
				}
			}
		}
	}
	return tasks, nil
}

// hammingLengths returns the code lengths opts runs (6 alone with Quick).
func hammingLengths(opts Options) []int {
	if opts.Quick {
		return []int{6}
	}
	return []int{6, 8, 10}
}

func hammingExperiment() *Experiment {
	return experiment("hamming", "Hamming codes against binary tree tokens of the same length",
		func(o Options) string {
			s := seedsOr(o, 3)
			n := o.N
			if n == 0 {
				n = 1000
			}
			ls := hammingLengths(o)
			q := make([]string, len(ls))
			for i, l := range ls {
				q[i] = strconv.Itoa(l)
			}
			lengths := plural(len(ls), "length") + " " + strings.Join(q, ", ")
			return fmt.Sprintf("splits 0..%d, random training subsets of %d rows (the whole training part where it is smaller), %s%s", s-1, n, lengths, quickNote(o))
		},
		HammingTasks, func() *SampleLine { return new(SampleLine) },
		describeSample,
		func(dir string, lines []*SampleLine, info ReportInfo) error {
			return sampleReport(dir, lines, info, "hamming",
				"# Hamming codes against tree tokens\n\n"+
					"The paper's Appendix figure \"tree vs Hamming\" (DESIGN.md section 8.8): the normalized decoder with binary "+
					"tokens of length L (`normalized:base=2,length=L`, a tree of nested intervals) against the Hamming-distance "+
					"code of the same length (`hamming:length=L`: the i-th cell's code is the i-th L-bit string ordered by its "+
					"number of ones), trained on random subsets of the training rows as the paper (1,000 rows); test NLL (exact) "+
					"and the relative MSE of the mean of n samples at temperature 1, averaged over splits.\n\n",
				"The paper: the Hamming representation is not better, which it attributes to its being harder to learn.")
		})
}

// sampleReport writes dir/REPORT.md and dir/NAME.png for the sample-mean
// ablations: per dataset and variant, the NLL and the relative MSE of the
// mean of n samples.
func sampleReport(dir string, lines []*SampleLine, info ReportInfo, name, intro, paper string) error {
	type key struct{ ds, variant string }
	acc := map[key][]*SampleLine{}
	dsSet, varSet := map[string]bool{}, map[string]bool{}
	var variants []string
	for _, l := range lines {
		acc[key{l.Dataset, l.Variant}] = append(acc[key{l.Dataset, l.Variant}], l)
		dsSet[l.Dataset] = true
		if !varSet[l.Variant] {
			varSet[l.Variant] = true
			variants = append(variants, l.Variant)
		}
	}
	sort.Strings(variants)
	var names []string
	for ds := range dsSet {
		names = append(names, ds)
	}
	sort.Strings(names)
	at := func(k key, i int) float64 {
		var v []float64
		for _, l := range acc[k] {
			if i < len(l.RelMSEn) {
				v = append(v, float64(l.RelMSEn[i]))
			}
		}
		m, _, _ := meanStd(v)
		return m
	}
	nllOf := func(k key) float64 {
		var v []float64
		for _, l := range acc[k] {
			v = append(v, float64(l.NLL))
		}
		m, _, _ := meanStd(v)
		return m
	}
	var b strings.Builder
	b.WriteString(intro + dataNote + "\n\n")
	fmt.Fprintf(&b, "Scale: %s. Command: `%s`.\n\n%s\n\n", info.Scale, info.Command, Provenance(lines))
	b.WriteString(paper + "\n\n## Relative MSE of the mean of n samples, and test NLL (mean over splits)\n\n")
	b.WriteString("| dataset | variant | n = 1 | n = 4 | n = 16 | n = 64 | n = 256 | median of 256 | NLL |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	idx := func(n int) int {
		for i, v := range sampleCounts {
			if v == n {
				return i
			}
		}
		return -1
	}
	for _, ds := range names {
		for _, v := range variants {
			k := key{ds, v}
			if len(acc[k]) == 0 {
				continue
			}
			var med []float64
			for _, l := range acc[k] {
				med = append(med, float64(l.RelMSEMedian))
			}
			mm, _, _ := meanStd(med)
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", ds, v,
				num(at(k, idx(1)), "%.4g"), num(at(k, idx(4)), "%.4g"), num(at(k, idx(16)), "%.4g"), num(at(k, idx(64)), "%.4g"),
				num(at(k, idx(256)), "%.4g"), num(mm, "%.4g"), num(nllOf(k), "%.3f"))
		}
	}
	// Over the datasets: how the relative MSE moves from n = 1 to 256.
	b.WriteString("\n## From 1 to 256 samples, per variant\n\n| variant | datasets where the mean of 256 is worse than 1 sample | median ratio rel MSE(256) / rel MSE(1) | mean NLL |\n|---|---:|---:|---:|\n")
	for _, v := range variants {
		worse, n := 0, 0
		var ratios, nlls []float64
		for _, ds := range names {
			k := key{ds, v}
			if len(acc[k]) == 0 {
				continue
			}
			a, z := at(k, 0), at(k, len(sampleCounts)-1)
			if math.IsNaN(a) || math.IsNaN(z) {
				continue
			}
			n++
			if z > a {
				worse++
			}
			ratios = append(ratios, z/a)
			nlls = append(nlls, nllOf(k))
		}
		sort.Float64s(ratios)
		med := math.NaN()
		if len(ratios) > 0 {
			med = ratios[len(ratios)/2]
			if len(ratios)%2 == 0 {
				med = (ratios[len(ratios)/2-1] + ratios[len(ratios)/2]) / 2
			}
		}
		mn, _, _ := meanStd(nlls)
		fmt.Fprintf(&b, "| %s | %d of %d | %.3g | %.3f |\n", v, worse, n, med, mn)
	}
	if name == "hamming" {
		// Paired: tree against Hamming of the same length, per dataset.
		b.WriteString("\n## Tree against Hamming, same length (mean over datasets; per dataset: which has the lower value)\n\n" +
			"| length | rel MSE, mean of 256: tree / hamming | tree lower on | NLL: tree / hamming | tree lower on |\n|---:|---|---:|---|---:|\n")
		for _, L := range []int{6, 8, 10} {
			tv, hv := fmt.Sprintf("tree,length=%d", L), fmt.Sprintf("hamming,length=%d", L)
			var mt, mh, nt, nh []float64
			wm, wn, n := 0, 0, 0
			for _, ds := range names {
				a, z := at(key{ds, tv}, len(sampleCounts)-1), at(key{ds, hv}, len(sampleCounts)-1)
				na, nz := nllOf(key{ds, tv}), nllOf(key{ds, hv})
				if math.IsNaN(a) || math.IsNaN(z) || math.IsNaN(na) || math.IsNaN(nz) {
					continue
				}
				n++
				mt, mh, nt, nh = append(mt, a), append(mh, z), append(nt, na), append(nh, nz)
				wm += b2i(a < z)
				wn += b2i(na < nz)
			}
			if n == 0 {
				continue
			}
			x, _, _ := meanStd(mt)
			y, _, _ := meanStd(mh)
			u, _, _ := meanStd(nt)
			v, _, _ := meanStd(nh)
			fmt.Fprintf(&b, "| %d | %.4f / %.4f | %d of %d | %.3f / %.3f | %d of %d |\n", L, x, y, wm, n, u, v, wn, n)
		}
	}
	fmt.Fprintf(&b, "\nFigure: [%s.png](%s.png), one panel per dataset: relative MSE (log) against n (log), one line per variant.\n", name, name)
	if err := writeText(info.Ctx, filepath.Join(dir, "REPORT.md"), b.String()); err != nil {
		return err
	}
	var panels []*plot.Plot
	palette := []color.Color{color.NRGBA{200, 40, 20, 255}, color.NRGBA{30, 90, 200, 255}, color.NRGBA{40, 150, 60, 255},
		color.NRGBA{130, 50, 170, 255}, color.NRGBA{230, 140, 0, 255}, color.Black, color.NRGBA{0, 170, 170, 255}, color.NRGBA{150, 150, 150, 255}}
	for _, ds := range names {
		p := newPlot(ds, "samples n", "relative MSE")
		for vi, v := range variants {
			var xy plotter.XYs
			for i, n := range sampleCounts {
				if m := at(key{ds, v}, i); m > 0 {
					xy = append(xy, plotter.XY{X: float64(n), Y: m})
				}
			}
			label := ""
			if len(panels) == 0 {
				label = v
			}
			if err := addLine(p, xy, palette[vi%len(palette)], label, strings.Contains(v, "unbounded"), true); err != nil {
				return err
			}
		}
		logAxes(p, true, true)
		panels = append(panels, p)
	}
	return writeGrid(ctxOf(info), filepath.Join(dir, name+".png"), "Relative MSE of the mean of n samples (lower is better)",
		chunk(panels, 3), 15*vg.Inch, vg.Length(4*float64((len(panels)+2)/3))*vg.Inch+vg.Points(24))
}
