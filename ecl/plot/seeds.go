package plot

import (
	"errors"
	"fmt"
	"image/color"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var meanColor = color.RGBA{R: 200, G: 30, B: 30, A: 255}

// meanStd is a series' mean with its sample standard deviation as the
// error bar (plotter.YErrorer).
type meanStd struct {
	plotter.XYs
	plotter.YErrors
}

// SeedSpread draws one metric over seeds for several methods: each seed's
// value as a dot (spread sideways so that equal values stay visible) and
// the method's mean ± sample standard deviation as a red mark with
// whiskers, the key in a second line of the title. values[i] holds method
// i's values; an empty one is left out.
func SeedSpread(title, ylabel string, methods []string, values [][]float64) (*plot.Plot, error) {
	if len(methods) == 0 || len(values) != len(methods) {
		return nil, fmt.Errorf("plot.SeedSpread: %d methods and %d value lists", len(methods), len(values))
	}
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.NominalX(methods...)
	p.X.Tick.Label.Rotation = 0.5
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	var dots plotter.XYs
	var ms meanStd
	for i, vs := range values {
		for j, v := range vs {
			dots = append(dots, plotter.XY{X: float64(i) - 0.15 + 0.3*float64(j)/float64(max(len(vs)-1, 1)), Y: v})
		}
		if len(vs) == 0 {
			continue
		}
		m, sd := stat.Mean(vs, nil), 0.0
		if len(vs) > 1 {
			sd = stat.StdDev(vs, nil)
		}
		ms.XYs = append(ms.XYs, plotter.XY{X: float64(i), Y: m})
		ms.YErrors = append(ms.YErrors, struct{ Low, High float64 }{sd, sd})
	}
	if len(dots) == 0 {
		return nil, errors.New("plot.SeedSpread: no values")
	}
	sc, err := plotter.NewScatter(dots)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle.Color = barColor
	sc.GlyphStyle.Radius = vg.Points(2)
	mean, err := plotter.NewScatter(ms.XYs)
	if err != nil {
		return nil, err
	}
	mean.GlyphStyle.Color, mean.GlyphStyle.Shape, mean.GlyphStyle.Radius = meanColor, draw.BoxGlyph{}, vg.Points(3)
	bars, err := plotter.NewYErrorBars(ms)
	if err != nil {
		return nil, err
	}
	bars.LineStyle.Color, bars.LineStyle.Width = meanColor, vg.Points(1.2)
	p.Add(plotter.NewGrid(), sc, bars, mean)
	// The key is a line of the title, outside the data: a legend inside
	// the axes had its seed marker read as a value.
	p.Title.Text += "\nblue circles: the seeds; red: mean ± std"
	return p, nil
}
