package images

import "math"

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
	const half = int64(1) << (precisionBits - 1)
	cur := img
	if w != cur.W {
		c := bilinearCoeffs(cur.W, w)
		out := &RGB{W: w, H: cur.H, Pix: make([]uint8, 3*w*cur.H)}
		for y := range cur.H {
			row := cur.Pix[3*y*cur.W : 3*(y+1)*cur.W]
			o := out.Pix[3*y*w : 3*(y+1)*w]
			for x := range w {
				k := c.k[x*c.size : x*c.size+c.n[x]]
				src := row[3*c.lo[x]:]
				r, g, b := half, half, half
				for j, kj := range k {
					kk := int64(kj)
					r += int64(src[3*j]) * kk
					g += int64(src[3*j+1]) * kk
					b += int64(src[3*j+2]) * kk
				}
				o[3*x], o[3*x+1], o[3*x+2] = clip8(r), clip8(g), clip8(b)
			}
		}
		cur = out
	}
	if h != cur.H {
		c := bilinearCoeffs(cur.H, h)
		stride := 3 * cur.W
		out := &RGB{W: cur.W, H: h, Pix: make([]uint8, stride*h)}
		acc := make([]int64, stride)
		for y := range h {
			for i := range acc {
				acc[i] = half
			}
			for j, kj := range c.k[y*c.size : y*c.size+c.n[y]] {
				kk := int64(kj)
				row := cur.Pix[(c.lo[y]+j)*stride : (c.lo[y]+j+1)*stride]
				for i, v := range row {
					acc[i] += int64(v) * kk
				}
			}
			o := out.Pix[y*stride : (y+1)*stride]
			for i, v := range acc {
				o[i] = clip8(v)
			}
		}
		cur = out
	}
	if cur == img {
		cur = &RGB{W: img.W, H: img.H, Pix: append([]uint8(nil), img.Pix...)}
	}
	return cur
}
