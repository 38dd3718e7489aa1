package digits

import (
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/datasets"
	"github.com/ecl-go/ecl/datasets/digits/digitstest"
)

func TestNewTask(t *testing.T) {
	dir := t.TempDir()
	digitstest.Domains(t, dir, 40)
	o := TaskOptions{Target: "mnist", MaxSource: 30, MaxTest: 15, Seed: 7}
	sp, err := NewTask(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	// svhn is absent; usps and the rendered synth domain make the source.
	if !slices.Equal(sp.Sources, []string{"usps", "synth"}) {
		t.Fatalf("sources %v", sp.Sources)
	}
	if sp.Source.Len()+sp.Val.Len() != 60 || sp.Val.Len() != 6 || sp.Unlabelled.Len() != 40 || sp.Test.Len() != 15 {
		t.Fatalf("sizes: source %d, val %d, unlabelled %d, test %d", sp.Source.Len(), sp.Val.Len(), sp.Unlabelled.Len(), sp.Test.Len())
	}
	names := map[string]string{"source": "usps+synth train", "val": "usps+synth held-out", "unlabelled": "mnist train", "test": "mnist test"}
	for name, s := range map[string]datasets.Split[float32]{"source": sp.Source, "val": sp.Val, "unlabelled": sp.Unlabelled, "test": sp.Test} {
		if s.Name != names[name] {
			t.Errorf("%s: named %q, want %q", name, s.Name, names[name])
		}
		if want := []int{s.Len(), 3, InputSize, InputSize}; !slices.Equal(s.X.Shape(), want) {
			t.Errorf("%s: shape %v, want %v", name, s.X.Shape(), want)
		}
		for _, v := range s.X.Data() {
			if v < -1 || v > 1 {
				t.Fatalf("%s: value %v outside [−1, 1]", name, v)
			}
		}
	}
	// The test images keep their labels and pixels: sample n, image i of the
	// file, lights the rows r ≡ i (mod 10) at level (255−i)/255 normalised
	// to [−1, 1], and is labelled i mod 10.
	plane := InputSize * InputSize
	x := sp.Test.X.Data()
	for n, y := range sp.Test.Y {
		level := x[n*3*plane+y*InputSize]
		i := 255 - int((level+1)*127.5+0.5)
		if i%10 != y || x[n*3*plane+((y+1)%10)*InputSize] != -1 {
			t.Fatalf("test sample %d: level %v (image %d) with label %d", n, level, i, y)
		}
	}
	again, err := NewTask(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again.Source.X.Data(), sp.Source.X.Data()) || !slices.Equal(again.Val.Y, sp.Val.Y) {
		t.Error("the same seed gave another split")
	}
	o.Seed = 8
	other, err := NewTask(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(other.Source.Y, sp.Source.Y) {
		t.Error("another seed gave the same source order")
	}
}

func TestNewTaskErrors(t *testing.T) {
	dir := t.TempDir()
	digitstest.Domains(t, dir, 20)
	for _, c := range []struct {
		o    TaskOptions
		want string
	}{
		{TaskOptions{Target: "cifar"}, "unknown target domain"},
		{TaskOptions{Target: "svhn"}, "files not found"},
		{TaskOptions{Target: "usps", Sources: []string{"usps"}}, "other than the target"},
		{TaskOptions{Target: "usps", Sources: []string{"svhn"}}, "svhn"},
		{TaskOptions{Target: "usps", Sources: []string{}}, "no source"},
		{TaskOptions{Target: "usps", ValFraction: 1.5}, "validation fraction"},
		{TaskOptions{Target: "usps", Sources: []string{"mnist"}, MaxSource: 1}, "none for training"},
	} {
		if _, err := NewTask(dir, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.o, err, c.want)
		}
	}
	if _, err := Load(dir, "mnist", "valid", 0, 1); err == nil {
		t.Error("split valid accepted")
	}
}
