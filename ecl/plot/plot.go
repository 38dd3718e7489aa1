// Package plot draws reliability diagrams of the calibration metrics with
// gonum.org/v1/plot and writes them as PNG or SVG.
//
// A Figure is a grid of panels: TopLabel gives one panel (accuracy against
// confidence per bin, the gap to the diagonal in red, the bin counts above
// the bars), Classwise one panel per class, and Canonical (K = 3) the
// probability simplex divided into the regions of its anchors, each coloured
// by its bin's error.
package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/internal/atomicfile"
)

// Figure is a grid of panels, row by row.
type Figure [][]*plot.Plot

var (
	barColor = color.RGBA{R: 70, G: 110, B: 190, A: 255}
	gapColor = color.RGBA{R: 220, G: 50, B: 40, A: 140}
	empty    = color.White
)

// rect is the polygon of [x0, x1] × [y0, y1].
func rect(x0, x1, y0, y1 float64, c color.Color) (*plotter.Polygon, error) {
	p, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	if err != nil {
		return nil, err
	}
	p.Color = c
	p.LineStyle.Width = vg.Points(0.5)
	p.LineStyle.Color = color.White
	return p, nil
}

// reliability is one panel: per bin a bar up to the outcome frequency, a red
// bar between it and the mean confidence, and the count above.
func reliability(c metrics.Calibration, title, ylabel string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = "confidence", ylabel
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1.08
	var labels plotter.XYLabels
	for _, b := range c.Bins {
		if b.Count == 0 {
			continue
		}
		bar, err := rect(b.Lo, b.Hi, 0, b.Acc, barColor)
		if err != nil {
			return nil, err
		}
		gap, err := rect(b.Lo, b.Hi, min(b.Acc, b.Conf), max(b.Acc, b.Conf), gapColor)
		if err != nil {
			return nil, err
		}
		p.Add(bar, gap)
		labels.XYs = append(labels.XYs, plotter.XY{X: (b.Lo + b.Hi) / 2, Y: 1.02})
		labels.Labels = append(labels.Labels, strconv.Itoa(b.Count))
	}
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		return nil, err
	}
	diag.LineStyle.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(diag)
	if len(labels.XYs) > 0 {
		l, err := plotter.NewLabels(labels)
		if err != nil {
			return nil, err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].Font.Size = vg.Points(6)
			l.TextStyle[i].XAlign = draw.XCenter
		}
		p.Add(l)
	}
	return p, nil
}

// TopLabel is the top-label reliability diagram of c.
func TopLabel(c metrics.Calibration, title string) (Figure, error) {
	p, err := reliability(c, fmt.Sprintf("%s (ECE %.2f%%)", title, 100*c.Error), "accuracy")
	return Figure{{p}}, err
}

// Classwise is one reliability panel per class, up to four per row.
func Classwise(c metrics.Classwise, title string) (Figure, error) {
	cols := min(len(c.Classes), 4)
	var fig Figure
	for k, cal := range c.Classes {
		p, err := reliability(cal, fmt.Sprintf("%s class %d (%.2f%%)", title, k, 100*cal.Error), "frequency")
		if err != nil {
			return nil, err
		}
		if k%cols == 0 {
			fig = append(fig, nil)
		}
		fig[len(fig)-1] = append(fig[len(fig)-1], p)
	}
	for len(fig[len(fig)-1]) < cols {
		fig[len(fig)-1] = append(fig[len(fig)-1], nil)
	}
	return fig, nil
}

// corners of the simplex for K = 3.
var corners = [3][2]float64{{0, 0}, {1, 0}, {0.5, math.Sqrt(3) / 2}}

func cartesian(s []float64) plotter.XY {
	return plotter.XY{X: s[1]*corners[1][0] + s[2]*corners[2][0], Y: s[2] * corners[2][1]}
}

// Canonical draws the simplex (class 0 at (0,0), class 1 at (1,0), class 2
// at (½, √3/2)) cut into small triangles, each coloured by the error of the
// anchor bin nearest to its centre, blue (0) to red (the largest error); white
// where the bin is empty. It needs K = 3.
func Canonical(c metrics.Canonical, title string) (Figure, error) {
	if c.K != 3 {
		return nil, fmt.Errorf("plot.Canonical: the simplex diagram needs 3 classes, got %d", c.K)
	}
	top := 0.0
	for _, b := range c.Bins {
		top = max(top, b.Err)
	}
	cmap := moreland.SmoothBlueRed()
	cmap.SetMin(0)
	cmap.SetMax(max(top, 1e-9))
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s (canonical ECE %.2f%%; bin error blue 0 → red %.2f, white empty)", title, 100*c.Error, top)
	p.HideAxes()
	const m = 48 // subdivisions of each side
	for i := 0; i < m; i++ {
		for j := 0; i+j < m; j++ {
			// Upward triangle (i,j), (i+1,j), (i,j+1) and, inside the
			// grid, the downward one (i+1,j), (i,j+1), (i+1,j+1).
			tris := [][3][2]int{{{i, j}, {i + 1, j}, {i, j + 1}}}
			if i+j+1 < m {
				tris = append(tris, [3][2]int{{i + 1, j}, {i, j + 1}, {i + 1, j + 1}})
			}
			for _, t := range tris {
				var xys plotter.XYs
				var centre [3]float64
				for _, v := range t {
					s := []float64{float64(m-v[0]-v[1]) / m, float64(v[0]) / m, float64(v[1]) / m}
					xys = append(xys, cartesian(s))
					for d := range centre {
						centre[d] += s[d] / 3
					}
				}
				bin := c.Bins[nearest(centre[:], c.Anchors)]
				col := color.Color(empty)
				if bin.Count > 0 {
					var err error
					if col, err = cmap.At(bin.Err); err != nil {
						return nil, err
					}
				}
				poly, err := plotter.NewPolygon(xys)
				if err != nil {
					return nil, err
				}
				poly.Color, poly.LineStyle.Width = col, 0
				p.Add(poly)
			}
		}
	}
	return Figure{{p}}, nil
}

// nearest is the index of the anchor (rows of 3) closest to s.
func nearest(s, anchors []float64) int {
	best, bi := math.Inf(1), 0
	for j := 0; j*3 < len(anchors); j++ {
		d := 0.0
		for k := range 3 {
			d += (s[k] - anchors[j*3+k]) * (s[k] - anchors[j*3+k])
		}
		if d < best {
			best, bi = d, j
		}
	}
	return bi
}

// Save renders fig at width w per panel column and height h per panel row
// into path, as PNG or SVG by its extension, atomically.
func Save(fig Figure, path string, w, h vg.Length) error {
	width, height := w*vg.Length(len(fig[0])), h*vg.Length(len(fig))
	var canvas interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch filepath.Ext(path) {
	case ".png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.New(width, height)}
	case ".svg":
		canvas = vgsvg.New(width, height)
	default:
		return fmt.Errorf("plot.Save: %s: unknown image format (want .png or .svg)", path)
	}
	dc := draw.New(canvas)
	tiles := draw.Tiles{Rows: len(fig), Cols: len(fig[0]), PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(fig, tiles, dc)
	for i, row := range fig {
		for j, p := range row {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	return atomicfile.Write(path, func(out io.Writer) error {
		_, err := canvas.WriteTo(out)
		return err
	})
}
