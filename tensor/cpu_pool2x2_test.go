package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// poolValue draws a value for the 2×2 pooling tests: many ties, and by
// trial NaNs, signed zeros and infinities.
func poolValue(r *rand.Rand, trial int) float64 {
	switch v := r.IntN(8); {
	case v == 0 && trial%2 == 1:
		return math.NaN()
	case v == 1 && trial%3 == 1:
		return math.Copysign(0, -1)
	case v < 3 && trial%4 == 2:
		return math.Inf(v - 1)
	default:
		return float64(v % 3)
	}
}

// argmax2x2 picks the same element as the general windowArgmax on every window
// of planes with ties, NaNs, signed zeros and infinities, even and odd sizes.
func TestArgmax2x2MatchesWindowArgmax(t *testing.T) {
	r := newRNG(5)
	for _, hw := range [][2]int{{2, 2}, {6, 8}, {7, 5}, {28, 28}} {
		p := Pool2DParams{N: 1, C: 1, H: hw[0], W: hw[1], KH: 2, KW: 2, StrideH: 2, StrideW: 2}
		if !halving(p) {
			t.Fatalf("%+v is not halving", p)
		}
		for trial := range 20 {
			plane := make([]float64, p.H*p.W)
			for i := range plane {
				plane[i] = poolValue(r, trial)
			}
			for oy := range p.OutH() {
				at := make([]uint8, p.OutW())
				argmax2x2(at, plane[2*oy*p.W:], plane[(2*oy+1)*p.W:])
				for ox, q := range at {
					got := (2*oy+int(q>>1))*p.W + 2*ox + int(q&1)
					if want := windowArgmax(plane, p, oy, ox); got != want {
						t.Fatalf("%dx%d window (%d,%d) of %v: argmax2x2 at %d, windowArgmax at %d", p.H, p.W, oy, ox, plane, got, want)
					}
				}
			}
		}
	}
}

// The 2×2 max pooling kernels (in assembly for float32 where the CPU has
// it, 8 windows at a time) route every window as windowArgmax does, bit for
// bit, in both precisions, on rows around the 8-window groups.
func TestMaxPool2x2Kernels(t *testing.T) {
	testMaxPool2x2Kernels[float32](t)
	testMaxPool2x2Kernels[float64](t)
}

func testMaxPool2x2Kernels[T Float](t *testing.T) {
	r := newRNG(9)
	bits := func(v T) uint64 { return math.Float64bits(float64(v)) }
	for _, w := range []int{2, 15, 16, 17, 18, 33, 62} {
		p := Pool2DParams{N: 2, C: 3, H: 5, W: w, KH: 2, KW: 2, StrideH: 2, StrideW: 2}
		oh, ow := p.OutH(), p.OutW()
		for trial := range 12 {
			x := make([]T, p.N*p.C*p.H*p.W)
			for i := range x {
				x[i] = T(poolValue(r, trial))
			}
			dy := randSlice[T](r, p.N*p.C*oh*ow)
			y, dx := nans[T](len(dy)), nans[T](len(x))
			maxPool2dForward(y, x, p)
			maxPool2dBackward(dx, x, dy, p)
			want := make([]T, len(x))
			for pl := range p.N * p.C {
				plane := x[pl*p.H*p.W : (pl+1)*p.H*p.W]
				for oy := range oh {
					for ox := range ow {
						at := windowArgmax(plane, p, oy, ox)
						o := pl*oh*ow + oy*ow + ox
						if bits(y[o]) != bits(plane[at]) {
							t.Fatalf("%s width %d trial %d: y[%d] = %v, want %v", DType[T](), w, trial, o, y[o], plane[at])
						}
						want[pl*p.H*p.W+at] = dy[o]
					}
				}
			}
			for i := range dx {
				if bits(dx[i]) != bits(want[i]) {
					t.Fatalf("%s width %d trial %d: dx[%d] = %v, want %v", DType[T](), w, trial, i, dx[i], want[i])
				}
			}
		}
	}
}
