package nn

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"

	"github.com/ecl-go/ecl/internal/atomicfile"
	"github.com/ecl-go/ecl/tensor"
)

// Named is one tensor of a model's state.
type Named[T tensor.Float] struct {
	Name string
	// Ref is where the module keeps the tensor (a parameter's Value, a
	// buffer's field), so that ToDevice can replace it.
	Ref **tensor.Tensor[T]
}

// Value is the tensor.
func (n Named[T]) Value() *tensor.Tensor[T] { return *n.Ref }

// The state file is little-endian:
//
//	magic    8 bytes "ECLSTATE"
//	version  uint32 2 (1 named the tensors of layers without buffers
//	         param0, param1, …, where 2 has PyTorch's names)
//	dtype    uint32 bytes per element: 4 (float32) or 8 (float64)
//	count    uint32 number of tensors
//	count times:
//	  name   uint32 length (at most maxName), then UTF-8 bytes
//	  shape  uint32 ndim (at most maxDims), then ndim uint64 sizes
//	  data   the elements in row-major order, IEEE 754
//	crc      uint32 CRC-32 (IEEE) of every byte before it
const (
	stateMagic   = "ECLSTATE"
	stateVersion = 2
	maxName      = 256
	maxDims      = 8
)

// Save writes the State of m to path, atomically (internal/atomicfile): a
// failed save leaves any existing file as it was, the directory is synced
// after the rename, and the temporary file of a save killed before its
// rename is removed by the next Save of the same path.
func Save[T tensor.Float](path string, m Module[T]) error {
	st := m.State()
	return atomicfile.Write(path, func(f io.Writer) error {
		bw := bufio.NewWriter(f)
		crc := crc32.NewIEEE()
		w := io.MultiWriter(bw, crc)
		size := elemSize[T]()
		le := binary.LittleEndian
		hdr := le.AppendUint32([]byte(stateMagic), stateVersion)
		hdr = le.AppendUint32(hdr, uint32(size))
		hdr = le.AppendUint32(hdr, uint32(len(st)))
		if _, err := w.Write(hdr); err != nil {
			return err
		}
		for i, n := range st {
			if len(n.Name) > maxName || n.Value().Dims() > maxDims {
				return fmt.Errorf("nn.Save: tensor %d (%.40s…) has a name over %d bytes or over %d dimensions", i, n.Name, maxName, maxDims)
			}
			b := le.AppendUint32(nil, uint32(len(n.Name)))
			b = append(b, n.Name...)
			b = le.AppendUint32(b, uint32(n.Value().Dims()))
			for _, d := range n.Value().Shape() {
				b = le.AppendUint64(b, uint64(d))
			}
			for _, v := range n.Value().Data() {
				if size == 4 {
					b = le.AppendUint32(b, math.Float32bits(float32(v)))
				} else {
					b = le.AppendUint64(b, math.Float64bits(float64(v)))
				}
			}
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		if _, err := bw.Write(le.AppendUint32(nil, crc.Sum32())); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// Load restores the State of m from a file written by Save for the same
// architecture. Each tensor's name and shape are checked against m before
// its data is read, and m is changed only once the whole file has been read
// and its checksum verified; an error names the file, the offset or tensor, and
// what differs. A file of the other element type is converted (float32 to
// float64 exactly, float64 to float32 rounded to nearest).
func Load[T tensor.Float](path string, m Module[T]) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("nn.Load: %w", err)
	}
	defer f.Close()
	st := m.State()
	vals, err := readState(&stateReader{r: bufio.NewReader(f), crc: crc32.NewIEEE()}, st)
	if err != nil {
		return fmt.Errorf("nn.Load %s: %w", path, err)
	}
	for i, n := range st {
		tensor.CopyInto(n.Value(), tensor.FromSliceOn(n.Value().Device(), vals[i], n.Value().Shape()...))
	}
	return nil
}

// readState reads a whole state file whose tensors must match want, and
// returns their values.
func readState[T tensor.Float](r *stateReader, want []Named[T]) ([][]T, error) {
	magic, err := r.bytes(len(stateMagic), "magic")
	if err != nil {
		return nil, err
	}
	if string(magic) != stateMagic {
		return nil, fmt.Errorf("not a state file: magic %q, want %q", magic, stateMagic)
	}
	var version, size, count uint32
	for _, h := range []struct {
		v    *uint32
		what string
	}{{&version, "version"}, {&size, "dtype"}, {&count, "count"}} {
		if *h.v, err = r.u32(h.what); err != nil {
			return nil, err
		}
	}
	if version == 1 {
		return nil, fmt.Errorf("version 1, whose tensors have the names from before PyTorch's (param0, param1, …); this reader knows %d: train the model again", stateVersion)
	}
	if version != stateVersion {
		return nil, fmt.Errorf("version %d, this reader knows %d", version, stateVersion)
	}
	if size != 4 && size != 8 {
		return nil, fmt.Errorf("dtype of %d bytes per element, want 4 (float32) or 8 (float64)", size)
	}
	vals := make([][]T, len(want))
	for i, w := range want[:min(uint64(count), uint64(len(want)))] {
		if vals[i], err = readTensor(r, w, int(size)); err != nil {
			return nil, fmt.Errorf("tensor %d (%s): %w", i, w.Name, err)
		}
	}
	if uint64(count) != uint64(len(want)) {
		return nil, fmt.Errorf("%d tensors, the model has %d", count, len(want))
	}
	sum := r.crc.Sum32()
	stored, err := r.u32("checksum")
	if err != nil {
		return nil, err
	}
	if stored != sum {
		return nil, fmt.Errorf("checksum %08x, content gives %08x (corrupt file)", stored, sum)
	}
	switch _, err := r.r.ReadByte(); err {
	case nil:
		return nil, fmt.Errorf("data after the checksum at offset %d", r.off)
	case io.EOF:
	default:
		return nil, err
	}
	return vals, nil
}

// stateReader reads a state file, tracking the offset and checksum.
type stateReader struct {
	r   *bufio.Reader
	crc hash.Hash32
	off int64
}

// bytes reads n bytes of the named field.
func (r *stateReader) bytes(n int, what string) ([]byte, error) {
	b := make([]byte, n)
	k, err := io.ReadFull(r.r, b)
	r.crc.Write(b[:k])
	r.off += int64(k)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("truncated at offset %d, reading %s", r.off, what)
	}
	return b, err
}

func (r *stateReader) u32(what string) (uint32, error) {
	b, err := r.bytes(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

// readTensor reads one tensor, which must have want's name and shape, with
// elements of size bytes. Nothing is allocated from the header's sizes
// before they match want.
func readTensor[T tensor.Float](r *stateReader, want Named[T], size int) ([]T, error) {
	n, err := r.u32("name length")
	if err != nil {
		return nil, err
	}
	if n > maxName {
		return nil, fmt.Errorf("name of %d bytes at offset %d, over %d (corrupt file)", n, r.off-4, maxName)
	}
	name, err := r.bytes(int(n), "name")
	if err != nil {
		return nil, err
	}
	if string(name) != want.Name {
		return nil, fmt.Errorf("file has %q here: a different architecture", name)
	}
	ndim, err := r.u32("ndim")
	if err != nil {
		return nil, err
	}
	if ndim > maxDims {
		return nil, fmt.Errorf("%d dimensions at offset %d, over %d (corrupt file)", ndim, r.off-4, maxDims)
	}
	b, err := r.bytes(8*int(ndim), "shape")
	if err != nil {
		return nil, err
	}
	shape := make([]uint64, ndim)
	match := int(ndim) == want.Value().Dims()
	for d := range shape {
		shape[d] = binary.LittleEndian.Uint64(b[8*d:])
		match = match && shape[d] == uint64(want.Value().Dim(d))
	}
	if !match {
		return nil, fmt.Errorf("file has shape %v, the model %v: a different architecture", shape, want.Value().Shape())
	}
	vals := make([]T, want.Value().Len())
	const chunk = 1 << 13
	for at := 0; at < len(vals); at += chunk {
		part := vals[at:min(at+chunk, len(vals))]
		b, err := r.bytes(size*len(part), "data")
		if err != nil {
			return nil, err
		}
		for i := range part {
			if size == 4 {
				part[i] = T(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
			} else {
				part[i] = T(math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
			}
		}
	}
	return vals, nil
}

// elemSize is the size of T in bytes.
func elemSize[T tensor.Float]() int {
	if tensor.DType[T]() == "float32" {
		return 4
	}
	return 8
}
