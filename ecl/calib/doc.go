// Package calib holds post-hoc calibrators of a classifier's outputs: maps
// fitted on held-out, labelled source predictions (and, for the methods made
// for covariate shift, on unlabelled target predictions) that turn scores
// into calibrated probabilities. Each family has its own file:
//
//   - temperature.go: temperature scaling (Guo et al., 2017) and its forms
//     under shift — importance-weighted TS (NLL weighted by density ratios),
//     CPCS and TransCal (both from ecl/baselines);
//   - affine.go: vector and matrix scaling on logits, and Dirichlet
//     calibration (Kull et al., 2019: an affine map of log-probabilities with
//     off-diagonal and intercept regularisation, ODIR);
//   - odircv.go: ODIR's penalties chosen by stratified cross-validation
//     over a warm-started path of decades (FitAffineCV);
//   - histogram.go and isotonic.go: histogram binning and isotonic
//     regression (pool-adjacent-violators), one-vs-rest for K > 2 and
//     renormalised;
//   - binary.go: Platt scaling and beta calibration (Kull et al., 2017) for
//     two classes; platt_targets.go: Platt scaling fitted to Platt's (1999)
//     smoothed targets, as scikit-learn does (FitPlattWith);
//   - shift.go: the domain classifier behind the importance weights, with
//     its diagnostics (AUC, weight quantiles, effective sample size,
//     clipping rate);
//   - eclhead.go: a temperature or vector-scaling head trained on frozen
//     logits with cross-entropy on the source plus the ECL between source and
//     target; eclhead_loss.go: its loss a chunk of rows at a time;
//   - fit.go: every method by name (Fit, Methods, as "ecl calibrate"
//     names them) on a FitData, out-of-fold top-label confidences for the
//     importance-weighted estimate (Folds, CrossFit), a calibrator's
//     top-label confidences a block of rows at a time (ApplyTopLabel) and
//     stratified folds (StratifiedFolds);
//   - estimate.go: label-free estimates of the target's calibration error
//     (importance-weighted source ECE, a PseudoCal-style pseudo-target ECE)
//     with bootstrap intervals, from probabilities (ECEInterval) or from
//     top-label confidences (TopLabelInterval).
//
// Every calibrator reads logits: n rows of k scores, row-major. A file of
// probabilities is turned into logits by LogProbs (ln p, which softmax maps
// back to p). Calibrators that read only the probabilities (temperature,
// Dirichlet, binning, isotonic, Platt, beta) give the same result on a
// model's logits and on ln of its probabilities; vector and matrix scaling
// read the logits themselves. Fitted calibrators serialise to JSON with Save
// and come back with Load.
package calib
