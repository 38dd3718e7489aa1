// Package metrics computes calibration metrics on plain float64 slices:
// binned expected calibration errors (top-label, binary, class-wise, with
// equal-width or equal-mass bins and L1, L2 or max aggregation, plus a
// debiased L2 estimate), the canonical binned error on simplex anchors, the
// kernel estimate ECE^KDE of Popordanoska et al. (2022), NLL, Brier score and
// accuracy, and confidence intervals that correct the binned errors'
// upward bias (L1Interval, L2Interval, DebiasedInterval; MCEInterval from
// per-bin Wilson bounds, which a bootstrap of a maximum cannot give; each
// checked for coverage on data with a known error, canonical for K = 2
// and 3; ECE^KDE's bootstrap intervals were measured to miss its truth).
//
// Measure computes the metrics the studies report in one call; NewReport
// adds the L∞ and L2 errors and per-bin values for "ecl eval" (a Report,
// ready for JSON or WriteText), BootstrapReport their intervals, Compare the
// sample-matched differences of two models, PairedDifference the per-seed
// differences of two methods.
//
// Probabilities are row-major: probs holds n rows of k class probabilities
// (n = len(probs)/k) and labels the n class indices. Results are fractions
// (multiply by 100 for %). Binned results also carry per-bin statistics for
// reliability diagrams.
//
// Defaults follow the paper (docs/method.md, "Metrics"): 15 equal-width bins
// (lo, hi], the first closed at 0, every sample in some bin, L1, class-wise
// errors averaged over classes. ReferenceOptions reproduces the reference
// metrics.py: a confidence of exactly 0 lies in no bin, and bins with at
// most 5 samples are dropped from ECE and class-wise ECE while n stays the
// divisor. Options.Convention reproduces the binning rules of torchmetrics,
// netcal and Kumar et al.'s verified_calibration (docs/conventions.md).
package metrics
