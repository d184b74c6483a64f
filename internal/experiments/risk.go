package experiments

import (
	"context"
	"fmt"
	"io"
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
	"decoreg/internal/outfile"
	"decoreg/synth"
)

// The risk experiment (the paper's Figure "empirical risk", DESIGN.md
// section 8.1): the truncated normal N(0.5, 0.25^2) on [0, 1] fitted by a
// decoder with binary tokens of length K and by a Riemann head of 2^K
// bins, for N training draws; the mean integrated squared error of the
// estimated density against the theorem's bias + variance.

// RiskLine is one run of the risk experiment.
type RiskLine struct {
	Meta
	Head       string  `json:"head"` // "decoder" (normalized:base=2,length=K) or "riemann" (2^K bins)
	N          int     `json:"n"`
	K          int     `json:"k"`
	Seed       int     `json:"seed"`
	MISE       Float   `json:"mise"`        // exact integral of (f - f_hat)^2 over [0, 1]
	MISETheory Float   `json:"mise_theory"` // 2^(-2K)/12 * integral(f'^2) + 2^K/N
	MISELevels []Float `json:"mise_levels,omitempty"`
	// P is the model's probability of each of the 2^K cells (kept for K <= 8).
	P          []float64      `json:"p,omitempty"`
	TestNLL    Float          `json:"test_nll"` // on 10,000 fresh draws, per unit of y
	TrueNLL    Float          `json:"true_nll"` // the truth's NLL on the same draws
	Epochs     int            `json:"epochs"`
	Config     decoreg.Config `json:"config"`
	TrainRows  int            `json:"train_rows"`
	ValRows    int            `json:"val_rows"`
	TrainSecs  float64        `json:"train_seconds"`
	Stopped    string         `json:"stopped"`
	MassErrMax float64        `json:"mass_err"` // |1 - sum of the cell probabilities|
}

// Options scale the synthetic experiments.
type Options struct {
	Quick   bool // a small version for tests (well under a minute)
	N       int  // training points (0: the experiment's default)
	Seeds   int  // runs per setting (0: the default)
	Threads int  // threads per run

	// The real-data experiments: the directory of datasets (each a
	// directory holding data.csv.gz and test_mask.csv.gz) and the
	// datasets to use (nil: the experiment's default).
	DataDir  string
	Datasets []string

	// Groups chooses, for experiments that have them (Experiment.Groups),
	// which groups of runs the plan holds (nil: the experiment's default).
	Groups []string
}

// The truncated normal of the theorem.
const riskMean, riskStd = 0.5, 0.25

// riskTestDraws is the number of fresh draws each run's test NLL uses.
const riskTestDraws = 10000

// RiskTasks returns the risk experiment's runs: heads decoder and riemann,
// N in {1024, ..., 16384} (opts.N: that one only), K in 1..12, seeds
// 0..9 (opts.Seeds).
func RiskTasks(opts Options) []Task[*RiskLine] {
	ns := []int{1024, 2048, 4096, 8192, 16384}
	ks := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	seeds := 10
	if opts.Quick {
		ns, ks, seeds = []int{1024}, []int{1, 3, 5}, 1
	}
	if opts.N > 0 {
		ns = []int{opts.N}
	}
	if opts.Seeds > 0 {
		seeds = opts.Seeds
	}
	var tasks []Task[*RiskLine]
	for _, n := range ns {
		for _, k := range ks {
			for _, h := range []string{"decoder", "riemann"} {
				for s := range seeds {
					n, k, h, s := n, k, h, s
					tasks = append(tasks, Task[*RiskLine]{
						Key: fmt.Sprintf("head=%s,n=%d,k=%d,seed=%d", h, n, k, s),
						Run: func(ctx context.Context) (*RiskLine, error) { return runRisk(ctx, h, n, k, s, opts) },
					})
				}
			}
		}
	}
	return tasks
}

// RiskConfig is the configuration of a risk run. The target range is
// fixed to [0, 1], the density's support, so that the cells of both
// heads are the theorem's bins [j 2^-K, (j+1) 2^-K). The single feature
// is a constant, so the encoder learns one vector: the fit is of the
// marginal density, as in the theorem.
func RiskConfig(head string, k, seed int, opts Options) decoreg.Config {
	c := decoreg.Config{
		EncLayers: 2, EncWidth: 64, TargetMin: 0, TargetMax: 1,
		Seed: uint64(seed), Threads: opts.Threads, BatchSize: 64, Patience: 20,
	}
	if head == "decoder" {
		c.Head, c.Vocab = decoreg.HeadDecoder, fmt.Sprintf("normalized:base=2,length=%d", k)
	} else {
		c.Head, c.Bins = decoreg.HeadRiemann, 1<<k
	}
	if opts.Quick {
		c.MaxEpochs = 5
	}
	return c
}

func runRisk(ctx context.Context, head string, n, k, seed int, opts Options) (*RiskLine, error) {
	tn, err := synth.NewTruncNorm(riskMean, riskStd)
	if err != nil {
		return nil, err
	}
	// Training draws and fresh test draws, from seeds apart from the
	// model's.
	y := tn.Sample(n, uint64(1000003*seed+n))
	x := make([]float64, n) // one constant feature
	cfg := RiskConfig(head, k, seed, opts)
	m, err := decoreg.FitFlat(ctx, x, n, 1, y, cfg)
	if err != nil {
		return nil, err
	}
	d, err := m.Dist([]float64{0})
	if err != nil {
		return nil, err
	}
	p, err := cellProbs(m, d, k)
	if err != nil {
		return nil, err
	}
	sum := 0.0
	for _, v := range p {
		sum += v
	}
	l := &RiskLine{Head: head, N: n, K: k, Seed: seed, Config: cfg,
		MISE: Float(tn.MISE(p)), MISETheory: Float(tn.RiskTheory(k, n)), MassErrMax: math.Abs(1 - sum)}
	if head == "decoder" {
		// The nested histograms 2^k p^k of the decoder's first k tokens.
		for lev := 1; lev <= k; lev++ {
			l.MISELevels = append(l.MISELevels, Float(tn.MISE(Coarsen(p, lev))))
		}
	}
	if k <= 8 {
		l.P = p
	}
	yt := tn.Sample(riskTestDraws, uint64(7919*seed+n+1))
	ev, err := m.Evaluate(ctx, make([]float64, len(yt)), len(yt), yt, "")
	if err != nil {
		return nil, err
	}
	tru := 0.0
	for _, v := range yt {
		tru -= tn.LogPDF(v)
	}
	info := m.Info()
	l.TestNLL, l.TrueNLL = Float(ev.NLL), Float(tru/float64(len(yt)))
	l.Epochs, l.TrainRows, l.ValRows, l.TrainSecs, l.Stopped = info.Epochs, info.Rows-info.ValRows, info.ValRows, info.Seconds, info.Stopped
	return l, nil
}

// cellProbs returns the model's probabilities of the 2^k cells
// [j 2^-k, (j+1) 2^-k) of [0, 1]: for the decoder the exact probability of
// each binary sequence, in one batched pass; for the Riemann head the
// differences of its CDF at the cell edges (its bins).
func cellProbs(m *decoreg.Model, d dist.Distribution, k int) ([]float64, error) {
	cells := 1 << k
	p := make([]float64, cells)
	if td, ok := d.(*dist.Token); ok {
		tok := m.Tokenizer()
		seqs := make([]int, 0, cells*k)
		for j := range cells {
			t, _, err := tok.Encode((float64(j) + 0.5) / float64(cells))
			if err != nil {
				return nil, err
			}
			seqs = append(seqs, t...)
		}
		for j, lp := range td.LogProbSeqs(seqs, cells) {
			p[j] = math.Exp(lp)
		}
		return p, nil
	}
	prev := 0.0
	for j := range cells {
		c := 1.0
		if j+1 < cells {
			c = d.CDF(float64(j+1) / float64(cells))
		}
		p[j] = max(c-prev, 0)
		prev = max(prev, c)
	}
	return p, nil
}

// Coarsen sums p, the probabilities of 2^K equal cells, into 2^lev equal
// cells (lev <= K): the distribution of the first lev binary digits.
func Coarsen(p []float64, lev int) []float64 {
	out := make([]float64, 1<<lev)
	per := len(p) / len(out)
	for j, v := range p {
		out[j/per] += v
	}
	return out
}

// ReportInfo is what every experiment report states besides its results:
// the command that made it and the scale it ran at.
type ReportInfo struct {
	Command string // the command line that regenerates the results (replaced by the one the lines record)
	Scale   string // the scale, in words; "" for the journal's count of runs
	// Plan holds the keys of the runs whose scale Scale describes (nil:
	// unknown); a journal holding other runs is described by its count
	// of runs instead (a report written from a journal that other flags
	// made).
	Plan []string
	// Ctx cancels the writing of the report's files (nil: never); a
	// cancelled write leaves no temporary file.
	Ctx context.Context
	// Log takes warnings about the journal: a last line cut off, runs
	// repeated with other results (nil: none).
	Log io.Writer
}

// writeText writes s to path atomically.
func writeText(ctx context.Context, path, s string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	return outfile.WriteFile(ctx, path, func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	})
}

type riskCell struct{ n, k int }

// riskMaxK is the largest K a risk line may hold: the report's theory
// takes 2^K cells.
const riskMaxK = 30

// check refuses what the report cannot use: a head other than the two, N
// below 1, K outside [1, riskMaxK], a negative or non-finite MISE, and
// cell probabilities that are not 2^K numbers in [0, 1].
func (l *RiskLine) check() error {
	switch {
	case l.Head != "decoder" && l.Head != "riemann":
		return fmt.Errorf("head %q: want decoder or riemann", l.Head)
	case l.N < 1:
		return fmt.Errorf("n %d: want at least 1", l.N)
	case l.K < 1 || l.K > riskMaxK:
		return fmt.Errorf("k %d: want 1 to %d", l.K, riskMaxK)
	case !(l.MISE >= 0) || math.IsInf(float64(l.MISE), 0):
		return fmt.Errorf("mise %v: want a finite number >= 0", float64(l.MISE))
	case l.P != nil && len(l.P) != 1<<l.K:
		return fmt.Errorf("p has %d cell probabilities: want 2^k = %d", len(l.P), 1<<l.K)
	}
	for i, p := range l.P {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("p[%d] is %v: want a probability", i, p)
		}
	}
	return nil
}

// RiskReport writes dir/REPORT.md, dir/risk.png and dir/tree.png from the
// risk experiment's lines.
func RiskReport(dir string, lines []*RiskLine, info ReportInfo) error {
	tn, err := synth.NewTruncNorm(riskMean, riskStd)
	if err != nil {
		return err
	}
	by := map[string]map[riskCell][]float64{"decoder": {}, "riemann": {}}
	nset, kset := map[int]bool{}, map[int]bool{}
	for _, l := range lines {
		if by[l.Head] == nil {
			return &InputError{fmt.Errorf("line %s: unknown head %q", l.Key, l.Head)}
		}
		c := riskCell{l.N, l.K}
		by[l.Head][c] = append(by[l.Head][c], float64(l.MISE))
		nset[l.N], kset[l.K] = true, true
	}
	ns, ks := sortedInts(nset), sortedInts(kset)
	var b strings.Builder
	fmt.Fprintf(&b, "# Risk versus K: the theorem against training\n\n")
	fmt.Fprintf(&b, "The paper's Figure 2 (Section 3.3, Theorem 1): the truncated normal N(%.2g, %.2g²) on [0, 1] "+
		"fitted with binary tokens (`normalized:base=2,length=K`, the decoder) and with a Riemann head of 2^K bins, "+
		"from N draws. MISE is the exact integral over [0, 1] of (f − f̂)², f̂ = 2^K p(cell) from the model's exact cell "+
		"probabilities (CDF differences at the cell edges); theory is 2^(−2K)/12 ∫f′² + 2^K/N with ∫f′² = %.6g. "+
		"Each model sees one constant feature, so it fits the marginal density; its target range is fixed to [0, 1] "+
		"(`Config.TargetMin/TargetMax`) so that its cells are the theorem's bins. Encoder 2×64, decoder 1 layer × 32, "+
		"batch 64, Adam 5e-4, early stopping on 10%% of the N draws (patience 20), so the fit sees 0.9 N of them (the theory "+
		"column uses N).\n\n", riskMean, riskStd, tn.IntDerivSquare())
	fmt.Fprintf(&b, "Scale: %s. Command: `%s`.\n\n%s\n\n", info.Scale, info.Command, Provenance(lines))

	fmt.Fprintf(&b, "## The K that minimises the risk\n\n| N | theory | decoder | riemann |\n|---:|---:|---:|---:|\n")
	for _, n := range ns {
		th, dec, rie := argminK(ks, func(k int) float64 { return tn.RiskTheory(k, n) }),
			argminK(ks, func(k int) float64 { m, _, _ := meanStd(by["decoder"][riskCell{n, k}]); return m }),
			argminK(ks, func(k int) float64 { m, _, _ := meanStd(by["riemann"][riskCell{n, k}]); return m })
		fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", n, th, dec, rie)
	}
	b.WriteString("\nThe paper: for N = 16384 an optimal K ≈ 5; for N = 1024 the decoder's risk falls below the theory " +
		"(better) when K > 9, while the Riemann head follows the theory closely.\n\n")

	fmt.Fprintf(&b, "## MISE per N and K (mean ± std over seeds)\n\n")
	for _, n := range ns {
		fmt.Fprintf(&b, "### N = %d\n\n| K | theory | decoder | riemann | decoder / theory | riemann / theory |\n|---:|---:|---:|---:|---:|---:|\n", n)
		for _, k := range ks {
			th := tn.RiskTheory(k, n)
			dm, ds, dn := meanStd(by["decoder"][riskCell{n, k}])
			rm, rs, rn := meanStd(by["riemann"][riskCell{n, k}])
			fmt.Fprintf(&b, "| %d | %.4g | %s | %s | %s | %s |\n", k, th, pm(dm, ds, dn), pm(rm, rs, rn), num(dm/th, "%.3g"), num(rm/th, "%.3g"))
		}
		b.WriteString("\n")
	}
	b.WriteString("Figures: [risk.png](risk.png) (MISE against K per N, both heads and the theory, log scale) and " +
		"[tree.png](tree.png) (the nested histograms 2^k p^k, k = 1..K, of one decoder: the paper's binary-tree picture).\n")
	if err := writeText(info.Ctx, filepath.Join(dir, "REPORT.md"), b.String()); err != nil {
		return err
	}
	if err := riskFigure(ctxOf(info), filepath.Join(dir, "risk.png"), tn, by, ns, ks); err != nil {
		return err
	}
	return treeFigure(ctxOf(info), filepath.Join(dir, "tree.png"), tn, lines)
}

func pm(m, s float64, n int) string {
	if n == 0 {
		return "—"
	}
	if n == 1 {
		return fmt.Sprintf("%.4g", m)
	}
	return fmt.Sprintf("%.4g ± %.2g", m, s)
}

func argminK(ks []int, f func(int) float64) string {
	best, arg := math.Inf(1), -1
	for _, k := range ks {
		if v := f(k); v < best {
			best, arg = v, k
		}
	}
	if arg < 0 {
		return "—"
	}
	return strconv.Itoa(arg)
}

func sortedInts(m map[int]bool) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

func riskFigure(ctx context.Context, path string, tn synth.TruncNorm, by map[string]map[riskCell][]float64, ns, ks []int) error {
	var row []*plot.Plot
	for _, n := range ns {
		p := newPlot(fmt.Sprintf("N = %d", n), "K (bits)", "MISE")
		var th plotter.XYs
		for _, k := range ks {
			th = append(th, plotter.XY{X: float64(k), Y: tn.RiskTheory(k, n)})
		}
		if err := addLine(p, th, headColor("theory"), "theory", true, false); err != nil {
			return err
		}
		for _, h := range []string{"decoder", "riemann"} {
			var xy plotter.XYs
			for _, k := range ks {
				if m, _, c := meanStd(by[h][riskCell{n, k}]); c > 0 && m > 0 {
					xy = append(xy, plotter.XY{X: float64(k), Y: m})
				}
			}
			if err := addLine(p, xy, headColor(h), h, false, true); err != nil {
				return err
			}
		}
		logAxes(p, false, true)
		row = append(row, p)
	}
	var grid [][]*plot.Plot
	for i := 0; i < len(row); i += 3 {
		grid = append(grid, row[i:min(i+3, len(row))])
	}
	return writeGrid(ctx, path, "Risk (MISE) of the density estimate vs K: decoder (binary tokens) and Riemann (2^K bins)",
		grid, 13*vg.Inch, vg.Length(4.2*float64(len(grid)))*vg.Inch+vg.Points(24))
}

// treeFigure draws the K nested histograms of the decoder run with the
// largest N, seed 0 and the largest K <= 6 that kept its probabilities.
func treeFigure(ctx context.Context, path string, tn synth.TruncNorm, lines []*RiskLine) error {
	var pick *RiskLine
	for _, l := range lines {
		if l.Head != "decoder" || l.P == nil || l.K > 6 {
			continue
		}
		if pick == nil || l.N > pick.N || (l.N == pick.N && (l.K > pick.K || (l.K == pick.K && l.Seed < pick.Seed))) {
			pick = l
		}
	}
	if pick == nil {
		return nil
	}
	var grid [][]*plot.Plot
	for lev := 1; lev <= pick.K; lev++ {
		pk := Coarsen(pick.P, lev)
		cells := float64(len(pk))
		p := newPlot(fmt.Sprintf("k = %d: 2^k p^k over %d cells (MISE %.3g)", lev, len(pk), tn.MISE(pk)), "y", "density")
		var hist plotter.XYs
		for j, v := range pk {
			hist = append(hist, plotter.XY{X: float64(j) / cells, Y: v * cells}, plotter.XY{X: float64(j+1) / cells, Y: v * cells})
		}
		if err := addLine(p, hist, headColor("decoder"), "decoder", false, false); err != nil {
			return err
		}
		var f plotter.XYs
		for i := 0; i <= 200; i++ {
			y := float64(i) / 200
			f = append(f, plotter.XY{X: y, Y: tn.PDF(y)})
		}
		if err := addLine(p, f, headColor("truth"), "truth", true, false); err != nil {
			return err
		}
		p.Y.Min, p.Y.Max = 0, 2.2
		grid = append(grid, []*plot.Plot{p})
	}
	title := fmt.Sprintf("One decoder (N = %d, K = %d, seed %d): each level k is a histogram estimator over 2^k bins", pick.N, pick.K, pick.Seed)
	return writeGrid(ctx, path, title, grid, 8*vg.Inch, vg.Length(1.9*float64(len(grid)))*vg.Inch+vg.Points(24))
}
