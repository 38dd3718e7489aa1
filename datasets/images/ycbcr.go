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

// chromaSize is the size of m's chroma planes within its rectangle: half
// the width (4:2:0 and 4:2:2) and half the height (4:2:0), rounded out;
// m's own size for the other ratios, which ycbcrToRGB reads through
// COffset.
func chromaSize(m *image.YCbCr) (cw, ch int) {
	r := m.Rect
	cw, ch = r.Dx(), r.Dy()
	switch m.SubsampleRatio {
	case image.YCbCrSubsampleRatio420:
		cw, ch = (r.Max.X+1)/2-r.Min.X/2, (r.Max.Y+1)/2-r.Min.Y/2
	case image.YCbCrSubsampleRatio422:
		cw = (r.Max.X+1)/2 - r.Min.X/2
	}
	return cw, ch
}

// ycbcrToRGB converts m into out as libjpeg does for PIL: chroma
// subsampled 2×2 (4:2:0) or 2×1 (4:2:2) is upsampled with libjpeg's
// "fancy" triangle filter (jdsample.c, h2v2_fancy_upsample and
// h2v1_fancy_upsample: ¾ of the nearer chroma sample and ¼ of the next,
// edges replicated), other ratios by repeating samples; then jdcolor.c's
// fixed-point conversion. It works a row at a time, as libjpeg does: the
// vertical blend of the two nearest chroma rows, then the horizontal one
// into a row of full-width chroma, then the colours.
func ycbcrToRGB(m *image.YCbCr, out *RGB) {
	w, h := out.W, out.H
	r := m.Rect
	cw, ch := chromaSize(m)           // the chroma planes' size
	c0 := m.COffset(r.Min.X, r.Min.Y) // chroma sample (0, 0)
	cb, cr := make([]uint8, w), make([]uint8, w)
	sum := make([]int32, cw)
	// upsample sets dst to the full-width chroma of output row y from the
	// plane src (4:2:0 and 4:2:2).
	upsample := func(src, dst []uint8, y int) {
		if m.SubsampleRatio == image.YCbCrSubsampleRatio420 {
			cy, ny := min(y/2, ch-1), y/2-1
			if y%2 == 1 {
				ny = y/2 + 1
			}
			ny = max(0, min(ch-1, ny))
			near, far := src[c0+cy*m.CStride:][:cw], src[c0+ny*m.CStride:][:cw]
			for i := range sum {
				sum[i] = 3*int32(near[i]) + int32(far[i])
			}
			for x := range dst {
				cx := x / 2
				if x%2 == 0 {
					dst[x] = uint8((3*sum[cx] + sum[max(cx-1, 0)] + 8) >> 4)
				} else {
					dst[x] = uint8((3*sum[cx] + sum[min(cx+1, cw-1)] + 7) >> 4)
				}
			}
			return
		}
		row := src[c0+min(y, ch-1)*m.CStride:][:cw]
		for x := range dst {
			cx := x / 2
			if x%2 == 0 {
				dst[x] = uint8((3*int32(row[cx]) + int32(row[max(cx-1, 0)]) + 1) >> 2)
			} else {
				dst[x] = uint8((3*int32(row[cx]) + int32(row[min(cx+1, cw-1)]) + 2) >> 2)
			}
		}
	}
	fancy := m.SubsampleRatio == image.YCbCrSubsampleRatio420 || m.SubsampleRatio == image.YCbCrSubsampleRatio422
	for y := range h {
		if fancy {
			upsample(m.Cb, cb, y)
			upsample(m.Cr, cr, y)
		} else {
			for x := range w {
				i := m.COffset(r.Min.X+x, r.Min.Y+y)
				cb[x], cr[x] = m.Cb[i], m.Cr[i]
			}
		}
		luma := m.Y[m.YOffset(r.Min.X, r.Min.Y+y):][:w]
		o := out.Pix[3*y*w:][:3*w]
		for x, yv := range luma {
			yy, b, c := int32(yv), cb[x], cr[x]
			o[3*x] = clamp8(yy + crR[c])
			o[3*x+1] = clamp8(yy + (cbG[b]+crG[c])>>16)
			o[3*x+2] = clamp8(yy + cbB[b])
		}
	}
}
