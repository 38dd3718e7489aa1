package corrupt

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ecl-go/ecl/datasets/digits"
)

// images are n 28×28 images of a random blob near the centre.
func images(n int) *digits.Images {
	rng := rand.New(rand.NewPCG(3, 4))
	im := &digits.Images{N: n, H: 28, W: 28, Pixels: make([]uint8, n*784), Labels: make([]int, n)}
	for i := range n {
		for r := 10; r < 18; r++ {
			for c := 11; c < 17; c++ {
				im.Pixels[i*784+r*28+c] = uint8(100 + rng.IntN(156))
			}
		}
		im.Labels[i] = i % 10
	}
	return im
}

// Every transform at every level is deterministic in its seed, keeps the
// labels, and (but for rotation by 0) changes the images; the random ones
// differ with the seed.
func TestApplyDeterministic(t *testing.T) {
	im := images(4)
	for _, name := range Names {
		levels, _ := Levels(name)
		for _, l := range levels {
			a, err := Apply(im, name, l, 1)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := Apply(im, name, l, 1)
			if !slices.Equal(a.Pixels, b.Pixels) || !slices.Equal(a.Labels, im.Labels) {
				t.Errorf("%s %d: not deterministic, or labels changed", name, l)
			}
			if same := slices.Equal(a.Pixels, im.Pixels); same != (name == Rotate && l == 0) {
				t.Errorf("%s %d: output equal to the input: %v", name, l, same)
			}
		}
	}
	for _, name := range []string{"shot-noise", "impulse-noise", "translate", "motion-blur", "zigzag", "dotted-line"} {
		a, _ := Apply(im, name, 3, 1)
		b, _ := Apply(im, name, 3, 2)
		if slices.Equal(a.Pixels, b.Pixels) {
			t.Errorf("%s: seeds 1 and 2 give the same images", name)
		}
	}
}

// Rotation by 180° reverses the pixel order, and by 90° four times
// returns the image.
func TestRotateExact(t *testing.T) {
	im := images(2)
	r, _ := Apply(im, Rotate, 180, 1)
	for i := range im.N {
		want := slices.Clone(im.Pixels[i*784 : (i+1)*784])
		slices.Reverse(want)
		if !slices.Equal(r.Pixels[i*784:(i+1)*784], want) {
			t.Fatalf("image %d rotated by 180° is not the reversed image", i)
		}
	}
	q := im
	for range 4 {
		q, _ = Apply(q, Rotate, 90, 1)
	}
	if !slices.Equal(q.Pixels, im.Pixels) {
		t.Error("four rotations by 90° do not give the image back")
	}
}

// centroid is the centre of mass (column, row) of image i.
func centroid(im *digits.Images, i int) (float64, float64) {
	var sx, sy, m float64
	for j, v := range im.Pixels[i*784 : (i+1)*784] {
		sx += float64(j%28) * float64(v)
		sy += float64(j/28) * float64(v)
		m += float64(v)
	}
	return sx / m, sy / m
}

// Translation moves the centre of mass by its distance (rounded to whole
// pixels per axis), scale shrinks the digit's spread by its factor, and
// the parameters rise with the severity.
func TestGeometry(t *testing.T) {
	im := images(20)
	for s, d := range Params["translate"] {
		out, _ := Apply(im, "translate", s+1, 5)
		for i := range im.N {
			x0, y0 := centroid(im, i)
			x1, y1 := centroid(out, i)
			if got := math.Hypot(x1-x0, y1-y0); math.Abs(got-d) > 0.75 {
				t.Errorf("translate %d, image %d: moved %.2f pixels, want %.0f", s+1, i, got, d)
			}
		}
	}
	out, _ := Apply(im, "scale", 5, 1)
	lit := func(im *digits.Images) (n int) {
		for _, v := range im.Pixels[:784] {
			if v > 0 {
				n++
			}
		}
		return n
	}
	// A quarter of the area, and a border of partly lit pixels.
	if got, want := float64(lit(out)), 0.25*float64(lit(im)); got < want || got > 2*want {
		t.Errorf("scale 0.5: %v lit pixels, want a quarter of %d and a border", got, lit(im))
	}
	for name, p := range Params {
		if name == "scale" || name == "shot-noise" { // a smaller factor, a smaller rate: more shift
			if !slices.IsSortedFunc(p[:], func(a, b float64) int { return int(math.Copysign(1, b-a)) }) {
				t.Errorf("%s: factors %v do not fall with the severity", name, p)
			}
		} else if !slices.IsSorted(p[:]) {
			t.Errorf("%s: parameters %v do not rise with the severity", name, p)
		}
	}
}

// Impulse noise replaces its fraction of pixels; shot noise keeps the
// mean grey level and adds the Poisson variance v/λ.
func TestNoise(t *testing.T) {
	n := 200
	grey := &digits.Images{N: n, H: 28, W: 28, Pixels: make([]uint8, n*784), Labels: make([]int, n)}
	for i := range grey.Pixels {
		grey.Pixels[i] = 128
	}
	out, _ := Apply(grey, "impulse-noise", 5, 1)
	changed := 0
	for _, v := range out.Pixels {
		if v != 128 {
			changed++
		}
	}
	if got := float64(changed) / float64(len(out.Pixels)); math.Abs(got-0.27) > 0.01 {
		t.Errorf("impulse noise at severity 5 changed %.3f of the pixels, want 0.27", got)
	}
	out, _ = Apply(grey, "shot-noise", 4, 1)
	var sum, sq float64
	for _, v := range out.Pixels {
		x := float64(v) / 255
		sum += x
		sq += x * x
	}
	mean := sum / float64(len(out.Pixels))
	v := sq/float64(len(out.Pixels)) - mean*mean
	// Clipping at 1 pulls the mean and variance of the rate-5 draws down a
	// little: P(Poisson(2.5) > 5) ≈ 0.04.
	if v0 := 128.0 / 255 / 5; math.Abs(mean-128.0/255) > 0.03 || math.Abs(v-v0) > 0.25*v0 {
		t.Errorf("shot noise at λ=5 on grey 0.5: mean %.3f, variance %.4f, want about 0.502 and %.4f", mean, v, v0)
	}
}

// Bad transforms, levels and image sets are errors naming them.
func TestApplyErrors(t *testing.T) {
	im := images(1)
	for _, c := range []struct {
		name  string
		level int
	}{{"fog", 1}, {Rotate, 10}, {"shear", 0}, {"shear", 6}} {
		if _, err := Apply(im, c.name, c.level, 1); err == nil {
			t.Errorf("%s %d: no error", c.name, c.level)
		}
	}
	bad := &digits.Images{N: 1, H: 28, W: 20, Pixels: make([]uint8, 560), Labels: []int{0}}
	if _, err := Apply(bad, "shear", 1, 1); err == nil {
		t.Error("a non-square image: no error")
	}
}

// Cached makes a set once and reads it back unchanged; a bad key is an
// error.
func TestCached(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	build := func() (*digits.Images, error) { calls++; return Apply(images(3), "zigzag", 2, 9) }
	a, err := Cached(dir, "mnist-zigzag-2-seed9", build)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Cached(dir, "mnist-zigzag-2-seed9", build)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || !slices.Equal(a.Pixels, b.Pixels) || !slices.Equal(a.Labels, b.Labels) {
		t.Errorf("%d builds, equal pixels %v", calls, slices.Equal(a.Pixels, b.Pixels))
	}
	if _, err := os.Stat(filepath.Join(dir, "mnist-zigzag-2-seed9.gob")); err != nil {
		t.Error(err)
	}
	if _, err := Cached(dir, "../escape", build); err == nil {
		t.Error("a key with a slash: no error")
	}
}
