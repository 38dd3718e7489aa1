package arrays

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/ecl-go/ecl/internal/atomicfile"
)

// EncodeNPY returns a float64 [rows, cols] matrix as a version-1.0 .npy
// file (little-endian, C order), the format ReadNPY reads back.
func EncodeNPY(data []float64, rows, cols int) ([]byte, error) {
	if rows < 0 || cols < 0 || rows*cols != len(data) {
		return nil, fmt.Errorf("arrays.EncodeNPY: %d values for shape (%d, %d)", len(data), rows, cols)
	}
	header := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols)
	// Pad with spaces so that magic, version, length and header end on a
	// multiple of 64 bytes, with a final newline.
	pad := 64 - (10+len(header)+1)%64
	header += strings.Repeat(" ", pad%64) + "\n"
	var buf bytes.Buffer
	buf.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&buf, binary.LittleEndian, uint16(len(header)))
	buf.WriteString(header)
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
