package digits

import (
	"fmt"

	"github.com/ecl-go/ecl/tensor"
)

// resize scales one h×w grey image to s×s by bilinear interpolation with
// half-pixel centres (PyTorch's align_corners=False, no antialiasing),
// writing values in [0, 1] into dst.
func resize(dst []float32, src []uint8, h, w, s int) {
	coord := func(o, in int) (i0, i1 int, f float32) {
		x := (float32(o)+0.5)*float32(in)/float32(s) - 0.5
		x = max(x, 0)
		i0 = min(int(x), in-1)
		i1 = min(i0+1, in-1)
		return i0, i1, x - float32(i0)
	}
	for y := range s {
		y0, y1, fy := coord(y, h)
		for x := range s {
			x0, x1, fx := coord(x, w)
			at := func(r, c int) float32 { return float32(src[r*w+c]) / 255 }
			top := at(y0, x0)*(1-fx) + at(y0, x1)*fx
			bot := at(y1, x0)*(1-fx) + at(y1, x1)*fx
			dst[y*s+x] = top*(1-fy) + bot*fy
		}
	}
}

// Input turns images into the paper's network input: [N, 3, size, size]
// float32 in [0, 1], grey replicated to three channels, resized bilinearly.
func Input(im *Images, size int) (*tensor.Tensor[float32], error) {
	return input("digits.Input", im.N, 1, im.H, im.W, im.Pixels, size)
}

// ColorInput turns colour images into the network input [N, 3, size, size]:
// float32 in [0, 1], each channel resized bilinearly as Input does.
func ColorInput(im *ColorImages, size int) (*tensor.Tensor[float32], error) {
	return input("digits.ColorInput", im.N, 3, im.H, im.W, im.Pixels, size)
}

// input resizes n images of ch channel-major planes (1 or 3) of h×w pixels
// to [n, 3, size, size], replicating a single channel three times.
func input(op string, n, ch, h, w int, pix []uint8, size int) (*tensor.Tensor[float32], error) {
	if size < 1 || h < 1 || w < 1 || n < 0 || len(pix) != n*ch*h*w {
		return nil, fmt.Errorf("%s: %d images of %d×%d×%d with %d pixels to size %d", op, n, ch, h, w, len(pix), size)
	}
	plane, in := size*size, h*w
	out := make([]float32, n*3*plane)
	for p := range n * 3 {
		dst := out[p*plane : (p+1)*plane]
		if ch == 1 && p%3 > 0 {
			copy(dst, out[(p-p%3)*plane:])
			continue
		}
		src := p / (3 / ch) // the source plane: p for colour, p/3 for grey
		resize(dst, pix[src*in:(src+1)*in], h, w, size)
	}
	return tensor.FromSlice(out, n, 3, size, size), nil
}
