// Package ecl implements the Expectation Consistency Loss (Dong, Jiang & Yang,
// ICML 2026) for confidence calibration under covariate shift, in its three
// paradigms (canonical, class-wise, top-label), with its estimators:
//
//   - the hard-binned estimator (evaluation only, see Hard);
//   - the differentiable soft-binned estimator of Eq. 7 (SoftBinned), which is
//     also the "non-trainable" ablation when applied to mini-batches; its
//     bin statistics are sums over rows (SoftBinnedStats), so a set too
//     large for one graph is estimated from its chunks' sums
//     (SoftBinnedFromStats);
//   - the mini-batch trainable scheme of Algorithm 1 (MiniBatch), with
//     auxiliary variables updated by proximal soft-thresholding and an
//     exponential moving average.
//
// The auxiliary head p estimates P(Y|X) (class-wise, canonical) or
// P(prediction correct | X) (top-label). Defaults follow the public reference
// code (docs/method.md): B = 15 bins, τ = −1/(ln 0.9·B²),
// N_prox = 5, EMA weight 0.9 on the new value, L1 norm, skip threshold 2⁻²³,
// and a loss summed over samples; the mean over samples is an option. The
// reference code softmaxes the main head's outputs unless every row already
// is a probability vector, a check that reads the batch on the host; here
// Config.Input says what the outputs are (probabilities by default, logits,
// or InputDetect for the reference's check), so that a step of MiniBatchLoss
// on a GPU copies to the host once, for the proximal step.
//
// # In a loop
//
// A step of MiniBatchLoss allocates its outputs and the gradients it returns
// (two [N, K] tensors for the main heads). Run each step inside a
// tensor.Arena, as package train does, so that a step reuses the previous
// step's buffers: outside one, Go collects them, and with a small live heap
// and an idle core the runtime returns their pages to the kernel and the
// next step faults them in again (bench/README.md has the measurements).
// Example_trainingLoop is such a loop, with the auxiliary head trained
// beside the main head.
//
// # Errors
//
// Errors are returned where the caller can act: a Config that cannot be used
// is a *ConfigError naming the field, returned by Config.Validate, by the
// constructors NewMiniBatch and NewSoftBinned and by Hard, before any work;
// Hard also returns an error for value counts that do not fit the Config.
// The losses computed in a training step (MiniBatchLoss, SoftBinnedLoss,
// SoftECE) take estimators already checked and have no error result: inputs
// of the wrong shape are a programming error and panic with a
// *tensor.ShapeError naming the function (or the tensor op) and the shapes.
// The subpackages follow the same rule: bins, metrics and baselines panic
// on arguments out of their domain with a *tensor.ArgumentError (bins < 1,
// a level outside (0, 1)) or a *tensor.ShapeError (probabilities that do not
// fit their labels), each naming the function, so errors.Is with
// tensor.ErrArgument or tensor.ErrShape tells them apart.
package ecl
