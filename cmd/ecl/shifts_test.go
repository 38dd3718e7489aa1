package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/datasets/digits/digitstest"
	"github.com/ecl-go/ecl/experiment/sweep"
)

// shiftsTable is ecl shifts's printed output without the wall time.
func shiftsTable(stdout []byte) string {
	return regexp.MustCompile(`(?m)^(shifts .*), [0-9.hms]+$`).ReplaceAllString(string(stdout), "$1")
}

// ecl shifts on tiny generated digits (2 seeds × 3 targets), killed with
// SIGKILL once seed 2 starts and seed 1's three records are written, and
// run again, reuses the runs seed 1 finished and ends with the tables,
// run files, results and figures of an uninterrupted run.
func TestShiftsKilledAndResumedMatchesUninterrupted(t *testing.T) {
	bin := buildECL(t)
	data := t.TempDir()
	digitstest.Domains(t, data, 60)
	args := []string{"shifts", "-data", data, "-dataset", "mnist", "-transforms", "rotate,shot-noise", "-angles", "0,90", "-severities", "2",
		"-runs", "2", "-epochs", "3", "-aux-epochs", "2", "-ecl-epochs", "2", "-batch", "10", "-lr", "0.01",
		"-max-source", "0", "-max-target", "10", "-max-test", "10", "-methods", "ts,pseudocal", "-paradigms", "toplabel,classwise", "-out", "out"}
	want, _, wantFiles := uninterrupted(t, bin, args...)
	for _, f := range []string{"figures/metric-ece.png", "figures/map-uncal.svg", "figures/estimates.png", "results.json"} {
		if _, ok := wantFiles[f]; !ok {
			t.Errorf("the study wrote no %s", f)
		}
	}
	if !strings.Contains(string(want), "ECL-classwise against CE-finetune") {
		t.Errorf("no map printed:\n%s", want)
	}
	dir := t.TempDir()
	records := filepath.Join(dir, "out", "runs", "*.json")
	killWhen(t, bin, args, dir, "seed 2: lenet5", func() bool { m, _ := filepath.Glob(records); return len(m) >= 3 })
	runs, _ := filepath.Glob(records)
	if len(runs) != 3 {
		t.Fatalf("killed as seed 2 started: %d run files, want seed 1's 3", len(runs))
	}
	got, log := resumeIn(t, "killed as seed 2 started", bin, args, dir)
	if shiftsTable(got) != shiftsTable(want) {
		t.Errorf("tables differ:\n%s\nwant\n%s", got, want)
	}
	sameStudyFiles(t, "killed as seed 2 started", studyFiles(t, filepath.Join(dir, "out")), wantFiles)
	if strings.Contains(log, "seed 1: lenet5") || strings.Contains(log, "seed 1: base epoch") {
		t.Errorf("the resumed study ran seed 1 again:\n%s", log)
	}
}

// ecl sweep spreads a graded-shift study over its transforms, one job
// each, and checks every job's flags before it runs.
func TestSweepShifts(t *testing.T) {
	vary := sweep.Vary{{Flag: "transforms", Values: []string{"rotate", "shear"}}}
	_, jobs, err := sweepJobs("", []string{"shifts", "-data", t.TempDir(), "-runs", "2"}, vary, "out")
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[1].Name != "transforms=shear" || jobs[1].Args[len(jobs[1].Args)-3] != "-transforms=shear" {
		t.Errorf("jobs %+v, want one per transform", jobs)
	}
	_, _, err = sweepJobs("", []string{"shifts", "-runs", "2"}, sweep.Vary{{Flag: "transforms", Values: []string{"fog"}}}, "out")
	if err == nil || !strings.Contains(err.Error(), "fog") {
		t.Errorf("a job with an unknown transform: error %v, want one naming it", err)
	}
}
