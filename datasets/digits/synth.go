package digits

import (
	"errors"
	"fmt"
	"image"
	"image/draw"
	"math"
	"math/rand/v2"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gobolditalic"
	"golang.org/x/image/font/gofont/goitalic"
	"golang.org/x/image/font/gofont/gomedium"
	"golang.org/x/image/font/gofont/gomediumitalic"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/gomonobolditalic"
	"golang.org/x/image/font/gofont/gomonoitalic"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// SynthSize is the side of a Synth image in pixels.
const SynthSize = 32

// MaxSynth is the most images one Synth call renders (3 GiB of pixels).
const MaxSynth = 1 << 20

// Synth renders n street-number-like colour digits, SynthSize×SynthSize RGB:
// the experiment's third, colour domain where no SVHN file can be had. It is
// not SVHN and no substitute for reporting SVHN results; it only shares
// SVHN's kind of shift away from MNIST and USPS (colour, texture, fonts,
// neighbouring digits).
//
// Each image shows one digit, its label (uniform over 0–9), near the centre,
// drawn from the outlines of one of ten Go fonts (regular, medium, bold,
// italic and monospaced cuts) with height 16–26 px, width ×0.86–1.16, shear
// ±0.2, rotation ±15° and its box's centre within ±2 px of the image's. A
// neighbouring digit sits on each side with probability 3/4, often cut by
// the image border as in SVHN's crops. The background is a linear gradient
// between two random, partly desaturated colours with a smooth grey
// texture; the digits share one such colour, whose luminance differs from
// every background pixel's by at least 0.3 (of 1). Half the images are
// blurred (one or two binomial 3×3 passes), and all get pixel noise with σ
// up to 0.05 (per channel, a centred sum of four uniforms).
//
// Every random choice comes from rng, in a fixed order. The arithmetic is
// integer or rounds every inexact product (explicit conversions keep the
// compiler from fusing multiply-adds, as it does on arm64 or with
// GOAMD64=v3), and the only math functions are the exactly rounded Sqrt
// and Round: the same generator state gives the same bytes on every run,
// machine and architecture.
func Synth(n int, rng *rand.Rand) (*ColorImages, error) {
	if n < 0 || n > MaxSynth {
		return nil, fmt.Errorf("digits.Synth: %d images, want 0 to %d", n, MaxSynth)
	}
	if rng == nil {
		return nil, errors.New("digits.Synth: nil random generator")
	}
	fonts, err := synthFonts()
	if err != nil {
		return nil, err
	}
	const plane = SynthSize * SynthSize
	im := &ColorImages{N: n, H: SynthSize, W: SynthSize, Pixels: make([]uint8, n*3*plane), Labels: make([]int, n)}
	r := newSynthRenderer()
	for i := range n {
		im.Labels[i] = r.render(im.Pixels[i*3*plane:(i+1)*3*plane], rng, fonts).digits[1]
	}
	return im, nil
}

// lerp returns a + t·(b − a), the product rounded before the sum (see
// Synth).
func lerp(a, b, t float64) float64 { return a + float64(t*(b-a)) }

// glyph is a digit's outline in units of the font's digit height, centred
// on the outline's box, y pointing down, and its advance width.
type glyph struct {
	segs    []seg
	advance float64
}

// seg is an outline segment: move or line to p[0], or quadratic Bézier via
// p[0] to p[1].
type seg struct {
	op sfnt.SegmentOp
	p  [2][2]float64
}

// segPoints is the number of points of a segment with operator op.
func segPoints(op sfnt.SegmentOp) int {
	if op == sfnt.SegmentOpQuadTo {
		return 2
	}
	return 1
}

// synthFonts parses the ten Go fonts (TrueType: quadratic outlines) once
// and returns their digit glyphs.
var synthFonts = sync.OnceValues(func() ([][10]glyph, error) {
	ttfs := [][]byte{
		goregular.TTF, gomedium.TTF, gobold.TTF, goitalic.TTF, gomediumitalic.TTF, gobolditalic.TTF,
		gomono.TTF, gomonobold.TTF, gomonoitalic.TTF, gomonobolditalic.TTF,
	}
	out := make([][10]glyph, len(ttfs))
	var b sfnt.Buffer
	for i, ttf := range ttfs {
		f, err := sfnt.Parse(ttf)
		if err != nil {
			return nil, fmt.Errorf("digits.Synth: font %d: %w", i, err)
		}
		ppem := fixed.Int26_6(f.UnitsPerEm()) << 6 // one pixel per font unit
		top, bottom := math.Inf(1), math.Inf(-1)
		var left, right [10]float64
		for d := range 10 {
			g := &out[i][d]
			x, err := f.GlyphIndex(&b, rune('0'+d))
			if err == nil && x == 0 {
				err = errors.New("no glyph")
			}
			var segs sfnt.Segments
			if err == nil {
				segs, err = f.LoadGlyph(&b, x, ppem, nil)
			}
			var adv fixed.Int26_6
			if err == nil {
				adv, err = f.GlyphAdvance(&b, x, ppem, font.HintingNone)
			}
			if err != nil {
				return nil, fmt.Errorf("digits.Synth: font %d, digit %d: %w", i, d, err)
			}
			g.advance = float64(adv) / 64
			left[d], right[d] = math.Inf(1), math.Inf(-1)
			for _, sg := range segs {
				if sg.Op == sfnt.SegmentOpCubeTo {
					return nil, fmt.Errorf("digits.Synth: font %d, digit %d: cubic outline, want TrueType's quadratic", i, d)
				}
				t := seg{op: sg.Op}
				for k, p := range sg.Args[:segPoints(sg.Op)] {
					t.p[k] = [2]float64{float64(p.X) / 64, float64(p.Y) / 64}
					left[d], right[d] = min(left[d], t.p[k][0]), max(right[d], t.p[k][0])
					top, bottom = min(top, t.p[k][1]), max(bottom, t.p[k][1])
				}
				g.segs = append(g.segs, t)
			}
		}
		// Normalise: digit height 1 (top of the tallest digit to the bottom
		// of the lowest), each digit centred horizontally on its own outline
		// (as SVHN centres its crops on a digit's box).
		h, cy := bottom-top, (top+bottom)/2
		for d := range out[i] {
			g := &out[i][d]
			cx := (left[d] + right[d]) / 2
			for j := range g.segs {
				for k, p := range g.segs[j].p[:segPoints(g.segs[j].op)] {
					g.segs[j].p[k] = [2]float64{(p[0] - cx) / h, (p[1] - cy) / h}
				}
			}
			g.advance /= h
		}
	}
	return out, nil
})

// synthSample holds one image's random choices but its pixel noise.
type synthSample struct {
	font    int
	digits  [3]int        // left neighbour, centre (the label), right neighbour; −1 where absent
	gaps    [2]float64    // extra space before and after the centre digit, in digit heights
	m       [6]float64    // affine map (x, y) ↦ (m0x+m1y+m2, m3x+m4y+m5) from glyph units to pixels
	bg      [2][3]float64 // gradient end colours
	dir     [2]float64    // gradient direction over the image's diagonal: the gradient spans at most 0 to 1
	texture [5][5]float64 // grey texture on a 4×4-cell lattice
	fg      [3]float64
	blur    int // binomial 3×3 passes
	noise   float64
}

// luminance is Rec. 601 luma of an RGB colour in [0, 1].
func luminance(c [3]float64) float64 {
	return float64(0.299*c[0]) + float64(0.587*c[1]) + float64(0.114*c[2])
}

// minContrast is the least luminance difference between the digits' colour
// and any background pixel before noise.
const minContrast = 0.3

// newSynthSample draws one image's choices, as Synth's documentation
// describes them.
func newSynthSample(rng *rand.Rand, fonts [][10]glyph) synthSample {
	u := func(lo, hi float64) float64 { return lerp(lo, hi, rng.Float64()) }
	var s synthSample
	s.font = rng.IntN(len(fonts))
	for k := range s.digits {
		s.digits[k] = rng.IntN(10)
		if k != 1 && rng.IntN(4) == 0 {
			s.digits[k] = -1
		}
	}
	s.gaps = [2]float64{u(0.05, 0.3), u(0.05, 0.3)}

	h := u(16, 26)
	sx := float64(h * u(0.86, 1.16)) // width scale
	shear := u(-0.2, 0.2)
	// Rotation: sine uniform in ±sin 15°, an angle within ±15°.
	const sin15 = 0.25881904510252074
	sin := u(-sin15, sin15)
	cos := math.Sqrt(1 - float64(sin*sin))
	tx, ty := SynthSize/2+u(-2, 2), SynthSize/2+u(-2, 2)
	// Shear (x − shear·y), then scale (sx, h), then rotate.
	a, b := float64(cos*sx), float64(sin*sx)
	s.m = [6]float64{
		a, -float64(a*shear) - float64(sin*h), tx,
		b, -float64(b*shear) + float64(cos*h), ty,
	}

	// Random colours, moved part of the way to their grey (street scenes
	// are seldom saturated).
	colour := func() (c [3]float64) {
		for k := range c {
			c[k] = rng.Float64()
		}
		l, t := luminance(c), u(0, 0.8)
		for k := range c {
			c[k] = lerp(c[k], l, t)
		}
		return c
	}
	s.bg[0], s.fg = colour(), colour()
	for k := range 3 {
		s.bg[1][k] = min(max(s.bg[0][k]+u(-0.2, 0.2), 0), 1)
	}
	// Gradient direction: a point uniform in the unit disc, normalised.
	for {
		x, y := u(-1, 1), u(-1, 1)
		if r2 := float64(x*x) + float64(y*y); r2 > 0.01 && r2 <= 1 {
			d := math.Sqrt(r2) * SynthSize * math.Sqrt2
			s.dir = [2]float64{x / d, y / d}
			break
		}
	}
	amp := u(0, 0.06)
	for y := range s.texture {
		for x := range s.texture[y] {
			s.texture[y][x] = amp * u(-1, 1)
		}
	}
	// Push the digits' colour towards black or white, whichever side of the
	// background's luminance range has more room, until it is minContrast
	// away from that range (span ≤ 0.2 + 2·0.06, so the room suffices).
	l0, l1 := luminance(s.bg[0]), luminance(s.bg[1])
	lo, hi := min(l0, l1)-amp, max(l0, l1)+amp
	l := luminance(s.fg)
	if lo >= 1-hi && l > lo-minContrast {
		t := (l - (lo - minContrast)) / l
		for k := range s.fg {
			s.fg[k] = lerp(s.fg[k], 0, t)
		}
	} else if lo < 1-hi && l < hi+minContrast {
		t := (hi + minContrast - l) / (1 - l)
		for k := range s.fg {
			s.fg[k] = lerp(s.fg[k], 1, t)
		}
	}
	s.blur = max(rng.IntN(4)-1, 0) // none half the time, else one or two passes
	s.noise = u(0, 0.05)
	return s
}

// synthRenderer holds the buffers one image needs.
type synthRenderer struct {
	z    *vector.Rasterizer
	mask *image.Alpha
	a    []float64 // coverage in [0, 1], blurred
	tmp  []float64
}

func newSynthRenderer() *synthRenderer {
	const n = SynthSize * SynthSize
	return &synthRenderer{
		z:    vector.NewRasterizer(SynthSize, SynthSize),
		mask: image.NewAlpha(image.Rect(0, 0, SynthSize, SynthSize)),
		a:    make([]float64, n),
		tmp:  make([]float64, n),
	}
}

// coverage rasterises s's digits into r.a (unblurred). Curves are flattened
// here, as vector.Rasterizer.QuadTo would, but with rounded products (see
// Synth); the rasteriser's line code is fixed-point.
func (r *synthRenderer) coverage(s *synthSample, fonts [][10]glyph) {
	r.z.Reset(SynthSize, SynthSize)
	r.z.DrawOp = draw.Src
	f := &fonts[s.font]
	m := s.m
	var pen [2]float64
	lineTo := func(p [2]float64) {
		r.z.LineTo(float32(p[0]), float32(p[1]))
		pen = p
	}
	c := f[s.digits[1]].advance / 2
	for k, d := range s.digits {
		if d < 0 {
			continue
		}
		g := &f[d]
		var dx float64
		switch k {
		case 0:
			dx = -c - s.gaps[0] - g.advance/2
		case 2:
			dx = c + s.gaps[1] + g.advance/2
		}
		at := func(p [2]float64) [2]float64 {
			x, y := p[0]+dx, p[1]
			return [2]float64{
				float64(m[0]*x) + float64(m[1]*y) + m[2],
				float64(m[3]*x) + float64(m[4]*y) + m[5],
			}
		}
		open := false
		for _, sg := range g.segs {
			switch sg.op {
			case sfnt.SegmentOpMoveTo:
				if open {
					r.z.ClosePath()
				}
				pen = at(sg.p[0])
				r.z.MoveTo(float32(pen[0]), float32(pen[1]))
				open = true
			case sfnt.SegmentOpLineTo:
				lineTo(at(sg.p[0]))
			case sfnt.SegmentOpQuadTo:
				a, b, c := pen, at(sg.p[0]), at(sg.p[1])
				// Segments as vector.Rasterizer.QuadTo: 1 + ⌊(3·dev²)^¼⌋.
				dx, dy := a[0]-2*b[0]+c[0], a[1]-2*b[1]+c[1]
				n := 1 + int(math.Sqrt(math.Sqrt(3*(float64(dx*dx)+float64(dy*dy)))))
				for i := 1; i < n; i++ {
					t := float64(i) / float64(n)
					ab := [2]float64{lerp(a[0], b[0], t), lerp(a[1], b[1], t)}
					bc := [2]float64{lerp(b[0], c[0], t), lerp(b[1], c[1], t)}
					lineTo([2]float64{lerp(ab[0], bc[0], t), lerp(ab[1], bc[1], t)})
				}
				lineTo(c)
			}
		}
		if open {
			r.z.ClosePath()
		}
	}
	r.z.Draw(r.mask, r.mask.Bounds(), image.Opaque, image.Point{})
	for i, v := range r.mask.Pix {
		r.a[i] = float64(v) / 255
	}
}

// blur applies one binomial [1 2 1]/4 pass along rows, then columns, to r.a,
// repeating edge pixels.
func (r *synthRenderer) blur() {
	const n = SynthSize
	pass := func(dst, src []float64, step, stride int) {
		for o := range n {
			for i := range n {
				p := o*stride + i*step
				lo, hi := p-step, p+step
				if i == 0 {
					lo = p
				}
				if i == n-1 {
					hi = p
				}
				dst[p] = (src[lo] + 2*src[p] + src[hi]) / 4 // 2x is exact: nothing to fuse
			}
		}
	}
	pass(r.tmp, r.a, 1, n)
	pass(r.a, r.tmp, n, 1)
}

// render draws one image's choices from rng and paints it into dst (3
// planes of SynthSize² bytes), leaving the digits' coverage in r.a.
func (r *synthRenderer) render(dst []uint8, rng *rand.Rand, fonts [][10]glyph) synthSample {
	const n = SynthSize
	s := newSynthSample(rng, fonts)
	r.coverage(&s, fonts)
	for range s.blur {
		r.blur()
	}
	t := &s.texture
	for y := range n {
		// Texture: bilinear on the lattice, cells of n/4 pixels.
		ty := (float64(y) + 0.5) * 4 / n
		y0 := min(int(ty), 3)
		fy := ty - float64(y0)
		for x := range n {
			tx := (float64(x) + 0.5) * 4 / n
			x0 := min(int(tx), 3)
			fx := tx - float64(x0)
			tex := lerp(lerp(t[y0][x0], t[y0][x0+1], fx), lerp(t[y0+1][x0], t[y0+1][x0+1], fx), fy)
			g := 0.5 + float64(s.dir[0]*(float64(x)+0.5-n/2)) + float64(s.dir[1]*(float64(y)+0.5-n/2)) // in [0, 1]
			a := r.a[y*n+x]
			for k := range 3 {
				bg := min(max(lerp(s.bg[0][k], s.bg[1][k], g)+tex, 0), 1)
				v := lerp(bg, s.fg[k], a) + float64(s.noise*unitNoise(rng))
				dst[k*n*n+y*n+x] = uint8(min(max(math.Round(v*255), 0), 255))
			}
		}
	}
	return s
}

// unitNoise returns a centred sum of four uniform 16-bit draws from one
// rng.Uint64, scaled to unit variance: near-Gaussian (Irwin–Hall), cheap,
// and exact in integer arithmetic up to the final scaling.
func unitNoise(rng *rand.Rand) float64 {
	const sqrt3 = 1.7320508075688772
	b := rng.Uint64()
	sum := b&0xffff + b>>16&0xffff + b>>32&0xffff + b>>48
	return (float64(sum)/0xffff - 2) * sqrt3
}
