package images

import (
	"image"
	"math"
)

// PIL's fixed-point precision for 8-bit resampling (Resample.c).
const precisionBits = 32 - 8 - 2

// coeffs are one axis's resampling weights as PIL computes them
// (precompute_coeffs and normalize_coeffs_8bpc in Resample.c, with the
// bilinear filter): output pixel i reads the inputs [lo[i], lo[i]+n[i])
// with the fixed-point weights k[i·size : i·size+n[i]].
type coeffs struct {
	lo, n []int
	k     []int32
	size  int
}

// bilinearCoeffs are the weights that map in samples to out: a triangle
// filter of support max(in/out, 1), centred on each output pixel's centre.
func bilinearCoeffs(in, out int) coeffs {
	scale := float64(in) / float64(out)
	filterscale := max(scale, 1)
	support := filterscale // the bilinear filter's support, 1, scaled
	size := int(math.Ceil(support))*2 + 1
	c := coeffs{lo: make([]int, out), n: make([]int, out), k: make([]int32, out*size), size: size}
	kk := make([]float64, size)
	ss := 1 / filterscale
	for i := range out {
		center := (float64(i) + 0.5) * scale
		lo := max(int(center-support+0.5), 0) // C's (int) truncates towards 0
		hi := min(int(center+support+0.5), in)
		n := hi - lo
		var ww float64
		for x := range n {
			t := math.Abs((float64(x+lo) - center + 0.5) * ss)
			w := 0.0
			if t < 1 {
				w = 1 - t
			}
			kk[x] = w
			ww += w
		}
		for x := range n {
			if ww != 0 {
				kk[x] /= ww
			}
			v := kk[x] * (1 << precisionBits)
			if v < 0 {
				v -= 0.5
			} else {
				v += 0.5
			}
			c.k[i*size+x] = int32(v)
		}
		c.lo[i], c.n[i] = lo, n
	}
	return c
}

// clip8 rounds a fixed-point sum to 8 bits, clipped, as PIL does.
func clip8(ss int64) uint8 { return uint8(max(0, min(255, ss>>precisionBits))) }

// Resize scales img to w×h as PIL's Image.resize((w, h), Image.BILINEAR)
// does for an RGB image: a horizontal pass, rounded to 8 bits, then a
// vertical one, each skipped when that side keeps its size.
func Resize(img *RGB, w, h int) *RGB {
	return resizeWindow(img, w, h, image.Rect(0, 0, w, h))
}

// resizeWindow returns the pixels win (within w×h) of Resize(img, w, h),
// computing only those and the rows of the horizontal pass they read:
// a centre crop after a resize, as torchvision's evaluation transform
// makes, byte for byte.
func resizeWindow(img *RGB, w, h int, win image.Rectangle) *RGB {
	return resizeBox(img, image.Rect(0, 0, img.W, img.H), w, h, win)
}

// resizeBox returns the pixels win (within w×h) of Resize of box (within
// img) to w×h: the crop box of img resized, as PIL's
// img.crop(box).resize((w, h), BILINEAR) (torchvision's resized_crop) and
// without copying the crop first, and of that only the window win.
func resizeBox(img *RGB, box image.Rectangle, w, h int, win image.Rectangle) *RGB {
	const half = int64(1) << (precisionBits - 1)
	bw, bh := box.Dx(), box.Dy()
	ww, wh := win.Dx(), win.Dy()
	// The box's rows the vertical pass reads: [r0, r1).
	r0, r1 := win.Min.Y, win.Max.Y
	var cv coeffs
	if h != bh {
		cv = bilinearCoeffs(bh, h)
		r0, r1 = bh, 0
		for y := win.Min.Y; y < win.Max.Y; y++ {
			r0, r1 = min(r0, cv.lo[y]), max(r1, cv.lo[y]+cv.n[y])
		}
		r1 = max(r0, r1)
	}
	mid := &RGB{W: ww, H: r1 - r0, Pix: make([]uint8, 3*ww*(r1-r0))}
	// row is the box's row y.
	row := func(y int) []uint8 {
		at := 3 * ((box.Min.Y+y)*img.W + box.Min.X)
		return img.Pix[at : at+3*bw]
	}
	if w != bw {
		c := bilinearCoeffs(bw, w)
		for y := r0; y < r1; y++ {
			row := row(y)
			o := mid.Pix[3*(y-r0)*ww : 3*(y-r0+1)*ww]
			for x := win.Min.X; x < win.Max.X; x++ {
				k := c.k[x*c.size : x*c.size+c.n[x]]
				src := row[3*c.lo[x]:]
				r, g, b := half, half, half
				for j, kj := range k {
					kk := int64(kj)
					r += int64(src[3*j]) * kk
					g += int64(src[3*j+1]) * kk
					b += int64(src[3*j+2]) * kk
				}
				i := 3 * (x - win.Min.X)
				o[i], o[i+1], o[i+2] = clip8(r), clip8(g), clip8(b)
			}
		}
	} else {
		for y := r0; y < r1; y++ {
			copy(mid.Pix[3*(y-r0)*ww:3*(y-r0+1)*ww], row(y)[3*win.Min.X:])
		}
	}
	if h == bh {
		return mid
	}
	stride := 3 * ww
	out := &RGB{W: ww, H: wh, Pix: make([]uint8, stride*wh)}
	acc := make([]int64, stride)
	for y := win.Min.Y; y < win.Max.Y; y++ {
		for i := range acc {
			acc[i] = half
		}
		for j, kj := range cv.k[y*cv.size : y*cv.size+cv.n[y]] {
			kk := int64(kj)
			src := cv.lo[y] + j - r0
			for i, v := range mid.Pix[src*stride : (src+1)*stride] {
				acc[i] += int64(v) * kk
			}
		}
		o := out.Pix[(y-win.Min.Y)*stride : (y-win.Min.Y+1)*stride]
		for i, v := range acc {
			o[i] = clip8(v)
		}
	}
	return out
}
