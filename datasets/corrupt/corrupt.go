package corrupt

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ecl-go/ecl/datasets/digits"
)

// Rotate is the name of the rotation, whose levels are angles in degrees.
const Rotate = "rotate"

// Names lists the transforms Apply knows: Rotate, then the corruptions.
var Names = []string{Rotate, "shot-noise", "impulse-noise", "brightness", "translate", "shear", "scale", "motion-blur", "stripe", "dotted-line", "zigzag"}

// Angles are the rotation's levels (degrees); Severities the corruptions'.
var (
	Angles     = []int{0, 15, 30, 45, 60, 75, 90, 105, 120, 135, 150, 165, 180}
	Severities = []int{1, 2, 3, 4, 5}
)

// Params maps each corruption to its parameter at severities 1–5 (index
// severity−1); Rotate's parameter is its level.
var Params = map[string][5]float64{
	// Poisson rate: a pixel v becomes Poisson(λv)/λ (Hendrycks & Dietterich's CIFAR-10-C rates).
	"shot-noise": {60, 25, 12, 5, 3},
	// Fraction of pixels set to black or white, half each (CIFAR-10-C's).
	"impulse-noise": {0.03, 0.06, 0.09, 0.17, 0.27},
	// Added to every pixel in [0, 1], then clipped.
	"brightness": {0.1, 0.2, 0.3, 0.4, 0.5},
	// Shift in pixels, in a random direction.
	"translate": {2, 3, 4, 5, 6},
	// Horizontal shear factor (x += s·y about the centre), random sign.
	"shear": {0.15, 0.3, 0.45, 0.6, 0.75},
	// Zoom factor about the centre (below 1: smaller digit).
	"scale": {0.9, 0.8, 0.7, 0.6, 0.5},
	// Length in pixels of a centred linear blur, random direction.
	"motion-blur": {3, 5, 7, 9, 11},
	// Width in pixels of a vertical band whose grey levels are inverted.
	"stripe": {2, 3, 4, 5, 6},
	// Number of white dotted lines between random points.
	"dotted-line": {1, 2, 3, 4, 5},
	// Number of white zigzags (three segments each) between random points.
	"zigzag": {1, 2, 3, 4, 5},
}

// Levels returns the levels of transform name: Angles for Rotate,
// Severities for a corruption.
func Levels(name string) ([]int, error) {
	switch {
	case name == Rotate:
		return Angles, nil
	case slices.Contains(Names, name):
		return Severities, nil
	}
	return nil, fmt.Errorf("corrupt: unknown transform %q (want one of %s)", name, strings.Join(Names, ", "))
}

// Check reports whether level is one of transform name's Levels.
func Check(name string, level int) error {
	levels, err := Levels(name)
	if err != nil {
		return err
	}
	if !slices.Contains(levels, level) {
		return fmt.Errorf("corrupt: %s at level %d (want one of %v)", name, level, levels)
	}
	return nil
}

// Apply returns the images of im transformed by name at level, with
// labels unchanged. Its randomness (directions, noise, lines) flows from
// seed, name and level alone: the same call gives the same images.
func Apply(im *digits.Images, name string, level int, seed uint64) (*digits.Images, error) {
	if err := Check(name, level); err != nil {
		return nil, err
	}
	if im.H != im.W || im.H < 2 || len(im.Pixels) != im.N*im.H*im.W || len(im.Labels) != im.N {
		return nil, fmt.Errorf("corrupt: %d images of %d×%d with %d pixels and %d labels (want square images)", im.N, im.H, im.W, len(im.Pixels), len(im.Labels))
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s:%d", name, level)
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	p := float64(level)
	if name != Rotate {
		p = Params[name][level-1]
	}
	s, plane := im.H, im.H*im.W
	out := &digits.Images{N: im.N, H: s, W: s, Pixels: make([]uint8, len(im.Pixels)), Labels: slices.Clone(im.Labels)}
	src, dst := make([]float64, plane), make([]float64, plane)
	for i := range im.N {
		for j, v := range im.Pixels[i*plane : (i+1)*plane] {
			src[j] = float64(v) / 255
		}
		transform(name, p, dst, src, s, rng)
		for j, v := range dst {
			out.Pixels[i*plane+j] = uint8(math.Round(255 * min(max(v, 0), 1)))
		}
	}
	return out, nil
}

// transform writes into dst the s×s image src (values in [0, 1])
// transformed by name with parameter p.
func transform(name string, p float64, dst, src []float64, s int, rng *rand.Rand) {
	sign := func() float64 { return float64(2*rng.IntN(2) - 1) }
	switch name {
	case Rotate:
		sin, cos := math.Sincos(p * math.Pi / 180)
		warp(dst, src, s, func(x, y float64) (float64, float64) { return cos*x + sin*y, -sin*x + cos*y })
	case "translate":
		dy, dx := math.Sincos(2 * math.Pi * rng.Float64())
		dx, dy = math.Round(p*dx), math.Round(p*dy)
		warp(dst, src, s, func(x, y float64) (float64, float64) { return x - dx, y - dy })
	case "shear":
		k := p * sign()
		warp(dst, src, s, func(x, y float64) (float64, float64) { return x - k*y, y })
	case "scale":
		warp(dst, src, s, func(x, y float64) (float64, float64) { return x / p, y / p })
	case "motion-blur":
		uy, ux := math.Sincos(math.Pi * rng.Float64())
		clear(dst)
		n := int(p)
		for t := range n {
			o := float64(t) - float64(n-1)/2
			for j := range dst {
				x, y := float64(j%s)-float64(s-1)/2, float64(j/s)-float64(s-1)/2
				dst[j] += bilinear(src, s, x+o*ux, y+o*uy) / p
			}
		}
	case "shot-noise":
		for j, v := range src {
			dst[j] = float64(poisson(rng, p*v)) / p
		}
	case "impulse-noise":
		for j, v := range src {
			dst[j] = v
			if rng.Float64() < p {
				dst[j] = float64(rng.IntN(2))
			}
		}
	case "brightness":
		for j, v := range src {
			dst[j] = v + p
		}
	case "stripe":
		w := int(p)
		c0 := s/2 - w/2 + rng.IntN(7) - 3
		for j, v := range src {
			dst[j] = v
			if c := j % s; c >= c0 && c < c0+w {
				dst[j] = 1 - v
			}
		}
	case "dotted-line", "zigzag":
		copy(dst, src)
		point := func() (float64, float64) { return rng.Float64() * float64(s-1), rng.Float64() * float64(s-1) }
		for range int(p) {
			x0, y0 := point()
			if name == "dotted-line" {
				x1, y1 := point()
				line(dst, s, x0, y0, x1, y1, 3)
				continue
			}
			for range 3 {
				x1, y1 := point()
				line(dst, s, x0, y0, x1, y1, 0)
				x0, y0 = x1, y1
			}
		}
	}
}

// warp writes dst(q) = src(inv(q)), q and inv(q) in pixel coordinates
// about the image centre, sampled bilinearly (black outside).
func warp(dst, src []float64, s int, inv func(x, y float64) (float64, float64)) {
	c := float64(s-1) / 2
	for j := range dst {
		x, y := inv(float64(j%s)-c, float64(j/s)-c)
		dst[j] = bilinear(src, s, x, y)
	}
}

// bilinear is the s×s image src at (x, y) about its centre, interpolated
// bilinearly, black outside.
func bilinear(src []float64, s int, x, y float64) float64 {
	c := float64(s-1) / 2
	x, y = x+c, y+c
	x0, y0 := math.Floor(x), math.Floor(y)
	fx, fy := x-x0, y-y0
	at := func(r, col int) float64 {
		if r < 0 || r >= s || col < 0 || col >= s {
			return 0
		}
		return src[r*s+col]
	}
	r, col := int(y0), int(x0)
	return (1-fy)*((1-fx)*at(r, col)+fx*at(r, col+1)) + fy*((1-fx)*at(r+1, col)+fx*at(r+1, col+1))
}

// line draws a white line from (x0, y0) to (x1, y1) (pixel coordinates
// from the top left) into the s×s image img, in half-pixel steps; with
// gap > 0 it draws a dot every gap pixels instead.
func line(img []float64, s int, x0, y0, x1, y1 float64, gap int) {
	n := int(2*math.Hypot(x1-x0, y1-y0)) + 1
	for t := 0; t <= n; t++ {
		if gap > 0 && (t/2)%gap != 0 {
			continue
		}
		f := float64(t) / float64(n)
		c, r := int(math.Round(x0+f*(x1-x0))), int(math.Round(y0+f*(y1-y0)))
		if r >= 0 && r < s && c >= 0 && c < s {
			img[r*s+c] = 1
		}
	}
}

// poisson draws from the Poisson distribution of mean lambda (Knuth's
// method; the means here are at most 60).
func poisson(rng *rand.Rand, lambda float64) int {
	if lambda <= 0 {
		return 0
	}
	limit, k, prod := math.Exp(-lambda), 0, rng.Float64()
	for prod > limit {
		k++
		prod *= rng.Float64()
	}
	return k
}
