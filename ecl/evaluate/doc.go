// Package evaluate computes every calibration metric of predictions read
// from files: what ecl eval prints.
//
// Run reads the predictions (CSV, .npy, .npz; probabilities or logits, as
// package predict detects them) and their labels, and returns a
// metrics.Report (top-label, class-wise and canonical errors, ECE^KDE,
// NLL, Brier, per-bin values) with the calibrations that reliability
// diagrams draw; optionally a second model's paired differences on the
// same labels and bootstrap intervals of every metric. ECE^KDE, which
// costs O(N²K), is computed on request, or by default while N²K is at most
// KDEAutoWork; the canonical error only while its simplex is affordable
// (metrics.CanonicalAffordable), with a note in the report when skipped.
package evaluate
