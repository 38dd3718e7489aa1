package nn

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ecl-go/ecl/internal/atomicfile"
	"github.com/ecl-go/ecl/tensor"
)

// A safetensors file (github.com/huggingface/safetensors) is
//
//	n       uint64, little-endian: the header's length in bytes
//	header  n bytes of UTF-8 JSON, an object mapping each tensor's name to
//	        {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]},
//	        with an optional "__metadata__" object of strings
//	data    the tensors' bytes, row-major and little-endian, tensor i at
//	        [begin, end) of data; the ranges tile data without gaps
//
// Both functions below check a file against this before using any of it.
const (
	maxSafetensorsHeader = 100 << 20 // the reference implementation's limit
	metadataKey          = "__metadata__"
)

// safetensorsDTypes is the size in bytes of each dtype of the format.
var safetensorsDTypes = map[string]int64{
	"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1,
	"U16": 2, "I16": 2, "F16": 2, "BF16": 2,
	"U32": 4, "I32": 4, "F32": 4,
	"U64": 8, "I64": 8, "F64": 8,
}

// stTensor is one tensor of a safetensors header.
type stTensor struct {
	name       string
	dtype      string
	shape      []int64
	begin, end int64 // in the data section
}

// SaveSafetensors writes the State of m to path as safetensors, each tensor
// under its State name (PyTorch's state_dict name) with dtype F32 or F64 as
// T, and metadata, if any, as the header's __metadata__. The file is written
// atomically (internal/atomicfile).
func SaveSafetensors[T tensor.Float](path string, m Module[T], metadata map[string]string) error {
	err := atomicfile.Write(path, func(f io.Writer) error {
		bw := bufio.NewWriter(f)
		if err := writeSafetensors(bw, m.State(), metadata); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("nn.SaveSafetensors %s: %w", path, err)
	}
	return nil
}

// writeSafetensors writes st and metadata as a safetensors file to w.
func writeSafetensors[T tensor.Float](w io.Writer, st []Named[T], metadata map[string]string) error {
	type entry struct {
		DType   string   `json:"dtype"`
		Shape   []int    `json:"shape"`
		Offsets [2]int64 `json:"data_offsets"`
	}
	header := map[string]any{}
	if len(metadata) > 0 {
		header[metadataKey] = metadata
	}
	dtype := map[int]string{4: "F32", 8: "F64"}[elemSize[T]()]
	var off int64
	for _, n := range st {
		if _, dup := header[n.Name]; dup || n.Name == "" {
			return fmt.Errorf("tensor name %q is empty, reserved or used twice", n.Name)
		}
		size := int64(n.Value().Len() * elemSize[T]())
		header[n.Name] = entry{dtype, append([]int{}, n.Value().Shape()...), [2]int64{off, off + size}}
		off += size
	}
	js, err := json.Marshal(header)
	if err != nil {
		return err
	}
	// Spaces pad the header to a multiple of 8 bytes, aligning the data.
	js = append(js, bytes.Repeat([]byte{' '}, (8-len(js)%8)%8)...)
	if _, err := w.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(js)))); err != nil {
		return err
	}
	if _, err := w.Write(js); err != nil {
		return err
	}
	for _, n := range st {
		if _, err := w.Write(appendFloats(nil, n.Value().Data())); err != nil {
			return err
		}
	}
	return nil
}

// appendFloats appends vs to b, little-endian.
func appendFloats[T tensor.Float](b []byte, vs []T) []byte {
	for _, v := range vs {
		if elemSize[T]() == 4 {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v)))
		} else {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(v)))
		}
	}
	return b
}

// LoadSafetensors restores the State of m from the safetensors file at path,
// matching tensors by name: the file must hold exactly m's tensors (PyTorch's
// num_batches_tracked counters aside, which BatchNorm2d does not keep), each
// of the model's shape and of dtype F16, BF16, F32 or F64, converted to T
// (F64 to float32 rounded to nearest). The whole file is checked (header
// length within the file, dtype, shape and byte range of each tensor
// consistent, ranges tiling the data) and read before m changes; nothing is
// allocated from the header's sizes before they are checked against the
// file's. An error names the file and the tensors at fault (missing,
// unexpected, of another shape).
func LoadSafetensors[T tensor.Float](path string, m Module[T]) error {
	f, size, err := openSized(path, "nn.LoadSafetensors")
	if err != nil {
		return err
	}
	defer f.Close()
	st := m.State()
	vals, err := readSafetensors(f, size, st)
	if err != nil {
		return fmt.Errorf("nn.LoadSafetensors %s: %w", path, err)
	}
	for i, n := range st {
		tensor.CopyInto(n.Value(), tensor.FromSliceOn(n.Value().Device(), vals[i], n.Value().Shape()...))
	}
	return nil
}

// readSafetensors reads the values of the tensors want from the safetensors
// file r of size bytes.
func readSafetensors[T tensor.Float](r io.ReaderAt, size int64, want []Named[T]) ([][]T, error) {
	tensors, data, err := readSafetensorsHeader(r, size)
	if err != nil {
		return nil, err
	}
	found, err := matchSafetensors(tensors, want)
	if err != nil {
		return nil, err
	}
	vals := make([][]T, len(want))
	for i, t := range found {
		if vals[i], err = readSafetensor[T](r, data, t); err != nil {
			return nil, fmt.Errorf("tensor %q: %w", t.name, err)
		}
	}
	return vals, nil
}

// readSafetensorsHeader reads and checks the header of the safetensors
// file r of size bytes: its tensors and the offset of the data section.
func readSafetensorsHeader(r io.ReaderAt, size int64) ([]stTensor, int64, error) {
	if size < 8 {
		return nil, 0, fmt.Errorf("file of %d bytes, shorter than the 8-byte header length", size)
	}
	var b [8]byte
	if _, err := r.ReadAt(b[:], 0); err != nil {
		return nil, 0, err
	}
	n := binary.LittleEndian.Uint64(b[:])
	if n > uint64(size-8) {
		return nil, 0, fmt.Errorf("header of %d bytes, beyond the file's %d", n, size)
	}
	if n > maxSafetensorsHeader {
		return nil, 0, fmt.Errorf("header of %d bytes, over the limit of %d", n, maxSafetensorsHeader)
	}
	header := make([]byte, n)
	if _, err := r.ReadAt(header, 8); err != nil {
		return nil, 0, err
	}
	data := 8 + int64(n)
	tensors, _, err := parseSafetensorsHeader(header, size-data)
	if err != nil {
		return nil, 0, err
	}
	return tensors, data, nil
}

// parseSafetensorsHeader parses and checks a header whose data section has
// dataSize bytes, returning the tensors in header order and the metadata.
func parseSafetensorsHeader(header []byte, dataSize int64) ([]stTensor, map[string]string, error) {
	if !utf8.Valid(header) {
		return nil, nil, errors.New("header is not UTF-8")
	}
	if len(header) == 0 || header[0] != '{' {
		return nil, nil, errors.New("header does not start with '{'")
	}
	dec := json.NewDecoder(bytes.NewReader(header))
	if _, err := dec.Token(); err != nil {
		return nil, nil, fmt.Errorf("header: %w", early(err))
	}
	var tensors []stTensor
	var metadata map[string]string
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("header: %w", early(err))
		}
		name := tok.(string) // the decoder allows only strings as keys
		if seen[name] {
			return nil, nil, fmt.Errorf("header names %q twice", name)
		}
		seen[name] = true
		if name == metadataKey {
			if err := dec.Decode(&metadata); err != nil {
				return nil, nil, fmt.Errorf("header's %s is not an object of strings: %w", metadataKey, early(err))
			}
			continue
		}
		var e struct {
			DType   *string  `json:"dtype"`
			Shape   *[]int64 `json:"shape"`
			Offsets *[]int64 `json:"data_offsets"`
		}
		if err := dec.Decode(&e); err != nil {
			return nil, nil, fmt.Errorf("tensor %q: %w", name, early(err))
		}
		if e.DType == nil || e.Shape == nil || e.Offsets == nil || len(*e.Offsets) != 2 {
			return nil, nil, fmt.Errorf("tensor %q: want dtype, shape and two data_offsets", name)
		}
		t := stTensor{name: name, dtype: *e.DType, shape: *e.Shape, begin: (*e.Offsets)[0], end: (*e.Offsets)[1]}
		if err := t.check(dataSize); err != nil {
			return nil, nil, fmt.Errorf("tensor %q: %w", name, err)
		}
		tensors = append(tensors, t)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, fmt.Errorf("header: %w", early(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("header has more after its object")
	}
	return tensors, metadata, tileData(tensors, dataSize)
}

// early turns the decoder's io.EOF, a header that ends inside its object,
// into io.ErrUnexpectedEOF.
func early(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// check verifies that t's dtype is known and that its byte range lies in a
// data section of dataSize bytes and has the size of its dtype and shape.
func (t stTensor) check(dataSize int64) error {
	size, ok := safetensorsDTypes[t.dtype]
	if !ok {
		return fmt.Errorf("unknown dtype %q", t.dtype)
	}
	if t.begin < 0 || t.end < t.begin || t.end > dataSize {
		return fmt.Errorf("data_offsets [%d, %d] outside the %d bytes of data", t.begin, t.end, dataSize)
	}
	// The byte count is bounded by dataSize on the way, so nothing overflows.
	bytes := size
	for _, d := range t.shape {
		if d < 0 {
			return fmt.Errorf("shape %v has a negative size", t.shape)
		}
		if d != 0 && bytes > (t.end-t.begin)/d {
			bytes = -1
			break
		}
		bytes *= d
	}
	if bytes != t.end-t.begin {
		return fmt.Errorf("dtype %s and shape %v do not fill data_offsets [%d, %d]", t.dtype, t.shape, t.begin, t.end)
	}
	return nil
}

// tileData verifies that the tensors' byte ranges cover the data section
// of dataSize bytes without overlapping, as the format requires.
func tileData(tensors []stTensor, dataSize int64) error {
	sorted := slices.Clone(tensors)
	slices.SortStableFunc(sorted, func(a, b stTensor) int {
		if a.begin != b.begin {
			return int(min(max(a.begin-b.begin, -1), 1))
		}
		return int(min(max(a.end-b.end, -1), 1))
	})
	var at int64
	for i, t := range sorted {
		switch {
		case t.begin < at:
			return fmt.Errorf("tensors %q and %q overlap", sorted[i-1].name, t.name)
		case t.begin > at:
			return fmt.Errorf("bytes %d to %d of the data belong to no tensor", at, t.begin)
		}
		at = t.end
	}
	if at != dataSize {
		return fmt.Errorf("bytes %d to %d of the data belong to no tensor", at, dataSize)
	}
	return nil
}

// matchSafetensors returns the tensor of the file for each of want, checking
// that the file holds exactly those (num_batches_tracked aside), each of
// want's shape and of a float dtype (matchState).
func matchSafetensors[T tensor.Float](tensors []stTensor, want []Named[T]) ([]stTensor, error) {
	file := make([]fileTensor, len(tensors))
	for i, t := range tensors {
		file[i] = fileTensor{t.name, t.shape, t.dtype}
	}
	idx, err := matchState(file, want, nil)
	if err != nil {
		return nil, err
	}
	found := make([]stTensor, len(want))
	for i, j := range idx {
		found[i] = tensors[j]
	}
	return found, nil
}

// listed is "what: a, b, c" with at most 8 names, or "" without any.
func listed(what string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	const most = 8
	if len(names) > most {
		return fmt.Sprintf("%s: %s and %d more", what, strings.Join(names[:most], ", "), len(names)-most)
	}
	return what + ": " + strings.Join(names, ", ")
}

func int64s(s []int) []int64 {
	out := make([]int64, len(s))
	for i, v := range s {
		out[i] = int64(v)
	}
	return out
}

// readSafetensor reads t's values, in chunks, from a file whose data section
// starts at data.
func readSafetensor[T tensor.Float](r io.ReaderAt, data int64, t stTensor) ([]T, error) {
	size := safetensorsDTypes[t.dtype]
	dec := floatDecoder[T](t.dtype)
	vals := make([]T, (t.end-t.begin)/size)
	buf := make([]byte, min(t.end-t.begin, 1<<16))
	for at := 0; at < len(vals); {
		k := min(len(buf)/int(size), len(vals)-at)
		b := buf[:k*int(size)]
		if _, err := r.ReadAt(b, data+t.begin+int64(at)*size); err != nil {
			return nil, err
		}
		for i := range k {
			vals[at+i] = dec(b[i*int(size):])
		}
		at += k
	}
	return vals, nil
}

// decodeFloat is the little-endian value of dtype at the start of b.
func decodeFloat[T tensor.Float](dtype string, b []byte) T { return floatDecoder[T](dtype)(b) }

// floatDecoder returns the function that reads a little-endian value of
// dtype (F64, F32, BF16 or F16) from the start of a slice, as T.
func floatDecoder[T tensor.Float](dtype string) func(b []byte) T {
	le := binary.LittleEndian
	switch dtype {
	case "F64":
		return func(b []byte) T { return T(math.Float64frombits(le.Uint64(b))) }
	case "F32":
		return func(b []byte) T { return T(math.Float32frombits(le.Uint32(b))) }
	case "BF16":
		return func(b []byte) T { return T(math.Float32frombits(uint32(le.Uint16(b)) << 16)) }
	default: // F16
		return func(b []byte) T { return T(halfToFloat32(le.Uint16(b))) }
	}
}

// halfToFloat32 converts an IEEE 754 binary16 value, exactly.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp, frac := uint32(h>>10)&0x1f, uint32(h)&0x3ff
	switch {
	case exp == 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp != 0: // normal: rebias the exponent from 15 to 127
		return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
	}
	// Zero or subnormal: frac·2⁻²⁴, exact in float32.
	v := float32(frac) / (1 << 24)
	return math.Float32frombits(sign | math.Float32bits(v))
}
