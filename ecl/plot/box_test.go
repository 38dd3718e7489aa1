package plot

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Boxes draws one box per series and level with values, at the level's
// slot in the series' order, and refuses value lists that do not match
// the levels; ShareY gives every panel the union of the ranges with the
// headroom asked for.
func TestBoxes(t *testing.T) {
	series := []BoxSeries{
		{Name: "a", Values: [][]float64{{1, 2, 3}, {4, 5, 6}, nil}},
		{Name: "b", Values: [][]float64{{10, 11}, {12}, {13, 14, 15, 16}}},
	}
	p, err := Boxes("t", "level", "value", []string{"0", "1", "2"}, series)
	if err != nil {
		t.Fatal(err)
	}
	boxes, err := boxPlots([]string{"0", "1", "2"}, series)
	if err != nil {
		t.Fatal(err)
	}
	var locs []float64
	var medians []float64
	for _, b := range boxes {
		locs = append(locs, b.Location)
		medians = append(medians, b.Median)
	}
	// Series a at levels 0 and 1 (none at 2), then b at 0, 1, 2; the
	// slots of a level are 0.4 wide each, centred at ±0.2.
	wantLocs, wantMedians := []float64{-0.2, 0.8, 0.2, 1.2, 2.2}, []float64{2, 5, 10.5, 12, 14.5}
	if len(locs) != len(wantLocs) {
		t.Fatalf("%d boxes, want %d", len(locs), len(wantLocs))
	}
	for i := range locs {
		if math.Abs(locs[i]-wantLocs[i]) > 1e-12 || medians[i] != wantMedians[i] {
			t.Errorf("box %d at %v with median %v, want %v and %v", i, locs[i], medians[i], wantLocs[i], wantMedians[i])
		}
	}
	if _, err := Boxes("t", "x", "y", []string{"0", "1"}, series); err == nil {
		t.Error("three value lists for two levels: no error")
	}
	q, _ := Boxes("u", "level", "value", []string{"0"}, []BoxSeries{{Name: "c", Values: [][]float64{{-4, 0}}}})
	ShareY(0.5, p, q)
	for _, pl := range []*plot.Plot{p, q} {
		if pl.Y.Min != -4 || pl.Y.Max != 16+0.5*20 {
			t.Errorf("y range [%v, %v], want [-4, 26]", pl.Y.Min, pl.Y.Max)
		}
	}
	path := filepath.Join(t.TempDir(), "boxes.png")
	if err := SaveFigure(Figure{{p, q}}, path, 10*vg.Centimeter, 8*vg.Centimeter); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Error(err)
	}
}

// Map fills a cell per value, none for NaN, with the text of each filled
// cell, and checks its table's shape.
func TestMap(t *testing.T) {
	values := [][]float64{{-1, math.NaN()}, {0.5, 3}}
	text := [][]string{{"a", "x"}, {"b", "c"}}
	if _, err := Map("m", []string{"r0", "r1"}, []string{"c0", "c1"}, values, text, 2); err != nil {
		t.Fatal(err)
	}
	cells, at, words, _, err := mapCells(values, text, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Row 0 on top (y = 1); the NaN cell left out.
	wantAt := plotter.XYs{{X: 0, Y: 1}, {X: 0, Y: 0}, {X: 1, Y: 0}}
	if len(cells) != 3 || len(words) != 3 || words[0] != "a" || words[2] != "c" {
		t.Fatalf("%d cells and labels %v, want 3 and [a b c]", len(cells), words)
	}
	for i := range at {
		if at[i] != wantAt[i] {
			t.Errorf("label %d at %v, want %v", i, at[i], wantAt[i])
		}
	}
	if _, err := Map("m", []string{"r0"}, []string{"c0", "c1"}, values, text, 2); err == nil {
		t.Error("two value rows for one row: no error")
	}
	if _, err := Map("m", []string{"r0", "r1"}, []string{"c0", "c1"}, values, text, 0); err == nil {
		t.Error("scale end 0: no error")
	}
}
