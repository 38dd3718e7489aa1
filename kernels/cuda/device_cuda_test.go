//go:build cuda

package cuda_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/ecl-go/ecl/kernels/cuda"
	"github.com/ecl-go/ecl/tensor"
)

// Each tensor.Device method of the CUDA backend against tensor.CPU, through
// the tensor package's functions (which make the same views and broadcasts
// on both devices).

func TestTransfers(t *testing.T) { both(t, transfers[float32], transfers[float64]) }

func transfers[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(1, 1))
	for _, s := range shapes {
		for _, l := range layouts {
			c, g := pair[T](r, dev, l, s, -1, 1)
			same(t, fmt.Sprintf("Data of %v view %v", l, s), g, c, 0, 0)
			if g.Device() != dev {
				t.Fatalf("view on %s, want %s", g.Device(), dev)
			}
		}
	}
	z := tensor.ZerosOn[T](dev, 4, 5)
	same(t, "ZerosOn", z, tensor.Zeros[T](4, 5), 0, 0)
	z.Set(3, 2, 1)
	if z.At(2, 1) != 3 || z.At(1, 2) != 0 {
		t.Fatalf("Set/At: %v", z.Data())
	}
	s := tensor.FullOn(dev, T(2.5))
	if s.Item() != 2.5 {
		t.Fatalf("scalar %v", s.Item())
	}
}

func TestFillCopy(t *testing.T) { both(t, fillCopy[float32], fillCopy[float64]) }

func fillCopy[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(2, 2))
	for _, s := range shapes {
		for _, l := range []layout{dense, transposed, narrowed} {
			c, g := pair[T](r, dev, l, s, -1, 1)
			tensor.CPU[T]{}.Fill(c, 7)
			dev.Fill(g, 7)
			same(t, fmt.Sprintf("Fill %v %v", l, s), g, c, 0, 0)
			// Copy a transposed source into the strided destination.
			src := tensor.RandUniform[T](r, -1, 1, l.alloc(s)...)
			srcView := viewAs(l, src, s)
			tensor.CopyInto(c, srcView)
			tensor.CopyInto(g, viewAs(l, tensor.To(src, dev), s))
			same(t, fmt.Sprintf("Copy into %v %v", l, s), g, c, 0, 0)
		}
	}
}

// unaryCases are every tensor.UnaryOp with its parameters and input range.
var unaryCases = []struct {
	op     tensor.UnaryOp
	a, b   float64
	lo, hi float64
}{
	{tensor.OpNeg, 0, 0, -3, 3}, {tensor.OpExp, 0, 0, -3, 3}, {tensor.OpLog, 0, 0, 0.1, 6},
	{tensor.OpSqrt, 0, 0, 0, 6}, {tensor.OpAbs, 0, 0, -3, 3}, {tensor.OpSign, 0, 0, -3, 3},
	{tensor.OpStep, 0, 0, -3, 3}, {tensor.OpRelu, 0, 0, -3, 3}, {tensor.OpSigmoid, 0, 0, -30, 30},
	{tensor.OpTanh, 0, 0, -3, 3}, {tensor.OpPowS, 2.5, 0, 0.1, 4}, {tensor.OpAffine, -1.5, 0.25, -3, 3},
	{tensor.OpClamp, -0.5, 0.5, -1, 1}, {tensor.OpInside, -0.5, 0.5, -1, 1},
	{tensor.OpLgamma, 0, 0, 0.05, 20}, {tensor.OpDigamma, 0, 0, 0.05, 20},
}

func TestUnary(t *testing.T) { both(t, unary[float32], unary[float64]) }

func unary[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(3, 3))
	if len(unaryCases) != int(tensor.OpDigamma)+1 {
		t.Fatalf("%d unary cases for %d ops", len(unaryCases), tensor.OpDigamma+1)
	}
	for _, c := range unaryCases {
		for _, s := range shapes {
			for _, l := range layouts {
				x, xg := pair[T](r, dev, l, s, T(c.lo), T(c.hi))
				want := tensor.ZerosOn[T](tensor.CPU[T]{}, s...)
				got := tensor.ZerosOn[T](dev, s...)
				tensor.CPU[T]{}.Unary(c.op, want, x, T(c.a), T(c.b))
				dev.Unary(c.op, got, xg, T(c.a), T(c.b))
				sameDefault(t, fmt.Sprintf("unary op %d on %v %v", c.op, l, s), got, want)
			}
		}
	}
}

// specials are the values whose handling the kernels copy from Go: NaN,
// infinities, signed zeros.
var specials = []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, -1, 0.5, -2.5, 3}

func TestSpecialValues(t *testing.T) { both(t, specialValues[float32], specialValues[float64]) }

func specialValues[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	vals := make([]T, len(specials))
	for i, v := range specials {
		vals[i] = T(v)
	}
	x := tensor.FromSlice(vals)
	for _, c := range unaryCases {
		in := x
		if c.op == tensor.OpLgamma || c.op == tensor.OpDigamma { // defined for x > 0 (and NaN, +Inf)
			in = tensor.FromSlice([]T{T(math.NaN()), T(math.Inf(1)), 0, 0.5, 1, 2, 3})
		}
		want, got := tensor.Zeros[T](in.Len()), tensor.ZerosOn[T](dev, in.Len())
		tensor.CPU[T]{}.Unary(c.op, want, in, T(c.a), T(c.b))
		dev.Unary(c.op, got, tensor.To(in, dev), T(c.a), T(c.b))
		sameDefault(t, fmt.Sprintf("unary op %d on %v", c.op, in.Data()), got, want)
	}
	// Every pair of specials through every binary op.
	n := len(vals)
	a, b := tensor.Reshape(x, n, 1), tensor.Reshape(x, 1, n)
	for op := tensor.OpAdd; op <= tensor.OpEqual; op++ {
		ea, eb := tensor.Expand(a, n, n), tensor.Expand(b, n, n)
		want, got := tensor.Zeros[T](n, n), tensor.ZerosOn[T](dev, n, n)
		tensor.CPU[T]{}.Binary(op, want, ea, eb)
		dev.Binary(op, got, tensor.Expand(tensor.To(a, dev), n, n), tensor.Expand(tensor.To(b, dev), n, n))
		sameDefault(t, fmt.Sprintf("binary op %d on specials", op), got, want)
	}
	// Where treats NaN as true.
	w := tensor.Where(x, x, tensor.Neg(x))
	wg := tensor.Where(tensor.To(x, dev), tensor.To(x, dev), tensor.Neg(tensor.To(x, dev)))
	sameDefault(t, "Where on specials", wg, w)
}

func TestBinary(t *testing.T) { both(t, binary[float32], binary[float64]) }

func binary[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(4, 4))
	for op := tensor.OpAdd; op <= tensor.OpEqual; op++ {
		lo := T(-2)
		if op == tensor.OpPow {
			lo = 0.1
		}
		for _, s := range shapes {
			for i, l := range layouts {
				x, xg := pair[T](r, dev, l, s, lo, 2)
				y, yg := pair[T](r, dev, layouts[(i+1)%len(layouts)], s, lo, 2)
				if op >= tensor.OpMax { // ties for the comparisons and extremes
					x, xg = pairOf(dev, l, s, tensor.Sign(tensor.RandUniform[T](r, -1, 1, l.alloc(s)...)))
					y, yg = pairOf(dev, layouts[(i+1)%len(layouts)], s, tensor.Sign(tensor.RandUniform[T](r, -1, 1, layouts[(i+1)%len(layouts)].alloc(s)...)))
				}
				want, got := tensor.Zeros[T](s...), tensor.ZerosOn[T](dev, s...)
				tensor.CPU[T]{}.Binary(op, want, x, y)
				dev.Binary(op, got, xg, yg)
				sameDefault(t, fmt.Sprintf("binary op %d on %v %v", op, l, s), got, want)
			}
		}
	}
}

func TestWhere(t *testing.T) { both(t, where[float32], where[float64]) }

func where[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(5, 5))
	for _, s := range shapes {
		for i, l := range layouts {
			c, cg := pair[T](r, dev, l, s, -1, 1)
			c, cg = tensor.Step(c), tensor.Step(cg)
			x, xg := pair[T](r, dev, layouts[(i+1)%4], s, -1, 1)
			y, yg := pair[T](r, dev, layouts[(i+2)%4], s, -1, 1)
			sameDefault(t, fmt.Sprintf("Where %v %v", l, s), tensor.Where(cg, xg, yg), tensor.Where(c, x, y))
		}
	}
}

// reduceShapes cover each path of Reduce: one thread per output, one block
// per row (inner = 1, long rows), and the two-pass split (few outputs, long
// axis), plus empty and single-element axes.
var reduceShapes = []struct {
	shape []int
	axis  int
}{
	{[]int{0, 5}, 0}, {[]int{5, 0}, 0}, {[]int{1}, 0}, {[]int{7, 13}, 0}, {[]int{7, 13}, 1},
	{[]int{3, 5, 9}, 1}, {[]int{3, 5, 9}, 2}, {[]int{3, 100_003}, 1}, {[]int{100_003, 3}, 0},
	{[]int{5, 70_001, 2}, 1}, {[]int{1, 2_000_003}, 1},
}

func TestReduce(t *testing.T) { both(t, reduce[float32], reduce[float64]) }

func reduce[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(6, 6))
	for _, c := range reduceShapes {
		for _, l := range []layout{dense, transposed} {
			x, xg := pair[T](r, dev, l, c.shape, -1, 1)
			// Quantised copies have ties (first-index rule of ArgMax/ArgMin);
			// a NaN tests Max/Min's propagation.
			q, qg := tensor.Sign(x), tensor.Sign(xg)
			n := c.shape[c.axis]
			atol, rtol := tol[T]()
			atol *= math.Sqrt(float64(max(n, 1))) // sums of n terms in another order
			for op := tensor.OpSum; op <= tensor.OpArgMin; op++ {
				if n == 0 && op >= tensor.OpArgMax {
					continue // both backends panic on an empty axis
				}
				in, ing := x, xg
				if op >= tensor.OpMaxR {
					in, ing = q, qg
				}
				want := reduceBy(op, in, c.axis)
				got := reduceBy(op, ing, c.axis)
				same(t, fmt.Sprintf("reduce op %d axis %d of %v %v", op, c.axis, l, c.shape), got, want, atol, rtol)
			}
			if x.Len() > 2 {
				nan := tensor.Clone(x)
				nan.Set(T(math.NaN()), make([]int, len(c.shape))...)
				for _, op := range []tensor.ReduceOp{tensor.OpMaxR, tensor.OpMinR, tensor.OpArgMax} {
					same(t, fmt.Sprintf("reduce op %d with NaN, %v", op, c.shape), reduceBy(op, tensor.To(nan, dev), c.axis), reduceBy(op, nan, c.axis), 0, 0)
				}
			}
		}
	}
}

func reduceBy[T tensor.Float](op tensor.ReduceOp, x *tensor.Tensor[T], axis int) *tensor.Tensor[T] {
	switch op {
	case tensor.OpSum:
		return tensor.Sum(x, axis, true)
	case tensor.OpMaxR:
		return tensor.Max(x, axis, true)
	case tensor.OpMinR:
		return tensor.Min(x, axis, true)
	case tensor.OpArgMax:
		return tensor.ArgMax(x, axis, true)
	default:
		return tensor.ArgMin(x, axis, true)
	}
}

// matmulCases cover the naive, 64×64-, 32×128- and 128×128-tile kernels,
// edges of the tiles, k = 0, a split depth, transposed and narrowed views
// and batch broadcasting (stride 0).
var matmulCases = []struct {
	a, b   []int
	ta, tb bool
}{
	{[]int{0, 3}, []int{3, 4}, false, false}, {[]int{4, 0}, []int{0, 5}, false, false},
	{[]int{1, 1}, []int{1, 1}, false, false}, {[]int{7, 5}, []int{5, 9}, true, false},
	{[]int{3, 7, 5}, []int{5, 9}, false, true}, {[]int{2, 65, 33}, []int{2, 33, 97}, true, true},
	{[]int{200, 300}, []int{300, 150}, false, false}, {[]int{4, 1, 40, 50}, []int{3, 50, 70}, false, true},
	{[]int{16, 20_000}, []int{20_000, 144}, false, true}, {[]int{1000, 3, 4}, []int{1000, 4, 3}, false, false},
	{[]int{2, 130, 70}, []int{2, 70, 257}, true, true}, {[]int{3, 256, 24}, []int{24, 128}, false, true},
	{[]int{3, 16, 40}, []int{40, 300}, false, false},
}

func TestMatMul(t *testing.T) { both(t, matmul[float32], matmul[float64]) }

func matmul[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(7, 7))
	view := func(s []int, tr bool) (*tensor.Tensor[T], *tensor.Tensor[T]) {
		l := dense
		if tr {
			l = transposed
		}
		return pair[T](r, dev, l, s, -1, 1)
	}
	for _, c := range matmulCases {
		a, ag := view(c.a, c.ta)
		b, bg := view(c.b, c.tb)
		k := c.a[len(c.a)-1]
		atol, rtol := tol[T]()
		depth := math.Sqrt(float64(max(k, 1))) // sums of k terms in another order
		same(t, fmt.Sprintf("MatMul %v·%v (transposed %v %v)", c.a, c.b, c.ta, c.tb), tensor.MatMul(ag, bg), tensor.MatMul(a, b), atol*depth, rtol*depth)
	}
	// A narrowed operand (row stride larger than its width).
	a, ag := pair[T](r, dev, narrowed, []int{70, 45}, -1, 1)
	b, bg := pair[T](r, dev, narrowed, []int{45, 66}, -1, 1)
	atol, rtol := tol[T]()
	same(t, "MatMul of narrowed views", tensor.MatMul(ag, bg), tensor.MatMul(a, b), atol*7, rtol*7)
}

// convCases cover stride, padding, dilation, pointwise kernels, LeNet's and
// ResNet's layers, a batch large enough for a split weight-gradient product,
// each tile of the implicit-GEMM kernels (up to 16, 32 and 64 channels on
// the product's rows) and more than 64 channels (the column-matrix path).
var convCases = []struct {
	x, w []int
	o    tensor.ConvOptions
}{
	{[]int{0, 3, 6, 5}, []int{4, 3, 3, 2}, tensor.ConvOptions{}},
	{[]int{1, 1, 1, 1}, []int{1, 1, 1, 1}, tensor.ConvOptions{}},
	{[]int{2, 3, 6, 5}, []int{4, 3, 3, 2}, tensor.ConvOptions{StrideH: 2, PadH: 1, PadW: 1, DilW: 2}},
	{[]int{1, 2, 4, 4}, []int{3, 2, 1, 1}, tensor.ConvOptions{}},
	{[]int{3, 5, 9, 7}, []int{4, 5, 3, 3}, tensor.ConvOptions{StrideH: 2, StrideW: 3, PadH: 2, PadW: 1, DilH: 2}},
	{[]int{16, 1, 28, 28}, []int{6, 1, 5, 5}, tensor.ConvOptions{}},
	{[]int{32, 16, 16, 16}, []int{32, 16, 3, 3}, tensor.ConvOptions{StrideH: 2, StrideW: 2, PadH: 1, PadW: 1}},
	{[]int{64, 16, 32, 32}, []int{16, 16, 3, 3}, tensor.ConvOptions{PadH: 1, PadW: 1}},
	{[]int{2, 40, 5, 7}, []int{50, 40, 3, 3}, tensor.ConvOptions{PadH: 1, PadW: 1}},
	{[]int{3, 20, 6, 6}, []int{70, 20, 3, 3}, tensor.ConvOptions{PadW: 2, DilW: 2}},
	{[]int{3, 70, 6, 5}, []int{20, 70, 2, 3}, tensor.ConvOptions{PadH: 1}},
	// Pointwise above 64 channels: products with x itself; the weight
	// gradient by columns (first) and by per-image products (then). A 3×3
	// convolution of 100 and of 150 output channels (implicit forward; the
	// weight gradient implicit, then by columns).
	{[]int{2, 8, 5, 6}, []int{100, 8, 3, 3}, tensor.ConvOptions{PadH: 1, PadW: 1}},
	{[]int{2, 8, 5, 6}, []int{150, 8, 3, 3}, tensor.ConvOptions{StrideH: 2, StrideW: 2, PadH: 1, PadW: 1}},
	{[]int{3, 70, 5, 4}, []int{80, 70, 1, 1}, tensor.ConvOptions{}},
	{[]int{2, 66, 9, 9}, []int{72, 66, 1, 1}, tensor.ConvOptions{}},
	{[]int{1, 66, 9, 9}, []int{72, 66, 1, 1}, tensor.ConvOptions{}},
	{[]int{2, 66, 7, 7}, []int{72, 66, 1, 1}, tensor.ConvOptions{StrideH: 2, StrideW: 2}},
}

// TestConv2D: the three convolution passes on the device against the CPU,
// and Conv2DBias and Conv2DAffine (the device's bodies, the convolution
// then the bias or channel_affine, against the CPU's fused passes), with
// and without the residual and the ReLU.
func TestConv2D(t *testing.T) { both(t, conv2D[float32], conv2D[float64]) }

func conv2D[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(8, 8))
	for _, c := range convCases {
		p, err := tensor.NewConv2DParams(c.x, c.w, c.o)
		if err != nil {
			t.Fatal(err)
		}
		x, xg := pair[T](r, dev, dense, c.x, -1, 1)
		w, wg := pair[T](r, dev, dense, c.w, -1, 1)
		dy, dyg := pair[T](r, dev, dense, []int{p.N, p.O, p.OutH(), p.OutW()}, -1, 1)
		// Tolerances grow as the square root of each sum's length.
		atol, rtol := tol[T]()
		depth := func(k int) (float64, float64) { s := math.Sqrt(float64(max(k, 1))); return atol * s, rtol * s }
		name := fmt.Sprintf("x %v w %v %+v", c.x, c.w, c.o)
		at, rt := depth(p.C * p.KH * p.KW)
		same(t, "Conv2D "+name, tensor.Conv2D(xg, wg, c.o), tensor.Conv2D(x, w, c.o), at, rt)
		// With its evaluation-mode batch norm, residual and ReLU: the
		// device's two ops against the CPU's fused pass (|scale| ≤ 1).
		scale, scaleG := pair[T](r, dev, dense, []int{p.O}, -1, 1)
		shift, shiftG := pair[T](r, dev, dense, []int{p.O}, -1, 1)
		res, resG := pair[T](r, dev, dense, []int{p.N, p.O, p.OutH(), p.OutW()}, -1, 1)
		same(t, "Conv2DAffine "+name, tensor.Conv2DAffine(xg, wg, scaleG, shiftG, resG, c.o, true), tensor.Conv2DAffine(x, w, scale, shift, res, c.o, true), at, rt)
		same(t, "Conv2DAffine plain "+name, tensor.Conv2DAffine(xg, wg, scaleG, shiftG, nil, c.o, false), tensor.Conv2DAffine(x, w, scale, shift, nil, c.o, false), at, rt)
		same(t, "Conv2DBias "+name, tensor.Conv2DBias(xg, wg, shiftG, c.o), tensor.Conv2DBias(x, w, shift, c.o), at, rt)
		at, rt = depth(p.O * p.KH * p.KW)
		same(t, "Conv2DBackwardInput "+name, tensor.Conv2DBackwardInput(dyg, wg, p), tensor.Conv2DBackwardInput(dy, w, p), at, rt)
		at, rt = depth(p.N * p.OutH() * p.OutW())
		same(t, "Conv2DBackwardWeight "+name, tensor.Conv2DBackwardWeight(xg, dyg, p), tensor.Conv2DBackwardWeight(x, dy, p), at, rt)
	}
}

var poolCases = []struct {
	x      []int
	kh, kw int
	o      tensor.ConvOptions
}{
	{[]int{0, 2, 4, 4}, 2, 2, tensor.ConvOptions{StrideH: 2, StrideW: 2}},
	{[]int{1, 1, 1, 1}, 1, 1, tensor.ConvOptions{}},
	{[]int{2, 2, 5, 6}, 2, 2, tensor.ConvOptions{StrideH: 2, StrideW: 2}},
	{[]int{1, 2, 5, 5}, 3, 3, tensor.ConvOptions{StrideH: 2, StrideW: 2, PadH: 1, PadW: 1}},
	{[]int{3, 4, 7, 9}, 3, 2, tensor.ConvOptions{StrideH: 1, StrideW: 2, PadH: 1}},
	{[]int{64, 16, 32, 32}, 2, 2, tensor.ConvOptions{StrideH: 2, StrideW: 2}},
}

func TestPool2D(t *testing.T) { both(t, pool2D[float32], pool2D[float64]) }

func pool2D[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(9, 9))
	for _, c := range poolCases {
		p, err := tensor.NewPool2DParams(c.x, c.kh, c.kw, c.o)
		if err != nil {
			t.Fatal(err)
		}
		x, xg := pair[T](r, dev, dense, c.x, -1, 1)
		// Values in {−1, 0, 1} give ties: the first maximum must win. A NaN
		// wins its windows.
		x, xg = tensor.Sign(x), tensor.Sign(xg)
		if x.Len() > 3 {
			x.Set(T(math.NaN()), 0, 0, 1, 1)
			xg.Set(T(math.NaN()), 0, 0, 1, 1)
		}
		dy, dyg := pair[T](r, dev, dense, []int{p.N, p.C, p.OutH(), p.OutW()}, -1, 1)
		name := fmt.Sprintf("x %v window %dx%d %+v", c.x, c.kh, c.kw, c.o)
		sameDefault(t, "MaxPool2D "+name, tensor.MaxPool2D(xg, c.kh, c.kw, c.o), tensor.MaxPool2D(x, c.kh, c.kw, c.o))
		sameDefault(t, "MaxPool2DBackward "+name, tensor.MaxPool2DBackward(xg, dyg, p), tensor.MaxPool2DBackward(x, dy, p))
		sameDefault(t, "AvgPool2D "+name, tensor.AvgPool2D(xg, c.kh, c.kw, c.o), tensor.AvgPool2D(x, c.kh, c.kw, c.o))
		sameDefault(t, "AvgPool2DBackward "+name, tensor.AvgPool2DBackward(dyg, p), tensor.AvgPool2DBackward(dy, p))
	}
}

func TestGatherScatter(t *testing.T) { both(t, gatherScatter[float32], gatherScatter[float64]) }

func gatherScatter[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(10, 10))
	for _, c := range []struct {
		x    []int
		axis int
		n    int // size of the result along axis
	}{{[]int{3, 4}, 1, 0}, {[]int{1}, 0, 1}, {[]int{3, 4}, 1, 6}, {[]int{4, 3}, 0, 9}, {[]int{5, 7, 3}, 1, 11}, {[]int{1000, 10}, 1, 1}, {[]int{3, 50_000}, 0, 5}} {
		for _, l := range []layout{dense, transposed} {
			x, xg := pair[T](r, dev, l, c.x, -1, 1)
			shape := append([]int(nil), c.x...)
			shape[c.axis] = c.n
			count := 1
			for _, s := range shape {
				count *= s
			}
			idx := make([]int, count)
			for i := range idx {
				idx[i] = r.IntN(c.x[c.axis]) // repeats: ScatterAdd accumulates
			}
			name := fmt.Sprintf("%v view %v axis %d, %d per slice", l, c.x, c.axis, c.n)
			same(t, "Gather "+name, tensor.Gather(xg, c.axis, idx, shape...), tensor.Gather(x, c.axis, idx, shape...), 0, 0)
			src, srcg := pair[T](r, dev, l, shape, -1, 1)
			atol, rtol := tol[T]()
			same(t, "ScatterAdd "+name, tensor.ScatterAdd(srcg, c.axis, idx, c.x...), tensor.ScatterAdd(src, c.axis, idx, c.x...), atol*float64(c.n+1), rtol)
		}
	}
}

// TestBytesInUse: a buffer counts while its tensor lives and returns to the
// allocator after the garbage collector finds it unreachable. Buffers of
// earlier tests are collected first, so that their release does not blur
// the count.
func TestBytesInUse(t *testing.T) {
	dev := gpu[float32](t)
	settle := func() {
		for range 3 {
			runtime.GC()
			time.Sleep(20 * time.Millisecond)
		}
	}
	settle()
	before := cuda.BytesInUse()
	x := tensor.ZerosOn(dev, 16<<20)
	if got := cuda.BytesInUse() - before; got < 64<<20 {
		t.Fatalf("a 64 MiB tensor adds %d bytes in use", got)
	}
	runtime.KeepAlive(x)
	x = nil
	deadline := time.Now().Add(2 * time.Second)
	for cuda.BytesInUse() > before && time.Now().Before(deadline) {
		settle()
	}
	if got := cuda.BytesInUse(); got > before {
		t.Errorf("after collection %d bytes in use, %d before", got, before)
	}
}

// TestMixedDevicesPanic: a CPU tensor never reaches a kernel.
func TestMixedDevicesPanic(t *testing.T) {
	dev := gpu[float32](t)
	defer func() {
		if recover() == nil {
			t.Error("adding a CPU tensor to a CUDA tensor did not panic")
		}
	}()
	tensor.Add(tensor.ZerosOn(dev, 3), tensor.Zeros[float32](3))
}
