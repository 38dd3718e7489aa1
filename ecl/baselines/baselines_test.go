package baselines

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/predict"
	"github.com/ecl-go/ecl/tensor"
)

// overconfident draws labels from softmax(z) and returns logits t0·z: a
// model whose true temperature is t0.
func overconfident(r *rand.Rand, n, k int, t0 float64) ([]float64, []int) {
	logits := make([]float64, 0, n*k)
	labels := make([]int, n)
	p := make([]float64, k)
	for i := range n {
		z := make([]float64, k)
		for j := range z {
			z[j] = 1.5 * r.NormFloat64()
		}
		predict.SoftmaxScaled(p, z, 1)
		u, c := r.Float64(), 0.0
		for j := range p {
			if c += p[j]; u < c || j == k-1 {
				labels[i] = j
				break
			}
		}
		for _, v := range z {
			logits = append(logits, t0*v)
		}
	}
	return logits, labels
}

func TestTemperatureRecoversTheGeneratingTemperature(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	logits, labels := overconfident(r, 20000, 4, 2.5)
	for _, obj := range []Objective{NLL, Brier} {
		got, err := FitTemperature(logits, 4, labels, nil, obj)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-2.5) > 0.1 {
			t.Errorf("objective %d: T = %v, want about 2.5", obj, got)
		}
	}
	// Weights that are all equal change nothing.
	w := make([]float64, len(labels))
	for i := range w {
		w[i] = 3
	}
	a, _ := FitTemperature(logits, 4, labels, nil, NLL)
	b, _ := FitTemperature(logits, 4, labels, w, NLL)
	if math.Abs(a-b) > 1e-6 {
		t.Errorf("uniform weights moved T from %v to %v", a, b)
	}
	if _, err := FitTemperature(logits, 4, labels[:3], nil, NLL); err == nil {
		t.Error("mismatched sizes accepted")
	}
}

// Source N(0,1), target N(1,1) in one dimension: the density ratio is
// exp(x − 1/2) whatever the sample sizes.
func TestDomainRatioOfTwoGaussians(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	src, tgt := make([]float64, 30000), make([]float64, 10000)
	for i := range src {
		src[i] = r.NormFloat64()
	}
	for i := range tgt {
		tgt[i] = 1 + r.NormFloat64()
	}
	m, err := FitDomain(src, tgt, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []float64{-1, 0, 0.5, 1, 2} {
		want := math.Exp(x - 0.5)
		if got := m.Ratio([]float64{x}, 0, 0); math.Abs(got-want) > 0.1*want {
			t.Errorf("ratio at %v: %v, want %v", x, got, want)
		}
	}
	if got := m.Ratio([]float64{5}, 0, 10); got != 10 {
		t.Errorf("clip: %v", got)
	}
}

// checkLoss checks the gradient of loss(softmax(logits)) with autograd.Check.
func checkLoss(t *testing.T, name string, logits *tensor.Tensor[float64], loss func(probs *autograd.Var[float64]) *autograd.Var[float64]) {
	t.Helper()
	rep, err := autograd.Check(name, func(xs []*autograd.Var[float64]) *autograd.Var[float64] {
		return loss(autograd.Softmax(xs[0], 1))
	}, []*tensor.Tensor[float64]{logits}, autograd.CheckOptions{})
	if err != nil {
		t.Error(err)
	}
	t.Log(rep)
}

func TestDECEGradientAndValue(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	logits := tensor.RandNormal[float64](r, 0, 2, 12, 3)
	labels := []int{0, 1, 2, 2, 1, 0, 0, 1, 2, 0, 1, 1}
	checkLoss(t, "DECE", logits, func(p *autograd.Var[float64]) *autograd.Var[float64] { return DECE(p, labels, 15) })
	// With sharp soft bins and ranks, DECE approaches the hard top-label ECE
	// on 15 equal-width bins: one-hot-like rows all correct give ≈ 1 − c.
	probs := tensor.FromSlice([]float64{0.9, 0.05, 0.05, 0.05, 0.9, 0.05}, 2, 3)
	v := DECE(autograd.Const(probs), []int{0, 1}, 15).Value.Item()
	if math.Abs(v-0.1) > 0.01 {
		t.Errorf("DECE of two correct 0.9 predictions = %v, want about 0.1", v)
	}
}

// The loss equals the metric package's independent ECE^KDE at the same
// bandwidth, and its gradient passes the checker.
func TestKDELossMatchesMetricAndGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	logits := tensor.RandNormal[float64](r, 0, 1.5, 10, 3)
	labels := []int{0, 1, 2, 2, 1, 0, 0, 1, 2, 0}
	probs := tensor.Softmax(logits, 1)
	for _, h := range []float64{0.05, 0.5} {
		got := KDELoss(autograd.Const(probs), labels, h).Value.Item()
		want, err := metrics.ECEKDE(probs.Data(), 3, labels, metrics.KDEOptions{Mode: metrics.KDECanonical, Bandwidth: h})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want.Value) > 1e-9*max(1, want.Value) {
			t.Errorf("h=%v: loss %v, metric %v", h, got, want.Value)
		}
	}
	checkLoss(t, "KDELoss", logits, func(p *autograd.Var[float64]) *autograd.Var[float64] { return KDELoss(p, labels, 0.5) })
}

func TestPseudoMixup(t *testing.T) {
	// Four points on a line, predicted classes 0, 0, 1, 1.
	x := []float64{0, 1, 2, 3}
	probs := []float64{0.9, 0.1, 0.8, 0.2, 0.3, 0.7, 0.1, 0.9}
	mixed, labels, err := PseudoMixup(x, 1, probs, 2, 4, 0.65, false, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if len(mixed) != len(labels) || len(labels) > 4 {
		t.Fatalf("%d mixed inputs, %d labels", len(mixed), len(labels))
	}
	for i, m := range mixed {
		// Every kept pair mixes a class-0 point (x ≤ 1) with a class-1 point
		// (x ≥ 2): the mix lies strictly between, closer to a.
		a := -1.0
		for _, xa := range x {
			for _, xb := range x {
				if math.Abs(0.65*xa+0.35*xb-m) < 1e-12 && (xa <= 1) != (xb <= 1) {
					a = xa
				}
			}
		}
		if a < 0 {
			t.Fatalf("mixed input %v is no cross-class mix", m)
		}
		if want := map[bool]int{true: 0, false: 1}[a <= 1]; labels[i] != want {
			t.Errorf("mix %v labelled %d, want %d", m, labels[i], want)
		}
	}
	if _, _, err := PseudoMixup(x, 1, probs, 2, 1, 0.65, false, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("batch 1 accepted")
	}
}

// With equal domains (all weights 1) the first control variate vanishes and
// the second turns the estimated accuracy into the source's confidence after
// temperature scaling, so TransCal reduces to temperature scaling: on two
// halves of one sample its temperature is the source's.
func TestTransCalWithEqualDomainsIsTemperatureScaling(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	logits, labels := overconfident(r, 8000, 3, 2.5)
	val, tgt := logits[:4000*3], logits[4000*3:]
	ts, err := FitTemperature(val, 3, labels[:4000], nil, NLL)
	if err != nil {
		t.Fatal(err)
	}
	meanConf := func(l []float64, temp float64) float64 {
		p := Scale(l, 3, temp)
		c := 0.0
		for i := 0; i < len(p); i += 3 {
			c += max(p[i], p[i+1], p[i+2])
		}
		return c / float64(len(p)/3)
	}
	w, errs := make([]float64, 4000), make([]float64, 4000)
	p := Scale(val, 3, ts)
	for i := range w {
		w[i] = 1
		best := 0
		for j := 1; j < 3; j++ {
			if p[i*3+j] > p[i*3+best] {
				best = j
			}
		}
		if best != labels[i] {
			errs[i] = 1
		}
	}
	srcConf := meanConf(val, ts)
	temp, err := TransCal(tgt, 3, w, errs, srcConf)
	if err != nil {
		t.Fatal(err)
	}
	if c := meanConf(tgt, temp); math.Abs(c-srcConf) > 1e-3 || math.Abs(temp-ts) > 0.15 {
		t.Errorf("TransCal T = %v (target confidence %v), temperature scaling T = %v (source confidence %v)", temp, c, ts, srcConf)
	}
}

// TestFitTemperatureBlocked fits T on enough scores for the blocked pass
// over the cores and checks, by a central difference of the NLL computed
// row by row here, that it is a minimum.
func TestFitTemperatureBlocked(t *testing.T) {
	const n, k = 9000, 10
	r := rand.New(rand.NewPCG(11, 12))
	z, y := make([]float64, n*k), make([]int, n)
	for i := range n {
		y[i] = r.IntN(k)
		for c := range k {
			z[i*k+c] = 3 * r.NormFloat64()
		}
		z[i*k+y[i]] += 4
	}
	nll := func(temp float64) float64 {
		s := 0.0
		for i := range n {
			row := z[i*k : (i+1)*k]
			m := slices.Max(row)
			e := 0.0
			for _, v := range row {
				e += math.Exp((v - m) / temp)
			}
			s += math.Log(e) - (row[y[i]]-m)/temp
		}
		return s / n
	}
	temp, err := FitTemperature(z, k, y, nil, NLL)
	if err != nil {
		t.Fatal(err)
	}
	const h = 1e-4
	if d := (nll(temp*(1+h)) - nll(temp*(1-h))) / (2 * h); math.Abs(d) > 1e-6 || !(nll(temp) < nll(1)) {
		t.Errorf("T = %v: dNLL/dlnT %v, NLL %v (at T = 1: %v)", temp, d, nll(temp), nll(1))
	}
}

// Where the NLL has no minimum inside e^±20 the fit stops at the bound:
// labels always the top logit (the NLL falls as T → 0) and labels
// independent of logits that favour no class on average (it falls as
// T → ∞).
func TestFitTemperatureAtTheBounds(t *testing.T) {
	const n, k = 400, 5
	r := rand.New(rand.NewPCG(5, 6))
	z, top, other := make([]float64, n*k), make([]int, n), make([]int, n)
	for i := range n {
		for c := range k {
			z[i*k+c] = r.NormFloat64()
		}
		top[i] = slices.Index(z[i*k:(i+1)*k], slices.Max(z[i*k:(i+1)*k]))
		other[i] = slices.Index(z[i*k:(i+1)*k], slices.Min(z[i*k:(i+1)*k]))
	}
	for _, c := range []struct {
		labels []int
		want   float64
	}{{top, math.Exp(-20)}, {other, math.Exp(20)}} {
		if got, err := FitTemperature(z, k, c.labels, nil, NLL); err != nil || math.Abs(got/c.want-1) > 1e-9 {
			t.Errorf("T = %v (%v), want %v", got, err, c.want)
		}
	}
}
