package images

import (
	"errors"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/datasets/arrays"
	"github.com/ecl-go/ecl/datasets/images/imagestest"
)

// trainFixture reads the array name of testdata/train.npz, made by
// make_train_fixture.py.
func trainFixture(t *testing.T, name string) ([]float64, []int) {
	t.Helper()
	d, s, err := arrays.ReadNPZ("testdata/train.npz", name)
	if err != nil {
		t.Fatal(err)
	}
	return d, s
}

// crop copies the box of img.
func crop(img *RGB, box image.Rectangle) *RGB {
	out := &RGB{W: box.Dx(), H: box.Dy(), Pix: make([]uint8, 3*box.Dx()*box.Dy())}
	for y := range out.H {
		copy(out.Pix[3*y*out.W:3*(y+1)*out.W], img.Pix[3*((box.Min.Y+y)*img.W+box.Min.X):])
	}
	return out
}

// randomRGB is a w×h image of random pixels.
func randomRGB(rng *rand.Rand, w, h int) *RGB {
	img := &RGB{W: w, H: h, Pix: make([]uint8, 3*w*h)}
	for i := range img.Pix {
		img.Pix[i] = uint8(rng.IntN(256))
	}
	return img
}

// The crop and resize of a box is torchvision's resized_crop of a PIL
// image, byte for byte (from PIL's pixels), and Resize of the cropped
// image.
func TestResizedCropMatchesTorchvision(t *testing.T) {
	for _, name := range []string{"big420", "rgb420", "grey"} {
		img := pilRGB(t, name)
		for k := range 5 {
			b, _ := trainFixture(t, fmt.Sprintf("box_%s_%d", name, k))
			i, j, h, w, s := int(b[0]), int(b[1]), int(b[2]), int(b[3]), int(b[4])
			box := image.Rect(j, i, j+w, i+h)
			got := resizeBox(img, box, s, s, image.Rect(0, 0, s, s))
			want, shape := trainFixture(t, fmt.Sprintf("crop_%s_%d", name, k))
			if !slices.Equal(shape, []int{s, s, 3}) {
				t.Fatalf("%s box %d: fixture shape %v", name, k, shape)
			}
			for p, v := range want {
				if got.Pix[p] != uint8(v) {
					t.Fatalf("%s box %v → %d: byte %d is %d, torchvision %d", name, box, s, p, got.Pix[p], uint8(v))
				}
			}
			if ref := Resize(crop(img, box), s, s); !slices.Equal(ref.Pix, got.Pix) {
				t.Errorf("%s box %v: differs from Resize of the crop", name, box)
			}
		}
	}
}

// resizeBox is Resize of the crop for random boxes, sizes and windows,
// up- and downscaling either side.
func TestResizeBoxIsResizeOfTheCrop(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		img := randomRGB(rng, 1+rng.IntN(60), 1+rng.IntN(60))
		x0, y0 := rng.IntN(img.W), rng.IntN(img.H)
		box := image.Rect(x0, y0, x0+1+rng.IntN(img.W-x0), y0+1+rng.IntN(img.H-y0))
		w, h := 1+rng.IntN(50), 1+rng.IntN(50)
		if rng.IntN(4) == 0 {
			w = box.Dx() // the horizontal pass skipped
		}
		wx, wy := rng.IntN(w), rng.IntN(h)
		win := image.Rect(wx, wy, wx+1+rng.IntN(w-wx), wy+1+rng.IntN(h-wy))
		full := Resize(crop(img, box), w, h)
		got := resizeBox(img, box, w, h, win)
		if want := crop(full, win); !slices.Equal(got.Pix, want.Pix) || got.W != want.W || got.H != want.H {
			t.Fatalf("%d×%d image, box %v → %d×%d, window %v: differs from Resize of the crop", img.W, img.H, box, w, h, win)
		}
	}
}

// When every try misses, Box is torchvision's fallback box.
func TestBoxFallbackMatchesTorchvision(t *testing.T) {
	d, s := trainFixture(t, "fallback")
	rng := rand.New(rand.NewPCG(1, 2))
	for r := range s[0] {
		row := d[r*s[1] : (r+1)*s[1]]
		w, h := int(row[0]), int(row[1])
		tr := RandomResizedCrop(8)
		tr.Scale, tr.Ratio = [2]float64{row[2], row[3]}, [2]float64{row[4], row[5]}
		want := image.Rect(int(row[7]), int(row[6]), int(row[7]+row[9]), int(row[6]+row[8]))
		for range 20 {
			if got := tr.Box(rng, w, h); got != want {
				t.Errorf("%d×%d, scale %v, ratio %v: box %v, torchvision %v", w, h, tr.Scale, tr.Ratio, got, want)
				break
			}
		}
	}
}

// Box draws boxes with torchvision's distribution: the means of (top,
// left, height, width), of the log aspect and of the area fraction agree
// with those of 40,000 draws of RandomResizedCrop.get_params within
// sampling error, the spreads within 3% (a ratio drawn uniformly rather
// than log-uniformly, or sides truncated rather than rounded, fail it);
// every box is within the image, and the boxes that were not the
// fallback have an area and aspect within the ranges (up to rounding).
func TestBoxStatistics(t *testing.T) {
	tr := RandomResizedCrop(224)
	for _, sz := range [][2]int{{227, 227}, {500, 375}, {64, 200}, {20, 15}} {
		w, h := sz[0], sz[1]
		ref, _ := trainFixture(t, fmt.Sprintf("stats_%dx%d", w, h))
		const n = 40000
		rng := rand.New(rand.NewPCG(uint64(w), uint64(h)))
		var sum, sq [6]float64
		fallback := tr.fallback(w, h)
		for range n {
			b := tr.Box(rng, w, h)
			if b.Empty() || b.Min.X < 0 || b.Min.Y < 0 || b.Max.X > w || b.Max.Y > h {
				t.Fatalf("%d×%d: box %v outside the image", w, h, b)
			}
			if b != fallback {
				bw, bh := float64(b.Dx()), float64(b.Dy())
				area := bw * bh / float64(w*h)
				// Rounding each side by up to ½ pixel.
				slack := (bw + bh + 1) / (2 * float64(w*h))
				aspect := math.Log(bw / bh)
				aslack := 0.5/bw + 0.5/bh + 1e-12
				if area < 0.08-slack || area > 1+slack || aspect < math.Log(0.75)-aslack || aspect > math.Log(4.0/3)+aslack {
					t.Fatalf("%d×%d: box %v, area %.4f, aspect %.4f", w, h, b, area, math.Exp(aspect))
				}
			}
			bw, bh := float64(b.Dx()), float64(b.Dy())
			for k, v := range []float64{float64(b.Min.Y), float64(b.Min.X), bh, bw, math.Log(bw / bh), bw * bh / float64(w*h)} {
				sum[k] += v
				sq[k] += v * v
			}
		}
		for k, what := range []string{"top", "left", "height", "width", "log aspect", "area"} {
			mean := sum[k] / n
			sd := math.Sqrt(sq[k]/n - mean*mean)
			tm, ts := ref[k], ref[6+k]
			se := math.Sqrt((sd*sd + ts*ts) / n)
			t.Logf("%d×%d %-10s mean %.4f (torchvision %.4f), sd %.4f (%.4f)", w, h, what, mean, tm, sd, ts)
			if math.Abs(mean-tm) > 4*se || math.Abs(sd-ts) > 0.03*ts {
				t.Errorf("%d×%d %s: mean %.3f sd %.3f, torchvision %.3f and %.3f (standard error of the difference %.3f)", w, h, what, mean, sd, tm, ts, se)
			}
		}
	}
}

// Apply is the box's crop resized, normalised, and mirrored when the
// draw after the box's is below Flip; about half the images are flipped
// at 0.5.
func TestTrainTransformApplyAndFlip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	img := randomRGB(rng, 45, 31)
	for _, flip := range []float64{0, 1} {
		tr := RandomResizedCrop(9)
		tr.Flip = flip
		got := tr.Apply(img, Stream(1, 2, 3), nil)
		s := Stream(1, 2, 3)
		box := tr.Box(s, img.W, img.H)
		s.Float64()
		r := Resize(crop(img, box), 9, 9)
		for c := range 3 {
			for y := range 9 {
				for x := range 9 {
					sx := x
					if flip == 1 {
						sx = 8 - x
					}
					want := (float32(r.Pix[3*(y*9+sx)+c])/255 - tr.Mean[c]) / tr.Std[c]
					if v := got[c*81+y*9+x]; v != want {
						t.Fatalf("flip %v: channel %d (%d, %d) is %v, want %v", flip, c, x, y, v, want)
					}
				}
			}
		}
	}
	tr := RandomResizedCrop(4)
	flipped := 0
	for i := range 2000 {
		s := Stream(9, 0, i)
		tr.Box(s, 20, 20)
		if s.Float64() < 0.5 {
			flipped++
		}
	}
	if flipped < 900 || flipped > 1100 {
		t.Errorf("%d of 2000 flipped at probability 0.5", flipped)
	}
}

// LoadTrain gives the same tensors for a seed and epoch whatever the
// number of workers, other tensors in another epoch or with another
// seed, and names a bad file.
func TestLoadTrainDeterministic(t *testing.T) {
	dir := t.TempDir()
	paths, err := imagestest.Tree(dir, []string{"a", "b"}, 7, 3)
	if err != nil {
		t.Fatal(err)
	}
	files := make([]string, len(paths))
	for i, p := range paths {
		files[i] = filepath.Join(dir, p)
	}
	tr := RandomResizedCrop(10)
	load := func(seed uint64, epoch, workers int) []float32 {
		b, err := LoadTrain(Files(files, 0, Prep{}), tr, seed, epoch, Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Index) != len(files) || len(b.X) != len(files)*300 {
			t.Fatalf("%d images, %d values", len(b.Index), len(b.X))
		}
		return b.X
	}
	one := load(1, 0, 1)
	for _, w := range []int{2, 3, 8} {
		if !slices.Equal(load(1, 0, w), one) {
			t.Errorf("%d workers: other tensors than 1 worker's", w)
		}
	}
	if slices.Equal(load(1, 1, 2), one) || slices.Equal(load(2, 0, 2), one) {
		t.Error("another epoch or seed gave the same tensors")
	}
	bad := append(slices.Clone(files), writeFile(t, dir, "bad.jpg", []byte("not an image")))
	_, err = LoadTrain(Files(bad, 0, Prep{}), tr, 1, 0, Options{})
	var ie *Error
	if !errors.As(err, &ie) || !strings.HasSuffix(ie.Path, "bad.jpg") {
		t.Errorf("bad file: %v", err)
	}
	if _, err := LoadTrain(Files(files, 0, Prep{}), tr, 1, -1, Options{}); err == nil {
		t.Error("epoch −1 accepted")
	}
}

// Check refuses settings torchvision would refuse or that cannot be
// applied; MinSide is the documented bound.
func TestTrainTransformCheck(t *testing.T) {
	if err := RandomResizedCrop(224).Check(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []func(*TrainTransform){
		func(t *TrainTransform) { t.Size = 0 },
		func(t *TrainTransform) { t.Scale = [2]float64{0, 1} },
		func(t *TrainTransform) { t.Scale = [2]float64{0.5, 0.2} },
		func(t *TrainTransform) { t.Ratio = [2]float64{2, 1} },
		func(t *TrainTransform) { t.Ratio = [2]float64{1, math.Inf(1)} },
		func(t *TrainTransform) { t.Flip = 1.5 },
		func(t *TrainTransform) { t.Std[1] = 0 },
	} {
		tr := RandomResizedCrop(224)
		f(&tr)
		if tr.Check() == nil {
			t.Errorf("%+v accepted", tr)
		}
	}
	if a, b := RandomResizedCrop(28).MinSide(), RandomResizedCrop(224).MinSide(); a != 115 || b != 915 {
		t.Errorf("MinSide %d and %d, want 115 and 915", a, b)
	}
}

// Prep{Side: s} then the evaluation transform is the transform of the
// original, byte for byte; Bound keeps the smaller images as they are.
func TestPrepThenTransform(t *testing.T) {
	for _, name := range fixtureNames {
		stem := strings.TrimSuffix(name, filepath.Ext(name))
		img := pilRGB(t, stem)
		for _, s := range fixtureSettings {
			tr := EvalTransform(s[0], s[1])
			want := tr.Apply(img, nil)
			if got := tr.Apply(Prep{Side: s[0]}.Apply(img), nil); !slices.Equal(got, want) {
				t.Errorf("%s %v: the prepared image's transform differs", name, s)
			}
		}
		if p := (Prep{Side: 1000, Bound: true}).Apply(img); p != img {
			t.Errorf("%s: bounded above its size, resized", name)
		}
		p := Prep{Side: 10, Bound: true}.Apply(img)
		if w, h := Size(img.W, img.H, 10); p.W != w || p.H != h {
			t.Errorf("%s: bounded to 10, %d×%d", name, p.W, p.H)
		}
	}
	if (Prep{Side: -1}).Check() == nil || (Prep{Side: MaxSide + 1}).Check() == nil {
		t.Error("bad sides accepted")
	}
}
