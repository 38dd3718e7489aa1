package plot

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"io"
	"sync"

	"git.sr.ht/~sbinet/gg"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
)

// fastPNG is an opaque image canvas written as PNG by writePNG, its pixels
// taken from a pool of earlier canvases' (release gives them back).
type fastPNG struct {
	*vgimg.Canvas
	img *image.RGBA
}

// pixels holds the pixel buffers of released canvases (*[]uint8).
var pixels sync.Pool

// newFastPNG returns a white canvas of width w and height h, rounded to
// whole pixels at dpi. It is vgimg.NewWith(UseWH, UseDPI) without the copy
// of the blank image that NewWith's drawing context makes, on pixels
// reused where a released canvas left large enough ones: a fresh image is
// cleared by the runtime, faulted in page by page and then painted white,
// about a third of the time of writing a study's diagrams. The layout is
// that of the rounded size, at most half a pixel larger or smaller.
func newFastPNG(w, h vg.Length, dpi int) fastPNG {
	px := func(l vg.Length) int { return int(l/vg.Inch*vg.Length(dpi) + 0.5) }
	r := image.Rect(0, 0, px(w), px(h))
	n := 4 * r.Dx() * r.Dy()
	var pix []uint8
	if p, ok := pixels.Get().(*[]uint8); ok && cap(*p) >= n {
		pix = (*p)[:n]
	} else {
		pix = make([]uint8, n)
	}
	img := &image.RGBA{Pix: pix, Stride: 4 * r.Dx(), Rect: r}
	ctx := gg.NewContextForRGBA(img)
	ctx.SetLineCapButt()
	ctx.InvertY()
	// NewWith paints every pixel with its background colour, white.
	return fastPNG{vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(dpi)), img}
}

// release hands the canvas's pixels to the next newFastPNG; c is not to
// be used after.
func (c fastPNG) release() { pixels.Put(&c.img.Pix) }

func (c fastPNG) WriteTo(w io.Writer) (int64, error) {
	cw := &countingWriter{w: w}
	err := writePNG(cw, c.img)
	return cw.n, err
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writePNG writes img as an 8-bit RGB PNG, its alpha left out: a canvas is
// opaque (painted white, then drawn over). The rows are not filtered and
// are compressed at zlib's fastest level: on a diagram's flat areas the
// file is as small as image/png's at that level, whose choice of a filter
// per row took twice the time of the rest of the encoding.
func writePNG(w io.Writer, img *image.RGBA) error {
	width, height := img.Rect.Dx(), img.Rect.Dy()
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	if err != nil {
		return err
	}
	row := make([]byte, 1+3*width) // row[0] = 0: filter type None
	for y := range height {
		src := img.Pix[y*img.Stride : y*img.Stride+4*width]
		rgb(row[1:], src)
		if _, err := zw.Write(row); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(width))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(height))
	ihdr[8], ihdr[9] = 8, 2 // 8 bits per sample, colour type RGB; compression, filter method, interlace 0
	if _, err := io.WriteString(w, "\x89PNG\r\n\x1a\n"); err != nil {
		return err
	}
	for _, c := range []struct {
		typ  string
		data []byte
	}{{"IHDR", ihdr[:]}, {"IDAT", z.Bytes()}, {"IEND", nil}} {
		if err := writeChunk(w, c.typ, c.data); err != nil {
			return err
		}
	}
	return nil
}

// rgb copies the RGBA pixels of src into dst as RGB, four pixels (two
// words in, a word and a half out) at a time.
func rgb(dst, src []byte) {
	x := 0
	for ; x+16 <= len(src); x += 16 {
		p, q := binary.LittleEndian.Uint64(src[x:]), binary.LittleEndian.Uint64(src[x+8:])
		d := dst[x/4*3 : x/4*3+12]
		binary.LittleEndian.PutUint64(d, p&0xffffff|p>>32&0xffffff<<24|q&0xffff<<48)
		binary.LittleEndian.PutUint32(d[8:], uint32(q>>16&0xff|q>>32&0xffffff<<8))
	}
	for ; x < len(src); x += 4 {
		copy(dst[x/4*3:x/4*3+3], src[x:x+3])
	}
}

// writeChunk writes a PNG chunk: length, type, data and the CRC of type
// and data.
func writeChunk(w io.Writer, typ string, data []byte) error {
	var head [8]byte
	binary.BigEndian.PutUint32(head[:4], uint32(len(data)))
	copy(head[4:], typ)
	crc := crc32.NewIEEE()
	crc.Write(head[4:])
	crc.Write(data)
	if _, err := w.Write(head[:]); err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return err
	}
	_, err := w.Write(crc.Sum(nil))
	return err
}
