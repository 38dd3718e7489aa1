package metrics

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// crosscheckDir holds the reference code's published outputs (provenance in
// its README.md).
const crosscheckDir = "../testdata/crosscheck"

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %.15g, want %.15g (±%g)", what, got, want, tol)
	}
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// The torchmetrics MulticlassCalibrationError / BinaryCalibrationError
// documentation examples (docs/method.md, "Cross-check values"), published to 4 decimals.
func TestTorchmetricsExamples(t *testing.T) {
	probs := []float64{.25, .20, .55, .55, .05, .40, .10, .30, .60, .90, .05, .05}
	labels := []int{0, 1, 2, 0}
	p := []float64{.25, .25, .55, .75, .75}
	y := []int{0, 0, 1, 1, 1}
	for _, c := range []struct {
		norm        Norm
		multi, bina float64
	}{{L1, 0.2000, 0.2900}, {L2, 0.2082, 0.2918}, {Max, 0.2333, 0.3167}} {
		m := must[Calibration](t)(ECE(probs, 3, labels, Options{Bins: 3, Norm: c.norm}))
		near(t, "multiclass", m.Error, c.multi, 5e-5)
		b := must[Calibration](t)(BinaryECE(p, y, Options{Bins: 2, Norm: c.norm}))
		near(t, "binary", b.Error, c.bina, 5e-5)
	}
	m := must[Calibration](t)(ECE(probs, 3, labels, Options{Bins: 3}))
	if m.Bins[0].Count != 0 || m.Bins[1].Count != 3 || m.Bins[2].Count != 1 {
		t.Errorf("bin counts %+v", m.Bins)
	}
	if g := m.Bins[1].Gap(); !(g > 0) {
		t.Errorf("bin 1 should be over-confident, gap %v", g)
	}
	if g := m.Bins[2].Gap(); !(g < 0) {
		t.Errorf("bin 2 should be under-confident, gap %v", g)
	}
}

func TestTopLabelTwoBins(t *testing.T) {
	// Confidences .6 .7 .8 .9, correct 0 0 1 1: one bin (.5, 1], |0.75 − 0.5|.
	probs := []float64{.6, .4, .7, .3, .8, .2, .9, .1}
	got := must[Calibration](t)(ECE(probs, 2, []int{1, 1, 0, 0}, Options{Bins: 2}))
	near(t, "ECE", got.Error, 0.25, 1e-15)
}

func TestClasswisePerfect(t *testing.T) {
	var probs []float64
	for range 10 {
		probs = append(probs, .6, .2, .2)
	}
	labels := []int{0, 0, 0, 0, 0, 0, 1, 1, 2, 2}
	for _, sum := range []bool{false, true} {
		got := must[Classwise](t)(ClasswiseECE(probs, 3, labels, Options{SumClasses: sum}))
		near(t, "CwECE", got.Error, 0, 1e-15)
	}
	// Shift class 0's mass: the sum is k times the mean.
	labels = []int{0, 0, 0, 0, 0, 0, 0, 0, 2, 2}
	mean := must[Classwise](t)(ClasswiseECE(probs, 3, labels, Options{}))
	sum := must[Classwise](t)(ClasswiseECE(probs, 3, labels, Options{SumClasses: true}))
	near(t, "sum/mean", sum.Error, 3*mean.Error, 1e-15)
	near(t, "class 0", mean.Classes[0].Error, 0.2, 1e-15)
}

func TestConfidenceZeroAndOne(t *testing.T) {
	p := []float64{0, 1, 1}
	y := []int{0, 1, 0}
	paper := must[Calibration](t)(BinaryECE(p, y, Options{Bins: 4}))
	if paper.Unbinned != 0 || paper.Bins[0].Count != 1 || paper.Bins[3].Count != 2 {
		t.Errorf("paper convention: %+v", paper)
	}
	near(t, "paper", paper.Error, 2.0/3*0.5, 1e-15)
	ref := must[Calibration](t)(BinaryECE(p, y, Options{Bins: 4, Reference: true}))
	if ref.Unbinned != 1 || ref.Bins[0].Count != 0 || ref.N != 3 {
		t.Errorf("reference convention: %+v", ref)
	}
	near(t, "reference", ref.Error, 2.0/3*0.5, 1e-15)
	// A lone 0 with label 1: the paper counts a gap of 1, the reference nothing.
	paper = must[Calibration](t)(BinaryECE([]float64{0}, []int{1}, Options{}))
	ref = must[Calibration](t)(BinaryECE([]float64{0}, []int{1}, Options{Reference: true}))
	near(t, "paper lone 0", paper.Error, 1, 0)
	near(t, "reference lone 0", ref.Error, 0, 0)
}

func TestEmptyBinsMinCountAndOneSample(t *testing.T) {
	one := must[Calibration](t)(ECE([]float64{.7, .3}, 2, []int{0}, Options{}))
	near(t, "one sample", one.Error, 0.3, 1e-15)
	for j, b := range one.Bins {
		if j != 10 && (b.Count != 0 || b.Used || b.Conf != 0 || b.Acc != 0) {
			t.Errorf("bin %d should be empty: %+v", j, b)
		}
		if b.Lo >= b.Hi {
			t.Errorf("bin %d edges %v %v", j, b.Lo, b.Hi)
		}
	}
	// MinCount 1 drops the single-sample bin but keeps n = 3 as divisor.
	p := []float64{.1, .9, .9}
	y := []int{1, 0, 0}
	got := must[Calibration](t)(BinaryECE(p, y, Options{Bins: 2, MinCount: 1}))
	near(t, "MinCount", got.Error, 2.0/3*0.9, 1e-15)
	if got.Bins[0].Used || !got.Bins[1].Used || got.Bins[0].Count != 1 {
		t.Errorf("MinCount bins %+v", got.Bins)
	}
}

func TestOneClass(t *testing.T) {
	probs, labels := []float64{1, 0.5}, []int{0, 0}
	e := must[Calibration](t)(ECE(probs, 1, labels, Options{}))
	near(t, "ECE k=1", e.Error, 0.25, 1e-15)
	c := must[Classwise](t)(ClasswiseECE(probs, 1, labels, Options{}))
	near(t, "CwECE k=1", c.Error, 0.25, 1e-15)
	near(t, "NLL k=1", must[float64](t)(NLL(probs, 1, labels)), math.Ln2/2, 1e-15)
	if _, err := CanonicalECE(probs, 1, labels, Options{}); err == nil {
		t.Error("CanonicalECE with one class should fail")
	}
}

func TestEqualMass(t *testing.T) {
	// Sorted confidences .1 .2 | .6 .9: two bins of two samples.
	p := []float64{.9, .1, .6, .2}
	y := []int{1, 0, 0, 1}
	got := must[Calibration](t)(BinaryECE(p, y, Options{Bins: 2, Scheme: EqualMass}))
	if got.Bins[0].Count != 2 || got.Bins[1].Count != 2 {
		t.Fatalf("equal-mass counts %+v", got.Bins)
	}
	near(t, "equal-mass ECE", got.Error, 0.5*math.Abs(0.15-0.5)+0.5*math.Abs(0.75-0.5), 1e-15)
}

func TestDebiasedL2(t *testing.T) {
	// One bin, confidence .9, all wrong: no label variance, the plug-in .9.
	probs := []float64{.9, .1, .9, .1, .9, .1, .9, .1, .9, .1}
	wrong := []int{1, 1, 1, 1, 1}
	near(t, "no variance", must[float64](t)(DebiasedL2ECE(probs, 2, wrong, Options{Bins: 1})), 0.9, 1e-15)
	// Gap .15, acc .8 over 5 samples: .15² − .8·.2/4 < 0 → 0.
	mixed := []int{0, 0, 0, 0, 1}
	near(t, "clipped", must[float64](t)(DebiasedL2ECE(probs, 2, mixed, Options{Bins: 1})), 0, 0)
	// Never above the plug-in L2 error.
	rng := rand.New(rand.NewPCG(3, 4))
	probs, labels := sample(rng, 500, 3, 1.5)
	deb := must[float64](t)(DebiasedL2ECE(probs, 3, labels, Options{Scheme: EqualMass}))
	plug := must[Calibration](t)(ECE(probs, 3, labels, Options{Scheme: EqualMass, Norm: L2}))
	if !(deb <= plug.Error) || deb < 0 {
		t.Errorf("debiased %v, plug-in %v", deb, plug.Error)
	}
}

func TestCanonicalHand(t *testing.T) {
	// Two identical predictions [1 0 0] with labels 0 and 1 share a bin:
	// ‖[1 0 0] − [.5 .5 0]‖ = √0.5.
	probs := []float64{1, 0, 0, 1, 0, 0}
	got := must[Canonical](t)(CanonicalECE(probs, 3, []int{0, 1}, Options{}))
	near(t, "canonical", got.Error, math.Sqrt(0.5), 1e-15)
	if len(got.Bins) != 15 || got.Assign[0] != got.Assign[1] || got.Bins[got.Assign[0]].Count != 2 {
		t.Errorf("canonical bins: %d, assign %v", len(got.Bins), got.Assign)
	}
}

func TestScores(t *testing.T) {
	probs := []float64{.5, .5, .9, .1}
	labels := []int{0, 1}
	near(t, "NLL", must[float64](t)(NLL(probs, 2, labels)), (math.Log(2)-math.Log(.1))/2, 1e-15)
	near(t, "Brier", must[float64](t)(Brier(probs, 2, labels)), (0.5+1.62)/2, 1e-15)
	near(t, "Accuracy", must[float64](t)(Accuracy(probs, 2, labels)), 0.5, 0) // tie → class 0
	near(t, "NLL of 0", must[float64](t)(NLL([]float64{0, 1}, 2, []int{0})), 52*math.Ln2, 1e-12)
}

func TestValidation(t *testing.T) {
	good := []float64{.5, .5, .2, .8}
	cases := []struct {
		name   string
		probs  []float64
		k      int
		labels []int
		want   string
	}{
		{"k=0", good, 0, []int{0, 1}, "classes"},
		{"ragged", good[:3], 2, []int{0}, "multiple"},
		{"empty", nil, 2, nil, "no samples"},
		{"labels", good, 2, []int{0}, "labels for"},
		{"range", good, 2, []int{0, 2}, "outside"},
		{"negative label", good, 2, []int{-1, 0}, "outside"},
		{"NaN", []float64{math.NaN(), .5}, 2, []int{0}, "probability"},
		{"above 1", []float64{1.5, .5}, 2, []int{0}, "probability"},
	}
	for _, c := range cases {
		for fn, f := range map[string]func() error{
			"ECE":          func() error { _, err := ECE(c.probs, c.k, c.labels, Options{}); return err },
			"ClasswiseECE": func() error { _, err := ClasswiseECE(c.probs, c.k, c.labels, Options{}); return err },
			"CanonicalECE": func() error { _, err := CanonicalECE(c.probs, c.k, c.labels, Options{}); return err },
			"ECEKDE":       func() error { _, err := ECEKDE(c.probs, c.k, c.labels, KDEOptions{}); return err },
			"Brier":        func() error { _, err := Brier(c.probs, c.k, c.labels); return err },
		} {
			err := f()
			if err == nil || !strings.Contains(err.Error(), "metrics."+fn) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s %s: error %v, want one naming %q", fn, c.name, err, c.want)
			}
		}
	}
	if _, err := BinaryECE([]float64{.5}, []int{2}, Options{}); err == nil {
		t.Error("BinaryECE accepted label 2")
	}
	for _, o := range []Options{{Bins: -1}, {MinCount: -1}, {Scheme: 7}, {Norm: 9}} {
		if _, err := ECE(good, 2, []int{0, 1}, o); err == nil {
			t.Errorf("ECE accepted options %+v", o)
		}
	}
}

func TestBootstrap(t *testing.T) {
	data := make([]float64, 200)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range data {
		data[i] = rng.Float64()
	}
	mean := func(idx []int) float64 {
		s := 0.0
		for _, i := range idx {
			s += data[i]
		}
		return s / float64(len(idx))
	}
	all := make([]int, len(data))
	for i := range all {
		all[i] = i
	}
	lo, hi := Bootstrap(len(data), mean, 500, 0.95, rand.New(rand.NewPCG(7, 8)))
	lo2, hi2 := Bootstrap(len(data), mean, 500, 0.95, rand.New(rand.NewPCG(7, 8)))
	if lo != lo2 || hi != hi2 {
		t.Error("same seed, different interval")
	}
	if m := mean(all); !(lo < m && m < hi) || hi-lo > 0.2 {
		t.Errorf("interval [%v, %v] around mean %v", lo, hi, m)
	}
	if lo, hi := Bootstrap(3, func([]int) float64 { return 2 }, 10, 0.9, rng); lo != 2 || hi != 2 {
		t.Errorf("constant statistic: [%v, %v]", lo, hi)
	}
	defer func() {
		if recover() == nil {
			t.Error("Bootstrap accepted level 1")
		}
	}()
	Bootstrap(3, mean, 10, 1, rng)
}

func TestSubset(t *testing.T) {
	p, y := Subset([]float64{.1, .9, .8, .2}, 2, []int{1, 0}, []int{1, 1, 0})
	if len(p) != 6 || p[0] != .8 || p[4] != .1 || y[0] != 0 || y[2] != 1 {
		t.Errorf("Subset = %v %v", p, y)
	}
}

// sample draws n random k-class probability vectors (softmax of Gaussian
// logits) and labels drawn from them after sharpening the logits by temp:
// temp = 1 gives calibrated predictions, temp > 1 under-confident ones
// (the labels are more certain than the predictions say), temp < 1
// over-confident ones.
func sample(rng *rand.Rand, n, k int, temp float64) ([]float64, []int) {
	probs, labels := make([]float64, n*k), make([]int, n)
	z, q := make([]float64, k), make([]float64, k)
	for i := range n {
		for c := range z {
			z[c] = 2 * rng.NormFloat64()
		}
		softmax(z, 1, probs[i*k:(i+1)*k])
		softmax(z, temp, q)
		u, acc := rng.Float64(), 0.0
		labels[i] = k - 1
		for c, v := range q {
			if acc += v; u < acc {
				labels[i] = c
				break
			}
		}
	}
	return probs, labels
}

func softmax(z []float64, temp float64, out []float64) {
	s := 0.0
	for c, v := range z {
		out[c] = math.Exp(v * temp)
		s += out[c]
	}
	for c := range out {
		out[c] /= s
	}
}

// TestReferenceMetrics checks ECE, class-wise ECE and the canonical error in
// the reference-compatible mode against metrics_ece.json.
func TestReferenceMetrics(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(crosscheckDir, "metrics_ece.json"))
	if err != nil {
		t.Fatal(err)
	}
	type bins struct {
		Confs  []float64 `json:"bin_confs"`
		Accs   []float64 `json:"bin_accs"`
		Counts []int     `json:"bin_counts"`
		Raw    []int     `json:"diagnostic_raw_bin_counts"`
	}
	var ref struct {
		Probs  [][]float64 `json:"probs"`
		Labels []int       `json:"labels"`
		ECE    struct {
			ECE     float64   `json:"ece"`
			Edges   []float64 `json:"bins"`
			Correct []int     `json:"correct"`
			bins
		} `json:"equal_interval_ece"`
		Classwise struct {
			ECE      float64 `json:"ece"`
			PerClass []struct {
				Class int     `json:"class"`
				ECE   float64 `json:"diagnostic_class_ece"`
				NoBin int     `json:"diagnostic_samples_in_no_bin"`
				bins
			} `json:"per_class"`
		} `json:"classwise_ece"`
		Canonical struct {
			ECE     float64     `json:"ece"`
			Errs    []float64   `json:"ece_in_anchors"`
			Counts  []int       `json:"counts_in_anchors"`
			Anchors [][]float64 `json:"anchors"`
			Assign  []int       `json:"diagnostic_assignment"`
		} `json:"canonical_ece"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	const tol = 1e-12
	k := len(ref.Probs[0])
	var probs []float64
	for _, r := range ref.Probs {
		probs = append(probs, r...)
	}
	o := ReferenceOptions()
	checkBins := func(what string, got Calibration, want bins) {
		t.Helper()
		for j, b := range got.Bins {
			near(t, what+" edge", b.Lo, ref.ECE.Edges[j], 0)
			if b.Count != want.Raw[j] {
				t.Errorf("%s bin %d: %d samples, want %d", what, j, b.Count, want.Raw[j])
			}
			if !b.Used {
				if want.Counts[j] != 0 {
					t.Errorf("%s bin %d unused but the reference keeps it", what, j)
				}
				continue
			}
			if b.Count != want.Counts[j] {
				t.Errorf("%s bin %d: %d samples kept, want %d", what, j, b.Count, want.Counts[j])
			}
			near(t, what+" conf", b.Conf, want.Confs[j], tol)
			near(t, what+" acc", b.Acc, want.Accs[j], tol)
		}
	}

	ece := must[Calibration](t)(ECE(probs, k, ref.Labels, o))
	near(t, "equal_interval_ece", ece.Error, ref.ECE.ECE, tol)
	checkBins("equal_interval_ece", ece, ref.ECE.bins)
	conf, correct := TopLabel(probs, k, ref.Labels)
	for i := range correct {
		if int(correct[i]) != ref.ECE.Correct[i] {
			t.Fatalf("sample %d (conf %v): correct %v, reference %d", i, conf[i], correct[i], ref.ECE.Correct[i])
		}
	}

	cw := must[Classwise](t)(ClasswiseECE(probs, k, ref.Labels, o))
	near(t, "classwise_ece", cw.Error, ref.Classwise.ECE, tol)
	for _, pc := range ref.Classwise.PerClass {
		got := cw.Classes[pc.Class]
		near(t, "class ece", got.Error, pc.ECE, tol)
		if got.Unbinned != pc.NoBin {
			t.Errorf("class %d: %d samples in no bin, want %d", pc.Class, got.Unbinned, pc.NoBin)
		}
		checkBins("classwise", got, pc.bins)
	}

	can := must[Canonical](t)(CanonicalECE(probs, k, ref.Labels, o))
	near(t, "canonical_ece", can.Error, ref.Canonical.ECE, tol)
	for j, b := range can.Bins {
		if b.Count != ref.Canonical.Counts[j] {
			t.Errorf("canonical bin %d: %d samples, want %d", j, b.Count, ref.Canonical.Counts[j])
		}
		near(t, "canonical bin error", b.Err, ref.Canonical.Errs[j], tol)
		for c := range k {
			near(t, "canonical anchor", can.Anchors[j*k+c], ref.Canonical.Anchors[j][c], 0)
		}
	}
	for i, a := range can.Assign {
		if a != ref.Canonical.Assign[i] {
			t.Errorf("sample %d assigned to %d, want %d", i, a, ref.Canonical.Assign[i])
		}
	}
	// The float64 anchors assign the same way here (no near-ties).
	can64 := must[Canonical](t)(CanonicalECE(probs, k, ref.Labels, Options{}))
	near(t, "canonical_ece, float64 anchors", can64.Error, ref.Canonical.ECE, tol)
}
