package report

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ecl-go/ecl/datasets/sim"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/plot"
	"github.com/ecl-go/ecl/experiment"
)

// StudyTables prints a table per shift with every metric in %, NLL as is,
// and the seeds-improved columns of the rows that have them.
func TestStudyTables(t *testing.T) {
	stats := func(v float64) map[string]experiment.Stat {
		m := map[string]experiment.Stat{}
		for _, n := range experiment.ScoreNames {
			m[n] = experiment.Stat{Mean: v, Std: v / 10}
		}
		return m
	}
	ss := []experiment.Summary{
		{Shift: experiment.SimShift(sim.Uniform), Method: experiment.ParseMethodID("Uncal"), Setup: "s", Runs: 2, Target: stats(0.5), Source: stats(0.25), Wins: -1, WinsCtl: -1},
		{Shift: experiment.SimShift(sim.Uniform), Method: experiment.ParseMethodID("ECL-toplabel"), Setup: "s", Runs: 2, Target: stats(0.125), Source: stats(0.25), Wins: 2, Delta: -0.0123, WinsCtl: 1, DeltaCtl: 0.005},
	}
	var b strings.Builder
	StudyTables(&b, "recipe paper", ss, 1600*time.Millisecond)
	lines := strings.Split(b.String(), "\n")
	if lines[0] != "recipe paper, 2s" || !strings.HasPrefix(lines[2], "shift uniform: target metrics in %, mean ± std over seeds;") {
		t.Errorf("heading:\n%s", b.String())
	}
	// %-15s %-36s, then " %13s" a metric (widths count runes), " %11s" a
	// source one.
	want := "ECL-toplabel    s" + strings.Repeat(" ", 35+1+3) + strings.Repeat("12.50±1.25    ", 4) + "12.50±1.25   0.125±0.013    12.50±1.25  25.00±2.50  25.00±2.50    2/2   -1.23    1/2   +0.50"
	if lines[6] != want {
		t.Errorf("ECL row\n%q, want\n%q", lines[6], want)
	}
	if !strings.HasSuffix(lines[5], "50.00±5.00  25.00±2.50  25.00±2.50") {
		t.Errorf("Uncal row %q, want no seeds-improved columns", lines[5])
	}
}

// WriteResults writes the JSON and one CSV row per fitted model.
func TestWriteResults(t *testing.T) {
	dir := t.TempDir()
	rs := []experiment.Result{
		{Shift: experiment.SimShift(sim.Normal), Method: experiment.ParseMethodID("Uncal"), Setup: "s", Seed: 3, Target: experiment.Scores{ACC: 0.75, NLL: 1.5}, Source: experiment.Scores{ECE: 0.25}},
	}
	if err := WriteResults(dir, []string{"sim", "-runs", "1"}, rs, experiment.Summarize(rs)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want := "shift,method,setup,seed,target_ACC,target_ECE,target_CwECE,target_CanECE,target_KDE,target_NLL,target_Brier,source_ACC,source_ECE,source_CwECE,source_CanECE,source_KDE,source_NLL,source_Brier\n" +
		"normal,Uncal,s,3,0.75,0,0,0,0,1.5,0,0,0.25,0,0,0,0,0\n"
	if string(b) != want {
		t.Errorf("results.csv:\n%s\nwant:\n%s", b, want)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "results.json")); err != nil || !strings.Contains(string(b), `"Args": [`) {
		t.Errorf("results.json: %v\n%s", err, b)
	}
}

// calibrated is a result of seed with the calibrations of a k-class
// sample.
func calibrated(t *testing.T, method, setup string, seed uint64, k int) experiment.Result {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, uint64(k)))
	probs, labels := make([]float64, 0, 200*k), make([]int, 200)
	for i := range labels {
		w, s := make([]float64, k), 0.0
		for c := range w {
			w[c] = r.ExpFloat64()
			s += w[c]
		}
		for _, v := range w {
			probs = append(probs, v/s)
		}
		labels[i] = r.IntN(k)
	}
	var c experiment.Calibrations
	var err error
	if c.TopLabel, err = metrics.ECE(probs, k, labels, metrics.Options{}); err != nil {
		t.Fatal(err)
	}
	if c.Classwise, err = metrics.ClasswiseECE(probs, k, labels, metrics.Options{}); err != nil {
		t.Fatal(err)
	}
	if k == 3 {
		can, err := metrics.CanonicalECE(probs, k, labels, metrics.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c.Canonical = &can
	}
	return experiment.Result{Shift: experiment.SimShift(sim.Uniform), Method: experiment.ParseMethodID(method), Setup: setup, Seed: seed, Diagram: &c}
}

// WriteStudyDiagrams draws the first seed's models alone, a grid per
// setup, and replaces the diagrams folder as a whole.
func TestWriteStudyDiagrams(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "diagrams", "stale.png")
	os.MkdirAll(filepath.Dir(old), 0o755)
	os.WriteFile(old, nil, 0o644)
	rs := []experiment.Result{
		calibrated(t, "Uncal", "n=60 a/b", 1, 3),
		calibrated(t, "ECL-toplabel", "n=60 a/b", 1, 3),
		calibrated(t, "Uncal", "c→d", 1, 4),
		calibrated(t, "Uncal", "n=60 a/b", 2, 3), // not the first seed
	}
	if err := WriteStudyDiagrams(dir, rs, plot.DiagramStyle{Scale: 0.3, DPI: 30}); err != nil {
		t.Fatal(err)
	}
	es, _ := os.ReadDir(filepath.Join(dir, "diagrams"))
	var got []string
	for _, e := range es {
		got = append(got, e.Name())
	}
	var want []string
	for _, p := range []string{"c-to-d-Uncal-classwise", "c-to-d-Uncal-top-label", "grid-c-to-d", "grid-n60_a-b",
		"n60_a-b-ECL-toplabel-canonical", "n60_a-b-ECL-toplabel-classwise", "n60_a-b-ECL-toplabel-top-label",
		"n60_a-b-Uncal-canonical", "n60_a-b-Uncal-classwise", "n60_a-b-Uncal-top-label"} {
		want = append(want, p+".png", p+".svg")
	}
	if !slices.Equal(got, want) {
		t.Errorf("diagrams:\n%v\nwant:\n%v", got, want)
	}
	if top, _ := os.ReadDir(dir); len(top) != 1 {
		t.Errorf("the study folder holds %d entries, want the diagrams folder alone", len(top))
	}
	if err := WriteStudyDiagrams(t.TempDir(), nil, plot.DiagramStyle{Scale: 1, DPI: 30}); err != nil {
		t.Errorf("no results: %v", err)
	}
}
