// Package arrays reads numeric matrices from CSV and NumPy .npy files, such
// as the predictions and labels that "ecl eval" evaluates. Readers check
// every size against the file before allocating, and errors name the file
// and the problem.
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
	"regexp"
	"strconv"
	"strings"
)

// Read reads a matrix by the file's extension: .npy as NumPy, anything else
// as CSV. A 1-D array has one column.
func Read(path string) (data []float64, rows, cols int, err error) {
	if strings.EqualFold(filepath.Ext(path), ".npy") {
		var shape []int
		data, shape, err = ReadNPY(path)
		if err != nil {
			return nil, 0, 0, err
		}
		switch len(shape) {
		case 1:
			return data, shape[0], 1, nil
		case 2:
			return data, shape[0], shape[1], nil
		}
		return nil, 0, 0, fmt.Errorf("%s: array of shape %v, want 1 or 2 dimensions", path, shape)
	}
	return ReadCSV(path)
}

// ReadCSV reads a numeric CSV file; a first row that does not parse as
// numbers is taken as a header. Every row must have the same number of
// fields.
func ReadCSV(path string) (data []float64, rows, cols int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.TrimLeadingSpace = true
	for line := 1; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, 0, 0, fmt.Errorf("%s: %w", path, err)
		}
		vals := make([]float64, len(rec))
		bad := -1
		for i, s := range rec {
			if vals[i], err = strconv.ParseFloat(strings.TrimSpace(s), 64); err != nil {
				bad = i
				break
			}
		}
		if bad >= 0 {
			if line == 1 {
				continue // header
			}
			return nil, 0, 0, fmt.Errorf("%s: line %d, column %d: %q is not a number", path, line, bad+1, rec[bad])
		}
		if rows == 0 {
			cols = len(vals)
		}
		data = append(data, vals...)
		rows++
	}
	if rows == 0 {
		return nil, 0, 0, fmt.Errorf("%s: no numeric rows", path)
	}
	return data, rows, cols, nil
}

var npyMagic = []byte("\x93NUMPY")

var (
	descrRe   = regexp.MustCompile(`'descr'\s*:\s*'([<>|=])([a-zA-Z])(\d+)'`)
	fortranRe = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	shapeRe   = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

// ReadNPY reads a NumPy .npy file (format versions 1 to 3) of float32,
// float64, signed or unsigned integers or booleans, in either byte order and
// either memory order; values come back as float64 in row-major (C) order.
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
	fail := func(off int64, format string, a ...any) error {
		return fmt.Errorf("%s: offset %d: %s", path, off, fmt.Sprintf(format, a...))
	}
	pre := make([]byte, 8)
	if _, err := io.ReadFull(f, pre); err != nil || !bytes.Equal(pre[:6], npyMagic) {
		return nil, nil, fail(0, "not a .npy file (bad magic)")
	}
	var hlen int64
	var off int64
	switch pre[6] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(f, b[:]); err != nil {
			return nil, nil, fail(8, "truncated header length")
		}
		hlen, off = int64(binary.LittleEndian.Uint16(b[:])), 10
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(f, b[:]); err != nil {
			return nil, nil, fail(8, "truncated header length")
		}
		hlen, off = int64(binary.LittleEndian.Uint32(b[:])), 12
	default:
		return nil, nil, fail(6, "unsupported format version %d", pre[6])
	}
	if off+hlen > st.Size() {
		return nil, nil, fail(off, "header of %d bytes runs past the end of the %d-byte file", hlen, st.Size())
	}
	header := make([]byte, hlen)
	if _, err := io.ReadFull(f, header); err != nil {
		return nil, nil, fail(off, "truncated header")
	}
	h := string(header)
	d := descrRe.FindStringSubmatch(h)
	fo := fortranRe.FindStringSubmatch(h)
	sh := shapeRe.FindStringSubmatch(h)
	if d == nil || fo == nil || sh == nil {
		return nil, nil, fail(off, "header %q lacks descr, fortran_order or shape", strings.TrimSpace(h))
	}
	size, _ := strconv.Atoi(d[3])
	decode, err := decoder(d[1], d[2], size)
	if err != nil {
		return nil, nil, fail(off, "%v", err)
	}
	n := int64(1)
	for _, s := range strings.Split(sh[1], ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 {
			return nil, nil, fail(off, "bad dimension %q in shape (%s)", s, sh[1])
		}
		shape = append(shape, int(v))
		if v > 0 && n > math.MaxInt64/v {
			return nil, nil, fail(off, "shape (%s) overflows", sh[1])
		}
		n *= v
	}
	body := st.Size() - off - hlen
	if n > body/int64(size) {
		return nil, nil, fail(off+hlen, "shape (%s) needs %d bytes of data, the file has %d", sh[1], n*int64(size), body)
	}
	raw := make([]byte, n*int64(size))
	if _, err := io.ReadFull(f, raw); err != nil {
		return nil, nil, fail(off+hlen, "truncated data")
	}
	data = make([]float64, n)
	for i := range data {
		data[i] = decode(raw[i*size:])
	}
	if fo[1] == "True" && len(shape) > 1 {
		data = fortranToC(data, shape)
	}
	return data, shape, nil
}

// decoder returns the function that reads one element of the given NumPy
// type (byte order, kind, size).
func decoder(order, kind string, size int) (func([]byte) float64, error) {
	var bo binary.ByteOrder = binary.LittleEndian
	if order == ">" {
		bo = binary.BigEndian
	}
	switch {
	case kind == "f" && size == 4:
		return func(b []byte) float64 { return float64(math.Float32frombits(bo.Uint32(b))) }, nil
	case kind == "f" && size == 8:
		return func(b []byte) float64 { return math.Float64frombits(bo.Uint64(b)) }, nil
	case (kind == "i" || kind == "u") && size == 1, kind == "b" && size == 1:
		signed := kind == "i"
		return func(b []byte) float64 {
			if signed {
				return float64(int8(b[0]))
			}
			return float64(b[0])
		}, nil
	case kind == "i" && size == 4:
		return func(b []byte) float64 { return float64(int32(bo.Uint32(b))) }, nil
	case kind == "i" && size == 8:
		return func(b []byte) float64 { return float64(int64(bo.Uint64(b))) }, nil
	case kind == "u" && size == 4:
		return func(b []byte) float64 { return float64(bo.Uint32(b)) }, nil
	case kind == "u" && size == 8:
		return func(b []byte) float64 { return float64(bo.Uint64(b)) }, nil
	}
	return nil, fmt.Errorf("unsupported dtype %s%s%d", order, kind, size)
}

// fortranToC reorders column-major data of shape into row-major order.
func fortranToC(data []float64, shape []int) []float64 {
	out := make([]float64, len(data))
	idx := make([]int, len(shape))
	for i := range out {
		// i is the row-major position; find its column-major offset.
		off, stride := 0, 1
		for d := range shape {
			off += idx[d] * stride
			stride *= shape[d]
		}
		out[i] = data[off]
		for d := len(shape) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}

// ReadLabels reads integer class labels: one per row of a one-column CSV or
// text file, or a 1-D (or one-column) .npy array.
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
		if v != math.Trunc(v) || math.Abs(v) > 1<<31 {
			return nil, fmt.Errorf("%s: label %d (%v) is not an integer", path, i, v)
		}
		out[i] = int(v)
	}
	return out, nil
}
