package digits

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

var synthPNG = flag.String("synthpng", "", "write a 10×10 grid of Synth samples, upscaled ×3, to this PNG file")

// grid tiles the first rows·cols images of im, each upscaled by scale, with
// two-pixel gaps.
func grid(im *ColorImages, rows, cols, scale int) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, cols*(im.W*scale+2), rows*(im.H*scale+2)))
	plane := im.H * im.W
	for i := range min(rows*cols, im.N) {
		ox, oy := i%cols*(im.W*scale+2), i/cols*(im.H*scale+2)
		p := im.Pixels[i*3*plane:]
		for y := range im.H * scale {
			for x := range im.W * scale {
				o := y/scale*im.W + x/scale
				out.Set(ox+x, oy+y, color.RGBA{p[o], p[plane+o], p[2*plane+o], 255})
			}
		}
	}
	return out
}

// pixelLuminance is the luminance in [0, 1] of pixel o of one Synth image's
// three planes p.
func pixelLuminance(p []uint8, o int) float64 {
	const plane = SynthSize * SynthSize
	return luminance([3]float64{float64(p[o]), float64(p[plane+o]), float64(p[2*plane+o])}) / 255
}

func TestSynthDeterministic(t *testing.T) {
	a, err := Synth(50, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Synth(50, rand.New(rand.NewPCG(1, 2)))
	c, _ := Synth(50, rand.New(rand.NewPCG(3, 2)))
	if !bytes.Equal(a.Pixels, b.Pixels) || !slices.Equal(a.Labels, b.Labels) {
		t.Error("same seed, different images")
	}
	if bytes.Equal(a.Pixels, c.Pixels) {
		t.Error("different seeds, same images")
	}
	if *synthPNG != "" {
		var buf bytes.Buffer
		im, _ := Synth(100, rand.New(rand.NewPCG(1, 2)))
		if err := png.Encode(&buf, grid(im, 10, 10, 3)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(*synthPNG, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: labels %v", *synthPNG, im.Labels)
	}
}

func TestSynthErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{-1, MaxSynth + 1, math.MaxInt} {
		if _, err := Synth(n, rng); err == nil || !strings.Contains(err.Error(), fmt.Sprint(n)) {
			t.Errorf("Synth(%d): error %v, want one naming the count", n, err)
		}
	}
	if _, err := Synth(1, nil); err == nil {
		t.Error("Synth with a nil generator: no error")
	}
	im, err := Synth(0, rng)
	if err != nil || im.N != 0 || len(im.Pixels) != 0 || len(im.Labels) != 0 {
		t.Errorf("Synth(0) = %+v, %v; want an empty set", im, err)
	}
}

// Labels are uniform: every digit's count within five standard deviations
// of n/10.
func TestSynthLabels(t *testing.T) {
	const n = 2000
	im, err := Synth(n, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	if im.N != n || im.H != SynthSize || im.W != SynthSize || len(im.Pixels) != n*3*SynthSize*SynthSize || len(im.Labels) != n {
		t.Fatalf("N %d, %d×%d, %d pixels, %d labels", im.N, im.H, im.W, len(im.Pixels), len(im.Labels))
	}
	var count [10]int
	for _, l := range im.Labels {
		if l < 0 || l > 9 {
			t.Fatalf("label %d", l)
		}
		count[l]++
	}
	sd := math.Sqrt(n * 0.1 * 0.9)
	for d, c := range count {
		if math.Abs(float64(c)-n/10) > 5*sd {
			t.Errorf("digit %d: %d of %d images", d, c, n)
		}
	}
}

// Every image shows ink (pixels where the digits' blurred coverage is near
// its maximum) and background (pixels they do not touch), whose mean
// luminances differ by the guaranteed contrast times that coverage or more.
func TestSynthContrast(t *testing.T) {
	const n = 500
	fonts, err := synthFonts()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	r := newSynthRenderer()
	pix := make([]uint8, 3*SynthSize*SynthSize)
	var diffs, peaks []float64
	for i := range n {
		r.render(pix, rng, fonts)
		peak := slices.Max(r.a)
		var ink, bg [2]float64 // sum of luminance, count
		for o, a := range r.a {
			switch {
			case a >= 0.8*peak:
				ink[0] += pixelLuminance(pix, o)
				ink[1]++
			case a == 0:
				bg[0] += pixelLuminance(pix, o)
				bg[1]++
			}
		}
		if peak < 0.5 || ink[1] < 3 || bg[1] < 100 {
			t.Fatalf("image %d: peak coverage %.2f, %v ink pixels, %v background pixels", i, peak, ink[1], bg[1])
		}
		// Noise (σ ≤ 0.05, clipped) may shift the means of a few pixels by 0.05.
		d := math.Abs(ink[0]/ink[1] - bg[0]/bg[1])
		if d < 0.8*peak*minContrast-0.05 {
			t.Errorf("image %d: luminance difference %.3f between ink (peak coverage %.2f) and background", i, d, peak)
		}
		diffs, peaks = append(diffs, d), append(peaks, peak)
	}
	slices.Sort(diffs)
	slices.Sort(peaks)
	t.Logf("ink–background luminance difference: min %.3f, median %.3f, max %.3f; peak coverage: min %.2f, median %.2f",
		diffs[0], diffs[n/2], diffs[n-1], peaks[0], peaks[n/2])
}

// The label is the centre digit's: a nearest-centroid classifier on the
// image's middle 16 columns, trained on other Synth images, recognises the
// label far above chance, and the left neighbour (absent or another random
// digit) only at chance.
func TestSynthCentreDigit(t *testing.T) {
	fonts, err := synthFonts()
	if err != nil {
		t.Fatal(err)
	}
	const n, train = 4000, 3000
	const lo, hi = SynthSize/2 - 8, SynthSize/2 + 8
	const dim = SynthSize * (hi - lo)
	rng := rand.New(rand.NewPCG(9, 10))
	r := newSynthRenderer()
	pix := make([]uint8, 3*SynthSize*SynthSize)
	feats := make([]float64, n*dim)
	centre, left := make([]int, n), make([]int, n)
	lum := make([]float64, SynthSize*SynthSize)
	for i := range n {
		s := r.render(pix, rng, fonts)
		centre[i], left[i] = s.digits[1], s.digits[0]
		// Ink is far from the background's (median) luminance, whatever
		// the polarity.
		for o := range lum {
			lum[o] = pixelLuminance(pix, o)
		}
		med := slices.Clone(lum)
		slices.Sort(med)
		f := feats[i*dim : (i+1)*dim]
		for y := range SynthSize {
			for x := lo; x < hi; x++ {
				f[y*(hi-lo)+x-lo] = math.Abs(lum[y*SynthSize+x] - med[len(med)/2])
			}
		}
		normalise(f)
	}
	accuracy := func(labels []int) float64 {
		cent := make([]float64, 10*dim)
		for i := range train {
			if l := labels[i]; l >= 0 {
				for j, v := range feats[i*dim : (i+1)*dim] {
					cent[l*dim+j] += v
				}
			}
		}
		for c := range 10 {
			normalise(cent[c*dim : (c+1)*dim])
		}
		right, total := 0, 0
		for i := train; i < n; i++ {
			if labels[i] < 0 {
				continue
			}
			best, bestDot := 0, math.Inf(-1)
			for c := range 10 {
				var dot float64
				for j, v := range feats[i*dim : (i+1)*dim] {
					dot += v * cent[c*dim+j]
				}
				if dot > bestDot {
					best, bestDot = c, dot
				}
			}
			if best == labels[i] {
				right++
			}
			total++
		}
		return float64(right) / float64(total)
	}
	accC, accL := accuracy(centre), accuracy(left)
	t.Logf("nearest-centroid accuracy on the middle columns: label %.3f, left neighbour %.3f (chance 0.1)", accC, accL)
	if accC < 0.6 {
		t.Errorf("label recognised in %.3f of images, want ≥ 0.6", accC)
	}
	if accL > 0.16 {
		t.Errorf("left neighbour recognised in %.3f of images, want chance (0.1)", accL)
	}
}

func normalise(v []float64) {
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	if ss > 0 {
		for i := range v {
			v[i] /= math.Sqrt(ss)
		}
	}
}

func ExampleSynth() {
	im, err := Synth(1000, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	again, _ := Synth(1000, rand.New(rand.NewPCG(1, 2)))
	fmt.Printf("%d images of %d×%d RGB, %d bytes\n", im.N, im.H, im.W, len(im.Pixels))
	fmt.Println("same seed, same images:", bytes.Equal(im.Pixels, again.Pixels))
	// Output:
	// 1000 images of 32×32 RGB, 3072000 bytes
	// same seed, same images: true
}

func BenchmarkSynth(b *testing.B) {
	const n = 1000
	rng := rand.New(rand.NewPCG(1, 2))
	b.SetBytes(n * 3 * SynthSize * SynthSize)
	for b.Loop() {
		if _, err := Synth(n, rng); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "images/s")
}
