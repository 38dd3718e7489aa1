package main

import (
	"os"
	"path/filepath"

	"gonum.org/v1/plot/vg"

	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/plot"
)

// writeDiagrams writes the top-label, class-wise and (for K = 3) canonical
// reliability diagrams as PNG and SVG into dir, file names prefixed by
// prefix, with the given title, in the given style.
func writeDiagrams(dir, prefix, title string, c metrics.Calibrations, style diagramStyle) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	top, err := plot.TopLabel(c.Top, title)
	if err != nil {
		return err
	}
	cw, err := plot.Classwise(c.Classwise, title)
	if err != nil {
		return err
	}
	type diagram struct {
		name string
		fig  plot.Figure
		w, h vg.Length // per panel
	}
	diagrams := []diagram{{"top-label", plot.Figure{{top}}, 12 * vg.Centimeter, 10 * vg.Centimeter}, {"classwise", cw, 11 * vg.Centimeter, 9 * vg.Centimeter}}
	if c.Canonical.K == 3 {
		can, err := plot.Canonical(c.Canonical, title)
		if err != nil {
			return err
		}
		diagrams = append(diagrams, diagram{"canonical", plot.Figure{{can}}, 14 * vg.Centimeter, 11 * vg.Centimeter})
	}
	for _, d := range diagrams {
		for _, ext := range []string{".png", ".svg"} {
			if err := plot.SaveFigureDPI(d.fig, filepath.Join(dir, prefix+d.name+ext), d.w*style.scale(), d.h*style.scale(), style.DPI); err != nil {
				return err
			}
		}
	}
	return nil
}
