package plot

import (
	"bytes"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/ecl-go/ecl/ecl/metrics"
)

// sample draws over-confident predictions of 3 classes.
func sample(n int) ([]float64, []int) {
	r := rand.New(rand.NewPCG(1, 2))
	probs := make([]float64, 0, 3*n)
	labels := make([]int, n)
	for i := range n {
		w := []float64{r.ExpFloat64(), r.ExpFloat64(), r.ExpFloat64()}
		w[r.IntN(3)] += 2
		s := w[0] + w[1] + w[2]
		probs = append(probs, w[0]/s, w[1]/s, w[2]/s)
		labels[i] = r.IntN(3)
		if r.Float64() < 0.6 {
			best := 0
			for k := range 3 {
				if w[k] > w[best] {
					best = k
				}
			}
			labels[i] = best
		}
	}
	return probs, labels
}

func TestDiagramsRender(t *testing.T) {
	probs, labels := sample(500)
	top, err := metrics.ECE(probs, 3, labels, metrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cw, _ := metrics.ClasswiseECE(probs, 3, labels, metrics.Options{})
	can, _ := metrics.CanonicalECE(probs, 3, labels, metrics.Options{})
	figs := map[string]func() (Figure, error){
		"top":       func() (Figure, error) { return TopLabel(top, "test") },
		"classwise": func() (Figure, error) { return Classwise(cw, "test") },
		"canonical": func() (Figure, error) { return Canonical(can, "test") },
	}
	dir := t.TempDir()
	for name, f := range figs {
		fig, err := f()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, ext := range []string{".png", ".svg"} {
			path := filepath.Join(dir, name+ext)
			if err := Save(fig, path, 10*vg.Centimeter, 9*vg.Centimeter); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if ext == ".png" {
				img, err := png.Decode(bytes.NewReader(b))
				if err != nil || img.Bounds().Dx() < 100 {
					t.Errorf("%s: not a PNG of useful size: %v", path, err)
				}
			} else if !strings.Contains(string(b), "<svg") {
				t.Errorf("%s: no <svg element", path)
			}
		}
	}
	if dir := os.Getenv("ECL_PLOT_KEEP"); dir != "" {
		for name, f := range figs {
			fig, _ := f()
			Save(fig, filepath.Join(dir, name+".png"), 10*vg.Centimeter, 9*vg.Centimeter)
		}
	}
}

func TestCanonicalNeedsThreeClasses(t *testing.T) {
	if _, err := Canonical(metrics.Canonical{K: 4}, "x"); err == nil || !strings.Contains(err.Error(), "3 classes") {
		t.Errorf("error %v", err)
	}
}

func TestSaveKeepsOldFileOnBadFormat(t *testing.T) {
	probs, labels := sample(50)
	top, _ := metrics.ECE(probs, 3, labels, metrics.Options{})
	fig, _ := TopLabel(top, "x")
	path := filepath.Join(t.TempDir(), "d.gif")
	os.WriteFile(path, []byte("old"), 0o644)
	if err := Save(fig, path, vg.Centimeter*5, vg.Centimeter*5); err == nil {
		t.Fatal("unknown extension accepted")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("file changed to %q", b)
	}
}
