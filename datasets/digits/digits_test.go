package digits

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/datasets/digits/digitstest"
)

var (
	idx   = digitstest.IDX
	write = digitstest.Write
)

func TestReadMNISTSmall(t *testing.T) {
	dir := t.TempDir()
	pix := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	im := write(t, dir, "im.gz", idx(0x803, []uint32{2, 2, 3}, pix))
	lb := write(t, dir, "lb", idx(0x801, []uint32{2}, []byte{7, 2}))
	got, err := ReadMNIST(im, lb)
	if err != nil {
		t.Fatal(err)
	}
	if got.N != 2 || got.H != 2 || got.W != 3 || got.Pixels[11] != 11 || got.Labels[0] != 7 {
		t.Errorf("%+v", got)
	}
}

func TestReadMNISTBadInput(t *testing.T) {
	dir := t.TempDir()
	lb := write(t, dir, "lb", idx(0x801, []uint32{2}, []byte{7, 2}))
	for name, c := range map[string]struct {
		images []byte
		labels string
		want   string
	}{
		"magic":     {idx(0x802, []uint32{1, 1, 1}, []byte{0}), lb, "magic"},
		"truncated": {idx(0x803, []uint32{2, 2, 2}, []byte{1, 2, 3}), lb, "3 data bytes, header claims 8"},
		"huge":      {idx(0x803, []uint32{1 << 20, 1 << 10, 1 << 10}, nil), lb, "claim more than"},
		"trailing":  {idx(0x803, []uint32{2, 1, 1}, []byte{1, 2, 3}), lb, "data past"},
		"count":     {idx(0x803, []uint32{3, 1, 1}, []byte{1, 2, 3}), lb, "2 labels for the 3 images"},
		"label":     {idx(0x803, []uint32{2, 1, 1}, []byte{1, 2}), write(t, dir, "bad", idx(0x801, []uint32{2}, []byte{7, 12})), "label 12"},
		"header":    {[]byte{0, 0, 8}, lb, "truncated header"},
	} {
		_, err := ReadMNIST(write(t, dir, name+".idx", c.images), c.labels)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
}

func TestReadUSPS(t *testing.T) {
	dir := t.TempDir()
	vals := make([]string, 256)
	for i := range vals {
		vals[i] = "-1.0000"
	}
	vals[5] = "1.0000"
	line := "6.0000 " + strings.Join(vals, " ") + " \n"
	got, err := ReadUSPS(write(t, dir, "u.gz", []byte(line+line)))
	if err != nil {
		t.Fatal(err)
	}
	if got.N != 2 || got.Labels[1] != 6 || got.Pixels[5] != 255 || got.Pixels[0] != 0 {
		t.Errorf("%+v", got.Labels)
	}
	for name, c := range map[string]struct{ text, want string }{
		"fields": {"6.0000 1 2\n", "3 fields"},
		"label":  {"12.0000 " + strings.Join(vals, " ") + "\n", "label"},
		"value":  {"1.0000 " + strings.Replace(strings.Join(vals, " "), "1.0000", "3.0000", 1) + "\n", "not in [-1, 1]"},
		"empty":  {"\n", "no samples"},
		"nan":    {"1.0000 " + strings.Replace(strings.Join(vals, " "), "1.0000", "NaN", 1) + "\n", `NaN" is not in [-1, 1]`},
	} {
		if _, err := ReadUSPS(write(t, dir, name, []byte(c.text))); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// The real files, when ../shared/datasets is beside the repository.
func TestRealFiles(t *testing.T) {
	dir := "../../../shared/datasets"
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared/datasets not found: skipping the real MNIST and USPS files")
	}
	m, err := ReadMNIST(filepath.Join(dir, "mnist/t10k-images-idx3-ubyte.gz"), filepath.Join(dir, "mnist/t10k-labels-idx1-ubyte.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if m.N != 10000 || m.H != 28 || m.W != 28 || m.Labels[0] != 7 {
		t.Errorf("MNIST test: %d images %dx%d, first label %d", m.N, m.H, m.W, m.Labels[0])
	}
	u, err := ReadUSPS(filepath.Join(dir, "usps/zip.test.gz"))
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, 10)
	for _, l := range u.Labels {
		counts[l]++
	}
	// Per-digit counts published with the data set.
	want := []int{359, 264, 198, 166, 200, 160, 170, 147, 166, 177}
	for d := range want {
		if counts[d] != want[d] {
			t.Errorf("USPS test: %d samples of digit %d, want %d", counts[d], d, want[d])
		}
	}
}
