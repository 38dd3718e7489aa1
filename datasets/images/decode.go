package images

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // registers JPEG with image.Decode
	_ "image/png"  // registers PNG with image.Decode
	"io"
	"os"
)

// DefaultMaxPixels is the largest image (width × height) Decode accepts
// by default: 2²⁷ pixels, 384 MiB as RGB (PIL refuses images above
// 178,956,970 pixels as decompression bombs).
const DefaultMaxPixels = 1 << 27

// Error is a file that could not be read as an image: its path and why.
type Error struct {
	Path string
	Err  error
}

func (e *Error) Error() string { return e.Path + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// ErrTooLarge is the cause of an *Error for an image whose header claims
// more pixels than the limit.
var ErrTooLarge = errors.New("image too large")

// RGB is an 8-bit RGB image, its pixels row by row, 3 bytes each.
type RGB struct {
	W, H int
	Pix  []uint8 // len 3·W·H
}

// Decode reads the JPEG or PNG file path as RGB (see the package's
// documentation for the conversions). Its header's dimensions are checked
// against maxPixels (DefaultMaxPixels when ≤ 0) before anything is
// decoded. Errors are *Error naming path.
func Decode(path string, maxPixels int64) (*RGB, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{path, err}
	}
	defer f.Close()
	img, err := decodeSeeker(f, maxPixels)
	if err != nil {
		return nil, &Error{path, err}
	}
	return img, nil
}

// decodeSeeker reads the config, checks it, rewinds and decodes.
func decodeSeeker(f io.ReadSeeker, maxPixels int64) (*RGB, error) {
	if maxPixels <= 0 {
		maxPixels = DefaultMaxPixels
	}
	cfg, format, err := image.DecodeConfig(bufio.NewReader(f))
	if err != nil {
		if errors.Is(err, image.ErrFormat) {
			return nil, errors.New("not a JPEG or PNG image")
		}
		return nil, fmt.Errorf("reading the header: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, fmt.Errorf("%s of %d×%d pixels", format, cfg.Width, cfg.Height)
	}
	if int64(cfg.Width) > maxPixels/int64(cfg.Height) {
		return nil, fmt.Errorf("%s header claims %d×%d pixels, more than the limit of %d: %w", format, cfg.Width, cfg.Height, maxPixels, ErrTooLarge)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	img, _, err := image.Decode(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("decoding the %s: %w", format, err)
	}
	return ToRGB(img), nil
}

// ToRGB converts img to RGB as PIL's convert("RGB") does.
func ToRGB(img image.Image) *RGB {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := &RGB{W: w, H: h, Pix: make([]uint8, 3*w*h)}
	set := func(x, y int, r, g, bl uint8) {
		i := 3 * (y*w + x)
		out.Pix[i], out.Pix[i+1], out.Pix[i+2] = r, g, bl
	}
	switch m := img.(type) {
	case *image.YCbCr:
		ycbcrToRGB(m, out)
	case *image.Gray:
		copyChannels(out, m.Pix, m.Stride, 1, 0, 0, 0)
	case *image.Gray16:
		// PIL opens a 16-bit grey PNG as mode I (or I;16), whose
		// conversion to RGB clips the values at 255.
		for y := range h {
			for x := range w {
				i := y*m.Stride + 2*x
				v := uint8(min(int(m.Pix[i])<<8|int(m.Pix[i+1]), 255))
				set(x, y, v, v, v)
			}
		}
	case *image.NRGBA:
		copyChannels(out, m.Pix, m.Stride, 4, 0, 1, 2)
	case *image.NRGBA64:
		// PIL keeps the high bytes of 16-bit colour.
		copyChannels(out, m.Pix, m.Stride, 8, 0, 2, 4)
	case *image.RGBA64:
		// Go's PNG decoder gives RGBA64 only for opaque 16-bit RGB.
		copyChannels(out, m.Pix, m.Stride, 8, 0, 2, 4)
	case *image.CMYK:
		for y := range h {
			for x := range w {
				p := m.Pix[y*m.Stride+4*x:]
				set(x, y, cmykChannel(p[0], p[3]), cmykChannel(p[1], p[3]), cmykChannel(p[2], p[3]))
			}
		}
	case *image.Paletted:
		pal := make([][3]uint8, len(m.Palette))
		for i, c := range m.Palette {
			n := color.NRGBAModel.Convert(c).(color.NRGBA)
			pal[i] = [3]uint8{n.R, n.G, n.B}
		}
		for y := range h {
			for x := range w {
				var c [3]uint8
				if k := int(m.Pix[y*m.Stride+x]); k < len(pal) {
					c = pal[k]
				}
				set(x, y, c[0], c[1], c[2])
			}
		}
	default:
		// Opaque RGB (image.RGBA from Go's decoders) and anything else:
		// the non-premultiplied colour.
		for y := range h {
			for x := range w {
				n := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
				set(x, y, n.R, n.G, n.B)
			}
		}
	}
	return out
}

// copyChannels sets out's pixels from pix, rows stride bytes apart,
// pixels bpp bytes apart, the red, green and blue bytes at r, g and b.
func copyChannels(out *RGB, pix []uint8, stride, bpp, r, g, b int) {
	for y := range out.H {
		for x := range out.W {
			p := pix[y*stride+bpp*x:]
			o := out.Pix[3*(y*out.W+x):]
			o[0], o[1], o[2] = p[r], p[g], p[b]
		}
	}
}

// cmykChannel is PIL's cmyk2rgb for one channel: nk − c·nk/255 with nk =
// 255 − k, in PIL's rounding (MULDIV255).
func cmykChannel(c, k uint8) uint8 {
	nk := 255 - int(k)
	t := int(c)*nk + 128
	return uint8(max(0, min(255, nk-((t>>8)+t)>>8)))
}
