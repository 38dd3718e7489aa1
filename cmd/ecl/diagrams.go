package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/plot"
	"github.com/ecl-go/ecl/experiment"
)

// diagramStyle is the reliability diagrams' size, as a factor on each
// panel's default size, and their PNG resolution (SVG is vector).
type diagramStyle struct {
	Scale float64
	DPI   int
}

// scale is the size factor as a length ratio.
func (s diagramStyle) scale() vg.Length { return vg.Length(s.Scale) }

// diagramFlags registers -diagram-scale and -diagram-dpi on fs; a value
// that is not positive (and finite) fails fs.Parse, before any work.
func diagramFlags(fs *flag.FlagSet) *diagramStyle {
	s := &diagramStyle{Scale: 1, DPI: plot.DefaultDPI}
	fs.Func("diagram-scale", "size of the reliability diagrams, a factor on each panel's default (12×10 cm top-label) (default 1)", func(v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0) || math.IsInf(f, 0) {
			return errors.New("want a finite number > 0")
		}
		s.Scale = f
		return nil
	})
	fs.Func("diagram-dpi", fmt.Sprintf("resolution of the PNG reliability diagrams, dots per inch (SVG is vector) (default %d)", plot.DefaultDPI), func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return errors.New("want a whole number ≥ 1")
		}
		s.DPI = n
		return nil
	})
	return s
}

// writeStudyDiagrams draws the reliability diagrams of the first seed's
// models on the target into dir/diagrams, one set per setup (which names
// the shift) and method, from the calibrations their runs recorded. The
// folder is replaced as a whole: the diagrams are rendered into a
// temporary folder that takes its place once complete, so that they always
// belong to the results beside them; the temporary folders of a study
// killed while drawing are removed first.
func writeStudyDiagrams(dir string, rs []experiment.Result, style diagramStyle) error {
	if len(rs) == 0 {
		return nil
	}
	stale, err := filepath.Glob(filepath.Join(dir, ".diagrams.tmp*"))
	if err != nil {
		return err
	}
	for _, s := range stale {
		if err := os.RemoveAll(s); err != nil {
			return err
		}
	}
	tmp, err := os.MkdirTemp(dir, ".diagrams.tmp")
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	var draws []func() error
	first := rs[0].Seed
	for _, r := range rs {
		if r.Seed != first || r.Diagram == nil {
			continue
		}
		c := metrics.Calibrations{Top: r.Diagram.TopLabel, Classwise: r.Diagram.Classwise}
		if r.Diagram.Canonical != nil {
			c.Canonical = *r.Diagram.Canonical
		}
		prefix := fmt.Sprintf("%s-%s-", slug(r.Setup), r.Method)
		draws = append(draws, func() error {
			return writeDiagrams(tmp, prefix, fmt.Sprintf("%s, %s, seed %d", r.Method, r.Shift, r.Seed), c, style)
		})
	}
	grids, err := gridDraws(tmp, rs, style)
	if err != nil {
		return err
	}
	// The grids, the largest images, are drawn first and one after another,
	// so that they share one canvas's pixels while other cores draw the rest.
	inTurn := func() error {
		for _, g := range grids {
			if err := g(); err != nil {
				return err
			}
		}
		return nil
	}
	if err := onCores(append([]func() error{inTurn}, draws...)); err != nil {
		return err
	}
	final, old := filepath.Join(dir, "diagrams"), filepath.Join(dir, ".diagrams.tmp-old")
	if err := os.Rename(final, old); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	return os.RemoveAll(old)
}

// slug makes a setup's description a file name.
func slug(setup string) string {
	return strings.NewReplacer(" ", "_", "=", "", "/", "-", "→", "-to-").Replace(setup)
}

// onCores calls every function of fs, on as many goroutines as cores
// (GOMAXPROCS), and returns the error of the first in fs that failed.
func onCores(fs []func() error) error {
	errs := make([]error, len(fs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(fs)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(fs); i = int(next.Add(1) - 1) {
				errs[i] = fs[i]()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// writeGrids draws the figures of gridDraws.
func writeGrids(dir string, rs []experiment.Result, style diagramStyle) error {
	draws, err := gridDraws(dir, rs, style)
	if err != nil {
		return err
	}
	return onCores(draws)
}

// gridDraws returns the functions that draw, for each setup, the first
// seed's reliability diagrams as one figure, like the paper's: a row per
// method, a column per paradigm (top-label, class-wise with the classes
// pooled, and canonical for 3 classes, on one colour scale), into
// dir/grid-SETUP.png and .svg.
func gridDraws(dir string, rs []experiment.Result, style diagramStyle) ([]func() error, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	var setups []string
	rows := map[string]plot.Figure{}
	// One colour scale for the canonical panels of a figure, so that
	// their colours compare.
	canTop := map[string]float64{}
	for _, r := range rs {
		if r.Seed == rs[0].Seed && r.Diagram != nil && r.Diagram.Canonical != nil {
			canTop[r.Setup] = max(canTop[r.Setup], plot.CanonicalTop(*r.Diagram.Canonical))
		}
	}
	for _, r := range rs {
		if r.Seed != rs[0].Seed || r.Diagram == nil {
			continue
		}
		if rows[r.Setup] == nil {
			setups = append(setups, r.Setup)
		}
		title := fmt.Sprintf("%s, %s, seed %d", r.Method, r.Shift, r.Seed)
		top, err := plot.TopLabel(r.Diagram.TopLabel, title)
		if err != nil {
			return nil, err
		}
		cw, err := plot.ClasswisePooled(r.Diagram.Classwise, title)
		if err != nil {
			return nil, err
		}
		row := []*gplot.Plot{top, cw}
		if r.Diagram.Canonical != nil {
			can, err := plot.CanonicalOnScale(*r.Diagram.Canonical, title, canTop[r.Setup])
			if err != nil {
				return nil, err
			}
			row = append(row, can)
		}
		rows[r.Setup] = append(rows[r.Setup], row)
	}
	var draws []func() error
	for _, setup := range setups {
		draws = append(draws, func() error {
			for _, ext := range []string{".png", ".svg"} {
				path := filepath.Join(dir, "grid-"+slug(setup)+ext)
				if err := plot.SaveFigureDPI(rows[setup], path, 13*vg.Centimeter*style.scale(), 11*vg.Centimeter*style.scale(), style.DPI); err != nil {
					return err
				}
			}
			return nil
		})
	}
	return draws, nil
}
