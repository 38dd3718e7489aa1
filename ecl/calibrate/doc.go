// Package calibrate is "ecl calibrate" as a library: Run fits calibrators
// (calib.Methods) on a source-validation set's scores and the unlabelled
// target's, under covariate shift, writes each method's calibrated target
// probabilities, parameters and reliability diagrams, and returns the
// report with the label-free estimates of every method's target ECE (the
// importance-weighted source and the pseudo-target set) beside the true
// one when target labels are given; Apply re-applies a saved calibrator.
//
// A run is a Config: the scores as predict.ReadScores returns them, the
// labels, the methods from ParseMethods and the settings. Methods are
// fitted Config.Jobs at a time; each uses the engine's cores on its own.
package calibrate
