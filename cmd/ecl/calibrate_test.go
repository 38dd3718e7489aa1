package main

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/datasets/arrays"
	"github.com/ecl-go/ecl/ecl/calib"
	"github.com/ecl-go/ecl/ecl/calibrate"
	"github.com/ecl-go/ecl/ecl/metrics"
)

// fakeLogits is a fixed nonlinear "network" from 2-D inputs to k logits.
func fakeLogits(x0, x1 float64, k int) []float64 {
	z := make([]float64, k)
	for j := range z {
		c := float64(j)
		z[j] = 3*(math.Cos(c)*x0+math.Sin(c)*x1) + 2*math.Sin(2*x0+c)*math.Cos(x1-c)
	}
	return z
}

// fakeModel writes what a user would save from a PyTorch model: the logits
// of n inputs for k classes, whose true probabilities are softmax(z/temp),
// labels drawn from them, and the 2-D inputs as features; the target's
// inputs are shifted by shift along the first axis. It returns the paths
// and the inputs.
func fakeModel(t *testing.T, dir, name string, rng *rand.Rand, n, k int, temp, shift float64) (logits, labels, features string, x []float64) {
	t.Helper()
	z, y := make([]float64, 0, n*k), make([]float64, n)
	x = make([]float64, 2*n)
	for i := range n {
		x[2*i], x[2*i+1] = rng.NormFloat64()+shift, rng.NormFloat64()
		zi := fakeLogits(x[2*i], x[2*i+1], k)
		z = append(z, zi...)
		y[i] = float64(draw(rng, softmaxT(zi, temp)))
	}
	logits, labels, features = filepath.Join(dir, name+"_logits.npy"), filepath.Join(dir, name+"_labels.npy"), filepath.Join(dir, name+"_features.npy")
	for _, f := range []struct {
		path       string
		data       []float64
		rows, cols int
	}{{logits, z, n, k}, {labels, y, n, 1}, {features, x, n, 2}} {
		if err := arrays.WriteNPY(f.path, f.data, f.rows, f.cols); err != nil {
			t.Fatal(err)
		}
	}
	return logits, labels, features, x
}

// softmaxT is softmax(z/t).
func softmaxT(z []float64, t float64) []float64 {
	p, s := make([]float64, len(z)), 0.0
	for j, v := range z {
		p[j] = math.Exp(v / t)
		s += p[j]
	}
	for j := range p {
		p[j] /= s
	}
	return p
}

// loadParams is the calibrator ecl calibrate wrote to out for method.
func loadParams(t *testing.T, out, method string) calib.Calibrator {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "params_"+method+".json"))
	if err != nil {
		t.Fatal(err)
	}
	_, c, err := calib.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// draw samples a class from probabilities p.
func draw(rng *rand.Rand, p []float64) int {
	u := rng.Float64()
	for j, v := range p {
		if u -= v; u < 0 {
			return j
		}
	}
	return len(p) - 1
}

// pseudoInputs does what docs/calibrate.md asks a user to do with the
// model: PseudoCal's mixup of target inputs (λ = 0.65, pairs with
// different predictions), the model's logits on the mixed inputs, and the
// pseudo-labels argmax(λ·p_a + (1−λ)·p_b).
func pseudoInputs(t *testing.T, dir string, rng *rand.Rand, x []float64, k int) (logits, labels string) {
	const lam = 0.65
	n := len(x) / 2
	var z, y []float64
	perm := rng.Perm(n)
	for i, a := range perm {
		b := perm[(i+1)%n]
		pa, pb := softmaxT(fakeLogits(x[2*a], x[2*a+1], k), 1), softmaxT(fakeLogits(x[2*b], x[2*b+1], k), 1)
		if metrics.Argmax(pa) == metrics.Argmax(pb) {
			continue
		}
		mix := make([]float64, k)
		for j := range mix {
			mix[j] = lam*pa[j] + (1-lam)*pb[j]
		}
		z = append(z, fakeLogits(lam*x[2*a]+(1-lam)*x[2*b], lam*x[2*a+1]+(1-lam)*x[2*b+1], k)...)
		y = append(y, float64(metrics.Argmax(mix)))
	}
	logits, labels = filepath.Join(dir, "pseudo_logits.npy"), filepath.Join(dir, "pseudo_labels.npy")
	if err := arrays.WriteNPY(logits, z, len(y), k); err != nil {
		t.Fatal(err)
	}
	if err := arrays.WriteNPY(labels, y, len(y), 1); err != nil {
		t.Fatal(err)
	}
	return logits, labels
}

func TestCalibrateEndToEnd(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 1))
	const k, temp = 4, 2.5
	sz, sy, sx, _ := fakeModel(t, dir, "source", rng, 3000, k, temp, 0)
	tz, ty, tx, xt := fakeModel(t, dir, "target", rng, 2000, k, temp, 1)
	pz, py := pseudoInputs(t, dir, rng, xt, k)
	out := filepath.Join(dir, "out")
	printed, err := captureStdout(t, func() error {
		return runCalibrate([]string{"-source", sz, "-source-labels", sy, "-target", tz, "-target-labels", ty,
			"-source-features", sx, "-target-features", tx, "-method", "all", "-out", out, "-pseudo-logits", pz, "-pseudo-labels", py,
			"-bootstrap", "50", "-ecl-steps", "20"})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"read as logits (detected)", "domain AUC", "effective sample size", "est. IW source ECE", "true target ECE", "dirichlet", "transcal"} {
		if !strings.Contains(printed, want) {
			t.Errorf("output lacks %q:\n%s", want, printed)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep calibrate.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Source.Kind != "logits" || rep.Classes != k || rep.DomainOn != "features" {
		t.Errorf("report: kind %q, %d classes, domain on %q", rep.Source.Kind, rep.Classes, rep.DomainOn)
	}
	// A unit shift of N(0, I) features: the true AUC is Φ(1/√2) = 0.76.
	if math.Abs(rep.Shift.AUC-0.76) > 0.04 {
		t.Errorf("domain AUC %v, want about 0.76", rep.Shift.AUC)
	}
	want := append([]string{"uncal"}, "ts", "vs", "ms", "dirichlet", "hist", "isotonic", "iwts", "cpcs", "transcal", "ecl")
	if len(rep.Methods) != len(want) {
		t.Fatalf("%d methods in the report, want %v", len(rep.Methods), want)
	}
	for i, m := range rep.Methods {
		if m.Method != want[i] || m.Target == nil || m.TargetECE == nil {
			t.Fatalf("method %d: %+v", i, m)
		}
		p, shape, err := arrays.ReadNPY(filepath.Join(out, m.ProbsFile))
		if err != nil {
			t.Fatal(err)
		}
		if len(shape) != 2 || shape[0] != 2000 || shape[1] != k {
			t.Fatalf("%s: shape %v", m.ProbsFile, shape)
		}
		for r := 0; r < len(p); r += k {
			if s := p[r] + p[r+1] + p[r+2] + p[r+3]; math.Abs(s-1) > 1e-9 {
				t.Fatalf("%s: row %d sums to %v", m.ProbsFile, r/k, s)
			}
		}
		if m.Method == "uncal" {
			continue
		}
		if _, _, err := calib.Load(m.Params); err != nil {
			t.Errorf("%s: %v", m.Method, err)
		}
		if _, err := os.Stat(filepath.Join(out, "diagrams", m.Method+"-top-label.png")); err != nil {
			t.Error(err)
		}
	}
	// By default the ODIR penalties are chosen by cross-validation, and said.
	for _, m := range rep.Methods[2:5] {
		if m.ODIR == nil || m.ODIRCV == nil || m.ODIRCV.Folds != calib.DefaultODIRFolds || m.ODIRCV.Seed != 1 {
			t.Errorf("%s: ODIR %v chosen by %+v, want a %d-fold search from seed 1", m.Method, m.ODIR, m.ODIRCV, calib.DefaultODIRFolds)
		}
	}
	if !strings.Contains(printed, "5-fold stratified cross-validation on the source") {
		t.Errorf("output does not say how ODIR was chosen:\n%s", printed)
	}
	// TS recovers the temperature the data were made with.
	if got := loadParams(t, out, "ts").(*calib.Temperature).T; math.Abs(got-temp)/temp > 0.05 {
		t.Errorf("TS temperature %v, the data's %v", got, temp)
	}
	// The uncalibrated model is over-confident (T = 2.5), TS fixes most of
	// it on the target, and the importance-weighted estimate sees both to
	// within a third of the true value. (The pseudo-target estimate does
	// not: this smooth fake model is nearly linear between two inputs, so
	// its predictions on mixed inputs agree with their pseudo-labels.)
	uncal, ts := rep.Methods[0], rep.Methods[1]
	for _, m := range []calibrate.MethodReport{uncal, ts} {
		if math.Abs(m.IWECE.Value-m.Target.ECE) > m.Target.ECE/3 {
			t.Errorf("%s: importance-weighted estimate %v, true target ECE %v", m.Method, m.IWECE.Value, m.Target.ECE)
		}
	}
	if !(ts.Target.ECE < uncal.Target.ECE/2) {
		t.Errorf("target ECE %v → %v under TS", uncal.Target.ECE, ts.Target.ECE)
	}
	if _, rows, _, _ := arrays.Read(py); rep.PseudoSamples != rows || !strings.Contains(rep.Pseudo, "-pseudo-logits") {
		t.Errorf("pseudo-target set of %d samples from %q, the file has %d", rep.PseudoSamples, rep.Pseudo, rows)
	}

	// -apply brings back the same probabilities.
	out2 := filepath.Join(dir, "applied")
	printed, err = captureStdout(t, func() error {
		return runCalibrate([]string{"-apply", filepath.Join(out, "params_dirichlet.json"), "-probs", tz, "-labels", ty, "-out", out2})
	})
	if err != nil {
		t.Fatal(err)
	}
	// Brier in %, as ecl eval and the study tables print it.
	if !regexp.MustCompile(`Brier +\d+\.\d\d%`).MatchString(printed) {
		t.Errorf("-apply printed %q, want Brier in %%", printed)
	}
	a, _, err := arrays.ReadNPY(filepath.Join(out2, "calibrated_dirichlet.npy"))
	if err != nil {
		t.Fatal(err)
	}
	b2, _, _ := arrays.ReadNPY(filepath.Join(out, "target_probs_dirichlet.npy"))
	for i := range a {
		if a[i] != b2[i] {
			t.Fatalf("applied probabilities differ at %d: %v vs %v", i, a[i], b2[i])
		}
	}
}

func TestCalibrateBinaryProbabilities(t *testing.T) {
	// A binary model's P(class 1) as one column, CSV: detected as
	// probabilities; Platt and beta run; vector scaling fitted on logits
	// refuses to be applied to probabilities.
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(2, 2))
	write := func(name string, n int, shift float64) (string, string) {
		var ps, ys strings.Builder
		ps.WriteString("p\n")
		for range n {
			z := 2*rng.NormFloat64() + shift
			p := 1 / (1 + math.Exp(-z))
			y := 0
			if rng.Float64() < 1/(1+math.Exp(-z/2)) {
				y = 1
			}
			ps.WriteString(strconv.FormatFloat(p, 'f', 6, 64) + "\n")
			ys.WriteString(string(rune('0'+y)) + "\n")
		}
		pp, yp := filepath.Join(dir, name+".csv"), filepath.Join(dir, name+"_y.csv")
		os.WriteFile(pp, []byte(ps.String()), 0o644)
		os.WriteFile(yp, []byte(ys.String()), 0o644)
		return pp, yp
	}
	sp, sy := write("src", 1500, 0)
	tp, ty := write("tgt", 1000, 1)
	out := filepath.Join(dir, "out")
	printed, err := captureStdout(t, func() error {
		return runCalibrate([]string{"-source", sp, "-source-labels", sy, "-target", tp, "-target-labels", ty,
			"-method", "platt,beta,vs,isotonic", "-out", out, "-bootstrap", "0", "-no-diagrams", "-odir-mu", "0.5"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(printed, "read as probabilities (detected; one column") {
		t.Errorf("detection not reported:\n%s", printed)
	}
	// A given penalty is used as it is, with no search (vector scaling has
	// no off-diagonal: its λ is 0).
	if a := loadParams(t, out, "vs").(*calib.Affine); a.ODIR == nil || *a.ODIR != (calib.ODIR{Mu: 0.5}) || a.CV != nil {
		t.Errorf("-odir-mu 0.5: vector scaling fitted with %v, search %v", a.ODIR, a.CV)
	}
	if !strings.Contains(printed, "μ 0.5 (given)") {
		t.Errorf("output does not give the fixed μ:\n%s", printed)
	}
	// The labels follow σ(z/2): Platt's slope on the logit is 1/2.
	if a := loadParams(t, out, "platt").(*calib.Platt).A; math.Abs(a-0.5) > 0.1 {
		t.Errorf("Platt slope %v, want 0.5", a)
	}
	// Without target labels: estimates only, no diagrams.
	out2 := filepath.Join(dir, "unlabelled")
	printed, err = captureStdout(t, func() error {
		return runCalibrate([]string{"-source", sp, "-source-labels", sy, "-target", tp, "-method", "ts", "-out", out2, "-bootstrap", "20"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(printed, "true target ECE") || !strings.Contains(printed, "est. IW source ECE") {
		t.Errorf("unlabelled run printed:\n%s", printed)
	}
	if _, err := os.Stat(filepath.Join(out2, "diagrams")); !os.IsNotExist(err) {
		t.Errorf("diagrams without target labels: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out2, "target_probs_ts.npy")); err != nil {
		t.Error(err)
	}
	err = runCalibrate([]string{"-apply", filepath.Join(out, "params_vs.json"), "-probs", tp, "-out", out, "-input", "logits"})
	if err == nil || !strings.Contains(err.Error(), "reads the logits themselves") {
		t.Errorf("vector scaling fitted on probabilities applied to logits: %v", err)
	}
	if err := runCalibrate([]string{"-source", sp, "-source-labels", sy, "-target", tp, "-method", "platt,foo", "-out", out}); err == nil || !strings.Contains(err.Error(), `"foo"`) {
		t.Errorf("unknown method: %v", err)
	}
}

func TestCalibrateBadInputs(t *testing.T) {
	dir := t.TempDir()
	w := func(name, text string) string { return writeFile(t, dir, name, []byte(text)) }
	z := w("z.csv", "1,2,3\n3,2,1\n0,1,0\n")
	zt := w("zt.csv", "1,2\n3,2\n")
	y := w("y.csv", "0\n1\n2\n")
	bad := w("ybad.csv", "0\n1\n3\n")
	short := w("yshort.csv", "0\n1\n")
	f1 := w("f1.csv", "1\n2\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-source", z, "-source-labels", y, "-target", zt, "-out", dir}, "zt.csv has 2"},
		{[]string{"-source", z, "-source-labels", bad, "-target", z, "-out", dir}, "ybad.csv: row 3: label 3 outside [0, 3)"},
		{[]string{"-source", z, "-source-labels", short, "-target", z, "-out", dir}, "yshort.csv: 2 labels for the 3 rows"},
		{[]string{"-source", z, "-source-labels", y, "-target", z, "-source-features", f1, "-target-features", f1, "-out", dir}, "f1.csv: 2 rows"},
		{[]string{"-source", z, "-source-labels", y, "-target", z, "-method", "platt", "-out", dir}, "two classes"},
		{[]string{"-source", z, "-source-labels", y, "-target", z}, "-out is required"},
		{[]string{"-source", z, "-source-labels", y, "-target", z, "-source-features", f1, "-out", dir}, "go together"},
		{[]string{"-apply", w("p.json", `{"method":"x","family":"nope","classes":3}`), "-probs", z, "-out", dir}, `unknown family "nope"`},
	} {
		err := runCalibrate(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}

// -platt-targets names its accepted values when given another, before any
// file is read.
func TestCalibratePlattTargetsFlag(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.npy")
	err := runCalibrate([]string{"-out", dir, "-source", missing, "-source-labels", missing, "-target", missing, "-platt-targets", "sigmoid"})
	if err == nil || !strings.Contains(err.Error(), `-platt-targets "sigmoid": want labels or smoothed`) {
		t.Errorf("error %v", err)
	}
}

// A -clip below 1 is refused as the flag, with the values it takes.
func TestCalibrateClipFlag(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.npy")
	for _, v := range []string{"-1", "0.5", "NaN", "+Inf"} {
		err := runCalibrate([]string{"-out", dir, "-source", missing, "-source-labels", missing, "-target", missing, "-clip", v})
		if err == nil || !strings.HasPrefix(err.Error(), "-clip ") || !strings.Contains(err.Error(), "want a finite number ≥ 1") {
			t.Errorf("-clip %s: error %v", v, err)
		}
	}
}

// -odir-lambda and -odir-mu take cv or a number ≥ 0, -odir-folds at least
// 2, -affine-iterations at least 0, -memory-limit a size, refused before any
// file is read.
func TestCalibrateODIRFlags(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.npy")
	for _, c := range []struct{ flag, value, want string }{
		{"-odir-lambda", "-1", `-odir-lambda "-1": want cv or a finite number ≥ 0`},
		{"-odir-mu", "auto", `-odir-mu "auto": want cv or a finite number ≥ 0`},
		{"-odir-lambda", "Inf", `-odir-lambda "Inf"`},
		{"-odir-folds", "1", "-odir-folds 1: need at least 2"},
		{"-affine-iterations", "-2", "-affine-iterations -2: want ≥ 0 (0: 2000)"},
		{"-memory-limit", "2GB", `-memory-limit: size "2GB": want a whole number of bytes`},
	} {
		err := runCalibrate([]string{"-out", dir, "-source", missing, "-source-labels", missing, "-target", missing, c.flag, c.value})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: error %v, want %q", c.flag, c.value, err, c.want)
		}
	}
}
