// Package corrupt makes graded covariate shifts of grey digit images:
// rotation by an angle (Ovadia et al., NeurIPS 2019: 0–180° by 15°) and
// corruptions after MNIST-C (Mu & Gilmer, 2019) at severities 1–5 —
// shot and impulse noise, brightness, translation, shear, scale, motion
// blur, a stripe, dotted lines and zigzags. The parameters per severity
// are listed in docs/shifts.md and in Params.
//
// Apply transforms every image of a set, deterministically from a seed;
// Cached keeps a transformed set on disk under a key, written atomically:
//
//	im, err := corrupt.Apply(test, "shot-noise", 3, seed)
package corrupt
