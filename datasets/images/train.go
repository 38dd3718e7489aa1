package images

import (
	"errors"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
)

// TrainTransform is torchvision's training transform of its ImageNet
// models:
//
//	Compose([RandomResizedCrop(Size, Scale, Ratio), RandomHorizontalFlip(Flip),
//	         ToTensor(), Normalize(Mean, Std)])
//
// A random box of the image (Box, torchvision's
// RandomResizedCrop.get_params) is resized to Size×Size with PIL's
// bilinear filter (torchvision's resized_crop of a PIL image: crop, then
// resize, antialiased), mirrored left to right with probability Flip,
// scaled to [0, 1] and normalised per channel, as float32 in CHW order.
type TrainTransform struct {
	Size int
	// Scale bounds the box's area as a fraction of the image's, Ratio its
	// aspect (width over height); torchvision's defaults are (0.08, 1)
	// and (3/4, 4/3).
	Scale, Ratio [2]float64
	// Flip is the probability of the horizontal flip (torchvision's 0.5).
	Flip      float64
	Mean, Std [3]float32
}

// RandomResizedCrop is torchvision's training transform of its ImageNet
// models at side size: scale (0.08, 1), ratio (3/4, 4/3), flip with
// probability 0.5, ImageNet's mean and standard deviation.
func RandomResizedCrop(size int) TrainTransform {
	return TrainTransform{Size: size, Scale: [2]float64{0.08, 1}, Ratio: [2]float64{3.0 / 4, 4.0 / 3}, Flip: 0.5,
		Mean: ImageNetMean, Std: ImageNetStd}
}

// Check reports a transform that cannot be applied.
func (t TrainTransform) Check() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch {
	case t.Size < 1 || t.Size > MaxSide:
		return fmt.Errorf("images: training transform: size %d, want 1 to %d", t.Size, MaxSide)
	case !(t.Scale[0] > 0) || !(t.Scale[0] <= t.Scale[1]) || !finite(t.Scale[1]):
		return fmt.Errorf("images: training transform: scale %v, want 0 < min ≤ max, finite", t.Scale)
	case !(t.Ratio[0] > 0) || !(t.Ratio[0] <= t.Ratio[1]) || !finite(t.Ratio[1]):
		return fmt.Errorf("images: training transform: ratio %v, want 0 < min ≤ max, finite", t.Ratio)
	case !(t.Flip >= 0 && t.Flip <= 1):
		return fmt.Errorf("images: training transform: flip probability %v, want 0 to 1", t.Flip)
	}
	for c := range 3 {
		if !(t.Std[c] > 0) || math.IsInf(float64(t.Std[c]), 0) || math.IsNaN(float64(t.Mean[c])) {
			return errors.New("images: training transform: the standard deviations must be positive and finite, the means numbers")
		}
	}
	return nil
}

// Box is a random crop box of a w×h image, drawn from rng by torchvision's
// RandomResizedCrop.get_params: up to ten tries of an area
// w·h·U(Scale) and an aspect exp(U(log Ratio)), the box's sides
// round(√(area·aspect)) and round(√(area/aspect)) (Python's round, halves
// to even), kept when they fit, at a uniform position; after ten misses,
// the central box of the whole image clamped to the ratio range. The
// draws are float64 (torch draws them in float32), in torch's order:
// scale, ratio, then the top row and the left column.
func (t TrainTransform) Box(rng *rand.Rand, w, h int) image.Rectangle {
	area := float64(w) * float64(h)
	logLo, logHi := math.Log(t.Ratio[0]), math.Log(t.Ratio[1])
	for range 10 {
		target := area * (t.Scale[0] + (t.Scale[1]-t.Scale[0])*rng.Float64())
		aspect := math.Exp(logLo + (logHi-logLo)*rng.Float64())
		cw := pyRound(math.Sqrt(target * aspect))
		ch := pyRound(math.Sqrt(target / aspect))
		if 0 < cw && cw <= w && 0 < ch && ch <= h {
			top := rng.IntN(h - ch + 1)
			left := rng.IntN(w - cw + 1)
			return image.Rect(left, top, left+cw, top+ch)
		}
	}
	return t.fallback(w, h)
}

// fallback is get_params's box after ten misses: the whole image, its
// aspect clamped to the ratio range, centred (floor division).
func (t TrainTransform) fallback(w, h int) image.Rectangle {
	cw, ch := w, h
	switch in := float64(w) / float64(h); {
	case in < t.Ratio[0]:
		ch = pyRound(float64(cw) / t.Ratio[0])
	case in > t.Ratio[1]:
		cw = pyRound(float64(ch) * t.Ratio[1])
	}
	// Python's rounding keeps these within 1..w and 1..h for ratios that
	// round to a side; the clamp guards extreme ones against an empty box.
	cw, ch = max(1, min(cw, w)), max(1, min(ch, h))
	top, left := (h-ch)/2, (w-cw)/2
	return image.Rect(left, top, left+cw, top+ch)
}

// Apply transforms img into dst, [3, Size, Size] float32 (CHW), with the
// random choices drawn from rng (Box, then the flip: rng.Float64() <
// Flip), and returns it; dst is allocated when it is shorter than
// 3·Size².
func (t TrainTransform) Apply(img *RGB, rng *rand.Rand, dst []float32) []float32 {
	box := t.Box(rng, img.W, img.H)
	flip := rng.Float64() < t.Flip
	c := t.Size
	r := resizeBox(img, box, c, c, image.Rect(0, 0, c, c))
	return normalise(r.Pix, 3*c, c, flip, t.Mean, t.Std, dst)
}

// MinSide is the shorter side an image needs for the smallest boxes Box
// draws (Scale[0] of the area at the extreme aspects) to be at least Size
// pixels on each side, so that resizing them to Size does not enlarge
// them: ⌈Size/√(Scale[0]·min(Ratio[0], 1/Ratio[1]))⌉ (115 for Size 28 and
// torchvision's defaults, 915 for 224). A cache of images bounded to it
// (Prep{Side: MinSide(), Bound: true}) keeps all the detail the transform
// can use at Size.
func (t TrainTransform) MinSide() int {
	r := min(t.Ratio[0], 1/t.Ratio[1], 1)
	return int(math.Ceil(float64(t.Size) / math.Sqrt(min(t.Scale[0], 1)*r)))
}

// Stream is the random generator of image i in epoch epoch of a run of
// the given seed: its own stream, so that an image's random choices do not
// depend on the other images or on the order the workers take them in.
func Stream(seed uint64, epoch, i int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, mix64(uint64(epoch)<<40^uint64(i)^0x5eed_a06e_0000_0000)))
}

// mix64 is splitmix64's finaliser, a bijection of the 64-bit words.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
