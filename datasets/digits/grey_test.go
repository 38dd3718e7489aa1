package digits_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ecl-go/ecl/datasets/digits"
	"github.com/ecl-go/ecl/datasets/digits/digitstest"
)

// Fashion-MNIST, in MNIST's IDX files under fashion/, reads as MNIST does
// (ReadGrey, Load), and HoldOut keeps its fraction apart from the rest.
func TestFashionReadsAsMNIST(t *testing.T) {
	dir := t.TempDir()
	digitstest.Domains(t, dir, 40)
	if err := os.Rename(filepath.Join(dir, "mnist"), filepath.Join(dir, "fashion")); err != nil {
		t.Fatal(err)
	}
	im, err := digits.ReadGrey(dir, "fashion", "test")
	if err != nil {
		t.Fatal(err)
	}
	if im.N != 20 || im.H != 28 || im.Labels[13] != 3 {
		t.Errorf("%d images of %d×%d, label 13 = %d; want 20 of 28×28 labelled i mod 10", im.N, im.H, im.W, im.Labels[13])
	}
	s, err := digits.Load(dir, "fashion", "train", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	train, held, err := digits.HoldOut(s, 0.25, 7)
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 30 || held.Len() != 10 {
		t.Errorf("held out %d of %d, want 10 of 40", held.Len(), s.Len())
	}
	labels := slices.Concat(train.Y, held.Y)
	slices.Sort(labels)
	want := slices.Clone(s.Y)
	slices.Sort(want)
	if !slices.Equal(labels, want) {
		t.Error("the two parts do not hold the set's samples")
	}
	if _, err := digits.ReadGrey(dir, "usps", "test"); err == nil {
		t.Error("ReadGrey of usps: no error")
	}
	if _, _, err := digits.HoldOut(s, 1, 7); err == nil {
		t.Error("HoldOut of the whole set: no error")
	}
}
