package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/datasets/arrays"
	"github.com/ecl-go/ecl/datasets/images/imagestest"
)

// The archive holds the first -max images' tensors, their paths and the
// transform's sizes; bad flags are errors naming them.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "img")
	paths, err := imagestest.Tree(data, []string{"a", "b"}, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "x.npz")
	if err := run([]string{"-data", data, "-out", out, "-resize", "20", "-crop", "16", "-max", "3"}); err != nil {
		t.Fatal(err)
	}
	x, shape, err := arrays.ReadNPZ(out, "x")
	if err != nil || !slices.Equal(shape, []int{3, 3, 16, 16}) || len(x) != 3*3*16*16 {
		t.Fatalf("x: %v %v", shape, err)
	}
	got, err := arrays.ReadNPZStrings(out, "paths")
	if err != nil || !slices.Equal(got, paths[:3]) {
		t.Errorf("paths %v, want %v (%v)", got, paths[:3], err)
	}
	if crop, _, err := arrays.ReadNPZ(out, "crop"); err != nil || crop[0] != 16 {
		t.Errorf("crop %v %v", crop, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-out", out}, "-data and -out are required"},
		{[]string{"-data", data, "-out", out, "-crop", "300"}, "-resize 256, -crop 300"},
		{[]string{"-data", filepath.Join(dir, "absent"), "-out", out}, "-data"},
		{[]string{"-data", data, "-out", out, "-max", "-1"}, "-max -1"},
	} {
		if err := run(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.args, err, c.want)
		}
	}
}
