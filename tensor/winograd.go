package tensor

import (
	"math"
	"math/bits"
	"runtime"
	"sync"
)

// Winograd minimal filtering (Lavin & Gray, CVPR 2016) for 3×3, stride-1,
// undilated convolutions: F(m×m, 3×3) computes an m×m tile of output from
// an (m+2)×(m+2) tile d of input as Aᵀ[(G g Gᵀ) ⊙ (Bᵀ d B)]A, with
// (m+2)² multiplications per channel pair instead of 9m². Summed over the
// input channels, each of the (m+2)² transformed positions ξ is a matrix
// product: M[ξ] = U[ξ]·V[ξ], U[ξ] [O × C] the transformed filters and
// V[ξ] [C × tiles] the transformed input tiles, on the engine's GEMM. The
// tiles (of all images, in order n, tile row, tile column) go in blocks
// of winogradBlock, one block per step of a core: its V and M, the input
// transform scattering into V and the output transform reading M back,
// with the epilogue applied as each tile is written. Tiles reaching past
// the input read zeros; outputs past the edge are computed and dropped.
//
// The weight gradient is taken in the same domain: with dM = A·dY·Aᵀ for
// each tile's output gradient dY (zero past the edge), U's gradient is
// Σ_tiles dM[ξ]·V[ξ]ᵀ, and the filters' is Gᵀ·dU·G. The input gradient is
// the forward pass of dy with the flipped filters (flippedConv).

// winograd is F(m×m, 3×3) for one convolution: its transforms in T
// (bt, at and a apply Bᵀ, Aᵀ and A to a vector, a = m+2 being the input
// tile's side; gf applies G to a vector of 3; g is G, a×3, and gt its
// transpose, row-major) and its tiles.
type winograd[T Float] struct {
	m, a           int
	bt, at, am, gf func(out []T, so int, d []T, sd int)
	g, gt          []T
	tileH, tileW   int // tile rows and columns of an image
	imageTiles     int // tiles of an image
	tiles          int // tiles of the batch
}

// winogradCoefficients are Bᵀ, G and Aᵀ of F(2×2, 3×3) and F(4×4, 3×3)
// (Lavin & Gray, section 4.1 and 4.2).
var winogradCoefficients = map[int]struct{ bt, g, at []float64 }{
	2: {
		bt: []float64{
			1, 0, -1, 0,
			0, 1, 1, 0,
			0, -1, 1, 0,
			0, 1, 0, -1},
		g: []float64{
			1, 0, 0,
			0.5, 0.5, 0.5,
			0.5, -0.5, 0.5,
			0, 0, 1},
		at: []float64{
			1, 1, 1, 0,
			0, 1, -1, -1},
	},
	4: {
		bt: []float64{
			4, 0, -5, 0, 1, 0,
			0, -4, -4, 1, 1, 0,
			0, 4, -4, -1, 1, 0,
			0, -2, -1, 2, 1, 0,
			0, 2, -1, -2, 1, 0,
			0, 4, 0, -5, 0, 1},
		g: []float64{
			1.0 / 4, 0, 0,
			-1.0 / 6, -1.0 / 6, -1.0 / 6,
			-1.0 / 6, 1.0 / 6, -1.0 / 6,
			1.0 / 24, 1.0 / 12, 1.0 / 6,
			1.0 / 24, -1.0 / 12, 1.0 / 6,
			0, 0, 1},
		at: []float64{
			1, 1, 1, 1, 1, 0,
			0, 1, -1, 2, -2, 0,
			0, 1, 1, 4, 4, 0,
			0, 1, -1, 8, -8, 1},
	},
}

// winogradShape reports a convolution Winograd's F(m×m, 3×3) computes: a
// 3×3 kernel, stride 1, no dilation (any padding).
func winogradShape(p Conv2DParams) bool {
	return p.KH == 3 && p.KW == 3 && p.StrideH == 1 && p.StrideW == 1 && p.DilH == 1 && p.DilW == 1
}

// newWinograd is F(m×m, 3×3), m being 2 or 4, for convolution p.
func newWinograd[T Float](m int, p Conv2DParams) *winograd[T] {
	c := winogradCoefficients[m]
	a := m + 2
	wg := &winograd[T]{m: m, a: a, bt: inputRow2[T], at: outputRow2[T], am: gradRow2[T], gf: filterRow2[T], g: convertAll[T](c.g)}
	if m == 4 {
		wg.bt, wg.at, wg.am, wg.gf = inputRow4[T], outputRow4[T], gradRow4[T], filterRow4[T]
	}
	wg.gt = transpose(wg.g, a, 3)
	wg.tileH, wg.tileW = (p.OutH()+m-1)/m, (p.OutW()+m-1)/m
	wg.imageTiles = wg.tileH * wg.tileW
	wg.tiles = p.N * wg.imageTiles
	return wg
}

// inputRow4 sets out[k·so], k < 6, to (Bᵀ·d)[k] for F(4×4, 3×3) and the
// vector d[k·sd], k < 6.
func inputRow4[T Float](out []T, so int, d []T, sd int) {
	d0, d1, d2, d3, d4, d5 := d[0], d[sd], d[2*sd], d[3*sd], d[4*sd], d[5*sd]
	out[0] = 4*d0 - 5*d2 + d4
	out[so] = d4 + d3 - 4*(d1+d2)
	out[2*so] = d4 - d3 + 4*(d1-d2)
	out[3*so] = d4 - d2 + 2*(d3-d1)
	out[4*so] = d4 - d2 - 2*(d3-d1)
	out[5*so] = 4*d1 - 5*d3 + d5
}

// inputRow2 is inputRow4 for F(2×2, 3×3), k < 4.
func inputRow2[T Float](out []T, so int, d []T, sd int) {
	d0, d1, d2, d3 := d[0], d[sd], d[2*sd], d[3*sd]
	out[0] = d0 - d2
	out[so] = d1 + d2
	out[2*so] = d2 - d1
	out[3*so] = d1 - d3
}

// outputRow4 sets out[k·so], k < 4, to (Aᵀ·s)[k] for F(4×4, 3×3) and the
// vector s[k·ss], k < 6.
func outputRow4[T Float](out []T, so int, s []T, ss int) {
	s0, s1, s2, s3, s4, s5 := s[0], s[ss], s[2*ss], s[3*ss], s[4*ss], s[5*ss]
	out[0] = s0 + s1 + s2 + s3 + s4
	out[so] = s1 - s2 + 2*(s3-s4)
	out[2*so] = s1 + s2 + 4*(s3+s4)
	out[3*so] = s1 - s2 + 8*(s3-s4) + s5
}

// outputRow2 is outputRow4 for F(2×2, 3×3), k < 2 from s of 4.
func outputRow2[T Float](out []T, so int, s []T, ss int) {
	s0, s1, s2, s3 := s[0], s[ss], s[2*ss], s[3*ss]
	out[0] = s0 + s1 + s2
	out[so] = s1 - s2 - s3
}

// gradRow4 sets out[k·so], k < 6, to (A·s)[k] for F(4×4, 3×3) and the
// vector s[k·ss], k < 4: the adjoint of outputRow4.
func gradRow4[T Float](out []T, so int, s []T, ss int) {
	s0, s1, s2, s3 := s[0], s[ss], s[2*ss], s[3*ss]
	out[0] = s0
	out[so] = s0 + s1 + s2 + s3
	out[2*so] = s0 - s1 + s2 - s3
	out[3*so] = s0 + 2*s1 + 4*s2 + 8*s3
	out[4*so] = s0 - 2*s1 + 4*s2 - 8*s3
	out[5*so] = s3
}

// gradRow2 is gradRow4 for F(2×2, 3×3), k < 4 from s of 2.
func gradRow2[T Float](out []T, so int, s []T, ss int) {
	s0, s1 := s[0], s[ss]
	out[0] = s0
	out[so] = s0 + s1
	out[2*so] = s0 - s1
	out[3*so] = -s1
}

// filterRow4 sets out[k·so], k < 6, to (G·g)[k] for F(4×4, 3×3) and the
// vector g[k·sg], k < 3: G's coefficients times g, summed in order, as
// sandwich does (the same values but for the sign of a zero).
func filterRow4[T Float](out []T, so int, g []T, sg int) {
	q, s, h, e := T(1.0/4), T(-1.0/6), T(1.0/12), T(1.0/24)
	g0, g1, g2 := g[0], g[sg], g[2*sg]
	a, b, c, d, f := s*g0, s*g1, s*g2, e*g0, h*g1
	out[0] = q * g0
	out[so] = a + b + c
	out[2*so] = a - b + c
	out[3*so] = d + f - c
	out[4*so] = d - f - c
	out[5*so] = g2
}

// filterRow2 is filterRow4 for F(2×2, 3×3), k < 4.
func filterRow2[T Float](out []T, so int, g []T, sg int) {
	g0, g2, h := g[0], g[2*sg], T(0.5)
	a, b, c := h*g0, h*g[sg], h*g2
	out[0] = g0
	out[so] = a + b + c
	out[2*so] = a - b + c
	out[3*so] = g2
}

func convertAll[T Float](s []float64) []T {
	out := make([]T, len(s))
	for i, v := range s {
		out[i] = T(v)
	}
	return out
}

// transpose returns the transpose of the r×c matrix s.
func transpose[T Float](s []T, r, c int) []T {
	out := make([]T, len(s))
	for i := range r {
		for j := range c {
			out[j*r+i] = s[i*c+j]
		}
	}
	return out
}

// sandwich sets out (r×r) to M·S·Mᵀ for M r×k and S k×k, all row-major,
// skipping M's zeros; tmp holds r×k values.
func sandwich[T Float](out, mat, s, tmp []T, r, k int) {
	for i := range r {
		row := mat[i*k : (i+1)*k]
		t := tmp[i*k : (i+1)*k]
		clear(t)
		for l, c := range row {
			if c == 0 {
				continue
			}
			for j, v := range s[l*k : (l+1)*k] {
				t[j] += c * v
			}
		}
	}
	for i := range r {
		t := tmp[i*k : (i+1)*k]
		for j := range r {
			var sum T
			for l, c := range mat[j*k : (j+1)*k] {
				if c != 0 {
					sum += t[l] * c
				}
			}
			out[i*r+j] = sum
		}
	}
}

// winogradBlock is the number of tiles a core takes at a time: V and M of
// a block, (m+2)²·(C+O) values a tile, about 2 MB of float32, in whole
// column panels of nr tiles (the GEMM's), at least 32 tiles and at most
// 512, and no more than the batch's share of a core.
func winogradBlock(positions, tiles, nr int, p Conv2DParams) int {
	tb := min(max((1<<19)/(positions*(p.C+p.O))/nr*nr, 32), 512)
	procs := runtime.GOMAXPROCS(0)
	return max(1, min(tb, (tiles+procs-1)/procs))
}

// tile returns the image and the top-left output position of tile t.
func (wg *winograd[T]) tile(t int) (n, oy, ox int) {
	n, t = t/wg.imageTiles, t%wg.imageTiles
	return n, t / wg.tileW * wg.m, t % wg.tileW * wg.m
}

// winogradKernels4 are the assembly transforms of F(4×4, 3×3) for a
// segment of l ≤ winogradRun consecutive tiles of one tile row, over all
// channels (asmWinograd4). input sets v[ξ·ldxi + c·ldc + t], t < l, to
// the transformed tile t of x [C, h, w] (C, h, w ≥ 1) from row y0 and
// column x0 + 4t (zero outside the planes), as inputs does. output sets
// y [O, h, w] (O ≥ 1) at channel o from row oy and column ox + 4t,
// clipped to the planes, to the tiles t < l of m (m[ξ·ldxi + o·ldo + t]),
// Aᵀ·M·A as outputs does, plus bias[o] unless bias is nil. filters sets
// u[ξ·ldxi + c·ldu + i], i < ldu ≤ winogradRun, c < n, to G·g·Gᵀ for the
// filter g at w[i·ldo + c·ldc:] (turned by 180° if flip) as filter does,
// zero for i ≥ rows.
// run ≤ winogradRun is the most tiles a call takes (the vector's lanes);
// filters may be nil (the Go filter transform then serves).
type winogradKernels4[T Float] struct {
	run     int
	input   func(v, x []T, y0, x0, l, h, w, c, ldc, ldxi int)
	output  func(y, m, bias []T, oy, ox, l, h, w, o, ldo, ldxi int)
	filters func(u, w []T, rows, n, ldo, ldc int, flip bool, ldu, ldxi int)
}

// winogradRun is the most tiles the assembly transforms at once, a
// ZMM register's lanes.
const winogradRun = 16

// segments calls f(t, n, oy, ox, l) for tiles t to t+l−1 of the block
// (tiles t0 to t0+nt−1), in order: the block cut at the ends of tile rows
// and into pieces of at most run tiles, each in one tile row of image n
// from output position (oy, ox).
func (wg *winograd[T]) segments(t0, nt, run int, f func(t, n, oy, ox, l int)) {
	for t := 0; t < nt; {
		n, oy, ox := wg.tile(t0 + t)
		l := min(run, nt-t, wg.tileW-ox/wg.m)
		f(t, n, oy, ox, l)
		t += l
	}
}

// inputs sets v [a², C, ld] (columns 0 to nt) to the transformed input
// tiles t0 to t0+nt of x [N, C, H, W]: each tile's (m+2)² values of channel c are Bᵀ·d·B, by
// the assembly where it serves (F(4×4), float32, AVX-512: segments of
// tiles, all channels at once), else over a channel's tiles in order, so
// that it reads a plane at a time and writes each of the a² rows of v in
// order.
func (wg *winograd[T]) inputs(v, x []T, p Conv2DParams, t0, nt, ld int) {
	a, plane := wg.a, p.H*p.W
	if k, ok := asmWinograd4[T](); ok && wg.m == 4 && p.C*plane > 0 {
		wg.segments(t0, nt, k.run, func(t, n, oy, ox, l int) {
			k.input(v[t:], x[n*p.C*plane:][:p.C*plane], oy-p.PadH, ox-p.PadW, l, p.H, p.W, p.C, ld, p.C*ld)
		})
		return
	}
	var d, tmp [36]T
	for c := range p.C {
		for t := range nt {
			n, oy, ox := wg.tile(t0 + t)
			y0, x0 := oy-p.PadH, ox-p.PadW
			img := x[(n*p.C+c)*plane:][:plane]
			src, lds := d[:], a // the tile: in place inside the image, else copied with its zeros
			if y0 >= 0 && x0 >= 0 && y0+a <= p.H && x0+a <= p.W {
				src, lds = img[y0*p.W+x0:], p.W
			} else {
				wg.pad(d[:a*a], img, y0, x0, p)
			}
			for i := range a { // d·B, row by row
				wg.bt(tmp[i*a:], 1, src[i*lds:], 1)
			}
			for j := range a { // then Bᵀ· each column, into v
				wg.bt(v[(j*p.C+c)*ld+t:], a*p.C*ld, tmp[j:], a)
			}
		}
	}
}

// pad sets d (a×a) to the tile of the plane img [H, W] from row y0 and
// column x0, zero outside the plane.
func (wg *winograd[T]) pad(d, img []T, y0, x0 int, p Conv2DParams) {
	a := wg.a
	for i := range a {
		row := d[i*a : (i+1)*a]
		if y := y0 + i; y < 0 || y >= p.H {
			clear(row)
			continue
		}
		src := img[(y0+i)*p.W:][:p.W]
		for j := range row {
			if u := x0 + j; u >= 0 && u < p.W {
				row[j] = src[u]
			} else {
				row[j] = 0
			}
		}
	}
}

// outputs writes tiles t0 to t0+nt of y [N, O, OH, OW] from columns 0 to
// nt of m [a², O, ld]
// (each tile Aᵀ·M·A, clipped at the edge), then e on what it wrote: by
// the assembly where it serves (F(4×4), float32, AVX-512: segments of
// tiles, all channels at once, adding the bias there and applying an
// affine epilogue to the segment's rows after), else over a channel's
// tiles in order (reading each row of m in order).
func (wg *winograd[T]) outputs(y, mm []T, e *epilogue[T], p Conv2DParams, t0, nt, ld int) {
	a, m, oh, ow := wg.a, wg.m, p.OutH(), p.OutW()
	if k, ok := asmWinograd4[T](); ok && m == 4 && p.O > 0 {
		var bias []T
		if e != nil {
			bias = e.bias
		}
		wg.segments(t0, nt, k.run, func(t, n, oy, ox, l int) {
			k.output(y[n*p.O*oh*ow:][:p.O*oh*ow], mm[t:], bias, oy, ox, l, oh, ow, p.O, ld, p.O*ld)
			if e == nil || e.bias != nil {
				return
			}
			for o := range p.O {
				for i := range min(m, oh-oy) {
					at := ((n*p.O+o)*oh+oy+i)*ow + ox
					epilogueRow(y[at:at+min(l*m, ow-ox)], e, o, at)
				}
			}
		})
		return
	}
	var out, tmp [36]T
	for o := range p.O {
		for t := range nt {
			n, oy, ox := wg.tile(t0 + t)
			rows, cols := min(m, oh-oy), min(m, ow-ox)
			for j := range a { // Aᵀ·M, column by column from mm
				wg.at(tmp[j:], a, mm[(j*p.O+o)*ld+t:], a*p.O*ld)
			}
			for i := range m { // then each row by A
				wg.at(out[i*m:], 1, tmp[i*a:], 1)
			}
			base := (n*p.O + o) * oh * ow
			for i := range rows {
				at := base + (oy+i)*ow + ox
				dst := y[at : at+cols]
				copy(dst, out[i*m:i*m+cols])
				epilogueRow(dst, e, o, at)
			}
		}
	}
}

// epilogueRow applies e (nil for none) to dst, outputs of channel o from
// offset at of y.
func epilogueRow[T Float](dst []T, e *epilogue[T], o, at int) {
	switch {
	case e == nil:
	case e.bias != nil:
		for j := range dst {
			dst[j] += e.bias[o]
		}
	default:
		var r []T
		if e.r != nil {
			r = e.r[at : at+len(dst)]
		}
		affinePlane(dst, dst, r, e.scale[o], e.shift[o], e.relu)
	}
}

// filter sets out (a×a) to G·g·Gᵀ for the 3×3 filter g, turned by 180°
// if flip: G on each column, then on each row.
func (wg *winograd[T]) filter(out, g []T, flip bool) {
	var tmp [18]T
	if flip {
		var r [9]T
		for i, v := range g[:9] {
			r[8-i] = v
		}
		g = r[:]
	}
	for j := range 3 {
		wg.gf(tmp[j:], 3, g[j:], 3)
	}
	for i := range wg.a {
		wg.gf(out[i*wg.a:], 1, tmp[i*3:], 1)
	}
}

// filters sets packed to the transformed filters G·g·Gᵀ of w [O, C, 3,
// 3] as the a² operands U[ξ] [O × C] of mk's GEMM packed whole
// (packWhole's layout, U[ξ] at filterLayout's ξ·stride, rows past O
// zero; the padding between positions left as it was), in
// one pass over the weights: a panel of mr filters and up to kc channels
// at a time, by the assembly where it serves (F(4×4), float32, AVX-512:
// the panel's filters a lane each), else filter by filter. With flip, w
// is [C, O, 3, 3] and filter (o, c) is w[c, o] turned by 180° (flipKernel
// of w, read in place).
func (wg *winograd[T]) filters(packed, w []T, mk microKernel[T], p Conv2DParams, flip bool) {
	pos, mr, kc := wg.a*wg.a, mk.mr, mk.kc
	mm := roundUp(p.O, mr)
	_, stride := wg.filterLayout(p, mk)
	ldo, ldc := p.C*9, 9 // from filter (o, c) to (o+1, c) and (o, c+1)
	if flip {
		ldo, ldc = 9, p.O*9
	}
	k, asm := asmWinograd4[T]()
	asm = asm && k.filters != nil && wg.m == 4 && mr <= winogradRun && int64(ldo)*winogradRun <= math.MaxInt32
	parallelFor(mm/mr, mr*p.C*pos, func(lo, hi int) {
		var out [36]T
		for i0 := lo * mr; i0 < hi*mr; i0 += mr {
			rows := min(mr, p.O-i0)
			for p0 := 0; p0 < p.C; p0 += kc {
				kb := min(kc, p.C-p0)
				u, src := packed[mm*p0+i0*kb:], w[i0*ldo+p0*ldc:]
				if asm {
					k.filters(u, src, rows, kb, ldo, ldc, flip, mr, stride)
					continue
				}
				for c := range kb {
					for i := range mr {
						if i < rows {
							wg.filter(out[:pos], src[i*ldo+c*ldc:][:9], flip)
						} else {
							clear(out[:pos])
						}
						for xi, v := range out[:pos] {
							u[xi*stride+c*mr+i] = v
						}
					}
				}
			}
		}
	})
}

// winogradPacked keeps the packed transformed filters for reuse across
// calls, a pair of pools for each bit length of their size: from
// getScratch's pool, or one pool for all, a call would often be handed a
// block's buffer or a smaller layer's filters instead and allocate the
// filters' (m+2)²·O·C values (and fault their pages in) afresh.
var winogradPacked [bits.UintSize + 1][2]sync.Pool

// winogradForward is conv2dForward by F(m×m, 3×3) (winogradShape); with
// flip, w holds the filters [C, O, 3, 3] whose flipKernel p's are (the
// input gradient of flippedConv's convolution).
func winogradForward[T Float](y, x, w []T, e *epilogue[T], p Conv2DParams, m int, flip bool) {
	wg := newWinograd[T](m, p)
	if wg.tiles == 0 {
		return
	}
	mk := kernelFor[T]()
	size, stride := wg.filterLayout(p, mk)
	packed, done := wg.packedFilters(w, mk, p, flip, wg.a*wg.a*stride)
	defer done()
	u := filterSet[T]{packed, size, stride}
	if wg.byPosition(p, mk) {
		wg.forwardByPosition(y, x, u, e, p, mk)
	} else {
		wg.forwardByBlocks(y, x, u, e, p, mk)
	}
}

// filterSet is the packed transformed filters in filterLayout's layout.
type filterSet[T Float] struct {
	packed       []T
	size, stride int
}

// at is U[ξ].
func (u filterSet[T]) at(xi int) []T { return u.packed[xi*u.stride:][:u.size] }

// product sets M[ξ] = U[ξ]·V[ξ] for the nt columns of V [a², C, ldv]
// and M [a², O, ldm].
func product[T Float](mk microKernel[T], u filterSet[T], v, mm []T, p Conv2DParams, nt, ldv, ldm, xi int) {
	A := operand[T]{ld: p.C, packed: u.at(xi)}
	B := operand[T]{data: v[xi*p.C*ldv:], ld: ldv}
	gemmOperands(mk, 1, p.O, nt, p.C, 1, A, B, 0, mm[xi*p.O*ldm:], ldm)
}

// spreadSets is the j < 16 for which rows of positions positions,
// base + j·step bytes apart, fall in the most L1 sets (64-byte lines, 4
// KB a way), the least such j of those that tie. The transforms write or
// read a row of every position at once, and rows a multiple of 4 KB apart
// share one set and evict each other: with 64 channels of 96 tiles in
// float32 the input transform ran 3× slower, and so did the filter
// transform of 512 channels.
func spreadSets(base, step, positions int) int {
	best, most := 0, 0
	for j := range 16 {
		var sets [64]bool
		count, stride := 0, base+j*step
		for xi := range positions {
			if s := xi * stride / 64 % 64; !sets[s] {
				sets[s] = true
				count++
			}
		}
		if count > most {
			best, most = j, count
		}
	}
	return best
}

// paddedLD is the column stride, n to n+15, of a [positions, rows, ·]
// buffer of elements of size bytes that spreads its positions' rows over
// the most L1 sets (spreadSets).
func paddedLD(n, rows, positions, size int) int {
	return n + spreadSets(rows*n*size, rows*size, positions)
}

// filterLayout is the layout of the packed transformed filters of p:
// size values a position ξ (U[ξ], packed for mk), positions stride values
// apart, the stride padded by whole 64-byte lines so that the filter
// transform's stores to every position spread over the L1 sets.
func (wg *winograd[T]) filterLayout(p Conv2DParams, mk microKernel[T]) (size, stride int) {
	elem := sizeOf[T]()
	size = roundUp(p.O, mk.mr) * p.C
	return size, size + spreadSets(size*elem, 64, wg.a*wg.a)*64/elem
}

// forwardByBlocks is winogradForward in blocks of tiles, each core taking
// whole blocks: its V and M, then the a² products, then the outputs.
func (wg *winograd[T]) forwardByBlocks(y, x []T, u filterSet[T], e *epilogue[T], p Conv2DParams, mk microKernel[T]) {
	pos := wg.a * wg.a
	tb := winogradBlock(pos, wg.tiles, mk.nr, p)
	elem := sizeOf[T]()
	ldv, ldm := paddedLD(tb, p.C, pos, elem), paddedLD(tb, p.O, pos, elem)
	blocks := (wg.tiles + tb - 1) / tb
	parallelFor(blocks, tb*pos*p.O*p.C, func(lo, hi int) {
		buf := getScratch[T](pos * (p.C*ldv + p.O*ldm))
		defer putScratch(buf)
		v, mm := (*buf)[:pos*p.C*ldv], (*buf)[pos*p.C*ldv:][:pos*p.O*ldm]
		for b := lo; b < hi; b++ {
			t0 := b * tb
			nt := min(tb, wg.tiles-t0)
			wg.inputs(v, x, p, t0, nt, ldv)
			for xi := range pos {
				product(mk, u, v, mm, p, nt, ldv, ldm, xi)
			}
			wg.outputs(y, mm, e, p, t0, nt, ldm)
		}
	})
}

// maxByPosition is the most values of V and M forwardByPosition holds.
const maxByPosition = 1 << 24

// byPosition reports whether winogradForward takes forwardByPosition: on
// more than one core, for a batch of fewer tiles than a GEMM column panel
// a core (ResNet-50's 7×7 layers at batch 8), V and M holding at most
// maxByPosition values. There blocks of tiles would leave lanes of the
// micro-kernel idle, and every core would read all the filters.
func (wg *winograd[T]) byPosition(p Conv2DParams, mk microKernel[T]) bool {
	procs := runtime.GOMAXPROCS(0)
	return procs > 1 && (wg.tiles+procs-1)/procs < mk.nr && wg.a*wg.a*(p.C+p.O)*wg.tiles <= maxByPosition
}

// forwardByPosition is winogradForward with V and M of every tile: the
// transforms split over the cores by tiles and the a² products by
// position ξ, each product taking all the tiles as its columns and each
// core reading only its positions' filters. Its sums are forwardByBlocks'
// to the bit (a product's columns are independent).
func (wg *winograd[T]) forwardByPosition(y, x []T, u filterSet[T], e *epilogue[T], p Conv2DParams, mk microKernel[T]) {
	pos, nt, elem := wg.a*wg.a, wg.tiles, sizeOf[T]()
	ldv, ldm := paddedLD(nt, p.C, pos, elem), paddedLD(nt, p.O, pos, elem)
	buf := getScratch[T](pos * (p.C*ldv + p.O*ldm))
	defer putScratch(buf)
	v, mm := (*buf)[:pos*p.C*ldv], (*buf)[pos*p.C*ldv:][:pos*p.O*ldm]
	parallelFor(nt, pos*p.C, func(lo, hi int) { wg.inputs(v[lo:], x, p, lo, hi-lo, ldv) })
	parallelFor(pos, p.O*p.C*nt, func(lo, hi int) {
		for xi := lo; xi < hi; xi++ {
			product(mk, u, v, mm, p, nt, ldv, ldm, xi)
		}
	})
	parallelFor(nt, pos*p.O, func(lo, hi int) { wg.outputs(y, mm[lo:], e, p, lo, hi-lo, ldm) })
}

// outputGrads sets columns 0 to nt of dm [a², O, ld] to A·dY·Aᵀ for the
// output gradient dY of tiles t0 to t0+nt of dy [N, O, OH, OW], zero past
// the edge, over a channel's tiles in order.
func (wg *winograd[T]) outputGrads(dm, dy []T, p Conv2DParams, t0, nt, ld int) {
	if wg.m == 4 {
		wg.outputGrads4(dm, dy, p, t0, nt, ld)
		return
	}
	wg.outputGradsAny(dm, dy, p, t0, nt, ld)
}

// outputGrads4 is outputGrads for F(4×4) with its transform written out
// (gradTile4), a row of tiles at a time, a tile inside the map read in
// place: the same values as outputGradsAny, several times faster.
func (wg *winograd[T]) outputGrads4(dm, dy []T, p Conv2DParams, t0, nt, ld int) {
	oh, ow := p.OutH(), p.OutW()
	var pad [16]T
	for o := range p.O {
		wg.segments(t0, nt, winogradRun, func(t, n, oy, ox, l int) {
			plane := dy[(n*p.O+o)*oh*ow:][:oh*ow]
			for k := range l {
				x0 := ox + 4*k
				src, lds := plane[oy*ow+x0:], ow
				if oy+4 > oh || x0+4 > ow { // the tile's part inside, zero past the edge
					clear(pad[:])
					for i := range min(4, oh-oy) {
						copy(pad[i*4:i*4+min(4, ow-x0)], plane[(oy+i)*ow+x0:])
					}
					src, lds = pad[:], 4
				}
				gradTile4(dm[o*ld+t+k:], p.O*ld, src, lds)
			}
		})
	}
}

// gradTile4 sets out[ξ·so], ξ < 36, to A·s·Aᵀ for F(4×4, 3×3) and the
// 4×4 tile s (rows ss apart): gradRow4 on each column, then on each row,
// as outputGradsAny computes it. gradRow4's sums are written out here
// because the compiler does not inline it: calling it took the 128→128
// 28×28 transform at batch 16 from 3.6 to 5.8 ms.
func gradTile4[T Float](out []T, so int, s []T, ss int) {
	var c [24]T // A·s: 6 rows of 4
	for j := range 4 {
		s0, s1, s2, s3 := s[j], s[ss+j], s[2*ss+j], s[3*ss+j]
		c[j] = s0
		c[4+j] = s0 + s1 + s2 + s3
		c[8+j] = s0 - s1 + s2 - s3
		c[12+j] = s0 + 2*s1 + 4*s2 + 8*s3
		c[16+j] = s0 - 2*s1 + 4*s2 - 8*s3
		c[20+j] = s3
	}
	_ = out[35*so]
	for i := range 6 {
		s0, s1, s2, s3 := c[4*i], c[4*i+1], c[4*i+2], c[4*i+3]
		o := out[6*i*so:]
		o[0] = s0
		o[so] = s0 + s1 + s2 + s3
		o[2*so] = s0 - s1 + s2 - s3
		o[3*so] = s0 + 2*s1 + 4*s2 + 8*s3
		o[4*so] = s0 - 2*s1 + 4*s2 - 8*s3
		o[5*so] = s3
	}
}

// outputGradsAny is outputGrads by the transform's rows (wg.am), for any
// m: F(2×2)'s, and the reference outputGrads4 is tested against.
func (wg *winograd[T]) outputGradsAny(dm, dy []T, p Conv2DParams, t0, nt, ld int) {
	a, m, oh, ow := wg.a, wg.m, p.OutH(), p.OutW()
	var s, tmp [36]T
	for o := range p.O {
		for t := range nt {
			n, oy, ox := wg.tile(t0 + t)
			rows, cols := min(m, oh-oy), min(m, ow-ox)
			clear(s[:m*m])
			base := (n*p.O + o) * oh * ow
			for i := range rows {
				copy(s[i*m:i*m+cols], dy[base+(oy+i)*ow+ox:][:cols])
			}
			for j := range m { // A·dY, column by column
				wg.am(tmp[j:], m, s[j:], m)
			}
			for i := range a { // then each row by Aᵀ, into dm
				wg.am(dm[(i*a*p.O+o)*ld+t:], p.O*ld, tmp[i*m:], 1)
			}
		}
	}
}

// winogradWeights is conv2dBackwardWeight by F(m×m, 3×3): per slice of
// the tiles, Σ dM[ξ]·V[ξ]ᵀ into its own buffer [a², O, C], the buffers
// added in slice order (the result does not depend on scheduling), then
// Gᵀ·dU·G per filter.
func winogradWeights[T Float](dw, x, dy []T, p Conv2DParams, m int) {
	wg := newWinograd[T](m, p)
	clear(dw)
	if wg.tiles == 0 {
		return
	}
	pos := wg.a * wg.a
	tb := winogradBlock(pos, wg.tiles, kernelFor[T]().nr, p)
	blocks := (wg.tiles + tb - 1) / tb
	parts := max(1, min(blocks, runtime.GOMAXPROCS(0)))
	partial := make([]*[]T, parts)
	ldv, ldm := paddedLD(tb, p.C, pos, sizeOf[T]()), paddedLD(tb, p.O, pos, sizeOf[T]())
	parallelFor(parts, blocks/parts*tb*pos*p.O*p.C, func(lo, hi int) {
		buf := getScratch[T](pos * (p.C*ldv + p.O*ldm))
		defer putScratch(buf)
		v, dm := (*buf)[:pos*p.C*ldv], (*buf)[pos*p.C*ldv:][:pos*p.O*ldm]
		for part := lo; part < hi; part++ {
			acc := getScratch[T](pos * p.O * p.C)
			clear(*acc)
			for b := part * blocks / parts; b < (part+1)*blocks/parts; b++ {
				t0 := b * tb
				nt := min(tb, wg.tiles-t0)
				wg.inputs(v, x, p, t0, nt, ldv)
				wg.outputGrads(dm, dy, p, t0, nt, ldm)
				for xi := range pos {
					gemmNT(p.O, p.C, nt, dm[xi*p.O*ldm:], ldm, v[xi*p.C*ldv:], ldv, (*acc)[xi*p.O*p.C:], p.C)
				}
			}
			partial[part] = acc
		}
	})
	du := *partial[0]
	for _, acc := range partial[1:] {
		for i, v := range *acc {
			du[i] += v
		}
		putScratch(acc)
	}
	var s, tmp [36]T
	for o := range p.O {
		for c := range p.C {
			for xi := range pos {
				s[xi] = du[(xi*p.O+o)*p.C+c]
			}
			sandwich(dw[(o*p.C+c)*9:][:9], wg.gt, s[:pos], tmp[:3*wg.a], 3, wg.a)
		}
	}
	putScratch(partial[0])
}
