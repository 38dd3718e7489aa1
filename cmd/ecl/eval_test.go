package main

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/ecl/metrics"
)

// captureStdout runs f and returns what it printed.
func captureStdout(t *testing.T, f func() error) (string, error) { return capture(t, &os.Stdout, f) }

// captureStderr runs f and returns what it wrote to standard error.
func captureStderr(t *testing.T, f func() error) (string, error) { return capture(t, &os.Stderr, f) }

// capture runs f with *file replaced by a pipe and returns what f wrote.
func capture(t *testing.T, file **os.File, f func() error) (string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := *file
	*file = w
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	err = f()
	w.Close()
	*file = old
	return string(<-done), err
}

// writeFile writes a test input into dir.
func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// evalJSON runs ecl eval with -json and decodes the report.
func evalJSON(t *testing.T, args ...string) metrics.Report {
	t.Helper()
	out, err := captureStdout(t, func() error { return runEval(append(args, "-json")) })
	if err != nil {
		t.Fatal(err)
	}
	var rep metrics.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	return rep
}

// near reports whether a and b agree to 1e-12.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

func TestEvalJSONMatchesMetrics(t *testing.T) {
	dir := t.TempDir()
	probs := []float64{0.25, 0.20, 0.55, 0.55, 0.05, 0.40, 0.10, 0.30, 0.60, 0.90, 0.05, 0.05}
	labels := []int{0, 1, 2, 0}
	pp := writeFile(t, dir, "p.csv", []byte("p0,p1,p2\n0.25,0.20,0.55\n0.55,0.05,0.40\n0.10,0.30,0.60\n0.90,0.05,0.05\n"))
	lp := writeFile(t, dir, "y.txt", []byte("0\n1\n2\n0\n"))
	rep := evalJSON(t, "-probs", pp, "-labels", lp, "-bins", "3", "-out", filepath.Join(dir, "d"))
	// The torchmetrics example of docs/method.md, "Cross-check values": 3 bins, L1 0.2000, max 0.2333.
	if math.Abs(rep.ECE-0.2) > 1e-4 || math.Abs(rep.MCE-0.2333) > 1e-4 {
		t.Errorf("ECE %v, MCE %v, want 0.2 and 0.2333", rep.ECE, rep.MCE)
	}
	o := metrics.Options{Bins: 3}
	cw, _ := metrics.ClasswiseECE(probs, 3, labels, o)
	can, _ := metrics.CanonicalECE(probs, 3, labels, o)
	l2, _ := metrics.ECE(probs, 3, labels, metrics.Options{Bins: 3, Norm: metrics.L2})
	deb, _ := metrics.DebiasedL2ECE(probs, 3, labels, o)
	kde, _ := metrics.ECEKDE(probs, 3, labels, metrics.KDEOptions{Mode: metrics.KDETopLabel})
	nll, _ := metrics.NLL(probs, 3, labels)
	brier, _ := metrics.Brier(probs, 3, labels)
	for name, v := range map[string][2]float64{
		"CwECE": {rep.CwECE, cw.Error}, "canonical": {rep.CanECE, can.Error}, "L2": {rep.ECEL2, l2.Error},
		"debiased": {rep.DebiasedL2, deb}, "KDE top-label": {rep.KDE["top-label"], kde.Value},
		"bandwidth": {rep.KDEBandwidth, kde.Bandwidth}, "NLL": {rep.NLL, nll}, "Brier": {rep.Brier, brier}, "ACC": {rep.ACC, 0.5},
	} {
		if !near(v[0], v[1]) {
			t.Errorf("%s: eval %v, metrics %v", name, v[0], v[1])
		}
	}
	if rep.N != 4 || rep.K != 3 || len(rep.KDE) != 3 || rep.CI != nil {
		t.Errorf("report %+v", rep)
	}
	for _, f := range []string{"top-label", "classwise", "canonical"} {
		b, err := os.ReadFile(filepath.Join(dir, "d", f+".png"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("%s.png: %v", f, err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "d", f+".svg")); err != nil || !bytes.Contains(b, []byte("<svg")) {
			t.Errorf("%s.svg: %v", f, err)
		}
	}
}

// npyFloat32 is a version-1.0 .npy file of little-endian float32 rows.
func npyFloat32(rows, cols int, vals []float32) []byte {
	h := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }\n", rows, cols)
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(h)))
	b.WriteString(h)
	binary.Write(&b, binary.LittleEndian, vals)
	return b.Bytes()
}

func TestEvalLogitsNPY(t *testing.T) {
	dir := t.TempDir()
	logits := []float32{2, 0, -1, 0.5, 0.5, 3, 1000, 999, -1000, -2, 1, 0, 0, 0, 0}
	labels := []int{0, 2, 1, 1, 0}
	pp := writeFile(t, dir, "z.npy", npyFloat32(5, 3, logits))
	lp := writeFile(t, dir, "y.csv", []byte("y\n0\n2\n1\n1\n0\n"))
	rep := evalJSON(t, "-probs", pp, "-labels", lp, "-logits", "-bins", "5", "-kde=false")
	probs := make([]float64, len(logits))
	for i := 0; i < len(logits); i += 3 {
		// exp(z − z_0) keeps the 1000s finite.
		s := 0.0
		for j := range 3 {
			probs[i+j] = math.Exp(float64(logits[i+j] - logits[i]))
			s += probs[i+j]
		}
		for j := range 3 {
			probs[i+j] /= s
		}
	}
	ece, _ := metrics.ECE(probs, 3, labels, metrics.Options{Bins: 5})
	nll, _ := metrics.NLL(probs, 3, labels)
	if !near(rep.ECE, ece.Error) || math.Abs(rep.NLL-nll) > 1e-12 || rep.KDE != nil {
		t.Errorf("ECE %v NLL %v KDE %v, want %v %v none", rep.ECE, rep.NLL, rep.KDE, ece.Error, nll)
	}
	// Without -logits they are detected (values outside [0, 1]) and reported.
	auto := evalJSON(t, "-probs", pp, "-labels", lp, "-bins", "5", "-kde=false")
	if auto.Input != "logits" || !near(auto.ECE, ece.Error) || len(auto.Notes) != 1 || !strings.Contains(auto.Notes[0], "read as logits") {
		t.Errorf("auto: input %q ECE %v notes %q", auto.Input, auto.ECE, auto.Notes)
	}
	if _, err := captureStdout(t, func() error { return runEval([]string{"-probs", pp, "-labels", lp, "-input", "probs"}) }); err == nil || !strings.Contains(err.Error(), "z.npy: -input probs, but row 1, column 1: 2 is not a probability") {
		t.Errorf("-input probs on logits: error %v", err)
	}
}

func TestEvalTableAndBootstrap(t *testing.T) {
	dir := t.TempDir()
	var csv strings.Builder
	var ys strings.Builder
	for i := range 60 {
		p := 0.5 + 0.5*float64(i%10)/10
		fmt.Fprintf(&csv, "%v,%v\n", p, 1-p)
		fmt.Fprintf(&ys, "%d\n", i%3%2)
	}
	pp := writeFile(t, dir, "p.csv", []byte(csv.String()))
	lp := writeFile(t, dir, "y.csv", []byte(ys.String()))
	args := []string{"-probs", pp, "-labels", lp, "-bootstrap", "200", "-seed", "7", "-scheme", "mass", "-reference"}
	a, b := evalJSON(t, args...), evalJSON(t, args...)
	for _, m := range []string{"ece", "cwece", "canonical_ece"} {
		ci, ok := a.CI[m]
		if !ok || ci != b.CI[m] || !(0 <= ci[0] && ci[0] <= ci[1] && ci[1] <= 1) {
			t.Errorf("%s: intervals %v and %v, want equal, ordered, in [0, 1]", m, ci, b.CI[m])
		}
	}
	if a.Scheme != "mass" || !a.Reference || a.Bootstrap != 200 {
		t.Errorf("settings %+v", a)
	}
	out, err := captureStdout(t, func() error { return runEval(args) })
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		fmt.Sprintf("%-22s %8.3f %%   95%% CI [%.3f, %.3f]", "ECE (top-label, L1)", 100*a.ECE, 100*a.CI["ece"][0], 100*a.CI["ece"][1]),
		"MCE", "ECE L2", "debiased ECE L2", "CwECE", "canonical ECE", "ECE^KDE canonical", "ECE^KDE top-label",
		"ECE^KDE marginal", "bandwidth", fmt.Sprintf("%-22s %8.4f", "NLL", a.NLL), "Brier",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	dir := t.TempDir()
	pp := writeFile(t, dir, "p.csv", []byte("0.5,0.5\n0.9,0.3\n"))
	good := writeFile(t, dir, "good.csv", []byte("0.5,0.5\n0.7,0.3\n"))
	one := writeFile(t, dir, "one.csv", []byte("0\n"))
	two := writeFile(t, dir, "two.csv", []byte("0\n1\n"))
	big := writeFile(t, dir, "big.csv", []byte("0\n2\n"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-probs", good, "-labels", one}, "one.csv: 1 labels for the 2 rows of " + good},
		{[]string{"-probs", good, "-labels", big}, "big.csv: row 2: label 2 outside [0, 2)"},
		{[]string{"-probs", pp, "-labels", two}, "p.csv: every entry lies in [0, 1] but row 2 sums to 1.2, not 1"},
		{[]string{"-probs", filepath.Join(dir, "none.csv"), "-labels", two}, "none.csv"},
		{[]string{"-probs", good, "-labels", two, "-scheme", "quantile"}, "-scheme"},
		{[]string{"-probs", good, "-labels", two, "-bins", "0"}, "-bins"},
		{[]string{"-probs", good, "-labels", two, "-bins", "2000000000"}, "-bins 2000000000: want 1 to 100000"},
		{[]string{"-probs", writeFile(t, dir, "empty.csv", []byte("p0,p1\n")), "-labels", two}, "empty.csv: no numeric rows"},
		{[]string{"-probs", good, "-labels", writeFile(t, dir, "e.npy", npyFloat32(0, 1, nil))}, "e.npy: no labels (0 rows)"},
		{[]string{"-probs", writeFile(t, dir, "e3.npy", npyFloat32(0, 3, nil)), "-labels", two}, "e3.npy: no predictions (0 rows)"},
		{[]string{"-probs", good, "-labels", two, "-logits"}, "good.csv: -logits, but every row is already probabilities"},
		{[]string{"-labels", two}, "required"},
	} {
		_, err := captureStdout(t, func() error { return runEval(c.args) })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
	if _, err := captureStdout(t, func() error { return runEval([]string{"-probs", pp, "-labels", two, "-logits"}) }); err != nil {
		t.Errorf("-logits: %v", err)
	}
	if _, err := captureStdout(t, func() error { return runEval([]string{"-probs", good, "-labels", two, "-input", "logits"}) }); err != nil {
		t.Errorf("-input logits forces: %v", err)
	}
	if err := runEval([]string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}

func TestSimCommandShortRun(t *testing.T) {
	dir := t.TempDir()
	out, err := captureStdout(t, func() error {
		return runSim([]string{"-runs", "1", "-shifts", "uniform", "-points", "60", "-hidden", "8", "-base-epochs", "2", "-aux-epochs", "1", "-ecl-epochs", "1", "-quiet", "-out", dir,
			"-cpuprofile", filepath.Join(dir, "cpu.pprof"), "-memprofile", filepath.Join(dir, "mem.pprof")})
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
	// -cpuprofile and -memprofile write pprof profiles: gzip-compressed
	// protobuf.
	for _, f := range []string{"cpu.pprof", "mem.pprof"} {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s: %v, %d bytes, not gzip", f, err, len(b))
		}
	}
	ds, _ := os.ReadDir(filepath.Join(dir, "diagrams"))
	if len(ds) != 5*3*2+2 {
		t.Errorf("%d diagram files, want 5 models × 3 diagrams × 2 formats and the grid in 2 formats", len(ds))
	}
}

// TestEvalEverydayFiles feeds prediction files as other tools write them.
func TestEvalEverydayFiles(t *testing.T) {
	dir := t.TempDir()
	lp := writeFile(t, dir, "y.txt", []byte("0\n1\n2\n0\n"))
	exact := evalJSON(t, "-probs", writeFile(t, dir, "p.csv", []byte("0.25,0.20,0.55\n0.55,0.05,0.40\n0.10,0.30,0.60\n0.90,0.05,0.05\n")), "-labels", lp, "-bins", "3", "-kde=false")
	// Rounded to 4 decimals: rows sum to 0.9999 or 1.0001; renormalised with a note.
	rounded := evalJSON(t, "-probs", writeFile(t, dir, "r.csv", []byte("0.2500,0.2000,0.5499\n0.5501,0.0500,0.4000\n0.1,0.3,0.6\n0.9,0.05,0.05\n")), "-labels", lp, "-bins", "3", "-kde=false")
	if math.Abs(rounded.ECE-exact.ECE) > 1e-3 || len(rounded.Notes) != 1 || !strings.Contains(rounded.Notes[0], "renormalised") {
		t.Errorf("rounded: ECE %v (exact %v), notes %q", rounded.ECE, exact.ECE, rounded.Notes)
	}
	// pandas to_csv with its index column.
	pandas := evalJSON(t, "-probs", writeFile(t, dir, "pd.csv", []byte(",0,1,2\n0,0.25,0.20,0.55\n1,0.55,0.05,0.40\n2,0.10,0.30,0.60\n3,0.90,0.05,0.05\n")), "-labels", lp, "-bins", "3", "-kde=false")
	if pandas.K != 3 || !near(pandas.ECE, exact.ECE) || len(pandas.Notes) != 1 || !strings.Contains(pandas.Notes[0], "index column") {
		t.Errorf("pandas: K %d ECE %v notes %q", pandas.K, pandas.ECE, pandas.Notes)
	}
	// Binary P(y = 1) as (N,), in float16 inside a deflated .npz: [.75 .25 .5 1].
	var z bytes.Buffer
	zw := zip.NewWriter(&z)
	h := "{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }\n"
	var npy bytes.Buffer
	npy.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&npy, binary.LittleEndian, uint16(len(h)))
	npy.WriteString(h)
	binary.Write(&npy, binary.LittleEndian, []uint16{0x3a00, 0x3400, 0x3800, 0x3c00})
	w, _ := zw.Create("p1.npy")
	w.Write(npy.Bytes())
	zw.Close()
	zp := writeFile(t, dir, "b.npz", z.Bytes())
	bl := writeFile(t, dir, "b.txt", []byte("1\n0\n1\n1\n"))
	bin := evalJSON(t, "-probs", zp, "-labels", bl, "-bins", "2", "-kde=false")
	// Top-label confidences .75 .75 .5 1, correct 1 1 0 1 (the tie .5 predicts class 0):
	// bin (0, .5]: conf .5, acc 0; bin (.5, 1]: conf 2.5/3, acc 1. ECE = .25·.5 + .75·(1/6).
	if bin.K != 2 || math.Abs(bin.ECE-(0.125+0.125)) > 1e-12 || len(bin.TopBins) != 2 || bin.TopBins[1].Count != 3 {
		t.Errorf("binary npz: K %d ECE %v bins %+v notes %q", bin.K, bin.ECE, bin.TopBins, bin.Notes)
	}
}

// TestEvalIntervalsAndCompare checks that every metric gets an interval,
// that the binned errors' intervals hold their bias-corrected estimates,
// and that -probs2 gives sample-matched differences.
func TestEvalIntervalsAndCompare(t *testing.T) {
	dir := t.TempDir()
	var a, b, ys strings.Builder
	for i := range 300 {
		c := 0.5 + 0.5*float64(i%50)/50
		fmt.Fprintf(&a, "%v,%v\n", c, 1-c)
		fmt.Fprintf(&b, "%v,%v\n", 0.9, 0.1)
		fmt.Fprintf(&ys, "%d\n", (i*7)%3%2)
	}
	pa, pb := writeFile(t, dir, "a.csv", []byte(a.String())), writeFile(t, dir, "b.csv", []byte(b.String()))
	lp := writeFile(t, dir, "y.csv", []byte(ys.String()))
	rep := evalJSON(t, "-probs", pa, "-probs2", pb, "-labels", lp, "-bootstrap", "100", "-kde")
	for _, name := range []string{"acc", "ece", "mce", "ece_l2", "debiased_ece_l2", "cwece", "canonical_ece", "nll", "brier"} {
		ci, ok := rep.CI[name]
		if !ok || !(ci[0] <= ci[1]) || rep.CIMethod[name] == "" {
			t.Errorf("%s: interval %v (%v), method %q", name, ci, ok, rep.CIMethod[name])
		}
	}
	// ECE^KDE gets no interval (its bias swamps a bootstrap's), and a note
	// says why; the two L2 lines get intervals of their own; MCE's holds
	// the MCE.
	if len(rep.KDE) == 0 {
		t.Errorf("-kde computed no ECE^KDE")
	}
	for mode := range rep.KDE {
		if ci, ok := rep.CI["ece_kde_"+mode]; ok {
			t.Errorf("ECE^KDE %s: interval %v", mode, ci)
		}
	}
	if !slices.Contains(rep.Notes, metrics.KDENoInterval) {
		t.Errorf("notes %q lack why ECE^KDE has no interval", rep.Notes)
	}
	if rep.CI["ece_l2"] == rep.CI["debiased_ece_l2"] {
		t.Errorf("ECE L2 and debiased ECE L2 share the interval %v", rep.CI["ece_l2"])
	}
	if ci := rep.CI["mce"]; !(ci[0] <= rep.MCE && rep.MCE <= ci[1]) {
		t.Errorf("MCE %v outside its interval %v", rep.MCE, ci)
	}
	for name, d := range rep.Debiased {
		if ci := rep.CI[name]; !(ci[0] <= d && d <= ci[1]) || d > map[string]float64{"ece": rep.ECE, "cwece": rep.CwECE, "canonical_ece": rep.CanECE, "ece_l2": rep.ECEL2}[name] {
			t.Errorf("%s: bias-corrected %v outside %v or above the plug-in", name, d, ci)
		}
	}
	c := rep.Compare
	if c == nil || !near(c.Diff["ece"], rep.ECE-c.Metrics["ece"]) || !near(c.Diff["acc"], rep.ACC-c.Metrics["acc"]) {
		t.Fatalf("compare %+v", c)
	}
	if ci := c.DiffCI["acc"]; !(ci[0] <= c.Diff["acc"] && c.Diff["acc"] <= ci[1]) {
		t.Errorf("accuracy difference %v outside %v", c.Diff["acc"], ci)
	}
	if len(rep.TopBins) == 0 || len(rep.TopBins) > 15 || len(rep.ClasswiseBins) != 2 || len(rep.CanonicalBins) == 0 {
		t.Errorf("bins: %d top, %d classes, %d canonical", len(rep.TopBins), len(rep.ClasswiseBins), len(rep.CanonicalBins))
	}
	n := 0
	for _, bin := range rep.TopBins {
		n += bin.Count
	}
	if n != 300 {
		t.Errorf("top-label bins hold %d samples, want 300", n)
	}
	out, err := captureStdout(t, func() error {
		return runEval([]string{"-probs", pa, "-probs2", pb, "-labels", lp, "-bootstrap", "100", "-kde=false"})
	})
	want := fmt.Sprintf("  %-22s %+9.3f   95%% CI [", "acc", 100*c.Diff["acc"])
	if err != nil || !strings.Contains(out, "minus "+pb) || !strings.Contains(out, want) {
		t.Errorf("table (%v) lacks %q:\n%s", err, want, out)
	}
}

// TestEvalConvention: the torchmetrics example's binary case under each
// library's rules, worked out by hand. P(y = 1) = .25 .25 .55 .75 .75 with
// y = 0 0 1 1 1 as a one-column file, top-label over [1 − p, p]: confidences
// .75 .75 .55 .75 .75, correct 1 1 1 1 1; 2 bins: every convention puts all
// in (.5, 1] → ECE = |mean conf − 1| = 1 − 3.55/5 = .29.
func TestEvalConvention(t *testing.T) {
	dir := t.TempDir()
	pp := writeFile(t, dir, "p.csv", []byte("0.25\n0.25\n0.55\n0.75\n0.75\n"))
	lp := writeFile(t, dir, "y.csv", []byte("0\n0\n1\n1\n1\n"))
	for _, conv := range []string{"ours", "torchmetrics", "netcal", "kumar"} {
		rep := evalJSON(t, "-probs", pp, "-labels", lp, "-bins", "2", "-kde=false", "-convention", conv)
		if math.Abs(rep.ECE-0.29) > 1e-12 || rep.Convention != conv {
			t.Errorf("%s: ECE %v (%q), want 0.29", conv, rep.ECE, rep.Convention)
		}
	}
	// Confidence exactly 1: torchmetrics gives it a bin [1, 1] of its own, after (.5, 1].
	one := writeFile(t, dir, "one.csv", []byte("1,0\n0.75,0.25\n"))
	y := writeFile(t, dir, "y2.csv", []byte("1\n0\n"))
	tm := evalJSON(t, "-probs", one, "-labels", y, "-bins", "2", "-kde=false", "-convention", "torchmetrics")
	if b := tm.TopBins; len(b) != 2 || b[1].Count != 1 || b[1].Lo != 1 || b[1].Hi != 1 || b[0].Hi != 1 {
		t.Errorf("torchmetrics bins %+v", tm.TopBins)
	}
	for _, args := range [][]string{{"-convention", "sklearn"}, {"-convention", "netcal", "-reference"}} {
		if _, err := captureStdout(t, func() error { return runEval(append([]string{"-probs", pp, "-labels", lp}, args...)) }); err == nil || !strings.Contains(err.Error(), "-convention") {
			t.Errorf("%v: error %v", args, err)
		}
	}
}

// TestEvalKDEAuto: beyond N²K = 5e7 ECE^KDE is left out unless asked for,
// and the report says so.
func TestEvalKDEAuto(t *testing.T) {
	dir := t.TempDir()
	var p, y strings.Builder
	for i := range 5001 {
		fmt.Fprintf(&p, "%v,%v\n", 0.6, 0.4)
		fmt.Fprintf(&y, "%d\n", i%2)
	}
	rep := evalJSON(t, "-probs", writeFile(t, dir, "p.csv", []byte(p.String())), "-labels", writeFile(t, dir, "y.csv", []byte(y.String())))
	if rep.KDE != nil || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "ECE^KDE skipped: N²K = 5.002e+07 > 5e+07") {
		t.Errorf("KDE %v, notes %q", rep.KDE, rep.Notes)
	}
}

// TestEvalTooManyBins: 1,000 classes and 1,001 or 100,000 bins. The
// class-wise error would hold K·B bins: 1e8 are refused before anything is
// allocated. With 1,001 bins the canonical simplex would need C(1001, 2) =
// 500,500 anchors of 1,000 values: it is skipped with a note.
func TestEvalTooManyBins(t *testing.T) {
	dir := t.TempDir()
	row := strings.TrimSuffix(strings.Repeat("0.001,", 1000), ",") + "\n"
	pp := writeFile(t, dir, "p.csv", []byte(row+row))
	lp := writeFile(t, dir, "y.csv", []byte("0\n999\n"))
	if _, err := captureStdout(t, func() error { return runEval([]string{"-probs", pp, "-labels", lp, "-bins", "100000"}) }); err == nil || !strings.Contains(err.Error(), "-bins 100000 with the 1000 classes of "+pp) {
		t.Errorf("error %v", err)
	}
	rep := evalJSON(t, "-probs", pp, "-labels", lp, "-bins", "1001", "-kde=false")
	if !rep.CanonicalSkipped || rep.CanonicalBins != nil || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "canonical ECE skipped") {
		t.Errorf("skipped %v, notes %q", rep.CanonicalSkipped, rep.Notes)
	}
}
