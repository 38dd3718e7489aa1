// Package baselines holds the calibration methods ECL is compared with and
// the parts they share (docs/method.md, "Baselines"):
//
//   - temperature scaling (Guo et al., ICML 2017): T = exp(s) minimising the
//     negative log-likelihood of held-out source predictions, from T = 1.5;
//   - weighted temperature scaling in the form of CPCS (Park et al., 2020,
//     simplified): T minimising mean(w·Σ_k (softmax(z/T)_k − y_k)²) with
//     importance weights w from a domain classifier;
//   - a logistic-regression domain classifier (source vs target) with its
//     density-ratio estimate w(x) = P(t|x)/P(s|x)·n_s/n_t, clipped, fitted
//     on rows read in place (DomainRows: standardised on the fly, folds
//     and resamples as counts per row);
//   - TransCal (Wang et al., NeurIPS 2020): the temperature T ≥ 1 and
//     weight exponent λ matching the target's mean confidence to a
//     control-variate estimate of the target accuracy, with the domain
//     classifier fitted on balanced (resampled) domains;
//   - PseudoCal's pseudo-target set (Hu et al., 2024): mixup of target pairs
//     with different predictions, λ = 0.65, labelled by the mixed
//     prediction, on which a temperature is fitted;
//   - the train-time losses DECE (Bohdal et al., 2023) and ECE^KDE
//     (Popordanoska et al., 2022; canonical, p = 1). Soft-ECE, which the
//     ECL recipe uses too, is ecl.SoftECE.
//
// The one-dimensional and convex fits use gonum's optimize package (BFGS with
// analytic gradients).
package baselines
