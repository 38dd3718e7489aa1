package experiment

import (
	"testing"

	"github.com/ecl-go/ecl/datasets/digits"
	"github.com/ecl-go/ecl/datasets/digits/digitstest"
	"github.com/ecl-go/ecl/ecl"
)

// A tiny digit study trains every kind of row and is reproducible from its
// seed.
func TestRunDigitsIsSeeded(t *testing.T) {
	dir := t.TempDir()
	digitstest.Domains(t, dir, 60)
	c := DigitsConfig{
		Dir: dir, Arch: "lenet5",
		Split:  digits.SplitOptions{Target: "mnist", Sources: []string{"usps"}, MaxTest: 30},
		Study:  Study{Paradigms: []ecl.Paradigm{ecl.TopLabel, ecl.Canonical}, Methods: []string{"ts", "pseudocal", "softece", "drl"}, Control: true, Runs: 1, Seed: 2},
		Epochs: 10, Batch: 10, LR: 1e-2,
	}
	a, err := RunDigits(c)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Uncal", "TS", "PseudoCal", "Soft-ECE", "DRL", "CE-finetune", "ECL-toplabel", "ECL-canonical"}
	if len(a) != len(want) {
		t.Fatalf("%d rows, want %v", len(a), want)
	}
	for i, r := range a {
		if r.Method != want[i] || r.Diagram == nil || r.Diagram.TopLabel.N != 30 || r.Target.ACC < 0 || r.Target.ACC > 1 {
			t.Errorf("row %d: %s with diagram %v, ACC %v", i, r.Method, r.Diagram, r.Target.ACC)
		}
	}
	if a[1].Target.ACC != a[0].Target.ACC {
		t.Errorf("TS changed the accuracy: %v vs %v", a[1].Target.ACC, a[0].Target.ACC)
	}
	b, err := RunDigits(c)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i].Target != b[i].Target {
			t.Errorf("%s differs between runs: %+v vs %+v", a[i].Method, a[i].Target, b[i].Target)
		}
	}
	c.Arch = "vgg"
	if _, err := RunDigits(c); err == nil {
		t.Error("unknown architecture accepted")
	}
}
