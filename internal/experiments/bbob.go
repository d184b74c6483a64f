package experiments

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"decoreg/synth"
)

// The BBOB experiment (the paper's Table 1 and its Appendix figure,
// DESIGN.md section 8.3): Kendall's tau of each head's point estimate on
// the 24 BBOB functions of google/vizier (seed 0, no rotation), x uniform
// on [-5, 5]^D.

// BBOBLine is one run of the BBOB experiment.
type BBOBLine struct {
	RegressLine
	Function string `json:"function"`
	Dim      int    `json:"dim"`
}

// bbobHeads are the heads of the paper's table, in its row order.
var bbobHeads = []string{DecoderUnnormalized, DecoderNormalized, Pointwise, Riemann}

// bbobPaper is the paper's Table 1: mean tau x 100 over the functions, per
// head and dimension 5, 10, 15, 20.
var bbobPaper = map[string][4]float64{
	DecoderUnnormalized: {89.56, 88.71, 87.49, 86.11},
	DecoderNormalized:   {89.40, 88.54, 86.90, 86.02},
	Pointwise:           {89.08, 88.25, 88.06, 86.78},
	Riemann:             {88.94, 88.30, 87.42, 86.78},
}

var bbobDims = []int{5, 10, 15, 20}

// bbobTest is the number of test points of every run.
const bbobTest = 2000

// BBOBDefaultN is the default number of training points (the paper: 100K).
const BBOBDefaultN = 10000

// BBOBTasks returns the BBOB runs: function (vizier's order) x dim x head x
// seed, with opts.N training points (default BBOBDefaultN) and opts.Seeds
// seeds (default 1).
func BBOBTasks(opts Options) []Task[*BBOBLine] {
	n, seeds, dims, fns := nOr(opts, BBOBDefaultN, 500), seedsOr(opts, 1), bbobDims, synth.BBOBNames()
	if opts.Quick {
		dims, fns = []int{5}, []string{"Sphere", "Rastrigin"}
	}
	var tasks []Task[*BBOBLine]
	for _, fn := range fns {
		for _, d := range dims {
			for _, h := range bbobHeads {
				for s := range seeds {
					fn, d, h, s := fn, d, h, s
					tasks = append(tasks, Task[*BBOBLine]{
						Key: fmt.Sprintf("function=%s,dim=%d,head=%s,n=%d,seed=%d", fn, d, h, n, s),
						Run: func(ctx context.Context) (*BBOBLine, error) { return runBBOB(ctx, fn, d, h, n, s, opts) },
					})
				}
			}
		}
	}
	return tasks
}

func runBBOB(ctx context.Context, fn string, dim int, head string, n, seed int, opts Options) (*BBOBLine, error) {
	src, err := synth.ParseSource(fmt.Sprintf("bbob:function=%s,dim=%d", fn, dim))
	if err != nil {
		return nil, err
	}
	// The data of `decoreg synth SPEC --n N --seed 2*seed` (test: 2*seed+1).
	xtr, ytr := src.Draw(n, uint64(2*seed))
	xte, yte := src.Draw(bbobTest, uint64(2*seed+1))
	cfg, err := HeadConfig(head)
	if err != nil {
		return nil, err
	}
	cfg.Seed, cfg.Threads = uint64(seed), opts.Threads
	if opts.Quick {
		cfg.MaxEpochs = 3
	}
	l := &BBOBLine{Function: fn, Dim: dim}
	l.Head, l.Seed, l.N = head, seed, n
	if _, err := fitEval(ctx, &l.RegressLine, cfg, xtr, dim, ytr, xte, yte); err != nil {
		return nil, err
	}
	return l, nil
}

func bbobExperiment() *Experiment {
	return experiment("bbob", "Kendall's tau on the 24 BBOB functions in 5, 10, 15 and 20 dimensions, four heads",
		func(o Options) string {
			return fmt.Sprintf("%d runs, %d training points and %d test points each, %d seed(s)%s", len(BBOBTasks(o)), nOr(o, BBOBDefaultN, 500), bbobTest, seedsOr(o, 1), quickNote(o))
		},
		noErr(BBOBTasks), func() *BBOBLine { return new(BBOBLine) },
		func(l *BBOBLine) string {
			if l.Error != "" {
				return "FAILED: " + l.Error
			}
			return fmt.Sprintf("tau %s, %d epochs", logNum("%.3f", float64(l.KendallTau)), l.Epochs)
		},
		BBOBReport)
}

// BBOBReport writes dir/REPORT.md and dir/bbob.png from the BBOB lines.
func BBOBReport(dir string, lines []*BBOBLine, info ReportInfo) error {
	type cell struct {
		fn, head string
		dim      int
	}
	taus := map[cell][]float64{}
	fnSet, dimSet := map[string]bool{}, map[int]bool{}
	failed := 0
	for _, l := range lines {
		if l.Error != "" {
			failed++
		}
		taus[cell{l.Function, l.Head, l.Dim}] = append(taus[cell{l.Function, l.Head, l.Dim}], float64(l.KendallTau))
		fnSet[l.Function], dimSet[l.Dim] = true, true
	}
	var fns []string
	for _, f := range synth.BBOBNames() {
		if fnSet[f] {
			fns = append(fns, f)
		}
	}
	dims := sortedInts(dimSet)
	// The mean over functions of each (head, dim), over the functions that
	// every head has a finite tau for in that dim (paired).
	meanTau := func(head string, dim int) (float64, int) {
		s, n := 0.0, 0
		for _, f := range fns {
			ok := true
			for _, h := range bbobHeads {
				if m, _, c := meanStd(taus[cell{f, h, dim}]); c == 0 || math.IsNaN(m) {
					ok = false
				}
			}
			if !ok {
				continue
			}
			m, _, _ := meanStd(taus[cell{f, head, dim}])
			s += m
			n++
		}
		return s / float64(n), n
	}
	var b strings.Builder
	b.WriteString("# BBOB: Kendall's tau of four heads on 24 synthetic functions\n\n")
	b.WriteString("The paper's Table 1 and its Appendix figure (DESIGN.md section 8.3): the 24 functions of google/vizier's " +
		"`bbob.py` (seed 0: no rotation; `decoreg synth bbob:function=NAME,dim=D` writes them), x uniform on [-5, 5]^D, " +
		"y = f(x) without noise; Kendall's tau between each head's point estimate (median for the unnormalized decoder, " +
		"mean otherwise) and the test targets. The data of seed s are `decoreg synth bbob:function=F,dim=D --n N --seed 2s` " +
		"(training) and `--seed 2s+1` (test). Every head uses decoreg's defaults (encoder 2×256; decoder 1 layer × 32; " +
		"`normalized:base=8,length=6`, `unnormalized:base=10,exponent=1,mantissa=4`; Riemann 256 bins; Adam 5e-4, batch 32, " +
		"early stopping on 10% with patience 5), with no per-function tuning (the paper swept its grid).\n\n")
	fmt.Fprintf(&b, "Scale: %s. Command: `%s`.\n\n%s\n\n", info.Scale, info.Command, Provenance(lines))
	if failed > 0 {
		fmt.Fprintf(&b, "%d run(s) failed and are left out:", failed)
		for _, l := range lines {
			if l.Error != "" {
				fmt.Fprintf(&b, " %s D=%d %s (%s);", l.Function, l.Dim, l.Head, strings.TrimPrefix(l.Error, "decoreg: "))
			}
		}
		b.WriteString(" a function counts in a dimension's mean only where every head has a tau.\n\n")
	}
	b.WriteString("## Mean Kendall's tau × 100 over the functions (ours, and the paper's in brackets)\n\n| head |")
	mdColumns(&b, labels(dims, func(d int) string { return fmt.Sprintf("D = %d", d) }), "---:")
	nUsed := map[int]int{}
	for _, h := range bbobHeads {
		fmt.Fprintf(&b, "| %s |", h)
		for _, d := range dims {
			m, n := meanTau(h, d)
			nUsed[d] = n
			paper := ""
			if k := sort.SearchInts(bbobDims, d); k < len(bbobDims) && bbobDims[k] == d {
				paper = fmt.Sprintf(" (%.2f)", bbobPaper[h][k])
			}
			fmt.Fprintf(&b, " %.2f%s |", 100*m, paper)
		}
		b.WriteString("\n")
	}
	b.WriteString("\nFunctions in each mean:")
	for _, d := range dims {
		fmt.Fprintf(&b, " D = %d: %d;", d, nUsed[d])
	}
	b.WriteString(" (a function counts where every head has a tau).\n\n")
	b.WriteString("## Per function: tau × 100 (mean over seeds), heads in the order above\n\n| function |")
	mdColumns(&b, labels(dims, func(d int) string { return fmt.Sprintf("D = %d", d) }), "---")
	for _, f := range fns {
		fmt.Fprintf(&b, "| %s |", f)
		for _, d := range dims {
			var parts []string
			best := math.Inf(-1)
			for _, h := range bbobHeads {
				if m, _, c := meanStd(taus[cell{f, h, d}]); c > 0 {
					best = math.Max(best, m)
				}
			}
			for _, h := range bbobHeads {
				m, _, c := meanStd(taus[cell{f, h, d}])
				switch {
				case c == 0:
					parts = append(parts, "—")
				case m == best:
					parts = append(parts, fmt.Sprintf("**%.1f**", 100*m))
				default:
					parts = append(parts, fmt.Sprintf("%.1f", 100*m))
				}
			}
			fmt.Fprintf(&b, " %s |", strings.Join(parts, " / "))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nFigure: [bbob.png](bbob.png), tau against the dimension per function and head.\n")
	if err := writeText(info.Ctx, filepath.Join(dir, "REPORT.md"), b.String()); err != nil {
		return err
	}

	var panels []*plot.Plot
	for _, f := range fns {
		p := newPlot(f, "D", "tau")
		for _, h := range bbobHeads {
			var xy plotter.XYs
			for _, d := range dims {
				if m, _, c := meanStd(taus[cell{f, h, d}]); c > 0 {
					xy = append(xy, plotter.XY{X: float64(d), Y: m})
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
		p.Legend.Top, p.Legend.Left = false, true
		panels = append(panels, p)
	}
	var grid [][]*plot.Plot
	for i := 0; i < len(panels); i += 6 {
		grid = append(grid, panels[i:min(i+6, len(panels))])
	}
	return writeGrid(ctxOf(info), filepath.Join(dir, "bbob.png"), "Kendall's tau vs input dimension on the BBOB functions (higher is better)",
		grid, 16*vg.Inch, vg.Length(2.6*float64(len(grid)))*vg.Inch+vg.Points(24))
}
