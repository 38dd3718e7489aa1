package digits

import (
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// MATLAB v5 data types (how an element is stored) and the range of numeric
// array classes (mxDOUBLE_CLASS … mxUINT64_CLASS).
const (
	miINT8       = 1
	miUINT8      = 2
	miINT16      = 3
	miUINT16     = 4
	miINT32      = 5
	miUINT32     = 6
	miSINGLE     = 7
	miDOUBLE     = 9
	miINT64      = 12
	miUINT64     = 13
	miMATRIX     = 14
	miCOMPRESSED = 15

	mxDOUBLE = 6
	mxUINT64 = 15
)

// miNumeric names the numeric data types and gives their sizes in bytes.
var miNumeric = map[uint32]struct {
	name string
	size int
}{
	miINT8: {"miINT8", 1}, miUINT8: {"miUINT8", 1}, miINT16: {"miINT16", 2}, miUINT16: {"miUINT16", 2},
	miINT32: {"miINT32", 4}, miUINT32: {"miUINT32", 4}, miSINGLE: {"miSINGLE", 4}, miDOUBLE: {"miDOUBLE", 8},
	miINT64: {"miINT64", 8}, miUINT64: {"miUINT64", 8},
}

func miName(typ uint32) string {
	if t, ok := miNumeric[typ]; ok {
		return t.name
	}
	return "type " + strconv.Itoa(int(typ))
}

const (
	svhnSide = 32
	// maxSVHNImages bounds the image count a file may claim: about twice
	// the largest real file (extra_32x32.mat, 531,131 images).
	maxSVHNImages = 1 << 20
	// maxMatDims and maxMatName bound the dimensions and name of an array.
	maxMatDims = 32
	maxMatName = 64
)

// ReadSVHN reads an SVHN cropped-digit file (train_32x32.mat,
// test_32x32.mat, extra_32x32.mat): a MATLAB v5 file, its elements raw or
// zlib-compressed, whose variable X holds the uint8 images as 32×32×3×N and
// y their labels as N×1, 1–10 with 10 for the digit 0. Labels come back as
// digits 0–9; other variables are skipped.
func ReadSVHN(path string) (*ColorImages, error) {
	return readPath(path, readSVHN)
}

// readSVHN reads an SVHN .mat file from r; errors name the file as path.
func readSVHN(r io.Reader, path string) (*ColorImages, error) {
	var h [128]byte
	if n, err := io.ReadFull(r, h[:]); err != nil {
		return nil, fmt.Errorf("%s: offset %d: truncated header (%d of 128 bytes)", path, n, n)
	}
	var order binary.ByteOrder
	switch string(h[126:]) {
	case "IM":
		order = binary.LittleEndian
	case "MI":
		order = binary.BigEndian
	default:
		return nil, fmt.Errorf("%s: offset 126: endian indicator %q, want \"IM\" or \"MI\" (not a MATLAB v5 file)", path, h[126:])
	}
	if v := order.Uint16(h[124:]); v != 0x0100 {
		return nil, fmt.Errorf("%s: offset 124: version %#04x, want 0x0100 (MATLAB v5; v7.3 files are HDF5)", path, v)
	}
	m := &matReader{r: r, off: int64(len(h)), order: order, path: path}
	var s svhn
	var zr io.ReadCloser // one decompressor, reset for each compressed element
	for {
		t, err := m.tag()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t.typ {
		case miMATRIX:
			_, err = s.variable(m, t)
			if err == nil {
				err = m.skip(t.next-m.off, "matrix")
			}
		case miCOMPRESSED:
			err = s.compressed(m, t, &zr)
		default:
			err = m.errorf(t.off, "unsupported element %s, want miMATRIX (14) or miCOMPRESSED (15)", miName(t.typ))
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case s.pixels == nil:
		return nil, m.errorf(m.off, "missing variable X")
	case s.labels == nil:
		return nil, m.errorf(m.off, "missing variable y")
	case len(s.labels) != s.n:
		return nil, m.errorf(m.off, "X holds %d images but y %d labels", s.n, len(s.labels))
	}
	return &ColorImages{N: s.n, H: svhnSide, W: svhnSide, Pixels: s.pixels, Labels: s.labels}, nil
}

// svhn collects the variables of an SVHN file.
type svhn struct {
	pixels []uint8 // X, per image channel-major with row-major planes
	n      int     // images in X
	labels []int   // y as digits 0–9
}

// compressed reads a miCOMPRESSED element: a zlib stream holding one
// miMATRIX. *zr is the decompressor, created on first use.
func (s *svhn) compressed(m *matReader, t matTag, zr *io.ReadCloser) error {
	if t.small != nil {
		return m.errorf(t.off, "miCOMPRESSED in the small element format")
	}
	lr := &io.LimitedReader{R: m.r, N: t.n}
	var err error
	if *zr == nil {
		*zr, err = zlib.NewReader(lr)
	} else {
		err = (*zr).(zlib.Resetter).Reset(lr, nil)
	}
	if err != nil {
		return m.errorf(t.data, "compressed element of %d bytes: %v", t.n, err)
	}
	in := &matReader{r: *zr, order: m.order, path: m.path, in: fmt.Sprintf("compressed element at offset %d: decompressed ", t.off)}
	it, err := in.tag()
	if err == io.EOF {
		return in.errorf(0, "empty stream, want a miMATRIX")
	}
	if err != nil {
		return err
	}
	if it.typ != miMATRIX || it.small != nil {
		return in.errorf(it.off, "element %s of %d bytes, want a miMATRIX", miName(it.typ), it.n)
	}
	kept, err := s.variable(in, it)
	if err != nil {
		return err
	}
	if kept {
		// The stream must end here; reaching its end checks its Adler-32.
		switch _, err := io.ReadFull(*zr, make([]byte, 1)); err {
		case io.EOF:
		case nil:
			return in.errorf(in.off, "data past the miMATRIX")
		default:
			return in.fail(err, "end of stream")
		}
	}
	_, err = io.Copy(io.Discard, lr)
	m.off += t.n - lr.N
	if err != nil {
		return m.fail(err, "compressed element")
	}
	if lr.N > 0 {
		return m.errorf(m.off, "truncated compressed element (%d of %d bytes)", t.n-lr.N, t.n)
	}
	return nil
}

// variable reads the miMATRIX element t from m up to the array name, and
// the array when it is X or y, reporting whether it was. It stops after the
// name of any other variable.
func (s *svhn) variable(m *matReader, t matTag) (bool, error) {
	if t.small != nil {
		return false, m.errorf(t.off, "miMATRIX in the small element format")
	}
	end := t.data + t.n
	ft, err := m.sub(end, "array flags")
	if err != nil {
		return false, err
	}
	if ft.typ != miUINT32 || ft.n != 8 {
		return false, m.errorf(ft.off, "array flags: %s of %d bytes, want miUINT32 of 8 bytes", miName(ft.typ), ft.n)
	}
	b, err := m.data(ft, "array flags")
	if err != nil {
		return false, err
	}
	flags := m.order.Uint32(b)
	dt, err := m.sub(end, "dimensions")
	if err != nil {
		return false, err
	}
	if dt.typ != miINT32 || dt.n%4 != 0 || dt.n < 8 || dt.n > 4*maxMatDims {
		return false, m.errorf(dt.off, "dimensions: %s of %d bytes, want miINT32, 2 to %d values", miName(dt.typ), dt.n, maxMatDims)
	}
	if b, err = m.data(dt, "dimensions"); err != nil {
		return false, err
	}
	dims := make([]int, len(b)/4)
	for i := range dims {
		if dims[i] = int(int32(m.order.Uint32(b[4*i:]))); dims[i] < 0 {
			return false, m.errorf(dt.data+int64(4*i), "negative dimension %d", dims[i])
		}
	}
	nt, err := m.sub(end, "array name")
	if err != nil {
		return false, err
	}
	if nt.typ != miINT8 || nt.n > maxMatName {
		return false, m.errorf(nt.off, "array name: %s of %d bytes, want miINT8 of at most %d", miName(nt.typ), nt.n, maxMatName)
	}
	if b, err = m.data(nt, "array name"); err != nil {
		return false, err
	}
	name := string(b)
	if name != "X" && name != "y" {
		return false, nil
	}
	if name == "X" && s.pixels != nil || name == "y" && s.labels != nil {
		return false, m.errorf(t.off, "second variable %s", name)
	}
	if class := flags & 0xff; class < mxDOUBLE || class > mxUINT64 {
		return false, m.errorf(ft.off, "%s: array class %d, want a numeric array (%d to %d)", name, class, mxDOUBLE, mxUINT64)
	}
	if flags&0x800 != 0 {
		return false, m.errorf(ft.off, "%s: complex array, want real", name)
	}
	if name == "X" {
		err = s.readX(m, dt.off, dims, end)
	} else {
		err = s.readY(m, dt.off, dims, end)
	}
	if err == nil && m.off != end {
		err = m.errorf(m.off, "%s: %d bytes past the real part", name, end-m.off)
	}
	return true, err
}

// readX reads the real part of X with the given dimensions (at dimsOff),
// uint8 32×32×3×N column-major, and stores it as CHW images.
func (s *svhn) readX(m *matReader, dimsOff int64, dims []int, end int64) error {
	if len(dims) == 3 {
		dims = append(dims, 1) // MATLAB drops a trailing singleton dimension
	}
	if len(dims) != 4 || dims[0] != svhnSide || dims[1] != svhnSide || dims[2] != 3 || dims[3] < 1 {
		return m.errorf(dimsOff, "X: dimensions %s, want 32×32×3×N with N ≥ 1", dimString(dims))
	}
	n := dims[3]
	if n > maxSVHNImages {
		return m.errorf(dimsOff, "X: %d images, more than %d", n, maxSVHNImages)
	}
	rt, err := m.sub(end, "X data")
	if err != nil {
		return err
	}
	if rt.typ != miUINT8 {
		return m.errorf(rt.off, "X: data stored as %s, want miUINT8", miName(rt.typ))
	}
	if want := int64(n) * 3 * svhnSide * svhnSide; rt.n != want {
		return m.errorf(rt.off, "X: %d data bytes, want %d for 32×32×3×%d", rt.n, want, n)
	}
	pix, err := m.data(rt, "X data")
	if err != nil {
		return err
	}
	// Element (r, c, ch, n) is at r + 32·(c + 32·(ch + 3·n)): each plane is
	// column-major, so transposing the planes in place gives CHW images.
	const p = svhnSide * svhnSide
	for off := 0; off < len(pix); off += p {
		q := pix[off : off+p]
		for r := range svhnSide {
			for c := r + 1; c < svhnSide; c++ {
				q[r*svhnSide+c], q[c*svhnSide+r] = q[c*svhnSide+r], q[r*svhnSide+c]
			}
		}
	}
	s.pixels, s.n = pix, n
	return nil
}

// readY reads the real part of y with the given dimensions (at dimsOff), a
// vector of N labels 1–10 in any numeric type, and stores them as digits.
func (s *svhn) readY(m *matReader, dimsOff int64, dims []int, end int64) error {
	if len(dims) != 2 || dims[0] != 1 && dims[1] != 1 {
		return m.errorf(dimsOff, "y: dimensions %s, want N×1", dimString(dims))
	}
	n := dims[0] * dims[1]
	if n < 1 || n > maxSVHNImages {
		return m.errorf(dimsOff, "y: %d labels, want 1 to %d", n, maxSVHNImages)
	}
	rt, err := m.sub(end, "y data")
	if err != nil {
		return err
	}
	typ, ok := miNumeric[rt.typ]
	if !ok {
		return m.errorf(rt.off, "y: data stored as %s, want a numeric type", miName(rt.typ))
	}
	if want := int64(n * typ.size); rt.n != want {
		return m.errorf(rt.off, "y: %d data bytes, want %d for %d values of %s", rt.n, want, n, typ.name)
	}
	b, err := m.data(rt, "y data")
	if err != nil {
		return err
	}
	labels := make([]int, n)
	for i := range labels {
		v := matValue(m.order, rt.typ, b[i*typ.size:])
		if v != math.Trunc(v) || v < 1 || v > 10 {
			return m.errorf(rt.data+int64(i*typ.size), "y: label %v (index %d) out of 1–10", v, i)
		}
		labels[i] = int(v) % 10
	}
	s.labels = labels
	return nil
}

// matValue decodes the first value of b, stored as the numeric type typ.
func matValue(order binary.ByteOrder, typ uint32, b []byte) float64 {
	switch typ {
	case miINT8:
		return float64(int8(b[0]))
	case miUINT8:
		return float64(b[0])
	case miINT16:
		return float64(int16(order.Uint16(b)))
	case miUINT16:
		return float64(order.Uint16(b))
	case miINT32:
		return float64(int32(order.Uint32(b)))
	case miUINT32:
		return float64(order.Uint32(b))
	case miSINGLE:
		return float64(math.Float32frombits(order.Uint32(b)))
	case miDOUBLE:
		return math.Float64frombits(order.Uint64(b))
	case miINT64:
		return float64(int64(order.Uint64(b)))
	default: // miUINT64
		return float64(order.Uint64(b))
	}
}

func dimString(dims []int) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = strconv.Itoa(d)
	}
	return strings.Join(s, "×")
}

// matReader reads the data elements of a MATLAB v5 stream, counting
// offsets for error messages.
type matReader struct {
	r     io.Reader
	off   int64 // offset of r's next byte
	order binary.ByteOrder
	path  string
	in    string // where r comes from, before "offset": empty for the file itself
}

// matTag is an element tag.
type matTag struct {
	off, data, next int64 // offsets of the tag, of its data and of the next element
	typ             uint32
	n               int64  // data bytes
	small           []byte // the data of a small element (at most 4 bytes), else nil
}

func (m *matReader) errorf(off int64, format string, a ...any) error {
	return fmt.Errorf("%s: %soffset %d: %s", m.path, m.in, off, fmt.Sprintf(format, a...))
}

// fail turns a read error into an error at the current offset.
func (m *matReader) fail(err error, what string) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return m.errorf(m.off, "truncated %s", what)
	}
	return m.errorf(m.off, "%s: %v", what, err)
}

// tag reads an element tag, in the full (8-byte) or small (4 bytes of tag,
// 4 of data) format. At the clean end of the stream it returns io.EOF.
func (m *matReader) tag() (matTag, error) {
	t := matTag{off: m.off}
	var b [8]byte
	n, err := io.ReadFull(m.r, b[:])
	m.off += int64(n)
	if err == io.EOF {
		return t, io.EOF
	}
	if err != nil {
		return t, m.fail(err, "element tag")
	}
	u := m.order.Uint32(b[:4])
	if k := u >> 16; k != 0 {
		if k > 4 {
			return t, m.errorf(t.off, "small element of %d bytes, at most 4", k)
		}
		t.typ, t.n, t.data, t.next, t.small = u&0xffff, int64(k), t.off+4, t.off+8, b[4:4+k]
		return t, nil
	}
	t.typ, t.n, t.data = u, int64(m.order.Uint32(b[4:])), t.off+8
	t.next = t.data + (t.n+7)&^7
	return t, nil
}

// sub reads the tag of a subelement, what, that must end before end.
func (m *matReader) sub(end int64, what string) (matTag, error) {
	t, err := m.tag()
	if err == io.EOF {
		return t, m.errorf(m.off, "truncated %s", what)
	}
	if err == nil && t.next > end {
		err = m.errorf(t.off, "%s of %d bytes extends past its matrix, which ends at offset %d", what, t.n, end)
	}
	return t, err
}

// data reads the data of element t, what, and skips its padding. The caller
// has bounded t.n; the buffer grows only with the data present.
func (m *matReader) data(t matTag, what string) ([]byte, error) {
	if t.small != nil {
		return t.small, nil
	}
	b, err := readUpTo(m.r, t.n)
	m.off += int64(len(b))
	if err != nil {
		return nil, m.fail(err, what)
	}
	if int64(len(b)) < t.n {
		return nil, m.errorf(m.off, "truncated %s (%d of %d bytes)", what, len(b), t.n)
	}
	return b, m.skip(t.next-m.off, what+" padding")
}

// skip discards n bytes.
func (m *matReader) skip(n int64, what string) error {
	k, err := io.CopyN(io.Discard, m.r, n)
	m.off += k
	if err != nil {
		return m.fail(err, what)
	}
	return nil
}
