package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// ecl eval and ecl calibrate read one file by the same rules (the findings
// of issue 32, 2 and 3): a multi-label sigmoid file and a file of
// percentages are refused by both with the same message, naming the file
// and the row; a -bins beyond the cap is refused by both the same way; a
// forced -input logits on probabilities warns before any table.
func TestEvalAndCalibrateReadAlike(t *testing.T) {
	dir := t.TempDir()
	labels := writeFile(t, dir, "y.csv", []byte("0\n1\n2\n1\n"))
	sigmoid := writeFile(t, dir, "sigmoid.csv", []byte("0.9,0.8,0.1\n0.7,0.9,0.95\n0.2,0.1,0.3\n0.5,0.6,0.7\n"))
	percent := writeFile(t, dir, "percent.csv", []byte("70,20,10\n10,80,10\n5,5,90\n30,40,30\n"))
	probs := writeFile(t, dir, "probs.csv", []byte("0.7,0.2,0.1\n0.1,0.8,0.1\n0.05,0.05,0.9\n0.3,0.4,0.3\n"))
	eval := func(file string, extra ...string) error {
		_, err := captureStdout(t, func() error {
			return runEval(append([]string{"-probs", file, "-labels", labels, "-kde=false"}, extra...))
		})
		return err
	}
	calibrate := func(file string, extra ...string) error {
		_, err := captureStdout(t, func() error {
			return runCalibrate(append([]string{"-source", file, "-source-labels", labels, "-target", file, "-out", filepath.Join(dir, "out"), "-method", "ts", "-no-diagrams", "-bootstrap", "0"}, extra...))
		})
		return err
	}
	for _, c := range []struct {
		file, want string
		extra      []string
	}{
		{sigmoid, "sigmoid.csv: every entry lies in [0, 1] but row 2 sums to 2.55, not 1: per-class scores (a sigmoid per class, multi-label outputs?)", nil},
		{percent, "percent.csv: row 1 sums to 100 with entries in [0, 100]: probabilities in percent? ecl reads probabilities in [0, 1]: divide the file by 100", nil},
		{probs, "-bins 1000000: want 1 to 100000", []string{"-bins", "1000000"}},
	} {
		for name, run := range map[string]func(string, ...string) error{"eval": eval, "calibrate": calibrate} {
			if err := run(c.file, c.extra...); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s %s %v: error %v, want %q", name, filepath.Base(c.file), c.extra, err, c.want)
			}
		}
	}
	for name, run := range map[string]func(string, ...string) error{"eval": eval, "calibrate": calibrate} {
		stderr, err := captureStderr(t, func() error { return run(probs, "-input", "logits") })
		if err != nil {
			t.Fatalf("%s -input logits: %v", name, err)
		}
		if !strings.Contains(stderr, "ecl: warning: "+probs+": -input logits, but every row is already probabilities") {
			t.Errorf("%s -input logits on probabilities: standard error %q, want the warning", name, stderr)
		}
	}
}
