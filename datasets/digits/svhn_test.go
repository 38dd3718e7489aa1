package digits

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// matOrder is a byte order of a MATLAB file: little- or big-endian.
type matOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// matVar is a MATLAB array for encodeMat: its name, class, dimensions and
// real part, data stored as type typ (already in the file's byte order).
type matVar struct {
	name     string
	class    uint32 // with flag bits above the low byte
	dims     []int32
	typ      uint32
	data     []byte
	compress bool
}

// matElement encodes a data element: in the small format when small and the
// data take 1 to 4 bytes, else a full tag and the data padded to 8 bytes.
func matElement(o matOrder, typ uint32, data []byte, small bool) []byte {
	if small && len(data) > 0 && len(data) <= 4 {
		b := o.AppendUint32(nil, uint32(len(data))<<16|typ)
		return append(append(b, data...), make([]byte, 4-len(data))...)
	}
	b := o.AppendUint32(o.AppendUint32(nil, typ), uint32(len(data)))
	return append(append(b, data...), make([]byte, (8-len(data)%8)%8)...)
}

// compressElement wraps an encoded element in a miCOMPRESSED element.
func compressElement(o matOrder, elem []byte) []byte {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(elem)
	w.Close()
	return append(o.AppendUint32(o.AppendUint32(nil, miCOMPRESSED), uint32(z.Len())), z.Bytes()...)
}

func (v matVar) encode(o matOrder) []byte {
	var dims []byte
	for _, d := range v.dims {
		dims = o.AppendUint32(dims, uint32(d))
	}
	var body []byte
	body = append(body, matElement(o, miUINT32, o.AppendUint32(o.AppendUint32(nil, v.class), 0), false)...)
	body = append(body, matElement(o, miINT32, dims, false)...)
	body = append(body, matElement(o, miINT8, []byte(v.name), true)...)
	body = append(body, matElement(o, v.typ, v.data, true)...)
	mat := matElement(o, miMATRIX, body, false)
	if v.compress {
		return compressElement(o, mat)
	}
	return mat
}

// matHeader is the 128-byte header of a MATLAB v5 file in byte order o.
func matHeader(o matOrder) []byte {
	h := []byte(strings.Repeat(" ", 116))
	copy(h, "MATLAB 5.0 MAT-file, Platform: test")
	h = append(h, make([]byte, 8)...) // subsystem data offset
	h = o.AppendUint16(h, 0x0100)
	return o.AppendUint16(h, 'M'<<8|'I')
}

// encodeMat encodes a MATLAB v5 file holding vars.
func encodeMat(o matOrder, vars ...matVar) []byte {
	b := matHeader(o)
	for _, v := range vars {
		b = append(b, v.encode(o)...)
	}
	return b
}

// svhnX is the variable X for n CHW images: column-major 32×32×3×n uint8.
func svhnX(pix []uint8, n int, compress bool) matVar {
	data := make([]byte, n*3072)
	for i := range n {
		for ch := range 3 {
			for r := range 32 {
				for c := range 32 {
					data[r+32*(c+32*(ch+3*i))] = pix[i*3072+ch*1024+r*32+c]
				}
			}
		}
	}
	return matVar{name: "X", class: 9, dims: []int32{32, 32, 3, int32(n)}, typ: miUINT8, data: data, compress: compress}
}

// svhnY is the variable y, N×1 of class double, for the given values stored
// as typ.
func svhnY(o matOrder, values []float64, typ uint32, compress bool) matVar {
	var data []byte
	for _, v := range values {
		switch typ {
		case miUINT8:
			data = append(data, uint8(v))
		case miINT16:
			data = o.AppendUint16(data, uint16(int16(v)))
		case miSINGLE:
			data = o.AppendUint32(data, math.Float32bits(float32(v)))
		case miDOUBLE:
			data = o.AppendUint64(data, math.Float64bits(v))
		default:
			panic("svhnY: type not encoded")
		}
	}
	return matVar{name: "y", class: 6, dims: []int32{int32(len(values)), 1}, typ: typ, data: data, compress: compress}
}

// svhnSample returns n random CHW images, their digits and SVHN labels.
func svhnSample(n int, seed uint64) (pix []uint8, digits []int, labels []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	pix = make([]uint8, n*3072)
	for i := range pix {
		pix[i] = uint8(rng.IntN(256))
	}
	for i := range n {
		d := i % 10
		digits = append(digits, d)
		if d == 0 {
			d = 10
		}
		labels = append(labels, float64(d))
	}
	return pix, digits, labels
}

func TestReadSVHN(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	pix, digits, labels := svhnSample(12, 1)
	other := matVar{name: "meta", class: 4, dims: []int32{1, 3}, typ: miUINT16, data: []byte{0, 'a', 0, 'b', 0, 'c'}}
	cases := map[string]struct {
		file []byte
		n    int
	}{
		"compressed, double labels":              {encodeMat(le, svhnX(pix, 12, true), svhnY(le, labels, miDOUBLE, true)), 12},
		"big-endian, raw, uint8 labels":          {encodeMat(be, svhnX(pix, 12, false), svhnY(be, labels, miUINT8, false)), 12},
		"y first, other variables, int16 labels": {encodeMat(le, other, svhnY(le, labels, miINT16, false), withCompress(other, true), svhnX(pix, 12, true)), 12},
		"single labels as 1×N":                   {encodeMat(be, svhnX(pix, 12, true), transposed(svhnY(be, labels, miSINGLE, true))), 12},
		// One image: MATLAB drops the trailing singleton dimension of X,
		// and a uint8 label fits a small element.
		"one image": {encodeMat(le, oneImage(svhnX(pix, 1, true)), svhnY(le, labels[:1], miUINT8, true)), 1},
	}
	for name, c := range cases {
		got, err := readSVHN(bytes.NewReader(c.file), "t.mat")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got.N != c.n || got.H != 32 || got.W != 32 || !bytes.Equal(got.Pixels, pix[:c.n*3072]) || !equalInts(got.Labels, digits[:c.n]) {
			t.Errorf("%s: %d images %d×%d, labels %v: not what was written", name, got.N, got.H, got.W, got.Labels)
		}
	}
	// Through a file, and one pixel checked against the layout itself: (row
	// 1, column 2, channel 2, image 1) is file byte 1 + 32·(2 + 32·(2 + 3)).
	x := svhnX(pix, 12, false)
	x.data[1+32*(2+32*(2+3))] = 77
	p := write(t, t.TempDir(), "x.mat", encodeMat(le, x, svhnY(le, labels, miDOUBLE, true)))
	got, err := ReadSVHN(p)
	if err != nil {
		t.Fatal(err)
	}
	if v := got.Pixels[3072+2*1024+1*32+2]; v != 77 {
		t.Errorf("pixel (r1, c2, ch2, n1) = %d, want 77", v)
	}
}

func withCompress(v matVar, c bool) matVar { v.compress = c; return v }

func transposed(v matVar) matVar { v.dims = []int32{v.dims[1], v.dims[0]}; return v }

func oneImage(v matVar) matVar { v.dims = v.dims[:3]; return v }

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestReadSVHNBadInput(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	pix, _, labels := svhnSample(2, 2)
	x, y := svhnX(pix, 2, true), svhnY(le, labels, miDOUBLE, true)
	good := encodeMat(le, x, y)
	raw := encodeMat(le, withCompress(x, false), withCompress(y, false))
	header := func(version uint16, endian string) []byte {
		h := matHeader(le)
		le.PutUint16(h[124:], version)
		copy(h[126:], endian)
		return append(h, good[128:]...)
	}
	set := func(v matVar, f func(*matVar)) matVar { f(&v); return v }
	// A compressed miMATRIX followed by stray bytes inside its stream.
	past := func() []byte {
		b := withCompress(y, false).encode(le)
		return append(matHeader(le), append(x.encode(le), compressElement(le, append(b, 1, 2, 3))...)...)
	}
	// The label element claims more bytes than its matrix holds.
	overrun := func() []byte {
		b := withCompress(y, false).encode(le)
		le.PutUint32(b[len(b)-16-4:], 64)
		return append(append(matHeader(le), x.encode(le)...), b...)
	}
	corrupt := func(b []byte, at int) []byte { b = bytes.Clone(b); b[at] ^= 0xff; return b }
	cases := map[string]struct {
		file []byte
		want string
	}{
		"short header":    {good[:100], "offset 100: truncated header"},
		"endian":          {header(0x0100, "XY"), `offset 126: endian indicator "XY"`},
		"version":         {header(0x0200, "IM"), "offset 124: version 0x0200"},
		"version order":   {append(matHeader(be)[:124], 0x00, 0x01, 'M', 'I'), "offset 124: version 0x0001"},
		"cut compressed":  {good[:len(good)-40], "truncated"},
		"cut raw":         {raw[:1000], "offset 1000: truncated X data"},
		"cut tag":         {good[:len(good)-len(y.encode(le))+5], "truncated element tag"},
		"element type":    {append(matHeader(le), matElement(le, miDOUBLE, make([]byte, 8), false)...), "offset 128: unsupported element miDOUBLE"},
		"small tag":       {append(matHeader(le), 0, 0, 5, 0, 1, 2, 3, 4), "offset 128: small element of 5 bytes"},
		"X type":          {encodeMat(le, set(x, func(v *matVar) { v.typ = miINT8 }), y), "X: data stored as miINT8, want miUINT8"},
		"X class":         {encodeMat(le, set(x, func(v *matVar) { v.class = 4 }), y), "X: array class 4"},
		"X complex":       {encodeMat(le, set(x, func(v *matVar) { v.class = 9 | 0x800 }), y), "X: complex array"},
		"X grey":          {encodeMat(le, set(x, func(v *matVar) { v.dims = []int32{32, 32, 1, 6} }), y), "X: dimensions 32×32×1×6, want 32×32×3×N"},
		"X size":          {encodeMat(le, set(x, func(v *matVar) { v.dims = []int32{28, 28, 3, 2} }), y), "X: dimensions 28×28×3×2"},
		"X empty":         {encodeMat(le, set(x, func(v *matVar) { v.dims = []int32{32, 32, 3, 0} }), y), "with N ≥ 1"},
		"X negative":      {encodeMat(le, set(x, func(v *matVar) { v.dims = []int32{32, 32, 3, -2} }), y), "negative dimension -2"},
		"X huge":          {encodeMat(le, set(x, func(v *matVar) { v.dims = []int32{32, 32, 3, 1 << 30} }), y), "X: 1073741824 images, more than 1048576"},
		"X bytes":         {encodeMat(le, set(x, func(v *matVar) { v.dims = []int32{32, 32, 3, 3} }), y), "X: 6144 data bytes, want 9216 for 32×32×3×3"},
		"y range":         {encodeMat(le, x, svhnY(le, []float64{3, 11}, miDOUBLE, true)), "y: label 11 (index 1) out of 1–10"},
		"y zero":          {encodeMat(le, x, svhnY(le, []float64{0, 1}, miUINT8, false)), "y: label 0 (index 0) out of 1–10"},
		"y fraction":      {encodeMat(le, x, svhnY(le, []float64{2.5, 1}, miDOUBLE, false)), "y: label 2.5 (index 0)"},
		"y NaN":           {encodeMat(le, x, svhnY(le, []float64{1, math.NaN()}, miDOUBLE, false)), "y: label NaN (index 1)"},
		"y negative":      {encodeMat(le, x, svhnY(le, []float64{-3, 1}, miINT16, false)), "y: label -3"},
		"y type":          {encodeMat(le, x, set(y, func(v *matVar) { v.typ = 16 })), "y: data stored as type 16, want a numeric type"},
		"y matrix":        {encodeMat(le, x, set(y, func(v *matVar) { v.dims = []int32{1, 1, 2} })), "y: dimensions 1×1×2, want N×1"},
		"y bytes":         {encodeMat(le, x, set(y, func(v *matVar) { v.data = v.data[:12] })), "y: 12 data bytes, want 16 for 2 values of miDOUBLE"},
		"count":           {encodeMat(le, x, svhnY(le, []float64{1, 2, 3}, miDOUBLE, true)), "X holds 2 images but y 3 labels"},
		"no X":            {encodeMat(le, y), "missing variable X"},
		"no y":            {encodeMat(le, x, set(y, func(v *matVar) { v.name = "z" })), "missing variable y"},
		"two X":           {encodeMat(le, x, y, x), "second variable X"},
		"stray bytes":     {past(), "data past the miMATRIX"},
		"overrun":         {overrun(), "y data of 64 bytes extends past its matrix"},
		"zlib header":     {corrupt(good, 136), "offset 136: compressed element of"},
		"checksum":        {corrupt(good, 128+len(x.encode(le))-1), "checksum"},
		"compressed type": {append(matHeader(le), compressElement(le, matElement(le, miDOUBLE, make([]byte, 8), false))...), "want a miMATRIX"},
	}
	for name, c := range cases {
		_, err := readSVHN(bytes.NewReader(c.file), "bad.mat")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "bad.mat: ") || !strings.Contains(err.Error(), "offset") {
			t.Errorf("%s: error %v, want one naming bad.mat, an offset and %q", name, err, c.want)
		}
	}
	// Every cut of a valid file is an error, none a panic.
	for _, b := range [][]byte{good, raw} {
		for n := range len(b) {
			if _, err := readSVHN(bytes.NewReader(b[:n]), "cut.mat"); err == nil {
				t.Fatalf("file cut to %d of %d bytes accepted", n, len(b))
			}
		}
	}
}

// A header may claim the real file sizes, but a file that does not hold
// the data costs no more memory than it holds.
func TestReadSVHNForgedSize(t *testing.T) {
	le := binary.LittleEndian
	const n = 900_000 // 2.8 GB of pixels claimed
	forged := func(compress bool) []byte {
		x := svhnX(make([]byte, 3072), 1, false)
		b := x.encode(le)
		// Claim n images in the dimensions, the real part and the matrix.
		le.PutUint32(b[8+16+8+12:], n)
		le.PutUint32(b[len(b)-3072-4:], n*3072)
		le.PutUint32(b[4:], uint32(len(b)-8-3072+n*3072))
		if compress {
			b = compressElement(le, b)
		}
		return append(matHeader(le), b...)
	}
	for _, compress := range []bool{false, true} {
		var err error
		if a := allocated(func() { _, err = readSVHN(bytes.NewReader(forged(compress)), "forged.mat") }); a > 1<<20 {
			t.Errorf("compressed %v: allocated %d bytes", compress, a)
		}
		if err == nil || !strings.Contains(err.Error(), "truncated X data") {
			t.Errorf("compressed %v: error %v, want truncated X data", compress, err)
		}
	}
}

func TestColorInput(t *testing.T) {
	// Three channels keep their own values; at the same size the input is
	// the pixels scaled to [0, 1].
	im := &ColorImages{N: 2, H: 1, W: 2, Pixels: []uint8{0, 255, 51, 102, 1, 2, 3, 4, 5, 6, 7, 8}, Labels: []int{1, 2}}
	x, err := ColorInput(im, 1)
	if err != nil {
		t.Fatal(err)
	}
	// 1×2 → 1×1 samples column 0.5: the mean of the two.
	want := []float32{127.5, 76.5, 1.5, 3.5, 5.5, 7.5}
	for i, v := range x.Data() {
		if math.Abs(float64(v)-float64(want[i])/255) > 1e-6 {
			t.Fatalf("input %v, want %v/255", x.Data(), want)
		}
	}
	if s := x.Shape(); len(s) != 4 || s[0] != 2 || s[1] != 3 || s[2] != 1 || s[3] != 1 {
		t.Errorf("shape %v", s)
	}
	// A grey image as colour gives what Input gives.
	grey := &Images{N: 1, H: 3, W: 5, Pixels: []uint8{9, 80, 3, 200, 14, 0, 255, 7, 66, 1, 2, 3, 4, 5, 6}, Labels: []int{0}}
	col := &ColorImages{N: 1, H: 3, W: 5, Pixels: bytes.Repeat(grey.Pixels, 3), Labels: []int{0}}
	a, _ := Input(grey, 7)
	b, err := ColorInput(col, 7)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range a.Data() {
		if b.Data()[i] != v {
			t.Fatalf("value %d: colour %v, grey %v", i, b.Data()[i], v)
		}
	}
	if _, err := ColorInput(&ColorImages{N: 1, H: 2, W: 2, Pixels: make([]uint8, 4)}, 4); err == nil {
		t.Error("one plane of pixels accepted as colour")
	}
}
