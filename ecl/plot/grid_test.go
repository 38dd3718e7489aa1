package plot

import (
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ecl-go/ecl/ecl/metrics"
)

// calibrations are the top-label, class-wise and (for k = 3) canonical
// calibrations of a k-class sample.
func calibrations(t *testing.T, k int) metrics.Calibrations {
	t.Helper()
	probs, labels := sample(300, k)
	var c metrics.Calibrations
	var err error
	if c.Top, err = metrics.ECE(probs, k, labels, metrics.Options{}); err != nil {
		t.Fatal(err)
	}
	if c.Classwise, err = metrics.ClasswiseECE(probs, k, labels, metrics.Options{}); err != nil {
		t.Fatal(err)
	}
	if k == 3 {
		if c.Canonical, err = metrics.CanonicalECE(probs, k, labels, metrics.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// files lists dir's file names.
func files(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// A grid has a row per model and a column per paradigm (the canonical
// one for 3 classes only), 13×11 cm a panel times the style's scale; the
// sets get their three (or two) diagrams each.
func TestWriteDiagramSetsAndGrids(t *testing.T) {
	dir := t.TempDir()
	three, four := calibrations(t, 3), calibrations(t, 4)
	grids := []Grid{
		{Name: "grid-three", Rows: []Model{{"a", three}, {"b", three}}},
		{Name: "grid-four", Rows: []Model{{"c", four}}},
	}
	sets := []DiagramSet{{"a-", Model{"a", three}}, {"c-", Model{"c", four}}}
	style := DiagramStyle{Scale: 0.2, DPI: 254} // 100 pixels a centimetre
	if err := WriteDiagramSets(dir, grids, sets, style); err != nil {
		t.Fatal(err)
	}
	want := []string{"a-canonical.png", "a-canonical.svg", "a-classwise.png", "a-classwise.svg", "a-top-label.png", "a-top-label.svg",
		"c-classwise.png", "c-classwise.svg", "c-top-label.png", "c-top-label.svg",
		"grid-four.png", "grid-four.svg", "grid-three.png", "grid-three.svg"}
	if got := files(t, dir); !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	// 13 cm × 0.2 is 260 pixels a panel column; 11 cm × 0.2, 220 a row.
	for _, c := range []struct {
		name string
		w, h int
	}{{"grid-three.png", 3 * 260, 2 * 220}, {"grid-four.png", 2 * 260, 220}} {
		f, err := os.Open(filepath.Join(dir, c.name))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != c.w || cfg.Height != c.h {
			t.Errorf("%s: %d×%d (%v), want %d×%d", c.name, cfg.Width, cfg.Height, err, c.w, c.h)
		}
	}
	other := t.TempDir()
	if err := WriteGrids(other, grids, style); err != nil {
		t.Fatal(err)
	}
	if got := files(t, other); !slices.Equal(got, []string{"grid-four.png", "grid-four.svg", "grid-three.png", "grid-three.svg"}) {
		t.Errorf("WriteGrids wrote %v", got)
	}
}

// A model whose diagrams cannot be built fails the grids before any file
// is written.
func TestWriteGridsRefusesBrokenModelFirst(t *testing.T) {
	dir := t.TempDir()
	broken := calibrations(t, 3)
	broken.Canonical.Anchors = broken.Canonical.Anchors[:3]
	grids := []Grid{{Name: "ok", Rows: []Model{{"a", calibrations(t, 3)}}}, {Name: "broken", Rows: []Model{{"b", broken}}}}
	if err := WriteGrids(dir, grids, DiagramStyle{Scale: 1, DPI: 20}); err == nil {
		t.Error("a canonical diagram with 3 anchor coordinates drew")
	}
	if got := files(t, dir); len(got) != 0 {
		t.Errorf("wrote %v", got)
	}
}
