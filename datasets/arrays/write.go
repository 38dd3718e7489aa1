package arrays

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/ecl-go/ecl/internal/atomicfile"
)

// EncodeNPY writes a float64 [rows, cols] matrix to w as a version-1.0
// .npy file (little-endian, C order), the format ReadNPY reads back,
// through a 64 KiB buffer: it never copies data whole.
func EncodeNPY(w io.Writer, data []float64, rows, cols int) error {
	if rows < 0 || cols < 0 || rows*cols != len(data) {
		return fmt.Errorf("arrays.EncodeNPY: %d values for shape (%d, %d)", len(data), rows, cols)
	}
	if _, err := w.Write(npyPreamble("<f8", []int{rows, cols})); err != nil {
		return err
	}
	buf := make([]byte, 0, 1<<16)
	for len(data) > 0 {
		n := min(len(data), cap(buf)/8)
		buf = buf[:0]
		for _, v := range data[:n] {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// WriteNPY writes a float64 [rows, cols] matrix as a .npy file
// (EncodeNPY), atomically: the file is replaced only once it is complete.
func WriteNPY(path string, data []float64, rows, cols int) error {
	if rows < 0 || cols < 0 || rows*cols != len(data) {
		return fmt.Errorf("%s: arrays.WriteNPY: %d values for shape (%d, %d)", path, len(data), rows, cols)
	}
	return atomicfile.Write(path, func(w io.Writer) error { return EncodeNPY(w, data, rows, cols) })
}
