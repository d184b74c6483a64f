package main

import (
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"decoreg"
)

// pitBins is the number of bars of eval --plot's PIT histogram.
const pitBins = 20

// calibrationPlot draws c's PIT histogram (as a density: 1 everywhere
// when calibrated) and its coverage curve: for central intervals of mass
// 0.05, 0.10, ..., 0.95, the fraction of targets inside, which for a
// continuous F is the fraction of PIT values in [(1-mass)/2, (1+mass)/2].
func calibrationPlot(w io.Writer, c *decoreg.Calibration, model string) error {
	n := float64(len(c.PIT))
	counts := make([]float64, pitBins)
	for _, p := range c.PIT {
		counts[min(int(p*pitBins), pitBins-1)]++
	}
	hist := plot.New()
	hist.Title.Text = fmt.Sprintf("PIT histogram (pit_ece %.3f)", c.PITError)
	hist.X.Label.Text = "PIT = F(y | x) at the target"
	hist.Y.Label.Text = "density"
	hist.X.Min, hist.X.Max, hist.Y.Min = 0, 1, 0
	for b, k := range counts {
		lo, hi := float64(b)/pitBins, float64(b+1)/pitBins
		h := k / n * pitBins
		bar, err := plotter.NewPolygon(plotter.XYs{{X: lo, Y: 0}, {X: lo, Y: h}, {X: hi, Y: h}, {X: hi, Y: 0}})
		if err != nil {
			return err
		}
		bar.Color = color.NRGBA{31, 119, 180, 170}
		bar.LineStyle.Color = color.White
		hist.Add(bar)
		hist.Y.Max = max(hist.Y.Max, h*1.1, 1.2)
	}
	uniform, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 1}})
	if err != nil {
		return err
	}
	uniform.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	hist.Add(uniform)

	cov := plot.New()
	cov.Title.Text = "coverage of central intervals"
	cov.X.Label.Text = "nominal mass of the interval"
	cov.Y.Label.Text = "fraction of targets inside"
	cov.X.Min, cov.X.Max, cov.Y.Min, cov.Y.Max = 0, 1, 0, 1
	var pts plotter.XYs
	for k := 1; k <= 19; k++ {
		mass := float64(k) / 20
		lo, hi := (1-mass)/2, (1+mass)/2
		in := 0
		for _, p := range c.PIT {
			if p >= lo && p <= hi {
				in++
			}
		}
		pts = append(pts, plotter.XY{X: mass, Y: float64(in) / n})
	}
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		return err
	}
	diag.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	line, scatter, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	line.Color = color.NRGBA{214, 39, 40, 255}
	scatter.Color = line.Color
	cov.Add(diag, line, scatter)
	cov.Legend.Add("observed", line, scatter)
	cov.Legend.Add("calibrated", diag)
	// The legend goes top left, where a calibrated curve is not, unless
	// the curve is there (intervals that cover far more than their mass):
	// then bottom right, where such a curve is not.
	crowded := slices.ContainsFunc(pts, func(p plotter.XY) bool { return p.X < 0.4 && p.Y > 0.7 })
	cov.Legend.Top, cov.Legend.Left = !crowded, !crowded

	const width, height = 10 * vg.Inch, 4.4 * vg.Inch
	img := vgimg.New(width, height)
	dc := draw.New(img)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	titleH := vg.Points(22)
	top := draw.Canvas{Canvas: dc.Canvas, Rectangle: dc.Rectangle}
	top.Max.Y -= titleH
	sty := draw.TextStyle{Color: color.Black, Font: plot.DefaultFont, Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YCenter}
	sty.Font.Size = vg.Points(12)
	dc.FillText(sty, vg.Point{X: width / 2, Y: height - titleH/2},
		fmt.Sprintf("calibration of %s on %d %s (crps %.4g)", filepath.Base(model), len(c.PIT), plural(len(c.PIT), "row", "rows"), c.CRPS))
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Points(24), PadTop: vg.Points(4), PadBottom: vg.Points(8), PadLeft: vg.Points(8), PadRight: vg.Points(16)}
	plots := [][]*plot.Plot{{hist, cov}}
	canvases := plot.Align(plots, tiles, top)
	hist.Draw(canvases[0][0])
	cov.Draw(canvases[0][1])
	_, err = vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// linkEnd returns the path at the end of p's chain of symbolic links, as
// writing through them reaches it (the last link's target when it is
// missing); p itself when p is not a link, or after 40 links (a loop,
// which writing refuses).
func linkEnd(p string) string {
	for range 40 {
		l, err := os.Readlink(p)
		if err != nil {
			return p
		}
		if !filepath.IsAbs(l) {
			l = filepath.Join(filepath.Dir(p), l)
		}
		p = l
	}
	return p
}
