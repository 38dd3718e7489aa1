package synth

import (
	"fmt"
	"image"
	"math/rand/v2"
	"slices"
)

// Styles are the domains, in sorted order: the folders Write makes.
var Styles = []string{"cartoon", "painting", "photo", "sketch"}

// Render draws one size×size image of class (an index into Classes) in
// style (an index into Styles) from rng: an *image.Gray for the sketch
// style, an *image.RGBA otherwise.
func Render(class, style, size int, rng *rand.Rand) (image.Image, error) {
	switch {
	case class < 0 || class >= len(Classes):
		return nil, fmt.Errorf("synth.Render: class %d, want 0 to %d", class, len(Classes)-1)
	case style < 0 || style >= len(Styles):
		return nil, fmt.Errorf("synth.Render: style %d, want 0 to %d", style, len(Styles)-1)
	case size < MinSize || size > MaxSize:
		return nil, fmt.Errorf("synth.Render: size %d, want %d to %d", size, MinSize, MaxSize)
	}
	p := randomPose(rng, size)
	cov := cover(Classes[class], p, size)
	switch Styles[style] {
	case "cartoon":
		return cartoon(rng, cov, size), nil
	case "painting":
		return painting(rng, cov, size), nil
	case "photo":
		return photo(rng, cov, p, Classes[class], size), nil
	}
	return sketch(rng, cov, p, Classes[class], size), nil
}

// rgb is a colour, each channel 0 to 255 (or beyond, before clamping).
type rgb [3]int32

func randomColour(rng *rand.Rand, lo, hi int32) rgb {
	var c rgb
	for i := range c {
		c[i] = lo + rng.Int32N(hi-lo+1)
	}
	return c
}

// luma is the colour's luminance, ITU-R 601 weights.
func (c rgb) luma() int32 { return (299*c[0] + 587*c[1] + 114*c[2]) / 1000 }

// contrasting draws colours in [lo, hi] until one's luminance differs from
// each of others' by at least 60.
func contrasting(rng *rand.Rand, lo, hi int32, others ...rgb) rgb {
	for {
		c := randomColour(rng, lo, hi)
		ok := true
		for _, o := range others {
			if d := c.luma() - o.luma(); d < 60 && d > -60 {
				ok = false
			}
		}
		if ok {
			return c
		}
	}
}

// mix is a·(full−t)/full + b·t/full, t a coverage.
func mix(a, b rgb, t int32) rgb {
	var c rgb
	for i := range c {
		c[i] = (a[i]*(full-t) + b[i]*t) / full
	}
	return c
}

// valueNoise is a (cells+1)² grid of values in [−amp, amp] interpolated
// bilinearly over size×size pixels, stretched to cx×cy cells.
func valueNoise(rng *rand.Rand, size, cx, cy int, amp int32) []int32 {
	grid := make([]int32, (cx+1)*(cy+1))
	for i := range grid {
		grid[i] = rng.Int32N(2*amp+1) - amp
	}
	out := make([]int32, size*size)
	for y := range size {
		fy := y * cy * 256 / size
		j, ty := fy>>8, int32(fy&255)
		for x := range size {
			fx := x * cx * 256 / size
			i, tx := fx>>8, int32(fx&255)
			g := grid[j*(cx+1)+i:]
			h := grid[(j+1)*(cx+1)+i:]
			out[y*size+x] = (g[0]*(256-tx)*(256-ty) + g[1]*tx*(256-ty) + h[0]*(256-tx)*ty + h[1]*tx*ty) >> 16
		}
	}
	return out
}

// gauss is pixel noise: a centred sum of four uniforms on [−k, k], halved
// (standard deviation about 0.58k).
func gauss(rng *rand.Rand, k int32) int32 {
	s := int32(0)
	for range 4 {
		s += rng.Int32N(2*k+1) - k
	}
	return s / 2
}

func clamp(v int32) uint8 { return uint8(max(0, min(255, v))) }

// toRGBA writes the pixels, clamped, into an image.
func toRGBA(px []rgb, size int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, size, size))
	for i, c := range px {
		m.Pix[4*i], m.Pix[4*i+1], m.Pix[4*i+2], m.Pix[4*i+3] = clamp(c[0]), clamp(c[1]), clamp(c[2]), 255
	}
	return m
}

// photo: textured gradient background, textured object with a drop
// shadow, a lighting gradient over both, pixel noise.
func photo(rng *rand.Rand, cov []int32, p pose, class string, size int) image.Image {
	bgA := randomColour(rng, 30, 225)
	bgB := bgA
	for i := range bgB {
		bgB[i] = max(0, min(255, bgA[i]+rng.Int32N(81)-40))
	}
	obj := contrasting(rng, 0, 255, bgA, bgB)
	bgTex := valueNoise(rng, size, 4+rng.IntN(5), 4+rng.IntN(5), 35)
	objTex := valueNoise(rng, size, 8+rng.IntN(9), 8+rng.IntN(9), 30)
	// the light: a factor of 0.7 to 1.3 (of 256) across the image
	lx, ly := rng.Int32N(155)-77, rng.Int32N(155)-77
	sh := p
	sh.cx += int64(size) * sub / 25
	sh.cy += int64(size) * sub / 25
	shadow := cover(class, sh, size)
	s := int32(size)
	px := make([]rgb, size*size)
	for y := range s {
		for x := range s {
			i := y*s + x
			bg := mix(bgA, bgB, (x+y)*full/(2*s))
			for c := range bg {
				bg[c] = (bg[c] + bgTex[i]) * (full*10 - 4*shadow[i]) / (full * 10)
			}
			o := obj
			for c := range o {
				o[c] += objTex[i]
			}
			v := mix(bg, o, cov[i])
			light := 256 + (lx*(2*x-s)+ly*(2*y-s))/s
			for c := range v {
				v[c] = v[c]*light/256 + gauss(rng, 10)
			}
			px[i] = v
		}
	}
	return toRGBA(px, size)
}

// cartoon: flat pastel background, flat saturated object, dark outline.
func cartoon(rng *rand.Rand, cov []int32, size int) image.Image {
	bg := randomColour(rng, 150, 255)
	var obj rgb
	for {
		// a saturated colour: one channel high, one low, one anywhere
		perm := rng.Perm(3)
		obj[perm[0]] = 200 + rng.Int32N(56)
		obj[perm[1]] = rng.Int32N(60)
		obj[perm[2]] = rng.Int32N(256)
		if d := obj.luma() - bg.luma(); d >= 60 || d <= -60 {
			break
		}
	}
	ink := randomColour(rng, 0, 40)
	line := edges(cov, size, max(1, size/40))
	px := make([]rgb, size*size)
	for i := range px {
		px[i] = mix(mix(bg, obj, cov[i]), ink, line[i])
	}
	return toRGBA(px, size)
}

// sketch: grey strokes along the outline (and a second, lighter one off
// it), sometimes hatching inside, on light paper.
func sketch(rng *rand.Rand, cov []int32, p pose, class string, size int) image.Image {
	w := max(1, size/64)
	first := edges(cov, size, w)
	second := edges(cover(class, p.jitter(rng, size), size), size, w)
	paper := 225 + rng.Int32N(26)
	dark := 40 + rng.Int32N(80)
	light := dark + (paper-dark)/2
	hatch, period, dir := rng.IntN(2) == 0, 3+rng.IntN(4), 1-2*rng.IntN(2)
	m := image.NewGray(image.Rect(0, 0, size, size))
	for y := range size {
		for x := range size {
			i := y*size + x
			v := paper + gauss(rng, 4)
			if hatch && cov[i] >= full/2 && ((x+dir*y)%period+period)%period == 0 {
				v = (v + light) / 2
			}
			v = (v*(full-second[i]) + light*second[i]) / full
			v = (v*(full-first[i]) + dark*first[i]) / full
			m.Pix[i] = clamp(v)
		}
	}
	return m
}

// painting: the scene in a palette of six colours with brush-like
// streaks, blurred.
func painting(rng *rand.Rand, cov []int32, size int) image.Image {
	palette := make([]rgb, 6)
	palette[0] = randomColour(rng, 0, 255)
	palette[1] = randomColour(rng, 0, 255)
	palette[2] = contrasting(rng, 0, 255, palette[0], palette[1])
	for i := 3; i < len(palette); i++ {
		palette[i] = randomColour(rng, 0, 255)
	}
	// streaks: noise stretched along one axis
	cx, cy := 2+rng.IntN(2), 10+rng.IntN(8)
	if rng.IntN(2) == 0 {
		cx, cy = cy, cx
	}
	streak := valueNoise(rng, size, cx, cy, 45)
	s := int32(size)
	px := make([]rgb, size*size)
	for y := range s {
		for x := range s {
			i := y*s + x
			v := mix(mix(palette[0], palette[1], y*full/s), palette[2], cov[i])
			for c := range v {
				v[c] += streak[i]
			}
			px[i] = nearest(palette, v)
		}
	}
	for range 1 + size/48 {
		px = blur(px, size)
	}
	return toRGBA(px, size)
}

// nearest is the palette's colour closest to v.
func nearest(palette []rgb, v rgb) rgb {
	d := func(c rgb) int32 {
		a, b, e := c[0]-v[0], c[1]-v[1], c[2]-v[2]
		return a*a + b*b + e*e
	}
	return slices.MinFunc(palette, func(a, b rgb) int { return int(d(a) - d(b)) })
}

// blur is one pass of the binomial 3×3 filter, edges repeated.
func blur(px []rgb, size int) []rgb {
	out := make([]rgb, len(px))
	at := func(x, y int) rgb { return px[min(max(y, 0), size-1)*size+min(max(x, 0), size-1)] }
	for y := range size {
		for x := range size {
			var sum rgb
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					k := int32((2 - dx*dx) * (2 - dy*dy))
					v := at(x+dx, y+dy)
					for c := range sum {
						sum[c] += k * v[c]
					}
				}
			}
			for c := range sum {
				sum[c] = (sum[c] + 8) / 16
			}
			out[y*size+x] = sum
		}
	}
	return out
}
