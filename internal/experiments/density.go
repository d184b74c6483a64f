package experiments

import (
	"context"
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"decoreg"
	"decoreg/dist"
	"decoreg/synth"
)

// The density experiment (the paper's Figure 8 and its Appendix Figure 15,
// DESIGN.md section 8.6): conditional shapes p(y|x) with exact densities,
// fitted by the unnormalized decoder, an MDN and a Riemann head; samples
// over the truth, and each head's test NLL against the truth's.

// DensityLine is one run of the density experiment.
type DensityLine struct {
	RegressLine
	Shape   string `json:"shape"`
	TrueNLL Float  `json:"true_nll"` // the true density's NLL on the same test rows
	// SampleX are evenly spread x values, and Samples one draw of the
	// model at each, per sampling setting ("t1": temperature 1; for the
	// decoder also "t0.5", "top_p0.9", "top_k3").
	SampleX []float64            `json:"sample_x"`
	Samples map[string][]float64 `json:"samples"`
}

var densityHeads = []string{DecoderUnnormalized, MDN, Riemann}

// DensityDefaultN is the default number of training points.
const DensityDefaultN = 50000

const (
	densityTest    = 10000
	densitySamples = 1500
)

// densitySettings are the decoder's sampling settings of the Appendix
// figure; the baselines are sampled at temperature 1 only. The draws are
// the cells' centres, the paper's decoded values (and those of the
// committed results, made before draws within the cells were the default).
var densitySettings = []struct {
	name string
	o    dist.SampleOptions
}{
	{"t1", dist.SampleOptions{Centres: true}},
	{"t0.5", dist.SampleOptions{Temperature: 0.5, Centres: true}},
	{"top_p0.9", dist.SampleOptions{TopP: 0.9, Centres: true}},
	{"top_k3", dist.SampleOptions{TopK: 3, Centres: true}},
}

// DensityConfig is the configuration of a density run: the head's
// defaults, the unnormalized decoder with the Appendix's B=10, E=1, M=5.
func DensityConfig(head string, seed int, opts Options) (decoreg.Config, error) {
	cfg, err := synthConfig(head, seed, 128, 0, opts)
	if head == DecoderUnnormalized {
		cfg.Vocab = "unnormalized:base=10,exponent=1,mantissa=5"
	}
	return cfg, err
}

// DensityTasks returns the density runs: shape x head x seed.
func DensityTasks(opts Options) []Task[*DensityLine] {
	n, seeds, shapes := nOr(opts, DensityDefaultN, 1000), seedsOr(opts, 1), synth.AllNames()
	if opts.Quick {
		shapes = shapes[:2]
	}
	var tasks []Task[*DensityLine]
	for _, sh := range shapes {
		for _, h := range densityHeads {
			for s := range seeds {
				sh, h, s := sh, h, s
				tasks = append(tasks, Task[*DensityLine]{
					Key: fmt.Sprintf("shape=%s,head=%s,n=%d,seed=%d", sh, h, n, s),
					Run: func(ctx context.Context) (*DensityLine, error) { return runDensity(ctx, sh, h, n, s, opts) },
				})
			}
		}
	}
	return tasks
}

func runDensity(ctx context.Context, shape, head string, n, seed int, opts Options) (*DensityLine, error) {
	p, err := synth.New(shape, 1)
	if err != nil {
		return nil, err
	}
	cfg, err := DensityConfig(head, seed, opts)
	if err != nil {
		return nil, err
	}
	nTest, nSamples := densityTest, densitySamples
	if opts.Quick {
		nTest, nSamples = 1000, 300
	}
	xtr, ytr := p.Sample(n, uint64(2*seed))
	xte, yte := p.Sample(nTest, uint64(2*seed+1))
	l := &DensityLine{Shape: shape, TrueNLL: Float(synth.TrueNLL(p, xte, yte))}
	l.Head, l.Seed, l.N = head, seed, n
	m, err := fitEval(ctx, &l.RegressLine, cfg, xtr, 1, ytr, xte, yte)
	if err != nil || m == nil {
		return l, err
	}
	l.SampleX = make([]float64, nSamples)
	r := rand.New(rand.NewPCG(uint64(seed), 0xd5))
	for i := range l.SampleX {
		l.SampleX[i] = -1 + 2*(float64(i)+r.Float64())/float64(nSamples)
	}
	ds, err := m.Dists(ctx, l.SampleX, nSamples, dist.TokenOptions{})
	if err != nil {
		return nil, err
	}
	l.Samples = map[string][]float64{}
	for _, st := range densitySettings {
		if head != DecoderUnnormalized && st.name != "t1" {
			continue
		}
		ys := make([]float64, nSamples)
		for i, d := range ds {
			ys[i] = d.Sample(1, st.o, r)[0]
		}
		l.Samples[st.name] = ys
	}
	return l, nil
}

func densityExperiment() *Experiment {
	return experiment("density", "density estimation: samples of p(y|x) over the truth for six shapes, three heads",
		func(o Options) string {
			return fmt.Sprintf("%d runs, %d training points each, %d test points%s", len(DensityTasks(o)), nOr(o, DensityDefaultN, 1000), densityTest, quickNote(o))
		},
		noErr(DensityTasks), func() *DensityLine { return new(DensityLine) },
		func(l *DensityLine) string {
			if l.Error != "" {
				return "FAILED: " + l.Error
			}
			return fmt.Sprintf("nll %.4f (truth %.4f), %d epochs", float64(l.NLL), float64(l.TrueNLL), l.Epochs)
		},
		DensityReport)
}

// DensityReport writes dir/REPORT.md, dir/density.png (temperature-1
// samples of every head) and dir/density-sampling.png (the decoder's
// sampling settings).
func DensityReport(dir string, lines []*DensityLine, info ReportInfo) error {
	by := map[string]map[string]*DensityLine{}
	for _, l := range lines {
		if l.Seed != 0 {
			continue
		}
		if by[l.Shape] == nil {
			by[l.Shape] = map[string]*DensityLine{}
		}
		by[l.Shape][l.Head] = l
	}
	var shapes []string
	for _, s := range synth.AllNames() {
		if by[s] != nil {
			shapes = append(shapes, s)
		}
	}
	var b strings.Builder
	b.WriteString("# Density estimation\n\n")
	b.WriteString("The paper's Figure 8 and its Appendix Figure 15 (DESIGN.md section 8.6): conditional shapes p(y|x) with exact " +
		"log-densities (`decoreg synth density:name=NAME --seed 0` for training, `--seed 1` for the test rows; x uniform on [-1, 1]), fitted by the unnormalized decoder " +
		"(`unnormalized:base=10,exponent=1,mantissa=5`, the Appendix's), an MDN (5 components) and a Riemann head (256 bins); " +
		"encoder 2×256, batch 128, Adam 5e-4, early stopping. Test NLL per unit of y against the true density's NLL on the " +
		"same test rows (the gap is the KL divergence from the truth, estimated; lower is better, 0 is perfect).\n\n")
	fmt.Fprintf(&b, "Scale: %s. Command: `%s`.\n\n%s\n\n", info.Scale, info.Command, Provenance(lines))
	b.WriteString("## Test NLL (gap to the truth in brackets; seed 0)\n\n| shape | truth |")
	for _, h := range densityHeads {
		fmt.Fprintf(&b, " %s |", h)
	}
	b.WriteString("\n|---|---:|")
	for range densityHeads {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, s := range shapes {
		tru := math.NaN()
		best := math.Inf(1)
		for _, h := range densityHeads {
			if l := by[s][h]; l != nil && l.Error == "" {
				tru = float64(l.TrueNLL)
				best = math.Min(best, float64(l.NLL))
			}
		}
		fmt.Fprintf(&b, "| %s | %.4f |", s, tru)
		for _, h := range densityHeads {
			l := by[s][h]
			switch {
			case l == nil:
				b.WriteString(" — |")
			case l.Error != "":
				b.WriteString(" failed |")
			default:
				cell := fmt.Sprintf("%.4f (+%.4f)", float64(l.NLL), float64(l.NLL)-float64(l.TrueNLL))
				if float64(l.NLL) == best {
					cell = "**" + cell + "**"
				}
				fmt.Fprintf(&b, " %s |", cell)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\nFigures: [density.png](density.png), one row per shape, one column per head: samples at temperature 1 " +
		"(dots) over the true density (shading); [density-sampling.png](density-sampling.png), the decoder's samples at " +
		"temperature 1, temperature 0.5, top-p 0.9 and top-k 3, as the paper's Appendix figure.\n")
	if err := writeText(info.Ctx, filepath.Join(dir, "REPORT.md"), b.String()); err != nil {
		return err
	}
	if err := densityFigure(ctxOf(info), filepath.Join(dir, "density.png"), "Samples at temperature 1 (dots) over the true p(y|x) (shading)",
		shapes, densityHeads, func(s, h string) (*DensityLine, string) { return by[s][h], "t1" }); err != nil {
		return err
	}
	var cols []string
	for _, st := range densitySettings {
		cols = append(cols, st.name)
	}
	return densityFigure(ctxOf(info), filepath.Join(dir, "density-sampling.png"), "The unnormalized decoder's samples under four sampling settings",
		shapes, cols, func(s, c string) (*DensityLine, string) { return by[s][DecoderUnnormalized], c })
}

func densityFigure(ctx context.Context, path, title string, shapes, cols []string, cell func(shape, col string) (*DensityLine, string)) error {
	var grid [][]*plot.Plot
	for _, s := range shapes {
		prob, err := synth.New(s, 1)
		if err != nil {
			return err
		}
		// The y range: the true 0.5% and 99.5% quantiles over x.
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := 0; i <= 20; i++ {
			x := []float64{-1 + 2*float64(i)/20}
			lo, hi = math.Min(lo, synth.Quantile(prob, x, 0.005)), math.Max(hi, synth.Quantile(prob, x, 0.995))
		}
		pad := 0.1 * (hi - lo)
		lo, hi = lo-pad, hi+pad
		var row []*plot.Plot
		for _, c := range cols {
			l, key := cell(s, c)
			title := s + ", " + c
			if l != nil && l.Error == "" && key == "t1" {
				title = fmt.Sprintf("%s, %s: NLL %.3f (truth %.3f)", s, l.Head, float64(l.NLL), float64(l.TrueNLL))
			}
			p := newPlot(title, "x", "y")
			p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -1, 1, lo, hi
			hm := plotter.NewHeatMap(&densityGrid{prob, lo, hi, 80}, blues{})
			hm.Rasterized, hm.Min = true, 0
			p.Add(hm)
			if l != nil && l.Samples[key] != nil {
				var pts plotter.XYs
				for i, y := range l.Samples[key] {
					if y >= lo && y <= hi {
						pts = append(pts, plotter.XY{X: l.SampleX[i], Y: y})
					}
				}
				if err := addScatter(p, pts, color.NRGBA{200, 50, 10, 170}, vg.Points(1), ""); err != nil {
					return err
				}
			}
			row = append(row, p)
		}
		grid = append(grid, row)
	}
	return writeGrid(ctx, path, title, grid, vg.Length(3.6*float64(len(cols)))*vg.Inch, vg.Length(2.6*float64(len(grid)))*vg.Inch+vg.Points(24))
}

// densityGrid is the true density on an n x n grid for a heat map.
type densityGrid struct {
	p      synth.Problem
	lo, hi float64
	n      int
}

func (g *densityGrid) Dims() (c, r int)   { return g.n, g.n }
func (g *densityGrid) X(c int) float64    { return -1 + 2*(float64(c)+0.5)/float64(g.n) }
func (g *densityGrid) Y(r int) float64    { return g.lo + (g.hi-g.lo)*(float64(r)+0.5)/float64(g.n) }
func (g *densityGrid) Z(c, r int) float64 { return math.Exp(g.p.LogPDF([]float64{g.X(c)}, g.Y(r))) }

// blues is a white-to-blue colour map for densities.
type blues struct{}

func (b blues) Colors() []color.Color {
	out := make([]color.Color, 64)
	for i := range out {
		t := float64(i) / 63
		out[i] = color.NRGBA{uint8(255 - 200*t), uint8(255 - 150*t), 255, 255}
	}
	return out
}
