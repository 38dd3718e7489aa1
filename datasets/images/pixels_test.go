package images

import (
	"image"
	"math/rand/v2"
	"testing"
)

// ycbcrToRGBRef is ycbcrToRGB pixel by pixel, each chroma sample read
// through a clamping lookup: the reference the row-wise version is tested
// against. It converts m into out as libjpeg does for PIL: chroma
// subsampled 2×2 (4:2:0) or 2×1 (4:2:2) is upsampled with libjpeg's
// "fancy" triangle filter (jdsample.c, h2v2_fancy_upsample and
// h2v1_fancy_upsample: ¾ of the nearer chroma sample and ¼ of the next,
// edges replicated), other ratios by repeating samples; then jdcolor.c's
// fixed-point conversion.
func ycbcrToRGBRef(m *image.YCbCr, out *RGB) {
	w, h := out.W, out.H
	r := m.Rect
	cw, ch := chromaSize(m) // the chroma planes' size
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

// TestYCbCrToRGBMatchesReference: the row-wise conversion equals the
// pixel-by-pixel reference byte for byte, for every chroma ratio, odd and
// even sizes, one pixel, and images whose rectangle does not start at 0.
func TestYCbCrToRGBMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	ratios := []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio422,
		image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410}
	for _, ratio := range ratios {
		for _, rect := range []image.Rectangle{image.Rect(0, 0, 1, 1), image.Rect(0, 0, 2, 2), image.Rect(0, 0, 17, 9),
			image.Rect(0, 0, 64, 48), image.Rect(2, 4, 35, 21), image.Rect(0, 0, 3, 40)} {
			m := image.NewYCbCr(rect, ratio)
			for _, p := range [][]uint8{m.Y, m.Cb, m.Cr} {
				for i := range p {
					p[i] = uint8(r.IntN(256))
				}
			}
			w, h := rect.Dx(), rect.Dy()
			got, want := &RGB{W: w, H: h, Pix: make([]uint8, 3*w*h)}, &RGB{W: w, H: h, Pix: make([]uint8, 3*w*h)}
			ycbcrToRGB(m, got)
			ycbcrToRGBRef(m, want)
			for i := range want.Pix {
				if got.Pix[i] != want.Pix[i] {
					t.Fatalf("ratio %v, %v: byte %d (pixel %d) = %d, want %d", ratio, rect, i, i/3, got.Pix[i], want.Pix[i])
				}
			}
		}
	}
}

// TestResizeWindowIsResizeThenCrop: resizeWindow's pixels are those of
// Resize followed by a crop, byte for byte, for shrinking and enlarging
// sides, sides that keep their size, and windows at the edges.
func TestResizeWindowIsResizeThenCrop(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, c := range []struct{ iw, ih, w, h int }{{37, 23, 20, 11}, {20, 30, 41, 30}, {33, 17, 33, 40}, {9, 9, 9, 9}, {227, 227, 256, 256}, {50, 70, 31, 43}} {
		img := &RGB{W: c.iw, H: c.ih, Pix: make([]uint8, 3*c.iw*c.ih)}
		for i := range img.Pix {
			img.Pix[i] = uint8(r.IntN(256))
		}
		full := Resize(img, c.w, c.h)
		for range 5 {
			x0, y0 := r.IntN(c.w), r.IntN(c.h)
			win := image.Rect(x0, y0, x0+1+r.IntN(c.w-x0), y0+1+r.IntN(c.h-y0))
			got := resizeWindow(img, c.w, c.h, win)
			if got.W != win.Dx() || got.H != win.Dy() {
				t.Fatalf("%+v window %v: %d×%d", c, win, got.W, got.H)
			}
			for y := range got.H {
				for x := range 3 * got.W {
					if g, w := got.Pix[3*y*got.W+x], full.Pix[3*((win.Min.Y+y)*c.w+win.Min.X)+x]; g != w {
						t.Fatalf("%+v window %v: row %d byte %d = %d, Resize then crop %d", c, win, y, x, g, w)
					}
				}
			}
		}
	}
}
