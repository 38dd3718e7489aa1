package report

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/datasets/sim"
	"github.com/ecl-go/ecl/experiment"
)

var readmeMetrics = []string{"ACC", "ECE", "CwECE", "CanECE", "KDE", "NLL"}

// The run records of `go run ./cmd/ecl sim` with its defaults (kept in
// testdata without their diagrams) rebuild README.md's sim table byte for
// byte.
func TestReportRebuildsREADMESimTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i := strings.Index(s, "shift uniform: target metrics in %")
	if i < 0 {
		t.Fatal("README.md has no sim table")
	}
	want := s[i : i+strings.Index(s[i:], "```")]
	rep, err := Load([]string{"testdata/sim-default"}, []experiment.ShiftID{experiment.SimShift(sim.Uniform)}, readmeMetrics)
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	if err := rep.Write(&got, "text"); err != nil {
		t.Fatal(err)
	}
	if got.String() != want {
		t.Errorf("report:\n%s\nREADME.md:\n%s", got.String(), want)
	}
}

// The other formats hold every row, the paired differences agree with the
// records' own per-seed values, planned runs without records are listed and
// the files and figures are written.
func TestReportFormatsAndMissingRuns(t *testing.T) {
	dir := t.TempDir()
	src, _ := filepath.Glob("testdata/sim-default/runs/*.json")
	if len(src) != 20 {
		t.Fatalf("%d records in testdata, want 20", len(src))
	}
	var plan experiment.Plan
	plan.Study = "sim"
	os.MkdirAll(filepath.Join(dir, "runs"), 0o755)
	var recs []*experiment.Record
	for _, f := range append(src[:2:2], src[10:12]...) { // two seeds of each shift
		b, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(dir, "runs", filepath.Base(f)), b, 0o644)
		r, err := experiment.ReadRecord(f)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
		plan.Runs = append(plan.Runs, experiment.PlanEntry{Key: r.Key, Label: r.Label})
	}
	plan.Runs = append(plan.Runs, experiment.PlanEntry{Key: "0123456789abcdef", Label: "uniform seed 99"})
	b, _ := json.Marshal(plan)
	os.WriteFile(filepath.Join(dir, "plan.json"), b, 0o644)

	rep, err := Load([]string{dir}, nil, readmeMetrics)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Missing) != 1 || !strings.Contains(rep.Missing[0], "uniform seed 99") {
		t.Errorf("missing %v, want the run of seed 99", rep.Missing)
	}
	rep.Metrics = []string{"ECE"}
	if err := rep.Compare("Uncal", "ECL-canonical", 200, 1); err != nil {
		t.Fatal(err)
	}
	rep.Metrics = readmeMetrics
	// The mean difference, from the records directly.
	want := map[experiment.ShiftID][]float64{}
	for _, r := range recs {
		var u, e float64
		for _, res := range r.Results {
			switch res.Method.String() {
			case "Uncal":
				u = res.Target.ECE
			case "ECL-canonical":
				e = res.Target.ECE
			}
		}
		want[r.Results[0].Shift] = append(want[r.Results[0].Shift], e-u)
	}
	if len(rep.Diffs) != 2 {
		t.Errorf("%d differences, want one per shift", len(rep.Diffs))
	}
	for _, d := range rep.Diffs {
		w := want[d.Shift]
		m := 0.0
		for _, v := range w {
			m += v / float64(len(w))
		}
		if d.Seeds != len(w) || math.Abs(d.Mean-m) > 1e-12 || !(d.Lo <= d.Mean && d.Mean <= d.Hi) {
			t.Errorf("%s: %+v, want mean %v over %d seeds inside the interval", d.Shift, d, m, len(w))
		}
	}
	var md, tex, csv strings.Builder
	rep.Markdown(&md)
	rep.LaTeX(&tex)
	rep.CSV(&csv)
	for _, c := range []struct{ name, text, part string }{
		{"md", md.String(), "| ECL-toplabel |"},
		{"md", md.String(), "uniform seed 99"},
		{"md", md.String(), "ECL-canonical − Uncal"},
		{"latex", tex.String(), "\\toprule"},
		{"latex", tex.String(), "\\textbf{"},
		{"latex", tex.String(), " $\\pm$ "},
		{"csv", csv.String(), "shift,setup,method,runs,ACC_mean"},
	} {
		if !strings.Contains(c.text, c.part) {
			t.Errorf("%s lacks %q:\n%s", c.name, c.part, c.text)
		}
	}
	if n := strings.Count(csv.String(), "\n"); n != 11 {
		t.Errorf("csv has %d lines, want a header and 10 rows", n)
	}
	if err := rep.Write(&md, "html"); err == nil {
		t.Error("format html written")
	}
	out := t.TempDir()
	if err := rep.WriteDir(out, []string{"png", "svg"}, FigureSize{Height: 9, DPI: 100}); err != nil {
		t.Fatal(err)
	}
	figs, _ := filepath.Glob(filepath.Join(out, "*.*g"))
	if len(figs) != 2*len(readmeMetrics)*2 {
		t.Errorf("%d figure files, want 2 shifts × %d metrics × 2 formats: %v", len(figs), len(readmeMetrics), figs)
	}
	for format, name := range map[string]string{"text": "report.txt", "md": "report.md", "latex": "report.tex", "csv": "report.csv"} {
		var w strings.Builder
		rep.Write(&w, format)
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(b) != w.String() {
			t.Errorf("%s: %v, or not the %s tables", name, err, format)
		}
	}
}

// A report of one seed prints each metric's value without a ± (a spread
// of one value is not 0.00, it is undefined); two seeds get mean ± std.
func TestReportOmitsSpreadForOneSeed(t *testing.T) {
	src, _ := filepath.Glob("testdata/sim-default/runs/*.json")
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "runs"), 0o755)
	b, _ := os.ReadFile(src[0])
	os.WriteFile(filepath.Join(dir, "runs", filepath.Base(src[0])), b, 0o644)
	r, err := experiment.ReadRecord(src[0])
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Load([]string{dir}, nil, readmeMetrics)
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	if err := rep.Text(&got); err != nil {
		t.Fatal(err)
	}
	uncal := ""
	for _, line := range strings.Split(got.String(), "\n") {
		if strings.HasPrefix(line, "Uncal ") {
			uncal = line
		}
	}
	ece := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", 100*r.Results[0].Target.ECE), "0"), ".")
	if strings.Contains(got.String(), "±") || !strings.Contains(uncal, ece) {
		t.Errorf("one seed (Uncal ECE %s):\n%s", ece, got.String())
	}
	b, _ = os.ReadFile(src[1])
	os.WriteFile(filepath.Join(dir, "runs", filepath.Base(src[1])), b, 0o644)
	if rep, err = Load([]string{dir}, nil, readmeMetrics); err != nil {
		t.Fatal(err)
	}
	got.Reset()
	rep.Text(&got)
	if !strings.Contains(got.String(), "±") {
		t.Errorf("two seeds without a spread:\n%s", got.String())
	}
}

// Compare names a method the runs lack, and the methods they have.
func TestCompareUnknownMethod(t *testing.T) {
	rep, err := Load([]string{"testdata/sim-default"}, nil, []string{"ECE"})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Compare("CE", "ECL-toplabel", 10, 1); err == nil || !strings.Contains(err.Error(), "no method CE in these runs (want two of Uncal, CE-finetune, ECL-canonical") {
		t.Errorf("error %v", err)
	}
	if _, err := Load([]string{t.TempDir()}, nil, nil); err == nil || !strings.Contains(err.Error(), "no run records in") {
		t.Errorf("an empty folder: %v", err)
	}
}
