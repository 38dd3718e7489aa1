package arrays

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ecl-go/ecl/internal/atomicfile"
)

// Array is a named array to write into a .npz archive with WriteNPZ:
// float32, float64 or int64 numbers of a shape, or a 1-D array of
// strings.
type Array struct {
	Name  string
	descr string
	shape []int
	n     int                     // the number of elements
	write func(w io.Writer) error // the data, little-endian
}

// Float32s is a float32 array ('<f4') of the given shape (1-D when none).
func Float32s(name string, data []float32, shape ...int) Array {
	return numbers(name, "<f4", data, shape)
}

// Float64s is a float64 array ('<f8').
func Float64s(name string, data []float64, shape ...int) Array {
	return numbers(name, "<f8", data, shape)
}

// Int64s is an int64 array ('<i8').
func Int64s(name string, data []int64, shape ...int) Array {
	return numbers(name, "<i8", data, shape)
}

// numbers is an array of fixed-size little-endian numbers.
func numbers[T float32 | float64 | int64](name, descr string, data []T, shape []int) Array {
	if len(shape) == 0 {
		shape = []int{len(data)}
	}
	return Array{Name: name, descr: descr, shape: shape, n: len(data), write: func(w io.Writer) error {
		for i := 0; i < len(data); i += 1 << 16 {
			if err := binary.Write(w, binary.LittleEndian, data[i:min(i+1<<16, len(data))]); err != nil {
				return err
			}
		}
		return nil
	}}
}

// Strings is a 1-D array of strings as NumPy stores them, '<Un' with n
// the longest string's length in code points (at least 1): UTF-32,
// each string padded with zero code points, which NumPy drops when it
// reads them (a string's own trailing NULs are lost too). Invalid UTF-8
// is written as U+FFFD.
func Strings(name string, s []string) Array {
	width := 1
	for _, v := range s {
		width = max(width, utf8.RuneCountInString(v))
	}
	return Array{Name: name, descr: fmt.Sprintf("<U%d", width), shape: []int{len(s)}, n: len(s), write: func(w io.Writer) error {
		buf := make([]byte, 4*width)
		for _, v := range s {
			clear(buf)
			i := 0
			for _, r := range v {
				binary.LittleEndian.PutUint32(buf[4*i:], uint32(r))
				i++
			}
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	}}
}

// npyPreamble is a version-1.0 .npy preamble and header for descr and
// shape, padded so that the data start at a multiple of 64 bytes.
func npyPreamble(descr string, shape []int) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = fmt.Sprint(d)
	}
	tuple := strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, tuple)
	pad := 64 - (10+len(header)+1)%64
	header += strings.Repeat(" ", pad%64) + "\n"
	var buf bytes.Buffer
	buf.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&buf, binary.LittleEndian, uint16(len(header)))
	buf.WriteString(header)
	return buf.Bytes()
}

// check reports an array whose shape does not hold its data.
func (a Array) check() error {
	n := 1
	for _, d := range a.shape {
		if d < 0 {
			return fmt.Errorf("array %q: shape %v", a.Name, a.shape)
		}
		n *= d
	}
	switch {
	case a.write == nil:
		return fmt.Errorf("array %q: made without Float32s, Float64s, Int64s or Strings", a.Name)
	case n != a.n:
		return fmt.Errorf("array %q: %d values for shape %v", a.Name, a.n, a.shape)
	case a.Name == "" || strings.ContainsAny(a.Name, "/\\:"):
		return fmt.Errorf("array name %q: want a name without '/', '\\' or ':'", a.Name)
	}
	return nil
}

// WriteNPZ writes the arrays as an uncompressed NumPy .npz archive (as
// numpy.savez does: one NAME.npy member each), atomically: the file is
// replaced only once it is complete. NumPy reads it with numpy.load, and
// Read, ReadNPZ and ReadNPZStrings read its arrays back.
func WriteNPZ(path string, arrays ...Array) error {
	seen := map[string]bool{}
	for _, a := range arrays {
		if err := a.check(); err != nil {
			return fmt.Errorf("arrays.WriteNPZ %s: %w", path, err)
		}
		if seen[a.Name] {
			return fmt.Errorf("arrays.WriteNPZ %s: two arrays named %q", path, a.Name)
		}
		seen[a.Name] = true
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		z := zip.NewWriter(bw)
		for _, a := range arrays {
			m, err := z.CreateHeader(&zip.FileHeader{Name: a.Name + ".npy", Method: zip.Store})
			if err != nil {
				return err
			}
			if _, err := m.Write(npyPreamble(a.descr, a.shape)); err != nil {
				return err
			}
			if err := a.write(m); err != nil {
				return err
			}
		}
		if err := z.Close(); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// maxStringWidth bounds the code points of a string ReadNPZStrings
// reads: a row's buffer is allocated before its bytes are read.
const maxStringWidth = 1 << 20

// ReadNPZStrings reads the 1-D string array name ('<Un' or '>Un', as
// numpy.savez writes an array of str) of a .npz archive, trailing zero
// code points dropped as NumPy drops them.
func ReadNPZStrings(path, name string) ([]string, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("%s: not a .npz (zip) archive: %v", path, err)
	}
	defer z.Close()
	var pick *zip.File
	for _, f := range z.File {
		if f.Name == name+".npy" {
			pick = f
		}
	}
	if pick == nil {
		return nil, fmt.Errorf("%s: no array %q", path, name)
	}
	label := path + ":" + name
	size := int64(pick.UncompressedSize64)
	if pick.UncompressedSize64 > uint64(MaxValues)*8+1<<16 {
		return nil, fmt.Errorf("%s: %d bytes, more than arrays.MaxValues allows", label, size)
	}
	r, err := pick.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", label, err)
	}
	defer r.Close()
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil || !bytes.HasPrefix(pre[:], npyMagic) {
		return nil, fmt.Errorf("%s: not a .npy array", label)
	}
	h, off, start, err := readHeader(r, size, label, pre[:])
	if err != nil {
		return nil, err
	}
	var width int
	if len(h.descr) < 3 || h.descr[1] != 'U' || (h.descr[0] != '<' && h.descr[0] != '>') {
		return nil, fmt.Errorf("%s: offset %d: dtype %q, want strings ('<Un')", label, off, h.descr)
	}
	if _, err := fmt.Sscanf(h.descr[2:], "%d", &width); err != nil || width < 1 || fmt.Sprint(width) != h.descr[2:] {
		return nil, fmt.Errorf("%s: offset %d: dtype %q, want strings ('<Un')", label, off, h.descr)
	}
	if len(h.shape) != 1 {
		return nil, fmt.Errorf("%s: offset %d: shape %v, want 1 dimension", label, off, h.shape)
	}
	if width > maxStringWidth {
		return nil, fmt.Errorf("%s: offset %d: strings of %d code points, more than the %d this reader accepts", label, off, width, maxStringWidth)
	}
	n, body := h.shape[0], size-start
	if n == 0 && body == 0 {
		return []string{}, nil
	}
	if n == 0 || int64(width) > body/4 || n > body/(4*int64(width)) || n*4*int64(width) != body {
		return nil, fmt.Errorf("%s: offset %d: %d strings of %d code points, the array holds %d bytes", label, start, n, width, body)
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if h.descr[0] == '>' {
		bo = binary.BigEndian
	}
	out := make([]string, 0, min(n, 1<<16))
	buf := make([]byte, 4*width)
	runes := make([]rune, width)
	for i := range n {
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, fmt.Errorf("%s: offset %d: %v", label, start+i*int64(len(buf)), err)
		}
		k := 0
		for j := range width {
			runes[j] = rune(bo.Uint32(buf[4*j:]))
			if runes[j] != 0 {
				k = j + 1
			}
		}
		out = append(out, string(runes[:k]))
	}
	return out, nil
}
