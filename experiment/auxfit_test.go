package experiment

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/datasets/images/imagestest"
	"github.com/ecl-go/ecl/datasets/sim"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/ecl/baselines"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/tensor"
	"github.com/ecl-go/ecl/train"
)

// auxFitSim is a small simulation study of seed 3 with the given ways of
// fitting the top-label auxiliary head.
func auxFitSim(fits ...string) SimConfig {
	return SimConfig{Recipe: "paper", Shifts: []sim.Kind{sim.Normal}, Study: Study{Paradigms: []ecl.Paradigm{ecl.TopLabel}, Runs: 1, Seed: 3, AuxFit: fits},
		Points: 200, Hidden: 8, BaseEpochs: 20, AuxEpochs: 5, ECLEpochs: 2}
}

// Each way of fitting the head gives its own ECL row. The plain, the
// cross-fitted, the PseudoCal and the ATC rows share the head fitted on
// the training source (the same stream): cross-fitting changes its
// estimates on those samples only, the PseudoCal and ATC temperatures on
// the target's only, the ATC head's mean target estimate becoming ATC's
// accuracy; the importance-weighted head reports its weights' effective
// sample size.
func TestAuxFitRows(t *testing.T) {
	rs, err := RunSim(auxFitSim(AuxFits...))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rs {
		names = append(names, r.Method.String())
	}
	want := []string{"Uncal", "ECL-toplabel", "ECL-toplabel-iw", "ECL-toplabel-crossfit", "ECL-toplabel-pseudocal", "ECL-toplabel-atc"}
	if !slices.Equal(names, want) {
		t.Fatalf("rows %v, want %v", names, want)
	}
	est := func(r Result, domain string) float64 {
		for _, c := range r.Diag.Aux {
			if c.Domain == domain {
				return c.Estimate[0]
			}
		}
		t.Fatalf("%s: no estimate on %s", r.Method, domain)
		return 0
	}
	plain, iw, cf, pc, atc := rs[1], rs[2], rs[3], rs[4], rs[5]
	for _, d := range []string{"source train", "source held-out"} {
		if a, b := est(atc, d), est(plain, d); a != b {
			t.Errorf("ATC head on %s: %v, the plain head's %v (the same head)", d, a, b)
		}
	}
	if a := est(atc, "target unlabelled"); !(atc.Diag.ATC > 0 && atc.Diag.ATC < 1) || math.Abs(a-atc.Diag.ATC) > 1e-6 || atc.Diag.LogitShift == 0 || atc.Diag.Temperature != 0 {
		t.Errorf("ATC head: mean target estimate %v, ATC's accuracy %v, shift %v, temperature %v", a, atc.Diag.ATC, atc.Diag.LogitShift, atc.Diag.Temperature)
	}
	for _, d := range []string{"source held-out", "target unlabelled", "target test"} {
		if a, b := est(cf, d), est(plain, d); a != b {
			t.Errorf("cross-fitted head on %s: %v, the plain head's %v (the same head)", d, a, b)
		}
	}
	if a, b := est(cf, "source train"), est(plain, "source train"); a == b {
		t.Errorf("cross-fitted head on its own samples: %v, the same as the plain head's", a)
	}
	for _, d := range []string{"source train", "source held-out"} {
		if a, b := est(pc, d), est(plain, d); a != b {
			t.Errorf("PseudoCal head on %s: %v, the plain head's %v (the same head)", d, a, b)
		}
	}
	if a, b := est(pc, "target test"), est(plain, "target test"); a == b || !(pc.Diag.Temperature > 0) {
		t.Errorf("PseudoCal head on the target: %v, plain %v, temperature %v", a, b, pc.Diag.Temperature)
	}
	s := iw.Diag.Shift
	if iw.Diag.AuxFit != "iw" || s == nil || !(s.ESS > 1 && s.ESS <= 200) || math.Abs(s.ESSFraction-s.ESS/200) > 1e-12 || !(s.AUC > 0.5) {
		t.Errorf("importance-weighted row: diagnostics %+v, shift %+v", iw.Diag, s)
	}
	if plain.Diag.AuxFit != "" || plain.Diag.Shift != nil || plain.Diag.Temperature != 0 {
		t.Errorf("plain row: diagnostics %+v", plain.Diag)
	}
	var buf strings.Builder
	WriteDiagnostics(&buf, rs)
	for _, line := range []string{"ECL-toplabel-iw", "ECL-toplabel-pseudocal", "ECL-toplabel-atc"} {
		i := strings.Index(buf.String(), line)
		end := strings.Index(buf.String()[max(i, 0):], "\n")
		if i < 0 || end < 0 {
			t.Fatalf("diagnostics without %s:\n%s", line, buf.String())
		}
		got := buf.String()[i : i+end]
		want := map[string]string{
			"ECL-toplabel-iw":        fmt.Sprintf("ESS %.1f%%", 100*s.ESSFraction),
			"ECL-toplabel-pseudocal": fmt.Sprintf("target temperature %.3g", pc.Diag.Temperature),
			"ECL-toplabel-atc":       fmt.Sprintf("target logit shift %.3g for ATC's accuracy %.3f", atc.Diag.LogitShift, atc.Diag.ATC),
		}[line]
		if !strings.Contains(got, want) {
			t.Errorf("diagnostics line %q lacks %q", got, want)
		}
	}
	var se *SettingError
	for _, bad := range [][]string{{"iw", "bogus"}, {"iw", "iw"}} {
		if _, err := RunSim(auxFitSim(bad...)); !errors.As(err, &se) || se.Field != "AuxFit" {
			t.Errorf("AuxFit %v: error %v", bad, err)
		}
	}
}

// A head whose logits are the same on every input, (0, g), has one
// P(correct) σ(g/T) after the temperature T, and the NLL on the
// pseudo-target is least where σ(g/T) is the share q of mixed target
// inputs on which the base model predicts the pseudo-label: the PseudoCal
// head's target estimate is that label-free accuracy, q.
func TestPseudoCalAuxMatchesPseudoTargetAccuracy(t *testing.T) {
	c := auxFitSim("pseudocal")
	a := firstArm(t, c)
	// The pseudo-target, drawn as pseudoCalAux draws it.
	x, k := a.inputs, a.classes
	probs := tensor.Softmax(tensor.FromSlice(logits(a.full, x), x.Dim(0), k), 1).Data()
	mixed, labels, err := baselines.PseudoMixup(x.Data(), x.Dim(1), probs, k, a.recipe.Batch, 0.65, false, rand.New(rand.NewPCG(a.seed, 0x9ca1)))
	if err != nil {
		t.Fatal(err)
	}
	pred := logits(a.base, tensor.FromSlice(mixed, len(labels), x.Dim(1)))
	q := 0.0
	for i, y := range labels {
		if metrics.Argmax(pred[i*k:(i+1)*k]) == y {
			q++
		}
	}
	q /= float64(len(labels))
	if q < 0.2 || q > 0.95 {
		t.Fatalf("fixture: pseudo-target accuracy %v, want well inside (0, 1)", q)
	}
	m, err := a.models.copy(2)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []float64{1.5, 6} {
		for _, p := range m.Aux.Params() {
			v := make([]float64, p.Value.Len())
			if len(v) == 2 {
				v[1] = g
			}
			tensor.CopyInto(p.Value, tensor.FromSlice(v, p.Value.Shape()...))
		}
		temp, err := a.pseudoCalAux(ecl.TopLabel, m)
		if err != nil {
			t.Fatal(err)
		}
		if got := 1 / (1 + math.Exp(-g/temp)); math.Abs(got-q) > 1e-3 {
			t.Errorf("logit gap %v: temperature %v gives P(correct) %v, want the pseudo-target accuracy %v", g, temp, got, q)
		}
	}
}

// checkAuxFitRows checks a domain study's rows: their names want, the
// last ones the top-label head on "train" fitted each of AuxFits's ways,
// in that order; the importance-weighted row reports its weights' ESS,
// the PseudoCal and ATC rows their temperatures, and the cross-fitted
// head's estimate on its own samples is not the plain head's.
func checkAuxFitRows(t *testing.T, rs []Result, want []string) {
	t.Helper()
	var names []string
	for _, r := range rs {
		names = append(names, r.Method.String())
	}
	if !slices.Equal(names, want) || len(rs) < len(AuxFits) {
		t.Fatalf("rows %v, want %v", names, want)
	}
	fit := rs[len(rs)-len(AuxFits):]
	plain, iw, cf, pc, atc := fit[0].Diag, fit[1].Diag, fit[2].Diag, fit[3].Diag, fit[4].Diag
	if iw.Shift == nil || !(iw.Shift.ESS > 0) {
		t.Errorf("importance-weighted row: %+v", iw)
	}
	if !(pc.Temperature > 0) {
		t.Errorf("PseudoCal row: %+v", pc)
	}
	if !(atc.LogitShift != 0 && atc.ATC > 0) {
		t.Errorf("ATC row: %+v", atc)
	}
	if a, b := cf.Aux[0].Estimate[0], plain.Aux[0].Estimate[0]; a == b {
		t.Errorf("cross-fitted estimate on the training split %v, the plain head's %v", a, b)
	}
}

// In the digit study the fits work on the backbone's features (PseudoCal's
// mixed images pass through the backbone first) and name their rows after
// the head's data and fit.
func TestRunDigitsAuxFit(t *testing.T) {
	c := tinyDigits(t, 2, 2, []ecl.Paradigm{ecl.TopLabel})
	c.Split.ValFraction, c.AuxData, c.AuxFit, c.AuxFolds = 0.3, []string{"train"}, AuxFits, 3
	rs, err := RunDigits(c)
	if err != nil {
		t.Fatal(err)
	}
	checkAuxFitRows(t, rs, []string{"Uncal", "CE-finetune", "ECL-toplabel-train", "ECL-toplabel-train-iw", "ECL-toplabel-train-crossfit", "ECL-toplabel-train-pseudocal", "ECL-toplabel-train-atc"})
}

// The image study's runs share the digit study's runner, and so its fits:
// with a frozen torchvision backbone the heads' inputs are its features
// (PseudoCal mixes those), every fit its own row. Like the digits', its
// fits other than plain need the frozen backbone.
func TestRunImagesAuxFit(t *testing.T) {
	c := tinyImages(imagestest.TempDomains(t, 24))
	c.Arch, c.Weights, c.FeatureCache = "resnet_tiny", "../nn/testdata/resnet_tiny.pth", t.TempDir()
	// A base head whose target predictions differ (PseudoCal mixes pairs
	// that do).
	c.LR = 1e-3
	c.Methods, c.Control, c.AuxData, c.AuxFit, c.AuxFolds = nil, false, []string{"train"}, AuxFits, 3
	rs, err := RunImages(c)
	if err != nil {
		t.Fatal(err)
	}
	checkAuxFitRows(t, rs, []string{"Uncal", "ECL-toplabel-train", "ECL-toplabel-train-iw", "ECL-toplabel-train-crossfit", "ECL-toplabel-train-pseudocal", "ECL-toplabel-train-atc"})
	c.Arch, c.Weights, c.WholeNetwork, c.AuxFit = "lenet5", "", true, []string{"iw"}
	var se *SettingError
	if err := c.Validate(); !errors.As(err, &se) || se.Field != "AuxFit" {
		t.Errorf("-aux-fit iw with the whole network fine-tuned: %v", err)
	}
}

// The ATC head of a class paradigm is made, by a temperature, to have the
// mean largest class probability on the target's unlabelled split that
// ATC estimates; ATC's estimate is the share of target samples whose
// negative entropy under the base model exceeds the held-out source's
// threshold.
func TestATCAuxMatchesATCAccuracy(t *testing.T) {
	a := firstArm(t, auxFitSim("atc"))
	m, err := a.models.copy(a.classes)
	if err != nil {
		t.Fatal(err)
	}
	temp, shift, acc, err := a.atcAux(ecl.ClassWise, m)
	if err != nil || !(temp > 0) || shift != 0 {
		t.Fatalf("atcAux: temperature %v, shift %v, %v", temp, shift, err)
	}
	k := a.classes
	val, tgt := probs(a.base, a.val, k), probs(a.base, a.tgt, k)
	right := 0
	for i, y := range a.val.Y {
		if metrics.Argmax(val[i*k:(i+1)*k]) == y {
			right++
		}
	}
	score := func(p []float64, i int) float64 {
		s := 0.0
		for _, q := range p[i*k : (i+1)*k] {
			s += q * math.Log(q)
		}
		return s
	}
	var src []float64
	for i := range a.val.Y {
		src = append(src, score(val, i))
	}
	slices.Sort(src)
	above := 0
	for i := range a.tgt.Y {
		if score(tgt, i) > src[len(src)-right-1] {
			above++
		}
	}
	if want := float64(above) / float64(a.tgt.Len()); acc != want {
		t.Errorf("ATC's accuracy %v, want %v", acc, want)
	}
	est := train.AuxEstimate(ecl.ClassWise, m, a.tgt.X, temp).Data()
	mean := 0.0
	for i := range a.tgt.Y {
		mean += slices.Max(est[i*k:(i+1)*k]) / float64(a.tgt.Len())
	}
	if math.Abs(mean-acc) > 1e-9 {
		t.Errorf("mean largest probability %v at temperature %v, want ATC's %v", mean, temp, acc)
	}
}
