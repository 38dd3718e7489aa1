package tensor

import (
	"math"
	"testing"
)

// The 3×3 max pooling's interior windows (max3x3Row, and at stride 2 in
// float32 with AVX-512 maxPool3x3S2F32, 16 at a time) give windowArgmax's
// element bit for bit, in both precisions: on planes with ties, NaNs,
// infinities and signed zeros (where a zero is the maximum, the first
// zero's sign must survive), at strides 1 and 2, padded or not, on planes
// too small to have an interior and on ResNet's stem pooling (112×112).
func TestMaxPool3x3Interior(t *testing.T) {
	testMaxPool3x3Interior[float32](t)
	testMaxPool3x3Interior[float64](t)
}

func testMaxPool3x3Interior[T Float](t *testing.T) {
	r := newRNG(11)
	bits := func(v T) uint64 { return math.Float64bits(float64(v)) }
	zeros := [3]float64{-1, 0, math.Copysign(0, -1)}
	for _, q := range [][4]int{{1, 1, 1, 0}, {2, 2, 2, 1}, {3, 3, 1, 0}, {3, 4, 2, 1}, {7, 9, 1, 1}, {8, 8, 2, 1}, {9, 7, 2, 0}, {17, 33, 2, 1}, {56, 56, 2, 1}, {112, 112, 2, 1}} {
		p := Pool2DParams{N: 2, C: 2, H: q[0], W: q[1], KH: 3, KW: 3, StrideH: q[2], StrideW: q[2], PadH: q[3], PadW: q[3]}
		if p.OutH() < 1 || p.OutW() < 1 {
			continue
		}
		oh, ow := p.OutH(), p.OutW()
		for trial := range 14 {
			x := make([]T, p.N*p.C*p.H*p.W)
			for i := range x {
				if trial >= 12 { // maxima of zero with both signs
					x[i] = T(zeros[r.IntN(3)])
				} else {
					x[i] = T(poolValue(r, trial))
				}
			}
			y := nans[T](p.N * p.C * oh * ow)
			maxPool2dForward(y, x, p)
			for pl := range p.N * p.C {
				plane := x[pl*p.H*p.W : (pl+1)*p.H*p.W]
				for oy := range oh {
					for ox := range ow {
						want := plane[windowArgmax(plane, p, oy, ox)]
						if got := y[pl*oh*ow+oy*ow+ox]; bits(got) != bits(want) {
							t.Fatalf("%s %dx%d stride %d pad %d trial %d: window (%d,%d) of plane %d = %v, want %v", DType[T](), p.H, p.W, q[2], q[3], trial, oy, ox, pl, got, want)
						}
					}
				}
			}
		}
	}
}

// interior3x3 is the exact range of windows inside the plane, counted
// directly.
func TestInterior3x3(t *testing.T) {
	for h := 1; h <= 9; h++ {
		for s := 1; s <= 3; s++ {
			for pad := 0; pad <= 1; pad++ {
				p := Pool2DParams{N: 1, C: 1, H: h, W: h, KH: 3, KW: 3, StrideH: s, StrideW: s, PadH: pad, PadW: pad}
				if h+2*pad < 3 {
					continue
				}
				lo, hi := -1, -1
				for o := range p.OutH() {
					if o*s-pad >= 0 && o*s-pad+3 <= h {
						if lo < 0 {
							lo = o
						}
						hi = o + 1
					}
				}
				y0, y1, x0, x1 := interior3x3(p)
				if lo < 0 {
					lo, hi = y0, y0 // empty, wherever it starts
				}
				if y0 != lo || y1 != hi || x0 != y0 || x1 != y1 {
					t.Errorf("size %d stride %d pad %d: interior3x3 = [%d,%d)×[%d,%d), want [%d,%d)", h, s, pad, y0, y1, x0, x1, lo, hi)
				}
			}
		}
	}
}

// The 3×3 max pooling's backward pass (at stride 2 in float32 with
// AVX-512, maxPool3x3S2ArgF32 for interior windows) adds each dy to the
// element windowArgmax picks, in window order, bit for bit: on planes with
// ties, NaNs, infinities and signed zeros, padded or not, and on ResNet's
// stem pooling (112×112).
func TestMaxPool3x3Backward(t *testing.T) {
	testMaxPool3x3Backward[float32](t)
	testMaxPool3x3Backward[float64](t)
}

func testMaxPool3x3Backward[T Float](t *testing.T) {
	r := newRNG(12)
	for _, q := range [][4]int{{3, 4, 2, 1}, {9, 7, 2, 0}, {17, 33, 2, 1}, {40, 70, 2, 0}, {56, 56, 2, 1}, {112, 112, 2, 1}, {9, 40, 1, 1}} {
		p := Pool2DParams{N: 2, C: 2, H: q[0], W: q[1], KH: 3, KW: 3, StrideH: q[2], StrideW: q[2], PadH: q[3], PadW: q[3]}
		oh, ow := p.OutH(), p.OutW()
		for trial := range 12 {
			x := make([]T, p.N*p.C*p.H*p.W)
			for i := range x {
				x[i] = T(poolValue(r, trial))
			}
			dy := make([]T, p.N*p.C*oh*ow)
			for i := range dy {
				dy[i] = T(r.NormFloat64())
			}
			want := make([]T, len(x))
			for pl := range p.N * p.C {
				plane := x[pl*p.H*p.W : (pl+1)*p.H*p.W]
				for oy := range oh {
					for ox := range ow {
						want[pl*p.H*p.W+windowArgmax(plane, p, oy, ox)] += dy[pl*oh*ow+oy*ow+ox]
					}
				}
			}
			got := nans[T](len(x))
			maxPool2dBackward(got, x, dy, p)
			for i := range got {
				if math.Float64bits(float64(got[i])) != math.Float64bits(float64(want[i])) {
					t.Fatalf("%s %dx%d stride %d pad %d trial %d: dx[%d] = %v, want %v", DType[T](), p.H, p.W, q[2], q[3], trial, i, got[i], want[i])
				}
			}
		}
	}
}
