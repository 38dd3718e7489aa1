package baselines

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/ecl/predict"
)

// rowLoopConfidence is meanTopConfidence as a row loop: every row's softmax
// and its largest probability at each evaluation, one thread, the
// reference the blocked confidence is checked against.
func rowLoopConfidence(tgtLogits []float64, k int) func(t float64) float64 {
	p := make([]float64, k)
	return func(t float64) float64 {
		s := 0.0
		for i := 0; i < len(tgtLogits); i += k {
			predict.SoftmaxScaled(p, tgtLogits[i:i+k], t)
			top := p[0]
			for _, v := range p[1:] {
				top = max(top, v)
			}
			s += top
		}
		return s / float64(len(tgtLogits)/k)
	}
}

// TransCal's blocked confidences (a row's top probability as the
// reciprocal of its sum of exponentials) give the temperature of the row
// loop, over many blocks and classes and with importance weights, to
// Nelder–Mead's tolerance: the sums' order differs, so its path may too.
func TestTransCalMatchesRowLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	const n, k = 3000, 12
	logits, labels := overconfident(r, 2*n, k, 2.5)
	w, errs := make([]float64, n), make([]float64, n)
	for i := range w {
		w[i] = 0.2 + 2*r.Float64()
		if predict.RowMax(logits[i*k:(i+1)*k]) != logits[i*k+labels[i]] {
			errs[i] = 1
		}
	}
	tgt, acc := logits[n*k:], 0.0
	for _, e := range errs {
		acc += (1 - e) / n
	}
	got, err := TransCal(tgt, k, w, errs, acc)
	if err != nil {
		t.Fatal(err)
	}
	want, err := transCalSearch(rowLoopConfidence(tgt, k), w, errs, acc)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-want) > 1e-7*want || want < 1.5 {
		t.Errorf("T = %v, row loop %v (want one well above 1)", got, want)
	}
}

// memo computes each argument's value once and returns it every time.
func TestMemo(t *testing.T) {
	calls := 0
	f := memo(func(x float64) float64 { calls++; return x * x })
	for _, x := range []float64{1, 2, 1, 1, 2, 3} {
		if got := f(x); got != x*x {
			t.Fatalf("f(%v) = %v, want %v", x, got, x*x)
		}
	}
	if calls != 3 {
		t.Fatalf("%d calls for 3 distinct arguments", calls)
	}
}
