// Package ecl implements the Expectation Consistency Loss (Dong, Jiang & Yang,
// ICML 2026) for confidence calibration under covariate shift, in its three
// paradigms (canonical, class-wise, top-label), with its estimators:
//
//   - the hard-binned estimator (evaluation only, see Hard);
//   - the differentiable soft-binned estimator of Eq. 7 (SoftBinned), which is
//     also the "non-trainable" ablation when applied to mini-batches;
//   - the mini-batch trainable scheme of Algorithm 1 (MiniBatch), with
//     auxiliary variables updated by proximal soft-thresholding and an
//     exponential moving average.
//
// The auxiliary head p estimates P(Y|X) (class-wise, canonical) or
// P(prediction correct | X) (top-label). Defaults follow the public reference
// code (docs/method.md): B = 15 bins, τ = −1/(ln 0.9·B²),
// N_prox = 5, EMA weight 0.9 on the new value, L1 norm, skip threshold 2⁻²³,
// and a loss summed over samples; the mean over samples is an option.
package ecl
