package experiments

import (
	"context"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"decoreg/internal/outfile"
)

// Colours of the heads in every figure.
var headColors = map[string]color.Color{
	"decoder":              color.NRGBA{200, 40, 20, 255},
	"decoder-unnormalized": color.NRGBA{200, 40, 20, 255},
	"decoder-normalized":   color.NRGBA{230, 140, 0, 255},
	"riemann":              color.NRGBA{30, 90, 200, 255},
	"pointwise":            color.NRGBA{40, 150, 60, 255},
	"mdn":                  color.NRGBA{130, 50, 170, 255},
	"theory":               color.Black,
	"truth":                color.Black,
}

func headColor(h string) color.Color {
	if c, ok := headColors[h]; ok {
		return c
	}
	return color.Gray{100}
}

// writeGrid draws plots (rows of columns; nil cells stay blank) under a
// title into a PNG of the given size at path, atomically.
func writeGrid(ctx context.Context, path, title string, plots [][]*plot.Plot, width, height vg.Length) error {
	img := vgimg.New(width, height)
	dc := draw.New(img)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	titleH := vg.Points(0)
	if title != "" {
		titleH = vg.Points(24)
		sty := draw.TextStyle{Color: color.Black, Font: plot.DefaultFont, Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YCenter}
		sty.Font.Size = vg.Points(13)
		dc.FillText(sty, vg.Point{X: width / 2, Y: height - titleH/2}, title)
	}
	top := draw.Canvas{Canvas: dc.Canvas, Rectangle: dc.Rectangle}
	top.Max.Y -= titleH
	cols := 0
	for _, r := range plots {
		cols = max(cols, len(r))
	}
	for i := range plots {
		for len(plots[i]) < cols {
			plots[i] = append(plots[i], nil)
		}
	}
	tiles := draw.Tiles{Rows: len(plots), Cols: cols, PadX: vg.Points(14), PadY: vg.Points(14),
		PadTop: vg.Points(4), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(14)}
	blank := make([][]*plot.Plot, len(plots))
	for i := range plots {
		blank[i] = make([]*plot.Plot, cols)
		for j := range plots[i] {
			if plots[i][j] == nil {
				blank[i][j] = plot.New()
				blank[i][j].HideAxes()
			} else {
				blank[i][j] = plots[i][j]
			}
		}
	}
	canvases := plot.Align(blank, tiles, top)
	for i := range plots {
		for j := range plots[i] {
			if plots[i][j] != nil {
				plots[i][j].Draw(canvases[i][j])
			}
		}
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return outfile.WriteFile(ctx, path, func(w io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
		return err
	})
}

// addLine adds a line (with point glyphs when points) in colour c to p,
// with a legend entry when label is not empty. Points with a non-finite
// coordinate are left out.
func addLine(p *plot.Plot, xy plotter.XYs, c color.Color, label string, dashed, points bool) error {
	xy = finiteXYs(xy)
	if len(xy) == 0 {
		return nil
	}
	l, err := plotter.NewLine(xy)
	if err != nil {
		return err
	}
	l.Color, l.Width = c, vg.Points(1.5)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	p.Add(l)
	if points {
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return err
		}
		s.GlyphStyle.Color, s.GlyphStyle.Radius, s.GlyphStyle.Shape = c, vg.Points(2), draw.CircleGlyph{}
		p.Add(s)
		if label != "" {
			p.Legend.Add(label, l, s)
		}
		return nil
	}
	if label != "" {
		p.Legend.Add(label, l)
	}
	return nil
}

// addScatter adds small dots of colour c.
func addScatter(p *plot.Plot, xy plotter.XYs, c color.Color, radius vg.Length, label string) error {
	xy = finiteXYs(xy)
	if len(xy) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(xy)
	if err != nil {
		return err
	}
	s.GlyphStyle.Color, s.GlyphStyle.Radius, s.GlyphStyle.Shape = c, radius, draw.CircleGlyph{}
	p.Add(s)
	if label != "" {
		p.Legend.Add(label, s)
	}
	return nil
}

func finiteXYs(xy plotter.XYs) plotter.XYs {
	out := xy[:0:0]
	for _, v := range xy {
		if !math.IsNaN(v.X) && !math.IsInf(v.X, 0) && !math.IsNaN(v.Y) && !math.IsInf(v.Y, 0) {
			out = append(out, v)
		}
	}
	return out
}

// newPlot returns a plot with a title and axis labels, whose tick labels
// are distinct (distinctTicks).
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.X.Tick.Marker, p.Y.Tick.Marker = distinctTicks{p.X.Tick.Marker}, distinctTicks{p.Y.Tick.Marker}
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Legend.Top = true
	return p
}

// meanStd returns the mean and the sample standard deviation (0 for one
// value) of the finite values of xs, and their count.
func meanStd(xs []float64) (mean, std float64, n int) {
	s := 0.0
	for _, v := range xs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			s += v
			n++
		}
	}
	if n == 0 {
		return math.NaN(), math.NaN(), 0
	}
	mean = s / float64(n)
	if n > 1 {
		ss := 0.0
		for _, v := range xs {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				ss += (v - mean) * (v - mean)
			}
		}
		std = math.Sqrt(ss / float64(n-1))
	}
	return mean, std, n
}

// logAxes makes p's x and/or y axis logarithmic where its data, already
// added, are all positive (gonum panics on a log axis through 0).
func logAxes(p *plot.Plot, x, y bool) {
	if x && p.X.Min > 0 && p.X.Max > p.X.Min {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, distinctTicks{plot.LogTicks{Prec: -1}}
	}
	if y && p.Y.Min > 0 && p.Y.Max > p.Y.Min {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, distinctTicks{plot.LogTicks{Prec: -1}}
	}
}

// distinctTicks are the ticks of its Ticker, relabelled with as many
// significant digits as it takes for their labels to read their values
// and to differ (gonum's default ticks of [0.99, 1.15] labelled 1 and 1.05
// both "1", and those of [0.98, 1.06] labelled 1.02 "1" and 1.06 "1.1").
type distinctTicks struct{ plot.Ticker }

// Ticks implements plot.Ticker.
func (d distinctTicks) Ticks(min, max float64) []plot.Tick {
	ts := d.Ticker.Ticks(min, max)
	for prec := 1; !goodLabels(ts) && prec <= 17; prec++ {
		for i := range ts {
			if ts[i].Label != "" {
				ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', prec, 64)
			}
		}
	}
	return ts
}

// goodLabels reports whether no two labelled ticks have one label and
// each label reads its tick's value (to a relative 1e-9).
func goodLabels(ts []plot.Tick) bool {
	seen := map[string]bool{}
	for _, t := range ts {
		if t.Label == "" {
			continue
		}
		if seen[t.Label] {
			return false
		}
		seen[t.Label] = true
		if v, err := strconv.ParseFloat(t.Label, 64); err == nil && !(math.Abs(v-t.Value) <= 1e-9*math.Max(math.Abs(t.Value), 1e-300)) {
			return false
		}
	}
	return true
}

// valueTicks labels the axis at the given values (the settings a figure
// varies), with unlabelled minor ticks of Ticker between.
type valueTicks struct {
	plot.Ticker
	at []float64
}

// Ticks implements plot.Ticker.
func (v valueTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for _, t := range v.Ticker.Ticks(min, max) {
		t.Label = ""
		ts = append(ts, t)
	}
	for _, a := range v.at {
		if a >= min && a <= max {
			ts = append(ts, plot.Tick{Value: a, Label: strconv.FormatFloat(a, 'g', -1, 64)})
		}
	}
	return ts
}

// ctxOf is info's context, or the background one.
func ctxOf(info ReportInfo) context.Context {
	if info.Ctx == nil {
		return context.Background()
	}
	return info.Ctx
}

// num formats v with format, or "—" when it is NaN (no result).
func num(v float64, format string) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf(format, v)
}

// mdColumns ends a markdown table header whose first cells are already in
// b ("| dataset |"): one cell per column, then the separator row, the
// leading cells left-aligned and the columns' cells sep ("---:" or "---").
func mdColumns(b *strings.Builder, cols []string, sep string) {
	for _, c := range cols {
		fmt.Fprintf(b, " %s |", c)
	}
	b.WriteString("\n|" + strings.Repeat("---|", strings.Count(lastLine(b.String()), "|")-1-len(cols)))
	b.WriteString(strings.Repeat(sep+"|", len(cols)) + "\n")
}

// lastLine is the text after s's last newline.
func lastLine(s string) string { return s[strings.LastIndexByte(s, '\n')+1:] }

// labels maps xs to their column labels.
func labels[T any](xs []T, f func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
