// Package baselines holds the calibration methods ECL is compared with and
// the parts they share (SPEC §4):
//
//   - temperature scaling (Guo et al., ICML 2017): T = exp(s) minimising the
//     negative log-likelihood of held-out source predictions, from T = 1.5;
//   - weighted temperature scaling in the form of CPCS (Park et al., 2020,
//     simplified): T minimising mean(w·Σ_k (softmax(z/T)_k − y_k)²) with
//     importance weights w from a domain classifier;
//   - a logistic-regression domain classifier (source vs target) with its
//     density-ratio estimate w(x) = P(t|x)/P(s|x)·n_s/n_t, clipped.
//
// The one-dimensional and convex fits use gonum's optimize package (BFGS with
// analytic gradients).
package baselines
