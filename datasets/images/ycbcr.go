package images

import "image"

// libjpeg's YCbCr → RGB tables (jdcolor.c, 16-bit fixed point):
// R = Y + 1.402·Cr', G = Y − 0.34414·Cb' − 0.71414·Cr', B = Y + 1.772·Cb'
// with Cb' = Cb − 128, Cr' = Cr − 128.
var crR, cbB, crG, cbG [256]int32

func init() {
	const scale = 16
	fix := func(x float64) int32 { return int32(x*(1<<scale) + 0.5) }
	half := int32(1) << (scale - 1)
	for i := range 256 {
		x := int32(i - 128)
		crR[i] = (fix(1.40200)*x + half) >> scale
		cbB[i] = (fix(1.77200)*x + half) >> scale
		crG[i] = -fix(0.71414) * x
		cbG[i] = -fix(0.34414)*x + half
	}
}

// clamp8 limits v to [0, 255].
func clamp8(v int32) uint8 { return uint8(max(0, min(255, v))) }

// ycbcrToRGB converts m into out as libjpeg does for PIL: chroma
// subsampled 2×2 (4:2:0) or 2×1 (4:2:2) is upsampled with libjpeg's
// "fancy" triangle filter (jdsample.c, h2v2_fancy_upsample and
// h2v1_fancy_upsample: ¾ of the nearer chroma sample and ¼ of the next,
// edges replicated), other ratios by repeating samples; then jdcolor.c's
// fixed-point conversion.
func ycbcrToRGB(m *image.YCbCr, out *RGB) {
	w, h := out.W, out.H
	r := m.Rect
	cw, ch := w, h // the chroma planes' size
	switch m.SubsampleRatio {
	case image.YCbCrSubsampleRatio420:
		cw, ch = (r.Max.X+1)/2-r.Min.X/2, (r.Max.Y+1)/2-r.Min.Y/2
	case image.YCbCrSubsampleRatio422:
		cw = (r.Max.X+1)/2 - r.Min.X/2
	}
	cb := make([]uint8, w*h)
	cr := make([]uint8, w*h)
	switch m.SubsampleRatio {
	case image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio422:
		v2 := m.SubsampleRatio == image.YCbCrSubsampleRatio420
		c0 := m.COffset(r.Min.X, r.Min.Y) // chroma sample (0, 0)
		at := func(p []uint8, cx, cy int) int32 {
			cx, cy = max(0, min(cw-1, cx)), max(0, min(ch-1, cy))
			return int32(p[c0+cy*m.CStride+cx])
		}
		for _, pl := range []struct{ src, dst []uint8 }{{m.Cb, cb}, {m.Cr, cr}} {
			for y := range h {
				for x := range w {
					cx, nx := x/2, x/2-1
					if x%2 == 1 {
						nx = cx + 1
					}
					var v int32
					if v2 {
						cy, ny := y/2, y/2-1
						if y%2 == 1 {
							ny = cy + 1
						}
						this := 3*at(pl.src, cx, cy) + at(pl.src, cx, ny)
						next := 3*at(pl.src, nx, cy) + at(pl.src, nx, ny)
						v = (3*this + next + 8 - int32(x%2)) >> 4
					} else {
						v = (3*at(pl.src, cx, y) + at(pl.src, nx, y) + 1 + int32(x%2)) >> 2
					}
					pl.dst[y*w+x] = uint8(v)
				}
			}
		}
	default:
		for y := range h {
			for x := range w {
				i := m.COffset(r.Min.X+x, r.Min.Y+y)
				cb[y*w+x], cr[y*w+x] = m.Cb[i], m.Cr[i]
			}
		}
	}
	for y := range h {
		for x := range w {
			yy := int32(m.Y[m.YOffset(r.Min.X+x, r.Min.Y+y)])
			b, c := cb[y*w+x], cr[y*w+x]
			o := out.Pix[3*(y*w+x):]
			o[0] = clamp8(yy + crR[c])
			o[1] = clamp8(yy + (cbG[b]+crG[c])>>16)
			o[2] = clamp8(yy + cbB[b])
		}
	}
}
