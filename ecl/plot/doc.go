// Package plot draws reliability diagrams of the calibration metrics with
// gonum.org/v1/plot and writes them as PNG or SVG.
//
// Compute a calibration with package metrics, draw it, and save it:
//
//	cal, err := metrics.ECE(probs, k, labels, metrics.Options{})
//	p, err := plot.TopLabel(cal, "model on the target")
//	err = plot.Save(p, "reliability.png", 12*vg.Centimeter, 10*vg.Centimeter)
//
// TopLabel draws accuracy against confidence per bin (the gap to the
// diagonal as a translucent red bar, the bin counts above the bars);
// Classwise one such panel per class, and ClasswisePooled the classes in
// one panel; Canonical (K = 3) the probability simplex cut into the regions
// of its anchors, each coloured by its bin's error (CanonicalOnScale and
// CanonicalTop give several panels one colour scale); SeedSpread one
// metric over seeds for several methods. Save and SaveFigure render a
// diagram or a grid of panels (a Figure) by the file's extension and
// replace the output file atomically; SaveFigureDPI sets the PNG
// resolution.
package plot
