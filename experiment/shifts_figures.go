package experiment

import (
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/ecl-go/ecl/datasets/corrupt"
	"github.com/ecl-go/ecl/ecl/plot"
)

// shiftFigureMethods are the rows the graded-shift figures draw, when
// present: the baseline, the post-hoc methods that calibrate on the
// source and on the target's inputs, the fine-tuning control and ECL.
var shiftFigureMethods = []string{"Uncal", "TS", "PseudoCal", "CE-finetune", "ECL-toplabel", "ECL-classwise", "ECL-canonical"}

// ShiftRefs are the rows ECL is compared with in the map.
var ShiftRefs = []string{"Uncal", "CE-finetune"}

// ShiftCell is one ECL row against a reference on one target: the seeds
// on which its own error (ECE, CwECE or CanECE) is below the reference's,
// out of Seeds, and the mean change in points.
type ShiftCell struct {
	Wins, Seeds int
	Delta       float64
}

// ShiftMap is where ECL beats the references: Cells[ref][ECL row][target].
type ShiftMap struct {
	Targets []ShiftTarget
	ECL     []string
	Cells   map[string]map[string]map[ShiftTarget]ShiftCell
}

// shiftRows indexes results by target, method name and seed.
type shiftRows map[ShiftTarget]map[string]map[uint64]Result

// indexShifts indexes the results of a graded-shift study, and lists
// their targets in the order of corrupt.Names, levels increasing.
func indexShifts(rs []Result) (shiftRows, []ShiftTarget, error) {
	idx := shiftRows{}
	for _, r := range rs {
		t, err := ParseShiftTarget(r.Shift.Target)
		if err != nil {
			return nil, nil, err
		}
		if idx[t] == nil {
			idx[t] = map[string]map[uint64]Result{}
		}
		m := r.Method.String()
		if idx[t][m] == nil {
			idx[t][m] = map[uint64]Result{}
		}
		idx[t][m][r.Seed] = r
	}
	var ts []ShiftTarget
	for t := range idx {
		ts = append(ts, t)
	}
	slices.SortFunc(ts, func(a, b ShiftTarget) int {
		if a.Transform != b.Transform {
			return slices.Index(corrupt.Names, a.Transform) - slices.Index(corrupt.Names, b.Transform)
		}
		return a.Level - b.Level
	})
	return idx, ts, nil
}

// NewShiftMap compares every ECL row of rs with ShiftRefs on the seeds
// both have, target by target.
func NewShiftMap(rs []Result) (ShiftMap, error) {
	idx, ts, err := indexShifts(rs)
	if err != nil {
		return ShiftMap{}, err
	}
	m := ShiftMap{Targets: ts, Cells: map[string]map[string]map[ShiftTarget]ShiftCell{}}
	for _, r := range rs {
		if own, ok := ownMetric(r.Method); ok && own != "" && !slices.Contains(m.ECL, r.Method.String()) {
			m.ECL = append(m.ECL, r.Method.String())
		}
	}
	for _, ref := range ShiftRefs {
		m.Cells[ref] = map[string]map[ShiftTarget]ShiftCell{}
		for _, e := range m.ECL {
			m.Cells[ref][e] = map[ShiftTarget]ShiftCell{}
			for _, t := range ts {
				var c ShiftCell
				for seed, er := range idx[t][e] {
					rr, ok := idx[t][ref][seed]
					if !ok {
						continue
					}
					own, _ := ownMetric(er.Method)
					d := 100 * (er.Target.Get(own) - rr.Target.Get(own))
					c.Seeds++
					c.Delta += d
					if d < 0 {
						c.Wins++
					}
				}
				if c.Seeds > 0 {
					c.Delta /= float64(c.Seeds)
					m.Cells[ref][e][t] = c
				}
			}
		}
	}
	return m, nil
}

// transforms lists the transforms of ts in order, with each one's levels.
func transforms(ts []ShiftTarget) ([]string, map[string][]int) {
	var names []string
	levels := map[string][]int{}
	for _, t := range ts {
		if !slices.Contains(names, t.Transform) {
			names = append(names, t.Transform)
		}
		levels[t.Transform] = append(levels[t.Transform], t.Level)
	}
	return names, levels
}

// Write prints the map: per reference and ECL row, a line per transform
// with "wins/seeds change" per level, then the totals.
func (m ShiftMap) Write(w io.Writer) error {
	names, levels := transforms(m.Targets)
	for _, ref := range ShiftRefs {
		for _, e := range m.ECL {
			fmt.Fprintf(w, "%s against %s (its own error: seeds improved/seeds, mean change in points)\n", e, ref)
			wins, cells, total := 0, 0, 0.0
			for _, n := range names {
				fmt.Fprintf(w, "  %-14s", n)
				for _, l := range levels[n] {
					c, ok := m.Cells[ref][e][ShiftTarget{n, l}]
					if !ok {
						fmt.Fprintf(w, "  %4d: —          ", l)
						continue
					}
					fmt.Fprintf(w, "  %4d: %d/%d %+6.2f", l, c.Wins, c.Seeds, c.Delta)
					cells++
					total += c.Delta
					if 2*c.Wins > c.Seeds {
						wins++
					}
				}
				fmt.Fprintln(w)
			}
			if cells > 0 {
				fmt.Fprintf(w, "  improved on most seeds at %d of %d targets; mean change %+.2f points\n\n", wins, cells, total/float64(cells))
			}
		}
	}
	return nil
}

// WriteShiftFigures draws the graded-shift study's figures of rs into dir
// as PNG and SVG: accuracy, ECE, CwECE and NLL against the level
// (metric-*.png: box plots over seeds, one panel per transform, one scale),
// the auxiliary heads' estimates against the truth on the target
// (estimates.png) and where ECL beats Uncal and CE-finetune (map-*.png).
// It returns the map.
func WriteShiftFigures(dir string, rs []Result) (ShiftMap, error) {
	m, err := NewShiftMap(rs)
	if err != nil || len(m.Targets) == 0 {
		return m, err
	}
	idx, _, _ := indexShifts(rs)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return m, err
	}
	names, levels := transforms(m.Targets)
	var methods []string
	for _, name := range shiftFigureMethods {
		for _, t := range m.Targets {
			if len(idx[t][name]) > 0 {
				methods = append(methods, name)
				break
			}
		}
	}
	metrics := []struct {
		name, label string
		scale       float64
	}{{"ACC", "accuracy (%)", 100}, {"ECE", "top-label ECE (%)", 100}, {"CwECE", "class-wise ECE (%)", 100}, {"NLL", "NLL", 1}}
	for _, mt := range metrics {
		err := boxFigure(dir, "metric-"+strings.ToLower(mt.name), names, levels, methods, mt.label, func(t ShiftTarget, method string) []float64 {
			var vs []float64
			for _, r := range sortedSeeds(idx[t][method]) {
				vs = append(vs, mt.scale*r.Target.Get(mt.name))
			}
			return vs
		})
		if err != nil {
			return m, err
		}
	}
	err = boxFigure(dir, "estimates", names, levels, m.ECL, "head's estimate − truth on the target (points)", func(t ShiftTarget, method string) []float64 {
		var vs []float64
		for _, r := range sortedSeeds(idx[t][method]) {
			if e, ok := estimateError(r); ok {
				vs = append(vs, 100*e)
			}
		}
		return vs
	})
	if err != nil {
		return m, err
	}
	for _, ref := range ShiftRefs {
		if err := m.figure(dir, ref, names, levels); err != nil {
			return m, err
		}
	}
	return m, nil
}

// sortedSeeds are the results of a method on a target in seed order.
func sortedSeeds(bySeed map[uint64]Result) []Result {
	var out []Result
	for _, seed := range slices.Sorted(maps.Keys(bySeed)) {
		out = append(out, bySeed[seed])
	}
	return out
}

// estimateError is an ECL row's auxiliary head's error on the target's
// scored part, without its labels: for top-label the estimated minus the
// true accuracy, otherwise the mean over classes of the estimated minus
// the true class frequency's absolute value.
func estimateError(r Result) (float64, bool) {
	a, ok := targetCheck(r)
	if !ok {
		return 0, false
	}
	if len(a.Estimate) == 1 {
		return a.Estimate[0] - a.Actual[0], true
	}
	var s float64
	for i := range a.Estimate {
		s += math.Abs(a.Estimate[i] - a.Actual[i])
	}
	return s / float64(len(a.Estimate)), true
}

// targetCheck is an ECL row's auxiliary head's check on the target's
// scored part.
func targetCheck(r Result) (AuxCheck, bool) {
	if r.Diag == nil {
		return AuxCheck{}, false
	}
	for _, a := range r.Diag.Aux {
		if a.Domain == "target test" && len(a.Estimate) == len(a.Actual) && len(a.Estimate) > 0 {
			return a, true
		}
	}
	return AuxCheck{}, false
}

// levelAxis names a transform's levels and their axis.
func levelAxis(transform string, levels []int) ([]string, string) {
	out := make([]string, len(levels))
	for i, l := range levels {
		out[i] = strconv.Itoa(l)
	}
	if transform == corrupt.Rotate {
		return out, "angle (°)"
	}
	return out, "severity"
}

// panelsPerRow is the width of the figures' grid of transforms.
const panelsPerRow = 3

// boxFigure writes dir/name.png and .svg: one box-plot panel per
// transform (values(t, series) over seeds at each level), on one y scale.
func boxFigure(dir, name string, transforms []string, levels map[string][]int, series []string, ylabel string, values func(ShiftTarget, string) []float64) error {
	var panels []*gplot.Plot
	for _, tr := range transforms {
		var ss []plot.BoxSeries
		for _, s := range series {
			bs := plot.BoxSeries{Name: s}
			for _, l := range levels[tr] {
				bs.Values = append(bs.Values, values(ShiftTarget{tr, l}, s))
			}
			ss = append(ss, bs)
		}
		ls, axis := levelAxis(tr, levels[tr])
		p, err := plot.Boxes(tr, axis, ylabel, ls, ss)
		if err != nil {
			return err
		}
		panels = append(panels, p)
	}
	plot.ShareY(0.35, panels...)
	return saveGrid(dir, name, panels, 16*vg.Centimeter, 10*vg.Centimeter)
}

// saveGrid lays panels out panelsPerRow to a row and writes them as
// dir/name.png and dir/name.svg.
func saveGrid(dir, name string, panels []*gplot.Plot, w, h vg.Length) error {
	cols := min(panelsPerRow, len(panels))
	var fig plot.Figure
	for i, p := range panels {
		if i%cols == 0 {
			fig = append(fig, make([]*gplot.Plot, cols))
		}
		fig[len(fig)-1][i%cols] = p
	}
	for _, ext := range []string{".png", ".svg"} {
		if err := plot.SaveFigure(fig, filepath.Join(dir, name+ext), w, h); err != nil {
			return err
		}
	}
	return nil
}

// figure writes dir/map-<ref>.png and .svg: per ECL row, the rotation's
// angles and the corruptions' severities, each cell the seeds improved
// and the mean change against ref, coloured by the change.
func (m ShiftMap) figure(dir, ref string, names []string, levels map[string][]int) error {
	lim := 0.5
	for _, cells := range m.Cells[ref] {
		for _, c := range cells {
			lim = max(lim, math.Abs(c.Delta))
		}
	}
	var panels []*gplot.Plot
	for _, e := range m.ECL {
		var corr []string
		for _, n := range names {
			if n != corrupt.Rotate {
				corr = append(corr, n)
			}
		}
		groups := [][]string{{corrupt.Rotate}, corr}
		for _, rows := range groups {
			if len(rows) == 0 || !slices.Contains(names, rows[0]) {
				panels = append(panels, nil)
				continue
			}
			var cols []int
			for _, r := range rows {
				for _, l := range levels[r] {
					if !slices.Contains(cols, l) {
						cols = append(cols, l)
					}
				}
			}
			slices.Sort(cols)
			colNames, axis := levelAxis(rows[0], cols)
			vals, text := make([][]float64, len(rows)), make([][]string, len(rows))
			for i, r := range rows {
				for _, l := range cols {
					c, ok := m.Cells[ref][e][ShiftTarget{r, l}]
					if !ok {
						vals[i], text[i] = append(vals[i], math.NaN()), append(text[i], "")
						continue
					}
					vals[i] = append(vals[i], c.Delta)
					text[i] = append(text[i], fmt.Sprintf("%d/%d\n%+.1f", c.Wins, c.Seeds, c.Delta))
				}
			}
			p, err := plot.Map(fmt.Sprintf("%s vs %s: seeds improved, mean change (points)", e, ref), rows, colNames, vals, text, lim)
			if err != nil {
				return err
			}
			p.X.Label.Text = axis
			panels = append(panels, p)
		}
	}
	if len(panels) == 0 {
		return nil
	}
	var fig plot.Figure
	for i := 0; i < len(panels); i += 2 {
		fig = append(fig, panels[i:i+2])
	}
	if allNil(panels) {
		return nil
	}
	name := "map-" + strings.ToLower(ref)
	for _, ext := range []string{".png", ".svg"} {
		if err := plot.SaveFigure(fig, filepath.Join(dir, name+ext), 18*vg.Centimeter, 9*vg.Centimeter); err != nil {
			return err
		}
	}
	return nil
}

func allNil(ps []*gplot.Plot) bool {
	for _, p := range ps {
		if p != nil {
			return false
		}
	}
	return true
}

// WriteShiftSummary prints a Markdown table of rs, a line per target:
// the number of seeds, Uncal's accuracy, the top-label auxiliary head's
// estimate of it (its mean P(correct) on the target, a label-free
// estimate) and the top-label ECE of the figures' methods, means over
// seeds in %.
func WriteShiftSummary(w io.Writer, rs []Result) error {
	idx, ts, err := indexShifts(rs)
	if err != nil {
		return err
	}
	mean := func(bySeed map[uint64]Result, f func(Result) (float64, bool)) string {
		var s float64
		n := 0
		for _, r := range bySeed {
			if v, ok := f(r); ok {
				s += v
				n++
			}
		}
		if n == 0 {
			return "—"
		}
		return fmt.Sprintf("%.1f", 100*s/float64(n))
	}
	fmt.Fprint(w, "| target | seeds | ACC | head's estimate |")
	for _, m := range shiftFigureMethods {
		fmt.Fprintf(w, " ECE %s |", m)
	}
	fmt.Fprint(w, "\n|---|---|---|---|", strings.Repeat("---|", len(shiftFigureMethods)), "\n")
	for _, t := range ts {
		uncal := idx[t]["Uncal"]
		fmt.Fprintf(w, "| %s | %d | %s | %s |", t, len(uncal), mean(uncal, func(r Result) (float64, bool) { return r.Target.ACC, true }),
			mean(idx[t]["ECL-toplabel"], func(r Result) (float64, bool) {
				a, ok := targetCheck(r)
				return a.Estimate[0], ok && len(a.Estimate) == 1
			}))
		for _, m := range shiftFigureMethods {
			fmt.Fprintf(w, " %s |", mean(idx[t][m], func(r Result) (float64, bool) { return r.Target.ECE, true }))
		}
		fmt.Fprintln(w)
	}
	return nil
}
