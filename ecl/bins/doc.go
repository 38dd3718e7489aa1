// Package bins holds the binning shared by the ECL loss and the calibration
// metrics: 1-D bin centres and equal-width/equal-mass bins on [0, 1], the
// reference code's simplex anchors for canonical calibration, the soft-binning
// temperature, and nearest-anchor assignment.
//
// Bins are half-open intervals (lo, hi]. Two conventions are offered for the
// values no interval holds: the default functions close the first bin at its
// lower edge and clamp everything else into the range (so 0 is in bin 0 and
// every input gets a bin); the Strict variants follow the reference metrics.py
// and put a value at or below the lowest edge, above the highest edge, or NaN
// in no bin (index −1).
//
// Functions given an invalid number of bins or classes panic: these are
// programming errors, and the callers (the loss, the metrics) validate their
// configuration before binning.
package bins
