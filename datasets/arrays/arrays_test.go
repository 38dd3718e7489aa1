package arrays

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// npy builds a version-1 .npy file.
func npy(descr string, fortran bool, shape string, body []byte) []byte {
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }", descr, map[bool]string{true: "True", false: "False"}[fortran], shape)
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	var b bytes.Buffer
	b.Write(npyMagic)
	b.Write([]byte{1, 0})
	binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	b.WriteString(h)
	b.Write(body)
	return b.Bytes()
}

func write(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func encode(bo binary.ByteOrder, vals any) []byte {
	var b bytes.Buffer
	binary.Write(&b, bo, vals)
	return b.Bytes()
}

func TestReadNPYTypes(t *testing.T) {
	want := []float64{1, -2, 3, 4, 5, -6}
	cases := []struct {
		descr string
		body  []byte
	}{
		{"<f8", encode(binary.LittleEndian, []float64{1, -2, 3, 4, 5, -6})},
		{">f8", encode(binary.BigEndian, []float64{1, -2, 3, 4, 5, -6})},
		{"<f4", encode(binary.LittleEndian, []float32{1, -2, 3, 4, 5, -6})},
		{"<i4", encode(binary.LittleEndian, []int32{1, -2, 3, 4, 5, -6})},
		{">i8", encode(binary.BigEndian, []int64{1, -2, 3, 4, 5, -6})},
		{"|i1", []byte{1, 0xfe, 3, 4, 5, 0xfa}},
	}
	for _, c := range cases {
		data, shape, err := ReadNPY(write(t, "a.npy", npy(c.descr, false, "2, 3", c.body)))
		if err != nil {
			t.Fatalf("%s: %v", c.descr, err)
		}
		if len(shape) != 2 || shape[0] != 2 || shape[1] != 3 {
			t.Errorf("%s: shape %v", c.descr, shape)
		}
		for i := range want {
			if data[i] != want[i] {
				t.Fatalf("%s: %v", c.descr, data)
			}
		}
	}
	// Fortran order: column-major [[1,2,3],[4,5,6]] is stored 1,4,2,5,3,6.
	data, _, err := ReadNPY(write(t, "f.npy", npy("<f8", true, "2, 3", encode(binary.LittleEndian, []float64{1, 4, 2, 5, 3, 6}))))
	if err != nil || fmt.Sprint(data) != "[1 2 3 4 5 6]" {
		t.Errorf("fortran order: %v %v", data, err)
	}
	bools, _, err := ReadNPY(write(t, "b.npy", npy("|b1", false, "3,", []byte{1, 0, 1})))
	if err != nil || fmt.Sprint(bools) != "[1 0 1]" {
		t.Errorf("bool: %v %v", bools, err)
	}
}

func TestReadNPYBadInput(t *testing.T) {
	good := npy("<f8", false, "2,", encode(binary.LittleEndian, []float64{1, 2}))
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"magic":     {append([]byte("XNUMPY"), good[6:]...), "bad magic"},
		"truncated": {good[:len(good)-3], "needs 16 bytes"},
		"huge":      {npy("<f8", false, "1000000000000, 1000000", nil), "needs"},
		"overflow":  {npy("<f8", false, "9223372036854775807, 4", nil), "overflows"},
		"noshape":   {bytes.Replace(good, []byte("'shape'"), []byte("'shope'"), 1), "lacks"},
		"object":    {npy("|O8", false, "2,", make([]byte, 16)), "unsupported dtype"},
		"header":    {good[:12], "past the end"},
		"version":   {append(append([]byte{}, good[:6]...), append([]byte{9}, good[7:]...)...), "version"},
	} {
		_, _, err := ReadNPY(write(t, name+".npy", c.b))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), name+".npy") {
			t.Errorf("%s: error %v, want one naming the file and %q", name, err, c.want)
		}
	}
}

func TestReadCSVAndLabels(t *testing.T) {
	data, rows, cols, err := ReadCSV(write(t, "p.csv", []byte("a,b\n0.5, 0.5\n0.25,0.75\n")))
	if err != nil || rows != 2 || cols != 2 || data[3] != 0.75 {
		t.Errorf("csv: %v %d %d %v", data, rows, cols, err)
	}
	if _, _, _, err := ReadCSV(write(t, "bad.csv", []byte("1,2\n3,x\n"))); err == nil || !strings.Contains(err.Error(), "line 2, column 2") {
		t.Errorf("bad csv: %v", err)
	}
	if _, _, _, err := ReadCSV(write(t, "ragged.csv", []byte("1,2\n3\n"))); err == nil {
		t.Error("ragged csv accepted")
	}
	labels, err := ReadLabels(write(t, "y.txt", []byte("2\n0\n1\n")))
	if err != nil || fmt.Sprint(labels) != "[2 0 1]" {
		t.Errorf("labels %v %v", labels, err)
	}
	if _, err := ReadLabels(write(t, "y2.txt", []byte("1.5\n"))); err == nil {
		t.Error("fractional label accepted")
	}
	if _, err := ReadLabels(write(t, "y3.npy", npy("<i8", false, "3,", encode(binary.LittleEndian, []int64{1, 0, 2})))); err != nil {
		t.Error(err)
	}
}

func FuzzReadNPY(f *testing.F) {
	f.Add(npy("<f8", false, "2,", encode(binary.LittleEndian, []float64{1, 2})))
	f.Add(npy(">f4", true, "2, 2", encode(binary.BigEndian, []float32{1, 2, 3, 4})))
	f.Add(npy("|u1", false, "3,", []byte{1, 2, 3}))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "f.npy")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		data, shape, err := ReadNPY(path)
		if err != nil {
			return
		}
		n := 1
		for _, s := range shape {
			n *= s
		}
		if n != len(data) {
			t.Fatalf("shape %v for %d values", shape, len(data))
		}
	})
}
