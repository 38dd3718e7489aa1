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
// returns it; dst is allocated when it is shorter than 3·Crop². An image
// already of the resized size (a Cache's of Prep{Side: Resize}) is
// cropped without a copy.
func (t Transform) Apply(img *RGB, dst []float32) []float32 {
	w, h := Size(img.W, img.H, t.Resize)
	c := t.Crop
	top, left := pyRound(float64(h-c)/2), pyRound(float64(w-c)/2)
	pix, stride, at := img.Pix, 3*img.W, 3*(top*img.W+left)
	if w != img.W || h != img.H {
		pix, stride, at = resizeWindow(img, w, h, image.Rect(left, top, left+c, top+c)).Pix, 3*c, 0
	}
	return normalise(pix[at:], stride, c, false, t.Mean, t.Std, dst)
}

// normalise writes the c×c RGB pixels of pix (rows stride bytes apart),
// mirrored left to right with flip, into dst as [3, c, c] float32 (CHW),
// scaled to [0, 1] and normalised by mean and std, and returns it; dst is
// allocated when it is shorter than 3·c².
func normalise(pix []uint8, stride, c int, flip bool, mean, std [3]float32, dst []float32) []float32 {
	if len(dst) < 3*c*c {
		dst = make([]float32, 3*c*c)
	}
	dst = dst[:3*c*c]
	var lut [256]float32
	for ch := range 3 {
		m, s := mean[ch], std[ch]
		for v := range lut {
			lut[v] = (float32(v)/255 - m) / s
		}
		out := dst[ch*c*c:]
		for y := range c {
			row := pix[y*stride+ch:]
			o := out[y*c : (y+1)*c]
			if flip {
				for x := range c {
					o[c-1-x] = lut[row[3*x]]
				}
				continue
			}
			for x := range o {
				o[x] = lut[row[3*x]]
			}
		}
	}
	return dst
}
