package digitstest

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// IDX encodes an IDX file: magic, big-endian dimensions, then data.
func IDX(magic uint32, dims []uint32, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, magic)
	for _, d := range dims {
		binary.Write(&b, binary.BigEndian, d)
	}
	b.Write(data)
	return b.Bytes()
}

// Write writes b to dir/name, gzipped when name ends in .gz, and returns the
// path.
func Write(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if strings.HasSuffix(name, ".gz") {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(b)
		w.Close()
		b = z.Bytes()
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Domains writes small MNIST and USPS domains into dir/mnist and dir/usps,
// n training and n/2 test images each (n < 255): image i of a split is
// labelled i mod 10 and shows that label as the rows r with r mod 10 equal
// to it, at grey level 255−i on black.
func Domains(t testing.TB, dir string, n int) {
	t.Helper()
	for split, m := range map[string]int{"train": n, "test": n / 2} {
		pix, labels := make([]byte, m*28*28), make([]byte, m)
		var usps strings.Builder
		for i := range m {
			y := i % 10
			for r := y; r < 28; r += 10 {
				for c := range 28 {
					pix[i*784+r*28+c] = byte(255 - i)
				}
			}
			labels[i] = byte(y)
			fmt.Fprintf(&usps, "%d.0000", y)
			for j := range 256 {
				v := -1.0
				if j/16%10 == y {
					v = float64(255-i)/127.5 - 1
				}
				fmt.Fprintf(&usps, " %.4f", v)
			}
			usps.WriteString(" \n")
		}
		prefix := map[string]string{"train": "train", "test": "t10k"}[split]
		mnist, uspsDir := filepath.Join(dir, "mnist"), filepath.Join(dir, "usps")
		for _, d := range []string{mnist, uspsDir} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		Write(t, mnist, prefix+"-images-idx3-ubyte.gz", IDX(0x803, []uint32{uint32(m), 28, 28}, pix))
		Write(t, mnist, prefix+"-labels-idx1-ubyte.gz", IDX(0x801, []uint32{uint32(m)}, labels))
		Write(t, uspsDir, "zip."+split+".gz", []byte(usps.String()))
	}
}
