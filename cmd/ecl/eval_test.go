package main

import (
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/ecl/metrics"
)

// captureStdout runs f and returns what it printed.
func captureStdout(t *testing.T, f func() error) (string, error) {
	t.Helper()
	r, w, _ := os.Pipe()
	old := os.Stdout
	os.Stdout = w
	err := f()
	w.Close()
	os.Stdout = old
	b, _ := io.ReadAll(r)
	return string(b), err
}

func TestEvalJSONMatchesMetrics(t *testing.T) {
	dir := t.TempDir()
	probs := []float64{0.25, 0.20, 0.55, 0.55, 0.05, 0.40, 0.10, 0.30, 0.60, 0.90, 0.05, 0.05}
	labels := []int{0, 1, 2, 0}
	pp, lp := filepath.Join(dir, "p.csv"), filepath.Join(dir, "y.csv")
	os.WriteFile(pp, []byte("p0,p1,p2\n0.25,0.20,0.55\n0.55,0.05,0.40\n0.10,0.30,0.60\n0.90,0.05,0.05\n"), 0o644)
	os.WriteFile(lp, []byte("0\n1\n2\n0\n"), 0o644)
	out, err := captureStdout(t, func() error {
		return runEval([]string{"-probs", pp, "-labels", lp, "-bins", "3", "-json", "-out", filepath.Join(dir, "d")})
	})
	if err != nil {
		t.Fatal(err)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	// The torchmetrics example of SPEC §5: 3 bins, L1 0.2000, max 0.2333.
	if math.Abs(rep.ECE-0.2) > 1e-4 || math.Abs(rep.MCE-0.2333) > 1e-4 {
		t.Errorf("ECE %v, MCE %v", rep.ECE, rep.MCE)
	}
	cw, _ := metrics.ClasswiseECE(probs, 3, labels, metrics.Options{Bins: 3})
	if rep.CwECE != cw.Error || rep.N != 4 || rep.K != 3 || rep.ACC != 0.5 {
		t.Errorf("report %+v", rep)
	}
	for _, f := range []string{"top-label.png", "classwise.svg", "canonical.png"} {
		if st, err := os.Stat(filepath.Join(dir, "d", f)); err != nil || st.Size() == 0 {
			t.Errorf("diagram %s: %v", f, err)
		}
	}
}

func TestEvalErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	pp, lp := filepath.Join(dir, "p.csv"), filepath.Join(dir, "y.csv")
	os.WriteFile(pp, []byte("0.5,0.5\n0.9,0.3\n"), 0o644)
	os.WriteFile(lp, []byte("0\n"), 0o644)
	_, err := captureStdout(t, func() error { return runEval([]string{"-probs", pp, "-labels", lp}) })
	if err == nil || !strings.Contains(err.Error(), "y.csv") {
		t.Errorf("label count: %v", err)
	}
	os.WriteFile(lp, []byte("0\n1\n"), 0o644)
	_, err = captureStdout(t, func() error { return runEval([]string{"-probs", pp, "-labels", lp}) })
	if err == nil || !strings.Contains(err.Error(), "p.csv: row 2") {
		t.Errorf("bad probabilities: %v", err)
	}
	if _, err := captureStdout(t, func() error { return runEval([]string{"-probs", pp, "-labels", lp, "-logits"}) }); err != nil {
		t.Errorf("-logits: %v", err)
	}
}

func TestSimCommandShortRun(t *testing.T) {
	dir := t.TempDir()
	out, err := captureStdout(t, func() error {
		return runSim([]string{"-runs", "1", "-shifts", "uniform", "-points", "60", "-hidden", "8", "-base-epochs", "2", "-aux-epochs", "1", "-ecl-epochs", "1", "-quiet", "-out", dir})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"shift uniform", "Uncal", "CE-finetune", "ECL-canonical", "ECL-classwise", "ECL-toplabel"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"results.json", "results.csv"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	ds, _ := os.ReadDir(filepath.Join(dir, "diagrams"))
	if len(ds) != 5*3*2 {
		t.Errorf("%d diagram files, want 5 models × 3 diagrams × 2 formats", len(ds))
	}
}
