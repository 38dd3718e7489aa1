package plot

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ecl-go/ecl/ecl/bins"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/internal/atomicfile"
)

// Figure is a grid of panels, row by row; nil panels stay blank.
type Figure [][]*plot.Plot

var (
	barColor      = color.RGBA{R: 70, G: 110, B: 190, A: 255}
	excludedColor = color.RGBA{R: 170, G: 185, B: 215, A: 255}
	gapColor      = color.NRGBA{R: 220, G: 40, B: 30, A: 120}
	emptyColor    = color.Gray{Y: 190}
	gridColor     = color.Gray{Y: 255}
)

// polygon is a filled polygon with no outline.
func polygon(c color.Color, xys ...plotter.XY) (*plotter.Polygon, error) {
	p, err := plotter.NewPolygon(plotter.XYs(xys))
	if err != nil {
		return nil, err
	}
	p.Color = c
	p.LineStyle.Width = 0
	return p, nil
}

// rect is the filled rectangle [x0, x1] × [y0, y1] with a thin white border.
func rect(x0, x1, y0, y1 float64, c color.Color) (*plotter.Polygon, error) {
	p, err := polygon(c, plotter.XY{X: x0, Y: y0}, plotter.XY{X: x1, Y: y0}, plotter.XY{X: x1, Y: y1}, plotter.XY{X: x0, Y: y1})
	if err != nil {
		return nil, err
	}
	p.LineStyle.Width, p.LineStyle.Color = vg.Points(0.5), color.White
	return p, nil
}

// labels adds small centred text labels at the given points.
func labels(p *plot.Plot, xys plotter.XYs, text []string) error {
	return colouredLabels(p, xys, text, nil)
}

// colouredLabels is labels in the colours ink (black where ink is nil).
func colouredLabels(p *plot.Plot, xys plotter.XYs, text []string, ink []color.Color) error {
	if len(xys) == 0 {
		return nil
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: text})
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font.Size = vg.Points(6)
		l.TextStyle[i].XAlign = draw.XCenter
		l.TextStyle[i].YAlign = draw.YCenter
		if ink != nil {
			l.TextStyle[i].Color = ink[i]
		}
	}
	p.Add(l)
	return nil
}

// inkOn is the text colour readable on background c: white on a dark
// colour, black on a light one (by relative luminance, WCAG's weights on
// the linearised channels; the two contrasts cross near 0.18).
func inkOn(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		x := float64(v) / 0xffff
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	if 0.2126*lin(r)+0.7152*lin(g)+0.0722*lin(b) < 0.18 {
		return color.White
	}
	return color.Black
}

// Layout of a reliability panel: the data occupy [0, 1]; the bin counts
// form a row at countY, labelled "count" on the y axis, and the legend sits
// in the band above it, clear of bars and counts.
const (
	countY = 1.1
	panelY = 1.5
)

// stacked is a legend thumbnail drawn as its parts over each other: a
// translucent overlay shows the colour it makes over a bar.
type stacked []plot.Thumbnailer

func (s stacked) Thumbnail(c *draw.Canvas) {
	for _, t := range s {
		t.Thumbnail(c)
	}
}

// reliability is one panel: per non-empty bin a bar over [Lo, Hi] up to the
// outcome frequency (pale when the bin is left out of the error), a
// translucent red bar between it and the mean confidence (over the bar when
// under-confident), and the count in the row above; the dashed diagonal is
// perfect calibration. The legend names every colour drawn.
func reliability(c metrics.Calibration, title, ylabel string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = "confidence", ylabel
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, panelY
	p.Y.Tick.Marker = plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 0.2, Label: "0.2"}, {Value: 0.4, Label: "0.4"},
		{Value: 0.6, Label: "0.6"}, {Value: 0.8, Label: "0.8"}, {Value: 1, Label: "1"}, {Value: countY, Label: "count"}}
	var at plotter.XYs
	var counts []string
	var used, excluded, over, under, underExcluded bool
	for _, b := range c.Bins {
		if b.Count == 0 {
			continue
		}
		col := barColor
		if !b.Used {
			col = excludedColor
		}
		bar, err := rect(b.Lo, b.Hi, 0, b.Acc, col)
		if err != nil {
			return nil, err
		}
		gap, err := rect(b.Lo, b.Hi, min(b.Acc, b.Conf), max(b.Acc, b.Conf), gapColor)
		if err != nil {
			return nil, err
		}
		used, excluded = used || b.Used, excluded || !b.Used
		over = over || b.Conf > b.Acc
		under = under || b.Conf < b.Acc && b.Used
		underExcluded = underExcluded || b.Conf < b.Acc && !b.Used
		p.Add(bar, gap)
		at = append(at, plotter.XY{X: (b.Lo + b.Hi) / 2, Y: countY})
		counts = append(counts, strconv.Itoa(b.Count))
	}
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		return nil, err
	}
	diag.LineStyle.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(diag)
	if err := labels(p, at, counts); err != nil {
		return nil, err
	}
	swatch := func(c color.Color) *plotter.Polygon {
		r, _ := rect(0, 1, 0, 1, c) // a fixed unit square: no error
		return r
	}
	if used || len(at) == 0 {
		p.Legend.Add(ylabel, swatch(barColor))
	}
	if excluded {
		p.Legend.Add("bin left out (few samples)", swatch(excludedColor))
	}
	if over {
		p.Legend.Add("over-confidence: gap to confidence", swatch(gapColor))
	}
	if under {
		p.Legend.Add("under-confidence: gap (over the bar)", stacked{swatch(barColor), swatch(gapColor)})
	}
	if underExcluded {
		p.Legend.Add("under-confidence over a left-out bin", stacked{swatch(excludedColor), swatch(gapColor)})
	}
	p.Legend.Add("perfect calibration", diag)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Legend.ThumbnailWidth = vg.Points(14)
	return p, nil
}

// TopLabel is the top-label reliability diagram of c: accuracy against
// confidence per bin, with the ECE in the title.
func TopLabel(c metrics.Calibration, title string) (*plot.Plot, error) {
	return reliability(c, heading(title, fmt.Sprintf("ECE %.2f%%", 100*c.Error)), "accuracy")
}

// heading puts a diagram's detail on a line below its title, which may be
// empty, so that panels side by side keep their titles apart.
func heading(title, detail string) string {
	if title == "" {
		return detail
	}
	return title + "\n" + detail
}

// MaxClassPanels is the most classes Classwise draws a panel each for.
const MaxClassPanels = 20

// Classwise is one reliability panel per class (frequency of the class
// against its predicted probability), up to four panels per row. Beyond
// MaxClassPanels classes it is the one panel of ClasswisePooled, or where
// the classes' bins differ (equal-mass bins) the first MaxClassPanels
// classes' panels.
func Classwise(c metrics.Classwise, title string) (Figure, error) {
	if len(c.Classes) == 0 {
		return nil, errors.New("plot.Classwise: no classes")
	}
	if len(c.Classes) > MaxClassPanels {
		if p, err := ClasswisePooled(c, title); err == nil {
			return Figure{{p}}, nil
		}
		c.Classes = c.Classes[:MaxClassPanels]
	}
	cols := min(len(c.Classes), 4)
	fig := make(Figure, (len(c.Classes)+cols-1)/cols)
	for i := range fig {
		fig[i] = make([]*plot.Plot, cols)
	}
	for k, cal := range c.Classes {
		p, err := reliability(cal, heading(title, fmt.Sprintf("class %d, ECE %.2f%% (CwECE %.2f%%)", k, 100*cal.Error, 100*c.Error)), "frequency")
		if err != nil {
			return nil, err
		}
		fig[k/cols][k%cols] = p
	}
	return fig, nil
}

// corner holds the plane coordinates of the simplex corners for K = 3.
var corner = [3]plotter.XY{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 0.5, Y: math.Sqrt(3) / 2}}

// planar maps a point of the 3-class simplex to the plane; the map is an
// isometry up to scale, so nearest anchors are the same in both.
func planar(s [3]float64) plotter.XY {
	return plotter.XY{X: s[1]*corner[1].X + s[2]*corner[2].X, Y: s[2] * corner[2].Y}
}

// centroid is the mean of simplex points.
func centroid(pts ...[3]float64) [3]float64 {
	var c [3]float64
	for _, s := range pts {
		for d := range c {
			c[d] += s[d] / float64(len(pts))
		}
	}
	return c
}

// Canonical draws the canonical reliability diagram for K = 3: the simplex
// (class 0 at (0,0), class 1 at (1,0), class 2 at (½, √3/2)) on the grid of
// N+1 subdivisions whose upward small triangles have the anchors as
// centroids. Each anchor's region (its upward triangle and the third of each
// neighbouring downward triangle nearest to it) is coloured by its bin's
// error ‖mean S − mean onehot(y)‖₂ on a blue–red scale shown beside the
// triangle, grey where the bin is empty, and labelled with the bin count.
func Canonical(c metrics.Canonical, title string) (*plot.Plot, error) {
	return CanonicalOnScale(c, title, 0)
}

// CanonicalTop is the largest bin error of the diagrams cs: the top of a
// colour scale that panels of one figure share (CanonicalOnScale), so
// that their colours compare.
func CanonicalTop(cs ...metrics.Canonical) float64 {
	top := 0.0
	for _, c := range cs {
		for _, b := range c.Bins {
			if b.Count > 0 {
				top = max(top, b.Err)
			}
		}
	}
	return top
}

// CanonicalOnScale is Canonical with its colour scale from 0 to top (the
// diagram's own largest bin error when top is smaller than that, as for 0).
// The legend sits below the simplex, clear of the corner labels, and each
// region's count is written in white on a dark colour, black on a light one.
func CanonicalOnScale(c metrics.Canonical, title string, top float64) (*plot.Plot, error) {
	if c.K != 3 {
		return nil, fmt.Errorf("plot.Canonical: the simplex diagram needs K = 3 classes, got K = %d", c.K)
	}
	if len(c.Bins) == 0 || len(c.Anchors) != 3*len(c.Bins) {
		return nil, fmt.Errorf("plot.Canonical: %d anchor coordinates for %d bins", len(c.Anchors), len(c.Bins))
	}
	grid, n := bins.SimplexGrid(len(c.Bins), 3)
	if len(grid) != len(c.Anchors) {
		return nil, fmt.Errorf("plot.Canonical: %d bins is not the size of a simplex grid", len(c.Bins))
	}
	top = max(top, CanonicalTop(c))
	cmap := moreland.SmoothBlueRed()
	cmap.SetMin(0)
	cmap.SetMax(max(top, 1e-9))
	binColor := func(s [3]float64) (color.Color, error) {
		b := c.Bins[bins.Nearest(s[:], c.Anchors, 3)]
		if b.Count == 0 {
			return emptyColor, nil
		}
		return cmap.At(b.Err)
	}

	p := plot.New()
	p.Title.Text = heading(title, fmt.Sprintf("canonical ECE %.2f%%", 100*c.Error))
	p.HideAxes()
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -0.08, 1.42, -0.27, 0.95
	m := n + 1 // the anchors are the centroids of the upward triangles of this grid
	vertex := func(i, j int) [3]float64 {
		return [3]float64{float64(m-i-j) / float64(m), float64(i) / float64(m), float64(j) / float64(m)}
	}
	for i := range m {
		for j := 0; i+j < m; j++ {
			up := [3][3]float64{vertex(i, j), vertex(i+1, j), vertex(i, j+1)}
			col, err := binColor(centroid(up[:]...))
			if err != nil {
				return nil, err
			}
			tri, err := polygon(col, planar(up[0]), planar(up[1]), planar(up[2]))
			if err != nil {
				return nil, err
			}
			tri.LineStyle.Width, tri.LineStyle.Color = vg.Points(0.4), gridColor
			p.Add(tri)
			if i+j+1 == m {
				continue
			}
			// The downward triangle splits into three pieces, each the
			// triangle of one edge and the centre, nearest to the anchor
			// across that edge.
			down := [3][3]float64{vertex(i+1, j), vertex(i, j+1), vertex(i+1, j+1)}
			mid := centroid(down[:]...)
			for e := range 3 {
				a, b := down[e], down[(e+1)%3]
				col, err := binColor(centroid(a, b, mid))
				if err != nil {
					return nil, err
				}
				piece, err := polygon(col, planar(a), planar(b), planar(mid))
				if err != nil {
					return nil, err
				}
				piece.LineStyle.Width, piece.LineStyle.Color = vg.Points(0.2), col // hide seams
				p.Add(piece)
			}
		}
	}
	// Redraw the grid lines over the downward pieces.
	for i := range m {
		for j := 0; i+j < m; j++ {
			l, err := plotter.NewLine(plotter.XYs{planar(vertex(i, j)), planar(vertex(i+1, j)), planar(vertex(i, j+1)), planar(vertex(i, j))})
			if err != nil {
				return nil, err
			}
			l.LineStyle.Width, l.LineStyle.Color = vg.Points(0.4), gridColor
			p.Add(l)
		}
	}
	var at plotter.XYs
	var text []string
	var ink []color.Color
	for j, b := range c.Bins {
		at = append(at, planar([3]float64(c.Anchors[3*j:3*j+3])))
		text = append(text, strconv.Itoa(b.Count))
		col, err := binColor([3]float64(c.Anchors[3*j : 3*j+3]))
		if err != nil {
			return nil, err
		}
		ink = append(ink, inkOn(col))
	}
	for k, xy := range corner {
		at = append(at, plotter.XY{X: xy.X + []float64{-0.03, 0.03, 0}[k], Y: xy.Y + []float64{-0.04, -0.04, 0.04}[k]})
		text = append(text, fmt.Sprintf("class %d", k))
		ink = append(ink, color.Black)
	}
	if err := colouredLabels(p, at, text, ink); err != nil {
		return nil, err
	}
	if err := colorBar(p, cmap, top); err != nil {
		return nil, err
	}
	empty, err := polygon(emptyColor, corner[0], corner[1], corner[2])
	if err != nil {
		return nil, err
	}
	p.Legend.Add("empty bin", empty)
	p.Legend.Add("numbers: samples in the region", stacked{})
	p.Legend.Top, p.Legend.Left = false, true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	return p, nil
}

// colorBar draws the scale of cmap from 0 to top as a vertical bar to the
// right of the simplex, with tick labels.
func colorBar(p *plot.Plot, cmap interface {
	At(float64) (color.Color, error)
}, top float64) error {
	const x0, x1, steps = 1.1, 1.16, 40
	h := corner[2].Y
	for s := range steps {
		col, err := cmap.At(top * (float64(s) + 0.5) / steps)
		if err != nil {
			return err
		}
		slab, err := polygon(col, plotter.XY{X: x0, Y: h * float64(s) / steps}, plotter.XY{X: x1, Y: h * float64(s) / steps},
			plotter.XY{X: x1, Y: h * float64(s+1) / steps}, plotter.XY{X: x0, Y: h * float64(s+1) / steps})
		if err != nil {
			return err
		}
		slab.LineStyle.Width, slab.LineStyle.Color = vg.Points(0.2), col
		p.Add(slab)
	}
	var at plotter.XYs
	var text []string
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 1} {
		at = append(at, plotter.XY{X: x1 + 0.08, Y: f * h})
		text = append(text, strconv.FormatFloat(f*top, 'f', 3, 64))
	}
	at = append(at, plotter.XY{X: (x0 + x1) / 2, Y: h + 0.05})
	text = append(text, "bin error")
	return labels(p, at, text)
}

// Save renders p at width w and height h into path, as PNG or SVG by its
// extension; see SaveFigure.
func Save(p *plot.Plot, path string, w, h vg.Length) error {
	return SaveFigure(Figure{{p}}, path, w, h)
}

// DefaultDPI is the resolution of PNG output unless SaveFigureDPI says
// otherwise: a 12 cm panel is 709 pixels wide.
const DefaultDPI = 150

// SaveFigure renders fig with width w per panel column and height h per
// panel row into path at DefaultDPI; see SaveFigureDPI.
func SaveFigure(fig Figure, path string, w, h vg.Length) error {
	return SaveFigureDPI(fig, path, w, h, DefaultDPI)
}

// SaveFigureDPI renders fig with width w per panel column and height h per
// panel row into path, as PNG (.png, at dpi dots per inch) or SVG (.svg,
// vector) by its extension. The image is rendered first and then written
// to a temporary file in the same directory that replaces path only once
// complete, so an existing file is never lost half-written.
func SaveFigureDPI(fig Figure, path string, w, h vg.Length, dpi int) error {
	if dpi < 1 {
		return fmt.Errorf("plot.SaveFigure: %s: %d dots per inch", path, dpi)
	}
	if len(fig) == 0 || len(fig[0]) == 0 {
		return fmt.Errorf("plot.SaveFigure: %s: empty figure", path)
	}
	for _, row := range fig {
		if len(row) != len(fig[0]) {
			return fmt.Errorf("plot.SaveFigure: %s: ragged figure (rows of %d and %d panels)", path, len(fig[0]), len(row))
		}
	}
	width, height := w*vg.Length(len(fig[0])), h*vg.Length(len(fig))
	var canvas interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		canvas = newFastPNG(width, height, dpi)
	case ".svg":
		canvas = vgsvg.New(width, height)
	default:
		return fmt.Errorf("plot.SaveFigure: %s: unknown image format %q (want .png or .svg)", path, filepath.Ext(path))
	}
	img, isPNG := canvas.(fastPNG)
	drawFigure(fig, canvas, isPNG)
	err := atomicfile.Write(path, func(out io.Writer) error {
		_, err := canvas.WriteTo(out)
		return err
	})
	if isPNG {
		img.release()
	}
	if err != nil {
		return fmt.Errorf("plot.SaveFigure: %w", err)
	}
	return nil
}

// ClasswisePooled is the class-wise diagram in one panel: each bin pools
// the samples of every class whose predicted probability of that class
// falls in it (their mean probability against the label frequency). The
// classes' bins must share their edges.
func ClasswisePooled(c metrics.Classwise, title string) (*plot.Plot, error) {
	bins, err := pool(c)
	if err != nil {
		return nil, err
	}
	return reliability(metrics.Calibration{Error: c.Error, Bins: bins}, heading(title, fmt.Sprintf("class-wise, classes pooled; CwECE %.2f%%", 100*c.Error)), "frequency")
}

// pool merges the classes' bins of c, which must share their edges.
func pool(c metrics.Classwise) ([]metrics.Bin, error) {
	if len(c.Classes) == 0 {
		return nil, errors.New("plot.ClasswisePooled: no classes")
	}
	bins := make([]metrics.Bin, len(c.Classes[0].Bins))
	for k, cal := range c.Classes {
		if len(cal.Bins) != len(bins) {
			return nil, fmt.Errorf("plot.ClasswisePooled: class %d has %d bins, class 0 %d", k, len(cal.Bins), len(bins))
		}
		for j, b := range cal.Bins {
			p := &bins[j]
			if k > 0 && (b.Lo != p.Lo || b.Hi != p.Hi) {
				return nil, fmt.Errorf("plot.ClasswisePooled: class %d's bin %d is (%v, %v], class 0's (%v, %v]", k, j, b.Lo, b.Hi, p.Lo, p.Hi)
			}
			p.Lo, p.Hi, p.Used = b.Lo, b.Hi, p.Used || b.Used
			if n := p.Count + b.Count; n > 0 {
				p.Conf = (p.Conf*float64(p.Count) + b.Conf*float64(b.Count)) / float64(n)
				p.Acc = (p.Acc*float64(p.Count) + b.Acc*float64(b.Count)) / float64(n)
				p.Count = n
			}
		}
	}
	return bins, nil
}

// drawFigure draws fig's panels on c, a row of tiles per row of fig;
// onWhite leaves out the panels' white backgrounds, for a canvas that is
// white already (painting white on it changes no pixel).
func drawFigure(fig Figure, c vg.CanvasSizer, onWhite bool) {
	pad := vg.Millimeter * 3
	tiles := draw.Tiles{Rows: len(fig), Cols: len(fig[0]), PadX: pad, PadY: pad, PadTop: pad, PadBottom: pad, PadLeft: pad, PadRight: pad}
	canvases := plot.Align(fig, tiles, draw.New(c))
	for i, row := range fig {
		for j, p := range row {
			if p == nil {
				continue
			}
			if onWhite && isWhite(p.BackgroundColor) {
				q := *p
				q.BackgroundColor = nil
				p = &q
			}
			p.Draw(canvases[i][j])
		}
	}
}

// isWhite reports whether c is opaque white.
func isWhite(c color.Color) bool {
	if c == nil {
		return false
	}
	r, g, b, a := c.RGBA()
	return r&g&b&a == 0xffff
}
