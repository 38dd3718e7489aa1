package experiment

import (
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/datasets"
	"github.com/ecl-go/ecl/datasets/digits"
	"github.com/ecl-go/ecl/datasets/digits/digitstest"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/tensor"
)

// tinyDigits is a LeNet-5 study of seed seed on 60 rendered images per
// domain, usps→mnist, 30 test images, with the CE-finetune row.
func tinyDigits(t *testing.T, seed uint64, epochs int, paradigms []ecl.Paradigm, methods ...string) DigitsConfig {
	dir := t.TempDir()
	digitstest.Domains(t, dir, 60)
	return DigitsConfig{
		Dir: dir, Arch: "lenet5",
		Split:    digits.TaskOptions{Target: "mnist", Sources: []string{"usps"}, MaxTest: 30},
		Study:    Study{Paradigms: paradigms, Methods: methods, Control: true, Runs: 1, Seed: seed},
		Training: Training{Epochs: epochs, Batch: 10, LR: 1e-2},
	}
}

// A tiny digit study trains every kind of row and is reproducible from its
// seed.
func TestRunDigitsIsSeeded(t *testing.T) {
	c := tinyDigits(t, 2, 10, []ecl.Paradigm{ecl.TopLabel, ecl.Canonical}, "ts", "pseudocal", "softece", "drl")
	a, err := RunDigits(c)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Uncal", "TS", "PseudoCal", "Soft-ECE", "DRL", "CE-finetune", "ECL-toplabel", "ECL-canonical"}
	if len(a) != len(want) {
		t.Fatalf("%d rows, want %v", len(a), want)
	}
	for i, r := range a {
		if r.Method.String() != want[i] || r.Diagram == nil || r.Diagram.TopLabel.N != 30 || r.Target.ACC < 0 || r.Target.ACC > 1 {
			t.Errorf("row %d: %s with diagram %v, ACC %v", i, r.Method, r.Diagram, r.Target.ACC)
		}
	}
	if a[1].Target.ACC != a[0].Target.ACC {
		t.Errorf("TS changed the accuracy: %v vs %v", a[1].Target.ACC, a[0].Target.ACC)
	}
	// The second run saves its base network in a cache, the third loads
	// it: all three agree.
	c.BaseCache = t.TempDir()
	loaded := 0
	c.Log = func(format string, _ ...any) {
		if strings.Contains(format, "base network from") {
			loaded++
		}
	}
	for run := range 2 {
		b, err := RunDigits(c)
		if err != nil {
			t.Fatal(err)
		}
		for i := range a {
			if a[i].Target != b[i].Target {
				t.Errorf("run %d: %s differs: %+v vs %+v", run+2, a[i].Method, a[i].Target, b[i].Target)
			}
		}
		if files, _ := filepath.Glob(filepath.Join(c.BaseCache, "lenet5-mnist-seed2-*.state")); len(files) != 1 {
			t.Errorf("run %d: cache holds %v", run+2, files)
		}
		if loaded != run {
			t.Errorf("run %d: the base network was loaded %d times", run+2, loaded)
		}
	}
	c.Arch = "vgg"
	if _, err := RunDigits(c); err == nil {
		t.Error("unknown architecture accepted")
	}
}

// With two auxiliary-head splits, each ECL paradigm gives one row per
// split, named after it, with its diagnostics; the summary compares those
// rows by their paradigm's own error.
func TestRunDigitsAuxData(t *testing.T) {
	c := tinyDigits(t, 2, 2, []ecl.Paradigm{ecl.TopLabel, ecl.ClassWise})
	c.Split.ValFraction, c.Lambda, c.ECLEpochs, c.AuxData = 0.3, "adaptive", 3, []string{"train", "heldout"}
	rs, err := RunDigits(c)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Uncal", "CE-finetune", "ECL-toplabel-train", "ECL-toplabel-heldout", "ECL-classwise-train", "ECL-classwise-heldout"}
	if len(rs) != len(want) {
		t.Fatalf("%d rows, want %v", len(rs), want)
	}
	for i, r := range rs {
		if r.Method.String() != want[i] {
			t.Errorf("row %d: %s, want %s", i, r.Method, want[i])
		}
		if i < 2 {
			if r.Diag != nil {
				t.Errorf("%s has diagnostics", r.Method)
			}
			continue
		}
		d := r.Diag
		if d == nil || len(d.Aux) != 4 || len(d.Epochs) != 3 || d.AuxData != want[i][strings.LastIndex(want[i], "-")+1:] {
			t.Fatalf("%s: diagnostics %+v", r.Method, d)
		}
		if n := len(d.Aux[3].Estimate); n != map[bool]int{true: 1, false: 10}[i < 4] {
			t.Errorf("%s: %d estimates on the target", r.Method, n)
		}
		if e := d.Epochs[2]; e.Epoch != 3 || !(e.Lambda > 0) || !(e.GradRatio > 0) {
			t.Errorf("%s: last epoch %+v", r.Method, e)
		}
	}
	for _, s := range Summarize(rs)[2:] {
		if s.Wins < 0 || s.WinsCtl < 0 {
			t.Errorf("%s not compared with Uncal and CE-finetune", s.Method)
		}
	}
	for _, d := range AuxData {
		c.AuxData = []string{d}
		if _, err := c.recipe(); err != nil {
			t.Errorf("auxiliary data %s: %v", d, err)
		}
	}
	both := auxSets(rs2data(3), rs2data(2), rs2data(4))["oracle-both"]
	if both.X.Dim(0) != 6 || !slices.Equal(both.Y, []int{0, 1, 20, 21, 22, 23}) {
		t.Errorf("oracle-both: %d labels %v, %d rows", both.Len(), both.Y, both.X.Dim(0))
	}
	c.AuxData = []string{"val"}
	var se *SettingError
	if _, err := RunDigits(c); !errors.As(err, &se) || se.Field != "AuxData" || se.Value != "val" {
		t.Errorf("auxiliary data val: error %v", err)
	}
}

// With WholeNetwork the fine-tuning rows train the backbone on the images
// and differ from those that train the main head alone; Uncal does not.
func TestRunDigitsWholeNetwork(t *testing.T) {
	c := tinyDigits(t, 3, 2, []ecl.Paradigm{ecl.TopLabel}, "softece")
	head, err := RunDigits(c)
	if err != nil {
		t.Fatal(err)
	}
	c.WholeNetwork = true
	whole, err := RunDigits(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(whole) != 4 || len(head) != 4 {
		t.Fatalf("%d and %d rows, want 4", len(whole), len(head))
	}
	for i := range whole {
		if changed := whole[i].Target != head[i].Target; changed != (i > 0) {
			t.Errorf("%s: whole-network row changed %v, want %v", whole[i].Method, changed, i > 0)
		}
	}
}

// rs2data is n samples of 2 features labelled 10·(n−2)+i: the set a
// sample came from shows in its label.
func rs2data(n int) datasets.Split[float32] {
	y := make([]int, n)
	for i := range y {
		y[i] = 10*(n-2) + i
	}
	return datasets.Split[float32]{X: tensor.Zeros[float32](n, 2), Y: y}
}

// TestDigitsValidate: the command's defaults pass; each setting out of its
// range is a SettingError naming its field, returned by RunDigits before
// it reads the data directory (which does not exist here).
func TestDigitsValidate(t *testing.T) {
	ok := DigitsConfig{
		Dir: filepath.Join(t.TempDir(), "missing"), Arch: "lenet5",
		Split:    digits.TaskOptions{Target: "mnist", MaxSource: 10000, MaxTarget: 10000, MaxTest: 2000, ValFraction: 0.1},
		Study:    Study{Paradigms: []ecl.Paradigm{ecl.TopLabel}, Runs: 1, Seed: 1},
		Training: Training{Epochs: 10, Batch: 100, LR: 1e-3, AuxData: []string{"heldout"}},
	}
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults rejected: %v", err)
	}
	for field, change := range map[string]func(*DigitsConfig){
		"Batch":             func(c *DigitsConfig) { c.Batch = -5 },
		"Epochs":            func(c *DigitsConfig) { c.Epochs = 0 },
		"AuxEpochs":         func(c *DigitsConfig) { c.AuxEpochs = -1 },
		"ECLEpochs":         func(c *DigitsConfig) { c.ECLEpochs = -1 },
		"LR":                func(c *DigitsConfig) { c.LR = math.Inf(1) },
		"Arch":              func(c *DigitsConfig) { c.Arch = "vgg" },
		"Split.Target":      func(c *DigitsConfig) { c.Split.Target = "cifar" },
		"Split.Sources":     func(c *DigitsConfig) { c.Split.Sources = []string{"usps", "mnist"} },
		"Split.ValFraction": func(c *DigitsConfig) { c.Split.ValFraction = 1 },
		"Split.MaxTest":     func(c *DigitsConfig) { c.Split.MaxTest = -1 },
		"AuxData":           func(c *DigitsConfig) { c.AuxData = []string{"heldout", "test"} },
		"Loss.Tau":          func(c *DigitsConfig) { c.Loss.Tau = -1 },
		"Runs":              func(c *DigitsConfig) { c.Runs = 0 },
		"AuxFit":            func(c *DigitsConfig) { c.AuxFit, c.WholeNetwork = []string{"plain", "iw"}, true },
		"AuxFolds":          func(c *DigitsConfig) { c.AuxFolds = 1 },
	} {
		c := ok
		change(&c)
		var se *SettingError
		if _, err := RunDigits(c); !errors.As(err, &se) || se.Field != field {
			t.Errorf("%s out of range: error %v", field, err)
		}
	}
	c := ok
	c.LR = 0
	if err := c.Validate(); err == nil {
		t.Error("learning rate 0 accepted")
	}
}
