package arrays

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// npyFile builds a .npy file of the given format version with a raw header
// dictionary, padded as NumPy pads it.
func npyFile(version byte, dict string, body []byte) []byte {
	pre := 10
	if version > 1 {
		pre = 12
	}
	h := dict
	for (pre+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	var b bytes.Buffer
	b.Write(npyMagic)
	b.Write([]byte{version, 0})
	if version == 1 {
		binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	} else {
		binary.Write(&b, binary.LittleEndian, uint32(len(h)))
	}
	b.WriteString(h)
	b.Write(body)
	return b.Bytes()
}

// npy builds a version-1.0 .npy file.
func npy(descr string, fortran bool, shape string, body []byte) []byte {
	fo := "False"
	if fortran {
		fo = "True"
	}
	return npyFile(1, fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }", descr, fo, shape), body)
}

func write(t testing.TB, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func encode(bo binary.ByteOrder, vals any) []byte {
	var b bytes.Buffer
	if err := binary.Write(&b, bo, vals); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func TestReadNPYTypes(t *testing.T) {
	want := []float64{1, -2, 3, 4, 5, -6}
	le, be := binary.LittleEndian, binary.BigEndian
	cases := []struct {
		descr string
		body  []byte
	}{
		{"<f8", encode(le, []float64{1, -2, 3, 4, 5, -6})},
		{">f8", encode(be, []float64{1, -2, 3, 4, 5, -6})},
		{"<f4", encode(le, []float32{1, -2, 3, 4, 5, -6})},
		{">f4", encode(be, []float32{1, -2, 3, 4, 5, -6})},
		{"<i4", encode(le, []int32{1, -2, 3, 4, 5, -6})},
		{">i4", encode(be, []int32{1, -2, 3, 4, 5, -6})},
		{"<i8", encode(le, []int64{1, -2, 3, 4, 5, -6})},
		{">i8", encode(be, []int64{1, -2, 3, 4, 5, -6})},
		{"|i1", []byte{1, 0xfe, 3, 4, 5, 0xfa}},
	}
	for _, c := range cases {
		data, shape, err := ReadNPY(write(t, "a.npy", npy(c.descr, false, "2, 3", c.body)))
		if err != nil {
			t.Fatalf("%s: %v", c.descr, err)
		}
		if !slices.Equal(shape, []int{2, 3}) || !slices.Equal(data, want) {
			t.Errorf("%s: shape %v data %v, want [2 3] %v", c.descr, shape, data, want)
		}
	}
	u8, _, err := ReadNPY(write(t, "u.npy", npy("|u1", false, "3,", []byte{0, 7, 255})))
	if err != nil || !slices.Equal(u8, []float64{0, 7, 255}) {
		t.Errorf("uint8: %v %v", u8, err)
	}
	bools, _, err := ReadNPY(write(t, "b.npy", npy("|b1", false, "3,", []byte{1, 0, 1})))
	if err != nil || !slices.Equal(bools, []float64{1, 0, 1}) {
		t.Errorf("bool: %v %v", bools, err)
	}
}

func TestReadNPYLayouts(t *testing.T) {
	le := binary.LittleEndian
	// Fortran order: [[1,2,3],[4,5,6]] is stored 1,4,2,5,3,6.
	data, shape, err := ReadNPY(write(t, "f.npy", npy("<f8", true, "2, 3", encode(le, []float64{1, 4, 2, 5, 3, 6}))))
	if err != nil || !slices.Equal(data, []float64{1, 2, 3, 4, 5, 6}) || !slices.Equal(shape, []int{2, 3}) {
		t.Errorf("fortran 2-D: %v %v %v", data, shape, err)
	}
	// 3-D: element (i,j,k) = 100i+10j+k stored with i fastest.
	var col []float64
	for k := range 4 {
		for j := range 3 {
			for i := range 2 {
				col = append(col, float64(100*i+10*j+k))
			}
		}
	}
	data, _, err = ReadNPY(write(t, "f3.npy", npy("<f8", true, "2, 3, 4", encode(le, col))))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		for j := range 3 {
			for k := range 4 {
				if got := data[(i*3+j)*4+k]; got != float64(100*i+10*j+k) {
					t.Fatalf("fortran 3-D: element (%d,%d,%d) = %v", i, j, k, got)
				}
			}
		}
	}
	// Versions 2.0 and 3.0 have a 4-byte header length; double quotes and
	// keys in any order are valid Python.
	for _, v := range []byte{2, 3} {
		b := npyFile(v, `{"shape": (2,), "fortran_order": False, "descr": "<i8"}`, encode(le, []int64{7, 8}))
		data, shape, err := ReadNPY(write(t, "v.npy", b))
		if err != nil || !slices.Equal(data, []float64{7, 8}) || !slices.Equal(shape, []int{2}) {
			t.Errorf("version %d: %v %v %v", v, data, shape, err)
		}
	}
	// A scalar has shape () and one value; an empty array none.
	data, shape, err = ReadNPY(write(t, "s.npy", npy("<f8", false, "", encode(le, []float64{2.5}))))
	if err != nil || len(shape) != 0 || !slices.Equal(data, []float64{2.5}) {
		t.Errorf("scalar: %v %v %v", data, shape, err)
	}
	data, shape, err = ReadNPY(write(t, "e.npy", npy("<f8", false, "0, 3", nil)))
	if err != nil || len(data) != 0 || !slices.Equal(shape, []int{0, 3}) {
		t.Errorf("empty: %v %v %v", data, shape, err)
	}
}

func TestReadNPYBadInput(t *testing.T) {
	good := npy("<f8", false, "2,", encode(binary.LittleEndian, []float64{1, 2}))
	dict := func(d string) []byte { return npyFile(1, d, make([]byte, 16)) }
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"magic":      {append([]byte("XNUMPY"), good[6:]...), `magic.npy: not a .npy file: it starts with "XNUMPY\x01\x00", a .npy file with "\x93NUMPY"`},
		"empty":      {nil, "empty.npy: the file is empty (0 bytes), not a .npy array"},
		"short":      {good[:4], "short.npy: truncated: 4 bytes, shorter than a .npy file's 10-byte preamble"},
		"truncated":  {good[:len(good)-3], "truncated: shape [2] of <f8 needs 2 values (16 bytes), the file holds 13 bytes of data"},
		"trailing":   {append(slices.Clone(good), 0), "1 bytes after the data"},
		"huge":       {npy("<f8", false, "1000000000000, 1000000", nil), "needs 1000000000000000000 values"},
		"overflow":   {npy("<f8", false, "9223372036854775807, 4", nil), "overflows"},
		"bigdim":     {npy("<f8", false, "99999999999999999999,", nil), "bad dimension"},
		"negative":   {npy("<f8", false, "-2,", nil), "bad dimension"},
		"noshape":    {dict("{'descr': '<f8', 'fortran_order': False}"), "no shape"},
		"extrakey":   {dict("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}"), `unexpected key "x"`},
		"duplicate":  {dict("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2,)}"), "duplicate key"},
		"onetuple":   {npy("<f8", false, "2", make([]byte, 16)), "1-tuple"},
		"garbage":    {dict("{'descr': '<f8', 'fortran_order': False, 'shape': (2,)} x"), "after the dictionary"},
		"fortran":    {dict("{'descr': '<f8', 'fortran_order': 0, 'shape': (2,)}"), "True or False"},
		"object":     {npy("|O", false, "2,", make([]byte, 16)), "object arrays"},
		"structured": {dict("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,)}"), "structured"},
		"float128":   {npy("<f16", false, "2,", make([]byte, 32)), "unsupported dtype"},
		"order":      {npy("|f8", false, "2,", make([]byte, 16)), "byte order"},
		"header":     {good[:12], "past the end"},
		"newline":    {bytes.Replace(good, []byte(" \n"), []byte("  "), 1), "newline"},
		"version":    {append(append([]byte{}, good[:6]...), append([]byte{9}, good[7:]...)...), "version 9.0"},
	} {
		_, _, err := ReadNPY(write(t, name+".npy", c.b))
		// Past the preamble, an error gives the offset where it is.
		preamble := name == "magic" || name == "empty" || name == "short"
		if err == nil || !strings.Contains(err.Error(), c.want) || !preamble && !strings.Contains(err.Error(), name+".npy: offset") {
			t.Errorf("%s: error %v, want one naming the file, the offset and %q", name, err, c.want)
		}
	}
}

func TestRead(t *testing.T) {
	le := binary.LittleEndian
	data, rows, cols, err := Read(write(t, "m.npy", npy("<f4", false, "2, 2", encode(le, []float32{0.25, 0.75, 1, 0}))))
	if err != nil || rows != 2 || cols != 2 || !slices.Equal(data, []float64{0.25, 0.75, 1, 0}) {
		t.Errorf("npy matrix: %v %d %d %v", data, rows, cols, err)
	}
	if _, _, _, err := Read(write(t, "c.npy", npy("<f4", false, "1, 1, 1", encode(le, []float32{1})))); err == nil || !strings.Contains(err.Error(), "dimensions") {
		t.Errorf("3-D array: error %v", err)
	}
}

func TestReadCSV(t *testing.T) {
	data, rows, cols, err := ReadCSV(write(t, "p.csv", []byte("a,b\n0.5, 0.5\n\n0.25,0.75\n")))
	if err != nil || rows != 2 || cols != 2 || !slices.Equal(data, []float64{0.5, 0.5, 0.25, 0.75}) {
		t.Errorf("with header: %v %d %d %v", data, rows, cols, err)
	}
	data, rows, cols, err = ReadCSV(write(t, "n.csv", []byte("1,2,3\n4,5,6\n")))
	if err != nil || rows != 2 || cols != 3 || !slices.Equal(data, []float64{1, 2, 3, 4, 5, 6}) {
		t.Errorf("no header: %v %d %d %v", data, rows, cols, err)
	}
	for name, c := range map[string]struct{ text, want string }{
		"bad.csv":    {"1,2\n\n3,x\n", "bad.csv: line 3, column 2: \"x\" is not a number"},
		"ragged.csv": {"p,q\n1,2\n3\n", "ragged.csv: line 3: 1 fields, want 2"},
		"twohdr.csv": {"p,q\nr,s\n", "twohdr.csv: line 2, column 1"},
		"none.csv":   {"p,q\n", "none.csv: no numeric rows"},
		"quote.csv":  {"1,\"2\n", "quote.csv"},
	} {
		if _, _, _, err := ReadCSV(write(t, name, []byte(c.text))); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
}

func TestReadLabels(t *testing.T) {
	labels, err := ReadLabels(write(t, "y.txt", []byte("2\n0\n1\n")))
	if err != nil || !slices.Equal(labels, []int{2, 0, 1}) {
		t.Errorf("txt: %v %v", labels, err)
	}
	labels, err = ReadLabels(write(t, "y.csv", []byte("label\n1\n1\n")))
	if err != nil || !slices.Equal(labels, []int{1, 1}) {
		t.Errorf("csv with header: %v %v", labels, err)
	}
	labels, err = ReadLabels(write(t, "y.npy", npy("<i8", false, "3,", encode(binary.LittleEndian, []int64{1, 0, 2}))))
	if err != nil || !slices.Equal(labels, []int{1, 0, 2}) {
		t.Errorf("npy: %v %v", labels, err)
	}
	labels, err = ReadLabels(write(t, "y1.npy", npy("|u1", false, "2, 1", []byte{3, 4})))
	if err != nil || !slices.Equal(labels, []int{3, 4}) {
		t.Errorf("npy column: %v %v", labels, err)
	}
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"frac.txt": {[]byte("1\n1.5\n"), "frac.txt: label 1 (row 2) = 1.5 is not an integer"},
		"nan.txt":  {[]byte("NaN\n"), "not an integer"},
		"two.csv":  {[]byte("1,2\n"), "two.csv: labels must be one column, found 2"},
		"wide.npy": {npy("<i8", false, "1, 2", make([]byte, 16)), "found 2"},
	} {
		if _, err := ReadLabels(write(t, name, c.b)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
}

// FuzzReadNPY checks that no input makes ReadNPY panic or return data that
// disagrees with its shape.
func FuzzReadNPY(f *testing.F) {
	f.Add(npy("<f8", false, "2,", encode(binary.LittleEndian, []float64{1, 2})))
	f.Add(npy(">f4", true, "2, 2", encode(binary.BigEndian, []float32{1, 2, 3, 4})))
	f.Add(npy("|u1", false, "3,", []byte{1, 2, 3}))
	f.Fuzz(func(t *testing.T, b []byte) {
		data, shape, err := ReadNPY(write(t, "f.npy", b))
		if err == nil {
			checkShape(t, data, shape)
		}
	})
}

func TestFloat16(t *testing.T) {
	// Bit patterns worked out by hand: sign, 5-bit exponent (bias 15), 10-bit fraction.
	for bits, want := range map[uint16]float64{
		0x3c00: 1, 0xc000: -2, 0x3800: 0.5, 0x3555: 1365.0 / 4096, 0x7bff: 65504,
		0x0001: 0x1p-24, 0x0000: 0, 0x7c00: math.Inf(1), 0xfc00: math.Inf(-1),
	} {
		if got := float16(bits); got != want {
			t.Errorf("float16(%#04x) = %v, want %v", bits, got, want)
		}
	}
	if !math.IsNaN(float16(0x7e00)) {
		t.Error("0x7e00 is NaN")
	}
	data, shape, err := ReadNPY(write(t, "h.npy", npy("<f2", true, "2, 2", encode(binary.LittleEndian, []uint16{0x3800, 0x3400, 0x3800, 0x3a00}))))
	// Fortran order: columns [.5 .25] and [.5 .75].
	if err != nil || !slices.Equal(shape, []int{2, 2}) || !slices.Equal(data, []float64{0.5, 0.5, 0.25, 0.75}) {
		t.Errorf("float16 Fortran: %v %v %v", data, shape, err)
	}
}

// npzFile builds a .npz archive of the named .npy members, deflated or stored.
func npzFile(t testing.TB, deflate bool, members map[string][]byte) []byte {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	names := slices.Sorted(maps.Keys(members))
	for _, name := range names {
		m := zip.Store
		if deflate {
			m = zip.Deflate
		}
		w, err := z.CreateHeader(&zip.FileHeader{Name: name + ".npy", Method: m})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(members[name])
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReadNPZ(t *testing.T) {
	le := binary.LittleEndian
	logits := npy("<f4", false, "2, 2", encode(le, []float32{1, -1, 0.5, 2}))
	labels := npy("<i8", false, "2,", encode(le, []int64{0, 1}))
	for _, deflate := range []bool{false, true} {
		p := write(t, "a.npz", npzFile(t, deflate, map[string][]byte{"logits": logits, "labels": labels}))
		data, rows, cols, err := Read(p + ":logits")
		if err != nil || rows != 2 || cols != 2 || !slices.Equal(data, []float64{1, -1, 0.5, 2}) {
			t.Errorf("deflate %v: logits %v %d %d %v", deflate, data, rows, cols, err)
		}
		if y, err := ReadLabels(p + ":labels"); err != nil || !slices.Equal(y, []int{0, 1}) {
			t.Errorf("deflate %v: labels %v %v", deflate, y, err)
		}
		if _, _, _, err := Read(p); err == nil || !strings.Contains(err.Error(), "2 arrays (labels, logits): pick one as "+p+":NAME") {
			t.Errorf("no name: %v", err)
		}
		if _, _, _, err := Read(p + ":probs"); err == nil || !strings.Contains(err.Error(), `no array "probs" (it has labels, logits)`) {
			t.Errorf("wrong name: %v", err)
		}
	}
	one := write(t, "one.npz", npzFile(t, true, map[string][]byte{"arr_0": labels}))
	m, err := Load(one)
	if err != nil || m.Rows != 2 || len(m.Notes) != 1 || !strings.Contains(m.Notes[0], `only array "arr_0"`) {
		t.Errorf("single array: %+v %v", m, err)
	}
	if _, _, _, err := Read(write(t, "bad.npz", []byte("not a zip"))); err == nil || !strings.Contains(err.Error(), "bad.npz: not a .npz") {
		t.Errorf("not a zip: %v", err)
	}
	// A .npz given a CSV name is recognised rather than parsed as text.
	if _, _, _, err := Read(write(t, "z.csv", npzFile(t, false, map[string][]byte{"a": labels}))); err == nil || !strings.Contains(err.Error(), "name it .npz") {
		t.Errorf("zip as CSV: %v", err)
	}
}

func TestMaxValues(t *testing.T) {
	old := MaxValues
	defer func() { MaxValues = old }()
	MaxValues = 3
	if _, _, err := ReadNPY(write(t, "big.npy", npy("<f8", false, "4,", make([]byte, 32)))); err == nil || !strings.Contains(err.Error(), "more than the 3") {
		t.Errorf("npy: %v", err)
	}
	if _, _, _, err := ReadCSV(write(t, "big.csv", []byte("1,2\n3,4\n"))); err == nil || !strings.Contains(err.Error(), "big.csv: more than 3 values") {
		t.Errorf("csv: %v", err)
	}
}

func TestLoadIndexColumn(t *testing.T) {
	for name, text := range map[string]string{
		"pandas.csv":  ",p0,p1\n0,0.25,0.75\n1,0.5,0.5\n",
		"named.csv":   "index,p0,p1\n0,0.25,0.75\n1,0.5,0.5\n",
		"unnamed.csv": "Unnamed: 0,p0,p1\n0,0.25,0.75\n1,0.5,0.5\n",
	} {
		m, err := Load(write(t, name, []byte(text)))
		if err != nil || m.Cols != 2 || !slices.Equal(m.Data, []float64{0.25, 0.75, 0.5, 0.5}) || len(m.Notes) != 1 {
			t.Errorf("%s: %+v %v", name, m, err)
		}
	}
	m, err := Load(write(t, "noheader.csv", []byte("0,0.1,0.9\n1,0.2,0.8\n2,0.3,0.7\n")))
	if err != nil || m.Cols != 2 || len(m.Notes) != 1 {
		t.Errorf("index without header: %+v %v", m, err)
	}
	// Kept: a named first column, or two rows without a header.
	for name, text := range map[string]string{"p.csv": "p0,p1\n0,1\n1,0\n", "two.csv": "0,1\n1,0\n"} {
		if m, err := Load(write(t, name, []byte(text))); err != nil || m.Cols != 2 || m.Notes != nil {
			t.Errorf("%s: %+v %v", name, m, err)
		}
	}
}

// FuzzReadNPZ checks that no archive makes ReadNPZ panic or return data that
// disagrees with its shape.
func FuzzReadNPZ(f *testing.F) {
	le := binary.LittleEndian
	f.Add(npzFile(f, true, map[string][]byte{"a": npy("<f2", false, "2,", encode(le, []uint16{0x3c00, 0}))}))
	f.Add(npzFile(f, false, map[string][]byte{"a": npy("<f8", true, "1, 2", encode(le, []float64{1, 2}))}))
	f.Fuzz(func(t *testing.T, b []byte) {
		data, shape, err := ReadNPZ(write(t, "f.npz", b), "")
		if err == nil {
			checkShape(t, data, shape)
		}
	})
}

// FuzzLoadCSV checks that no text makes Load panic or return data that
// disagrees with its rows and columns.
func FuzzLoadCSV(f *testing.F) {
	f.Add([]byte(",p0,p1\n0,0.25,0.75\n1,0.5,0.5\n"))
	f.Add([]byte("0,0.1,0.9\n1,0.2,0.8\n2,0.3,0.7\n"))
	f.Add([]byte("y\n1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Load(write(t, "f.csv", b))
		if err == nil && len(m.Data) != m.Rows*m.Cols {
			t.Fatalf("%d×%d for %d values", m.Rows, m.Cols, len(m.Data))
		}
	})
}

// checkShape fails when data do not hold the values shape promises.
func checkShape(t *testing.T, data []float64, shape []int) {
	n := 1
	for _, s := range shape {
		n *= s
	}
	if n != len(data) {
		t.Fatalf("shape %v for %d values", shape, len(data))
	}
}

func TestWriteNPYRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.npy")
	data := []float64{1, -2.5, 3, 0, 1e-300, math.Inf(1)}
	if err := WriteNPY(path, data, 2, 3); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// NumPy's np.save of a small float64 array: a 128-byte preamble (magic,
	// version 1.0, header length 118), then the values.
	if len(b) != 128+8*6 || string(b[:8]) != "\x93NUMPY\x01\x00" || b[8] != 118 || b[9] != 0 || b[127] != '\n' {
		t.Fatalf("preamble %q (%d bytes in all)", b[:min(len(b), 128)], len(b))
	}
	got, shape, err := ReadNPY(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(shape, []int{2, 3}) || !slices.Equal(got, data) {
		t.Errorf("read back %v %v, want [2 3] %v", shape, got, data)
	}
	if err := WriteNPY(path, data, 4, 2); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("6 values as (4, 2): error %v, want one naming the file", err)
	}
	// Over several of the encoder's 8,192-value chunks, ending mid-chunk.
	big := make([]float64, 3*8192+3)
	for i := range big {
		big[i] = float64(i) - 0.25
	}
	if err := WriteNPY(path, big, 3, len(big)/3); err != nil {
		t.Fatal(err)
	}
	if got, shape, err := ReadNPY(path); err != nil || !slices.Equal(shape, []int{3, len(big) / 3}) || !slices.Equal(got, big) {
		t.Errorf("%d values read back as %v (%d values, equal %v), %v", len(big), shape, len(got), slices.Equal(got, big), err)
	}
}

// npzMembers maps each member of a .npz archive to its bytes.
func npzMembers(t *testing.T, path string) map[string][]byte {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	out := map[string][]byte{}
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = b
	}
	return out
}

// WriteNPZ writes each array member byte for byte as numpy.savez does
// (testdata/savez.npz, made by make_savez.py).
func TestWriteNPZMatchesNumPy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.npz")
	err := WriteNPZ(path,
		Strings("paths", []string{"cat/a.jpg", "dög/ß.png", ""}),
		Float32s("f", []float32{1.5, -2, 0.25, 3e38}, 2, 2),
		Float64s("d", []float64{1e-300, math.Copysign(0, -1), 2.5}),
		Int64s("i", []int64{-3, 0, 1 << 40}))
	if err != nil {
		t.Fatal(err)
	}
	got, want := npzMembers(t, path), npzMembers(t, "testdata/savez.npz")
	for _, name := range []string{"paths.npy", "f.npy", "d.npy", "i.npy"} {
		if string(got[name]) != string(want[name]) {
			t.Errorf("%s: %q\nnumpy.savez: %q", name, got[name], want[name])
		}
	}
	if len(got) != 4 {
		t.Errorf("%d members, want 4", len(got))
	}
	// No strings: a '<U1' array of shape (0,), as NumPy writes np.array([], dtype='<U1').
	if err := WriteNPZ(path, Strings("none", nil)); err != nil {
		t.Fatal(err)
	}
	if s, err := ReadNPZStrings(path, "none"); err != nil || len(s) != 0 {
		t.Errorf("no strings: %q, %v", s, err)
	}
}

func TestReadNPZStrings(t *testing.T) {
	s, err := ReadNPZStrings("testdata/savez.npz", "paths")
	if err != nil || !slices.Equal(s, []string{"cat/a.jpg", "dög/ß.png", ""}) {
		t.Errorf("paths: %q, %v", s, err)
	}
	if s, err := ReadNPZStrings("testdata/savez.npz", "big"); err != nil || !slices.Equal(s, []string{"xy", "z"}) {
		t.Errorf("big-endian: %q, %v", s, err)
	}
	if _, err := ReadNPZStrings("testdata/savez.npz", "f"); err == nil || !strings.Contains(err.Error(), `savez.npz:f: offset 10: dtype "<f4", want strings`) {
		t.Errorf("numbers as strings: %v", err)
	}
	if _, err := ReadNPZStrings("testdata/savez.npz", "nope"); err == nil || !strings.Contains(err.Error(), `no array "nope"`) {
		t.Errorf("missing: %v", err)
	}
	// The numbers read back as numbers.
	if d, shape, err := ReadNPZ("testdata/savez.npz", "i"); err != nil || !slices.Equal(shape, []int{3}) || !slices.Equal(d, []float64{-3, 0, 1 << 40}) {
		t.Errorf("i: %v %v %v", d, shape, err)
	}
	// A header promising more strings than the member holds is refused
	// before anything is allocated for them.
	dir := t.TempDir()
	forged := npy("<U4", false, "1000000000000,", make([]byte, 16))
	p := filepath.Join(dir, "forged.npz")
	if err := os.WriteFile(p, npzFile(t, false, map[string][]byte{"paths": forged}), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadNPZStrings(p, "paths"); err == nil || !strings.Contains(err.Error(), "the array holds 16 bytes") {
		t.Errorf("forged count: %v", err)
	}
	// Strings of 10⁹ code points each are refused before a row is
	// allocated.
	wide := npy("<U1000000000", false, "1,", make([]byte, 16))
	if err := os.WriteFile(p, npzFile(t, false, map[string][]byte{"paths": wide}), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadNPZStrings(p, "paths"); err == nil || !strings.Contains(err.Error(), "strings of 1000000000 code points, more than") {
		t.Errorf("forged width: %v", err)
	}
}

func TestWriteNPZBadInput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.npz")
	for _, c := range []struct {
		arrays []Array
		want   string
	}{
		{[]Array{Float32s("a", []float32{1, 2, 3}, 2, 2)}, `array "a": 3 values for shape [2 2]`},
		{[]Array{Float32s("a", nil), Int64s("a", nil)}, `two arrays named "a"`},
		{[]Array{Float32s("a/b", nil)}, `array name "a/b"`},
		{[]Array{{Name: "z"}}, `array "z": made without`},
	} {
		if err := WriteNPZ(path, c.arrays...); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("error %v, want one naming %s with %q", err, path, c.want)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a refused write left %s: %v", path, err)
	}
}
