package main

import (
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
	"strings"
	"testing"

	"github.com/ecl-go/ecl/ecl/metrics"
)

// captureStdout runs f and returns what it printed.
func captureStdout(t *testing.T, f func() error) (string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	err = f()
	w.Close()
	os.Stdout = old
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
func evalJSON(t *testing.T, args ...string) evalReport {
	t.Helper()
	out, err := captureStdout(t, func() error { return runEval(append(args, "-json")) })
	if err != nil {
		t.Fatal(err)
	}
	var rep evalReport
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
	// The torchmetrics example of SPEC §5: 3 bins, L1 0.2000, max 0.2333.
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
	if _, err := captureStdout(t, func() error { return runEval([]string{"-probs", pp, "-labels", lp}) }); err == nil || !strings.Contains(err.Error(), "z.npy: row 1") {
		t.Errorf("logits without -logits: error %v", err)
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
		{[]string{"-probs", pp, "-labels", two}, "p.csv: row 2 sums to 1.2"},
		{[]string{"-probs", filepath.Join(dir, "none.csv"), "-labels", two}, "none.csv"},
		{[]string{"-probs", good, "-labels", two, "-scheme", "quantile"}, "-scheme"},
		{[]string{"-probs", good, "-labels", two, "-bins", "0"}, "-bins"},
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
	if err := runEval([]string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}

func TestSimCommandShortRun(t *testing.T) {
	dir := t.TempDir()
	out, err := captureStdout(t, func() error {
		return runSim([]string{"-runs", "1", "-shifts", "uniform", "-points", "60", "-hidden", "8", "-base-epochs", "2", "-aux-epochs", "1", "-ecl-epochs", "1", "-quiet", "-out", dir,
			"-cpuprofile", filepath.Join(dir, "cpu.pprof")})
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
	// -cpuprofile writes a pprof profile: gzip-compressed protobuf.
	if b, err := os.ReadFile(filepath.Join(dir, "cpu.pprof")); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("cpu.pprof: %v, %d bytes, not gzip", err, len(b))
	}
	ds, _ := os.ReadDir(filepath.Join(dir, "diagrams"))
	if len(ds) != 5*3*2+2 {
		t.Errorf("%d diagram files, want 5 models × 3 diagrams × 2 formats and the grid in 2 formats", len(ds))
	}
}
