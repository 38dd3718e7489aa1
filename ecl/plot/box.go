package plot

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// BoxSeries is one series of a box plot: its values over repeats (seeds)
// at each level, Values[j] at level j (empty: no box there).
type BoxSeries struct {
	Name   string
	Values [][]float64
}

// seriesColors tell the series of a box plot apart (Okabe & Ito's
// colour-blind-safe palette, then greys).
var seriesColors = []color.Color{
	color.RGBA{0, 0, 0, 255}, color.RGBA{230, 159, 0, 255}, color.RGBA{86, 180, 233, 255}, color.RGBA{0, 158, 115, 255},
	color.RGBA{213, 94, 0, 255}, color.RGBA{0, 114, 178, 255}, color.RGBA{204, 121, 167, 255}, color.RGBA{240, 228, 66, 255},
	color.Gray{Y: 110}, color.Gray{Y: 170},
}

// Boxes draws the series against the levels: at each level one box per
// series, side by side in the series' order and colour (median, quartiles,
// whiskers to the furthest value within 1.5 interquartile ranges, values
// beyond as dots), with the series named in the legend. A series must
// have a value list per level.
func Boxes(title, xlabel, ylabel string, levels []string, series []BoxSeries) (*plot.Plot, error) {
	if len(levels) == 0 || len(series) == 0 {
		return nil, fmt.Errorf("plot.Boxes: %d levels and %d series", len(levels), len(series))
	}
	boxes, err := boxPlots(levels, series)
	if err != nil {
		return nil, err
	}
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xlabel, ylabel
	p.NominalX(levels...)
	p.Legend.Top, p.Legend.TextStyle.Font.Size = true, vg.Points(7)
	p.Add(plotter.NewGrid())
	for _, b := range boxes {
		p.Add(b)
	}
	for i, s := range series {
		key, err := rect(0, 1, 0, 1, seriesColors[i%len(seriesColors)])
		if err != nil {
			return nil, err
		}
		p.Legend.Add(s.Name, key)
	}
	return p, nil
}

// boxPlots are Boxes's boxes, series by series, level by level: level j
// spans [j − 0.4, j + 0.4], one slot of it per series.
func boxPlots(levels []string, series []BoxSeries) ([]*plotter.BoxPlot, error) {
	var out []*plotter.BoxPlot
	slot := 0.8 / float64(len(series))
	for i, s := range series {
		if len(s.Values) != len(levels) {
			return nil, fmt.Errorf("plot.Boxes: series %s has %d value lists for %d levels", s.Name, len(s.Values), len(levels))
		}
		c := seriesColors[i%len(seriesColors)]
		for j, vs := range s.Values {
			if len(vs) == 0 {
				continue
			}
			b, err := plotter.NewBoxPlot(vg.Points(max(1, 60*slot)), float64(j)-0.4+slot*(float64(i)+0.5), plotter.Values(vs))
			if err != nil {
				return nil, fmt.Errorf("plot.Boxes: series %s at level %s: %w", s.Name, levels[j], err)
			}
			b.BoxStyle.Color, b.MedianStyle.Color, b.WhiskerStyle.Color = c, c, c
			b.GlyphStyle.Color, b.GlyphStyle.Radius = c, vg.Points(1)
			b.BoxStyle.Width, b.MedianStyle.Width = vg.Points(0.8), vg.Points(1.5)
			out = append(out, b)
		}
	}
	return out, nil
}

// ShareY sets the y range of every plot to the union of their ranges, so
// that the panels of a figure share one scale, with headroom of the
// fraction room of it above for a legend at the top.
func ShareY(room float64, ps ...*plot.Plot) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range ps {
		lo, hi = min(lo, p.Y.Min), max(hi, p.Y.Max)
	}
	hi += room * (hi - lo)
	for _, p := range ps {
		p.Y.Min, p.Y.Max = lo, hi
	}
}

// Map draws a table of cells, rows[i] × cols[j], each filled by its value
// on a blue–red scale symmetric about 0 (blue below; lim, > 0, is the
// scale's end, values beyond it at the end's colour) and labelled with its
// text; a NaN cell is left blank. Row 0 is drawn at the top.
func Map(title string, rows, cols []string, values [][]float64, text [][]string, lim float64) (*plot.Plot, error) {
	if len(rows) == 0 || len(cols) == 0 || len(values) != len(rows) || len(text) != len(rows) || !(lim > 0) {
		return nil, fmt.Errorf("plot.Map: %d rows, %d columns, %d value rows, %d text rows, scale end %v", len(rows), len(cols), len(values), len(text), lim)
	}
	for i, row := range values {
		if len(row) != len(cols) || len(text[i]) != len(cols) {
			return nil, fmt.Errorf("plot.Map: row %s has %d values and %d texts for %d columns", rows[i], len(row), len(text[i]), len(cols))
		}
	}
	cells, at, words, ink, err := mapCells(values, text, lim)
	if err != nil {
		return nil, err
	}
	p := plot.New()
	p.Title.Text = title
	for _, c := range cells {
		p.Add(c)
	}
	if err := colouredLabels(p, at, words, ink); err != nil {
		return nil, err
	}
	p.NominalX(cols...)
	rev := make([]string, len(rows))
	for i, r := range rows {
		rev[len(rows)-1-i] = r
	}
	p.NominalY(rev...)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -0.5, float64(len(cols))-0.5, -0.5, float64(len(rows))-0.5
	p.X.Tick.Label.Font.Size, p.Y.Tick.Label.Font.Size = vg.Points(7), vg.Points(7)
	p.Y.Tick.Label.XAlign = draw.XRight
	return p, nil
}

// mapCells are Map's filled cells (row 0 at the top, y = rows − 1) and
// their labels' places, texts and inks.
func mapCells(values [][]float64, text [][]string, lim float64) (cells []*plotter.Polygon, at plotter.XYs, words []string, ink []color.Color, err error) {
	cmap := moreland.SmoothBlueRed()
	cmap.SetMin(-lim)
	cmap.SetMax(lim)
	for i, row := range values {
		y := float64(len(values) - 1 - i)
		for j, v := range row {
			if math.IsNaN(v) {
				continue
			}
			c, err := cmap.At(min(max(v, -lim), lim))
			if err != nil {
				return nil, nil, nil, nil, err
			}
			r, err := rect(float64(j)-0.5, float64(j)+0.5, y-0.5, y+0.5, c)
			if err != nil {
				return nil, nil, nil, nil, err
			}
			cells = append(cells, r)
			at = append(at, plotter.XY{X: float64(j), Y: y})
			words = append(words, text[i][j])
			ink = append(ink, inkOn(c))
		}
	}
	return cells, at, words, ink, nil
}
