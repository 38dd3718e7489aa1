package main

import (
	"fmt"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot/vg"

	"github.com/ecl-go/ecl/ecl/plot"
	"github.com/ecl-go/ecl/experiment"
)

// figureSize is a figure's width and height in cm (width 0: chosen by the
// figure) and its PNG resolution.
type figureSize struct {
	w, h float64
	dpi  int
}

// writeMetricFigures draws, for each shift and setup and each metric, every
// method's per-seed values and their mean ± std into dir, in each format.
func writeMetricFigures(dir string, formats []string, size figureSize, r report) error {
	for _, block := range r.blocks() {
		methods, names := make([]experiment.MethodID, len(block)), make([]string, len(block))
		for i, s := range block {
			methods[i], names[i] = s.Method, s.Method.String()
		}
		for _, m := range r.metrics {
			values := make([][]float64, len(block))
			for _, res := range r.results {
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
			w := size.w
			if w == 0 {
				w = max(14, 2*float64(len(methods)))
			}
			for _, f := range formats {
				if err := plot.SaveFigureDPI(plot.Figure{{p}}, filepath.Join(dir, name+"."+f), vg.Length(w)*vg.Centimeter, vg.Length(size.h)*vg.Centimeter, size.dpi); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
