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
// predicted class. Without features (src, tgt nil) it is fitted on the
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
	if o.Head != "ts" && o.Head != "vs" || o.Steps < 1 || !(o.Lambda >= 0) || o.Bins < 1 || o.AuxL2 < 0 {
		return nil, fmt.Errorf("calib.FitECLHead: head %q (ts or vs), %d steps, λ %v, %d bins, aux L2 %v", o.Head, o.Steps, o.Lambda, o.Bins, o.AuxL2)
	}
	auxS, auxT, err := auxiliary(src, tgt, d, k, srcLabels, o.AuxL2)
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
	h := &headLoss{src: srcLogits, tgt: tgtLogits, auxS: auxS, auxT: auxT, labels: srcLabels, k: k, vs: o.Head == "vs", paradigm: o.Paradigm, lambda: o.Lambda, sb: sb}
	loss := h.eval
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

// auxiliary fits the auxiliary estimate of P(Y|X): a multinomial logistic
// regression on standardised features (read in place) with an L2 penalty,
// fitted on the source labels; it returns its probabilities on both
// domains.
func auxiliary(src, tgt []float64, d, k int, labels []int, l2 float64) (ps, pt []float64, err error) {
	mean, scale := pooledMeanScale(src, tgt, d)
	loss := linearLoss(src, d, k, labels, false, func(int, int) float64 { return l2 / 2 }, 0, mean, scale)
	res, err := baselines.MinimizeSmooth(loss, make([]float64, k*d+k), &optimize.Settings{GradientThreshold: 1e-8, MajorIterations: DefaultAffineIterations}, &optimize.LBFGS{})
	if res == nil {
		return nil, nil, fmt.Errorf("calib.FitECLHead: auxiliary head: %w", err)
	}
	w, b := make([]float64, k*d), make([]float64, k)
	foldStandardisation(w, b, res.X[:k*d], res.X[k*d:], mean, scale)
	predict := func(x []float64) []float64 {
		z := affineOut(x, d, w, b, false)
		predict.SoftmaxRowsTo(z, z, k)
		return z
	}
	return predict(src), predict(tgt), nil
}
