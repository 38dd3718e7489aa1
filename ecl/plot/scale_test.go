package plot

import (
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/ecl-go/ecl/ecl/metrics"
)

// Canonical panels drawn on one scale (CanonicalOnScale with CanonicalTop
// of them all) share its colour bar, whose top label is the largest error
// of every panel; alone, a panel's bar ends at its own largest error.
func TestCanonicalPanelsShareOneScale(t *testing.T) {
	probs, labels := sample(500, 3)
	base, err := metrics.CanonicalECE(probs, 3, labels, metrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Two diagrams with set bin errors: a's largest 0.5, b's 0.1 (an empty
	// bin's 0.9 counts for neither).
	withErrs := func(first, rest float64) metrics.Canonical {
		c := base
		c.Bins = append([]metrics.VecBin(nil), base.Bins...)
		set := false
		for i := range c.Bins {
			switch {
			case c.Bins[i].Count == 0:
				c.Bins[i].Err = 0.9
			case !set:
				c.Bins[i].Err, set = first, true
			default:
				c.Bins[i].Err = rest
			}
		}
		return c
	}
	a, b := withErrs(0.5, 0.2), withErrs(0.1, 0.1)
	if top := CanonicalTop(a, b); top != 0.5 {
		t.Fatalf("CanonicalTop = %v, want 0.5", top)
	}
	svg := func(c metrics.Canonical, top float64) string {
		p, err := CanonicalOnScale(c, "x", top)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "c.svg")
		if err := Save(p, path, 12*vg.Centimeter, 10*vg.Centimeter); err != nil {
			t.Fatal(err)
		}
		s, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(s)
	}
	for name, s := range map[string]string{"a": svg(a, 0.5), "b": svg(b, 0.5)} {
		if !strings.Contains(s, ">0.500<") || !strings.Contains(s, ">0.250<") {
			t.Errorf("panel %s on the shared scale lacks the bar labels 0.250 and 0.500", name)
		}
	}
	if s := svg(b, 0); !strings.Contains(s, ">0.100<") || strings.Contains(s, ">0.500<") {
		t.Error("panel b alone is not on its own scale (top 0.100)")
	}
}

// Counts are written white on dark colours and black on light ones.
func TestInkOnReadableColours(t *testing.T) {
	for _, c := range []struct {
		bg   color.Color
		want color.Color
	}{
		{color.RGBA{R: 180, G: 4, B: 38, A: 255}, color.White},  // the scale's dark red end
		{color.RGBA{R: 59, G: 76, B: 192, A: 255}, color.White}, // its blue end
		{emptyColor, color.Black},
		{color.RGBA{R: 221, G: 221, B: 221, A: 255}, color.Black}, // its pale middle
		{color.White, color.Black},
	} {
		if got := inkOn(c.bg); got != c.want {
			t.Errorf("ink on %v: %v, want %v", c.bg, got, c.want)
		}
	}
}
