package images

import (
	"errors"
	"fmt"
	"image"
	"math"
)

// ImageNet's per-channel mean and standard deviation, torchvision's
// Normalize for its pretrained models.
var (
	ImageNetMean = [3]float32{0.485, 0.456, 0.406}
	ImageNetStd  = [3]float32{0.229, 0.224, 0.225}
)

// Transform is torchvision's evaluation transform:
// Compose([Resize(Resize), CenterCrop(Crop), ToTensor(), Normalize(Mean, Std)]).
type Transform struct {
	Resize    int // the shorter side after resizing
	Crop      int // the side of the square centre crop, at most Resize
	Mean, Std [3]float32
}

// EvalTransform is the transform of torchvision's ImageNet models:
// resize 256, crop 224 (242 and 224 for vit_l_16), ImageNet's mean and
// standard deviation.
func EvalTransform(resize, crop int) Transform {
	return Transform{Resize: resize, Crop: crop, Mean: ImageNetMean, Std: ImageNetStd}
}

// MaxSide bounds Resize and Crop.
const MaxSide = 1 << 14

// Check reports a transform that cannot be applied.
func (t Transform) Check() error {
	switch {
	case t.Resize < 1 || t.Resize > MaxSide:
		return fmt.Errorf("images: resize %d, want 1 to %d", t.Resize, MaxSide)
	case t.Crop < 1 || t.Crop > t.Resize:
		return fmt.Errorf("images: crop %d, want 1 to the resize, %d", t.Crop, t.Resize)
	}
	for c := range 3 {
		if !(t.Std[c] > 0) || math.IsInf(float64(t.Std[c]), 0) || math.IsNaN(float64(t.Mean[c])) {
			return errors.New("images: the standard deviations must be positive and finite, the means numbers")
		}
	}
	return nil
}

// Size is the size Resize gives a w×h image, as torchvision computes it:
// the shorter side becomes s, the longer int(s·long/short).
func Size(w, h, s int) (int, int) {
	if w <= h {
		return s, int(int64(s) * int64(h) / int64(w))
	}
	return int(int64(s) * int64(w) / int64(h)), s
}

// pyRound is Python's round: halves to even.
func pyRound(x float64) int { return int(math.RoundToEven(x)) }

// Apply transforms img into dst, [3, Crop, Crop] float32 (CHW), and
// returns it; dst is allocated when it is shorter than 3·Crop².
func (t Transform) Apply(img *RGB, dst []float32) []float32 {
	w, h := Size(img.W, img.H, t.Resize)
	c := t.Crop
	top, left := pyRound(float64(h-c)/2), pyRound(float64(w-c)/2)
	r := resizeWindow(img, w, h, image.Rect(left, top, left+c, top+c))
	if len(dst) < 3*c*c {
		dst = make([]float32, 3*c*c)
	}
	dst = dst[:3*c*c]
	for ch := range 3 {
		m, s := t.Mean[ch], t.Std[ch]
		out := dst[ch*c*c:]
		for y := range c {
			row := r.Pix[3*y*c+ch:]
			for x := range c {
				v := float32(row[3*x]) / 255
				out[y*c+x] = (v - m) / s
			}
		}
	}
	return dst
}
