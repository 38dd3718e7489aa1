package arrays

import (
	"archive/zip"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// npzMembers maps each member of a .npz archive to its bytes.
func npzMembers(t *testing.T, path string) map[string][]byte {
	t.Helper()
	z, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	out := map[string][]byte{}
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = b
	}
	return out
}

// WriteNPZ writes each array member byte for byte as numpy.savez does
// (testdata/savez.npz, made by make_savez.py).
func TestWriteNPZMatchesNumPy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.npz")
	err := WriteNPZ(path,
		Strings("paths", []string{"cat/a.jpg", "dög/ß.png", ""}),
		Float32s("f", []float32{1.5, -2, 0.25, 3e38}, 2, 2),
		Float64s("d", []float64{1e-300, math.Copysign(0, -1), 2.5}),
		Int64s("i", []int64{-3, 0, 1 << 40}))
	if err != nil {
		t.Fatal(err)
	}
	got, want := npzMembers(t, path), npzMembers(t, "testdata/savez.npz")
	for _, name := range []string{"paths.npy", "f.npy", "d.npy", "i.npy"} {
		if string(got[name]) != string(want[name]) {
			t.Errorf("%s: %q\nnumpy.savez: %q", name, got[name], want[name])
		}
	}
	if len(got) != 4 {
		t.Errorf("%d members, want 4", len(got))
	}
}

func TestReadNPZStrings(t *testing.T) {
	s, err := ReadNPZStrings("testdata/savez.npz", "paths")
	if err != nil || !slices.Equal(s, []string{"cat/a.jpg", "dög/ß.png", ""}) {
		t.Errorf("paths: %q, %v", s, err)
	}
	if s, err := ReadNPZStrings("testdata/savez.npz", "big"); err != nil || !slices.Equal(s, []string{"xy", "z"}) {
		t.Errorf("big-endian: %q, %v", s, err)
	}
	if _, err := ReadNPZStrings("testdata/savez.npz", "f"); err == nil || !strings.Contains(err.Error(), `savez.npz:f: offset 10: dtype "<f4", want strings`) {
		t.Errorf("numbers as strings: %v", err)
	}
	if _, err := ReadNPZStrings("testdata/savez.npz", "nope"); err == nil || !strings.Contains(err.Error(), `no array "nope"`) {
		t.Errorf("missing: %v", err)
	}
	// The numbers read back as numbers.
	if d, shape, err := ReadNPZ("testdata/savez.npz", "i"); err != nil || !slices.Equal(shape, []int{3}) || !slices.Equal(d, []float64{-3, 0, 1 << 40}) {
		t.Errorf("i: %v %v %v", d, shape, err)
	}
	// A header promising more strings than the member holds is refused
	// before anything is allocated for them.
	dir := t.TempDir()
	forged := npy("<U4", false, "1000000000000,", make([]byte, 16))
	p := filepath.Join(dir, "forged.npz")
	if err := os.WriteFile(p, npzFile(t, false, map[string][]byte{"paths": forged}), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadNPZStrings(p, "paths"); err == nil || !strings.Contains(err.Error(), "the array holds 16") {
		t.Errorf("forged count: %v", err)
	}
}

func TestWriteNPZBadInput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.npz")
	for _, c := range []struct {
		arrays []Array
		want   string
	}{
		{[]Array{Float32s("a", []float32{1, 2, 3}, 2, 2)}, `array "a": 3 values for shape [2 2]`},
		{[]Array{Float32s("a", nil), Int64s("a", nil)}, `two arrays named "a"`},
		{[]Array{Float32s("a/b", nil)}, `array name "a/b"`},
		{[]Array{{Name: "z"}}, `array "z": made without`},
	} {
		if err := WriteNPZ(path, c.arrays...); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("error %v, want one naming %s with %q", err, path, c.want)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a refused write left %s: %v", path, err)
	}
}
