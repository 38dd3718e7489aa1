//go:build !noasm

package tensor

import "math"

// winogradInput4 and winogradOutput4 are the AVX-512 transforms of
// winograd_avx512_amd64.s, winogradKernels4's input and output on the
// tiles of the lanes mask (≤ 16) over c (o) channels; strides and
// offsets in floats. The input reads x from off (row 0, column 0 of the
// first tile) in each channel plane, the rows i < 6 of the rows mask and,
// in them, the columns j < 66 of the masks lo (j < 64) and hi (j − 64),
// zero elsewhere. The output writes y from off in each channel plane,
// the rows i < 4 of the rows mask and in them the columns j < 64 of cols,
// adding bias[o] to channel o's outputs where add (reading *bias where
// not).
//
//go:noescape
func winogradInput4(x *float32, off, ldx, plane, c int, rows, lo, hi, lanes uint64, v *float32, ldc, ldxi int)

//go:noescape
func winogradOutput4(m *float32, ldo, ldxi int, lanes uint64, o int, y *float32, off, ldy, plane int, rows, cols uint64, bias *float32, add bool)

// winogradFilters4 is winogradKernels4's filters in AVX-512 (the
// filters of the rows mask gathered a lane each, zero in the other lanes
// of lanes); strides in floats.
//
//go:noescape
func winogradFilters4(w *float32, ldo, ldc int, rows uint64, n int, u *float32, ldu, ldxi int, lanes uint64, flip bool)

// swinograd4 wraps the assembly: the masks from the segment's place in
// the planes, and the bounds it relies on.
var swinograd4 = winogradKernels4[float32]{
	run: winogradRun,
	input: func(v, x []float32, y0, x0, l, h, w, c, ldc, ldxi int) {
		_, _ = x[c*h*w-1], v[35*ldxi+(c-1)*ldc+l-1]
		jlo, jhi := max(0, -x0), min(4*l+2, w-x0) // the columns inside
		winogradInput4(&x[0], y0*w+x0, w, h*w, c, spanBits(-y0, h-y0), spanBits(jlo, jhi), spanBits(jlo-64, jhi-64),
			spanBits(0, l), &v[0], ldc, ldxi)
	},
	output: func(y, m, bias []float32, oy, ox, l, h, w, o, ldo, ldxi int) {
		_, _ = y[o*h*w-1], m[35*ldxi+(o-1)*ldo+l-1]
		b := &m[0] // read, never added, without a bias
		if bias != nil {
			_ = bias[o-1]
			b = &bias[0]
		}
		winogradOutput4(&m[0], ldo, ldxi, spanBits(0, l), o, &y[0], oy*w+ox, w, h*w, spanBits(0, h-oy),
			spanBits(0, min(4*l, w-ox)), b, bias != nil)
	},
	filters: func(u, w []float32, rows, n, ldo, ldc int, flip bool, ldu, ldxi int) {
		_, _ = w[(rows-1)*ldo+(n-1)*ldc+8], u[35*ldxi+n*ldu-1]
		winogradFilters4(&w[0], ldo, ldc, spanBits(0, rows), n, &u[0], ldu, ldxi, spanBits(0, ldu), flip)
	},
}

// spanBits is the mask of bits lo to hi−1 that lie within 0 to 63.
func spanBits(lo, hi int) uint64 {
	lo, hi = max(lo, 0), min(hi, 64)
	if lo >= hi {
		return 0
	}
	return ^uint64(0) >> (64 - (hi - lo)) << lo
}

// winogradInput4AVX2 and winogradOutput4AVX2 are the AVX2 transforms of
// winograd_avx2_amd64.s, as winogradInput4 and winogradOutput4 on up to 8
// tiles, the masks vectors of int32 (a lane taken where negative): the
// input reads the columns j < 40 of its 5 column masks (zero elsewhere)
// and writes the lanes of the mask after them unless full; the output
// reads the lanes of the mask after its 4 column masks and writes the
// columns j < 32 of those unless full. The output adds the float at bias
// to each channel's outputs, bias moving a float a channel where add.
//
//go:noescape
func winogradInput4AVX2(x *float32, off, ldx, plane, c int, rows uint64, masks *int32, full bool, v *float32, ldc, ldxi int)

//go:noescape
func winogradOutput4AVX2(m *float32, ldo, ldxi int, masks *int32, o int, y *float32, off, ldy, plane int, rows uint64, full bool, bias *float32, add bool)

// runAVX2 is the tiles the AVX2 transforms take at once, a YMM register's
// lanes.
const runAVX2 = 8

// negZero is the bias the AVX2 output transform adds where there is none:
// x + (−0) is x, −0 included.
var negZero = float32(math.Copysign(0, -1))

// swinograd4AVX2 wraps the AVX2 assembly: the masks from the segment's
// place in the planes, and the bounds it relies on. The filter transform
// stays Go's.
var swinograd4AVX2 = winogradKernels4[float32]{
	run: runAVX2,
	input: func(v, x []float32, y0, x0, l, h, w, c, ldc, ldxi int) {
		_, _ = x[c*h*w-1], v[35*ldxi+(c-1)*ldc+l-1]
		var masks [48]int32
		spanMask(masks[:40], max(0, -x0), min(4*l+2, w-x0))
		spanMask(masks[40:], 0, l)
		winogradInput4AVX2(&x[0], y0*w+x0, w, h*w, c, spanBits(-y0, h-y0), &masks[0], l == runAVX2, &v[0], ldc, ldxi)
	},
	output: func(y, m, bias []float32, oy, ox, l, h, w, o, ldo, ldxi int) {
		_, _ = y[o*h*w-1], m[35*ldxi+(o-1)*ldo+l-1]
		cols := min(4*l, w-ox)
		var masks [40]int32
		spanMask(masks[:32], 0, cols)
		spanMask(masks[32:], 0, l)
		b := &negZero
		if bias != nil {
			_ = bias[o-1]
			b = &bias[0]
		}
		winogradOutput4AVX2(&m[0], ldo, ldxi, &masks[0], o, &y[0], oy*w+ox, w, h*w, spanBits(0, h-oy), cols == 4*runAVX2, b, bias != nil)
	},
}

// spanMask sets the lanes lo to hi−1 of mask to −1 (taken), the others to
// 0.
func spanMask(mask []int32, lo, hi int) {
	for j := range mask {
		mask[j] = 0
		if j >= lo && j < hi {
			mask[j] = -1
		}
	}
}

// asmWinograd4 returns the assembly transforms of F(4×4, 3×3) for T:
// float32 at level gemmISA AVX-512 or AVX2, else ok = false.
func asmWinograd4[T Float]() (winogradKernels4[T], bool) {
	if _, f32 := any(*new(T)).(float32); !f32 {
		return winogradKernels4[T]{}, false
	}
	return byLevel[winogradKernels4[T], T](gemmISA, &swinograd4, nil, &swinograd4AVX2, nil)
}
