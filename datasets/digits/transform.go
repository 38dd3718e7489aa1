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
	if size < 1 || im.H < 1 || im.W < 1 || len(im.Pixels) != im.N*im.H*im.W {
		return nil, fmt.Errorf("digits.Input: %d images of %dx%d with %d pixels to size %d", im.N, im.H, im.W, len(im.Pixels), size)
	}
	plane := size * size
	out := make([]float32, im.N*3*plane)
	for n := range im.N {
		base := out[n*3*plane:]
		resize(base[:plane], im.Pixels[n*im.H*im.W:(n+1)*im.H*im.W], im.H, im.W, size)
		copy(base[plane:2*plane], base[:plane])
		copy(base[2*plane:3*plane], base[:plane])
	}
	return tensor.FromSlice(out, im.N, 3, size, size), nil
}
