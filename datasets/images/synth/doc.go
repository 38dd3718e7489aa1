// Package synth generates a multi-domain image set in the layout
// images.OpenDomains reads: a stand-in for PACS that the project can
// always make, as digits.Synth stands in for SVHN. It is not PACS and no
// substitute for reporting PACS results: its classes are seven plane
// shapes (arrow, circle, cross, ring, square, star, triangle), not
// PACS's dog, elephant, giraffe, guitar, horse, house and person, and its
// shift between domains is only the rendering style.
//
// Each image shows one shape, its class, at a random position (within
// an eighth of the side of the centre), size (radius 28–40% of the side),
// aspect (0.85–1.15) and rotation (about ±30°), drawn in one of four
// styles, the domains:
//
//   - photo: a textured background with a colour gradient, a textured
//     object with a drop shadow, a lighting gradient over both, and pixel
//     noise;
//   - cartoon: a flat pastel background, a flat saturated object and a
//     dark outline, no noise;
//   - sketch: grey (8-bit grey PNGs, as PACS's sketches are single-channel
//     images): dark strokes along the shape's edges, a second lighter
//     stroke slightly off the first, sometimes hatching inside, on light
//     paper;
//   - painting: the scene in six colours of a random palette, with
//     brush-like streaks, then blurred.
//
// Object and background colours are drawn independently of the class (the
// object's luminance differs from the background's by at least 60 of 255),
// so only the shape tells the class.
//
// Every image has its own random generator, seeded by the set's seed, its
// domain, class and number, so Write gives byte-identical PNGs for the
// same seed, whatever the number of workers. The geometry and the
// colours are integer arithmetic (rotations by rational cosines and
// sines), so the pixels do not depend on the machine either.
package synth
