package arrays

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/ecl-go/ecl/internal/atomicfile"
)

// EncodeNPY returns a float64 [rows, cols] matrix as a version-1.0 .npy
// file (little-endian, C order), the format ReadNPY reads back.
func EncodeNPY(data []float64, rows, cols int) ([]byte, error) {
	if rows < 0 || cols < 0 || rows*cols != len(data) {
		return nil, fmt.Errorf("arrays.EncodeNPY: %d values for shape (%d, %d)", len(data), rows, cols)
	}
	var buf bytes.Buffer
	buf.Write(npyPreamble("<f8", []int{rows, cols}))
	binary.Write(&buf, binary.LittleEndian, data)
	return buf.Bytes(), nil
}

// WriteNPY writes a float64 [rows, cols] matrix as a .npy file
// (EncodeNPY), atomically: the file is replaced only once it is complete.
func WriteNPY(path string, data []float64, rows, cols int) error {
	b, err := EncodeNPY(data, rows, cols)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}
