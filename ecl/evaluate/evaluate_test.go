package evaluate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/predict"
)

// files writes n three-class predictions, a sharper second model's and
// their labels into dir, and returns their values and paths.
func files(t *testing.T, dir string, n int) (probs []float64, labels []int, p, q, y string) {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	var pb, qb, yb strings.Builder
	for range n {
		w := []float64{r.Float64() + 0.1, r.Float64() + 0.1, r.Float64() + 0.1}
		s := w[0] + w[1] + w[2]
		label := r.IntN(3)
		for c := range w {
			w[c] /= s
		}
		probs = append(probs, w...)
		labels = append(labels, label)
		fmt.Fprintf(&pb, "%v,%v,%v\n", w[0], w[1], w[2])
		fmt.Fprintf(&qb, "%v,%v,%v\n", w[0]*w[0]/(w[0]*w[0]+w[1]*w[1]+w[2]*w[2]), w[1]*w[1]/(w[0]*w[0]+w[1]*w[1]+w[2]*w[2]), w[2]*w[2]/(w[0]*w[0]+w[1]*w[1]+w[2]*w[2]))
		fmt.Fprintf(&yb, "%d\n", label)
	}
	p, q, y = filepath.Join(dir, "p.csv"), filepath.Join(dir, "q.csv"), filepath.Join(dir, "y.csv")
	for path, b := range map[string]string{p: pb.String(), q: qb.String(), y: yb.String()} {
		if err := os.WriteFile(path, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return probs, labels, p, q, y
}

// Run's errors are metrics' own on the values of the files, with the
// binning options, names and reading recorded.
func TestRunMatchesMetrics(t *testing.T) {
	probs, labels, p, _, y := files(t, t.TempDir(), 200)
	o := metrics.ConventionOptions(metrics.Ours)
	o.Bins, o.Scheme = 10, metrics.EqualMass
	rep, cals, err := Run(Config{Probs: p, Labels: y, Mode: predict.Auto, Options: o, Convention: "ours", KDE: KDEOff})
	if err != nil {
		t.Fatal(err)
	}
	top, err := metrics.ECE(probs, 3, labels, o)
	if err != nil {
		t.Fatal(err)
	}
	cw, err := metrics.ClasswiseECE(probs, 3, labels, o)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(rep.ECE-top.Error) > 1e-12 || math.Abs(rep.CwECE-cw.Error) > 1e-12 || math.Abs(cals.Top.Error-top.Error) > 1e-12 {
		t.Errorf("ECE %v, CwECE %v; metrics says %v, %v", rep.ECE, rep.CwECE, top.Error, cw.Error)
	}
	if rep.N != 200 || rep.K != 3 || rep.Bins != 10 || rep.Scheme != "mass" || rep.Convention != "ours" || rep.Reference || rep.Probs != p || rep.Input != "probabilities" {
		t.Errorf("report header %+v", rep)
	}
	if rep.KDE != nil || len(rep.TopBins) == 0 || cals.Canonical.K != 3 {
		t.Errorf("KDE %v with KDEOff, %d top-label bins, canonical of K = %d", rep.KDE, len(rep.TopBins), cals.Canonical.K)
	}
	if rep, _, err := Run(Config{Probs: p, Labels: y, Mode: predict.Auto, Options: o, Convention: "reference"}); err != nil || rep.KDE == nil || !rep.Reference {
		t.Errorf("KDEAuto on N²K = 1.2e5: KDE %v, reference %v, error %v", rep.KDE, rep.Reference, err)
	}
}

// A second model gives paired differences; bootstrap intervals hold each
// metric's value.
func TestRunCompareAndBootstrap(t *testing.T) {
	_, _, p, q, y := files(t, t.TempDir(), 150)
	o := metrics.ConventionOptions(metrics.Ours)
	o.Bins = 15
	rep, _, err := Run(Config{Probs: p, Probs2: q, Labels: y, Mode: predict.Auto, Options: o, Convention: "ours", KDE: KDEOff, Bootstrap: 50, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Compare == nil || rep.Compare.Probs != q || rep.Bootstrap != 50 || rep.Seed != 2 {
		t.Fatalf("compare %+v, bootstrap %d seed %d", rep.Compare, rep.Bootstrap, rep.Seed)
	}
	if ci, ok := rep.CI["ece"]; !ok || !(ci[0] <= ci[1]) {
		t.Errorf("ECE interval %v (%v)", ci, ok)
	}
}

// Bad inputs fail with the file named; a forced reading warns through
// Warn.
func TestRunErrorsAndWarnings(t *testing.T) {
	dir := t.TempDir()
	_, _, p, _, y := files(t, dir, 20)
	two := filepath.Join(dir, "two.csv")
	os.WriteFile(two, []byte(strings.Repeat("0.5,0.5\n", 20)), 0o644)
	binary := filepath.Join(dir, "binary.csv")
	os.WriteFile(binary, []byte(strings.Repeat("0\n1\n", 10)), 0o644)
	o := metrics.Options{Bins: 15}
	if _, _, err := Run(Config{Probs: two, Probs2: p, Labels: binary, Mode: predict.Auto, Options: o}); err == nil || !strings.Contains(err.Error(), p+": 3 classes, "+two+" has 2") {
		t.Errorf("classes differ: %v", err)
	}
	o.Bins = MaxClassBins
	if _, _, err := Run(Config{Probs: p, Labels: y, Mode: predict.Auto, Options: o}); err == nil || !strings.Contains(err.Error(), "the class-wise error would hold") {
		t.Errorf("too many bins: %v", err)
	}
	var warned []string
	o.Bins = 15
	rep, _, err := Run(Config{Probs: p, Labels: y, Mode: predict.Logits, Options: o, KDE: KDEOff, Warn: func(w []string) { warned = append(warned, w...) }})
	if err != nil || len(warned) != 1 || !strings.Contains(warned[0], "already probabilities") || rep.Input != "logits" {
		t.Errorf("forced logits: warnings %q, input %s, error %v", warned, rep.Input, err)
	}
	if _, _, err := Run(Config{Probs: p, Labels: filepath.Join(dir, "none.csv"), Mode: predict.Auto, Options: o}); err == nil {
		t.Error("a missing labels file read")
	}
}
