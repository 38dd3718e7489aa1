package tensor

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// cpuConvCases cover an empty batch, the smallest convolution, odd sizes with
// mixed stride, padding and dilation, pointwise kernels with and without the
// shortcut, kernel taps that only ever see padding, "same" widths (LeNet's
// first layer, a dilated one) whose column rows are copied in one run,
// LeNet's second layer and a batch that splits over cores in uneven chunks.
var cpuConvCases = []struct {
	name     string
	p        Conv2DParams
	parallel bool
}{
	{"empty", Conv2DParams{N: 0, C: 2, H: 5, W: 5, O: 3, KH: 3, KW: 3, StrideH: 1, StrideW: 1, DilH: 1, DilW: 1}, false},
	{"1x1x1x1", Conv2DParams{N: 1, C: 1, H: 1, W: 1, O: 1, KH: 1, KW: 1, StrideH: 1, StrideW: 1, DilH: 1, DilW: 1}, false},
	{"odd", Conv2DParams{N: 3, C: 2, H: 7, W: 5, O: 3, KH: 3, KW: 2, StrideH: 2, StrideW: 1, PadH: 1, PadW: 0, DilH: 1, DilW: 2}, false},
	{"odd-stride-w", Conv2DParams{N: 2, C: 3, H: 6, W: 9, O: 2, KH: 2, KW: 3, StrideH: 1, StrideW: 3, PadH: 0, PadW: 2, DilH: 2, DilW: 1}, false},
	{"pointwise", Conv2DParams{N: 2, C: 4, H: 6, W: 5, O: 5, KH: 1, KW: 1, StrideH: 1, StrideW: 1, DilH: 1, DilW: 1}, false},
	{"pointwise-stride2", Conv2DParams{N: 2, C: 4, H: 6, W: 5, O: 5, KH: 1, KW: 1, StrideH: 2, StrideW: 2, DilH: 1, DilW: 1}, false},
	{"padding-only-taps", Conv2DParams{N: 2, C: 2, H: 2, W: 1, O: 2, KH: 3, KW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1, DilH: 1, DilW: 1}, false},
	{"same-5x5", Conv2DParams{N: 2, C: 3, H: 7, W: 6, O: 4, KH: 5, KW: 5, StrideH: 1, StrideW: 1, PadH: 2, PadW: 2, DilH: 1, DilW: 1}, false},
	{"same-dilated", Conv2DParams{N: 2, C: 2, H: 5, W: 4, O: 3, KH: 3, KW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 2, DilH: 1, DilW: 2}, false},
	{"same-width-stride-h", Conv2DParams{N: 2, C: 2, H: 7, W: 5, O: 3, KH: 3, KW: 3, StrideH: 2, StrideW: 1, PadH: 1, PadW: 1, DilH: 1, DilW: 1}, false},
	{"lenet", Conv2DParams{N: 4, C: 6, H: 12, W: 12, O: 16, KH: 5, KW: 5, StrideH: 1, StrideW: 1, DilH: 1, DilW: 1}, true},
	{"parallel", Conv2DParams{N: 7, C: 8, H: 16, W: 16, O: 8, KH: 3, KW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1, DilH: 1, DilW: 1}, true},
}

// convTaps calls f with the offsets in x, w and y of every product
// x·w that the convolution sums into y: the direct 7-nested loop.
func convTaps(p Conv2DParams, f func(xi, wi, yi int)) {
	oh, ow := p.OutH(), p.OutW()
	for n := 0; n < p.N; n++ {
		for o := 0; o < p.O; o++ {
			for i := 0; i < oh; i++ {
				for j := 0; j < ow; j++ {
					for c := 0; c < p.C; c++ {
						for kh := 0; kh < p.KH; kh++ {
							for kw := 0; kw < p.KW; kw++ {
								ih, iw := i*p.StrideH-p.PadH+kh*p.DilH, j*p.StrideW-p.PadW+kw*p.DilW
								if ih >= 0 && ih < p.H && iw >= 0 && iw < p.W {
									f(((n*p.C+c)*p.H+ih)*p.W+iw, ((o*p.C+c)*p.KH+kh)*p.KW+kw, ((n*p.O+o)*oh+i)*ow+j)
								}
							}
						}
					}
				}
			}
		}
	}
}

// refConv returns the direct-loop forward result and both gradients of
// Σ y·dy.
func refConv(x, w, dy []float64, p Conv2DParams) (y, dx, dw []float64) {
	y, dx, dw = make([]float64, len(dy)), make([]float64, len(x)), make([]float64, len(w))
	convTaps(p, func(xi, wi, yi int) {
		y[yi] += x[xi] * w[wi]
		dx[xi] += dy[yi] * w[wi]
		dw[wi] += dy[yi] * x[xi]
	})
	return y, dx, dw
}

// randOf returns n standard normal values rounded to T, in T and in float64.
func randOf[T Float](r *rand.Rand, n int) ([]T, []float64) {
	s, s64 := make([]T, n), make([]float64, n)
	for i := range s {
		s[i] = T(r.NormFloat64())
		s64[i] = float64(s[i])
	}
	return s, s64
}

// nans is a slice of n NaNs: outputs pre-filled with it show any element a
// kernel accumulates into or leaves unwritten.
func nans[T Float](n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = T(math.NaN())
	}
	return s
}

// relErr is the largest |got-want| / max(1, |want|), +Inf on a length
// mismatch or NaN.
func relErr[T Float](got []T, want []float64) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	e := 0.0
	for i, g := range got {
		d := math.Abs(float64(g)-want[i]) / max(1, math.Abs(want[i]))
		if math.IsNaN(d) {
			return math.Inf(1)
		}
		e = max(e, d)
	}
	return e
}

// checkConvKernels compares the three kernels in T against the direct loops.
func checkConvKernels[T Float](t *testing.T, tol float64) {
	withProcs(t, 4)
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range cpuConvCases {
		p := tc.p
		rows, cols := colShape(p)
		checkCase(t, tc.name, p, p.N*p.O*rows*cols, tc.parallel)
		x, x64 := randOf[T](r, p.N*p.C*p.H*p.W)
		w, w64 := randOf[T](r, p.O*p.C*p.KH*p.KW)
		dy, dy64 := randOf[T](r, p.N*p.O*p.OutH()*p.OutW())
		b, b64 := randOf[T](r, p.O)
		wantY, wantDx, wantDw := refConv(x64, w64, dy64, p)
		wantYb := slices.Clone(wantY) // y + b[o]
		for i := range wantYb {
			wantYb[i] += b64[i/(p.OutH()*p.OutW())%p.O]
		}

		y, dx, dw := nans[T](len(dy)), nans[T](len(x)), nans[T](len(w))
		yb := nans[T](len(dy))
		conv2dForward(y, x, w, nil, p)
		conv2dForward(yb, x, w, biasEpilogue(b), p)
		conv2dBackwardInput(dx, dy, w, p)
		conv2dBackwardWeight(dw, x, dy, p)
		dx2, dw2 := nans[T](len(x)), nans[T](len(w))
		conv2dGrads(dx2, dw2, x, dy, w, p)
		for _, c := range []struct {
			name string
			got  []T
			want []float64
		}{{"forward", y, wantY}, {"forward with bias", yb, wantYb}, {"backward input", dx, wantDx},
			{"backward weight", dw, wantDw}, {"both gradients' input", dx2, wantDx}, {"both gradients' weight", dw2, wantDw}} {
			if e := relErr(c.got, c.want); e > tol {
				t.Errorf("%s %s: %s differs from the direct loops by %g", DType[T](), tc.name, c.name, e)
			}
		}
	}
}

func TestCPUConvKernelsFloat64(t *testing.T) { checkConvKernels[float64](t, 1e-12) }

func TestCPUConvKernelsFloat32(t *testing.T) { checkConvKernels[float32](t, 1e-4) }

// <conv(x,w), dy> = <x, backwardInput(dy,w)> = <w, backwardWeight(x,dy)>.
func TestCPUConvAdjointIdentity(t *testing.T) {
	withProcs(t, 4)
	r := rand.New(rand.NewPCG(1, 2))
	dot := func(a, b []float64) (s, abs float64) {
		for i := range a {
			s += a[i] * b[i]
			abs += math.Abs(a[i] * b[i])
		}
		return s, abs
	}
	for _, tc := range cpuConvCases[1:] {
		p := tc.p
		x, _ := randOf[float64](r, p.N*p.C*p.H*p.W)
		w, _ := randOf[float64](r, p.O*p.C*p.KH*p.KW)
		dy, _ := randOf[float64](r, p.N*p.O*p.OutH()*p.OutW())
		y, dx, dw := make([]float64, len(dy)), make([]float64, len(x)), make([]float64, len(w))
		conv2dForward(y, x, w, nil, p)
		conv2dBackwardInput(dx, dy, w, p)
		conv2dBackwardWeight(dw, x, dy, p)
		ref, scale := dot(y, dy)
		if scale == 0 {
			t.Fatalf("%s: degenerate test data", tc.name)
		}
		a, _ := dot(x, dx)
		b, _ := dot(w, dw)
		if math.Abs(a-ref) > 1e-12*scale || math.Abs(b-ref) > 1e-12*scale {
			t.Errorf("%s: <y,dy> = %v, <x,dx> = %v, <w,dw> = %v", tc.name, ref, a, b)
		}
	}
}

// The weight gradient sums per-worker partials in a fixed order: repeated
// runs agree to the bit.
func TestCPUConvWeightGradientDeterministic(t *testing.T) {
	withProcs(t, 4)
	r := rand.New(rand.NewPCG(1, 2))
	p := cpuConvCases[len(cpuConvCases)-1].p
	x, _ := randOf[float32](r, p.N*p.C*p.H*p.W)
	dy, _ := randOf[float32](r, p.N*p.O*p.OutH()*p.OutW())
	w, _ := randOf[float32](r, p.O*p.C*p.KH*p.KW)
	for name, f := range map[string]func(dw []float32){
		"alone":                   func(dw []float32) { conv2dBackwardWeight(dw, x, dy, p) },
		"with the input gradient": func(dw []float32) { conv2dGrads(make([]float32, len(x)), dw, x, dy, w, p) },
	} {
		first := make([]float32, len(w))
		f(first)
		for range 20 {
			dw := make([]float32, len(first))
			f(dw)
			if !slices.Equal(dw, first) {
				t.Fatalf("weight gradient (%s) changed between runs", name)
			}
		}
	}
}

// span must agree with testing every output position.
func TestCPUConvSpan(t *testing.T) {
	for n := 1; n <= 6; n++ {
		for stride := 1; stride <= 3; stride++ {
			for pad := 0; pad <= 3; pad++ {
				for off := 0; off <= 8; off++ {
					for size := 1; size <= 6; size++ {
						lo, hi := span(n, stride, pad, off, size)
						for o := 0; o < n; o++ {
							in := o*stride - pad + off
							if inside, got := in >= 0 && in < size, o >= lo && o < hi; inside != got {
								t.Fatalf("span(%d, %d, %d, %d, %d) = [%d, %d), wrong at %d", n, stride, pad, off, size, lo, hi, o)
							}
						}
					}
				}
			}
		}
	}
}

// Conv2DBias's CPU body rounds as its composed reference, Conv2D then a
// broadcast Add: results agree to the bit, in float32 and float64, with x
// a view (a narrowed channel range), on every case (none, one and several
// images, odd sizes, strides, padding and dilation).
func TestConv2DBiasMatchesComposed(t *testing.T) {
	for i, tc := range cpuConvCases {
		checkConvBias[float32](t, tc.name, uint64(i), tc.p)
		checkConvBias[float64](t, tc.name, uint64(i), tc.p)
	}
}

func checkConvBias[T Float](t *testing.T, name string, seed uint64, p Conv2DParams) {
	t.Helper()
	r := newRNG(seed)
	x := Narrow(RandNormal[T](r, 0, 1, p.N, p.C+2, p.H, p.W), 1, 1, p.C)
	w := RandNormal[T](r, 0, 1, p.O, p.C, p.KH, p.KW)
	b := RandNormal[T](r, 0, 1, p.O)
	o := ConvOptions{StrideH: p.StrideH, StrideW: p.StrideW, PadH: p.PadH, PadW: p.PadW, DilH: p.DilH, DilW: p.DilW}
	got, want := Conv2DBias(x, w, b, o), conv2dBiasComposed(x, w, b, o)
	if !equalData(got, want) {
		t.Errorf("%s %v: Conv2DBias differs from Conv2D + Add", name, DType[T]())
	}
}
