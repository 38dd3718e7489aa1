package arrays

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// MaxValues is the most values a file may hold; larger files are refused
// before anything is allocated for them (the default, 2²⁸, is 2 GiB of
// float64).
var MaxValues int64 = 1 << 28

// Matrix is a matrix read from a file, row-major, with notes on what was
// detected on the way (an index column dropped, the array picked from a
// .npz archive).
type Matrix struct {
	Data       []float64
	Rows, Cols int
	Notes      []string
}

// Read reads a matrix by the file's extension: .npy as NumPy, .npz (or
// "file.npz:name") as a NumPy archive, anything else as CSV. A 1-D array has
// one column.
func Read(path string) (data []float64, rows, cols int, err error) {
	m, err := Load(path)
	return m.Data, m.Rows, m.Cols, err
}

// Load is Read with notes: a CSV's index column (a header whose first field
// is empty, "index" or "Unnamed: 0", or a first column counting 0, 1, 2, …
// from the first row of at least three) is dropped, and the array picked
// from a .npz archive is named. A .npz path may end in ":name" to pick the
// array name(.npy); without it the archive must hold one array.
func Load(path string) (Matrix, error) {
	if file, name, ok := npzPath(path); ok {
		return loadNPZ(file, name)
	}
	if !strings.EqualFold(filepath.Ext(path), ".npy") {
		return loadCSV(path)
	}
	data, shape, err := ReadNPY(path)
	if err != nil {
		return Matrix{}, err
	}
	return matrixOf(path, data, shape)
}

// matrixOf checks that shape has 1 or 2 dimensions.
func matrixOf(path string, data []float64, shape []int) (Matrix, error) {
	switch len(shape) {
	case 1:
		return Matrix{Data: data, Rows: shape[0], Cols: 1}, nil
	case 2:
		return Matrix{Data: data, Rows: shape[0], Cols: shape[1]}, nil
	}
	return Matrix{}, fmt.Errorf("%s: array of shape %v, want 1 or 2 dimensions", path, shape)
}

// ReadCSV reads a numeric CSV file into row-major data. A first row that
// does not parse as numbers is taken as a header; every other row must have
// as many numeric fields as the first data row.
func ReadCSV(path string) (data []float64, rows, cols int, err error) {
	m, _, err := readCSV(path)
	return m.Data, m.Rows, m.Cols, err
}

// loadCSV is ReadCSV dropping an index column (see Load).
func loadCSV(path string) (Matrix, error) {
	m, header, err := readCSV(path)
	if err != nil || m.Cols < 2 {
		return m, err
	}
	counts := m.Rows >= 3 || header != nil
	for i := 0; i < m.Rows && counts; i++ {
		counts = m.Data[i*m.Cols] == float64(i)
	}
	named := header != nil && slices.Contains([]string{"", "index", "unnamed: 0"}, strings.ToLower(strings.TrimSpace(header[0])))
	if !counts || (header != nil && !named) {
		return m, nil
	}
	out := make([]float64, 0, m.Rows*(m.Cols-1))
	for i := range m.Rows {
		out = append(out, m.Data[i*m.Cols+1:(i+1)*m.Cols]...)
	}
	m.Data, m.Cols = out, m.Cols-1
	m.Notes = append(m.Notes, fmt.Sprintf("%s: first column counts the rows 0, 1, 2, …: dropped as an index column", path))
	return m, nil
}

// readCSV reads a numeric CSV file and its header row, if any.
func readCSV(path string) (m Matrix, header []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return m, nil, err
	}
	defer f.Close()
	var head [4]byte
	if n, _ := io.ReadFull(f, head[:]); bytes.HasPrefix(head[:n], []byte("PK\x03\x04")) || bytes.HasPrefix(head[:n], npyMagic[:4]) {
		return m, nil, fmt.Errorf("%s: a binary file (zip or .npy), not CSV: name it .npz or .npy", path)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return m, nil, err
	}
	r := csv.NewReader(bufio.NewReader(f))
	r.TrimLeadingSpace = true
	r.FieldsPerRecord = -1 // checked below, after the header
	r.ReuseRecord = true
	var data []float64
	rows, cols := 0, 0
	for first := true; ; first = false {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return m, nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		start := len(data)
		for i, s := range rec {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				if first {
					break // a header
				}
				return m, nil, fmt.Errorf("%s: line %d, column %d: %q is not a number", path, line, i+1, s)
			}
			data = append(data, v)
		}
		if len(data)-start != len(rec) {
			data = data[:start]
			header = slices.Clone(rec)
			continue
		}
		if rows == 0 {
			cols = len(rec)
		} else if len(rec) != cols {
			return m, nil, fmt.Errorf("%s: line %d: %d fields, want %d like the first row", path, line, len(rec), cols)
		}
		if int64(len(data)) > MaxValues {
			return m, nil, fmt.Errorf("%s: more than %d values (arrays.MaxValues)", path, MaxValues)
		}
		rows++
	}
	if rows == 0 {
		return m, nil, fmt.Errorf("%s: no numeric rows", path)
	}
	return Matrix{Data: data, Rows: rows, Cols: cols}, header, nil
}

// ReadLabels reads integer class labels: one per row of a one-column CSV or
// text file (optionally with a header), or a 1-D (or one-column) .npy array.
func ReadLabels(path string) ([]int, error) {
	data, _, cols, err := Read(path)
	if err != nil {
		return nil, err
	}
	if cols != 1 {
		return nil, fmt.Errorf("%s: labels must be one column, found %d", path, cols)
	}
	out := make([]int, len(data))
	for i, v := range data {
		if v != math.Trunc(v) || math.Abs(v) > math.MaxInt32 {
			return nil, fmt.Errorf("%s: label %d (row %d) = %v is not an integer", path, i, i+1, v)
		}
		out[i] = int(v)
	}
	return out, nil
}

// npyMagic starts every .npy file.
var npyMagic = []byte("\x93NUMPY")

// ReadNPY reads a NumPy .npy file (format versions 1.0, 2.0 and 3.0) of
// float16, float32, float64, signed or unsigned 8- to 64-bit integers or booleans in
// either byte order and either memory order; values come back as float64 in
// row-major (C) order, with the array's shape. The header must be the
// dictionary NumPy writes, with exactly the keys descr, fortran_order and
// shape; object and structured arrays are rejected, and the data must fill
// the rest of the file exactly.
func ReadNPY(path string) (data []float64, shape []int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	return decodeNPY(f, st.Size(), st.Size(), path)
}

// decodeNPY reads a .npy stream of exactly size bytes, of which held are
// known to exist (a file's size, a stored archive member's; 0 for a
// deflated member, whose size is only promised); name labels errors.
func decodeNPY(f io.Reader, size, held int64, name string) (data []float64, shape []int, err error) {
	fail := func(off int64, format string, a ...any) error {
		return fmt.Errorf("%s: offset %d: %s", name, off, fmt.Sprintf(format, a...))
	}
	var pre [8]byte
	got, err := io.ReadFull(f, pre[:])
	switch {
	case got == 0:
		return nil, nil, fmt.Errorf("%s: the file is empty (0 bytes), not a .npy array", name)
	case !bytes.HasPrefix(pre[:got], npyMagic[:min(got, len(npyMagic))]):
		return nil, nil, fmt.Errorf("%s: not a .npy file: it starts with %q, a .npy file with %q", name, pre[:got], npyMagic)
	case err != nil:
		return nil, nil, fmt.Errorf("%s: truncated: %d bytes, shorter than a .npy file's 10-byte preamble", name, got)
	}
	h, off, start, err := readHeader(f, size, name, pre[:got])
	if err != nil {
		return nil, nil, err
	}
	decode, esize, err := decoder(h.descr)
	if err != nil {
		return nil, nil, fail(off, "%v", err)
	}
	n := int64(1)
	for _, v := range h.shape {
		if v > 0 && n > math.MaxInt64/v {
			return nil, nil, fail(off, "shape %v overflows", h.shape)
		}
		n *= v
		shape = append(shape, int(v))
	}
	body := size - start
	if n > body/esize {
		return nil, nil, fail(start, "truncated: shape %v of %s needs %d values (%d bytes), the file holds %d bytes of data", h.shape, h.descr, n, n*esize, body)
	}
	if body != n*esize {
		return nil, nil, fail(start+n*esize, "%d bytes after the data of shape %v", body-n*esize, h.shape)
	}
	if n > MaxValues {
		return nil, nil, fail(start, "shape %v holds %d values, more than the %d this reader accepts (arrays.MaxValues)", h.shape, n, MaxValues)
	}
	// Room for the values the stream is known to hold; beyond that (a
	// deflated .npz member may promise more than it holds) the data grow
	// as they arrive, doubling.
	data = make([]float64, 0, max(min(n, (held-start)/esize), min(n, 1<<16)))
	chunk := make([]byte, min(n*esize, 1<<20)/esize*esize)
	for i := int64(0); i < n; {
		m := min(int64(len(chunk))/esize, n-i)
		if _, err := io.ReadFull(f, chunk[:m*esize]); err != nil {
			return nil, nil, fail(start+i*esize, "reading the data: %v", err)
		}
		if int64(cap(data)) < i+m {
			data = append(make([]float64, 0, min(n, max(2*int64(cap(data)), i+m))), data...)
		}
		for j := range m {
			data = append(data, decode(chunk[j*esize:]))
		}
		i += m
	}
	if h.fortran && len(shape) > 1 {
		data = fortranToC(data, shape)
	}
	return data, shape, nil
}

// readHeader reads the header of a .npy stream of size bytes whose first
// bytes pre (the magic string and version) were read; it returns the
// header, its offset and the offset of the data.
func readHeader(f io.Reader, size int64, name string, pre []byte) (h npyHeader, off, start int64, err error) {
	fail := func(off int64, format string, a ...any) error {
		return fmt.Errorf("%s: offset %d: %s", name, off, fmt.Sprintf(format, a...))
	}
	var hlen int64
	switch {
	case pre[7] != 0:
		return h, 0, 0, fail(6, "unsupported format version %d.%d", pre[6], pre[7])
	case pre[6] == 1:
		var b [2]byte
		if _, err := io.ReadFull(f, b[:]); err != nil {
			return h, 0, 0, fail(8, "truncated header length")
		}
		hlen, off = int64(binary.LittleEndian.Uint16(b[:])), 10
	case pre[6] == 2 || pre[6] == 3:
		var b [4]byte
		if _, err := io.ReadFull(f, b[:]); err != nil {
			return h, 0, 0, fail(8, "truncated header length")
		}
		hlen, off = int64(binary.LittleEndian.Uint32(b[:])), 12
	default:
		return h, 0, 0, fail(6, "unsupported format version %d.%d", pre[6], pre[7])
	}
	if hlen > size-off {
		return h, 0, 0, fail(off, "header of %d bytes runs past the end of the %d-byte file", hlen, size)
	}
	header := make([]byte, hlen)
	if _, err := io.ReadFull(f, header); err != nil {
		return h, 0, 0, fail(off, "reading the header: %v", err)
	}
	h, err = parseHeader(string(header))
	if err != nil {
		text := strings.TrimSpace(string(header))
		if len(text) > 200 {
			text = text[:200] + "…"
		}
		return h, 0, 0, fail(off, "header %q: %v", text, err)
	}
	return h, off, off + hlen, nil
}

// npyHeader is the content of a .npy header dictionary.
type npyHeader struct {
	descr   string
	fortran bool
	shape   []int64
}

// parseHeader parses the Python dictionary literal of a .npy header, e.g.
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), } followed by
// space padding and a newline.
func parseHeader(h string) (npyHeader, error) {
	var res npyHeader
	if !strings.HasSuffix(h, "\n") {
		return res, errors.New("does not end in a newline")
	}
	p := &lexer{s: strings.TrimRight(h, " \n")}
	if !p.eat('{') {
		return res, errors.New("not a dictionary")
	}
	seen := map[string]bool{}
	for !p.eat('}') {
		key, err := p.str()
		if err != nil {
			return res, fmt.Errorf("key: %v", err)
		}
		if seen[key] {
			return res, fmt.Errorf("duplicate key %q", key)
		}
		seen[key] = true
		if !p.eat(':') {
			return res, fmt.Errorf("no ':' after key %q", key)
		}
		switch key {
		case "descr":
			if p.peek() == '[' {
				return res, errors.New("structured dtypes are not supported")
			}
			res.descr, err = p.str()
		case "fortran_order":
			res.fortran, err = p.boolean()
		case "shape":
			res.shape, err = p.tuple()
		default:
			return res, fmt.Errorf("unexpected key %q", key)
		}
		if err != nil {
			return res, fmt.Errorf("%s: %v", key, err)
		}
		if !p.eat(',') && p.peek() != '}' {
			return res, fmt.Errorf("no ',' or '}' after %s", key)
		}
	}
	if p.skip(); p.s != "" {
		return res, fmt.Errorf("text %q after the dictionary", p.s)
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return res, fmt.Errorf("no %s", k)
		}
	}
	return res, nil
}

// lexer consumes a Python literal from the front of s.
type lexer struct{ s string }

func (p *lexer) skip() { p.s = strings.TrimLeft(p.s, " \t") }

// peek returns the next non-blank byte, or 0 at the end.
func (p *lexer) peek() byte {
	if p.skip(); p.s == "" {
		return 0
	}
	return p.s[0]
}

// eat consumes c if it comes next.
func (p *lexer) eat(c byte) bool {
	if p.peek() != c || c == 0 {
		return false
	}
	p.s = p.s[1:]
	return true
}

// str consumes a quoted string without escapes.
func (p *lexer) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", errors.New("want a quoted string")
	}
	end := strings.IndexByte(p.s[1:], q)
	if end < 0 {
		return "", errors.New("unterminated string")
	}
	v := p.s[1 : end+1]
	if strings.ContainsRune(v, '\\') {
		return "", fmt.Errorf("escape in string %q", v)
	}
	p.s = p.s[end+2:]
	return v, nil
}

// boolean consumes True or False.
func (p *lexer) boolean() (bool, error) {
	p.skip()
	for _, w := range []string{"True", "False"} {
		if strings.HasPrefix(p.s, w) {
			p.s = p.s[len(w):]
			return w == "True", nil
		}
	}
	return false, errors.New("want True or False")
}

// tuple consumes a tuple of non-negative integers: (), (n,), (n, m), ...
func (p *lexer) tuple() ([]int64, error) {
	if !p.eat('(') {
		return nil, errors.New("want a tuple")
	}
	var dims []int64
	if p.eat(')') {
		return dims, nil
	}
	for {
		p.skip()
		digits := len(p.s) - len(strings.TrimLeft(p.s, "0123456789"))
		v, err := strconv.ParseInt(p.s[:digits], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("bad dimension at %q", p.s)
		}
		p.s = p.s[digits:]
		dims = append(dims, v)
		switch {
		case len(dims) > 1 && p.eat(')'):
			return dims, nil
		case len(dims) == 1 && p.peek() != ',':
			return nil, errors.New("a 1-tuple is written (n,)")
		case !p.eat(','):
			return nil, fmt.Errorf("want ',' or ')' at %q", p.s)
		case p.eat(')'):
			return dims, nil
		}
	}
}

// decoder returns the function that reads one element of a NumPy dtype
// string such as "<f8" and the element's size in bytes.
func decoder(descr string) (func([]byte) float64, int64, error) {
	if len(descr) < 2 || !strings.Contains("<>|=", descr[:1]) {
		return nil, 0, fmt.Errorf("unsupported dtype %q", descr)
	}
	order, kind := descr[0], descr[1]
	size, err := strconv.Atoi(descr[2:])
	if kind == 'O' {
		return nil, 0, fmt.Errorf("object arrays (dtype %q) are not supported", descr)
	}
	if err != nil || size < 1 {
		return nil, 0, fmt.Errorf("unsupported dtype %q", descr)
	}
	var bo binary.ByteOrder = binary.LittleEndian
	switch {
	case order == '>':
		bo = binary.BigEndian
	case size > 1 && order != '<':
		return nil, 0, fmt.Errorf("dtype %q: a %d-byte type needs byte order '<' or '>'", descr, size)
	}
	var dec func([]byte) float64
	switch string(kind) + strconv.Itoa(size) {
	case "f2":
		dec = func(b []byte) float64 { return float16(bo.Uint16(b)) }
	case "f4":
		dec = func(b []byte) float64 { return float64(math.Float32frombits(bo.Uint32(b))) }
	case "f8":
		dec = func(b []byte) float64 { return math.Float64frombits(bo.Uint64(b)) }
	case "b1":
		dec = func(b []byte) float64 { return float64(min(b[0], 1)) }
	case "i1":
		dec = func(b []byte) float64 { return float64(int8(b[0])) }
	case "u1":
		dec = func(b []byte) float64 { return float64(b[0]) }
	case "i2":
		dec = func(b []byte) float64 { return float64(int16(bo.Uint16(b))) }
	case "u2":
		dec = func(b []byte) float64 { return float64(bo.Uint16(b)) }
	case "i4":
		dec = func(b []byte) float64 { return float64(int32(bo.Uint32(b))) }
	case "u4":
		dec = func(b []byte) float64 { return float64(bo.Uint32(b)) }
	case "i8":
		dec = func(b []byte) float64 { return float64(int64(bo.Uint64(b))) }
	case "u8":
		dec = func(b []byte) float64 { return float64(bo.Uint64(b)) }
	default:
		return nil, 0, fmt.Errorf("unsupported dtype %q", descr)
	}
	return dec, int64(size), nil
}

// float16 decodes an IEEE 754 half-precision value.
func float16(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0: // zero or subnormal
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1024+frac, exp-25)
}

// fortranToC reorders column-major data of shape into row-major order.
func fortranToC(data []float64, shape []int) []float64 {
	out := make([]float64, len(data))
	idx := make([]int, len(shape)) // multi-index of the row-major position i
	for i := range out {
		off, stride := 0, 1
		for d := range shape {
			off += idx[d] * stride
			stride *= shape[d]
		}
		out[i] = data[off]
		for d := len(shape) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}
