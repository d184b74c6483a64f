package main

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"decoreg"
	"decoreg/dist"
	"decoreg/internal/outfile"
	"decoreg/synth"
)

var cmdDemo = &Command{
	Name:      "demo",
	UsageLine: "demo [--out DIR] [--seed S] [--threads N] [--quick]",
	Short:     "train every head on synthetic data with a known density and plot the result",
	Long: `Demo shows decoding-based regression at work in about a minute, with no
files needed. It draws a training set and a separate test set from the
synthetic problem "mixture" of package synth, whose conditional density is
known exactly: x is uniform on [-1, 1] and y|x is a mixture of two Gaussians
whose weights and means move with x, so p(y|x) is bimodal with the mass
shifting from one mode to the other.

On the same encoder settings it trains the paper's decoder head (normalized
tokens) and the baseline heads riemann, mdn and pointwise, and prints the
test NLL of each (per unit of y, the original units), beside the NLL of the
true density on the same test rows: the gap is how far each head is from
the truth. It then writes DIR/demo.png (default DIR demo-out): for each
density head, samples drawn from its p(y|x) over a heat map of the true
density; for the pointwise head, its prediction and the true mean.

DIR is created, and checked to be writable, before training; demo.png is
written as 'decoreg help predict' describes for --out (atomically, a link
written through).

--quick uses tiny sizes (a few seconds; for tests). Interrupting (Ctrl-C)
stops at once, writes nothing, and ends by the signal (a shell's status
130).`,
	Run: runDemo,
}

// demoF holds demo's flags.
var demoF struct {
	out     string
	seed    uint64
	threads int
	quick   bool
}

func init() {
	fs := &cmdDemo.Flag
	fs.StringVar(&demoF.out, "out", "demo-out", "directory for demo.png (created if missing)")
	fs.Uint64Var(&demoF.seed, "seed", 1, "seed of the data and of training")
	fs.IntVar(&demoF.threads, "threads", 0, "matrix-kernel threads (0: all cores)")
	fs.BoolVar(&demoF.quick, "quick", false, "tiny sizes, for tests")
}

// demoSize sets the demo's sizes; quick ones for tests.
type demoSize struct {
	train, test, plotN   int
	encLayers, encWidth  int
	maxEpochs, patience  int
	batch                int
	vocab                string
	bins, comps, gridRes int
}

var (
	demoFull = demoSize{train: 20000, test: 2000, plotN: 2500, encLayers: 2, encWidth: 128,
		maxEpochs: 60, patience: 8, batch: 256, vocab: "normalized:base=4,length=6",
		bins: 128, comps: 5, gridRes: 160}
	demoQuick = demoSize{train: 400, test: 200, plotN: 200, encLayers: 1, encWidth: 8,
		maxEpochs: 2, patience: 2, batch: 64, vocab: "normalized:base=4,length=3",
		bins: 16, comps: 2, gridRes: 40}
)

// demoTestSeed is added to --seed to draw the test set.
const demoTestSeed = 1000003

// demoHead is one trained head of the demo.
type demoHead struct {
	name  string
	cfg   decoreg.Config
	model *decoreg.Model
	eval  *decoreg.Eval
	secs  float64
}

func runDemo(cmd *Command, args []string) (err error) {
	out, seed, threads, quick := &demoF.out, &demoF.seed, &demoF.threads, &demoF.quick
	if len(args) > 0 {
		return usagef("demo: unexpected argument %q", args[0])
	}
	if *threads < 0 || *threads > decoreg.MaxThreads {
		return usagef("demo: --threads must be in [0, %d] (0: every core), have %d", decoreg.MaxThreads, *threads)
	}
	if *out == "" {
		return usagef("demo: --out must name a directory")
	}
	if fi, err := os.Stat(*out); err == nil && !fi.IsDir() {
		return usagef("demo: --out %s is not a directory", *out)
	}
	png := filepath.Join(*out, "demo.png")
	// The directories made here, deepest first: an interrupted or failed
	// demo, which writes nothing, leaves none of them (os.Remove removes
	// only an empty one).
	var made []string
	for d := filepath.Clean(*out); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) || d == filepath.Dir(d) {
			break
		}
		made = append(made, d)
	}
	if err := makeOutDir("demo", *out); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			for _, d := range made {
				os.Remove(d)
			}
		}
	}()
	if err := outfile.Check(png); err != nil {
		return usagef("demo: --out %s: %s: %v", *out, png, err)
	}
	size := demoFull
	if *quick {
		size = demoQuick
	}
	ctx, stop := onInterrupt(func() {}) // the first signal stops gracefully, a second exits
	defer stop()
	start := time.Now()

	prob := synth.NewMixture(1)
	xTr, yTr := prob.Sample(size.train, *seed)
	xTe, yTe := prob.Sample(size.test, *seed+demoTestSeed)
	fmt.Fprintf(stdout, "decoreg demo: y|x is a two-component Gaussian mixture whose weights and means move with x\n")
	fmt.Fprintf(stdout, "(synth %s, x uniform on [-1, 1]); %d training rows, %d test rows, seed %d\n\n",
		strconv.Quote(prob.Name()), size.train, size.test, *seed)

	base := decoreg.Config{EncLayers: size.encLayers, EncWidth: size.encWidth, BatchSize: size.batch,
		MaxEpochs: size.maxEpochs, Patience: size.patience, LR: 1e-3, Seed: *seed, Threads: *threads}
	heads := []*demoHead{
		{name: "decoder", cfg: withHead(base, decoreg.HeadDecoder, func(c *decoreg.Config) { c.Vocab = size.vocab })},
		{name: "riemann", cfg: withHead(base, decoreg.HeadRiemann, func(c *decoreg.Config) { c.Bins = size.bins })},
		{name: "mdn", cfg: withHead(base, decoreg.HeadMDN, func(c *decoreg.Config) { c.Components = size.comps })},
		{name: "pointwise", cfg: withHead(base, decoreg.HeadPointwise, nil)},
	}
	for _, h := range heads {
		t0 := time.Now()
		m, err := decoreg.FitFlat(ctx, xTr, size.train, 1, yTr, h.cfg)
		if ctx.Err() != nil {
			return interruptedf("demo", "interrupted while training %s; nothing written", h.name)
		}
		if err != nil {
			return fmt.Errorf("demo: training %s: %v", h.name, err)
		}
		ev, err := m.Evaluate(context.Background(), xTe, size.test, yTe, "median")
		if err != nil {
			return fmt.Errorf("demo: evaluating %s: %v", h.name, err)
		}
		if ctx.Err() != nil {
			return interruptedf("demo", "interrupted while evaluating %s; nothing written", h.name)
		}
		h.model, h.eval, h.secs = m, ev, time.Since(t0).Seconds()
		fmt.Fprintf(errOut, "demo: trained %s in %.1fs (%d epochs)\n", h.name, h.secs, m.Info().Epochs)
	}
	trueNLL := synth.TrueNLL(prob, xTe, yTe)

	const row = "%-13s %-30s %9s %13s %7s %8s\n"
	fmt.Fprintf(stdout, row, "head", "settings", "test NLL", "gap to truth", "epochs", "seconds")
	fmt.Fprintf(stdout, row, "true density", "", fmt.Sprintf("%.3f", trueNLL), "", "", "")
	for _, h := range heads {
		nll, gap := "n/a", "n/a"
		if !math.IsNaN(h.eval.NLL) {
			nll, gap = fmt.Sprintf("%.3f", h.eval.NLL), fmt.Sprintf("%+.3f", h.eval.NLL-trueNLL)
		}
		fmt.Fprintf(stdout, row, h.name, demoSettings(h.model.Config()), nll, gap,
			fmt.Sprint(h.model.Info().Epochs), fmt.Sprintf("%.1f", h.secs))
	}
	fmt.Fprintf(stdout, "\nNLL is the mean of -log p(y|x) over the test rows, per unit of y (lower is better;\n")
	fmt.Fprintf(stdout, "the true density's NLL is the best any model can expect). The pointwise head has no density.\n")

	if err := ctx.Err(); err != nil {
		return interruptedf("demo", "interrupted; nothing written")
	}
	err = writeOutput("demo", "out", png, func(w io.Writer) error {
		return demoPlot(w, prob, heads, trueNLL, size, *seed)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nwrote %s; elapsed %.1fs\n", png, time.Since(start).Seconds())
	return nil
}

func withHead(c decoreg.Config, h decoreg.Head, set func(*decoreg.Config)) decoreg.Config {
	c.Head = h
	if set != nil {
		set(&c)
	}
	return decoreg.DefaultConfig(c)
}

// demoSettings describes a head's own settings for the table.
func demoSettings(c decoreg.Config) string {
	enc := fmt.Sprintf("enc %dx%d", c.EncLayers, c.EncWidth)
	switch c.Head {
	case decoreg.HeadDecoder:
		return fmt.Sprintf("%s, %s", enc, strings.TrimPrefix(c.Vocab, "normalized:"))
	case decoreg.HeadRiemann:
		return fmt.Sprintf("%s, %d bins", enc, c.Bins)
	case decoreg.HeadMDN:
		return fmt.Sprintf("%s, %d components", enc, c.Components)
	}
	return enc
}

// densityGrid is the true density p(y|x) on a regular grid, for a heat map.
type densityGrid struct {
	xs, ys []float64
	z      []float64 // (len(xs), len(ys)), column-major by x
}

func (g *densityGrid) Dims() (c, r int)   { return len(g.xs), len(g.ys) }
func (g *densityGrid) Z(c, r int) float64 { return g.z[c*len(g.ys)+r] }
func (g *densityGrid) X(c int) float64    { return g.xs[c] }
func (g *densityGrid) Y(r int) float64    { return g.ys[r] }

func newDensityGrid(p synth.Problem, x0, x1, y0, y1 float64, n int) *densityGrid {
	g := &densityGrid{xs: make([]float64, n), ys: make([]float64, n), z: make([]float64, n*n)}
	for i := range n {
		g.xs[i] = x0 + (x1-x0)*(float64(i)+0.5)/float64(n)
		g.ys[i] = y0 + (y1-y0)*(float64(i)+0.5)/float64(n)
	}
	for c, x := range g.xs {
		for r, y := range g.ys {
			g.z[c*n+r] = math.Exp(p.LogPDF([]float64{x}, y))
		}
	}
	return g
}

// ramp is a palette from white to a muted blue, for the true density.
type ramp []color.Color

func (p ramp) Colors() []color.Color { return p }

func newRamp(n int) ramp {
	lo, hi := [3]float64{255, 255, 255}, [3]float64{70, 110, 170}
	p := make(ramp, n)
	for i := range p {
		t := math.Pow(float64(i)/float64(n-1), 0.8)
		var c [3]uint8
		for k := range c {
			c[k] = uint8(math.Round(lo[k] + (hi[k]-lo[k])*t))
		}
		p[i] = color.NRGBA{c[0], c[1], c[2], 255}
	}
	return p
}

// demoPlot draws a 2x2 grid of panels, one per head, and encodes it as PNG.
func demoPlot(w io.Writer, p synth.Problem, heads []*demoHead, trueNLL float64, size demoSize, seed uint64) error {
	const x0, x1 = -1.0, 1.0
	// The y range: the true 0.1% and 99.9% quantiles over x.
	y0, y1 := math.Inf(1), math.Inf(-1)
	for i := 0; i <= 20; i++ {
		x := []float64{x0 + (x1-x0)*float64(i)/20}
		y0 = min(y0, synth.Quantile(p, x, 0.001))
		y1 = max(y1, synth.Quantile(p, x, 0.999))
	}
	pad := 0.05 * (y1 - y0)
	y0, y1 = y0-pad, y1+pad
	grid := newDensityGrid(p, x0, x1, y0, y1, size.gridRes)
	pal := newRamp(64)

	// The x values where the heads are sampled: evenly spread, shuffled.
	r := rand.New(rand.NewPCG(seed, 0xdec0))
	xs := make([]float64, size.plotN)
	for i := range xs {
		xs[i] = x0 + (x1-x0)*(float64(i)+r.Float64())/float64(len(xs))
	}

	plots := make([][]*plot.Plot, 2)
	for i := range plots {
		plots[i] = make([]*plot.Plot, 2)
	}
	for k, h := range heads {
		pl := plot.New()
		pl.X.Label.Text = "x"
		pl.Y.Label.Text = "y"
		pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = x0, x1, y0, y1
		hm := plotter.NewHeatMap(grid, pal)
		hm.Rasterized = true
		hm.Min = 0
		pl.Add(hm)
		if h.model.Config().Head == decoreg.HeadPointwise {
			pl.Title.Text = fmt.Sprintf("pointwise (no density): prediction vs true mean; rel MSE %.3f", h.eval.RelMSE)
			if err := demoPointLines(pl, p, h.model); err != nil {
				return err
			}
		} else {
			pl.Title.Text = fmt.Sprintf("%s (%s): test NLL %.3f, truth %.3f", h.name, demoSettings(h.model.Config()), h.eval.NLL, trueNLL)
			ds, err := h.model.Dists(context.Background(), xs, len(xs), dist.TokenOptions{})
			if err != nil {
				return err
			}
			pts := make(plotter.XYs, 0, len(xs))
			for i, d := range ds {
				y := d.Sample(1, dist.SampleOptions{}, r)[0]
				if y >= y0 && y <= y1 {
					pts = append(pts, plotter.XY{X: xs[i], Y: y})
				}
			}
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return err
			}
			sc.GlyphStyle.Shape = draw.CircleGlyph{}
			sc.GlyphStyle.Radius = vg.Points(1)
			sc.GlyphStyle.Color = color.NRGBA{200, 50, 10, 180}
			pl.Add(sc)
		}
		plots[k/2][k%2] = pl
	}

	const width, height = 11 * vg.Inch, 8.5 * vg.Inch
	img := vgimg.New(width, height)
	dc := draw.New(img)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	title := "decoreg demo: dots are samples from each head's p(y|x); the blue background is the true density p(y|x)"
	titleH := vg.Points(24)
	top := draw.Canvas{Canvas: dc.Canvas, Rectangle: dc.Rectangle}
	top.Max.Y -= titleH
	sty := draw.TextStyle{Color: color.Black, Font: plot.DefaultFont, Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YCenter}
	sty.Font.Size = vg.Points(13)
	dc.FillText(sty, vg.Point{X: width / 2, Y: height - titleH/2}, title)
	tiles := draw.Tiles{Rows: 2, Cols: 2, PadX: vg.Points(18), PadY: vg.Points(18),
		PadTop: vg.Points(4), PadBottom: vg.Points(8), PadLeft: vg.Points(8), PadRight: vg.Points(20)}
	canvases := plot.Align(plots, tiles, top)
	for i := range plots {
		for j := range plots[i] {
			if plots[i][j] != nil {
				plots[i][j].Draw(canvases[i][j])
			}
		}
	}
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// demoPointLines adds the pointwise prediction and the true mean E[y|x].
func demoPointLines(pl *plot.Plot, p synth.Problem, m *decoreg.Model) error {
	const n = 200
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = -1 + 2*float64(i)/float64(n-1)
	}
	pred, err := m.PredictFlat(context.Background(), xs, n, decoreg.PredictOptions{Outputs: decoreg.OutMean})
	if err != nil {
		return err
	}
	model, truth := make(plotter.XYs, n), make(plotter.XYs, n)
	for i, x := range xs {
		model[i] = plotter.XY{X: x, Y: pred.Mean[i]}
		truth[i] = plotter.XY{X: x, Y: p.Mean([]float64{x})}
	}
	sort.Slice(model, func(i, j int) bool { return model[i].X < model[j].X })
	lm, err := plotter.NewLine(model)
	if err != nil {
		return err
	}
	lm.Color, lm.Width = color.NRGBA{200, 60, 20, 255}, vg.Points(2)
	lt, err := plotter.NewLine(truth)
	if err != nil {
		return err
	}
	lt.Color, lt.Width, lt.Dashes = color.Black, vg.Points(1.5), []vg.Length{vg.Points(5), vg.Points(3)}
	pl.Add(lm, lt)
	pl.Legend.Add("pointwise prediction", lm)
	pl.Legend.Add("true mean E[y|x]", lt)
	pl.Legend.Top, pl.Legend.Left = true, true
	pl.Legend.XOffs = vg.Points(8)
	return nil
}
