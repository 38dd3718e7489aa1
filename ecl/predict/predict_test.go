package predict_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/ecl/calib"
	"github.com/ecl-go/ecl/ecl/predict"
)

func TestReadScores(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, csv, mode string
		kind, how       string // want; how: a substring of the report
		k               int
		err             string
	}{
		{"rounded", "0.3333,0.3333,0.3333\n0.1,0.2,0.7\n", "auto", "probabilities", "renormalised", 3, ""},
		{"logits", "2.5,-1,0.3\n0.1,4,0.2\n", "auto", "logits", "detected", 3, ""},
		{"unit-not-simplex", "0.5,0.9,0.1\n0.2,0.2,0.2\n", "auto", "", "", 0, "row 1 sums to 1.5, not 1"},
		{"unit-not-simplex-probs", "0.5,0.9,0.1\n0.2,0.2,0.2\n", "probs", "probabilities", "renormalised", 3, ""},
		{"percent", "20,30,50\n10,10,80\n", "auto", "", "", 0, "divide the file by 100"},
		{"probs-as-logits", "0.2,0.8\n0.6,0.4\n", "logits", "logits", "warning", 2, ""},
		{"binary-prob", "p\n0.2\n0.9\n", "auto", "probabilities", "one column", 2, ""},
		{"binary-logit", "-2.5\n3\n", "auto", "logits", "one column", 2, ""},
		{"forced-probs", "1.5,-0.5\n0.2,0.8\n", "probs", "", "", 0, "1.5 is not a probability"},
		{"header-only", "a,b\n", "auto", "", "", 0, "no numeric rows"},
	} {
		p := filepath.Join(dir, c.name+".csv")
		if err := os.WriteFile(p, []byte(c.csv), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := predict.ReadScores(p, predict.Mode(c.mode))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), c.name) {
				t.Errorf("%s: error %v, want one naming the file and %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if s.Kind != c.kind || s.K != c.k || !strings.Contains(s.How, c.how) {
			t.Errorf("%s: %s, %d classes, %q; want %s, %d, containing %q", c.name, s.Kind, s.K, s.How, c.kind, c.k, c.how)
		}
	}
	// Probabilities become logits whose softmax gives them back,
	// renormalised: the rounded row (⅓ each to 4 decimals) is uniform.
	s, _ := predict.ReadScores(filepath.Join(dir, "rounded.csv"), predict.Auto)
	p := calib.Softmax(s.Logits, 3)
	for j, want := range []float64{1. / 3, 1. / 3, 1. / 3, 0.1, 0.2, 0.7} {
		if math.Abs(p[j]-want) > 1e-12 {
			t.Errorf("probabilities read back %v", p)
			break
		}
	}
	// A single column of P(class 1) gives [1 − p, p].
	s, _ = predict.ReadScores(filepath.Join(dir, "binary-prob.csv"), predict.Auto)
	if p := calib.Softmax(s.Logits, 2); math.Abs(p[1]-0.2) > 1e-12 || math.Abs(p[3]-0.9) > 1e-12 {
		t.Errorf("binary column read as %v", p)
	}
}

func TestDetect(t *testing.T) {
	for _, c := range []struct {
		name  string
		data  []float64
		cols  int
		probs bool
		dev   float64
		worst int
	}{
		{"exact", []float64{0.2, 0.8, 0.5, 0.5}, 2, true, 0, 0},
		{"rounded", []float64{0.333, 0.333, 0.333, 0.1, 0.2, 0.7}, 3, true, 0.001, 0},
		// A row 0.006 off is still rounding; 0.02 off is not.
		{"within tolerance", []float64{0.5, 0.506, 0.3, 0.7}, 2, true, 0.006, 0},
		{"beyond tolerance", []float64{0.3, 0.7, 0.5, 0.52}, 2, false, 0.02, 1},
		{"outside unit", []float64{1.5, -0.5}, 2, false, 0, 0},
		{"one column", []float64{0.1, 0.9, 0.4}, 1, true, 0, 0},
		{"one column logit", []float64{-2, 3}, 1, false, 0, 0},
	} {
		d := predict.Detect(c.data, c.cols)
		if d.Probabilities != c.probs || math.Abs(d.Dev-c.dev) > 1e-12 || d.Worst != c.worst {
			t.Errorf("%s: %+v, want probabilities %v, dev %v in row %d", c.name, d, c.probs, c.dev, c.worst)
		}
	}
}

// Both readers follow Classify's rules: the same kind, the same error (a
// FileError naming the file and the row), the same warning.
func TestReadersAgree(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, csv string
		mode      predict.Mode
		kind      string // or the error's text
		warn      bool
	}{
		{"near", "0.5,0.505\n0.3,0.7\n", predict.Auto, "probabilities", false},
		{"logits", "2,-1\n0.5,3\n", predict.Auto, "logits", false},
		{"far", "0.5,0.55\n0.3,0.7\n", predict.Auto, "row 1 sums to 1.05, not 1", false},
		{"far-probs", "0.5,0.55\n0.3,0.7\n", predict.Probs, "probabilities", false},
		{"sigmoid", "0.9,0.8,0.1\n0.7,0.9,0.95\n", predict.Auto, "a sigmoid per class", false},
		{"percent", "25,75\n60,40\n", predict.Auto, "row 1 sums to 100 with entries in [0, 100]", false},
		{"percent-probs", "25,75\n60,40\n", predict.Probs, "divide the file by 100", false},
		{"forced-logits", "0.25,0.75\n0.6,0.4\n", predict.Logits, "logits", true},
	} {
		p := filepath.Join(dir, c.name+".csv")
		if err := os.WriteFile(p, []byte(c.csv), 0o644); err != nil {
			t.Fatal(err)
		}
		s, serr := predict.ReadScores(p, c.mode)
		pr, perr := predict.ReadProbabilities(p, "y", []int{0, 1}, c.mode)
		if c.kind != "probabilities" && c.kind != "logits" {
			for _, err := range []error{serr, perr} {
				var fe *predict.FileError
				if !errors.As(err, &fe) || fe.Path != p || !strings.Contains(fe.Reason, c.kind) {
					t.Errorf("%s: error %v, want a FileError naming the file and %q", c.name, err, c.kind)
				}
			}
			continue
		}
		if serr != nil || perr != nil {
			t.Fatalf("%s: %v, %v", c.name, serr, perr)
		}
		if s.Kind != c.kind || pr.Input != c.kind {
			t.Errorf("%s: ReadScores %s, ReadProbabilities %s, want %s", c.name, s.Kind, pr.Input, c.kind)
		}
		if (len(s.Warnings) > 0) != c.warn || (len(pr.Warnings) > 0) != c.warn {
			t.Errorf("%s: warnings %q and %q, want some: %v", c.name, s.Warnings, pr.Warnings, c.warn)
		}
	}
}

func TestReadProbabilities(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Rounded rows are renormalised: ⅓ to 4 decimals becomes exactly
	// uniform.
	p, err := predict.ReadProbabilities(write("r.csv", "0.3333,0.3333,0.3333\n0.1,0.2,0.7\n"), "y", []int{0, 2}, predict.Auto)
	if err != nil {
		t.Fatal(err)
	}
	if p.K != 3 || p.Input != "probabilities" || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "renormalised") {
		t.Errorf("rounded: %+v", p)
	}
	for j, want := range []float64{1. / 3, 1. / 3, 1. / 3, 0.1, 0.2, 0.7} {
		if math.Abs(p.Probs[j]-want) > 1e-12 {
			t.Fatalf("rounded rows read as %v", p.Probs)
		}
	}
	// A binary logit column: P(y = 1) = σ(z); σ(0) = ½, σ(ln 3) = ¾.
	p, err = predict.ReadProbabilities(write("z.csv", "0\n1.0986122886681098\n-5\n"), "y", []int{0, 1, 0}, predict.Auto)
	if err != nil {
		t.Fatal(err)
	}
	if p.K != 2 || p.Input != "logits" || math.Abs(p.Probs[1]-0.5) > 1e-12 || math.Abs(p.Probs[3]-0.75) > 1e-12 {
		t.Errorf("binary logits read as %+v", p)
	}
	// -logits on probabilities is refused; labels out of range name the
	// labels file.
	probs := write("p.csv", "0.2,0.8\n0.6,0.4\n")
	for _, c := range []struct {
		labels []int
		mode   predict.Mode
		path   string
		reason string
	}{
		{[]int{0, 1}, predict.LogitsChecked, probs, "already probabilities"},
		{[]int{0, 2}, predict.Auto, "labels.txt", "row 2: label 2 outside [0, 2)"},
		{[]int{0}, predict.Auto, "labels.txt", "1 labels for the 2 rows"},
	} {
		_, err := predict.ReadProbabilities(probs, "labels.txt", c.labels, c.mode)
		var fe *predict.FileError
		if !errors.As(err, &fe) || fe.Path != c.path || !strings.Contains(fe.Reason, c.reason) {
			t.Errorf("labels %v, mode %s: error %v, want one on %s with %q", c.labels, c.mode, err, c.path, c.reason)
		}
	}
}

// ReadScores takes logarithms of probabilities with the calibrators' floor.
func TestProbFloorIsCalibs(t *testing.T) {
	p := filepath.Join(t.TempDir(), "zero.csv")
	if err := os.WriteFile(p, []byte("0\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := predict.ReadScores(p, predict.Probs)
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Log(calib.ProbFloor); s.Logits[1] != want || s.Logits[2] != want {
		t.Errorf("logits %v, want ln(calib.ProbFloor) = %v for the zero probabilities", s.Logits, want)
	}
}

func TestUnknownMode(t *testing.T) {
	var me *predict.ModeError
	if _, err := predict.ReadScores("any.csv", "prob"); !errors.As(err, &me) || me.Mode != "prob" {
		t.Errorf("ReadScores: error %v, want a ModeError", err)
	}
	if _, err := predict.ReadProbabilities("any.csv", "y.csv", []int{0}, ""); !errors.As(err, &me) || me.Mode != "" {
		t.Errorf("ReadProbabilities: error %v, want a ModeError", err)
	}
}
