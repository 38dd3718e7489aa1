package tensor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naiveConv is the direct 7-loop cross-correlation.
func naiveConv(x, w []float64, p Conv2DParams) []float64 {
	oh, ow := p.OutH(), p.OutW()
	y := make([]float64, p.N*p.O*oh*ow)
	for n := 0; n < p.N; n++ {
		for o := 0; o < p.O; o++ {
			for i := 0; i < oh; i++ {
				for j := 0; j < ow; j++ {
					var s float64
					for c := 0; c < p.C; c++ {
						for kh := 0; kh < p.KH; kh++ {
							for kw := 0; kw < p.KW; kw++ {
								ih, iw := i*p.StrideH-p.PadH+kh*p.DilH, j*p.StrideW-p.PadW+kw*p.DilW
								if ih >= 0 && ih < p.H && iw >= 0 && iw < p.W {
									s += x[((n*p.C+c)*p.H+ih)*p.W+iw] * w[((o*p.C+c)*p.KH+kh)*p.KW+kw]
								}
							}
						}
					}
					y[((n*p.O+o)*oh+i)*ow+j] = s
				}
			}
		}
	}
	return y
}

func randSlice(r *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = r.NormFloat64()
	}
	return s
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i])/max(1, math.Abs(b[i])))
	}
	return d
}

var convCases = []Conv2DParams{
	{N: 0, C: 2, H: 5, W: 5, O: 3, KH: 3, KW: 3},
	{N: 1, C: 1, H: 1, W: 1, O: 1, KH: 1, KW: 1},
	{N: 3, C: 2, H: 7, W: 5, O: 3, KH: 3, KW: 2, StrideH: 2, StrideW: 1, PadH: 1, PadW: 0, DilH: 1, DilW: 2},
	{N: 2, C: 4, H: 6, W: 6, O: 5, KH: 1, KW: 1},
	{N: 4, C: 6, H: 12, W: 12, O: 16, KH: 5, KW: 5},
	{N: 16, C: 8, H: 16, W: 16, O: 8, KH: 3, KW: 3, PadH: 1, PadW: 1}, // parallel path
}

func withDefaults(p Conv2DParams) Conv2DParams {
	p.StrideH, p.StrideW, p.DilH, p.DilW = orOne(p.StrideH), orOne(p.StrideW), orOne(p.DilH), orOne(p.DilW)
	return p
}

// Forward against the direct loops; both backward kernels against the
// adjoint identities <conv(x,w), dy> = <x, dX(dy,w)> = <w, dW(x,dy)>.
func TestCPUConvAgainstDirectLoops(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, p := range convCases {
		p = withDefaults(p)
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		x := randSlice(r, p.N*p.C*p.H*p.W)
		w := randSlice(r, p.O*p.C*p.KH*p.KW)
		dy := randSlice(r, p.N*p.O*p.OutH()*p.OutW())
		y := make([]float64, len(dy))
		conv2dForward(y, x, w, p)
		if d := maxDiff(y, naiveConv(x, w, p)); d > 1e-12 {
			t.Errorf("%+v: forward differs by %g", p, d)
		}
		dx := make([]float64, len(x))
		dw := make([]float64, len(w))
		conv2dBackwardInput(dx, dy, w, p)
		conv2dBackwardWeight(dw, x, dy, p)
		ref := dot(y, dy)
		if a, b := dot(x, dx), dot(w, dw); math.Abs(a-ref) > 1e-9*max(1, math.Abs(ref)) || math.Abs(b-ref) > 1e-9*max(1, math.Abs(ref)) {
			t.Errorf("%+v: adjoint identity <y,dy> %v, <x,dx> %v, <w,dw> %v", p, ref, a, b)
		}
		// The input gradient column by column: dx[i] = Σ dy·∂y/∂x_i.
		if len(x) > 0 && len(x) < 400 {
			for i := range x {
				e := make([]float64, len(x))
				e[i] = 1
				if g := dot(naiveConv(e, w, p), dy); math.Abs(g-dx[i]) > 1e-12*max(1, math.Abs(g)) {
					t.Fatalf("%+v: dx[%d] = %v, want %v", p, i, dx[i], g)
				}
			}
		}
	}
}

func TestCPUConvFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	p := withDefaults(convCases[4])
	x, w := randSlice(r, p.N*p.C*p.H*p.W), randSlice(r, p.O*p.C*p.KH*p.KW)
	x32, w32 := make([]float32, len(x)), make([]float32, len(w))
	for i := range x {
		x32[i], x[i] = float32(x[i]), float64(float32(x[i]))
	}
	for i := range w {
		w32[i], w[i] = float32(w[i]), float64(float32(w[i]))
	}
	y := naiveConv(x, w, p)
	y32 := make([]float32, len(y))
	conv2dForward(y32, x32, w32, p)
	for i := range y {
		if math.Abs(float64(y32[i])-y[i]) > 1e-4*max(1, math.Abs(y[i])) {
			t.Fatalf("float32 y[%d] = %v, want %v", i, y32[i], y[i])
		}
	}
}

func TestCPUPool(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, p := range []Pool2DParams{
		{N: 2, C: 3, H: 6, W: 7, KH: 2, KW: 2, StrideH: 2, StrideW: 2},
		{N: 1, C: 2, H: 5, W: 5, KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1},
		{N: 1, C: 1, H: 1, W: 1, KH: 1, KW: 1, StrideH: 1, StrideW: 1},
		{N: 8, C: 16, H: 32, W: 32, KH: 2, KW: 2, StrideH: 2, StrideW: 2}, // parallel path
	} {
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		x := randSlice(r, p.N*p.C*p.H*p.W)
		oh, ow := p.OutH(), p.OutW()
		dy := randSlice(r, p.N*p.C*oh*ow)
		ymax, yavg := make([]float64, len(dy)), make([]float64, len(dy))
		maxPool2dForward(ymax, x, p)
		avgPool2dForward(yavg, x, p)
		dmax, davg := make([]float64, len(x)), make([]float64, len(x))
		maxPool2dBackward(dmax, x, dy, p)
		avgPool2dBackward(davg, dy, p)
		wantMax, wantAvg := make([]float64, len(x)), make([]float64, len(x))
		for pl := 0; pl < p.N*p.C; pl++ {
			for i := 0; i < oh; i++ {
				for j := 0; j < ow; j++ {
					best, bi, sum := math.Inf(-1), -1, 0.0
					for kh := 0; kh < p.KH; kh++ {
						for kw := 0; kw < p.KW; kw++ {
							ih, iw := i*p.StrideH-p.PadH+kh, j*p.StrideW-p.PadW+kw
							if ih < 0 || ih >= p.H || iw < 0 || iw >= p.W {
								continue
							}
							k := (pl*p.H+ih)*p.W + iw
							sum += x[k]
							if x[k] > best {
								best, bi = x[k], k
							}
						}
					}
					o := (pl*oh+i)*ow + j
					if ymax[o] != best || math.Abs(yavg[o]-sum/float64(p.KH*p.KW)) > 1e-12 {
						t.Fatalf("%+v: output %d max %v (want %v) avg %v (want %v)", p, o, ymax[o], best, yavg[o], sum/float64(p.KH*p.KW))
					}
					wantMax[bi] += dy[o]
					for kh := 0; kh < p.KH; kh++ {
						for kw := 0; kw < p.KW; kw++ {
							ih, iw := i*p.StrideH-p.PadH+kh, j*p.StrideW-p.PadW+kw
							if ih >= 0 && ih < p.H && iw >= 0 && iw < p.W {
								wantAvg[(pl*p.H+ih)*p.W+iw] += dy[o] / float64(p.KH*p.KW)
							}
						}
					}
				}
			}
		}
		if d := maxDiff(dmax, wantMax); d > 0 {
			t.Errorf("%+v: max-pool backward differs by %g", p, d)
		}
		if d := maxDiff(davg, wantAvg); d > 1e-12 {
			t.Errorf("%+v: avg-pool backward differs by %g", p, d)
		}
	}
	// Ties: a constant plane sends every gradient to the first element of
	// each window.
	p := Pool2DParams{N: 1, C: 1, H: 2, W: 4, KH: 2, KW: 2, StrideH: 2, StrideW: 2}
	dx := make([]float64, 8)
	maxPool2dBackward(dx, make([]float64, 8), []float64{1, 2}, p)
	if dx[0] != 1 || dx[2] != 2 || dx[1]+dx[3]+dx[4]+dx[5]+dx[6]+dx[7] != 0 {
		t.Errorf("ties: dx = %v", dx)
	}
}
