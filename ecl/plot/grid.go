package plot

import (
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/ecl-go/ecl/ecl/metrics"
)

// Model is one model's calibrations on a data set, and the title of its
// diagrams.
type Model struct {
	Title        string
	Calibrations metrics.Calibrations
}

// Grid is one figure of several models' reliability diagrams, like the
// paper's: a row per model, a column per paradigm (top-label, class-wise
// with the classes pooled, and canonical for 3 classes, the canonical
// panels on one colour scale), saved as Name.png and Name.svg.
type Grid struct {
	Name string
	Rows []Model
}

// DiagramSet is a model whose diagrams WriteDiagrams writes, file names
// prefixed by Prefix.
type DiagramSet struct {
	Prefix string
	Model
}

// figure builds the grid's panels.
func (g Grid) figure() (Figure, error) {
	var top float64
	for _, m := range g.Rows {
		if m.Calibrations.Canonical.K == 3 {
			top = max(top, CanonicalTop(m.Calibrations.Canonical))
		}
	}
	var fig Figure
	for _, m := range g.Rows {
		tl, err := TopLabel(m.Calibrations.Top, m.Title)
		if err != nil {
			return nil, err
		}
		cw, err := ClasswisePooled(m.Calibrations.Classwise, m.Title)
		if err != nil {
			return nil, err
		}
		row := []*plot.Plot{tl, cw}
		if m.Calibrations.Canonical.K == 3 {
			can, err := CanonicalOnScale(m.Calibrations.Canonical, m.Title, top)
			if err != nil {
				return nil, err
			}
			row = append(row, can)
		}
		fig = append(fig, row)
	}
	return fig, nil
}

// gridDraws builds every grid's panels, and returns the functions that
// save each into dir.
func gridDraws(dir string, grids []Grid, style DiagramStyle) ([]func() error, error) {
	var draws []func() error
	for _, g := range grids {
		fig, err := g.figure()
		if err != nil {
			return nil, err
		}
		draws = append(draws, func() error {
			for _, ext := range []string{".png", ".svg"} {
				if err := SaveFigureDPI(fig, filepath.Join(dir, g.Name+ext), 13*vg.Centimeter*style.scale(), 11*vg.Centimeter*style.scale(), style.DPI); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return draws, nil
}

// WriteGrids saves the grids into dir, on as many goroutines as cores.
// Every panel is built before any file is written: a model whose diagrams
// cannot be drawn leaves dir untouched.
func WriteGrids(dir string, grids []Grid, style DiagramStyle) error {
	draws, err := gridDraws(dir, grids, style)
	if err != nil {
		return err
	}
	return onCores(draws)
}

// WriteDiagramSets saves the grids and each set's diagrams (WriteDiagrams)
// into dir. The grids, the largest images, are drawn one after another on
// one goroutine, so that they share one canvas's pixels, while the other
// cores draw the sets.
func WriteDiagramSets(dir string, grids []Grid, sets []DiagramSet, style DiagramStyle) error {
	draws := make([]func() error, 0, len(sets)+1)
	for _, s := range sets {
		draws = append(draws, func() error { return WriteDiagrams(dir, s.Prefix, s.Title, s.Calibrations, style) })
	}
	gs, err := gridDraws(dir, grids, style)
	if err != nil {
		return err
	}
	inTurn := func() error {
		for _, g := range gs {
			if err := g(); err != nil {
				return err
			}
		}
		return nil
	}
	return onCores(append([]func() error{inTurn}, draws...))
}
