package images

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/datasets/arrays"
	"github.com/ecl-go/ecl/datasets/images/imagestest"
)

// fixtureNames are the images of testdata/img, made by make_fixtures.py.
var fixtureNames = []string{"rgb420.jpg", "rgb422.jpg", "big420.jpg", "grey.jpg", "cmyk.jpg", "rgba.png", "la.png", "pal.png", "grey16.png"}

// fixtureSettings are make_fixtures.py's SETTINGS.
var fixtureSettings = [][2]int{{20, 16}, {8, 8}, {28, 20}}

// expected reads the array name of testdata/expected.npz.
func expected(t *testing.T, name string) ([]float64, []int) {
	t.Helper()
	d, s, err := arrays.ReadNPZ("testdata/expected.npz", name)
	if err != nil {
		t.Fatal(err)
	}
	return d, s
}

// pilRGB is PIL's convert("RGB") of a fixture.
func pilRGB(t *testing.T, stem string) *RGB {
	d, s := expected(t, "rgb_"+stem)
	img := &RGB{W: s[1], H: s[0], Pix: make([]uint8, len(d))}
	for i, v := range d {
		img.Pix[i] = uint8(v)
	}
	return img
}

// PNG decoding and conversion to RGB agree with PIL's exactly, and JPEG
// decoding to within the inverse DCTs' rounding.
func TestDecodeMatchesPIL(t *testing.T) {
	for _, name := range fixtureNames {
		stem := strings.TrimSuffix(name, filepath.Ext(name))
		want := pilRGB(t, stem)
		got, err := Decode("testdata/img/"+name, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got.W != want.W || got.H != want.H {
			t.Fatalf("%s: %d×%d, PIL %d×%d", name, got.W, got.H, want.W, want.H)
		}
		var maxd, sum int
		for i := range got.Pix {
			d := int(got.Pix[i]) - int(want.Pix[i])
			maxd, sum = max(maxd, d, -d), sum+max(d, -d)
		}
		mean := float64(sum) / float64(len(got.Pix))
		t.Logf("%-10s pixels: mean |Go − PIL| %.3f, max %d (of 255)", name, mean, maxd)
		lim := 0
		if strings.HasSuffix(name, ".jpg") {
			lim = 2
		}
		if maxd > lim || mean > 0.1 {
			t.Errorf("%s: pixels differ from PIL's by up to %d (mean %.3f), want ≤ %d", name, maxd, mean, lim)
		}
	}
}

// Transform reproduces torchvision's tensors: exactly from PIL's own
// pixels (the resize is PIL's arithmetic), and from the files to within a
// small fraction of a grey level.
func TestTransformMatchesTorchvision(t *testing.T) {
	var sumAll float64
	var nAll int
	var maxAll float64
	for _, name := range fixtureNames {
		stem := strings.TrimSuffix(name, filepath.Ext(name))
		for _, s := range fixtureSettings {
			want, shape := expected(t, fmt.Sprintf("x_%s_%d_%d", stem, s[0], s[1]))
			if !slices.Equal(shape, []int{3, s[1], s[1]}) {
				t.Fatalf("%s: expected shape %v", name, shape)
			}
			tr := EvalTransform(s[0], s[1])
			fromPIL := tr.Apply(pilRGB(t, stem), nil)
			for i := range want {
				if d := math.Abs(float64(fromPIL[i]) - want[i]); d > 1e-6 {
					t.Fatalf("%s resize %d crop %d: from PIL's pixels, value %d is %v, torchvision %v", name, s[0], s[1], i, fromPIL[i], want[i])
				}
			}
			b, err := Load([]string{"testdata/img/" + name}, tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var sum, mx float64
			for i := range want {
				d := math.Abs(float64(b.X[i]) - want[i])
				sum, mx = sum+d, max(mx, d)
			}
			t.Logf("%-10s %2d/%2d: mean |Go − torchvision| %.5f, max %.4f", name, s[0], s[1], sum/float64(len(want)), mx)
			sumAll, nAll, maxAll = sumAll+sum, nAll+len(want), max(maxAll, mx)
		}
	}
	// One grey level is 1/255 of [0, 1], 1/(255·0.225) ≈ 0.0174 or more
	// after normalisation.
	level := 1 / (255 * 0.229)
	mean := sumAll / float64(nAll)
	t.Logf("all: mean |Go − torchvision| %.5f (%.3f grey levels), max %.4f (%.2f levels)", mean, mean/level, maxAll, maxAll/level)
	if mean > level/4 || maxAll > 4*level {
		t.Errorf("mean difference %.5f (want ≤ %.5f), max %.4f (want ≤ %.4f)", mean, level/4, maxAll, 4*level)
	}
}

// BenchmarkLoad decodes and transforms one 500×375 JPEG (ImageNet's
// typical size) as torchvision evaluates it, resize 256 and crop 224, or
// the file $ECL_BENCH_IMAGE. testdata/peer_transform.py times PIL and
// torchvision on the same file.
func BenchmarkLoad(b *testing.B) {
	path := os.Getenv("ECL_BENCH_IMAGE")
	if path == "" {
		path = filepath.Join(b.TempDir(), "bench.jpg")
		if err := imagestest.Write(path, imagestest.Image(rand.New(rand.NewPCG(1, 1)), 500, 375, 0)); err != nil {
			b.Fatal(err)
		}
	}
	tr := EvalTransform(256, 224)
	dst := make([]float32, 3*224*224)
	for b.Loop() {
		img, err := Decode(path, 0)
		if err != nil {
			b.Fatal(err)
		}
		tr.Apply(img, dst)
	}
}
