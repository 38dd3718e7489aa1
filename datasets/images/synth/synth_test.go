package synth

import (
	"bytes"
	"image"
	"image/color"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/datasets/images"
)

// files maps the files under dir to their contents.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		m[rel], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The same seed gives byte-identical files, whatever the workers; another
// seed gives other images.
func TestWriteDeterministic(t *testing.T) {
	root := t.TempDir()
	write := func(name string, seed uint64, workers int) map[string][]byte {
		dir := filepath.Join(root, name)
		n, err := Write(dir, Options{PerClass: 2, Size: 24, Seed: seed, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if n != 2*len(Classes)*len(Styles) {
			t.Errorf("%d images, want %d", n, 2*len(Classes)*len(Styles))
		}
		return files(t, dir)
	}
	a, b, c := write("a", 7, 1), write("b", 7, 3), write("c", 8, 2)
	if len(a) != 2*7*4+1 {
		t.Errorf("%d files, want 57", len(a))
	}
	same := 0
	for name, data := range a {
		if !bytes.Equal(b[name], data) {
			t.Errorf("%s differs between two writes of seed 7", name)
		}
		if bytes.Equal(c[name], data) {
			same++
		}
	}
	if same > 1 { // the README alone may be equal
		t.Errorf("%d files equal under seeds 7 and 8", same)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 3 {
		t.Errorf("%d entries beside the sets, want none: %v", len(ents)-3, ents)
	}
}

// The set is what images.OpenDomains reads: the styles as domains, the
// shapes as classes, every image decodable; sketches are grey.
func TestWriteReadByOpenDomains(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	if _, err := Write(dir, Options{PerClass: 3, Size: 20, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	ds, err := images.OpenDomains(dir, images.DomainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.Names(), []string{"cartoon", "painting", "photo", "sketch"}) {
		t.Errorf("domains %v", ds.Names())
	}
	if !slices.Equal(ds.Classes, []string{"arrow", "circle", "cross", "ring", "square", "star", "triangle"}) {
		t.Errorf("classes %v", ds.Classes)
	}
	for _, d := range ds.List {
		if d.Data.Len() != 21 || d.Data.Paths[3] != "circle/circle-0000.png" || d.Data.Labels[20] != 6 {
			t.Errorf("%s: %d images %v, labels %v", d.Name, d.Data.Len(), d.Data.Paths, d.Data.Labels)
		}
		for i := range d.Data.Len() {
			img, err := images.Decode(d.Data.File(i), 0)
			if err != nil {
				t.Fatal(err)
			}
			grey := true
			for p := 0; p < len(img.Pix); p += 3 {
				grey = grey && img.Pix[p] == img.Pix[p+1] && img.Pix[p] == img.Pix[p+2]
			}
			if img.W != 20 || img.H != 20 || grey != (d.Name == "sketch") {
				t.Errorf("%s: %d×%d, grey %v", d.Data.Paths[i], img.W, img.H, grey)
			}
		}
	}
	if _, err := images.OpenDomains(dir, images.DomainOptions{}); err != nil {
		t.Errorf("checked against its manifest: %v", err)
	}
}

// A folder with files in it is refused, and so are bad settings.
func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir  string
		opt  Options
		want string
	}{
		{dir, Options{PerClass: 1, Size: 16}, "is not empty"},
		{t.TempDir(), Options{PerClass: 0, Size: 16}, "0 images per class, want 1 to 100000"},
		{t.TempDir(), Options{PerClass: 1, Size: 8}, "size 8, want 16 to 1024"},
	} {
		if _, err := Write(c.dir, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.opt, err, c.want)
		}
	}
	if _, err := Render(7, 0, 16, Source(0, 0, 0, 0)); err == nil || !strings.Contains(err.Error(), "class 7, want 0 to 6") {
		t.Errorf("class 7: %v", err)
	}
}

// grey is img's luminance as float64s.
func grey(img image.Image) []float64 {
	b := img.Bounds()
	out := make([]float64, 0, b.Dx()*b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			out = append(out, float64(color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y))
		}
	}
	return out
}

// feature is the image's pixels' distance from its median grey (the
// object against its background, whichever is lighter), scaled to mean 1
// and moved so that its centroid is the image's centre: the shape without
// its contrast and position.
func feature(img image.Image, size int) []float64 {
	v := grey(img)
	m := slices.Sorted(slices.Values(v))[len(v)/2]
	var sum, sx, sy float64
	for i, x := range v {
		v[i] = max(x-m, m-x)
		sum += v[i]
		sx += v[i] * float64(i%size)
		sy += v[i] * float64(i/size)
	}
	dx, dy := int(sx/sum+0.5)-size/2, int(sy/sum+0.5)-size/2
	out := make([]float64, len(v))
	for y := range size {
		for x := range size {
			if xx, yy := x+dx, y+dy; xx >= 0 && xx < size && yy >= 0 && yy < size {
				out[y*size+x] = v[yy*size+xx] * float64(len(v)) / sum
			}
		}
	}
	return out
}

func dist(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return s
}

// In every style the classes can be told apart: each of 30 images per
// class, by its nearest neighbour among 30 others per class (of the
// images' features: their pixels' distance from the median grey, so that
// dark and light objects count alike, without contrast and position), is
// classified far better than chance (1/7). The shapes' random colours,
// textures and palettes make photo and painting the hard styles.
func TestClassesDistinguishable(t *testing.T) {
	const size, n = 24, 30
	want := map[string]float64{"cartoon": 0.7, "painting": 0.3, "photo": 0.3, "sketch": 0.7}
	for s, style := range Styles {
		var train, test [][]float64
		var trainLabels, testLabels []int
		for c := range Classes {
			for i := range 2 * n {
				img, err := Render(c, s, size, Source(3, s, c, i))
				if err != nil {
					t.Fatal(err)
				}
				if i%2 == 0 {
					train, trainLabels = append(train, feature(img, size)), append(trainLabels, c)
				} else {
					test, testLabels = append(test, feature(img, size)), append(testLabels, c)
				}
			}
		}
		right := 0
		for k, v := range test {
			best := 0
			for j := range train {
				if dist(v, train[j]) < dist(v, train[best]) {
					best = j
				}
			}
			if trainLabels[best] == testLabels[k] {
				right++
			}
		}
		acc := float64(right) / float64(len(test))
		t.Logf("%s: nearest-neighbour accuracy %.2f", style, acc)
		if acc < want[style] {
			t.Errorf("%s: nearest-neighbour accuracy %.2f, want ≥ %.1f (chance 0.14)", style, acc, want[style])
		}
	}
}
