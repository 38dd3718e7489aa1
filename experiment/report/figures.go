package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot/vg"

	"github.com/ecl-go/ecl/ecl/plot"
	"github.com/ecl-go/ecl/experiment"
	"github.com/ecl-go/ecl/internal/atomicfile"
)

// FigureSize is a figure's width and height in cm (width 0: 2 cm per
// method, at least 14) and its PNG resolution.
type FigureSize struct {
	Width, Height float64
	DPI           int
}

// WriteFigures draws, for each shift and setup and each of r.Metrics,
// every method's per-seed values and their mean ± std into dir as
// SETUP-METRIC.EXT, in each format (png, svg).
func (r Report) WriteFigures(dir string, formats []string, size FigureSize) error {
	for _, block := range r.blocks() {
		methods, names := make([]experiment.MethodID, len(block)), make([]string, len(block))
		for i, s := range block {
			methods[i], names[i] = s.Method, s.Method.String()
		}
		for _, m := range r.Metrics {
			values := make([][]float64, len(block))
			for _, res := range r.Results {
				if i := slices.Index(methods, res.Method); i >= 0 && res.Shift == block[0].Shift && res.Setup == block[0].Setup {
					values[i] = append(values[i], scale(m)*res.Target.Get(m))
				}
			}
			unit := " (%)"
			if m == "NLL" {
				unit = ""
			}
			p, err := plot.SeedSpread(fmt.Sprintf("%s: target %s, %d seeds", r.title(block), m, block[0].Runs), m+unit, names, values)
			if err != nil {
				return err
			}
			name := slug(block[0].Setup) + "-" + m
			w := size.Width
			if w == 0 {
				w = max(14, 2*float64(len(methods)))
			}
			for _, f := range formats {
				if err := plot.SaveFigureDPI(plot.Figure{{p}}, filepath.Join(dir, name+"."+f), vg.Length(w)*vg.Centimeter, vg.Length(size.Height)*vg.Centimeter, size.DPI); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// WriteDir creates dir and writes into it report.txt, report.md,
// report.tex and report.csv (each atomically), the figures of
// WriteFigures in the given formats, and the first seed's reliability
// diagram grids (WriteGrids) at the figures' resolution.
func (r Report) WriteDir(dir string, formats []string, size FigureSize) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range []struct{ name, format string }{{"report.md", "md"}, {"report.tex", "latex"}, {"report.csv", "csv"}, {"report.txt", "text"}} {
		if err := atomicfile.Write(filepath.Join(dir, f.name), func(w io.Writer) error { return r.Write(w, f.format) }); err != nil {
			return err
		}
	}
	if err := r.WriteFigures(dir, formats, size); err != nil {
		return err
	}
	return WriteGrids(dir, r.Results, plot.DiagramStyle{Scale: 1, DPI: size.DPI})
}
