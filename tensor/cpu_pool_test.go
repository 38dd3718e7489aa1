package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// cpuPoolCases cover the usual 2×2/2 and padded 3×3/2 windows on even and odd
// sizes (and a row longer than the 2×2 path's chunk), rectangular windows
// with mixed strides, an empty batch, the smallest pooling and a batch large
// enough to split over cores.
var cpuPoolCases = []struct {
	name     string
	p        Pool2DParams
	parallel bool
}{
	{"2x2s2", Pool2DParams{N: 2, C: 3, H: 6, W: 8, KH: 2, KW: 2, StrideH: 2, StrideW: 2}, false},
	{"2x2s2-odd", Pool2DParams{N: 3, C: 2, H: 7, W: 5, KH: 2, KW: 2, StrideH: 2, StrideW: 2}, false},
	{"2x2s2-wide", Pool2DParams{N: 1, C: 2, H: 3, W: 261, KH: 2, KW: 2, StrideH: 2, StrideW: 2}, false},
	{"3x3s2p1", Pool2DParams{N: 2, C: 3, H: 8, W: 8, KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1}, false},
	{"3x3s2p1-odd", Pool2DParams{N: 1, C: 2, H: 7, W: 9, KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1}, false},
	{"3x2s1,2p1", Pool2DParams{N: 2, C: 2, H: 5, W: 7, KH: 3, KW: 2, StrideH: 1, StrideW: 2, PadH: 1, PadW: 1}, false},
	{"empty", Pool2DParams{N: 0, C: 2, H: 4, W: 4, KH: 2, KW: 2, StrideH: 2, StrideW: 2}, false},
	{"1x1", Pool2DParams{N: 1, C: 1, H: 1, W: 1, KH: 1, KW: 1, StrideH: 1, StrideW: 1}, false},
	{"parallel", Pool2DParams{N: 8, C: 16, H: 32, W: 32, KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1}, true},
}

// refPool returns the direct-loop max and average pooling of x and their
// gradients for dy. The first strictly greater element of a window, in
// row-major order, is its maximum; padding is skipped.
func refPool(x, dy []float64, p Pool2DParams) (ymax, yavg, dmax, davg []float64) {
	oh, ow := p.OutH(), p.OutW()
	ymax, yavg = make([]float64, len(dy)), make([]float64, len(dy))
	dmax, davg = make([]float64, len(x)), make([]float64, len(x))
	area := float64(p.KH * p.KW)
	for pl := 0; pl < p.N*p.C; pl++ {
		for i := 0; i < oh; i++ {
			for j := 0; j < ow; j++ {
				o := (pl*oh+i)*ow + j
				best, bi := math.Inf(-1), -1
				for kh := 0; kh < p.KH; kh++ {
					for kw := 0; kw < p.KW; kw++ {
						ih, iw := i*p.StrideH-p.PadH+kh, j*p.StrideW-p.PadW+kw
						if ih < 0 || ih >= p.H || iw < 0 || iw >= p.W {
							continue
						}
						k := (pl*p.H+ih)*p.W + iw
						yavg[o] += x[k] / area
						davg[k] += dy[o] / area
						if bi < 0 || x[k] > best {
							best, bi = x[k], k
						}
					}
				}
				ymax[o] = best
				dmax[bi] += dy[o]
			}
		}
	}
	return ymax, yavg, dmax, davg
}

// runPool runs the four kernels on outputs pre-filled with NaN.
func runPool[T Float](x, dy []T, p Pool2DParams) (ymax, yavg, dmax, davg []T) {
	ymax, yavg, dmax, davg = nans[T](len(dy)), nans[T](len(dy)), nans[T](len(x)), nans[T](len(x))
	maxPool2dForward(ymax, x, p)
	avgPool2dForward(yavg, x, p)
	maxPool2dBackward(dmax, x, dy, p)
	avgPool2dBackward(davg, dy, p)
	return ymax, yavg, dmax, davg
}

// checkPoolKernels compares the four kernels in T against the direct loops,
// on normal inputs and on inputs with many ties.
func checkPoolKernels[T Float](t *testing.T, tol float64) {
	withProcs(t, 4)
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range cpuPoolCases {
		p := tc.p
		checkCase(t, tc.name, p, p.N*p.C*p.KH*p.KW*p.OutH()*p.OutW(), tc.parallel)
		for _, ties := range []bool{false, true} {
			x, x64 := randOf[T](r, p.N*p.C*p.H*p.W)
			if ties { // values in {-2, -1, 0, 1}
				for i := range x {
					x[i] = T(math.Floor(float64(x[i])))
					x[i] = max(-2, min(1, x[i]))
					x64[i] = float64(x[i])
				}
			}
			dy, dy64 := randOf[T](r, p.N*p.C*p.OutH()*p.OutW())
			ymax, yavg, dmax, davg := runPool(x, dy, p)
			wmax, wavg, wdmax, wdavg := refPool(x64, dy64, p)
			for _, c := range []struct {
				name string
				got  []T
				want []float64
			}{{"max forward", ymax, wmax}, {"avg forward", yavg, wavg}, {"max backward", dmax, wdmax}, {"avg backward", davg, wdavg}} {
				if e := relErr(c.got, c.want); e > tol {
					t.Errorf("%s %s (ties %v): %s differs from the direct loops by %g", DType[T](), tc.name, ties, c.name, e)
				}
			}
		}
	}
}

func TestCPUPoolKernelsFloat64(t *testing.T) { checkPoolKernels[float64](t, 1e-12) }

func TestCPUPoolKernelsFloat32(t *testing.T) { checkPoolKernels[float32](t, 1e-4) }

// On a constant negative plane every window's maximum is its first in-bounds
// element (padding must not act as a zero, which would win) and receives the
// window's whole gradient.
func TestCPUPoolMaxTies(t *testing.T) {
	for _, p := range []Pool2DParams{
		{N: 1, C: 2, H: 5, W: 6, KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1},
		{N: 1, C: 1, H: 4, W: 4, KH: 2, KW: 2, StrideH: 1, StrideW: 1},
	} {
		oh, ow := p.OutH(), p.OutW()
		x := make([]float64, p.N*p.C*p.H*p.W)
		for i := range x {
			x[i] = -3
		}
		dy := make([]float64, p.N*p.C*oh*ow)
		want := make([]float64, len(x))
		for pl := 0; pl < p.N*p.C; pl++ {
			for i := 0; i < oh; i++ {
				for j := 0; j < ow; j++ {
					o := (pl*oh+i)*ow + j
					dy[o] = float64(o + 1)
					ih, iw := max(i*p.StrideH-p.PadH, 0), max(j*p.StrideW-p.PadW, 0)
					want[(pl*p.H+ih)*p.W+iw] += dy[o]
				}
			}
		}
		y, _, dx, _ := runPool(x, dy, p)
		for o, v := range y {
			if v != -3 {
				t.Fatalf("%+v: y[%d] = %v, want -3", p, o, v)
			}
		}
		for i := range dx {
			if dx[i] != want[i] {
				t.Fatalf("%+v: dx[%d] = %v, want %v", p, i, dx[i], want[i])
			}
		}
	}
}

// A NaN in a window is its maximum, so a diverged input is not hidden; the
// first NaN takes the gradient.
func TestCPUPoolMaxPropagatesNaN(t *testing.T) {
	p := Pool2DParams{N: 1, C: 1, H: 2, W: 4, KH: 2, KW: 2, StrideH: 2, StrideW: 2}
	x := []float64{1, math.NaN(), 5, 6, math.NaN(), 3, 7, math.NaN()}
	y, _, dx, _ := runPool(x, []float64{10, 20}, p)
	if !math.IsNaN(y[0]) || !math.IsNaN(y[1]) {
		t.Errorf("y = %v, want [NaN NaN]", y)
	}
	if want := []float64{0, 10, 0, 0, 0, 0, 0, 20}; relErr(dx, want) != 0 { // the first NaN
		t.Errorf("dx = %v, want %v", dx, want)
	}
}

// Both backward kernels are adjoints: <pool(x), dy> = <x, backward(dy)>
// (exactly linear for average pooling, linear on each argmax pattern for
// max pooling).
func TestCPUPoolAdjointIdentity(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range cpuPoolCases {
		p := tc.p
		x, _ := randOf[float64](r, p.N*p.C*p.H*p.W)
		dy, _ := randOf[float64](r, p.N*p.C*p.OutH()*p.OutW())
		ymax, yavg, dmax, davg := runPool(x, dy, p)
		for _, c := range []struct {
			name  string
			y, dx []float64
		}{{"max", ymax, dmax}, {"avg", yavg, davg}} {
			var a, b, scale float64
			for i := range dy {
				a += c.y[i] * dy[i]
				scale += math.Abs(c.y[i] * dy[i])
			}
			for i := range x {
				b += x[i] * c.dx[i]
			}
			if math.Abs(a-b) > 1e-12*max(scale, 1) {
				t.Errorf("%s %s: <y,dy> = %v, <x,dx> = %v", tc.name, c.name, a, b)
			}
		}
	}
}
