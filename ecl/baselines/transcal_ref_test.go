package baselines

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/ecl/predict"
	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/stat"
)

// transCalRef is TransCal as a row loop: every row's softmax and its
// largest probability at each evaluation, one thread, the reference the
// blocked confidence is checked against.
func transCalRef(tgtLogits []float64, k int, w, errs []float64, srcConf float64) (float64, error) {
	n := len(w)
	if k < 2 || len(tgtLogits)%k != 0 || len(tgtLogits) == 0 || n < 3 || len(errs) != n {
		return 0, fmt.Errorf("baselines.transCalRef: %d target logits of %d classes, %d weights, %d errors", len(tgtLogits), k, n, len(errs))
	}
	clampT := func(t float64) float64 { return max(t, 1) }
	clampL := func(l float64) float64 { return min(max(l, 0), 1) }
	p := make([]float64, k)
	confidence := func(t float64) float64 {
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
	correct := make([]float64, n)
	for i, e := range errs {
		correct[i] = 1 - e
	}
	wt, we, cv := make([]float64, n), make([]float64, n), make([]float64, n)
	accuracy := func(lambda float64) float64 {
		for i := range w {
			wt[i] = math.Pow(w[i], lambda)
			we[i] = wt[i] * errs[i]
		}
		eta1 := 0.0
		if v := stat.Variance(wt, nil); v > 0 {
			eta1 = -stat.Covariance(we, wt, nil) / v
		}
		for i := range cv {
			cv[i] = we[i] + eta1*(wt[i]-1)
		}
		eta2 := 0.0
		if v := stat.Variance(correct, nil); v > 0 {
			eta2 = -stat.Covariance(cv, correct, nil) / v
		}
		risk := stat.Mean(we, nil) + eta1*(stat.Mean(wt, nil)-1) + eta2*(stat.Mean(correct, nil)-srcConf)
		return 1 - risk
	}
	prob := optimize.Problem{Func: func(x []float64) float64 {
		return math.Abs(confidence(clampT(x[0])) - accuracy(clampL(x[1])))
	}}
	res, err := optimize.Minimize(prob, []float64{2, 0.5}, nil, &optimize.NelderMead{})
	if err != nil && res == nil {
		return 0, fmt.Errorf("baselines.transCalRef: %w", err)
	}
	return clampT(res.X[0]), nil
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
	want, err := transCalRef(tgt, k, w, errs, acc)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-want) > 1e-7*want || want < 1.5 {
		t.Errorf("T = %v, row loop %v (want one well above 1)", got, want)
	}
}
