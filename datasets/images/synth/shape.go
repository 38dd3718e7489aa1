package synth

import "math/rand/v2"

// Classes are the shapes, in sorted order: a class's index is its place
// here, as images.Folder indexes the class folders.
var Classes = []string{"arrow", "circle", "cross", "ring", "square", "star", "triangle"}

// unit is the shapes' radius in their own coordinates.
const unit = 1000

// polygons are the polygon shapes' vertices, radius unit, y down.
var polygons = map[string][][2]int64{
	"arrow":    {{-1000, -250}, {100, -250}, {100, -700}, {1000, 0}, {100, 700}, {100, 250}, {-1000, 250}},
	"cross":    {{-300, -1000}, {300, -1000}, {300, -300}, {1000, -300}, {1000, 300}, {300, 300}, {300, 1000}, {-300, 1000}, {-300, 300}, {-1000, 300}, {-1000, -300}, {-300, -300}},
	"square":   {{-750, -750}, {750, -750}, {750, 750}, {-750, 750}},
	"star":     {{0, -1000}, {235, -324}, {951, -309}, {380, 124}, {588, 809}, {0, 400}, {-588, 809}, {-380, 124}, {-951, -309}, {-235, -324}},
	"triangle": {{0, -1000}, {866, 500}, {-866, 500}},
}

// inside reports whether the point (x, y) of the shape's own coordinates
// is in the shape.
func inside(class string, x, y int64) bool {
	switch class {
	case "circle":
		return x*x+y*y <= 900*900
	case "ring":
		r := x*x + y*y
		return r >= 550*550 && r <= 950*950
	}
	return inPolygon(polygons[class], x, y)
}

// inPolygon is the even-odd rule, in exact integer arithmetic.
func inPolygon(p [][2]int64, x, y int64) bool {
	in := false
	j := len(p) - 1
	for i := range p {
		xi, yi, xj, yj := p[i][0], p[i][1], p[j][0], p[j][1]
		if (yi > y) != (yj > y) {
			// x left of the edge's crossing of the line at y
			lhs, rhs := (x-xi)*(yj-yi), (y-yi)*(xj-xi)
			if (yj > yi) == (lhs < rhs) {
				in = !in
			}
		}
		j = i
	}
	return in
}

// sub is the sub-pixel unit of the geometry: positions are in 1/sub
// pixels.
const sub = 256

// pose places a shape in the image: its centre (cx, cy) and radii (rx, ry)
// in 1/sub pixels, rotated by the angle whose cosine and sine are c/d and
// s/d.
type pose struct {
	cx, cy, rx, ry int64
	c, s, d        int64
}

// rotM is the denominator of the rotation's half-angle tangent m/rotM;
// |m| ≤ rotMax gives angles up to 2·atan(17/64) ≈ 30°.
const rotM, rotMax = 64, 17

// rotation sets the rotation by the half-angle tangent m/rotM: the
// cosine (M² − m²)/(M² + m²) and sine 2mM/(M² + m²), exact rationals.
func (p *pose) rotation(m int64) {
	p.c, p.s, p.d = rotM*rotM-m*m, 2*m*rotM, rotM*rotM+m*m
}

// randomPose draws a pose for a size×size image.
func randomPose(rng *rand.Rand, size int) pose {
	s := int64(size)
	var p pose
	p.cx = s*sub/2 + rng.Int64N(s*sub/4+1) - s*sub/8
	p.cy = s*sub/2 + rng.Int64N(s*sub/4+1) - s*sub/8
	r := s * sub * (28 + rng.Int64N(13)) / 100
	p.rx, p.ry = r*(850+rng.Int64N(301))/1000, r
	p.rotation(rng.Int64N(2*rotMax+1) - rotMax)
	return p
}

// jitter is a pose near p: the centre moved by up to size/50 pixels, the
// radii scaled by 0.97–1.03 and the angle's half-tangent moved by up to
// 2/rotM (a sketch's second stroke).
func (p pose) jitter(rng *rand.Rand, size int) pose {
	d := max(int64(size)*sub/50, 1)
	q := p
	q.cx += rng.Int64N(2*d+1) - d
	q.cy += rng.Int64N(2*d+1) - d
	f := 970 + rng.Int64N(61)
	q.rx, q.ry = p.rx*f/1000, p.ry*f/1000
	// recover m from the sine: s = 2·m·M exactly
	q.rotation(p.s/(2*rotM) + rng.Int64N(5) - 2)
	return q
}

// samples is the side of the grid of samples per pixel.
const samples = 4

// cover is the coverage of each pixel of a size×size image by the shape
// at p: 0 to samples² of its samples inside.
func cover(class string, p pose, size int) []int32 {
	cov := make([]int32, size*size)
	for y := range size {
		for x := range size {
			n := int32(0)
			for j := range samples {
				py := int64(y)*sub + int64(2*j+1)*sub/(2*samples) - p.cy
				for i := range samples {
					px := int64(x)*sub + int64(2*i+1)*sub/(2*samples) - p.cx
					// rotate back, then scale to the shape's coordinates
					u, v := p.c*px+p.s*py, p.c*py-p.s*px
					if inside(class, u*unit/(p.d*p.rx), v*unit/(p.d*p.ry)) {
						n++
					}
				}
			}
			cov[y*size+x] = n
		}
	}
	return cov
}

// full is the coverage of a pixel wholly inside.
const full = samples * samples

// edges is, for each pixel, the largest difference of coverage within
// Chebyshev distance w of it, 0 to full: a line of width about 2w+1 along
// the shape's outline.
func edges(cov []int32, size, w int) []int32 {
	e := make([]int32, len(cov))
	for y := range size {
		for x := range size {
			lo, hi := int32(full), int32(0)
			for yy := max(y-w, 0); yy <= min(y+w, size-1); yy++ {
				for xx := max(x-w, 0); xx <= min(x+w, size-1); xx++ {
					v := cov[yy*size+xx]
					lo, hi = min(lo, v), max(hi, v)
				}
			}
			e[y*size+x] = max(hi-lo, 0)
		}
	}
	return e
}
