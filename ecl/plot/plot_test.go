package plot

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/ecl-go/ecl/ecl/metrics"
)

// sample draws over-confident predictions of k classes: the most probable
// class is right only 60% of the time (plus chance).
func sample(n, k int) ([]float64, []int) {
	r := rand.New(rand.NewPCG(1, 2))
	probs := make([]float64, 0, k*n)
	labels := make([]int, n)
	w := make([]float64, k)
	for i := range n {
		s, best := 0.0, 0
		for c := range w {
			w[c] = r.ExpFloat64()
		}
		w[r.IntN(k)] += 2
		for c, v := range w {
			s += v
			if v > w[best] {
				best = c
			}
		}
		for _, v := range w {
			probs = append(probs, v/s)
		}
		labels[i] = r.IntN(k)
		if r.Float64() < 0.6 {
			labels[i] = best
		}
	}
	return probs, labels
}

// figures returns the three diagrams of a 3-class sample.
func figures(t *testing.T, o metrics.Options) map[string]Figure {
	t.Helper()
	probs, labels := sample(500, 3)
	top, err := metrics.ECE(probs, 3, labels, o)
	if err != nil {
		t.Fatal(err)
	}
	cw, err := metrics.ClasswiseECE(probs, 3, labels, o)
	if err != nil {
		t.Fatal(err)
	}
	can, err := metrics.CanonicalECE(probs, 3, labels, o)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := TopLabel(top, "test")
	if err != nil {
		t.Fatal(err)
	}
	cf, err := Classwise(cw, "test")
	if err != nil {
		t.Fatal(err)
	}
	cp, err := Canonical(can, "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(cf) != 1 || len(cf[0]) != 3 {
		t.Fatalf("class-wise figure of %d rows, want 1 row of 3 panels", len(cf))
	}
	return map[string]Figure{"top-label": {{tp}}, "classwise": cf, "canonical": {{cp}}}
}

func TestDiagramsRender(t *testing.T) {
	dir := t.TempDir()
	if keep := os.Getenv("ECL_PLOT_DIR"); keep != "" {
		dir = keep // to look at the images
	}
	for _, o := range []metrics.Options{{}, metrics.ReferenceOptions()} {
		for name, fig := range figures(t, o) {
			for _, ext := range []string{".png", ".svg"} {
				path := filepath.Join(dir, name+ext)
				if err := SaveFigure(fig, path, 12*vg.Centimeter, 10*vg.Centimeter); err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if ext == ".png" {
					img, err := png.Decode(bytes.NewReader(b))
					if err != nil {
						t.Fatalf("%s: %v", path, err)
					}
					if got, want := img.Bounds().Dx(), int(12*vg.Centimeter.Dots(DefaultDPI)*float64(len(fig[0]))); got < want-2 || got > want+2 {
						t.Errorf("%s: %d pixels wide, want %d", path, got, want)
					}
				} else if !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "test") {
					t.Errorf("%s: no <svg element with the title", path)
				}
			}
		}
	}
}

func TestClasswiseWrapsRows(t *testing.T) {
	probs, labels := sample(300, 6)
	cw, err := metrics.ClasswiseECE(probs, 6, labels, metrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fig, err := Classwise(cw, "six")
	if err != nil {
		t.Fatal(err)
	}
	if len(fig) != 2 || len(fig[0]) != 4 || len(fig[1]) != 4 || fig[1][1] == nil || fig[1][2] != nil {
		t.Fatalf("6 classes laid out as %v", fig)
	}
	if err := SaveFigure(fig, filepath.Join(t.TempDir(), "cw.png"), 8*vg.Centimeter, 7*vg.Centimeter); err != nil {
		t.Fatal(err)
	}
	if _, err := Classwise(metrics.Classwise{}, "none"); err == nil {
		t.Error("Classwise accepted no classes")
	}
}

func TestCanonicalNeedsThreeClasses(t *testing.T) {
	probs, labels := sample(100, 4)
	can, err := metrics.CanonicalECE(probs, 4, labels, metrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Canonical(can, "x"); err == nil || !strings.Contains(err.Error(), "K = 3") || !strings.Contains(err.Error(), "K = 4") {
		t.Errorf("K = 4: error %v, want one naming K = 3 and K = 4", err)
	}
	if _, err := Canonical(metrics.Canonical{K: 3}, "x"); err == nil {
		t.Error("no bins accepted")
	}
}

func TestSaveKeepsOldFileOnFailure(t *testing.T) {
	probs, labels := sample(50, 3)
	top, err := metrics.ECE(probs, 3, labels, metrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := TopLabel(top, "x")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gif := filepath.Join(dir, "d.gif")
	if err := Save(p, gif, vg.Centimeter*5, vg.Centimeter*5); err == nil || !strings.Contains(err.Error(), "d.gif") {
		t.Fatalf("unknown extension: error %v", err)
	}
	if _, err := os.Stat(gif); !os.IsNotExist(err) {
		t.Errorf("a file was left for the unknown extension: %v", err)
	}
	// A failed render leaves the previous result untouched.
	path := filepath.Join(dir, "d.png")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := SaveFigure(Figure{{p}, {}}, path, vg.Centimeter*5, vg.Centimeter*5); err == nil {
		t.Fatal("ragged figure accepted")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("file changed to %q", b)
	}
	if err := Save(p, path, vg.Centimeter*5, vg.Centimeter*5); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Errorf("replaced file: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only d.png", len(entries))
	}
}

// Pooling the class-wise bins keeps every sample once per class: the
// counts add up to n·K and each bin's frequency is the count-weighted mean
// of the classes'.
func TestClasswisePooled(t *testing.T) {
	probs, labels := sample(400, 3)
	cw, err := metrics.ClasswiseECE(probs, 3, labels, metrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := ClasswisePooled(cw, "pooled"); err != nil || !strings.Contains(p.Title.Text, "pooled") {
		t.Fatalf("ClasswisePooled: %v", err)
	}
	bins, err := pool(cw)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for j, b := range bins {
		total += b.Count
		var n int
		var hits float64
		for _, c := range cw.Classes {
			n += c.Bins[j].Count
			hits += c.Bins[j].Acc * float64(c.Bins[j].Count)
		}
		if b.Count != n || n > 0 && math.Abs(b.Acc-hits/float64(n)) > 1e-12 {
			t.Errorf("bin %d: %+v, want %d samples, frequency %v", j, b, n, hits/float64(n))
		}
	}
	if total != 3*400 {
		t.Errorf("pooled counts add up to %d, want %d", total, 3*400)
	}
	cw.Classes[1].Bins = cw.Classes[1].Bins[1:]
	if _, err := ClasswisePooled(cw, ""); err == nil {
		t.Error("classes with different bins accepted")
	}
}

// A PNG file holds the pixels gonum's own image canvas draws (vgimg, on an
// image of the rounded size), also when its canvas reuses the pixels of
// earlier ones: the fast canvas, the white backgrounds left out and the
// unfiltered rows change no pixel.
func TestPNGPixels(t *testing.T) {
	figs := figures(t, metrics.Options{})
	dir := t.TempDir()
	w, h := 12*vg.Centimeter, 10*vg.Centimeter
	for _, name := range []string{"classwise", "top-label", "canonical", "classwise", "canonical"} {
		fig := figs[name]
		path := filepath.Join(dir, name+".png")
		if err := SaveFigure(fig, path, w, h); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		px := func(l vg.Length) int { return int(l/vg.Inch*DefaultDPI + 0.5) }
		img := image.NewRGBA(image.Rect(0, 0, px(w*vg.Length(len(fig[0]))), px(h*vg.Length(len(fig)))))
		c := vgimg.NewWith(vgimg.UseImage(img), vgimg.UseDPI(DefaultDPI))
		drawFigure(fig, c, false)
		want := c.Image()
		if got.Bounds() != want.Bounds() {
			t.Fatalf("%s: %v, want %v", name, got.Bounds(), want.Bounds())
		}
		diff := 0
		for y := want.Bounds().Min.Y; y < want.Bounds().Max.Y; y++ {
			for x := want.Bounds().Min.X; x < want.Bounds().Max.X; x++ {
				if color.RGBAModel.Convert(got.At(x, y)) != color.RGBAModel.Convert(want.At(x, y)) {
					diff++
				}
			}
		}
		if diff > 0 {
			t.Errorf("%s: %d pixels differ from vgimg's", name, diff)
		}
	}
}

// TestClasswiseManyClasses checks that more than MaxClassPanels classes
// give the pooled panel (shared equal-width bins) or the first
// MaxClassPanels panels (equal-mass bins).
func TestClasswiseManyClasses(t *testing.T) {
	const k = 30
	probs, labels := sample(600, k)
	for _, c := range []struct {
		scheme metrics.Scheme
		rows   int
		title  string
	}{{metrics.EqualWidth, 1, "classes pooled"}, {metrics.EqualMass, MaxClassPanels / 4, "class 19,"}} {
		cw, err := metrics.ClasswiseECE(probs, k, labels, metrics.Options{Scheme: c.scheme})
		if err != nil {
			t.Fatal(err)
		}
		fig, err := Classwise(cw, "many")
		if err != nil {
			t.Fatal(err)
		}
		last := fig[len(fig)-1][len(fig[len(fig)-1])-1]
		if len(fig) != c.rows || last == nil || !strings.Contains(last.Title.Text, c.title) {
			t.Fatalf("scheme %v, %d classes: %d rows, last panel %q; want %d rows ending in %q", c.scheme, k, len(fig), last.Title.Text, c.rows, c.title)
		}
	}
}
