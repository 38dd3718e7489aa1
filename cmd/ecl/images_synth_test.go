package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The stand-in end to end: ecl data synth-domains writes a small set (280
// images), ecl images runs every method on it with LeNet-5 for two seeds,
// is killed in the second seed's base stage and run again, and ends with
// the tables and files of an uninterrupted run; the first seed is not run
// again.
func TestImagesSynthDomainsKilledAndResumed(t *testing.T) {
	bin := buildECL(t)
	data := filepath.Join(t.TempDir(), "shapes")
	gen, err := exec.Command(bin, "data", "synth-domains", "-out", data, "-per-class", "10", "-size", "32", "-seed", "4").CombinedOutput()
	if err != nil || !strings.Contains(string(gen), "280 images") {
		t.Fatalf("synth-domains: %v\n%s", err, gen)
	}
	args := []string{"images", "-data", data, "-target", "sketch", "-arch", "lenet5", "-epochs", "12", "-aux-epochs", "2", "-ecl-epochs", "2",
		"-batch", "10", "-lr", "0.001", "-runs", "2", "-diagram-dpi", "40", "-out", "out"}
	want, took, wantFiles := uninterrupted(t, bin, args...)
	t.Logf("uninterrupted run %v", took)
	for _, row := range []string{"images →sketch, lenet5, 2 runs", "Uncal", "TS", "PseudoCal", "DRL", "Oracle", "CE-finetune", "ECL-toplabel", "ECL-classwise", "ECL-canonical"} {
		if !strings.Contains(string(want), row) {
			t.Errorf("no %q in the tables:\n%s", row, want)
		}
	}
	for _, f := range []string{"results.json", "results.csv"} {
		if _, ok := wantFiles[f]; !ok {
			t.Errorf("no %s among %d files", f, len(wantFiles))
		}
	}
	dir := t.TempDir()
	killAfter(t, bin, args, dir, "seed 2: base epoch 5/12")
	log := resumeMatches(t, "killed after seed 2: base epoch 5/12", bin, args, dir, want, wantFiles)
	if !strings.Contains(log, "seed 2: base stage resumed after epoch") || strings.Contains(log, "seed 1:") {
		t.Errorf("seed 2 not resumed, or seed 1 run again:\n%s", log)
	}
}
