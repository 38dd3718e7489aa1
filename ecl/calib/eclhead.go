package calib

import (
	"fmt"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/ecl/baselines"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/predict"
	"github.com/ecl-go/ecl/tensor"
	"gonum.org/v1/gonum/optimize"
)

// ECLOptions configures the ECL-trained calibration head. Zero values mean
// the defaults.
type ECLOptions struct {
	// Head is "ts" (one temperature, default) or "vs" (vector scaling on
	// the logits).
	Head     string
	Paradigm ecl.Paradigm // default canonical (the zero value)
	Lambda   float64      // weight of the ECL term (default 1)
	Steps    int          // L-BFGS iterations at most (default 100)
	Bins     int          // bins of the soft-binned estimator (default 15)
	AuxL2    float64      // ridge penalty of the auxiliary head (default 1e-3)
	// AuxIterations caps the auxiliary regression's L-BFGS iterations
	// (default DefaultAffineIterations; Fit passes
	// FitOptions.AffineIterations).
	AuxIterations int
}

func (o ECLOptions) withDefaults() ECLOptions {
	if o.Head == "" {
		o.Head = "ts"
	}
	if o.Lambda == 0 {
		o.Lambda = 1
	}
	if o.Steps == 0 {
		o.Steps = 100
	}
	if o.Bins == 0 {
		o.Bins = 15
	}
	if o.AuxL2 == 0 {
		o.AuxL2 = 1e-3
	}
	if o.AuxIterations == 0 {
		o.AuxIterations = DefaultAffineIterations
	}
	return o
}

// FitECLHead trains a calibration head on frozen logits with the ECL
// (ecl.SoftBinned, the differentiable soft-binned estimator of Eq. 7 on the
// full source and target sets, L1) added to the cross-entropy on the
// labelled source: loss = CE(head(z_s), y_s) + λ·ECL, minimised by L-BFGS
// on full-batch gradients (autograd) from the source temperature-scaling
// fit. The ECL's auxiliary estimate of
// P(Y|X) is a multinomial logistic regression fitted on the source labels
// over the features src/tgt (rows of d values, standardised with the
// pooled mean and deviation); for top-label its probability of the head's
// predicted class, which the "ts" head keeps as three values per row (the
// classes of the largest and smallest logit and class 0, for a positive,
// negative or zero 1/T) rather than the [n, k] estimates. Without features (src, tgt nil) it is fitted on the
// logits, and since the head is then a function of the same logits the
// loss carries little beyond the cross-entropy; features from the model's
// backbone are what make the ECL informative.
func FitECLHead(srcLogits []float64, k int, srcLabels []int, tgtLogits, src, tgt []float64, d int, o ECLOptions) (Calibrator, error) {
	o = o.withDefaults()
	ns, err := checkScores("FitECLHead", srcLogits, k, srcLabels)
	if err != nil {
		return nil, err
	}
	nt, err := checkScores("FitECLHead", tgtLogits, k, nil)
	if err != nil {
		return nil, err
	}
	if src == nil && tgt == nil {
		src, tgt, d = srcLogits, tgtLogits, k
	}
	if d < 1 || len(src) != ns*d || len(tgt) != nt*d {
		return nil, fmt.Errorf("calib.FitECLHead: %d source and %d target feature values for %d and %d rows of %d", len(src), len(tgt), ns, nt, d)
	}
	if o.Head != "ts" && o.Head != "vs" || o.Steps < 1 || !(o.Lambda >= 0) || o.Bins < 1 || o.AuxL2 < 0 || o.AuxIterations < 1 {
		return nil, fmt.Errorf("calib.FitECLHead: head %q (ts or vs), %d steps, λ %v, %d bins, aux L2 %v, %d aux iterations", o.Head, o.Steps, o.Lambda, o.Bins, o.AuxL2, o.AuxIterations)
	}
	aux, err := fitAuxiliary(src, tgt, d, k, srcLabels, o.AuxL2, o.AuxIterations)
	if err != nil {
		return nil, err
	}
	ts, err := FitTemperature(srcLogits, k, srcLabels, nil)
	if err != nil {
		return nil, err
	}
	sb, err := ecl.NewSoftBinned(ecl.Config{Paradigm: o.Paradigm, Classes: k, Bins: o.Bins}, ecl.L1, 0)
	if err != nil {
		return nil, fmt.Errorf("calib.FitECLHead: %w", err)
	}
	// θ is 1/T for the "ts" head, (w, b) for "vs"; the head maps z to z/T
	// or w⊙z + b.
	theta := []float64{1 / ts.T}
	if o.Head == "vs" {
		theta = make([]float64, 2*k)
		for i := range k {
			theta[i] = 1 / ts.T
		}
	}
	h := &headLoss{src: srcLogits, tgt: tgtLogits, labels: srcLabels, k: k, vs: o.Head == "vs", paradigm: o.Paradigm, lambda: o.Lambda, sb: sb}
	loss := h.eval
	if o.Paradigm == ecl.TopLabel && o.Head == "ts" {
		h.topS, h.topT = aux.top(src, srcLogits), aux.top(tgt, tgtLogits)
		h.rowsS, h.rowsT = newTopRows(srcLogits, k), newTopRows(tgtLogits, k)
		loss = h.evalTop
	} else {
		h.auxS, h.auxT = aux.probs(src), aux.probs(tgt)
	}
	res, err := baselines.MinimizeSmooth(loss, theta, &optimize.Settings{GradientThreshold: 1e-7, MajorIterations: o.Steps}, &optimize.LBFGS{})
	if res == nil {
		return nil, fmt.Errorf("calib.FitECLHead: %w", err)
	}
	if o.Head == "ts" {
		c := &Temperature{T: 1 / res.X[0]}
		if err := c.check(k); err != nil {
			return nil, fmt.Errorf("calib.FitECLHead: %w", err)
		}
		return c, nil
	}
	c := &Affine{Space: "logits", Diagonal: true, W: res.X[:k], B: res.X[k:]}
	if err := c.check(k); err != nil {
		return nil, fmt.Errorf("calib.FitECLHead: %w", err)
	}
	return c, nil
}

// topLabelAux is the top-label auxiliary estimate: each row's entry of aux
// [n, k] at the head's predicted class (a constant: the prediction is not
// differentiated).
func topLabelAux(aux []float64, probs *autograd.Var[float64], k int) *autograd.Var[float64] {
	n := len(aux) / k
	pv := tensor.HostData(probs.Value)
	out := make([]float64, n)
	tensor.ParallelFor(n, k, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = aux[i*k+metrics.Argmax(pv[i*k:(i+1)*k])]
		}
	})
	return autograd.Const(tensor.Wrap(out, n))
}

// auxModel is the auxiliary estimate of P(Y|X): softmax(W·x + b) on the
// raw features x (W [k, d]).
type auxModel struct {
	w, b []float64
	d, k int
}

// fitAuxiliary fits the auxiliary estimate: a multinomial logistic
// regression on the features standardised with the pooled mean and
// deviation (read in place) with an L2 penalty, on the source labels, in
// at most iters L-BFGS iterations.
func fitAuxiliary(src, tgt []float64, d, k int, labels []int, l2 float64, iters int) (auxModel, error) {
	mean, scale := pooledMeanScale(src, tgt, d)
	loss := linearLoss(rows{x: src, d: d}, k, labels, false, func(int, int) float64 { return l2 / 2 }, 0, mean, scale)
	res, err := baselines.MinimizeSmooth(loss, make([]float64, k*d+k), &optimize.Settings{GradientThreshold: 1e-8, MajorIterations: iters}, &optimize.LBFGS{})
	if res == nil {
		return auxModel{}, fmt.Errorf("calib.FitECLHead: auxiliary head: %w", err)
	}
	a := auxModel{w: make([]float64, k*d), b: make([]float64, k), d: d, k: k}
	foldStandardisation(a.w, a.b, res.X[:k*d], res.X[k*d:], mean, scale)
	return a, nil
}

// probs is the estimate on the rows of x [n, d]: [n, k].
func (a auxModel) probs(x []float64) []float64 {
	z := affineOut(rows{x: x, d: a.d}, a.w, a.b, false)
	predict.SoftmaxRowsTo(z, z, a.k)
	return z
}

// topAux is the top-label auxiliary of the "ts" head z·θ without the
// [n, k] estimates: for each row, the estimate's probability of the class
// the head predicts, which depends on θ's sign only — the largest logit
// for θ > 0 (the first of equals), the smallest for θ < 0, class 0 for
// θ = 0 (every class tied). It stands for topLabelAux of the softmax
// except where two logits are so close that their probabilities round
// equal or swap.
type topAux struct{ pos, neg, zero []float64 }

// top is the estimate's topAux on the rows of x [n, d] with the head's
// logits [n, k], computed eclHeadRows rows at a time.
func (a auxModel) top(x, logits []float64) *topAux {
	n := len(x) / a.d
	t := &topAux{make([]float64, n), make([]float64, n), make([]float64, n)}
	for lo := 0; lo < n; lo += eclHeadRows {
		hi := min(lo+eclHeadRows, n)
		p := a.probs(x[lo*a.d : hi*a.d])
		tensor.ParallelFor(hi-lo, a.k, func(r0, r1 int) {
			for r := r0; r < r1; r++ {
				i, pr, z := lo+r, p[r*a.k:(r+1)*a.k], logits[(lo+r)*a.k:(lo+r+1)*a.k]
				hiC, loC := 0, 0
				for c, v := range z {
					if v > z[hiC] {
						hiC = c
					}
					if v < z[loC] {
						loC = c
					}
				}
				t.pos[i], t.neg[i], t.zero[i] = pr[hiC], pr[loC], pr[0]
			}
		})
	}
	return t
}

// at returns the values for θ's sign.
func (t *topAux) at(theta float64) []float64 {
	switch {
	case theta > 0:
		return t.pos
	case theta < 0:
		return t.neg
	}
	return t.zero
}
