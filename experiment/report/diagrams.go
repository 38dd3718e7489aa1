package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/plot"
	"github.com/ecl-go/ecl/experiment"
	"github.com/ecl-go/ecl/internal/atomicfile"
)

// slug makes a setup's description a file name.
func slug(setup string) string {
	return strings.NewReplacer(" ", "_", "=", "", "/", "-", "→", "-to-").Replace(setup)
}

// firstSeed returns the results of rs's first seed that kept their
// calibrations.
func firstSeed(rs []experiment.Result) []experiment.Result {
	var kept []experiment.Result
	for _, r := range rs {
		if r.Seed == rs[0].Seed && r.Diagram != nil {
			kept = append(kept, r)
		}
	}
	return kept
}

// model is r's calibrations, titled "METHOD, SHIFT, seed N".
func model(r experiment.Result) plot.Model {
	c := metrics.Calibrations{Top: r.Diagram.TopLabel, Classwise: r.Diagram.Classwise}
	if r.Diagram.Canonical != nil {
		c.Canonical = *r.Diagram.Canonical
	}
	return plot.Model{Title: fmt.Sprintf("%s, %s, seed %d", r.Method, r.Shift, r.Seed), Calibrations: c}
}

// grids are the figures of the first seed's reliability diagrams, one per
// setup (which names the shift), a row per method: grid-SETUP.
func grids(rs []experiment.Result) []plot.Grid {
	if len(rs) == 0 {
		return nil
	}
	var out []plot.Grid
	at := map[string]int{}
	for _, r := range firstSeed(rs) {
		j, ok := at[r.Setup]
		if !ok {
			j = len(out)
			at[r.Setup] = j
			out = append(out, plot.Grid{Name: "grid-" + slug(r.Setup)})
		}
		out[j].Rows = append(out[j].Rows, model(r))
	}
	return out
}

// WriteGrids draws the first seed's reliability diagrams of rs into dir,
// one figure per setup (plot.Grid) as grid-SETUP.png and .svg.
func WriteGrids(dir string, rs []experiment.Result, style plot.DiagramStyle) error {
	return plot.WriteGrids(dir, grids(rs), style)
}

// WriteStudyDiagrams draws the reliability diagrams of the first seed's
// models on the target into dir/diagrams: SETUP-METHOD-top-label.png and
// the like for each model, and the grids of WriteGrids, from the
// calibrations their runs recorded. The folder is replaced as a whole
// (atomicfile.ReplaceDir), so that the diagrams always belong to the
// results beside them. Nothing is written for no results.
func WriteStudyDiagrams(dir string, rs []experiment.Result, style plot.DiagramStyle) error {
	if len(rs) == 0 {
		return nil
	}
	return atomicfile.ReplaceDir(filepath.Join(dir, "diagrams"), func(tmp string) error {
		var sets []plot.DiagramSet
		for _, r := range firstSeed(rs) {
			sets = append(sets, plot.DiagramSet{Prefix: fmt.Sprintf("%s-%s-", slug(r.Setup), r.Method), Model: model(r)})
		}
		return plot.WriteDiagramSets(tmp, grids(rs), sets, style)
	})
}
